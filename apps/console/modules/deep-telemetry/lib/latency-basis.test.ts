// The latency panel's basis against a real database: timed I/Os from the histograms, untimed ones
// from disk_io_untimed matched point by point, "not measured" (never 0) where the agent sent no
// count, untimed I/Os without any histogram kept, and another organisation's rows never read.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { readTimeseriesMode } from "@spindle/db";
import { rollupPending } from "@spindle/timeseries";
import { createOrganisation, createServer } from "@/test-support/fixtures";
import { createTestDatabase, skipWithoutDatabase, type TestDatabase } from "@/test-support/test-database";
import { buildLatencySeries } from "./build-deep-series";
import { describeLatencyBasis } from "./latency-basis";
import { queryDeepTelemetry } from "./query-deep-telemetry";

const now = new Date("2026-11-21T10:00:00Z");
const at = (hhmmss: string) => new Date(`2026-11-21T${hhmmss}Z`);
const buckets = Array.from({ length: 28 }, (_, i) => `bucket_${String(i).padStart(2, "0")}`);

describe("the latency basis: timed and untimed I/Os", { skip: skipWithoutDatabase }, () => {
  let db: TestDatabase;
  let orgId: string;
  let serverId: string;
  let olderAgentServerId: string;

  async function insertLatency(server: string, time: Date, device: string, operation: string, operations: number) {
    const values = buckets.map((_, i) => (i === 11 ? operations : 0));
    await db.pool.query(
      `INSERT INTO disk_latency (time, org_id, server_id, device, operation, interval_seconds, operations, sum_seconds, ${buckets.join(", ")})
       VALUES ($1, $2, $3, $4, $5, 10, $6, $7, ${values.join(", ")})`,
      [time, orgId, server, device, operation, operations, operations * 0.0015],
    );
  }

  async function insertUntimed(org: string, server: string, time: Date, device: string, operation: string, untimed: number) {
    await db.pool.query(
      `INSERT INTO disk_io_untimed (time, org_id, server_id, device, operation, interval_seconds, untimed_ops) VALUES ($1, $2, $3, $4, $5, 10, $6)`,
      [time, org, server, device, operation, untimed],
    );
  }

  before(async () => {
    db = await createTestDatabase();
    ({ orgId } = await createOrganisation(db.prisma, "Acme"));
    ({ id: serverId } = await createServer(db.prisma, orgId, "db01", now));
    ({ id: olderAgentServerId } = await createServer(db.prisma, orgId, "db02", now));
    // sda reads: 100 timed and none untimed (a measured 0), 100 timed and 5 untimed, then an
    // interval whose 3 completions all went untimed (no histogram).
    await insertLatency(serverId, at("09:57:10"), "sda", "read", 100);
    await insertUntimed(orgId, serverId, at("09:57:10"), "sda", "read", 0);
    await insertLatency(serverId, at("09:57:20"), "sda", "read", 100);
    await insertUntimed(orgId, serverId, at("09:57:20"), "sda", "read", 5);
    await insertUntimed(orgId, serverId, at("09:57:30"), "sda", "read", 3);
    // A flush (never counted) and writes from before the agent counted untimed I/Os.
    await insertLatency(serverId, at("09:57:10"), "sda", "flush", 1);
    await insertLatency(serverId, at("09:50:10"), "sda", "write", 50);
    // sdb: writes that all went untimed, no histogram in the whole range.
    await insertUntimed(orgId, serverId, at("09:57:20"), "sdb", "write", 7);
    // Another organisation's row under the same server id must never be read.
    const { orgId: otherOrgId } = await createOrganisation(db.prisma, "Other");
    await insertUntimed(otherOrgId, serverId, at("09:57:20"), "sda", "read", 1000);
    // An older agent: histograms only.
    await insertLatency(olderAgentServerId, at("09:57:10"), "sda", "read", 40);
    // The minutes as production has them: the worker's rollup, or TimescaleDB's refresh.
    if ((await readTimeseriesMode(db.pool)) === "plain") await rollupPending(db.pool);
    else
      for (const view of ["disk_latency_1m", "disk_io_untimed_1m"])
        await db.pool.query(`CALL refresh_continuous_aggregate('${view}', NULL, NULL)`);
  });
  after(() => db?.drop());

  for (const range of ["1h", "24h"] as const) {
    it(`states each row's untimed I/Os and their share of completions (${range})`, async () => {
      const deep = await queryDeepTelemetry(db, orgId, serverId, range, now);
      const row = (device: string, operation: string) => deep.latency.find((s) => s.device === device && s.operation === operation);
      // 8 untimed of 208 completions; the 3 without a histogram count as completions too.
      assert.equal(row("sda", "read")?.summary.operations, 200);
      assert.deepEqual(row("sda", "read")?.untimed, {
        status: "measured",
        operations: 8,
        sharePercent: 3.846,
        uncountedTimedOperations: 0,
      });
      const flush = row("sda", "flush")?.untimed;
      assert.equal(flush?.status, "not-measured");
      assert.match(flush.reason, /flushes are not counted/);
      assert.deepEqual(row("sda", "write")?.untimed.status, "not-measured", "an older agent's interval is not 0 untimed");
      // Every completion of sdb's writes went untimed: kept, with no latency to show.
      assert.deepEqual(row("sdb", "write")?.summary, {
        operations: 0,
        p50: "not measured",
        p95: "not measured",
        p99: "not measured",
        averageMs: null,
      });
      assert.deepEqual(row("sdb", "write")?.untimed, { status: "measured", operations: 7, sharePercent: 100, uncountedTimedOperations: 0 });
      // Over every row: 251 timed, 15 untimed; the share over the 200 + 15 counted, the flush and the old writes apart.
      assert.deepEqual(deep.latencyBasis, {
        timedOperations: 251,
        untimed: { status: "measured", operations: 15, sharePercent: 6.977, uncountedTimedOperations: 51 },
      });
      assert.equal(
        describeLatencyBasis(deep.latencyBasis.timedOperations, deep.latencyBasis.untimed),
        "Latency from 251 timed I/Os; 15 more completed without a latency sample (7.0 % of completions; not counted for 51 of the timed I/Os: flushes, or intervals whose agent did not report them).",
      );
    });
  }

  it("says not measured, never 0, when the agent sent no untimed counts", async () => {
    const deep = await queryDeepTelemetry(db, orgId, olderAgentServerId, "1h", now);
    assert.equal(deep.latency[0]?.untimed.status, "not-measured");
    assert.equal(deep.latencyBasis.untimed.status, "not-measured");
    assert.match(
      describeLatencyBasis(deep.latencyBasis.timedOperations, deep.latencyBasis.untimed),
      /^Latency from 40 timed I\/Os; untimed I\/Os not measured \(/,
    );
  });

  it("lists untimed I/Os whose histogram holds no I/O as a device and operation of their own", () => {
    const empty = { t: 1, device: "sdc", operation: "discard", operations: 0, sum_seconds: 0, buckets: buckets.map(() => 0), samples: 1 };
    const basis = {
      device: "sdc",
      operation: "discard",
      timed_operations: 0,
      counted_timed_operations: 0,
      untimed_operations: 4,
      counted_untimed_operations: 4,
    };
    const series = buildLatencySeries([empty], null, [basis]);
    assert.deepEqual(
      series.map((s) => [s.device, s.operation, s.summary.p50, s.untimed]),
      [["sdc", "discard", "not measured", { status: "measured", operations: 4, sharePercent: 100, uncountedTimedOperations: 0 }]],
    );
  });

  it("describes a fully counted range without caveats", () => {
    assert.equal(
      describeLatencyBasis(1_000, { status: "measured", operations: 0, sharePercent: 0, uncountedTimedOperations: 0 }),
      "Latency from 1,000 timed I/Os; 0 more completed without a latency sample (0 % of completions).",
    );
  });
});
