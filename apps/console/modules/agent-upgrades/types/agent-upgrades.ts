// What the console's agent-upgrade API answers (docs/install.md, "Upgrades").
import type { AgentUpgradePlan, AgentUpgradeScope, GuardReading } from "@spindle/domain";

export type AttemptState =
  | "waiting"
  | "offered"
  | "downloading"
  | "installing"
  | "installed"
  | "failed"
  | "rolled_back"
  | "skipped"
  | "cancelled";
export type RolloutStatus = "running" | "paused" | "completed" | "cancelled";

export const liveAttemptStates: readonly AttemptState[] = ["offered", "downloading", "installing"];

export interface ReleaseSummary {
  version: string;
  /** "linux/amd64", … for the binaries; package files by name. */
  platforms: string[];
  packages: string[];
  lastSeenAt: string;
}

export interface UpgradeCapability {
  installMethod: string;
  remote: boolean;
  reason: string;
}

export interface FleetServerVersion {
  serverId: string;
  hostname: string;
  agentVersion: string;
  online: boolean;
  /** The newest release served, when it is newer than what the server runs. */
  upgradeAvailable: string | null;
  upgrade: UpgradeCapability | null;
  pinnedVersion: string | null;
  /** The server's attempt in progress, if any. */
  live: { targetVersion: string; state: AttemptState } | null;
}

export interface RolloutSummary {
  id: string;
  targetVersion: string;
  scope: AgentUpgradeScope;
  status: RolloutStatus;
  statusReason: string;
  currentWave: number;
  waveCount: number;
  counts: Partial<Record<AttemptState, number>>;
  createdBy: string | null;
  createdAt: string;
  finishedAt: string | null;
}

export interface UpgradeOverview {
  releases: ReleaseSummary[];
  latestVersion: string | null;
  versions: { version: string; servers: number }[];
  servers: FleetServerVersion[];
  rollouts: RolloutSummary[];
}

export interface AttemptView {
  id: string;
  serverId: string;
  hostname: string;
  wave: number | null;
  fromVersion: string;
  targetVersion: string;
  state: AttemptState;
  message: string;
  offeredAt: string | null;
  reportedAt: string | null;
  finishedAt: string | null;
  acknowledged: boolean;
}

/**
 * The measured guards of one wave, read after its soak (the staged rollouts' guards): pass lets
 * the next wave go out, hold waits for data, trip paused the upgrade.
 */
export interface UpgradeWaveGuards {
  verdict: "pass" | "hold" | "trip";
  reason: string;
  readings: GuardReading[];
  readingsAt: string;
  /** The soak (after the change) and the equally long window before the offer, as read. */
  after: { start: string; end: string };
  before: { start: string; end: string };
  overriddenBy: string | null;
  overriddenAt: string | null;
}

export interface RolloutDetail extends RolloutSummary {
  plan: AgentUpgradePlan;
  waves: { index: number; label: string; attempts: AttemptView[]; guards: UpgradeWaveGuards | null }[];
  skipped: AttemptView[];
  waveInstalledAt: string | null;
}

export interface ServerAgentVersion {
  serverId: string;
  hostname: string;
  agentVersion: string;
  latestVersion: string | null;
  upgradeAvailable: string | null;
  upgrade: UpgradeCapability | null;
  pin: { version: string; reason: string; pinnedBy: string | null; pinnedAt: string } | null;
  attempts: AttemptView[];
  releases: string[];
}
