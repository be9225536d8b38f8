// Worlds for the before/after verdict, and the verdict as a harness judge. A world is one changed
// server (with the history the scenario grants it) and, for the concurrent-control case, servers
// not yet changed; the judge builds the same evidence the console does and calls judgeChange.
import { judgeChange, type MetricEvidence } from "../gains/verdict/judge.js";
import { lookAt, type HorizonSettings } from "../gains/verdict/horizon.js";
import { verdictMetrics } from "../gains/verdict/metrics.js";
import { cappedSums, capUnits, stallCap } from "../gains/verdict/stall-cap.js";
import type { WindowSums } from "../gains/verdict/window-sums.js";
import type { RatioUnit } from "../stats/ratio.js";
import { normalDraw } from "../stats/random.js";
import type { Decision, HarnessScenario } from "./harness.js";
import { minutesPerDay, sharedSeries, simulateServer, type LatencyScenario, type Segment } from "./latency-model.js";

/**
 * A server's simulated minutes, readable as window sums or as 1-minute units. Each minute's unit
 * is built once, from the prefix sums as a 1-minute window reads them, and shared by every window
 * that covers it: a world is read at several looks, each over several windows, and building the
 * units again for each was most of a calibration run's allocation.
 */
export class SimulatedServer {
  private readonly prefixes: {
    from: number;
    to: number;
    numerator: Float64Array;
    denominator: Float64Array;
    units: RatioUnit[] | null;
  }[];

  constructor(segments: readonly Segment[]) {
    this.prefixes = segments.map((segment) => {
      const numerator = new Float64Array(segment.numerator.length + 1);
      const denominator = new Float64Array(segment.denominator.length + 1);
      for (let i = 0; i < segment.numerator.length; i++) {
        numerator[i + 1] = numerator[i]! + segment.numerator[i]!;
        denominator[i + 1] = denominator[i]! + segment.denominator[i]!;
      }
      return { from: segment.from, to: segment.from + segment.numerator.length, numerator, denominator, units: null };
    });
  }

  /** Sums over [from, to); minutes never simulated count as no telemetry. */
  sums(from: number, to: number): WindowSums {
    let numerator = 0;
    let denominator = 0;
    for (const segment of this.prefixes) {
      const start = Math.max(from, segment.from) - segment.from;
      const end = Math.min(to, segment.to) - segment.from;
      if (end <= start) continue;
      numerator += segment.numerator[end]! - segment.numerator[start]!;
      denominator += segment.denominator[end]! - segment.denominator[start]!;
    }
    return { numerator, denominator };
  }

  /** The 1-minute units of [from, to), equal to sums(minute, minute + 1) for each minute. Read-only. */
  units(from: number, to: number): RatioUnit[] {
    const inside = this.prefixes.find((segment) => segment.from <= from && to <= segment.to);
    if (inside) return this.segmentUnits(inside).slice(from - inside.from, to - inside.from);
    const units: RatioUnit[] = [];
    for (let minute = from; minute < to; minute++) units.push(this.sums(minute, minute + 1));
    return units;
  }

  private segmentUnits(segment: SimulatedServer["prefixes"][number]): RatioUnit[] {
    if (!segment.units) {
      const units: RatioUnit[] = new Array(segment.to - segment.from);
      for (let i = 0; i < units.length; i++) {
        units[i] = {
          numerator: segment.numerator[i + 1]! - segment.numerator[i]!,
          denominator: segment.denominator[i + 1]! - segment.denominator[i]!,
        };
      }
      segment.units = units;
    }
    return segment.units;
  }

  /** The stall cap over these windows, as stallCap computes it (5 × the median minute with I/O). */
  stallCap(windows: readonly { from: number; to: number }[]): number | null {
    return stallCap(windows.map((window) => this.units(window.from, window.to)));
  }

  cappedSums(from: number, to: number, cap: number | null): WindowSums {
    return cappedSums(this.units(from, to), cap);
  }
}

export interface VerdictWorld {
  changeMinute: number;
  treated: SimulatedServer;
  controls: SimulatedServer[];
  /** Whole days of telemetry before the change. */
  historyDays: number;
}

/**
 * One server with `historyDays` days before the change, read up to `horizonMinutes` after it. The
 * change falls at a random time of day. With a short horizon only the windows a judge reads are
 * simulated (the processes jump the gaps exactly), which keeps thousands of replicates fast.
 */
export function historyWorlds(scenario: LatencyScenario, historyDays: number, horizonMinutes: number): HarnessScenario<VerdictWorld> {
  return {
    name: scenario.name,
    world: (random, effect) => {
      const changeMinute = historyDays * minutesPerDay + Math.floor(random() * minutesPerDay);
      const stretches =
        horizonMinutes >= minutesPerDay
          ? [{ from: changeMinute - historyDays * minutesPerDay, to: changeMinute + horizonMinutes }]
          : [
              ...Array.from({ length: historyDays }, (_, i) => {
                const from = changeMinute - (historyDays - i) * minutesPerDay;
                return { from, to: from + horizonMinutes };
              }),
              { from: changeMinute, to: changeMinute + horizonMinutes },
            ];
      const segments = simulateServer(scenario, stretches, random, { effect, effectFrom: changeMinute });
      return { changeMinute, treated: new SimulatedServer(segments), controls: [], historyDays };
    },
  };
}

/**
 * A fleet of `servers` (the first one changed) that share the scenario's drift and half of its
 * noise, each with its own level, daily amplitude and phase; no history beyond the equally long
 * window right before the change, which the control has to make up for.
 */
export function fleetWorlds(
  scenario: LatencyScenario,
  servers: number,
  horizonMinutes: number,
  commonShare = 0.5,
): HarnessScenario<VerdictWorld> {
  return {
    name: scenario.name,
    world: (random, effect) => {
      const changeMinute = minutesPerDay + Math.floor(random() * minutesPerDay);
      const stretches = [{ from: changeMinute - horizonMinutes, to: changeMinute + horizonMinutes }];
      const shared = sharedSeries(scenario, stretches, commonShare, random);
      const fleet = Array.from({ length: servers }, (_, index) => {
        const shape = {
          level: Math.exp(0.5 * normalDraw(random)),
          dailyScale: Math.max(0, 1 + 0.2 * normalDraw(random)),
          phaseMinutes: 60 * normalDraw(random),
        };
        return new SimulatedServer(
          simulateServer(scenario, stretches, random, { shape, shared, effect: index === 0 ? effect : 1, effectFrom: changeMinute }),
        );
      });
      return { changeMinute, treated: fleet[0]!, controls: fleet.slice(1), historyDays: 0 };
    },
  };
}

/**
 * The evidence the console gathers for mean read latency at a look of `afterMinutes`, stall caps
 * included: per server over every window read for it (after, the same window on the previous
 * days, the window before the change).
 */
export function evidenceOf(world: VerdictWorld, afterMinutes: number): MetricEvidence {
  const c = world.changeMinute;
  const window = (from: number) => ({ from, to: from + afterMinutes });
  const afterWindow = window(c);
  const dayWindows = Array.from({ length: Math.min(7, world.historyDays) }, (_, i) => window(c - (i + 1) * minutesPerDay));
  // Servers not yet changed are compared over the same hours of the previous day when there is one, else the window right before.
  const beforeWindow = world.historyDays >= 1 ? dayWindows[0]! : window(c - afterMinutes);
  const treatedCap = world.treated.stallCap([afterWindow, ...dayWindows, ...(world.historyDays >= 1 ? [] : [beforeWindow])]);
  const windows = (server: SimulatedServer, serverId: string, cap: number | null) => ({
    serverId,
    before: server.cappedSums(beforeWindow.from, beforeWindow.to, cap),
    after: server.cappedSums(afterWindow.from, afterWindow.to, cap),
  });
  return {
    metric: verdictMetrics.meanReadLatency,
    after: world.treated.cappedSums(afterWindow.from, afterWindow.to, treatedCap),
    previousDays: dayWindows.map((day) => world.treated.cappedSums(day.from, day.to, treatedCap)),
    concurrent:
      world.controls.length > 0
        ? {
            treated: [windows(world.treated, "treated", treatedCap)],
            control: world.controls.map((server, index) =>
              windows(server, `control-${index}`, server.stallCap([beforeWindow, afterWindow])),
            ),
            beforeWindow: world.historyDays >= 1 ? "the same hours of the previous day" : "the window right before the change",
          }
        : null,
    minutes:
      world.historyDays >= 1
        ? () => ({
            before: capUnits(world.treated.units(beforeWindow.from, beforeWindow.to), treatedCap),
            after: capUnits(world.treated.units(afterWindow.from, afterWindow.to), treatedCap),
            beforeWindow: "the same hours of the previous day",
          })
        : null,
  };
}

/** The verdict as the console gives it, at a fixed horizon, as a harness judge. */
export function verdictJudge(horizon: Partial<HorizonSettings>): (world: VerdictWorld, lookMinutes: number) => Decision {
  const changeAt = new Date(Date.UTC(2026, 10, 20));
  const settle = horizon.settleMinutes ?? 2;
  return (world, lookMinutes) => {
    const look = lookAt(changeAt, new Date(changeAt.getTime() + (lookMinutes + settle) * 60_000), horizon);
    if (look.status === "too-early") return "no-verdict";
    const [result] = judgeChange([evidenceOf(world, look.afterMinutes)], look);
    return result?.status === "verdict" && result.verdict !== "no-measurable-change" ? result.verdict : "no-verdict";
  };
}
