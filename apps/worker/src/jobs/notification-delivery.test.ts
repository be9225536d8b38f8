// Notification delivery under graphile-worker with real parts: PostgreSQL, the LISTEN that
// queues jobs, an SMTP server (smtp-server) and HTTP receivers standing in for Slack, Teams,
// PagerDuty and a Standard Webhooks consumer that checks every signature itself.
import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";
import { after, before, describe, it } from "node:test";
import { sendTestNotification, type AlertNoticeInput } from "@spindle/notify";
import { startHttpReceiver, startSmtpReceiver, unusedPort, type HttpReceiver, type SmtpReceiver } from "@spindle/notify/testing";
import { run, type Runner } from "graphile-worker";
import { startNotificationQueueing } from "../notification-queueing.js";
import { createTaskList } from "../tasks.js";
import { openPlainDatabase, skipReason, type PlainDatabase } from "../test-support/telemetry.js";
import {
  enqueue,
  inOrg,
  jobsFor,
  outboxRows,
  routedChannel,
  seedOrganization,
  testDelivery,
  untilJobsMake,
  untilTrue,
} from "../test-support/notifications.js";
import { deliverNotification } from "./notification-delivery.js";

const orgA = "org-notify-a";
const orgB = "org-notify-b";
const serverA = "7d1c2b3a-4e5f-4a6b-8c7d-9e0f1a2b3c4d";
const serverB = "8e2d3c4b-5f6a-4b7c-9d8e-0f1a2b3c4d5e";
const routingKey = "R0123456789abcdefR0123456789abcd";

let transitions = 0;
function notice(overrides: Partial<AlertNoticeInput> = {}): AlertNoticeInput {
  return {
    orgId: orgA,
    transitionId: `transition-${++transitions}`,
    rule: { id: "rule-latency", name: "p99 read latency high" },
    severity: "critical",
    state: { from: "pending", to: "firing" },
    subject: { serverId: serverA, serverName: "db-01", device: "nvme0n1", tags: ["prod"] },
    value: 42.5,
    threshold: 20,
    comparison: ">",
    unit: "ms",
    basis: "p99 of eBPF block latency histograms, 5-minute window",
    startedAt: "2026-11-23T09:55:00.000Z",
    at: "2026-11-23T10:00:00.000Z",
    note: "Check the controller.",
    linkPath: `/servers/${serverA}?from=2026-11-23T09:30:00Z&to=2026-11-23T10:30:00Z`,
    silenced: false,
    ...overrides,
  };
}

/** The receiver's own check, from the Standard Webhooks spec, with no code of ours. */
function signatureValid(secret: string, headers: IncomingHttpHeaders, body: string): boolean {
  const key = Buffer.from(secret.slice("whsec_".length), "base64");
  const expected = createHmac("sha256", key).update(`${headers["webhook-id"]}.${headers["webhook-timestamp"]}.${body}`).digest("base64");
  return String(headers["webhook-signature"]).split(" ").includes(`v1,${expected}`);
}

// The timeout only turns a hang into a failure; every wait inside is for an event.
describe("notification delivery", { skip: skipReason, timeout: 120_000 }, () => {
  let plain: PlainDatabase;
  let runner: Runner;
  let stopQueueing: () => Promise<void>;
  let http: HttpReceiver;

  before(async () => {
    plain = await openPlainDatabase("notify_delivery");
    await seedOrganization(plain.pool, orgA, serverA, ["prod"]);
    await seedOrganization(plain.pool, orgB, serverB, ["prod"]);
    http = await startHttpReceiver();
    runner = await run({
      pgPool: plain.pool,
      concurrency: 4,
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
    await http?.close();
    await plain?.close();
  });

  const sentRows = (ids: string[]) => () =>
    outboxRows(plain.pool, "id = ANY($1::uuid[])", [ids]).then(
      (rows) => rows.every((r) => r.status === "sent") && rows.length === ids.length && rows,
    );

  it("delivers one firing alert to e-mail, Slack, Teams, PagerDuty and a signed webhook, then the resolve closes the PagerDuty incident", async () => {
    const smtp = await startSmtpReceiver();
    try {
      const mailChannel = await routedChannel(
        plain.pool,
        orgA,
        "Mail",
        "email",
        {
          host: "127.0.0.1",
          port: smtp.port,
          security: "opportunistic",
          username: null,
          from: "spindle@example.com",
          to: ["ops@example.com"],
        },
        { password: null },
      );
      await routedChannel(plain.pool, orgA, "Slack", "slack", {}, { webhookUrl: `${http.url}/slack/T0/B0/token` });
      await routedChannel(plain.pool, orgA, "Teams", "teams", {}, { webhookUrl: `${http.url}/teams/webhookb2/token` });
      await routedChannel(plain.pool, orgA, "Pager", "pagerduty", { eventsUrl: `${http.url}/pagerduty` }, { routingKey });
      const hook = await routedChannel(plain.pool, orgA, "Hook", "webhook", { url: `${http.url}/hook` }, {});
      const firing = await enqueue(plain.pool, notice());
      assert.equal(firing.queued.length, 5);
      await untilJobsMake(runner, sentRows(firing.queued.map((q) => q.notificationId)));

      const [mail] = await smtp.waitForMessages(1);
      const mailRow = firing.queued.find((q) => q.channelId === mailChannel.channel.id)!;
      assert.equal(mail!.headers.get("message-id"), `<${mailRow.notificationId}@notifications.spindle.invalid>`);
      assert.equal(mail!.subject, "[FIRING · critical] p99 read latency high on db-01 nvme0n1");
      // Quoted-printable wraps long lines with soft breaks ("=" at the end of a line).
      assert.ok(
        mail!.raw.replace(/=\r?\n/g, "").includes(`https://spindle.example.com/servers/${serverA}`),
        "the e-mail links to the chart",
      );

      const byPath = (prefix: string) => http.requests.filter((r) => r.path.startsWith(prefix));
      assert.equal(JSON.parse(byPath("/slack")[0]!.body).text, "[FIRING · critical] p99 read latency high on db-01 nvme0n1");
      assert.equal(JSON.parse(byPath("/teams")[0]!.body).attachments[0].contentType, "application/vnd.microsoft.card.adaptive");
      const trigger = JSON.parse(byPath("/pagerduty")[0]!.body);
      assert.equal(trigger.event_action, "trigger");
      assert.equal(trigger.routing_key, routingKey);
      const [webhook] = byPath("/hook");
      const hookRow = firing.queued.find((q) => q.channelId === hook.channel.id)!;
      assert.equal(webhook!.headers["webhook-id"], hookRow.notificationId);
      assert.ok(signatureValid(hook.generatedSigningSecret!, webhook!.headers, webhook!.body), "the webhook signature does not verify");
      assert.equal(JSON.parse(webhook!.body).type, "spindle.alert.firing");

      const resolved = await enqueue(plain.pool, notice({ state: { from: "firing", to: "ok" }, value: 3.1 }));
      await untilJobsMake(runner, sentRows(resolved.queued.map((q) => q.notificationId)));
      const resolve = JSON.parse(byPath("/pagerduty")[1]!.body);
      assert.deepEqual(resolve, { routing_key: routingKey, event_action: "resolve", dedup_key: trigger.dedup_key });
      assert.equal((await smtp.waitForMessages(2)).length, 2);
    } finally {
      await smtp.close();
      await plain.pool.query("DELETE FROM notification_channels WHERE org_id = $1", [orgA]);
    }
  });

  it("rides out an SMTP outage with backoff and delivers exactly once when the server is back", async () => {
    const port = await unusedPort();
    await routedChannel(
      plain.pool,
      orgA,
      "Mail during outage",
      "email",
      { host: "127.0.0.1", port, security: "opportunistic", username: null, from: "spindle@example.com", to: ["ops@example.com"] },
      { password: null },
    );
    let smtp: SmtpReceiver | undefined;
    try {
      const { queued } = await enqueue(plain.pool, notice());
      const id = queued[0]!.notificationId;
      const failing = await untilJobsMake(runner, async () => {
        const [row] = await outboxRows(plain.pool, "id = $1", [id]);
        return row!.attempts >= 3 && row!.status === "pending" && row;
      });
      assert.match(failing.last_error!, /ECONNREFUSED/);
      smtp = await startSmtpReceiver({ port });
      await untilJobsMake(runner, sentRows([id]));
      await untilTrue(async () => (await jobsFor(plain.pool, id)) === 0);
      const messages = await smtp.waitForMessages(1);
      assert.equal(messages.length, 1, "exactly one e-mail");
      assert.equal(messages[0]!.headers.get("message-id"), `<${id}@notifications.spindle.invalid>`);
    } finally {
      await smtp?.close();
      await plain.pool.query("DELETE FROM notification_channels WHERE org_id = $1", [orgA]);
    }
  });

  it("retries a webhook answering 503 with the same id, a fresh valid signature each time, until it accepts once", async () => {
    const start = http.requests.length;
    http.answerWith((request, index) =>
      request.path === "/flaky" && index < start + 2 ? { status: 503, body: "maintenance" } : { status: 200 },
    );
    try {
      const hook = await routedChannel(plain.pool, orgA, "Flaky", "webhook", { url: `${http.url}/flaky` }, {});
      const { queued } = await enqueue(plain.pool, notice());
      const id = queued[0]!.notificationId;
      const [row] = await untilJobsMake(runner, sentRows([id]));
      assert.equal(row!.attempts, 3);
      const attempts = http.requests.slice(start).filter((r) => r.path === "/flaky");
      assert.equal(attempts.length, 3);
      for (const attempt of attempts) {
        assert.equal(attempt.headers["webhook-id"], id);
        assert.ok(signatureValid(hook.generatedSigningSecret!, attempt.headers, attempt.body));
      }
    } finally {
      http.answerWith(() => ({ status: 200 }));
      await plain.pool.query("DELETE FROM notification_channels WHERE org_id = $1", [orgA]);
    }
  });

  it("fails at once, with the receiver's reason, when a receiver refuses the message", async () => {
    http.answerWith((request) => (request.path.startsWith("/gone/") ? { status: 404, body: "no_service" } : { status: 200 }));
    try {
      await routedChannel(plain.pool, orgA, "Gone", "slack", {}, { webhookUrl: `${http.url}/gone/T0/B0/token` });
      const { queued } = await enqueue(plain.pool, notice());
      const [row] = await untilJobsMake(runner, () =>
        outboxRows(plain.pool, "id = $1", [queued[0]!.notificationId]).then((rows) => rows[0]!.status === "failed" && rows),
      );
      assert.equal(row!.attempts, 1);
      assert.match(row!.last_error!, /answered 404: no_service/);
      assert.doesNotMatch(row!.last_error!, /token/, "the Slack URL's secret path stays out of the error");
    } finally {
      http.answerWith(() => ({ status: 200 }));
      await plain.pool.query("DELETE FROM notification_channels WHERE org_id = $1", [orgA]);
    }
  });

  it("sends a channel's test message through the same outbox", async () => {
    const hook = await routedChannel(plain.pool, orgA, "Tested", "webhook", { url: `${http.url}/tested` }, {});
    try {
      const { notificationId } = await inOrg(plain.pool, orgA, "spindle_console", (tx) =>
        sendTestNotification(tx, { orgId: orgA, channelId: hook.channel.id, requestedBy: null }),
      );
      await untilJobsMake(runner, sentRows([notificationId]));
      const request = http.requests.find((r) => r.path === "/tested")!;
      assert.equal(JSON.parse(request.body).type, "spindle.test");
      assert.equal(request.headers["webhook-id"], notificationId);
    } finally {
      await plain.pool.query("DELETE FROM notification_channels WHERE org_id = $1", [orgA]);
    }
  });

  it("never delivers another organisation's notification, whatever the job payload says", async () => {
    await routedChannel(plain.pool, orgB, "B's hook", "webhook", { url: `${http.url}/b` }, {});
    await plain.pool.query("ALTER TABLE notifications DISABLE TRIGGER notifications_queued");
    try {
      const { queued } = await enqueue(
        plain.pool,
        notice({ orgId: orgB, subject: { serverId: serverB, serverName: "db-01", device: null, tags: [] } }),
      );
      const id = queued[0]!.notificationId;
      const before = http.requests.length;
      const outcome = await deliverNotification(plain.pool, { orgId: orgA, notificationId: id }, testDelivery);
      assert.deepEqual(outcome, { kind: "finished", status: null });
      assert.equal(http.requests.length, before);
      const [row] = await outboxRows(plain.pool, "id = $1", [id]);
      assert.equal(row!.status, "pending");
      assert.equal(row!.attempts, 0);
      assert.equal((await deliverNotification(plain.pool, { orgId: orgB, notificationId: id }, testDelivery)).kind, "sent");
      assert.equal(http.requests.at(-1)!.headers["webhook-id"], id);
    } finally {
      await plain.pool.query("ALTER TABLE notifications ENABLE TRIGGER notifications_queued");
      await plain.pool.query("DELETE FROM notification_channels WHERE org_id = $1", [orgB]);
    }
  });
  it("fails, saying what to set, a notification whose sealed secrets this worker cannot open", async () => {
    await routedChannel(plain.pool, orgB, "Sealed hook", "webhook", { url: `${http.url}/sealed` }, {});
    await plain.pool.query("ALTER TABLE notifications DISABLE TRIGGER notifications_queued");
    try {
      const { queued } = await enqueue(
        plain.pool,
        notice({ orgId: orgB, subject: { serverId: serverB, serverName: "db-01", device: null, tags: [] } }),
      );
      const id = queued[0]!.notificationId;
      const before = http.requests.length;
      const outcome = await deliverNotification(plain.pool, { orgId: orgB, notificationId: id }, { ...testDelivery, secrets: null });
      assert.equal(outcome.kind, "failed");
      assert.match(
        (outcome as { error: string }).error,
        /sealed and this worker has no key to open them: set SPINDLE_NOTIFY_SECRETS_KEY_FILE/,
      );
      assert.equal(http.requests.length, before, "nothing was sent");
    } finally {
      await plain.pool.query("ALTER TABLE notifications ENABLE TRIGGER notifications_queued");
      await plain.pool.query("DELETE FROM notification_channels WHERE org_id = $1", [orgB]);
    }
  });
});
