// Issue 8's end-to-end test, every part real: telemetry sent as OTLP through the real gateway
// crosses a rule's threshold, the real worker (rollups, evaluation, outbox) fires, the e-mail
// arrives at a real SMTP server (smtp-server) and a Standard Webhooks request at an HTTP
// receiver that checks the signature itself; the value recovers and exactly one resolve
// follows; under a silence neither is sent; with the SMTP server down the firing waits in the
// outbox and arrives once, exactly once, when the server is back. Every wait is for an event
// (a message, a row), never for a span of time. Ports 55560–55561.
//
// Each scenario is its own organisation (its agent, rule, mail server and webhook receiver), so
// the three run at once against one gateway and one worker: each waits minutes for the worker's
// per-minute evaluations, and waiting side by side costs CI a third of waiting in turn.
import assert from "node:assert/strict";
import { createHmac, timingSafeEqual } from "node:crypto";
import { after, before, describe, test } from "node:test";
import pg from "pg";
import { createChannel, createRoute, registerSecretsKey } from "@spindle/notify";
import {
  startHttpReceiver,
  startSmtpReceiver,
  testSecretsOpener,
  unusedPort,
  writeTestSecretsKeyFile,
  type HttpReceiver,
  type ReceivedRequest,
  type SmtpReceiver,
} from "@spindle/notify/testing";
import { eventually } from "../support/agent";
import { GatewayProcess } from "../support/gateway";
import { PostgresCluster, queryRows } from "../support/postgres";
import { seedOrganisationWithToken } from "../support/seed";
import { WorkerProcess } from "../support/worker";

const cluster = new PostgresCluster(Number(process.env.SPINDLE_ALERTS_PG_PORT ?? 55560));
const databaseUrl = cluster.url("spindle");
const gateway = new GatewayProcess(Number(process.env.SPINDLE_ALERTS_GATEWAY_PORT ?? 55561), databaseUrl);
const signingSecret = `whsec_${Buffer.alloc(32, 42).toString("base64")}`;

let worker: WorkerProcess;
const scenarios: Scenario[] = [];

const query = <T extends pg.QueryResultRow>(sql: string, params: unknown[] = []) => queryRows<T>(databaseUrl, sql, params);

/** A Standard Webhooks signature check written here, not borrowed from the code under test. */
function verified(request: ReceivedRequest): boolean {
  const id = String(request.headers["webhook-id"]);
  const timestamp = String(request.headers["webhook-timestamp"]);
  if (Math.abs(Date.now() / 1000 - Number(timestamp)) > 300) return false;
  const key = Buffer.from(signingSecret.slice("whsec_".length), "base64");
  const expected = createHmac("sha256", key).update(`${id}.${timestamp}.${request.body}`).digest();
  return String(request.headers["webhook-signature"])
    .split(" ")
    .some((part) => {
      const [version, signature] = part.split(",");
      const given = Buffer.from(signature ?? "", "base64");
      return version === "v1" && given.length === expected.length && timingSafeEqual(given, expected);
    });
}

/**
 * One organisation with one enrolled agent whose spool backlog the test sets, e-mail and webhook
 * channels routed for critical alerts, and a rule on the backlog with no for-duration.
 */
class Scenario {
  readonly ruleName: string;
  orgId = "";
  serverId = "";
  smtp!: SmtpReceiver;
  smtpPort = 0;
  hooks!: HttpReceiver;
  /** The backlog the agent reports in its next batches. */
  backlog = 0;
  private credential = "";
  private sending = true;
  private sender: Promise<void> = Promise.resolve();

  constructor(private readonly slug: string) {
    this.ruleName = `Spool backlog (${slug})`;
  }

  async start(): Promise<void> {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      const seeded = await seedOrganisationWithToken(client, this.slug);
      this.orgId = seeded.orgId;
      // Enrolled as the agent enrols: its own credential for every batch.
      const enrolled = await fetch(`${gateway.url}/v1/enroll`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          token: seeded.token,
          machineId: `${this.slug}-machine`,
          hostname: this.slug,
          os: "linux",
          osVersion: "12",
          kernel: "6.1",
          arch: "amd64",
          agentVersion: "0.1.0",
        }),
      });
      assert.equal(enrolled.status, 200, await enrolled.clone().text());
      ({ credential: this.credential, serverId: this.serverId } = (await enrolled.json()) as { credential: string; serverId: string });
      this.smtpPort = await unusedPort();
      this.smtp = await startSmtpReceiver({ port: this.smtpPort });
      this.hooks = await startHttpReceiver();
      // The channels and routes as the console creates them (secrets sealed to the key the worker
      // holds, registered as the worker registers it).
      const email = await createChannel(client, {
        orgId: this.orgId,
        name: "On-call mail",
        kind: "email",
        createdBy: null,
        secrets: { password: null },
        config: {
          host: "127.0.0.1",
          port: this.smtpPort,
          security: "opportunistic",
          username: null,
          from: "spindle@example.com",
          to: ["ops@example.com"],
        },
      });
      const webhook = await createChannel(client, {
        orgId: this.orgId,
        name: "Receiver",
        kind: "webhook",
        createdBy: null,
        secrets: { signingSecret },
        config: { url: `${this.hooks.url}/spindle` },
      });
      for (const channel of [email.channel, webhook.channel]) {
        await createRoute(
          client,
          this.orgId,
          { channelId: channel.id, severities: ["critical"], scope: "organization", tag: null, serverId: null, notifyResolved: true },
          null,
        );
      }
      await client.query(
        `INSERT INTO alert_rules (org_id, name, signal, aggregation, comparison, threshold, window_seconds, for_seconds, resolve_seconds, no_data_seconds, scope, severity, note)
         VALUES ($1, $2, 'agent.spool_pending_batches', 'avg', '>', 30, 60, 0, 0, 600, 'organization', 'critical', 'Look at the gateway.')`,
        [this.orgId, this.ruleName],
      );
    } finally {
      await client.end();
    }
    this.sender = this.sendBatches();
  }

  async stop(): Promise<void> {
    this.sending = false;
    await this.sender.catch(() => undefined);
    await this.hooks?.close();
    await this.smtp?.close().catch(() => undefined);
  }

  mine = (request: ReceivedRequest) => request.body.includes(this.ruleName);
  eventsOf = (type: string) => this.hooks.requests.filter((r) => this.mine(r) && JSON.parse(r.body).type === type);
  mailsOf = (word: string) => this.smtp.messages.filter((m) => m.subject.includes(this.ruleName) && m.subject.startsWith(`[${word}`));

  /** The agent's part, as the agent sends it: its spool backlog every 2 s, OTLP/JSON, numbered batches. */
  private async sendBatches(): Promise<void> {
    let start = new Date();
    for (let seq = 1; this.sending; seq++) {
      await new Promise((resolve) => setTimeout(resolve, 2000));
      const end = new Date();
      const point = (value: number) => ({
        startTimeUnixNano: `${BigInt(start.getTime()) * 1_000_000n}`,
        timeUnixNano: `${BigInt(end.getTime()) * 1_000_000n}`,
        asInt: `${value}`,
      });
      const body = {
        resourceMetrics: [
          {
            resource: {
              attributes: [
                { key: "service.name", value: { stringValue: "spindle-agent" } },
                { key: "service.version", value: { stringValue: "0.1.0" } },
                { key: "host.name", value: { stringValue: this.slug } },
                { key: "os.type", value: { stringValue: "linux" } },
                { key: "spindle.batch.seq", value: { intValue: `${seq}` } },
              ],
            },
            scopeMetrics: [
              {
                scope: { name: "github.com/spindle-io/spindle/agent" },
                metrics: [
                  { name: "spindle.agent.spool.size", unit: "By", gauge: { dataPoints: [point(this.backlog * 40_000)] } },
                  { name: "spindle.agent.spool.batches", unit: "{batch}", gauge: { dataPoints: [point(this.backlog)] } },
                ],
              },
            ],
          },
        ],
      };
      const response = await fetch(`${gateway.url}/v1/metrics`, {
        method: "POST",
        headers: { authorization: `Bearer ${this.credential}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      if (response.status !== 200) throw new Error(`the gateway answered ${response.status}: ${await response.text()}`);
      start = end;
    }
  }

  /** The worker's next two evaluation ticks after now: whatever it would send by then, it has queued. */
  async twoMoreEvaluations(): Promise<void> {
    const [{ at }] = await query<{ at: Date }>(
      "SELECT coalesce(evaluated_at, 'epoch') AS at FROM alert_evaluation_progress WHERE org_id = $1",
      [this.orgId],
    );
    await eventually(
      "two more evaluations",
      async () => {
        const [row] = await query<{ at: Date }>("SELECT evaluated_at AS at FROM alert_evaluation_progress WHERE org_id = $1", [this.orgId]);
        return row && row.at.getTime() >= at.getTime() + 60_000 ? true : undefined;
      },
      180_000,
    );
    await eventually(
      "no notification of the rule waiting",
      async () => {
        const [row] = await query<{ n: string }>(
          "SELECT count(*) AS n FROM notifications WHERE org_id = $1 AND notice->'rule'->>'name' = $2 AND status IN ('pending', 'sending')",
          [this.orgId, this.ruleName],
        );
        return row!.n === "0" ? true : undefined;
      },
      120_000,
    );
  }
}

/** A started scenario, stopped after the file. */
async function scenario(slug: string): Promise<Scenario> {
  const started = new Scenario(slug);
  scenarios.push(started);
  await started.start();
  return started;
}

before(async () => {
  cluster.start();
  cluster.createMigratedDatabase();
  await gateway.start();
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  await registerSecretsKey(client, testSecretsOpener);
  await client.end();
  worker = new WorkerProcess(databaseUrl, {
    SPINDLE_ROLLUP_INTERVAL_SECONDS: "1",
    SPINDLE_NOTIFY_ALLOW_PRIVATE_TARGETS: "true",
    SPINDLE_CONSOLE_URL: "http://127.0.0.1:3201",
    SPINDLE_NOTIFY_RETRY_BASE_SECONDS: "1",
    SPINDLE_NOTIFY_RETRY_MAX_SECONDS: "3",
    SPINDLE_NOTIFY_SECRETS_KEY_FILE: writeTestSecretsKeyFile(),
  });
  worker.start();
});

after(async () => {
  await Promise.all(scenarios.map((s) => s.stop()));
  await worker?.stop();
  await gateway.stop();
  cluster.destroy();
});

async function withLogs(work: () => Promise<void>): Promise<void> {
  try {
    await work();
  } catch (error) {
    console.error(`worker output:\n${worker.output.slice(-6000)}\ngateway output:\n${gateway.output.slice(-3000)}`);
    throw error;
  }
}

describe("alert notifications", { concurrency: true }, () => {
  test("a crossed threshold fires: one e-mail and one signed webhook; the recovery sends exactly one resolve", () =>
    withLogs(async () => {
      const org = await scenario("alerts-fire");
      org.backlog = 50;
      await eventually("the firing e-mail", () => (org.mailsOf("FIRING").length > 0 ? true : undefined), 300_000);
      await eventually("the firing webhook", () => (org.eventsOf("spindle.alert.firing").length > 0 ? true : undefined), 60_000);
      const [firing] = org.eventsOf("spindle.alert.firing");
      assert.ok(verified(firing!), "the webhook is signed with the channel's secret");
      const data = JSON.parse(firing!.body).data;
      assert.equal(data.subject.serverId, org.serverId);
      assert.ok(data.value > 30 && data.value <= 50, `the mean backlog the agent reported: ${data.value}`);
      const text = org.mailsOf("FIRING")[0]!.raw.replace(/=\r\n/g, ""); // quoted-printable soft line breaks
      assert.match(text, /Value\s+\d+(\.\d+)? batches \(threshold > 30 batches\)/, "the value with its unit");
      assert.match(text, /Measured from\s+avg over 1 min: batches the agent has spooled/, "and what it is measured from");

      org.backlog = 0;
      await eventually("the resolve e-mail", () => (org.mailsOf("RESOLVED").length > 0 ? true : undefined), 300_000);
      await eventually("the resolve webhook", () => (org.eventsOf("spindle.alert.resolved").length > 0 ? true : undefined), 60_000);
      await org.twoMoreEvaluations();
      assert.equal(org.mailsOf("FIRING").length, 1, "one firing e-mail");
      assert.equal(org.mailsOf("RESOLVED").length, 1, "exactly one resolve e-mail");
      assert.equal(org.eventsOf("spindle.alert.firing").length, 1);
      assert.equal(org.eventsOf("spindle.alert.resolved").length, 1, "exactly one resolve webhook");
      assert.ok(org.eventsOf("spindle.alert.resolved").every(verified));
    }));

  test("a silence suppresses both the firing and the resolve; history keeps them, marked", () =>
    withLogs(async () => {
      const org = await scenario("alerts-silenced");
      const [silence] = await query<{ id: string }>(
        `INSERT INTO alert_silences (org_id, scope, starts_at, ends_at, comment) VALUES ($1, 'organization', now(), now() + interval '1 hour', 'e2e maintenance') RETURNING id::text`,
        [org.orgId],
      );
      org.backlog = 50;
      await eventually(
        "a silenced firing in history",
        async () => {
          const rows = await query(
            "SELECT 1 FROM alert_history WHERE org_id = $1 AND rule_name = $2 AND to_state = 'firing' AND silenced_by = $3",
            [org.orgId, org.ruleName, silence!.id],
          );
          return rows.length > 0 ? true : undefined;
        },
        300_000,
      );
      org.backlog = 0;
      await eventually(
        "a silenced resolve in history",
        async () => {
          const rows = await query(
            "SELECT 1 FROM alert_history WHERE org_id = $1 AND rule_name = $2 AND to_state = 'ok' AND silenced_by = $3",
            [org.orgId, org.ruleName, silence!.id],
          );
          return rows.length > 0 ? true : undefined;
        },
        300_000,
      );
      await org.twoMoreEvaluations();
      const suppressed = await query<{ n: string }>(
        "SELECT count(*) AS n FROM notifications WHERE org_id = $1 AND status = 'suppressed' AND notice->'rule'->>'name' = $2",
        [org.orgId, org.ruleName],
      );
      assert.equal(suppressed[0]!.n, "4", "firing and resolve, for each of the two channels, recorded as suppressed");
      assert.deepEqual(
        { mails: org.smtp.messages.length, hooks: org.hooks.requests.length },
        { mails: 0, hooks: 0 },
        "nothing was sent under the silence",
      );
    }));

  test("with the SMTP server down, the firing waits in the outbox and arrives exactly once when it is back", () =>
    withLogs(async () => {
      const org = await scenario("alerts-mail-down");
      await org.smtp.close();
      org.backlog = 50;
      await eventually(
        "the firing webhook while mail is down",
        () => (org.eventsOf("spindle.alert.firing").length > 0 ? true : undefined),
        300_000,
      );
      const [waiting] = await eventually(
        "the e-mail retried with the reason",
        async () => {
          const rows = await query<{ id: string; attempts: number; last_error: string | null; status: string }>(
            `SELECT n.id::text, n.attempts, n.last_error, n.status FROM notifications n JOIN notification_channels c ON c.id = n.channel_id
          WHERE n.org_id = $1 AND c.kind = 'email' AND n.notice->'rule'->>'name' = $2 AND n.notice->'state'->>'to' = 'firing' AND n.status <> 'suppressed'
          ORDER BY n.created_at DESC LIMIT 1`,
            [org.orgId, org.ruleName],
          );
          return rows[0] && rows[0].attempts >= 2 && rows[0].status === "pending" && rows[0].last_error ? rows : undefined;
        },
        120_000,
      );
      assert.match(waiting!.last_error!, /ECONNREFUSED|connect|refused/i);
      org.smtp = await startSmtpReceiver({ port: org.smtpPort });
      await eventually(
        "the e-mail after the outage",
        () => (org.smtp.messages.some((m) => m.subject.includes(org.ruleName)) ? true : undefined),
        120_000,
      );
      await eventually(
        "the row recorded sent",
        async () => {
          const [row] = await query<{ status: string }>("SELECT status FROM notifications WHERE id = $1", [waiting!.id]);
          return row!.status === "sent" ? true : undefined;
        },
        60_000,
      );
      await org.twoMoreEvaluations();
      const delivered = org.smtp.messages.filter((m) => (m.headers.get("x-spindle-notification-id") ?? "") === waiting!.id);
      assert.equal(delivered.length, 1, "delivered once, exactly once");
      assert.equal(org.smtp.messages.length, 1, "and nothing else of the rule arrived twice");
    }));
});
