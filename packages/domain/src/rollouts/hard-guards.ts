// The hard guards of a wave: any server that refused the policy, an agent gone quiet, servers that
// never confirmed, the read cache backing off under memory pressure more than before, and a
// device's p99 read or write latency rising past a threshold. Each compares the wave's own
// servers with themselves (or with a fixed limit); the comparison against the servers not yet
// changed is comparative-guard.ts.
import { describeLatencyPercentile, latencyPercentile } from "../metrics/latency.js";
import type { RolloutGuards } from "./plan.js";
import type { GuardKey, GuardReadingInput } from "./readings.js";

export interface WaveServer {
  serverId: string;
  hostname: string;
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
const names = (servers: readonly WaveServer[]) =>
  servers
    .slice(0, 5)
    .map((s) => s.hostname)
    .join(", ") + (servers.length > 5 ? ` and ${servers.length - 5} more` : "");

/** Servers whose agent reported FAILED for the policy this wave sent them. */
export function failedGuard(failed: readonly (WaveServer & { message: string })[], waveSize: number): GuardReadingInput {
  const basis = "the agents' OpAMP RemoteConfigStatus for the policy this wave sent (server_policy_status)";
  if (failed.length === 0)
    return { guard: "failed", status: "pass", summary: `None of the ${plural(waveSize, "server")} refused the policy.`, basis };
  return {
    guard: "failed",
    status: "trip",
    summary: `${plural(failed.length, "server")} refused the policy (FAILED): ${failed
      .slice(0, 3)
      .map((s) => `${s.hostname}: ${s.message || "no message"}`)
      .join("; ")}.`,
    basis,
    servers: failed.map((s) => ({ serverId: s.serverId, hostname: s.hostname, detail: s.message })),
  };
}

/** Servers of the wave whose agent has sent nothing for `offlineSeconds`. */
export function offlineGuard(
  servers: readonly (WaveServer & { lastSeenAt: Date | null })[],
  now: Date,
  guards: Pick<RolloutGuards, "offlineSeconds">,
): GuardReadingInput {
  const limit = now.getTime() - guards.offlineSeconds * 1000;
  const offline = servers.filter((s) => s.lastSeenAt === null || s.lastSeenAt.getTime() < limit);
  const basis = `each server's last telemetry or OpAMP message (servers.last_seen_at); offline after ${guards.offlineSeconds} s of silence`;
  if (offline.length === 0)
    return { guard: "offline", status: "pass", summary: `All ${plural(servers.length, "server")} of the wave are reporting.`, basis };
  return {
    guard: "offline",
    status: "trip",
    summary: `${plural(offline.length, "agent")} went offline during the wave: ${names(offline)}.`,
    basis,
    servers: offline.map((s) => ({
      serverId: s.serverId,
      hostname: s.hostname,
      detail: s.lastSeenAt ? `last seen ${s.lastSeenAt.toISOString()}` : "never seen",
    })),
  };
}

/** Servers that have not confirmed the wave's policy `applyTimeoutMinutes` after it went out: the wave holds. */
export function applyTimeoutGuard(
  waiting: readonly WaveServer[],
  releasedAt: Date,
  now: Date,
  guards: Pick<RolloutGuards, "applyTimeoutMinutes">,
): GuardReadingInput | null {
  if (waiting.length === 0 || now.getTime() - releasedAt.getTime() < guards.applyTimeoutMinutes * 60_000) return null;
  return {
    guard: "apply_timeout",
    status: "not-enough-data",
    summary: `${plural(waiting.length, "server")} ${waiting.length === 1 ? "has" : "have"} not confirmed the policy ${guards.applyTimeoutMinutes} min after the wave went out: ${names(waiting)}.`,
    basis: "the agents' OpAMP RemoteConfigStatus (APPLIED with this wave's policy hash)",
    servers: waiting.map((s) => ({ serverId: s.serverId, hostname: s.hostname, detail: "no APPLIED yet" })),
  };
}

export interface BackoffCounts extends WaveServer {
  /** Backoffs in the window before the wave went out, and since it applied; null when the read cache sent nothing. */
  before: number | null;
  after: number | null;
}

/** The read cache giving memory back (a backoff) more often than before the change. */
export function backoffGuard(
  servers: readonly BackoffCounts[],
  guards: Pick<RolloutGuards, "backoffIncrease">,
  windowMinutes: number,
): GuardReadingInput {
  const basis = `the read cache's backoff events (read_cache.backoffs) per server, the guard window against the ${windowMinutes} min before the wave; trips at ${guards.backoffIncrease} more`;
  const measured = servers.filter((s) => s.after !== null);
  if (measured.length === 0) {
    return {
      guard: "backoffs",
      status: "not-measured",
      summary: "No server of the wave runs the read cache, so there are no backoffs to count.",
      basis,
    };
  }
  const worse = measured.filter((s) => s.after! - (s.before ?? 0) >= guards.backoffIncrease);
  if (worse.length === 0) {
    const total = measured.reduce((sum, s) => sum + s.after!, 0);
    return {
      guard: "backoffs",
      status: "pass",
      summary: `${plural(total, "read-cache backoff")} on ${plural(measured.length, "server")} since the change, within the limit.`,
      basis,
    };
  }
  return {
    guard: "backoffs",
    status: "trip",
    summary: `The read cache backed off under memory pressure on ${plural(worse.length, "server")}: ${worse
      .slice(0, 3)
      .map((s) => `${s.hostname} ${s.before ?? 0} → ${s.after}`)
      .join(", ")} (limit +${guards.backoffIncrease}).`,
    basis,
    servers: worse.map((s) => ({
      serverId: s.serverId,
      hostname: s.hostname,
      detail: `${s.before ?? 0} backoffs before, ${s.after} since the change`,
    })),
  };
}

export interface DeviceLatency extends WaveServer {
  device: string;
  /** Merged log2 bucket counts (disk_latency bucket_00…27) over each window. */
  before: readonly number[];
  after: readonly number[];
}

/**
 * p99 from merged histograms is a bucket, (low, high]. A device trips only when the after
 * window's p99 bucket starts above the before bucket's upper edge raised by the threshold, so
 * the width of a log2 bucket never trips the guard by itself.
 */
export function latencyGuard(
  operation: "read" | "write",
  devices: readonly DeviceLatency[],
  guards: Pick<RolloutGuards, "p99IncreasePercent" | "latencyMinimumOperations">,
): GuardReadingInput {
  const guard: GuardKey = operation === "read" ? "p99_read_latency" : "p99_write_latency";
  const basis = `p99 of each device's merged eBPF latency buckets (disk_latency, ${operation}s), the guard window against the equally long window before the wave; devices with at least ${guards.latencyMinimumOperations} ${operation}s in both`;
  if (devices.length === 0) {
    return {
      guard,
      status: "not-measured",
      summary: `No server of the wave measures ${operation} latency (eBPF block latency is off or unavailable).`,
      basis,
    };
  }
  const total = (buckets: readonly number[]) => buckets.reduce((sum, count) => sum + count, 0);
  const judged = devices.filter(
    (d) => total(d.before) >= guards.latencyMinimumOperations && total(d.after) >= guards.latencyMinimumOperations,
  );
  if (judged.length === 0) {
    return {
      guard,
      status: "not-measured",
      summary: `Too few ${operation}s on the wave's devices to read a p99 (fewer than ${guards.latencyMinimumOperations} in a window); nothing to harm.`,
      basis,
    };
  }
  const factor = 1 + guards.p99IncreasePercent / 100;
  const worse = judged.flatMap((d) => {
    const before = latencyPercentile(d.before, 0.99);
    const after = latencyPercentile(d.after, 0.99);
    if (!before || !after || before.upperSeconds === null) return [];
    return after.lowerSeconds > before.upperSeconds * factor ? [{ device: d, before, after }] : [];
  });
  if (worse.length === 0) {
    return {
      guard,
      status: "pass",
      summary: `p99 ${operation} latency held on ${judged.length} device${judged.length === 1 ? "" : "s"} (limit +${guards.p99IncreasePercent} %).`,
      basis,
    };
  }
  return {
    guard,
    status: "trip",
    summary: `p99 ${operation} latency rose past +${guards.p99IncreasePercent} %: ${worse
      .slice(0, 3)
      .map(
        (w) => `${w.device.device} on ${w.device.hostname} ${describeLatencyPercentile(w.before)} → ${describeLatencyPercentile(w.after)}`,
      )
      .join("; ")}.`,
    basis,
    servers: worse.map((w) => ({
      serverId: w.device.serverId,
      hostname: w.device.hostname,
      detail: `${w.device.device}: ${describeLatencyPercentile(w.before)} → ${describeLatencyPercentile(w.after)}`,
    })),
  };
}
