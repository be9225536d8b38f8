import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { ProblemError } from "@/lib/problem";
import { createOrganisation, createServer } from "@/test-support/fixtures";
import { rollUpAggregates } from "@/test-support/roll-up";
import { createTestDatabase, skipWithoutDatabase, type TestDatabase } from "@/test-support/test-database";
import { queryFamilySeries } from "./query-family-series";

const now = new Date("2026-11-21T10:00:00Z");
const at = (hhmmss: string) => new Date(`2026-11-21T${hhmmss}Z`);

describe("queryFamilySeries", { skip: skipWithoutDatabase }, () => {
  let db: TestDatabase;
  let orgId: string;
  let serverId: string;
  let otherServerId: string;

  before(async () => {
    db = await createTestDatabase();
    ({ orgId } = await createOrganisation(db.prisma, "Families"));
    serverId = (await createServer(db.prisma, orgId, "db01")).id;
    const otherOrg = (await createOrganisation(db.prisma, "Other")).orgId;
    otherServerId = (await createServer(db.prisma, otherOrg, "other")).id;
    // Two 10 s intervals in one minute, and one in the next; the other organisation's server too.
    for (const [time, trimmed] of [
      ["09:58:10", 4096],
      ["09:58:20", 0],
      ["09:59:10", 1024],
    ] as const) {
      await db.pool.query(
        "INSERT INTO write_opt_trimmed (time, org_id, server_id, interval_seconds, trimmed_bytes) VALUES ($1, $2, $3, 10, $4)",
        [at(time), orgId, serverId, trimmed],
      );
    }
    await db.pool.query(
      "INSERT INTO write_opt_trimmed (time, org_id, server_id, interval_seconds, trimmed_bytes) VALUES ($1, $2, $3, 10, 999)",
      [at("09:58:10"), otherOrg, otherServerId],
    );
    await rollUpAggregates(db.pool);
  });
  after(async () => {
    await db?.drop();
  });

  it("reads the raw intervals for 1 h, in the aggregate's columns", async () => {
    const series = await queryFamilySeries(db, orgId, serverId, "write_opt_trimmed", "1h", now);
    assert.equal(series.bucketSeconds, null);
    assert.deepEqual(series.columns, ["interval_seconds", "trimmed_bytes", "samples"]);
    assert.equal(series.series.length, 1);
    assert.deepEqual(series.series[0]!.key, {});
    assert.deepEqual(series.series[0]!.values.trimmed_bytes, [4096, 0, 1024]);
    assert.deepEqual(series.series[0]!.values.samples, [1, 1, 1]);
  });

  it("reads the 1-minute buckets for 24 h: the sum of each minute's intervals", async () => {
    const series = await queryFamilySeries(db, orgId, serverId, "write_opt_trimmed", "24h", now);
    assert.equal(series.bucketSeconds, 60);
    const minutes = series.series[0]!;
    assert.deepEqual(minutes.time, [at("09:58:00").getTime() / 1000, at("09:59:00").getTime() / 1000]);
    assert.deepEqual(minutes.values.trimmed_bytes, [4096, 1024]);
    assert.deepEqual(minutes.values.interval_seconds, [20, 10]);
  });

  it("answers 404 for another organisation's server and for a table that is not a drawable family", async () => {
    await assert.rejects(
      queryFamilySeries(db, orgId, otherServerId, "write_opt_trimmed", "1h", now),
      (e: unknown) => e instanceof ProblemError && e.status === 404,
    );
    await assert.rejects(
      queryFamilySeries(db, orgId, serverId, "memory", "1h", now),
      (e: unknown) => e instanceof ProblemError && e.status === 404,
    );
    await assert.rejects(
      queryFamilySeries(db, orgId, serverId, "users", "1h", now),
      (e: unknown) => e instanceof ProblemError && e.status === 404,
    );
  });
});
