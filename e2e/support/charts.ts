// Checks that the charts on a page are drawn, not only present: every chart must have a
// plot of real size whose canvas holds pixels in one of its series' colours. An element that
// exists with an empty or zero-size canvas (a chart whose drawing threw) fails, as does a chart
// squeezed to a sliver. A time-series chart that says "Not measured" (the agent sent no value
// for it) is exempt from the pixel check, since it has nothing to draw, but not from the size.
import { expect, type Locator, type Page } from "@playwright/test";

export interface ChartDrawing {
  /** What the chart is: its data-chart / data-testid and device, for the failure message. */
  name: string;
  canvasWidth: number;
  canvasHeight: number;
  /** The plot's width on the page against the width of the box it sits in. */
  shownWidth: number;
  boxWidth: number;
  /** Pixels whose colour is one of the series' (from the legend's markers). */
  seriesPixels: number;
  seriesColours: number;
  notMeasured: boolean;
}

/**
 * How strictly a series colour is matched: every chart of a page is checked leniently (an
 * antialiased percentile line of a few points must count); one chart's lines are counted strictly,
 * so that the marks of events (annotation tones, near some series colours) are not counted.
 */
interface Matching {
  /** Largest difference per channel still read as the series' colour. */
  tolerance: number;
  /** Only legend markers with a border (a y series' stroke), not a plain marker. */
  borderedOnly: boolean;
}
const lenient: Matching = { tolerance: 40, borderedOnly: false };
const strict: Matching = { tolerance: 24, borderedOnly: true };

/** Runs in the page: measures every chart inside `scope` (the whole document when null). */
function measureCharts({ scope, matching }: { scope: Element | null; matching: Matching }): ChartDrawing[] {
  // No named helpers in here: the function is sent to the page as source, and a TS loader may
  // wrap named functions in a helper the page does not have.
  const root = scope ?? document;
  // Every chart component marks the element it draws into with data-plot (apps/console).
  return [...root.querySelectorAll<HTMLElement>("[data-plot]")].map((box) => {
    const holder = box.closest<HTMLElement>("[data-chart], [data-testid]");
    const name = [holder?.dataset.chart ?? holder?.dataset.testid ?? "chart", holder?.dataset.device].filter(Boolean).join(" ");
    const canvas = box.querySelector(".uplot canvas") as HTMLCanvasElement | null;
    // The legend's markers carry the series' stroke colours (the first row is the x value). A
    // series as grey as the axes, grid and labels (drawn on the same canvas) cannot be told from
    // them, so only the others are looked for.
    const greys = [
      [107, 114, 128],
      [238, 240, 243],
      [229, 231, 235],
    ];
    const colours = [...box.querySelectorAll<HTMLElement>(".u-legend .u-series .u-marker")]
      .filter((marker) => !matching.borderedOnly || getComputedStyle(marker).borderTopStyle !== "none")
      .map((marker) => /rgba?\(([\d.]+),\s*([\d.]+),\s*([\d.]+)(?:,\s*([\d.]+))?\)/.exec(getComputedStyle(marker).borderTopColor))
      .filter((m): m is RegExpExecArray => m !== null && (m[4] === undefined || Number(m[4]) > 0.5))
      .map((m) => [Number(m[1]), Number(m[2]), Number(m[3])])
      .filter((c) => !greys.some((g) => Math.max(...g.map((v, i) => Math.abs(v - c[i]!))) < 60));
    let seriesPixels = 0;
    if (canvas && canvas.width > 0 && canvas.height > 0) {
      const pixels = canvas.getContext("2d")!.getImageData(0, 0, canvas.width, canvas.height).data;
      for (let i = 0; i < pixels.length; i += 4) {
        if (pixels[i + 3]! < 128) continue;
        const t = matching.tolerance;
        if (
          colours.some(
            ([r, g, b]) => Math.abs(pixels[i]! - r!) < t && Math.abs(pixels[i + 1]! - g!) < t && Math.abs(pixels[i + 2]! - b!) < t,
          )
        ) {
          seriesPixels++;
        }
      }
    }
    return {
      name,
      canvasWidth: canvas?.width ?? 0,
      canvasHeight: canvas?.height ?? 0,
      shownWidth: canvas?.getBoundingClientRect().width ?? 0,
      boxWidth: box.getBoundingClientRect().width,
      seriesPixels,
      seriesColours: colours.length,
      notMeasured: holder?.closest("figure")?.querySelector('[data-testid="not-measured"]') != null,
    };
  });
}

/** Why a chart does not count as drawn, or null when it does. */
export function chartProblem(chart: ChartDrawing): string | null {
  if (chart.canvasWidth === 0 || chart.canvasHeight === 0)
    return `its plot is ${chart.canvasWidth}×${chart.canvasHeight} px (or was never made)`;
  if (chart.shownWidth < 0.5 * chart.boxWidth)
    return `its plot is ${Math.round(chart.shownWidth)} px wide in a ${Math.round(chart.boxWidth)} px box`;
  if (chart.notMeasured) return null;
  if (chart.seriesColours === 0) return "it has no series in its legend whose colour stands out from the axes";
  // Blank: not one series pixel. (A series of two samples 10 s apart on an hour's axis, at zero,
  // is a handful of pixels: that is drawn.)
  if (chart.seriesPixels < 2) return `its plot is blank (${chart.seriesPixels} pixels in a series colour)`;
  return null;
}

/**
 * Waits until every chart in `scope` (default: the page) is drawn, and at least `atLeast` charts
 * are there. Folded sections (the idle devices' <details>) are opened first, as a user would to
 * see them. Charts draw after their data arrives, so this retries until the timeout.
 */
export async function expectChartsDrawn(
  page: Page,
  options: { scope?: Locator; atLeast?: number; timeout?: number } = {},
): Promise<ChartDrawing[]> {
  let charts: ChartDrawing[] = [];
  await expect(async () => {
    const scope = options.scope ? await options.scope.elementHandle() : null;
    await page.evaluate((root) => {
      for (const d of (root ?? document).querySelectorAll("details:not([open])")) (d as HTMLDetailsElement).open = true;
    }, scope);
    charts = await page.evaluate(measureCharts, { scope, matching: lenient });
    expect(charts.length, "charts on the page").toBeGreaterThanOrEqual(options.atLeast ?? 1);
    const problems = charts.map((c) => [c.name, chartProblem(c)] as const).filter(([, p]) => p !== null);
    expect(
      problems.map(([name, problem]) => `${name}: ${problem}`),
      "charts not drawn",
    ).toEqual([]);
  }).toPass({ timeout: options.timeout ?? 30_000 });
  return charts;
}

/**
 * Pixels of one chart's canvas in the colour of one of its series (as its legend shows them):
 * what the series' lines drew. Grid, axes and the marks of events are not counted, so a chart
 * with marks but no lines counts ~0, as does one whose legend is not drawn yet (retry it).
 */
export async function drawnPixels(chart: Locator): Promise<number> {
  const [drawing] = await chart.page().evaluate(measureCharts, { scope: await chart.elementHandle(), matching: strict });
  return drawing?.seriesPixels ?? 0;
}

/** Pixels of one colour (within a tolerance) in the column at `x` (canvas pixels), ±1 pixel. */
export async function pixelsOfColourAt(chart: Locator, x: number, colour: [number, number, number]): Promise<number> {
  return chart
    .locator("canvas")
    .first()
    .evaluate(
      (canvas: HTMLCanvasElement, [column, [R, G, B]]) => {
        const { data } = canvas.getContext("2d")!.getImageData(Math.max(0, column - 1), 0, 3, canvas.height);
        let matching = 0;
        for (let i = 0; i < data.length; i += 4) {
          if (Math.abs(data[i]! - R) < 40 && Math.abs(data[i + 1]! - G) < 40 && Math.abs(data[i + 2]! - B) < 40 && data[i + 3]! > 128)
            matching += 1;
        }
        return matching;
      },
      [x, colour] as const,
    );
}
