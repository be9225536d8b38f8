// Simulated storage telemetry: per-minute read counts and latency sums of servers whose latency
// drifts, follows the day, stays high for a while once high, and stalls now and then. Only the
// stretches of time a judge reads are generated; the persistent processes (AR(1) noise, drift)
// jump the gaps between them exactly, since an AR(1) process after g steps is
// φ^g·x + √(1 − φ^2g)·σ·N(0, 1).
import { normalSource, paretoDraw } from "../stats/random.js";

export const minutesPerDay = 1440;

export interface LatencyScenario {
  name: string;
  /** Minute-to-minute AR(1) coefficient of the log-latency noise, and its stationary sd. */
  phi: number;
  noiseSd: number;
  /** Independent per-minute noise in log latency (a minute's mean over its reads). */
  minuteSd: number;
  /** Log amplitude of the daily latency cycle (0.3 ≈ ±35 %). */
  dailyAmplitude: number;
  /** A slowly wandering level: stationary sd in log latency and persistence in minutes (null: none). */
  drift: { sd: number; persistenceMinutes: number } | null;
  /** Reads per minute: mean, log sd of its own noise, and the log amplitude of its daily cycle. */
  readsPerMinute: number;
  readsNoiseSd: number;
  readsDailyAmplitude: number;
  /** Stalls: a minute's latency multiplied by scale × Pareto(alpha), with this probability (null: none). */
  stalls: { probability: number; scale: number; alpha: number } | null;
}

/** One stretch of minutes [from, from + length) with each minute's reads and latency seconds. */
export interface Segment {
  from: number;
  numerator: Float64Array;
  denominator: Float64Array;
}

/**
 * sin of the daily cycle at a minute of the day, shifted by `phaseMinutes`, each computed the first
 * time it is read: a fleet server simulated for two hours needs 120 of the 1,440. Servers without a
 * phase share one table.
 */
class DailySine {
  private readonly values = new Float64Array(minutesPerDay).fill(Number.NaN);
  constructor(private readonly phaseMinutes: number) {}

  at(minuteOfDay: number): number {
    let value = this.values[minuteOfDay]!;
    if (Number.isNaN(value)) {
      value = Math.sin((2 * Math.PI * (minuteOfDay + this.phaseMinutes)) / minutesPerDay);
      this.values[minuteOfDay] = value;
    }
    return value;
  }
}

const unshiftedSine = new DailySine(0);
const dailySine = (phaseMinutes: number) => (phaseMinutes === 0 ? unshiftedSine : new DailySine(phaseMinutes));

/** An AR(1) process with stationary sd `sd`, advanced to any later minute exactly. */
class Persistent {
  private value: number;
  private at: number;
  private readonly stepSd: number;
  constructor(
    private readonly phi: number,
    private readonly sd: number,
    private readonly normal: () => number,
    start: number,
  ) {
    this.value = sd * normal();
    this.at = start;
    this.stepSd = Math.sqrt(1 - phi * phi) * sd;
  }

  valueAt(minute: number): number {
    const gap = minute - this.at;
    if (gap === 1) {
      this.value = this.phi * this.value + this.stepSd * this.normal();
    } else if (gap > 1) {
      const decay = this.phi ** gap;
      this.value = decay * this.value + Math.sqrt(Math.max(0, 1 - decay * decay)) * this.sd * this.normal();
    }
    this.at = Math.max(this.at, minute);
    return this.value;
  }
}

/**
 * What the servers of a fleet share, minute by minute over the stretches: the fleet's drift and
 * `commonShare` of the AR noise's variance (a busy hour for the whole application).
 */
export interface SharedSeries {
  commonShare: number;
  /** Per stretch, the shared log-latency term at each minute. */
  values: Float64Array[];
}

export function sharedSeries(
  scenario: LatencyScenario,
  stretches: readonly { from: number; to: number }[],
  commonShare: number,
  random: () => number,
): SharedSeries {
  const start = stretches[0]?.from ?? 0;
  const normal = normalSource(random);
  const drift = scenario.drift ? new Persistent(Math.exp(-1 / scenario.drift.persistenceMinutes), scenario.drift.sd, normal, start) : null;
  const noise = new Persistent(scenario.phi, scenario.noiseSd * Math.sqrt(commonShare), normal, start);
  return {
    commonShare,
    values: stretches.map(({ from, to }) => {
      const values = new Float64Array(to - from);
      for (let minute = from; minute < to; minute++) values[minute - from] = (drift?.valueAt(minute) ?? 0) + noise.valueAt(minute);
      return values;
    }),
  };
}

export interface ServerShape {
  /** Multiplies the scenario's base latency (a server's own level). */
  level: number;
  /** Multiplies the daily amplitude (servers follow the day more or less). */
  dailyScale: number;
  /** Phase of the daily cycle, in minutes. */
  phaseMinutes: number;
}

/**
 * Minutes of one server for the given ascending, non-overlapping stretches. `effect` multiplies
 * latency from minute `effectFrom` on (0.9: 10 % better). `shared` (from sharedSeries over the
 * same stretches) replaces the server's own drift and adds the fleet's common noise.
 */
export function simulateServer(
  scenario: LatencyScenario,
  stretches: readonly { from: number; to: number }[],
  random: () => number,
  options: { shape?: ServerShape; shared?: SharedSeries; effect?: number; effectFrom?: number } = {},
): Segment[] {
  const shape = options.shape ?? { level: 1, dailyScale: 1, phaseMinutes: 0 };
  const shared = options.shared;
  const commonShare = shared?.commonShare ?? 0;
  const start = stretches[0]?.from ?? 0;
  const normal = normalSource(random);
  const own = new Persistent(scenario.phi, scenario.noiseSd * Math.sqrt(1 - commonShare), normal, start);
  const ownDrift =
    !shared && scenario.drift ? new Persistent(Math.exp(-1 / scenario.drift.persistenceMinutes), scenario.drift.sd, normal, start) : null;
  const cycle = dailySine(shape.phaseMinutes);
  const dailyAmplitude = scenario.dailyAmplitude * shape.dailyScale;
  const readsSd = Math.sqrt(scenario.readsNoiseSd ** 2 + 1 / scenario.readsPerMinute);
  const logEffect = Math.log(options.effect ?? 1);
  const effectFrom = options.effectFrom ?? Infinity;
  const baseSeconds = 0.002 * shape.level;
  return stretches.map(({ from, to }, stretch) => {
    const common = shared?.values[stretch];
    const numerator = new Float64Array(to - from);
    const denominator = new Float64Array(to - from);
    for (let minute = from; minute < to; minute++) {
      const sine = cycle.at(minute % minutesPerDay);
      let logLatency = dailyAmplitude * sine + own.valueAt(minute) + scenario.minuteSd * normal();
      if (common) logLatency += common[minute - from]!;
      if (ownDrift) logLatency += ownDrift.valueAt(minute);
      if (minute >= effectFrom) logLatency += logEffect;
      let latency = baseSeconds * Math.exp(logLatency);
      if (scenario.stalls && random() < scenario.stalls.probability)
        latency *= scenario.stalls.scale * paretoDraw(random, scenario.stalls.alpha);
      // The count's own noise and its Poisson noise (sd √mean, about 4 % at 600) in one log-normal draw.
      const reads = Math.round(scenario.readsPerMinute * Math.exp(scenario.readsDailyAmplitude * sine + readsSd * normal()));
      numerator[minute - from] = reads * latency;
      denominator[minute - from] = reads;
    }
    return { from, numerator, denominator };
  });
}
