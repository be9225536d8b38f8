// The alerts_evaluate job as graphile-worker runs it, and its place in the crontab.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { parseCrontab, run, type Runner } from "graphile-worker";
import { defaultAlertRules } from "@spindle/domain";
import { crontabFor } from "../schedule.js";
import { createTaskList } from "../tasks.js";
import { openPlainDatabase, skipReason, type PlainDatabase } from "../test-support/telemetry.js";
import { alertsEvaluateJobSpec, alertsEvaluateTask, evaluationTick } from "./task.js";

describe("the alerts_evaluate job", { skip: skipReason }, () => {
  let db: PlainDatabase;
  let runner: Runner;

  before(async () => {
    db = await openPlainDatabase("alerts_task");
    await db.pool.query("INSERT INTO organizations (id, name, slug) VALUES ('org-new', 'New', 'new')");
    runner = await run({ pgPool: db.pool, concurrency: 1, pollInterval: 200, noHandleSignals: true,
      taskList: createTaskList({ pool: db.pool, timeseriesMode: "plain" }), parsedCronItems: [] });
  });
  after(async () => {
    await runner?.stop();
    await db?.close();
  });

  it("evaluates every organisation, seeding a new one's default rules", async () => {
    const done = new Promise<void>((resolve, reject) => {
      runner.events.on("job:success", ({ job }) => job.task_identifier === alertsEvaluateTask && resolve());
      runner.events.on("job:error", ({ job, error }) => job.task_identifier === alertsEvaluateTask && reject(error));
    });
    await runner.addJob(alertsEvaluateTask, { _cron: { ts: new Date().toISOString(), backfilled: false } }, alertsEvaluateJobSpec);
    await done;
    const { rows } = await db.pool.query("SELECT count(*)::int AS n FROM alert_rules WHERE org_id = 'org-new'");
    assert.equal(rows[0].n, defaultAlertRules.length);
    const progress = await db.pool.query("SELECT evaluated_at FROM alert_evaluation_progress WHERE org_id = 'org-new'");
    assert.equal((progress.rows[0].evaluated_at as Date).getTime() % 30_000, 0, "evaluated at a 30-second tick");
  });
});

describe("alert evaluation schedule", () => {
  it("runs every minute in both time-series modes, in one queue", () => {
    for (const mode of ["plain", "timescaledb"] as const) {
      const items = parseCrontab(crontabFor(mode)).filter((item) => item.task === alertsEvaluateTask);
      assert.equal(items.length, 1, mode);
      assert.equal(items[0]!.options.queueName, alertsEvaluateJobSpec.queueName);
      assert.equal(items[0]!.options.jobKey, alertsEvaluateJobSpec.jobKey);
    }
  });

  it("rounds down to the 30-second tick", () => {
    assert.equal(evaluationTick(new Date("2026-11-20T08:00:59.999Z")).toISOString(), "2026-11-20T08:00:30.000Z");
    assert.equal(evaluationTick(new Date("2026-11-20T08:00:30.000Z")).toISOString(), "2026-11-20T08:00:30.000Z");
  });
});
