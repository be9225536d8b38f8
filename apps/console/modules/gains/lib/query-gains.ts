// The gains of one server, or of every server of the organisation, over a range. Servers are
// looked up in the caller's organisation first (another tenant's server is a 404 and its telemetry
// is never read); every statement filters on org_id as well, and each answer is one transaction
// under row-level security (inOrgSql).
import { fleetLedger } from "@spindle/domain";
import { inOrgSql, type Db, type OrgSql } from "@/lib/db";
import { listServersSql, readServerSql } from "@/modules/fleet/lib/get-server";
import type { FleetGains, GainsRangeView, ReadSeries, ServerGains } from "../types/gains";
import type { GainsRangeQuery } from "../types/range";
import { buildSummary, deviceReads, gainsSums } from "./build-gains";
import { resolveRange, type ResolvedRange } from "./gains-range";
import {
  holdoutBucketsSql,
  holdoutUnitsSql,
  readCacheSumsSql,
  readSeriesSql,
  storageReadsSql,
  writeOptSumsSql,
  type HoldoutBucketRow,
  type HoldoutUnitRow,
  type ReadCacheSumsRow,
  type ReadSeriesRow,
  type StorageReadsRow,
  type WriteOptSumsRow,
} from "./gains-sql";

function rangeView(range: ResolvedRange): GainsRangeView {
  return {
    range: range.range,
    from: range.from.toISOString(),
    to: range.to.toISOString(),
    resolution: range.resolution,
    bucketSeconds: range.bucketSeconds,
  };
}

async function sumsOf(sql: OrgSql, orgId: string, serverIds: string[], range: ResolvedRange) {
  const params = [orgId, serverIds, range.from, range.to];
  const [cache, writeOpt, storage, holdout, buckets] = await Promise.all([
    sql.query<ReadCacheSumsRow>(readCacheSumsSql(range.resolution), params),
    sql.query<WriteOptSumsRow>(writeOptSumsSql(range.resolution), params),
    sql.query<StorageReadsRow>(storageReadsSql(range.resolution), params),
    sql.query<HoldoutUnitRow>(holdoutUnitsSql(range.resolution), params),
    sql.query<HoldoutBucketRow>(holdoutBucketsSql(range.resolution), params),
  ]);
  return (serverId: string) => {
    const storageRows = storage.rows.filter((row) => row.server_id === serverId);
    return {
      storageRows,
      sums: gainsSums(
        cache.rows.find((row) => row.server_id === serverId),
        writeOpt.rows.find((row) => row.server_id === serverId),
        storageRows,
        holdout.rows.filter((row) => row.server_id === serverId),
        buckets.rows.filter((row) => row.server_id === serverId),
      ),
    };
  };
}

/** A point more than 1.5 steps after the previous one leaves a gap (agent stopped), not a line. */
function buildReadSeries(rows: readonly ReadSeriesRow[], bucketSeconds: number | null): ReadSeries {
  const series: ReadSeries = { time: [], memoryBytesPerSecond: [], storageBytesPerSecond: [] };
  const rate = (bytes: number | null, seconds: number) =>
    bytes === null || seconds <= 0 ? null : Number((bytes / seconds).toPrecision(4));
  for (const row of rows) {
    const step = bucketSeconds ?? row.interval_seconds;
    const previous = series.time.at(-1);
    if (previous !== undefined && row.t - previous > 1.5 * step) {
      series.time.push(previous + step);
      series.memoryBytesPerSecond.push(null);
      series.storageBytesPerSecond.push(null);
    }
    series.time.push(row.t);
    series.memoryBytesPerSecond.push(rate(row.hits_bytes, row.interval_seconds));
    series.storageBytesPerSecond.push(rate(row.misses_bytes, row.interval_seconds));
  }
  return series;
}

export async function queryServerGains(
  db: Db,
  orgId: string,
  serverId: string,
  query: GainsRangeQuery,
  now = new Date(),
): Promise<ServerGains> {
  const range = resolveRange(query, now);
  const [server, of, series] = await inOrgSql(db, orgId, async (sql) => {
    const found = await readServerSql(sql, orgId, serverId, now);
    return [
      found,
      await sumsOf(sql, orgId, [found.id], range),
      await sql.query<ReadSeriesRow>(readSeriesSql(range.resolution), [orgId, found.id, range.from, range.to]),
    ] as const;
  });
  const { sums, storageRows } = of(server.id);
  return {
    ...buildSummary(server, sums),
    range: rangeView(range),
    devices: deviceReads(storageRows),
    series: buildReadSeries(series.rows, range.bucketSeconds),
  };
}

export async function queryFleetGains(db: Db, orgId: string, query: GainsRangeQuery, now = new Date()): Promise<FleetGains> {
  const range = resolveRange(query, now);
  const [servers, of] = await inOrgSql(db, orgId, async (sql) => {
    const found = await listServersSql(sql, orgId, now);
    return [
      found,
      await sumsOf(
        sql,
        orgId,
        found.map((server) => server.id),
        range,
      ),
    ] as const;
  });
  const summaries = servers.map((server) => buildSummary(server, of(server.id).sums));
  return {
    range: rangeView(range),
    servers: summaries,
    ledger: fleetLedger(summaries.map((summary) => ({ server: summary.hostname, lines: summary.ledger }))),
  };
}
