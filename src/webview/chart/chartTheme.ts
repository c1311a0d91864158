// The colours and font of the VS Code theme in force, read from the --vscode-… variables VS Code
// sets on the page: a canvas needs them as values, not as var() references. Each falls back
// to another theme variable where a theme leaves one out; nothing outside the theme is used.

export interface ChartTheme {
  foreground: string;
  /** axis labels and names, the legend of "other" */
  muted: string;
  background: string;
  /** axis lines */
  axis: string;
  /** grid lines */
  grid: string;
  tooltipBackground: string;
  tooltipBorder: string;
  /** one colour per series, in order */
  series: string[];
  /** the series and bars that stand for the values outside the most common ones */
  other: string;
  fontFamily: string;
  fontSize: number;
}

const SERIES = ['charts-blue', 'charts-orange', 'charts-green', 'charts-purple', 'charts-red', 'charts-yellow', 'terminal-ansiCyan', 'terminal-ansiMagenta'];

/** A colour as `[r, g, b, a]`, as the page computes it (any CSS colour: hex, rgb(), names). */
function channels(colour: string): number[] {
  const probe = document.createElement('span');
  probe.style.color = colour;
  document.body.append(probe);
  const computed = getComputedStyle(probe).color;
  probe.remove();
  const [r = 0, g = 0, b = 0, a = 1] = (computed.match(/[\d.]+/g) ?? []).map(Number);
  return [r, g, b, a];
}

/**
 * A colour that the theme gives translucent (the dark themes' `charts.orange` is the find-match highlight, a third opaque),
 * at full strength: a series keeps its own colour over the background and over the series below it.
 */
function opaque(colour: string): string {
  const [r, g, b, a] = channels(colour);
  return a >= 1 ? colour : `rgb(${r}, ${g}, ${b})`;
}

/** The theme as the page's variables give it now. */
export function readTheme(root: HTMLElement = document.documentElement): ChartTheme {
  const style = getComputedStyle(root);
  const variable = (...names: string[]): string => {
    for (const name of names) {
      const value = style.getPropertyValue(`--vscode-${name}`).trim();
      if (value) return value;
    }
    return getComputedStyle(document.body).color;
  };
  const foreground = variable('editor-foreground', 'foreground');
  const background = variable('editor-background');
  return {
    foreground,
    muted: variable('descriptionForeground', 'editor-foreground', 'foreground'),
    background,
    axis: variable('charts-lines', 'panel-border', 'descriptionForeground'),
    grid: variable('editorWidget-border', 'panel-border', 'charts-lines'),
    tooltipBackground: variable('editorHoverWidget-background', 'editorWidget-background', 'editor-background'),
    tooltipBorder: variable('editorHoverWidget-border', 'editorWidget-border', 'panel-border'),
    series: SERIES.map((name) => opaque(variable(name, 'charts-foreground', 'foreground'))),
    other: opaque(variable('disabledForeground', 'descriptionForeground')),
    // double quotes would end the SVG attribute that ECharts writes the family into
    fontFamily: variable('font-family').replace(/"/g, "'"),
    fontSize: Number.parseFloat(variable('font-size')) || 13,
  };
}

/** Calls `changed` whenever VS Code switches the theme (it sets the body's class and the page's variables). */
export function onThemeChange(changed: () => void): void {
  const observer = new MutationObserver(() => changed());
  observer.observe(document.body, { attributes: true, attributeFilter: ['class'] });
  observer.observe(document.documentElement, { attributes: true, attributeFilter: ['style', 'class'] });
}
