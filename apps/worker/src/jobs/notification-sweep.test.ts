// Which outbox rows the sweeps requeue: at start every open row; every minute only rows whose
// job must have been lost (overdue) and claims whose worker must have died (lease over).
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { openPlainDatabase, skipReason, type PlainDatabase } from "../test-support/telemetry.js";
import { routedChannel, seedOrganization } from "../test-support/notifications.js";
import { findOpenNotifications } from "./notification-sweep.js";
import { createNotificationSweepTask, deliverNotificationTask } from "./notification-task.js";
import type { JobHelpers } from "graphile-worker";

describe("notification sweeps", { skip: skipReason }, () => {
  let plain: PlainDatabase;
  before(async () => {
    plain = await openPlainDatabase("notify_sweep");
  });
  after(() => plain?.close());

  it("find every open row at start, and only overdue rows and expired claims each minute, across organisations", async () => {
    const ids: Record<string, string> = {};
    for (const org of ["org-sweep-a", "org-sweep-b"]) {
      await seedOrganization(
        plain.pool,
        org,
        org === "org-sweep-a" ? "1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f" : "2d3e4f5a-6b7c-4d8e-9f0a-1b2c3d4e5f6a",
        [],
      );
      const { channel } = await routedChannel(plain.pool, org, "Hook", "webhook", { url: "https://receiver.example.com/" }, {});
      const insert = async (name: string, status: string, nextAttempt: string, lease: string | null, extra = "") => {
        const { rows } = await plain.pool.query(
          `INSERT INTO notifications (org_id, channel_id, transition_id, notice, status, next_attempt_at, lease_until ${extra ? ", sent_at" : ""})
           VALUES ($1, $2, $3, '{}', $4, now() + $5::interval, now() + $6::interval ${extra}) RETURNING id::text`,
          [org, channel.id, name, status, nextAttempt, lease],
        );
        ids[`${org}/${name}`] = rows[0].id;
      };
      await insert("due-now", "pending", "0 seconds", null);
      await insert("lost-job", "pending", "-5 minutes", null);
      await insert("retry-later", "pending", "10 minutes", null);
      await insert("claim-live", "sending", "-1 minute", "30 seconds");
      await insert("claim-expired", "sending", "-1 minute", "-1 second");
      await insert("done", "sent", "-1 minute", null, ", now()");
    }
    const names = (rows: Array<{ orgId: string; notificationId: string }>) =>
      rows.map((row) => Object.entries(ids).find(([, id]) => id === row.notificationId)![0]).sort();

    const stuck = await findOpenNotifications(plain.pool, "stuck");
    assert.deepEqual(names(stuck), [
      "org-sweep-a/claim-expired",
      "org-sweep-a/lost-job",
      "org-sweep-b/claim-expired",
      "org-sweep-b/lost-job",
    ]);
    const all = await findOpenNotifications(plain.pool, "all");
    assert.equal(all.length, 10);
    assert.ok(!names(all).some((name) => name.endsWith("/done")));
    const live = all.find((row) => row.notificationId === ids["org-sweep-a/claim-live"])!;
    assert.ok(live.runAt.getTime() > Date.now(), "a live claim is looked at when it runs out");
    assert.deepEqual(
      all.map((row) => row.runAt.getTime()),
      [...all].map((row) => row.runAt.getTime()).sort((a, b) => a - b),
      "oldest first",
    );

    // The crontab's job (payload {"_cron": …}) queues one delivery per stuck row, keyed by its id.
    const queued: Array<{ task: string; payload: unknown; spec: { jobKey?: string; jobKeyMode?: string } }> = [];
    const helpers = {
      addJob: async (task: string, payload: unknown, spec: { jobKey?: string }) => void queued.push({ task, payload, spec }),
      logger: { info: () => {}, debug: () => {} },
    } as unknown as JobHelpers;
    await createNotificationSweepTask(plain.pool)({ _cron: { ts: new Date().toISOString(), backfilled: false } }, helpers);
    assert.deepEqual(
      queued.map((job) => job.task),
      Array(4).fill(deliverNotificationTask),
    );
    assert.deepEqual(queued.map((job) => job.spec.jobKey).sort(), stuck.map((row) => row.notificationId).sort());
    assert.ok(queued.every((job) => job.spec.jobKeyMode === "replace"));
  });
});
