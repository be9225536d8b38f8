// A sample with a gap on both sides draws no line: uPlot joins neighbours, and a lone value has
// none. Such samples are drawn as points, or a device that did I/O once in the window (a loop
// device mounted for a minute, a disk read at boot) would show a blank chart beside its legend.

/**
 * The indices of `values` that hold a number with no number next to them: the nearest sample on
 * each side (skipping `undefined`, which the line spans) is a gap (`null`) or the window's edge.
 */
export function isolatedPoints(values: ArrayLike<number | null | undefined>): number[] {
  const isolated: number[] = [];
  let previous: number | null | undefined; // the last sample before the current index
  for (let index = 0; index < values.length; index++) {
    const value = values[index];
    if (value === undefined) continue;
    if (value !== null && (previous === undefined || previous === null) && nextSample(values, index) === null) isolated.push(index);
    previous = value;
  }
  return isolated;
}

/** The next sample after `index` (a number or a gap), or null at the window's edge. */
function nextSample(values: ArrayLike<number | null | undefined>, index: number): number | null {
  for (let next = index + 1; next < values.length; next++) {
    const value = values[next];
    if (value !== undefined) return value;
  }
  return null;
}
