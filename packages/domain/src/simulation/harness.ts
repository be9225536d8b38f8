// A seeded Monte Carlo harness for anything that calls a change better or worse: simulate worlds
// with no change and count false verdicts (at the final look, and at any of the repeated looks a
// user takes while the page refreshes), then worlds with a real change and count how often it is
// found. It knows nothing about how a judge works or what a world holds, so the before/after
// verdict, the caused read-cache estimator and the rollout guards can each bring their own world
// and be held to the same bar.
import { seededRandom } from "../stats/random.js";

export type Decision = "better" | "worse" | "no-verdict";

export interface HarnessScenario<World> {
  name: string;
  /** One replicate in which the change multiplies the judged cost by `effect` (1: no change). */
  world: (random: () => number, effect: number) => World;
}

export interface HarnessOptions<World> {
  scenarios: readonly HarnessScenario<World>[];
  /** The judge under test, reading a world `lookMinutes` after the change. */
  judge: (world: World, lookMinutes: number) => Decision;
  /** Ascending; the last one is the final look. */
  looksMinutes: readonly number[];
  replications: number;
  seed: number;
  /** Effects to measure power at (0.9: the cost falls 10 %); none: nulls only. */
  effects?: readonly number[];
  powerReplications?: number;
}

/** A share with its Wilson 95 % interval (the Monte Carlo error of `replications` draws). */
export interface Rate {
  count: number;
  of: number;
  value: number;
  low: number;
  high: number;
}

export interface NullResult {
  scenario: string;
  /** Better or worse at the final look. */
  final: Rate;
  /** Better or worse at one look or more. */
  anyLook: Rate;
}

export interface PowerResult {
  scenario: string;
  effect: number;
  /** "better" at the final look (the effects are improvements). */
  detected: Rate;
  /** "worse" at the final look. */
  wrongDirection: Rate;
}

export function wilson(count: number, of: number, z = 1.959964): Rate {
  if (of === 0) return { count, of, value: NaN, low: 0, high: 1 };
  const p = count / of;
  const denominator = 1 + (z * z) / of;
  const centre = (p + (z * z) / (2 * of)) / denominator;
  const half = (z * Math.sqrt((p * (1 - p)) / of + (z * z) / (4 * of * of))) / denominator;
  return { count, of, value: p, low: Math.max(0, centre - half), high: Math.min(1, centre + half) };
}

/** A seed per scenario and effect, so adding a scenario leaves the others' draws unchanged. */
function streamSeed(seed: number, scenario: string, effect: number): number {
  let hash = seed >>> 0;
  for (const char of `${scenario}|${effect}`) hash = Math.imul(hash ^ char.charCodeAt(0), 0x01000193) >>> 0;
  return hash;
}

export function runNulls<World>(options: HarnessOptions<World>): NullResult[] {
  return options.scenarios.map((scenario) => {
    const random = seededRandom(streamSeed(options.seed, scenario.name, 1));
    let final = 0;
    let anyLook = 0;
    for (let r = 0; r < options.replications; r++) {
      const world = scenario.world(random, 1);
      const decisions = options.looksMinutes.map((minutes) => options.judge(world, minutes));
      if (decisions[decisions.length - 1] !== "no-verdict") final++;
      if (decisions.some((decision) => decision !== "no-verdict")) anyLook++;
    }
    return { scenario: scenario.name, final: wilson(final, options.replications), anyLook: wilson(anyLook, options.replications) };
  });
}

export function runPower<World>(options: HarnessOptions<World>): PowerResult[] {
  const replications = options.powerReplications ?? options.replications;
  const finalLook = options.looksMinutes[options.looksMinutes.length - 1]!;
  return options.scenarios.flatMap((scenario) =>
    (options.effects ?? []).map((effect) => {
      const random = seededRandom(streamSeed(options.seed, scenario.name, effect));
      let detected = 0;
      let wrong = 0;
      for (let r = 0; r < replications; r++) {
        const decision = options.judge(scenario.world(random, effect), finalLook);
        if (decision === "better") detected++;
        if (decision === "worse") wrong++;
      }
      return { scenario: scenario.name, effect, detected: wilson(detected, replications), wrongDirection: wilson(wrong, replications) };
    }),
  );
}

const percent = (rate: Rate) => `${(rate.value * 100).toFixed(1)} % [${(rate.low * 100).toFixed(1)}, ${(rate.high * 100).toFixed(1)}]`;

/** A Markdown table of the nulls and the power, as docs/gains.md shows it. */
export function formatResults(nulls: readonly NullResult[], power: readonly PowerResult[]): string {
  const effects = [...new Set(power.map((row) => row.effect))];
  const header = [
    "scenario (no real change)",
    "false verdicts, final look",
    "false verdicts, any look",
    ...effects.map((effect) => `found: ${Math.round((1 - effect) * 100)} % better`),
  ];
  const rows = nulls.map((row) => [
    row.scenario,
    percent(row.final),
    percent(row.anyLook),
    ...effects.map((effect) => {
      const found = power.find((entry) => entry.scenario === row.scenario && entry.effect === effect);
      return found ? percent(found.detected) : "";
    }),
  ]);
  return [header, header.map(() => "---"), ...rows].map((cells) => `| ${cells.join(" | ")} |`).join("\n");
}
