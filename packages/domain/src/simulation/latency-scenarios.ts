// The null scenarios of issue 30's measurement, plus heavy-tailed latency. Each is a server whose
// mean read latency is about 2 ms and which reads about 600 times a minute; they differ in how the
// latency moves when nothing changes.
import type { LatencyScenario } from "./latency-model.js";

const base: LatencyScenario = {
  name: "",
  phi: 0,
  noiseSd: 0.25,
  minuteSd: 0.05,
  dailyAmplitude: 0,
  drift: null,
  readsPerMinute: 600,
  readsNoiseSd: 0.1,
  readsDailyAmplitude: 0,
  stalls: null,
};

const slowDrift = { sd: 0.1, persistenceMinutes: 2 * 1440 };

export const latencyScenarios: readonly LatencyScenario[] = [
  { ...base, name: "independent minutes" },
  { ...base, name: "AR(1), φ = 0.5", phi: 0.5 },
  { ...base, name: "AR(1), φ = 0.8", phi: 0.8 },
  { ...base, name: "AR(1), φ = 0.95", phi: 0.95 },
  { ...base, name: "daily cycle + slow drift", dailyAmplitude: 0.3, drift: slowDrift, readsDailyAmplitude: 0.5 },
  {
    ...base,
    name: "combined (φ 0.8, drift, daily cycle, noisy I/O)",
    phi: 0.8,
    dailyAmplitude: 0.3,
    drift: slowDrift,
    readsNoiseSd: 0.6,
    readsDailyAmplitude: 0.5,
  },
  // Stalls: one minute in 50 is 5× slower or worse, with a Pareto tail of index 1.2 (infinite variance).
  { ...base, name: "heavy-tailed latency (stalls, φ 0.5)", phi: 0.5, stalls: { probability: 0.02, scale: 5, alpha: 1.2 } },
];
