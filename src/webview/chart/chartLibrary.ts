// ECharts with only the parts the chart page uses: bar, line and scatter charts, axes,
// tooltips and legends, drawn on a canvas on screen and as SVG text for a saved image.

import * as echarts from 'echarts/core';
import { BarChart, LineChart, ScatterChart } from 'echarts/charts';
import { GridComponent, LegendComponent, TooltipComponent } from 'echarts/components';
import { CanvasRenderer, SVGRenderer } from 'echarts/renderers';

echarts.use([BarChart, LineChart, ScatterChart, GridComponent, LegendComponent, TooltipComponent, CanvasRenderer, SVGRenderer]);

export { echarts };
