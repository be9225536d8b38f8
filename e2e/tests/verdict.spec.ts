// The calibrated verdict and the realised change as the console draws them. A week of telemetry
// cannot be produced during a journey, so this one writes it, as an agent would have sent it, into
// the raw tables of a server of the signed-up organisation (the worker rolls it up and measures the
// realised effect, the console reads it): a change applied 70 minutes ago after seven days with
// the same hour at 2 ms, a change applied 20 minutes ago, and an applied read-cache recommendation
// whose day after the change is held against the seven days before it.
import { expect, test, type Page } from "@playwright/test";
import { randomUUID } from "node:crypto";
import pg from "pg";
import { newAccount, signUp } from "../support/accounts";
import { e2eStack } from "../support/stack";

const minute = 60_000;
const day = 24 * 60 * minute;
const gib = 1024 ** 3;
const buckets = Array.from({ length: 28 }, (_, i) => `bucket_${String(i).padStart(2, "0")}`);
const database = new pg.Client({ connectionString: e2eStack.databaseUrl });
const run = async (sql: string, params: unknown[] = []) => (await database.query(sql, params)).rows;

test.beforeAll(async () => {
  await database.connect();
});
test.afterAll(async () => {
  await database.end();
});

async function reloadUntil(page: Page, check: () => Promise<void>, timeout: number): Promise<void> {
  await expect(async () => {
    await page.reload();
    await check();
  }).toPass({ timeout, intervals: [2_000, 5_000] });
}

/**
 * A server of the organisation whose agent applied, at `appliedAt`, the effective policy the
 * worker computed for it (the hash the console compares the agent's report with).
 */
async function seedServer(orgId: string, hostname: string, appliedAt: Date): Promise<string> {
  const serverId = randomUUID();
  await run(
    "INSERT INTO servers (id, org_id, machine_id, hostname, os, last_seen_at) VALUES ($1::uuid, $2, $1::text, $3, 'linux', now())",
    [serverId, orgId, hostname],
  );
  let hash = "";
  await expect
    .poll(
      async () => {
        const [row] = await run("SELECT hash FROM server_effective_policies WHERE org_id = $1 AND server_id = $2", [orgId, serverId]);
        hash = (row as { hash?: string } | undefined)?.hash ?? "";
        return hash.length;
      },
      { timeout: 60_000, message: "the worker computes the server's effective policy" },
    )
    .toBe(64);
  await run("INSERT INTO server_policy_status (org_id, server_id, applied_hash, status, applied_at) VALUES ($1, $2, $3, 'applied', $4)", [
    orgId,
    serverId,
    hash,
    appliedAt,
  ]);
  return serverId;
}

/** An hour of minutes from `from`: 100 reads a minute at `seconds` each (with a wiggle inside the hour), and diskstats. */
async function seedHour(orgId: string, serverId: string, from: Date, seconds: number) {
  const series = "FROM generate_series(0, 59) AS m";
  const time = "$3::timestamptz + make_interval(mins => m) + interval '30 seconds'";
  await run(
    `INSERT INTO disk_latency (time, org_id, server_id, device, operation, interval_seconds, operations, sum_seconds, ${buckets.join(", ")})
     SELECT ${time}, $1, $2, 'sda', 'read', 60, 100, 100 * $4::float8 * (1 + 0.1 * sin(m * 1.7)), ${buckets.map((_, i) => (i === 12 ? "100" : "0")).join(", ")} ${series}`,
    [orgId, serverId, from, seconds],
  );
  await run(
    `INSERT INTO disk_io (time, org_id, server_id, device, interval_seconds, read_ops, write_ops, read_bytes, write_bytes,
       read_merged, write_merged, read_time_ms, write_time_ms, io_time_ms, weighted_io_time_ms, in_progress)
     SELECT ${time}, $1, $2, 'sda', 60, 100, 0, 409600, 0, 0, 0, 200, 0, 200, 200, 0 ${series}`,
    [orgId, serverId, from],
  );
}

/** A day of read-cache rows (one per 10 minutes) from `from` at the hit ratio `ratio`. */
async function seedReadCacheDay(orgId: string, serverId: string, from: Date, ratio: number) {
  await run(
    `INSERT INTO read_cache (time, org_id, server_id, interval_seconds, budget_bytes, hits_bytes, misses_bytes)
     SELECT $3::timestamptz + i * interval '10 minutes', $1, $2, 600, $4, round($5::float8 * 1073741824), round((1 - $5::float8) * 1073741824)
     FROM generate_series(1, 144) AS i`,
    [orgId, serverId, from, 2 * gib, ratio],
  );
}

test("the verdict names its method and is provisional before the horizon; the realised change is held against the predicted", async ({
  page,
}, testInfo) => {
  test.setTimeout(300_000);
  const account = newAccount("Verdict");
  await signUp(page, account);
  const [org] = await run("SELECT id FROM organizations WHERE name = $1", [account.organisation]);
  const orgId = (org as { id: string }).id;
  // On a whole minute, as the aggregates' buckets are: the hour after the change is 60 full minutes.
  const now = Math.floor(Date.now() / minute) * minute;

  // A week of the same hour at 2 ms (±2 % day to day), then the hour after the change at 1 ms.
  const changedAt = new Date(now - 70 * minute);
  const db01 = await seedServer(orgId, "verdict-db01", changedAt);
  for (let k = 1; k <= 7; k++) await seedHour(orgId, db01, new Date(changedAt.getTime() - k * day), k % 2 === 0 ? 0.00196 : 0.00204);
  await seedHour(orgId, db01, changedAt, 0.001);
  const db02 = await seedServer(orgId, "verdict-db02", new Date(now - 20 * minute));

  // An applied budget recommendation: predicted 60 % → 85 % (+25 points ± 5); the day after the change at 85 %, the seven before at 60 %.
  const db03 = await seedServer(orgId, "verdict-db03", new Date(now - day - 30 * minute));
  const confirmed = new Date(now - day - 30 * minute);
  for (let k = 1; k <= 7; k++) await seedReadCacheDay(orgId, db03, new Date(confirmed.getTime() - k * day), k % 2 === 0 ? 0.598 : 0.602);
  await seedReadCacheDay(orgId, db03, confirmed, 0.85);
  await run(
    `INSERT INTO recommendations (org_id, server_id, kind, subject, title, change, evidence, prediction, confidence, status, applied_at)
     VALUES ($1, $2, 'read_cache_budget', '', 'Raise the read-cache budget from 2 GiB to 6 GiB', '{"type": "set_read_cache_budget", "budgetBytes": 6442450944}',
       $3, $4, '{"level": "medium", "tolerance": 0.05, "reason": "20,000 sampled accesses on the curve: realised within ±5 points"}', 'applied', $5)`,
    [
      orgId,
      db03,
      JSON.stringify({
        metric: "miss-ratio curve of the read cache",
        source: "cache_mrc",
        window: { from: new Date(now - 9 * day).toISOString(), to: new Date(now - 2 * day).toISOString() },
        chart: { view: "miss-ratio-curve", serverId: db03, component: "read_cache" },
        facts: [],
      }),
      JSON.stringify({
        metric: "read_cache_hit_ratio",
        before: 0.6,
        after: 0.85,
        summary: "budget 2 GiB → 6 GiB: read hit ratio 60 % → 85 %",
        basis: "the curve of the last 7 days",
      }),
      new Date(confirmed.getTime() - minute),
    ],
  );

  // The change 70 minutes ago: a provisional reading at one hour, against the same hour on the previous days.
  await page.goto(`/servers/${db01}`);
  const verdict = page.getByTestId("server-gains").getByTestId("verdict");
  const latency = verdict.getByTestId("verdict-meanReadLatency");
  // The worker rolls the minutes up; the section reads them once they are there.
  await reloadUntil(page, () => expect(latency).toHaveAttribute("data-verdict", "better", { timeout: 15_000 }), 180_000);
  await expect(verdict.getByTestId("verdict-look")).toHaveAttribute("data-stage", "provisional");
  await expect(verdict.getByTestId("verdict-look")).toContainText("Provisional reading at 1 h of the 24 h horizon");
  await expect(latency).toHaveAttribute("data-method", "previous-days");
  await expect(latency).toHaveAttribute("data-stage", "provisional");
  await expect(verdict.getByTestId("verdict-meanReadLatency-text")).toHaveText("better (provisional)");
  await expect(latency).toContainText(/−50\.0 % \(99\.9 % interval −\d+\.\d % to −\d+\.\d %; p (<|=) 0\.\d+\)/);
  await expect(verdict.getByTestId("verdict-meanReadLatency-method")).toContainText(
    "Method: Same window on previous days (placebo predictions): placebo predictions from the same window on 7 previous days (6,000 reads after the change)",
  );
  // No page-cache counters on this server: below the floor, not a verdict.
  await expect(verdict.getByTestId("verdict-pageCacheMissRatio")).toHaveAttribute("data-verdict", "not-enough-data");
  await expect(verdict.getByTestId("verdict-pageCacheMissRatio")).toContainText(
    "not enough data (previous days: fewer than 100 page accesses after the change; servers not yet changed: ",
  );
  await verdict.screenshot({ path: testInfo.outputPath("verdict-provisional.png") });

  // The change 20 minutes ago: nothing to read yet, and when there will be.
  await page.goto(`/servers/${db02}`);
  await expect(page.getByTestId("server-gains").getByTestId("verdict-not-enough-data")).toContainText(
    "Not enough data: the first reading is taken 60 minutes after the change",
  );

  // The applied recommendation: the worker holds the realised change against the predicted one.
  await page.goto(`/servers/${db03}`);
  const realised = page.getByTestId("server-recommendations").getByTestId("recommendation-realised");
  await reloadUntil(page, () => expect(realised).toHaveAttribute("data-status", "judged", { timeout: 15_000 }), 180_000);
  await expect(realised).toHaveAttribute("data-answer", "consistent");
  await expect(realised.getByTestId("recommendation-realised-answer")).toHaveText("consistent");
  await expect(realised.getByTestId("recommendation-realised-change")).toContainText(
    /Realised change: read hit ratio 60\.0 % → 85\.0 %, \+25\.0 points \(95 % interval \+2\d\.\d points to \+2\d\.\d points, against the same window on the previous days\)/,
  );
  await expect(realised.getByTestId("recommendation-predicted-change")).toContainText(
    "Predicted change: 60.0 % → 85.0 %, +25.0 points (range +20.0 points to +30.0 points",
  );
  await realised.screenshot({ path: testInfo.outputPath("realised-change.png") });
});
