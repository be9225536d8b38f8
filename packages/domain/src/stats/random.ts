// Seeded random numbers, so every bootstrap interval and every simulation run is reproducible:
// the same data and seed always give the same answer.

/** mulberry32: a small, well-mixed 32-bit generator; uniform in [0, 1). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A standard normal draw (Box–Muller; the second value of each pair is dropped for simplicity). */
export function normalDraw(random: () => number): number {
  const u = 1 - random(); // (0, 1]: log(0) never happens
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
}

/**
 * Standard normal draws from one generator by Marsaglia's polar method, both values of each pair
 * used: no trigonometry and half the logarithms of normalDraw, for simulations that need millions.
 */
export function normalSource(random: () => number): () => number {
  let spare = NaN;
  return () => {
    if (!Number.isNaN(spare)) {
      const value = spare;
      spare = NaN;
      return value;
    }
    let u: number;
    let v: number;
    let s: number;
    do {
      u = 2 * random() - 1;
      v = 2 * random() - 1;
      s = u * u + v * v;
    } while (s >= 1 || s === 0);
    const factor = Math.sqrt((-2 * Math.log(s)) / s);
    spare = v * factor;
    return u * factor;
  };
}

/** A Pareto draw with minimum 1 and tail index `alpha` (infinite variance for alpha ≤ 2). */
export function paretoDraw(random: () => number, alpha: number): number {
  return (1 - random()) ** (-1 / alpha);
}
