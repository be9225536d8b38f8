// The situations the console meets, each a way of building worlds and the horizon the verdict is
// read at: a week of history, servers not yet changed, one day of history (the fallback). The
// calibration test runs them with few replications; scripts/simulate-verdicts.ts runs them with
// many for docs/gains.md.
import type { HarnessScenario } from "./harness.js";
import { latencyScenarios } from "./latency-scenarios.js";
import { fleetWorlds, historyWorlds, verdictJudge, type VerdictWorld } from "./verdict-worlds.js";

export interface VerdictConfiguration {
  name: string;
  horizonMinutes: number;
  /** The minutes after the change at which a user reads the page. */
  looksMinutes: number[];
  scenarios: HarnessScenario<VerdictWorld>[];
  judge: ReturnType<typeof verdictJudge>;
}

const looksUpTo = (horizonMinutes: number) => [10, 30, 60, 180, 360, 720, 1440].filter((minutes) => minutes <= horizonMinutes);

function configuration(name: string, horizonMinutes: number, worlds: () => HarnessScenario<VerdictWorld>[]): VerdictConfiguration {
  return { name, horizonMinutes, looksMinutes: looksUpTo(horizonMinutes), scenarios: worlds(), judge: verdictJudge({ horizonMinutes }) };
}

export const verdictConfigurations = {
  weekOneHour: configuration("a week of history, 60-minute horizon", 60, () =>
    latencyScenarios.map((scenario) => historyWorlds(scenario, 7, 60)),
  ),
  weekOneDay: configuration("a week of history, 24-hour horizon", 1440, () =>
    latencyScenarios.map((scenario) => historyWorlds(scenario, 7, 1440)),
  ),
  controlOneHour: configuration("9 servers not yet changed, 60-minute horizon", 60, () =>
    latencyScenarios.map((scenario) => fleetWorlds(scenario, 10, 60)),
  ),
  controlOneDay: configuration("4 servers not yet changed, 24-hour horizon", 1440, () =>
    latencyScenarios.map((scenario) => fleetWorlds(scenario, 5, 1440)),
  ),
  fallbackOneDay: configuration("one day of history (block bootstrap), 24-hour horizon", 1440, () =>
    latencyScenarios.map((scenario) => historyWorlds(scenario, 1, 1440)),
  ),
} satisfies Record<string, VerdictConfiguration>;
