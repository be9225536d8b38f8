// The alerts_evaluate job as graphile-worker runs it, and its place in the crontab.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { parseCrontab, run, type Runner } from "graphile-worker";
import { defaultAlertRules } from "@spindle/domain";
import { crontabFor } from "../schedule.js";
import { createTaskList } from "../tasks.js";
import { startHttpReceiver } from "@spindle/notify/testing";
import { startNotificationQueueing } from "../notification-queueing.js";
import { routedChannel, seedOrganization, testDelivery } from "../test-support/notifications.js";
import { openPlainDatabase, skipReason, type PlainDatabase } from "../test-support/telemetry.js";
import { alertsEvaluateJobSpec, alertsEvaluateTask, evaluationTick } from "./task.js";

describe("the alerts_evaluate job", { skip: skipReason }, () => {
  let db: PlainDatabase;
  let runner: Runner;

  before(async () => {
    db = await openPlainDatabase("alerts_task");
    await db.pool.query("INSERT INTO organizations (id, name, slug) VALUES ('org-new', 'New', 'new')");
    runner = await run({
      pgPool: db.pool,
      concurrency: 1,
      pollInterval: 200,
      noHandleSignals: true,
      taskList: createTaskList({ pool: db.pool, timeseriesMode: "plain", delivery: testDelivery }),
      parsedCronItems: [],
    });
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

describe("an alert that fires, end to end in the worker", { skip: skipReason }, () => {
  let db: PlainDatabase;
  let runner: Runner;
  let stopQueueing: (() => Promise<void>) | undefined;

  before(async () => {
    db = await openPlainDatabase("alerts_notify");
  });
  after(async () => {
    await stopQueueing?.();
    await runner?.stop();
    await db?.close();
  });

  it("reaches a routed webhook through the outbox, with the rule, the server and the state", async () => {
    const receiver = await startHttpReceiver();
    try {
      const serverId = "0195f3c2-7a8b-7c3d-9e4f-00000000a1e7";
      await seedOrganization(db.pool, "org-paged", serverId, ["db"]);
      // policy_failed fires at its first tick (no for-duration): one state change to notify.
      await db.pool.query(
        "INSERT INTO server_policy_status (org_id, server_id, status, message) VALUES ('org-paged', $1, 'failed', 'budget too large')",
        [serverId],
      );
      await routedChannel(db.pool, "org-paged", "On call", "webhook", { url: `${receiver.url}/hook` }, {});
      // The default hook and the outbox's queueing, as the worker's main sets them up.
      runner = await run({
        pgPool: db.pool,
        concurrency: 1,
        pollInterval: 200,
        noHandleSignals: true,
        taskList: createTaskList({ pool: db.pool, timeseriesMode: "plain", delivery: testDelivery }),
        parsedCronItems: [],
      });
      stopQueueing = startNotificationQueueing(runner, db.pool, db.db.url);
      await runner.addJob(alertsEvaluateTask, { _cron: { ts: new Date().toISOString(), backfilled: false } }, alertsEvaluateJobSpec);
      const [request] = await receiver.waitForRequests(1);
      const body = JSON.parse(request!.body);
      const text = JSON.stringify(body);
      assert.match(text, /firing/);
      assert.match(text, new RegExp(serverId));
      const { rows } = await db.pool.query(
        "SELECT n.status, n.transition_id::text = h.id::text AS same FROM notifications n JOIN alert_history h ON h.id::text = n.transition_id WHERE n.org_id = 'org-paged'",
      );
      assert.equal(rows.length, 1, "one notification for the one state change");
      assert.equal(rows[0].same, true);
      assert.equal(request!.headers["webhook-id"] !== undefined, true, "signed per Standard Webhooks");
    } finally {
      await receiver.close();
    }
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
