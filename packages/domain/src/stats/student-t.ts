// Student's t distribution: two-sided p-values and quantiles for the verdict's intervals. Small
// samples are the rule here (seven previous days, a handful of servers not yet changed), so the
// normal approximation would be too narrow. Computed from the regularised incomplete beta
// function with a continued fraction (modified Lentz), accurate to about 1e-10.

const lanczos = [
  0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059, 12.507343278686905,
  -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
];

/** ln Γ(x) for x > 0 (Lanczos, g = 7). */
export function logGamma(x: number): number {
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x);
  const z = x - 1;
  let sum = lanczos[0]!;
  for (let i = 1; i < lanczos.length; i++) sum += lanczos[i]! / (z + i);
  const t = z + 7.5;
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(sum);
}

function betaContinuedFraction(a: number, b: number, x: number): number {
  const tiny = 1e-300;
  let c = 1;
  let d = 1 - ((a + b) * x) / (a + 1);
  if (Math.abs(d) < tiny) d = tiny;
  d = 1 / d;
  let result = d;
  for (let m = 1; m <= 300; m++) {
    const even = (m * (b - m) * x) / ((a + 2 * m - 1) * (a + 2 * m));
    d = 1 + even * d;
    c = 1 + even / c;
    d = 1 / (Math.abs(d) < tiny ? tiny : d);
    c = Math.abs(c) < tiny ? tiny : c;
    result *= d * c;
    const odd = (-(a + m) * (a + b + m) * x) / ((a + 2 * m) * (a + 2 * m + 1));
    d = 1 + odd * d;
    c = 1 + odd / c;
    d = 1 / (Math.abs(d) < tiny ? tiny : d);
    c = Math.abs(c) < tiny ? tiny : c;
    const step = d * c;
    result *= step;
    if (Math.abs(step - 1) < 1e-14) break;
  }
  return result;
}

/** The regularised incomplete beta function I_x(a, b), x in [0, 1]. */
export function regularisedBeta(x: number, a: number, b: number): number {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const front = Math.exp(a * Math.log(x) + b * Math.log(1 - x) + logGamma(a + b) - logGamma(a) - logGamma(b));
  if (x < (a + 1) / (a + b + 2)) return (front * betaContinuedFraction(a, b, x)) / a;
  return 1 - (front * betaContinuedFraction(b, a, 1 - x)) / b;
}

/** P(|T| ≥ |t|) for T with `df` degrees of freedom. */
export function studentTTwoSidedP(t: number, df: number): number {
  if (Number.isNaN(t)) return 1;
  if (!Number.isFinite(t)) return 0;
  return regularisedBeta(df / (df + t * t), df / 2, 0.5);
}

const quantileCache = new Map<string, number>();

/**
 * The t value with `twoSidedAlpha` of the distribution beyond ±t: 2.447 for df 6 and 0.05.
 * Found by bisection on the p-value (monotone in t) and remembered, since a judgement asks for
 * the same few (df, alpha) pairs again and again.
 */
export function studentTCritical(twoSidedAlpha: number, df: number): number {
  if (!(twoSidedAlpha > 0 && twoSidedAlpha < 1)) throw new Error(`alpha must be in (0, 1), not ${twoSidedAlpha}`);
  if (!(df > 0)) throw new Error(`degrees of freedom must be positive, not ${df}`);
  const key = `${twoSidedAlpha}:${df}`;
  const cached = quantileCache.get(key);
  if (cached !== undefined) return cached;
  let low = 0;
  let high = 1;
  while (studentTTwoSidedP(high, df) > twoSidedAlpha) high *= 2;
  for (let i = 0; i < 200 && high - low > 1e-12 * high; i++) {
    const middle = (low + high) / 2;
    if (studentTTwoSidedP(middle, df) > twoSidedAlpha) low = middle;
    else high = middle;
  }
  const critical = (low + high) / 2;
  if (quantileCache.size < 10_000) quantileCache.set(key, critical);
  return critical;
}

/** A t interval: estimate ± t(alpha, df) × standard error. */
export function tInterval(estimate: number, standardError: number, df: number, confidence: number): { low: number; high: number } {
  const half = studentTCritical(1 - confidence, df) * standardError;
  return { low: estimate - half, high: estimate + half };
}
