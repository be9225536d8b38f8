import type { MetricVerdict } from "@spindle/domain";

export type ChangeMoment =
  | { status: "known"; appliedAt: string; cause: string }
  | { status: "unknown"; reason: string };

export type VerdictWindows =
  | { status: "matched"; matching: "same-hours-previous-day" | "adjacent"; before: { from: string; to: string }; after: { from: string; to: string } }
  | { status: "not-enough-data"; reason: string };

/** The before/after comparison of one server around one applied policy change. */
export interface ServerVerdict {
  serverId: string;
  hostname: string;
  change: ChangeMoment;
  /** null when the change moment is unknown. */
  windows: VerdictWindows | null;
  metrics: MetricVerdict[];
}

export interface PolicyVersionVerdicts {
  policyId: string;
  version: number;
  servers: ServerVerdict[];
}
