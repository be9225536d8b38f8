import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { MetricVerdict } from "@spindle/domain";
import { ProblemError } from "@/lib/problem";
import { createTestDatabase, skipWithoutDatabase, type TestDatabase } from "@/test-support/test-database";
import { createOrganisation, createServer } from "@/test-support/fixtures";
import { rollUpAggregates } from "@/test-support/roll-up";
import { queryPolicyVersionVerdicts, queryServerVerdict } from "./query-verdicts";

// The change was applied at 10:00; telemetry starts at 08:00, so less than a day of history:
// the comparison uses the adjacent hour 09:00–10:00 against 10:00–11:00.
const changeAt = new Date("2026-11-20T10:00:00Z");
const now = new Date("2026-11-20T11:00:00Z");
const hash = (c: string) => c.repeat(64);

describe("before/after verdicts", { skip: skipWithoutDatabase }, () => {
  let db: TestDatabase;
  let orgId: string;
  let otherOrgId: string;
  let serverId: string;
  let pendingServerId: string;
  let policyId: string;
  let versionId: string;

  /** One raw row per minute (at :30) from `from` for `minutes`, read latency per minute alternating. */
  async function insertMinutes(server: string, from: Date, minutes: number, perMinute: { latencySeconds: [number, number]; misses: number; splitOps: number }) {
    await db.pool.query(
      `INSERT INTO disk_latency (time, org_id, server_id, device, operation, interval_seconds, operations, sum_seconds,
         bucket_00, bucket_01, bucket_02, bucket_03, bucket_04, bucket_05, bucket_06, bucket_07, bucket_08, bucket_09, bucket_10, bucket_11, bucket_12,
         bucket_13, bucket_14, bucket_15, bucket_16, bucket_17, bucket_18, bucket_19, bucket_20, bucket_21, bucket_22, bucket_23, bucket_24, bucket_25,
         bucket_26, bucket_27)
       SELECT $3::timestamptz + make_interval(mins => m) + interval '30 seconds', $1, $2, 'sda', 'read', 60, 100,
         100 * CASE WHEN m % 2 = 0 THEN $5::float8 ELSE $6::float8 END,
         0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 100, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
       FROM generate_series(0, $4::int - 1) AS m`,
      [orgId, server, from, minutes, perMinute.latencySeconds[0], perMinute.latencySeconds[1]],
    );
    await db.pool.query(
      `INSERT INTO page_cache (time, org_id, server_id, interval_seconds, accesses, misses)
       SELECT $3::timestamptz + make_interval(mins => m) + interval '30 seconds', $1, $2, 60, 1000, $5 FROM generate_series(0, $4::int - 1) AS m`,
      [orgId, server, from, minutes, perMinute.misses],
    );
    await db.pool.query(
      `INSERT INTO disk_split_io (time, org_id, server_id, device, interval_seconds, split_ops)
       SELECT $3::timestamptz + make_interval(mins => m) + interval '30 seconds', $1, $2, 'sda', 60, $5 FROM generate_series(0, $4::int - 1) AS m`,
      [orgId, server, from, minutes, perMinute.splitOps],
    );
    await db.pool.query(
      `INSERT INTO disk_io (time, org_id, server_id, device, interval_seconds, read_ops, write_ops, read_bytes, write_bytes,
         read_merged, write_merged, read_time_ms, write_time_ms, io_time_ms, weighted_io_time_ms, in_progress)
       SELECT $3::timestamptz + make_interval(mins => m) + interval '30 seconds', $1, $2, 'sda', 60, 100, 0, 409600, 0, 0, 0, 100, 0, 100, 100, 0
       FROM generate_series(0, $4::int - 1) AS m`,
      [orgId, server, from, minutes],
    );
  }

  before(async () => {
    db = await createTestDatabase();
    ({ orgId } = await createOrganisation(db.prisma, "Acme"));
    ({ orgId: otherOrgId } = await createOrganisation(db.prisma, "Other"));
    ({ id: serverId } = await createServer(db.prisma, orgId, "db01", now));
    ({ id: pendingServerId } = await createServer(db.prisma, orgId, "db02", now));
    const policy = await db.pool.query<{ id: string }>(`INSERT INTO policies (org_id, name) VALUES ($1, 'Fast reads') RETURNING id`, [orgId]);
    policyId = policy.rows[0]!.id;
    const version = await db.pool.query<{ id: string }>(
      `INSERT INTO policy_versions (policy_id, org_id, version, document, created_at) VALUES ($1, $2, 1, '{"schemaVersion": 1}', '2026-11-20T09:58:00Z') RETURNING id`,
      [policyId, orgId],
    );
    versionId = version.rows[0]!.id;
    // v2 saved after the apply: not in force anywhere yet.
    await db.pool.query(`INSERT INTO policy_versions (policy_id, org_id, version, document, created_at) VALUES ($1, $2, 2, '{"schemaVersion": 1}', '2026-11-20T10:30:00Z')`, [policyId, orgId]);
    const layers = JSON.stringify([{ scope: "organization", tag: null, policyId, policyName: "Fast reads", versionId, version: 1 }]);
    for (const [server, status, applied] of [[serverId, "applied", hash("a")], [pendingServerId, "pending", null]] as const) {
      await db.pool.query(`INSERT INTO server_effective_policies (org_id, server_id, document, hash, layers) VALUES ($1, $2, '{"schemaVersion": 1}', $3, $4)`, [orgId, server, hash("a"), layers]);
      await db.pool.query(
        `INSERT INTO server_policy_status (org_id, server_id, applied_hash, status, applied_at) VALUES ($1, $2, $3, $4, $5)`,
        [orgId, server, applied, status, applied ? changeAt : null],
      );
    }
    // Before: reads at 10 and 12 ms alternating (11 ms), 50 misses per 1,000 accesses, 20 split I/Os per 100 I/Os.
    await insertMinutes(serverId, new Date("2026-11-20T08:00:00Z"), 120, { latencySeconds: [0.01, 0.012], misses: 50, splitOps: 20 });
    // After: 4 and 6 ms (5 ms), 10 misses per 1,000, split I/Os unchanged.
    await insertMinutes(serverId, changeAt, 60, { latencySeconds: [0.004, 0.006], misses: 10, splitOps: 20 });
    await rollUpAggregates(db.pool);
  });
  after(() => db?.drop());

  const byKey = (metrics: MetricVerdict[]) => Object.fromEntries(metrics.map((metric) => [metric.metric.key, metric]));

  it("compares the adjacent hours around the server's latest change and gives a verdict per metric", async () => {
    const verdict = await queryServerVerdict(db, orgId, serverId, now);
    assert.deepEqual(verdict.change, { status: "known", appliedAt: changeAt.toISOString(), cause: "Fast reads v1" });
    assert.deepEqual(verdict.windows, {
      status: "matched",
      matching: "adjacent",
      before: { from: "2026-11-20T09:00:00.000Z", to: "2026-11-20T10:00:00.000Z" },
      after: { from: "2026-11-20T10:00:00.000Z", to: "2026-11-20T11:00:00.000Z" },
    });
    const metrics = byKey(verdict.metrics);
    const latency = metrics.meanReadLatency!;
    assert.equal(latency.status, "verdict");
    assert.equal(latency.verdict, "better");
    assert.ok(Math.abs(latency.before.value - 0.011) < 1e-12 && Math.abs(latency.after.value - 0.005) < 1e-12);
    assert.deepEqual([latency.before.units, latency.after.units, latency.before.denominator], [60, 60, 6000]);
    const misses = metrics.pageCacheMissRatio!;
    assert.equal(misses.status === "verdict" && misses.verdict, "better");
    assert.equal(misses.status === "verdict" && misses.difference, 0.01 - 0.05);
    const split = metrics.splitIosPerIo!;
    assert.equal(split.status === "verdict" && split.verdict, "no-measurable-change");
    assert.equal(split.status === "verdict" && split.before.value, 0.2);
    const reads = metrics.storageReadsPerAccess!;
    assert.equal(reads.status === "verdict" && reads.verdict, "no-measurable-change");
  });

  it("judges a policy version on the servers where it is the latest applied change, and says why not elsewhere", async () => {
    const result = await queryPolicyVersionVerdicts(db, orgId, policyId, 1, now);
    const hosts = Object.fromEntries(result.servers.map((server) => [server.hostname, server]));
    assert.deepEqual(Object.keys(hosts).sort(), ["db01", "db02"]);
    assert.equal(hosts.db01!.change.status, "known");
    assert.equal(byKey(hosts.db01!.metrics).meanReadLatency!.status, "verdict");
    assert.deepEqual(hosts.db02!.change, { status: "unknown", reason: "Fast reads v1 is not applied on this server yet (policy pending)" });
    assert.deepEqual(hosts.db02!.metrics, []);
    assert.deepEqual((await queryPolicyVersionVerdicts(db, orgId, policyId, 2, now)).servers, [], "v2 is in force nowhere");
  });

  it("has not enough data right after a change, never a verdict", async () => {
    const verdict = await queryServerVerdict(db, orgId, serverId, new Date("2026-11-20T10:05:00Z"));
    assert.equal(verdict.windows?.status, "not-enough-data");
    assert.deepEqual(verdict.metrics, []);
  });

  it("answers 404 for another organisation's server or policy", async () => {
    await assert.rejects(queryServerVerdict(db, otherOrgId, serverId, now), (error) => error instanceof ProblemError && error.status === 404);
    await assert.rejects(queryPolicyVersionVerdicts(db, otherOrgId, policyId, 1, now), (error) => error instanceof ProblemError && error.status === 404);
    await assert.rejects(queryPolicyVersionVerdicts(db, orgId, "not-a-uuid", 1, now), (error) => error instanceof ProblemError && error.status === 404);
  });
});
