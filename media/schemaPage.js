// The schema page's filter: shows the rows whose name, type or description contain the text.
(function () {
  const filter = document.getElementById('filter');
  const rows = Array.from(document.querySelectorAll('#columns tbody tr'));
  const none = document.getElementById('none');
  filter.addEventListener('input', () => {
    const text = filter.value.trim().toLowerCase();
    let shown = 0;
    for (const row of rows) {
      const match = row.dataset.search.includes(text);
      row.hidden = !match;
      if (match) shown++;
    }
    none.hidden = shown > 0;
  });
  filter.focus();
})();
