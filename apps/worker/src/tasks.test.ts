// The jobs as graphile-worker runs them: a queued `rollup` job fills the rollup tables, and in
// TimescaleDB mode the maintenance jobs do nothing (and say why, once).
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { EventEmitter } from "node:events";
import { parseCrontab, run, runMigrations, type JobHelpers, type Runner, type WorkerEvents } from "graphile-worker";
import type pg from "pg";
import { effectivePoliciesTask } from "./jobs/effective-policy-task.js";
import { crontabFor, queueReadLatencySummary, rollupJobSpec } from "./schedule.js";
import { parseEnv } from "./env.js";
import { deliverySettingsFromEnv } from "./notification-settings.js";
import { createTaskList } from "./tasks.js";
import { diskSeries, insertDiskSamples, openPlainDatabase, skipReason, type PlainDatabase } from "./test-support/telemetry.js";

const server = "00000000-0000-4000-8000-0000000000d1";
const delivery = deliverySettingsFromEnv(parseEnv({ DATABASE_URL: "postgres://unused@localhost/unused" }));

describe("worker tasks under graphile-worker", { skip: skipReason }, () => {
  let plain: PlainDatabase;
  let runner: Runner;

  before(async () => {
    plain = await openPlainDatabase("worker_tasks");
    runner = await run({
      pgPool: plain.pool,
      concurrency: 2,
      pollInterval: 200,
      noHandleSignals: true,
      taskList: createTaskList({ pool: plain.pool, timeseriesMode: "plain", delivery }),
      parsedCronItems: [],
    });
  });
  after(async () => {
    await runner?.stop();
    await plain?.close();
  });

  it("runs a queued rollup job to completion", async () => {
    await insertDiskSamples(plain.pool, diskSeries({ org: "org-a", server, device: "sda" }, "2026-11-20T08:00:05Z", 12));
    const done = new Promise<void>((resolve, reject) => {
      runner.events.on("job:success", ({ job }) => job.task_identifier === "rollup" && resolve());
      runner.events.on("job:error", ({ error }) => reject(error));
    });
    await runner.addJob("rollup", {}, rollupJobSpec);
    await done;
    const { rows } = await plain.pool.query("SELECT bucket, samples FROM disk_io_1m WHERE server_id = $1 ORDER BY bucket", [server]);
    assert.deepEqual(rows, [
      { bucket: new Date("2026-11-20T08:00:00Z"), samples: "6" },
      { bucket: new Date("2026-11-20T08:01:00Z"), samples: "6" },
    ]);
  });

  it("runs the read latency summaries queued at start, and schedules them every 5 minutes in both modes", async () => {
    const done = new Promise<void>((resolve, reject) => {
      runner.events.on("job:success", ({ job }) => job.task_identifier === "read_latency_summary" && resolve());
      runner.events.on("job:error", ({ error }) => reject(error));
    });
    await queueReadLatencySummary(runner);
    await done;
    for (const mode of ["plain", "timescaledb"] as const) {
      assert.ok(
        parseCrontab(crontabFor(mode)).some((item) => item.task === "read_latency_summary"),
        mode,
      );
    }
  });
});

describe("the worker's own crontab", { skip: skipReason }, () => {
  // Jobs the crontab queues carry graphile-worker's `_cron` metadata in their payload; a task
  // whose payload check refuses it fails every scheduled run while the hand-queued ones pass.
  it("queues an effective_policies sweep that its task accepts", async () => {
    const plain = await openPlainDatabase("worker_crontab");
    let runner: Runner | undefined;
    try {
      // Backfill makes graphile-worker queue a due run at start instead of at the next minute
      // boundary: the item is the real one from crontabFor, known to the schedule for an hour.
      const items = parseCrontab(crontabFor("plain")).filter((item) => item.task === effectivePoliciesTask);
      assert.equal(items.length, 1);
      items[0]!.options.backfillPeriod = 10 * 60 * 1000;
      await runMigrations({ pgPool: plain.pool });
      await plain.pool.query(
        "INSERT INTO graphile_worker._private_known_crontabs (identifier, known_since) VALUES ($1, now() - interval '1 hour')",
        [items[0]!.identifier],
      );
      // Listeners go in before start: the backfilled job may run before run() resolves.
      const events: WorkerEvents = new EventEmitter();
      const outcome = new Promise<{ payload: unknown; error?: unknown }>((resolve) => {
        events.on("job:success", ({ job }) => job.task_identifier === effectivePoliciesTask && resolve({ payload: job.payload }));
        events.on(
          "job:error",
          ({ job, error }) => job.task_identifier === effectivePoliciesTask && resolve({ payload: job.payload, error }),
        );
      });
      runner = await run({
        pgPool: plain.pool,
        concurrency: 1,
        pollInterval: 200,
        noHandleSignals: true,
        events,
        taskList: createTaskList({ pool: plain.pool, timeseriesMode: "plain", delivery }),
        parsedCronItems: items,
      });
      const { payload, error } = await outcome;
      assert.ok(payload && typeof payload === "object" && "_cron" in payload, `expected a crontab job, got ${JSON.stringify(payload)}`);
      assert.equal(error, undefined, `the scheduled sweep failed: ${String(error)}`);
    } finally {
      await runner?.stop();
      await plain.close();
    }
  });
});

describe("worker tasks in TimescaleDB mode", () => {
  it("leave the database alone and explain once", async () => {
    const untouchable = { query: () => Promise.reject(new Error("must not query in timescaledb mode")) } as unknown as pg.Pool;
    const tasks = createTaskList({ pool: untouchable, timeseriesMode: "timescaledb", delivery });
    const lines: string[] = [];
    const helpers = { logger: { info: (line: string) => lines.push(line), debug: () => {} } } as unknown as JobHelpers;
    for (let i = 0; i < 3; i++) {
      await tasks.rollup!({}, helpers);
      await tasks.retention!({}, helpers);
    }
    assert.equal(lines.length, 2);
    assert.match(lines[0]!, /^rollup: nothing to do in timescaledb mode/);
    assert.match(lines[1]!, /^retention: nothing to do in timescaledb mode/);
  });
});
