// When a change is judged. A verdict read again on every page view while the after window grows
// is a new test each time: read at 10, 30, 60 … 1,440 minutes, an unchanged server gets at least
// one false verdict far more often than 5 % of the time. So the verdict is judged once, at a fixed
// horizon, at alpha = 5 %. Before it, readings are taken only at fixed checkpoints and marked
// provisional, and a provisional reading calls a change only past a far stricter bar (alpha =
// 0.1 %, the Haybittle–Peto boundary): four such looks add at most 0.4 points to the 5 %.

const minute = 60_000;

export const horizonDefaults = {
  /** The fixed horizon: the after window a final verdict rests on. */
  horizonMinutes: 1440,
  /** No reading at all before this: shorter windows are dominated by noise. */
  minimumMinutes: 60,
  /** Provisional checkpoints before the horizon (those at or past it are dropped). */
  checkpointMinutes: [60, 180, 360, 720] as readonly number[],
  finalAlpha: 0.05,
  provisionalAlpha: 0.001,
  /** Telemetry of the last minutes may still be arriving; a checkpoint is read this much after it passes. */
  settleMinutes: 2,
};
export type HorizonSettings = typeof horizonDefaults;

export type Look =
  | {
      status: "look";
      stage: "provisional" | "final";
      /** The after window this look reads: [changeAt, changeAt + afterMinutes). */
      afterMinutes: number;
      alpha: number;
      horizonMinutes: number;
      /** When the final verdict is (or was) read. */
      finalAt: Date;
    }
  | { status: "too-early"; reason: string; firstAt: Date; finalAt: Date };

export function horizonSettings(options: Partial<HorizonSettings> = {}): HorizonSettings {
  const settings = { ...horizonDefaults, ...options };
  if (!(settings.horizonMinutes >= settings.minimumMinutes))
    throw new Error(`the horizon must be at least ${settings.minimumMinutes} minutes`);
  if (!(settings.minimumMinutes >= 60)) throw new Error("a verdict needs at least 60 minutes after the change");
  return settings;
}

/** The checkpoints of a horizon, in minutes, the horizon last. */
export function checkpointsOf(settings: HorizonSettings): number[] {
  const early = settings.checkpointMinutes.filter((minutes) => minutes >= settings.minimumMinutes && minutes < settings.horizonMinutes);
  return [...new Set(early)].sort((a, b) => a - b).concat(settings.horizonMinutes);
}

/** The look a reading at `now` gets: the latest checkpoint that has passed and settled. */
export function lookAt(changeAt: Date, now: Date, options: Partial<HorizonSettings> = {}): Look {
  const settings = horizonSettings(options);
  const checkpoints = checkpointsOf(settings);
  const at = (minutes: number) => new Date(changeAt.getTime() + (minutes + settings.settleMinutes) * minute);
  const elapsedMinutes = (now.getTime() - changeAt.getTime()) / minute - settings.settleMinutes;
  const passed = checkpoints.filter((minutes) => minutes <= elapsedMinutes);
  const finalAt = at(settings.horizonMinutes);
  if (passed.length === 0) {
    return {
      status: "too-early",
      reason: `the first reading is taken ${checkpoints[0]} minutes after the change`,
      firstAt: at(checkpoints[0]!),
      finalAt,
    };
  }
  const afterMinutes = passed[passed.length - 1]!;
  const final = afterMinutes === settings.horizonMinutes;
  return {
    status: "look",
    stage: final ? "final" : "provisional",
    afterMinutes,
    alpha: final ? settings.finalAlpha : settings.provisionalAlpha,
    horizonMinutes: settings.horizonMinutes,
    finalAt,
  };
}
