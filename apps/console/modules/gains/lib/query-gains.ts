// The gains of one server, or of every server of the organisation, over a range. Servers are
// looked up in the caller's organisation first (another tenant's server is a 404 and its telemetry
// is never read); every statement filters on org_id as well.
import { fleetLedger } from "@spindle/domain";
import type { Pool, Prisma } from "@/lib/db";
import { getServer } from "@/modules/fleet/lib/get-server";
import type { FleetGains, GainsRangeView, ReadSeries, ServerGains } from "../types/gains";
import type { GainsRangeQuery } from "../types/range";
import { buildSummary, deviceReads, gainsSums } from "./build-gains";
import { resolveRange, type ResolvedRange } from "./gains-range";
import {
  readCacheSumsSql,
  readSeriesSql,
  storageReadsSql,
  writeOptSumsSql,
  type ReadCacheSumsRow,
  type ReadSeriesRow,
  type StorageReadsRow,
  type WriteOptSumsRow,
} from "./gains-sql";

type Db = { prisma: Prisma; pool: Pool };

function rangeView(range: ResolvedRange): GainsRangeView {
  return { range: range.range, from: range.from.toISOString(), to: range.to.toISOString(), resolution: range.resolution, bucketSeconds: range.bucketSeconds };
}

async function sumsOf(db: Db, orgId: string, serverIds: string[], range: ResolvedRange) {
  const params = [orgId, serverIds, range.from, range.to];
  const [cache, writeOpt, storage] = await Promise.all([
    db.pool.query<ReadCacheSumsRow>(readCacheSumsSql(range.resolution), params),
    db.pool.query<WriteOptSumsRow>(writeOptSumsSql(range.resolution), params),
    db.pool.query<StorageReadsRow>(storageReadsSql(range.resolution), params),
  ]);
  return (serverId: string) => {
    const storageRows = storage.rows.filter((row) => row.server_id === serverId);
    return {
      storageRows,
      sums: gainsSums(
        cache.rows.find((row) => row.server_id === serverId),
        writeOpt.rows.find((row) => row.server_id === serverId),
        storageRows,
      ),
    };
  };
}

/** A point more than 1.5 steps after the previous one leaves a gap (agent stopped), not a line. */
function buildReadSeries(rows: readonly ReadSeriesRow[], bucketSeconds: number | null): ReadSeries {
  const series: ReadSeries = { time: [], memoryBytesPerSecond: [], storageBytesPerSecond: [] };
  const rate = (bytes: number | null, seconds: number) => (bytes === null || seconds <= 0 ? null : Number((bytes / seconds).toPrecision(4)));
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

export async function queryServerGains(db: Db, orgId: string, serverId: string, query: GainsRangeQuery, now = new Date()): Promise<ServerGains> {
  const server = await getServer(db.prisma, orgId, serverId, now);
  const range = resolveRange(query, now);
  const [of, series] = await Promise.all([
    sumsOf(db, orgId, [server.id], range),
    db.pool.query<ReadSeriesRow>(readSeriesSql(range.resolution), [orgId, server.id, range.from, range.to]),
  ]);
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
  const servers = await db.prisma.server.findMany({ where: { orgId }, select: { id: true, hostname: true }, orderBy: { hostname: "asc" } });
  const of = await sumsOf(db, orgId, servers.map((server) => server.id), range);
  const summaries = servers.map((server) => buildSummary(server, of(server.id).sums));
  return {
    range: rangeView(range),
    servers: summaries,
    ledger: fleetLedger(summaries.map((summary) => ({ server: summary.hostname, lines: summary.ledger }))),
  };
}
