// The comparison on a real database: each server folded from its own rows, in one window, and
// another organisation's server refused as not found.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { createTestDatabase, skipWithoutDatabase, type TestDatabase } from "@/test-support/test-database";
import { createOrganisation, createServer } from "@/test-support/fixtures";
import { chartWindowQuerySchema, resolveChartWindow } from "@/modules/metrics/lib/chart-window";
import { queryComparison } from "./query-comparison";

const now = new Date("2026-11-28T12:00:00Z");
const at = (time: string) => new Date(`2026-11-28T${time}Z`);

describe("queryComparison", { skip: skipWithoutDatabase }, () => {
  let db: TestDatabase;
  let orgId: string;
  let ids: string[];
  let theirs: string;

  const disk = (serverId: string, time: Date, device: string, readOps: number, readTimeMs: number) =>
    db.pool.query(
      `INSERT INTO disk_io (time, org_id, server_id, device, interval_seconds, read_ops, write_ops, read_bytes, write_bytes,
       read_merged, write_merged, read_time_ms, write_time_ms, io_time_ms, weighted_io_time_ms, in_progress)
     VALUES ($1, $2, $3, $4, 10, $5::bigint, 0, $5::bigint * 4096, 0, 0, 0, $6, 0, 1000, 2000, 0)`,
      [time, orgId, serverId, device, readOps, readTimeMs],
    );

  before(async () => {
    db = await createTestDatabase();
    ({ orgId } = await createOrganisation(db.prisma, "Acme"));
    ids = [(await createServer(db.prisma, orgId, "db01", now)).id, (await createServer(db.prisma, orgId, "db02", now)).id];
    theirs = (await createServer(db.prisma, (await createOrganisation(db.prisma, "Other")).orgId, "theirs", now)).id;
    await disk(ids[0]!, at("11:50:00"), "sda", 100, 100);
    await disk(ids[0]!, at("11:50:00"), "sdb", 300, 900);
    await disk(ids[1]!, at("11:50:05"), "nvme0n1", 50, 500);
    await disk(ids[1]!, at("10:00:00"), "nvme0n1", 70, 70); // before the window
  });
  after(() => db?.drop());

  const window = resolveChartWindow(chartWindowQuerySchema.parse({ from: "2026-11-28T11:30:00Z", to: "2026-11-28T12:00:00Z" }), now);

  it("draws one series per server over the window, devices folded into a server-wide figure", async () => {
    const iops = await queryComparison(db, orgId, ids, "readIops", window);
    assert.deepEqual(
      [iops.label, iops.unit, iops.range, iops.from],
      ["Read IOPS (all devices)", "ops/s", "custom", "2026-11-28T11:30:00.000Z"],
    );
    assert.deepEqual(
      iops.servers.map((s) => [s.hostname, s.time, s.values]),
      [
        ["db01", [at("11:50:00").getTime() / 1000], [40]],
        ["db02", [at("11:50:05").getTime() / 1000], [5]],
      ],
    );
    const latency = await queryComparison(db, orgId, ids, "readLatency", window);
    assert.deepEqual(
      latency.servers.map((s) => s.values),
      [[(100 + 900) / 400], [10]],
    );
  });

  it("refuses another organisation's server as not found, whichever position it has", async () => {
    await assert.rejects(queryComparison(db, orgId, [ids[0]!, theirs], "readIops", window), { status: 404 });
    await assert.rejects(queryComparison(db, orgId, [ids[0]!, "x"], "readIops", window), { status: 404 });
  });
});
