// The recommendations digest with real parts: PostgreSQL (row-level security, the worker's role),
// graphile-worker with the LISTEN that queues deliveries, a real SMTP server (smtp-server) and an
// HTTP receiver. One digest per organisation and period, only through channels that opted in,
// never another organisation's recommendations; a crash before the commit loses nothing and a
// second run (or a second worker) sends nothing twice. Waits are for jobs and messages only.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { withOrgTransaction } from "@spindle/db";
import { enqueueRecommendationDigest, NotifyInputError, updateChannel } from "@spindle/notify";
import { startHttpReceiver, startSmtpReceiver, type HttpReceiver, type SmtpReceiver } from "@spindle/notify/testing";
import { run, type Runner } from "graphile-worker";
import { startNotificationQueueing } from "../notification-queueing.js";
import { createTaskList } from "../tasks.js";
import { inOrg, outboxRows, routedChannel, seedOrganization, testDelivery, untilJobsMake } from "../test-support/notifications.js";
import { openPlainDatabase, skipReason, type PlainDatabase } from "../test-support/telemetry.js";
import { digestOrganization, periodStartOf } from "./digest.js";

const orgA = "org-digest-a";
const orgB = "org-digest-b";
const serverA = "5a1c2b3a-4e5f-4a6b-8c7d-9e0f1a2b3c4d";
const serverB = "6b2d3c4b-5f6a-4b7c-9d8e-0f1a2b3c4d5e";
const day = 86_400;
const settings = { periodSeconds: day };
const monday = new Date("2026-11-23T10:00:00Z");

/** The console's switch on a channel (PATCH /api/alerts/channels/:id { recommendationDigest: true }). */
const optIn = (tx: Parameters<typeof updateChannel>[0], orgId: string, id: string) =>
  updateChannel(tx, { orgId, id, recommendationDigest: true });

describe("the recommendations digest", { skip: skipReason, timeout: 120_000 }, () => {
  let plain: PlainDatabase;
  let runner: Runner;
  let stopQueueing: () => Promise<void>;
  let http: HttpReceiver;
  let smtp: SmtpReceiver;

  async function recommendation(orgId: string, serverId: string, title: string, status = "open"): Promise<string> {
    const id = randomUUID();
    await inOrg(plain.pool, orgId, "spindle_worker", (tx) =>
      tx.query(
        `INSERT INTO recommendations (id, org_id, server_id, kind, subject, title, evidence, prediction, confidence, status, status_changed_at)
       VALUES ($1, $2, $3, 'read_cache_budget', $4, $5, $6, $7, $8, $9, CASE WHEN $9 = 'open' THEN NULL ELSE now() END)`,
        [
          id,
          orgId,
          serverId,
          `subject-${id}`,
          title,
          {
            metric: "miss-ratio curve of the read cache (scope /srv/db/**)",
            source: "cache_mrc: SHARDS sample of the host's accesses",
            window: { from: "2026-11-23T09:00:00.000Z", to: "2026-11-23T10:00:00.000Z" },
            chart: { view: "miss-ratio-curve", serverId, component: "read_cache:/srv/db/**" },
            facts: [],
          },
          {
            metric: "read_cache_hit_ratio",
            before: 0.5,
            after: 0.86,
            summary: `${title}: read hit ratio 50 % → 86 % on the curve of the last hour`,
            basis: "LRU hit ratio read off the curve",
          },
          { level: "medium", tolerance: 0.05, reason: "12,000 sampled accesses on the curve: realised within ±5 points" },
          status,
        ],
      ),
    );
    return id;
  }

  const notified = async (id: string) =>
    (await plain.pool.query<{ notified_at: Date | null }>("SELECT notified_at FROM recommendations WHERE id = $1", [id])).rows[0]!
      .notified_at;

  before(async () => {
    plain = await openPlainDatabase("recommendation_digest");
    await seedOrganization(plain.pool, orgA, serverA, []);
    await seedOrganization(plain.pool, orgB, serverB, []);
    http = await startHttpReceiver();
    smtp = await startSmtpReceiver();
    runner = await run({
      pgPool: plain.pool,
      concurrency: 2,
      pollInterval: 200,
      noHandleSignals: true,
      taskList: createTaskList({ pool: plain.pool, timeseriesMode: "plain", delivery: testDelivery }),
      parsedCronItems: [],
    });
    stopQueueing = startNotificationQueueing(runner, plain.pool, plain.db.url);
  });
  after(async () => {
    await stopQueueing?.();
    await runner?.stop();
    await smtp?.close();
    await http?.close();
    await plain?.close();
  });

  const mail = (orgId: string) => ({
    host: "127.0.0.1",
    port: smtp.port,
    security: "opportunistic",
    username: null,
    from: "spindle@example.com",
    to: [`ops@${orgId}.example.com`],
  });

  it("sends one digest per organisation and period through the channels that opted in, and only that organisation's", async () => {
    const mailA = await routedChannel(plain.pool, orgA, "Mail", "email", mail(orgA), { password: null });
    await routedChannel(plain.pool, orgA, "Hook", "webhook", { url: `${http.url}/hook-a` }, {});
    const pagerA = await routedChannel(
      plain.pool,
      orgA,
      "Pager",
      "pagerduty",
      { eventsUrl: `${http.url}/pagerduty` },
      { routingKey: "R0123456789abcdefR0123456789abcd" },
    );
    const mailB = await routedChannel(plain.pool, orgB, "Mail", "email", mail(orgB), { password: null });
    await inOrg(plain.pool, orgA, "spindle_console", async (tx) => {
      assert.equal((await optIn(tx, orgA, mailA.channel.id))?.recommendationDigest, true);
      await assert.rejects(optIn(tx, orgA, pagerA.channel.id), NotifyInputError);
      // Another organisation's channel is not there for org A's console.
      assert.equal(await optIn(tx, orgA, mailB.channel.id), null);
    });
    await inOrg(plain.pool, orgB, "spindle_console", (tx) => optIn(tx, orgB, mailB.channel.id));

    const raiseA = await recommendation(orgA, serverA, "Raise the read-cache budget from 256 MiB to 768 MiB");
    const dismissedA = await recommendation(orgA, serverA, "Dismissed advice", "dismissed");
    const raiseB = await recommendation(orgB, serverB, "Organisation B's own advice");

    const a = await digestOrganization(plain.pool, orgA, monday, settings);
    assert.equal(a.status, "queued");
    if (a.status !== "queued") return;
    assert.deepEqual(a.recommendationIds, [raiseA]);
    assert.equal(a.notificationIds.length, 1, "only the opted-in e-mail channel, not the webhook");
    await untilJobsMake(runner, () =>
      outboxRows(plain.pool, "id = ANY($1::uuid[])", [a.notificationIds]).then((rows) => rows[0]?.status === "sent"),
    );
    const [message] = await smtp.waitForMessages(1);
    assert.deepEqual(message!.to, [`ops@${orgA}.example.com`]);
    assert.equal(message!.subject, "1 new Spindle recommendation");
    const body = message!.raw.replace(/=\r?\n/g, "");
    assert.ok(body.includes("Raise the read-cache budget from 256 MiB to 768 MiB"), "what to change");
    assert.ok(body.includes("Why: miss-ratio curve of the read cache (scope /srv/db/**)"), "why");
    assert.ok(body.includes("read hit ratio 50 % =E2=86=92 86 %") || body.includes("read hit ratio 50 % → 86 %"), "the predicted effect");
    assert.ok(body.includes(`https://spindle.example.com/recommendations#recommendation-${raiseA}`), "the link to it");
    assert.ok(!body.includes("Dismissed advice") && !body.includes("Organisation B"), "only new, open, own recommendations");
    assert.equal(http.requests.filter((r) => r.path === "/hook-a").length, 0, "the webhook did not opt in");
    assert.ok(await notified(raiseA));
    assert.equal(await notified(dismissedA), null);
    assert.equal(await notified(raiseB), null, "org A's digest leaves org B's recommendations alone");

    // The same period again: nothing new. A new one waits for the next period, then goes alone.
    assert.equal((await digestOrganization(plain.pool, orgA, new Date(monday.getTime() + 60_000), settings)).status, "nothing-new");
    const later = await recommendation(orgA, serverA, "Exclude the backup directory");
    assert.equal((await digestOrganization(plain.pool, orgA, new Date(monday.getTime() + 3_600_000), settings)).status, "already-sent");
    assert.equal(await notified(later), null, "not sent, so not marked");
    const next = await digestOrganization(plain.pool, orgA, new Date(monday.getTime() + day * 1000), settings);
    assert.equal(next.status, "queued");
    assert.deepEqual(next.status === "queued" && next.recommendationIds, [later]);

    const b = await digestOrganization(plain.pool, orgB, monday, settings);
    assert.deepEqual(b.status === "queued" && b.recommendationIds, [raiseB]);
    const received = await smtp.waitForMessages(3);
    const toB = received.filter((m) => m.to.includes(`ops@${orgB}.example.com`));
    assert.equal(toB.length, 1);
    assert.ok(toB[0]!.raw.includes("Organisation B's own advice") && !toB[0]!.raw.includes("read-cache budget from 256"));
  });

  it("a crash before the commit sends nothing and loses nothing; two workers at once queue one digest", async () => {
    const orgC = "org-digest-c";
    const serverC = "7c3e4d5c-6a7b-4c8d-9e0f-1a2b3c4d5e6f";
    await seedOrganization(plain.pool, orgC, serverC, []);
    const channel = await routedChannel(plain.pool, orgC, "Mail", "email", mail(orgC), { password: null });
    await inOrg(plain.pool, orgC, "spindle_console", (tx) => optIn(tx, orgC, channel.channel.id));
    const id = await recommendation(orgC, serverC, "Defragment the hot table file");

    // The job's transaction dies after queueing (before notified_at and the commit).
    const client = await plain.pool.connect();
    await assert.rejects(
      withOrgTransaction(client, orgC, "spindle_worker", async (tx) => {
        const queued = await enqueueRecommendationDigest(tx, {
          orgId: orgC,
          periodStart: periodStartOf(monday, day),
          now: monday,
          items: [
            {
              recommendationId: id,
              serverId: serverC,
              hostname: "db-01",
              kind: "defragment_file",
              title: "Defragment the hot table file",
              why: "fragmentation scan",
              predicted: "extents 900 → 8",
              confidence: { level: "medium", reason: "scan" },
              linkPath: "/recommendations",
            },
          ],
        });
        assert.equal(queued.status, "queued");
        throw new Error("worker killed");
      }),
      /worker killed/,
    );
    client.release();
    assert.equal((await outboxRows(plain.pool, "org_id = $1", [orgC])).length, 0, "nothing queued survives the rollback");
    assert.equal(await notified(id), null, "and nothing is marked sent");

    const [first, second] = await Promise.all([
      digestOrganization(plain.pool, orgC, monday, settings),
      digestOrganization(plain.pool, orgC, monday, settings),
    ]);
    assert.deepEqual([first.status, second.status].sort(), ["nothing-new", "queued"]);
    const rows = await outboxRows(plain.pool, "org_id = $1", [orgC]);
    assert.equal(rows.length, 1);
    await untilJobsMake(runner, () => outboxRows(plain.pool, "org_id = $1", [orgC]).then((r) => r[0]?.status === "sent"));
    const messages = (await smtp.waitForMessages(4)).filter((m) => m.to.includes(`ops@${orgC}.example.com`));
    assert.equal(messages.length, 1);
  });
});
