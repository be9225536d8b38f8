// Reading what a uPlot chart drew, from its canvas: the test looks at pixels, not at elements.
import type { Locator } from "@playwright/test";

/**
 * Pixels of the chart's canvas in the colour of one of its series (as its legend shows them):
 * what the series' lines drew. Grid, axes and the marks of events (annotation colours are apart
 * from every series colour) are not counted, so a chart with marks but no lines counts ~0.
 */
export async function drawnPixels(chart: Locator): Promise<number> {
  // The time series' marker has no border; each y series' marker is bordered in its stroke colour.
  const colours = await chart.locator(".u-legend .u-series .u-marker").evaluateAll((markers) =>
    markers.map((marker) => getComputedStyle(marker)).filter((style) => style.borderStyle !== "none")
      .map((style) => (style.borderColor.match(/\d+/g) ?? []).slice(0, 3).map(Number)).filter((rgb) => rgb.length === 3));
  if (colours.length === 0) throw new Error("the chart's legend names no series colour");
  return chart.locator("canvas").first().evaluate((canvas: HTMLCanvasElement, series: number[][]) => {
    const { data } = canvas.getContext("2d")!.getImageData(0, 0, canvas.width, canvas.height);
    let drawn = 0;
    for (let i = 0; i < data.length; i += 4) {
      if (data[i + 3]! < 128) continue;
      if (series.some(([r, g, b]) => Math.abs(data[i]! - r!) < 24 && Math.abs(data[i + 1]! - g!) < 24 && Math.abs(data[i + 2]! - b!) < 24)) drawn += 1;
    }
    return drawn;
  }, colours);
}

/** Pixels of one colour (within a tolerance) in the column at `x` (canvas pixels), ±1 pixel. */
export async function pixelsOfColourAt(chart: Locator, x: number, colour: [number, number, number]): Promise<number> {
  return chart.locator("canvas").first().evaluate((canvas: HTMLCanvasElement, [column, [R, G, B]]) => {
    const { data } = canvas.getContext("2d")!.getImageData(Math.max(0, column - 1), 0, 3, canvas.height);
    let matching = 0;
    for (let i = 0; i < data.length; i += 4) {
      if (Math.abs(data[i]! - R) < 40 && Math.abs(data[i + 1]! - G) < 40 && Math.abs(data[i + 2]! - B) < 40 && data[i + 3]! > 128) matching += 1;
    }
    return matching;
  }, [x, colour] as const);
}
