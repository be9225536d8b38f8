// The guards of one wave, read from the database: the hard guards on the wave's own servers
// (FAILED, offline, not confirmed, backoffs, p99 latency) and the comparison with the servers not
// yet changed. Pure judgement is @spindle/domain's (rollouts/*); this file only gathers inputs.
// The latency and comparative readings take a server set and two windows, so agent upgrade waves
// (../upgrades/guards.ts) are judged by the same code as policy rollout waves.
import {
  applyTimeoutGuard,
  backoffGuard,
  comparativeGuard,
  failedGuard,
  guardMetrics,
  guardReadingSchema,
  latencyGuard,
  offlineGuard,
  type GuardMetricInput,
  type GuardReading,
  type GuardReadingInput,
  type RolloutGuards,
  type RolloutPlan,
  type WaveServer,
  type WindowSums,
} from "@spindle/domain";
import type pg from "pg";
import { loadBackoffs, loadLatencyBuckets, loadMetricSums, loadRecentlyChanged, type MetricSums, type Window } from "./guard-sql.js";
import { refused, type ServerRow, type WaveRow } from "./rows.js";

const day = 86_400_000;

export function parseReadings(readings: readonly GuardReadingInput[]): GuardReading[] {
  return readings.map((reading) => guardReadingSchema.parse(reading));
}

/** "12:15:00–12:30:00 UTC, against 11:58:00–12:13:00 UTC before the wave". */
export function describeWindows(after: Window, before: Window): string {
  const t = (d: Date) => d.toISOString().slice(11, 19);
  return `${t(after.start)}–${t(after.end)} UTC after the change against ${t(before.start)}–${t(before.end)} UTC before it`;
}

/** The guards read at every step while a wave is out: refusals, silence, confirmations overdue. */
export function continuousReadings(plan: RolloutPlan, wave: WaveRow, waveServers: readonly ServerRow[], now: Date): GuardReadingInput[] {
  const failed = waveServers.filter((s) => s.state === "failed" || (s.state === "pushed" && refused(s, s.targetHash)));
  const readings: GuardReadingInput[] = [
    failedGuard(
      failed.map((s) => ({ serverId: s.serverId, hostname: s.hostname, message: s.reported?.message ?? "" })),
      waveServers.length,
    ),
    offlineGuard(waveServers, now, plan.guards),
  ];
  const waiting = waveServers.filter((s) => s.state === "pushed");
  const timeout = wave.releasedAt ? applyTimeoutGuard(waiting, wave.releasedAt, now, plan.guards) : null;
  if (timeout) readings.push(timeout);
  return readings;
}

export async function backoffReading(
  client: pg.ClientBase,
  orgId: string,
  plan: RolloutPlan,
  waveServers: readonly ServerRow[],
  after: Window,
  before: Window,
): Promise<GuardReadingInput> {
  const ids = waveServers.map((s) => s.serverId);
  const [beforeCounts, afterCounts] = [await loadBackoffs(client, orgId, ids, before), await loadBackoffs(client, orgId, ids, after)];
  return backoffGuard(
    waveServers.map((s) => ({
      serverId: s.serverId,
      hostname: s.hostname,
      before: beforeCounts.get(s.serverId) ?? null,
      after: afterCounts.get(s.serverId) ?? null,
    })),
    plan.guards,
    Math.round((before.end.getTime() - before.start.getTime()) / 60_000),
  );
}

/** p99 read and write latency of each device of `waveServers`, the after window against the before window. */
export async function latencyReadings(
  client: pg.ClientBase,
  orgId: string,
  guards: RolloutGuards,
  waveServers: readonly WaveServer[],
  after: Window,
  before: Window,
): Promise<GuardReadingInput[]> {
  const ids = waveServers.map((s) => s.serverId);
  const [beforeBuckets, afterBuckets] = [
    await loadLatencyBuckets(client, orgId, ids, before),
    await loadLatencyBuckets(client, orgId, ids, after),
  ];
  const hostnames = new Map(waveServers.map((s) => [s.serverId, s.hostname]));
  return (["read", "write"] as const).map((operation) => {
    const devices = [...afterBuckets.entries()].flatMap(([key, buckets]) => {
      const [serverId, device, op] = key.split("\u0000") as [string, string, string];
      if (op !== operation) return [];
      return [{ serverId, hostname: hostnames.get(serverId) ?? serverId, device, before: beforeBuckets.get(key) ?? [], after: buckets }];
    });
    return latencyGuard(operation, devices, guards);
  });
}

/**
 * The comparison with the servers not yet changed: treated = the wave's servers that took the
 * change, controls = every other server of the organisation outside `changedByRollout` (what the
 * rollout already sent the change to) that applied no policy and installed no agent version since
 * the before window began. Previous days are read only when too few controls sent anything
 * (decided before any value is looked at).
 */
export async function comparativeReading(
  client: pg.ClientBase,
  orgId: string,
  guards: RolloutGuards,
  treatedIds: readonly string[],
  changedByRollout: ReadonlySet<string>,
  after: Window,
  before: Window,
): Promise<GuardReadingInput> {
  const [beforeSums, afterSums, changed] = [
    await loadMetricSums(client, orgId, before),
    await loadMetricSums(client, orgId, after),
    await loadRecentlyChanged(client, orgId, before.start),
  ];
  const treatedSet = new Set(treatedIds);
  const windowsOf = (metric: string, serverId: string) => {
    const b = beforeSums.get(metric as never)?.get(serverId);
    const a = afterSums.get(metric as never)?.get(serverId);
    return b || a ? { serverId, before: b ?? { numerator: 0, denominator: 0 }, after: a ?? { numerator: 0, denominator: 0 } } : null;
  };
  const serversWith = (sums: MetricSums, metric: string) => [...(sums.get(metric as never)?.keys() ?? [])];
  const inputs: GuardMetricInput[] = [];
  for (const metric of guardMetrics) {
    const ids = new Set([...serversWith(beforeSums, metric.key), ...serversWith(afterSums, metric.key)]);
    const treated = treatedIds.flatMap((id) => (ids.has(id) ? [windowsOf(metric.key, id)!] : []));
    const control = [...ids]
      .filter((id) => !treatedSet.has(id) && !changedByRollout.has(id) && !changed.has(id))
      .map((id) => windowsOf(metric.key, id)!);
    inputs.push({ metric, treated, control, previousDays: [] });
  }
  const needsDays = inputs.some((input) => input.treated.length > 0 && input.control.length < guards.comparative.minimumControls);
  if (needsDays) {
    for (let d = 1; d <= 7; d++) {
      const sums = await loadMetricSums(client, orgId, {
        start: new Date(after.start.getTime() - d * day),
        end: new Date(after.end.getTime() - d * day),
      });
      for (const input of inputs) {
        const per = sums.get(input.metric.key as never);
        const parts = treatedIds.flatMap((id) => (per?.get(id) ? [per.get(id)!] : []));
        input.previousDays.push(
          parts.length === 0
            ? null
            : parts.reduce<WindowSums>((t, p) => ({ numerator: t.numerator + p.numerator, denominator: t.denominator + p.denominator }), {
                numerator: 0,
                denominator: 0,
              }),
        );
      }
    }
  }
  return comparativeGuard(inputs, guards, {
    describe: describeWindows(after, before),
    afterMinutes: Math.max(1, Math.round((after.end.getTime() - after.start.getTime()) / 60_000)),
  });
}

/** Every guard at the end of the guard window (or at a re-read while the wave holds). */
export async function windowEndReadings(
  client: pg.ClientBase,
  orgId: string,
  plan: RolloutPlan,
  wave: WaveRow,
  waveServers: readonly ServerRow[],
  allServers: readonly ServerRow[],
  after: Window,
  before: Window,
  now: Date,
): Promise<GuardReadingInput[]> {
  const released = new Set(
    allServers.filter((s) => s.state === "pushed" || s.state === "applied" || s.state === "failed").map((s) => s.serverId),
  );
  const treated = waveServers.filter((s) => s.state === "applied").map((s) => s.serverId);
  return [
    ...continuousReadings(plan, wave, waveServers, now),
    await backoffReading(client, orgId, plan, waveServers, after, before),
    ...(await latencyReadings(client, orgId, plan.guards, waveServers, after, before)),
    await comparativeReading(client, orgId, plan.guards, treated, released, after, before),
  ];
}
