// The schema page's filter: shows the rows whose name, type or description contain the text.
// The filter, whether the raw JSON is open and the scroll position are kept in the webview's
// state, so the page comes back as it was when its tab is shown again or a newer schema
// version redraws it.
(function () {
  const vscode = acquireVsCodeApi();
  const filter = document.getElementById('filter');
  const raw = document.getElementById('raw');
  const rows = Array.from(document.querySelectorAll('#columns tbody tr'));
  const none = document.getElementById('none');
  const kept = vscode.getState() || {};

  function save() {
    vscode.setState({ filter: filter.value, rawOpen: raw.open, scrollY: window.scrollY });
  }

  function applyFilter() {
    const text = filter.value.trim().toLowerCase();
    let shown = 0;
    for (const row of rows) {
      const match = row.dataset.search.includes(text);
      row.hidden = !match;
      if (match) shown++;
    }
    none.hidden = shown > 0;
  }

  filter.addEventListener('input', () => {
    applyFilter();
    save();
  });
  raw.addEventListener('toggle', save);
  let scrollSaved = false;
  window.addEventListener('scroll', () => {
    if (scrollSaved) return;
    scrollSaved = true;
    requestAnimationFrame(() => {
      scrollSaved = false;
      save();
    });
  });

  if (typeof kept.filter === 'string') filter.value = kept.filter;
  if (kept.rawOpen === true) raw.open = true;
  applyFilter();
  filter.focus({ preventScroll: true });
  if (typeof kept.scrollY === 'number' && kept.scrollY > 0) window.scrollTo(0, kept.scrollY);
})();
