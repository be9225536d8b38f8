// Reading what a uPlot chart drew, from its canvas: the test looks at pixels, not at elements.
import type { Locator } from "@playwright/test";

/** Pixels of the chart's canvas that are neither background nor grid: what the series drew. */
export async function drawnPixels(chart: Locator): Promise<number> {
  return chart.locator("canvas").first().evaluate((canvas: HTMLCanvasElement) => {
    const { data } = canvas.getContext("2d")!.getImageData(0, 0, canvas.width, canvas.height);
    let drawn = 0;
    for (let i = 0; i < data.length; i += 4) {
      const [r, g, b, a] = [data[i]!, data[i + 1]!, data[i + 2]!, data[i + 3]!];
      // Transparent background; the grid and axes are light or mid greys (r ≈ g ≈ b).
      const grey = Math.abs(r - g) < 12 && Math.abs(g - b) < 12;
      if (a > 64 && !grey) drawn += 1;
    }
    return drawn;
  });
}

/** Pixels of one colour (within a tolerance) in the column at `x` (canvas pixels), ±1 pixel. */
export async function pixelsOfColourAt(chart: Locator, x: number, colour: [number, number, number]): Promise<number> {
  return chart.locator("canvas").first().evaluate((canvas: HTMLCanvasElement, [column, [R, G, B]]) => {
    const { data, width } = canvas.getContext("2d")!.getImageData(Math.max(0, column - 1), 0, 3, canvas.height);
    let matching = 0;
    for (let i = 0; i < data.length; i += 4) {
      const close = Math.abs(data[i]! - R) < 40 && Math.abs(data[i + 1]! - G) < 40 && Math.abs(data[i + 2]! - B) < 40 && data[i + 3]! > 128;
      if (close) matching += 1;
    }
    return width > 0 ? matching : 0;
  }, [x, colour] as const);
}
