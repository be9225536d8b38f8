// The median of many values without sorting them all (Hoare's selection, expected linear time):
// the stall cap takes the median of up to eight days of 1-minute values on every reading.

export function median(values: ArrayLike<number>): number {
  return medianInPlace(Float64Array.from(values as ArrayLike<number>));
}

/** The median of `work`, which it reorders: for a caller that built the array for this alone. */
export function medianInPlace(work: Float64Array): number {
  const n = work.length;
  if (n === 0) return NaN;
  const upper = select(work, Math.floor(n / 2));
  if (n % 2 === 1) return upper;
  let lower = -Infinity;
  for (let i = 0; i < Math.floor(n / 2); i++) lower = Math.max(lower, work[i]!);
  return (lower + upper) / 2;
}

/** Rearranges `work` so that work[k] is the k-th smallest, smaller ones before it; returns it. */
function select(work: Float64Array, k: number): number {
  let left = 0;
  let right = work.length - 1;
  while (left < right) {
    const pivot = work[(left + right) >> 1]!;
    let i = left;
    let j = right;
    while (i <= j) {
      while (work[i]! < pivot) i++;
      while (work[j]! > pivot) j--;
      if (i <= j) {
        const swap = work[i]!;
        work[i] = work[j]!;
        work[j] = swap;
        i++;
        j--;
      }
    }
    if (k <= j) right = j;
    else if (k >= i) left = i;
    else return work[k]!;
  }
  return work[k]!;
}
