import type { CausedStorageReads, Measured, MetricVerdict } from "@spindle/domain";

export type ChangeMoment = { status: "known"; appliedAt: string; cause: string } | { status: "unknown"; reason: string };

export interface IsoWindow {
  from: string;
  to: string;
}

/** When the change is read: too early, a provisional checkpoint, or the final verdict at the horizon. */
export type VerdictLook =
  | { status: "too-early"; reason: string; firstAt: string; finalAt: string }
  | {
      status: "look";
      stage: "provisional" | "final";
      afterMinutes: number;
      horizonMinutes: number;
      /** The family-wise alpha of this look (0.1 % provisional, 5 % final). */
      alpha: number;
      finalAt: string;
      after: IsoWindow;
      /** The window the servers not yet changed are compared over (the same hours of the previous day, or the window right before). */
      before: IsoWindow & { description: string };
      /** Servers not yet changed that were looked at: only when the previous days cannot judge a metric (each needs three with data). */
      controlServers: number;
    };

/** The before/after comparison of one server around one applied policy change. */
export interface ServerVerdict {
  serverId: string;
  hostname: string;
  change: ChangeMoment;
  /** null when the change moment is unknown. */
  look: VerdictLook | null;
  metrics: MetricVerdict[];
  /**
   * The storage reads the read cache caused to be saved over the look's after window, against its
   * control group (docs/gains.md "Read cache: what it caused"); null without a look.
   */
  readCacheCaused: Measured<CausedStorageReads> | null;
}

export interface PolicyVersionVerdicts {
  policyId: string;
  version: number;
  servers: ServerVerdict[];
}
