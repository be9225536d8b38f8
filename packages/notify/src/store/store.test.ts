// Channels, routes and the outbox against a real migrated PostgreSQL, under the service roles
// and row-level security the console and the worker use.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { withOrgTransaction, type ServiceRole } from "@spindle/db";
import { createTestDatabase, testDatabaseSkipReason, type TestDatabase } from "@spindle/db/testing";
import pg from "pg";
import { NotifyInputError } from "../input-error.js";
import { secretsBinding } from "../secrets/sealed-secrets.js";
import { testSecretsOpener } from "../testing.js";
import { firingNotice, serverA } from "../test-support/notices.js";
import { createChannel, createRoute, deleteChannel, listChannels, listRoutes, updateChannel } from "./channels.js";
import { parseAlertNotice } from "../notice.js";
import { renderNotification } from "../render/index.js";
import { enqueueAlertNotifications, readNotification, sendTestNotification } from "./outbox.js";
import { enqueueTransitionGroup } from "./transitions.js";
import type { Queryable } from "./queryable.js";
import { registerSecretsKey, SecretsKeyMissingError } from "./secrets-keys.js";

const orgA = "org-a";
const orgB = "org-b";
const serverB = "5a4b3c2d-1e0f-4a9b-8c7d-6e5f4a3b2c1d";
const routingKey = "R0123456789abcdefR0123456789abcd";

describe("notification store", { skip: testDatabaseSkipReason() }, () => {
  let db: TestDatabase;
  let client: pg.Client;
  const as = <T>(org: string, role: ServiceRole, work: (tx: Queryable) => Promise<T>) => withOrgTransaction(client, org, role, work);
  const console_ = <T>(org: string, work: (tx: Queryable) => Promise<T>) => as(org, "spindle_console", work);
  const worker = <T>(org: string, work: (tx: Queryable) => Promise<T>) => as(org, "spindle_worker", work);

  before(async () => {
    db = await createTestDatabase({ label: "notify_store" });
    client = new pg.Client({ connectionString: db.url });
    await client.connect();
    await assert.rejects(
      withOrgTransaction(client, orgA, "spindle_console", (tx) =>
        createChannel(tx, {
          orgId: orgA,
          name: "Early",
          kind: "webhook",
          config: { url: "https://receiver.example.com/hook" },
          secrets: {},
          createdBy: null,
        }),
      ),
      SecretsKeyMissingError,
      "before any worker registered its key, nothing can be sealed and nothing is saved in the clear",
    );
    await registerSecretsKey(client, testSecretsOpener);
    for (const [org, server, tags] of [
      [orgA, serverA, ["prod", "db"]],
      [orgB, serverB, ["prod"]],
    ] as const) {
      await client.query("INSERT INTO organizations (id, name, slug) VALUES ($1, $1, $1)", [org]);
      await client.query("INSERT INTO servers (id, org_id, machine_id, hostname, os, tags) VALUES ($1, $2, $4, 'db-01', 'linux', $3)", [
        server,
        org,
        tags,
        `machine-${org}`,
      ]);
    }
  });
  after(async () => {
    await client?.end();
    await db?.drop();
  });

  const webhookChannel = (org: string, name: string) =>
    console_(org, (tx) =>
      createChannel(tx, {
        orgId: org,
        name,
        kind: "webhook",
        config: { url: "https://receiver.example.com/hook" },
        secrets: {},
        createdBy: null,
      }),
    );

  it("keeps secrets server-side: the console writes them, reads hints, and cannot select them", async () => {
    const { channel, generatedSigningSecret } = await webhookChannel(orgA, "Receiver");
    assert.match(generatedSigningSecret!, /^whsec_/);
    assert.deepEqual(channel.secretHints, { signingSecret: `whsec_…${generatedSigningSecret!.slice(-4)}` });
    assert.equal("secrets" in channel, false);
    await assert.rejects(
      console_(orgA, (tx) => tx.query("SELECT secrets FROM notification_channels")),
      /permission denied/,
    );
    const [listed] = await console_(orgA, (tx) => listChannels(tx, orgA));
    assert.equal(listed!.id, channel.id);

    const updated = await console_(orgA, (tx) =>
      updateChannel(tx, {
        orgId: orgA,
        id: channel.id,
        name: "Receiver 2",
        secrets: { signingSecret: `whsec_${Buffer.alloc(24, 1).toString("base64")}` },
      }),
    );
    assert.equal(updated!.name, "Receiver 2");
    assert.equal(updated!.secretHints.signingSecret, `whsec_…${Buffer.alloc(24, 1).toString("base64").slice(-4)}`);
    const stored = await worker(orgA, (tx) => tx.query("SELECT secrets FROM notification_channels WHERE id = $1", [channel.id]));
    const sealed = stored.rows[0].secrets;
    assert.equal(sealed.kid, testSecretsOpener.kid);
    assert.doesNotMatch(JSON.stringify(sealed), /whsec_/, "sealed at rest: the database holds no secret in the clear");
    assert.deepEqual(
      testSecretsOpener.open(secretsBinding(orgA, channel.id), sealed),
      { signingSecret: `whsec_${Buffer.alloc(24, 1).toString("base64")}` },
      "the worker, which sends, opens them with its key",
    );
    const other = await webhookChannel(orgA, "Other");
    assert.throws(
      () => testSecretsOpener.open(secretsBinding(orgA, other.channel.id), sealed),
      /do not open/,
      "copied to another channel, they do not open",
    );
  });

  it("refuses bad settings with every problem named, and a second channel of the same name", async () => {
    const error = await console_(orgA, (tx) =>
      createChannel(tx, {
        orgId: orgA,
        name: "Pager",
        kind: "pagerduty",
        config: { eventsUrl: "ftp://x" },
        secrets: { routingKey: "short" },
        createdBy: null,
      }),
    ).catch((e: unknown) => e);
    assert.ok(error instanceof NotifyInputError);
    assert.deepEqual(
      error.problems.map((p) => p.split(":")[0]),
      ["config.eventsUrl", "secrets.routingKey"],
    );
    await console_(orgA, (tx) =>
      createChannel(tx, { orgId: orgA, name: "Pager", kind: "pagerduty", config: {}, secrets: { routingKey }, createdBy: null }),
    );
    await assert.rejects(
      console_(orgA, (tx) =>
        createChannel(tx, { orgId: orgA, name: "pager", kind: "pagerduty", config: {}, secrets: { routingKey }, createdBy: null }),
      ),
      /a channel named "pager" already exists/,
    );
  });

  it("routes by severity and scope, once per channel and transition, and records silenced ones as suppressed", async () => {
    const { channel: pager } = await webhookChannel(orgA, "Critical pager");
    const { channel: chat } = await webhookChannel(orgA, "Chat");
    const { channel: dbTeam } = await webhookChannel(orgA, "DB team");
    await console_(orgA, async (tx) => {
      await createRoute(
        tx,
        orgA,
        { channelId: pager.id, severities: ["critical"], scope: "organization", tag: null, serverId: null, notifyResolved: true },
        null,
      );
      await createRoute(
        tx,
        orgA,
        { channelId: chat.id, severities: ["warning", "critical"], scope: "tag", tag: "prod", serverId: null, notifyResolved: false },
        null,
      );
      await createRoute(
        tx,
        orgA,
        {
          channelId: dbTeam.id,
          severities: ["info", "warning", "critical"],
          scope: "server",
          tag: null,
          serverId: serverA,
          notifyResolved: true,
        },
        null,
      );
    });
    const warning = firingNotice({ transitionId: "t-warning", severity: "warning" });
    const first = await worker(orgA, (tx) => enqueueAlertNotifications(tx, warning));
    assert.deepEqual(first.queued.map((q) => q.channelId).sort(), [chat.id, dbTeam.id].sort());
    const replay = await worker(orgA, (tx) => enqueueAlertNotifications(tx, warning));
    assert.deepEqual(replay, { queued: [], suppressed: 0, alreadyQueued: 2 });

    const resolved = await worker(orgA, (tx) =>
      enqueueAlertNotifications(tx, firingNotice({ transitionId: "t-resolved", state: { from: "firing", to: "ok" } })),
    );
    assert.deepEqual(resolved.queued.map((q) => q.channelId).sort(), [pager.id, dbTeam.id].sort(), "chat asked for no resolves");

    const silenced = await worker(orgA, (tx) =>
      enqueueAlertNotifications(tx, firingNotice({ transitionId: "t-silenced", silenced: true })),
    );
    assert.deepEqual(silenced, { queued: [], suppressed: 3, alreadyQueued: 0 });
    const statuses = await worker(orgA, (tx) => tx.query("SELECT DISTINCT status FROM notifications WHERE transition_id = 't-silenced'"));
    assert.deepEqual(statuses.rows, [{ status: "suppressed" }]);

    await console_(orgA, (tx) => updateChannel(tx, { orgId: orgA, id: dbTeam.id, enabled: false }));
    const afterDisable = await worker(orgA, (tx) =>
      enqueueAlertNotifications(tx, firingNotice({ transitionId: "t-disabled", severity: "info" })),
    );
    assert.deepEqual(afterDisable.queued, [], "a disabled channel gets nothing");
    await console_(orgA, (tx) => deleteChannel(tx, orgA, dbTeam.id));
    assert.equal(
      (await console_(orgA, (tx) => listRoutes(tx, orgA))).some((r) => r.channelId === dbTeam.id),
      false,
      "its routes went with it",
    );
  });

  it("announces a queued notification to listeners when the transaction commits, and not on rollback", async () => {
    const listener = new pg.Client({ connectionString: db.url });
    await listener.connect();
    try {
      const heard: Array<{ orgId: string; notificationId: string }> = [];
      listener.on("notification", (m) => heard.push(JSON.parse(m.payload!)));
      await listener.query("LISTEN spindle_notification_queued");
      const { channel } = await webhookChannel(orgA, "Listened");
      await console_(orgA, (tx) =>
        createRoute(
          tx,
          orgA,
          { channelId: channel.id, severities: ["info"], scope: "organization", tag: null, serverId: null, notifyResolved: true },
          null,
        ),
      );
      await worker(orgA, async (tx) => {
        await enqueueAlertNotifications(tx, firingNotice({ transitionId: "t-rolled-back", severity: "info" }));
        throw new Error("the engine's transaction fails");
      }).catch(() => undefined);
      const queued = await worker(orgA, (tx) => enqueueAlertNotifications(tx, firingNotice({ transitionId: "t-heard", severity: "info" })));
      const { notificationId } = queued.queued[0]!;
      await new Promise<void>((resolve) => {
        const check = () => (heard.some((h) => h.notificationId === notificationId) ? resolve() : listener.once("notification", check));
        check();
      });
      assert.deepEqual(heard, [{ orgId: orgA, notificationId }], "only the committed one, with its organisation");
    } finally {
      await listener.end();
    }
  });

  it("keeps organisations apart: routes, channels, tests and reads never cross", async () => {
    const { channel: channelB } = await webhookChannel(orgB, "B's receiver");
    await console_(orgB, (tx) =>
      createRoute(
        tx,
        orgB,
        {
          channelId: channelB.id,
          severities: ["info", "warning", "critical"],
          scope: "organization",
          tag: null,
          serverId: null,
          notifyResolved: true,
        },
        null,
      ),
    );
    // A's notice never reaches B's organisation-wide route.
    const a = await worker(orgA, (tx) => enqueueAlertNotifications(tx, firingNotice({ transitionId: "t-isolated" })));
    assert.equal(
      a.queued.some((q) => q.channelId === channelB.id),
      false,
    );
    // A transaction of A that claims to carry B's notice sees none of B's routes (row-level security).
    const crossed = await worker(orgA, (tx) => enqueueAlertNotifications(tx, firingNotice({ orgId: orgB, transitionId: "t-crossed" })));
    assert.deepEqual(crossed.queued, []);
    // A route of A cannot name B's channel or B's server.
    await assert.rejects(
      console_(orgA, (tx) =>
        createRoute(
          tx,
          orgA,
          { channelId: channelB.id, severities: ["info"], scope: "organization", tag: null, serverId: null, notifyResolved: true },
          null,
        ),
      ),
      /channelId: no such channel/,
    );
    const { channel: channelA } = await webhookChannel(orgA, "A's own");
    await assert.rejects(
      console_(orgA, (tx) =>
        createRoute(
          tx,
          orgA,
          { channelId: channelA.id, severities: ["info"], scope: "server", tag: null, serverId: serverB, notifyResolved: true },
          null,
        ),
      ),
      /serverId: no such server/,
    );
    // "Send test" and reads by id stay inside the organisation.
    await assert.rejects(
      console_(orgA, (tx) => sendTestNotification(tx, { orgId: orgA, channelId: channelB.id, requestedBy: null })),
      /no channel .* in this organisation/,
    );
    const { notificationId } = await console_(orgB, (tx) =>
      sendTestNotification(tx, { orgId: orgB, channelId: channelB.id, requestedBy: null }),
    );
    assert.equal(await console_(orgA, (tx) => readNotification(tx, orgA, notificationId)), null);
    assert.equal(await console_(orgA, (tx) => updateChannel(tx, { orgId: orgA, id: channelB.id, enabled: false })), null);
    assert.equal(await console_(orgA, (tx) => deleteChannel(tx, orgA, channelB.id)), false);
    const test = await console_(orgB, (tx) => readNotification(tx, orgB, notificationId));
    assert.equal(test?.status, "pending");
    assert.equal(test?.purpose, "test");
  });

  it("turns the alert engine's transition group into one notice per subject whose change notifies", async () => {
    const { channel } = await webhookChannel(orgA, "Engine hook");
    await console_(orgA, (tx) =>
      createRoute(
        tx,
        orgA,
        { channelId: channel.id, severities: ["warning"], scope: "tag", tag: "db", serverId: null, notifyResolved: true },
        null,
      ),
    );
    const at = new Date("2026-11-23T11:00:00Z");
    const base = { serverId: serverA, value: 91, silencedBy: null };
    const group = {
      orgId: orgA,
      ruleId: "rule-fill",
      ruleName: "Disk filling up",
      signal: "fs.used_ratio",
      severity: "warning" as const,
      comparison: ">" as const,
      threshold: 90,
      unit: "%",
      at,
      note: "Grow the volume.",
      transitions: [
        {
          ...base,
          historyId: "h-firing",
          component: "",
          from: "pending" as const,
          to: "firing" as const,
          startedAt: new Date("2026-11-23T10:55:00Z"),
        },
        { ...base, historyId: "h-pending", component: "sdb", from: "ok" as const, to: "pending" as const },
        { ...base, historyId: "h-cleared", component: "sdc", from: "pending" as const, to: "ok" as const },
        { ...base, historyId: "h-back", component: "sdd", from: "no_data" as const, to: "ok" as const, value: null },
        {
          ...base,
          historyId: "h-silenced",
          component: "sde",
          from: "firing" as const,
          to: "no_data" as const,
          value: null,
          silencedBy: "silence-1",
        },
      ],
    };
    const result = await worker(orgA, (tx) => enqueueTransitionGroup(tx, group));
    // Other channels of this organisation match too (the tag prod route of "Chat"): count this one's.
    assert.equal(
      result.queued.filter((q) => q.channelId === channel.id).length,
      2,
      "firing and the return from no data; pending and a cleared pending notify no one",
    );
    const again = await worker(orgA, (tx) => enqueueTransitionGroup(tx, group));
    assert.equal(again.queued.length, 0, "a replayed group queues nothing");
    const { rows } = await worker(orgA, (tx) =>
      tx.query("SELECT transition_id, status, notice FROM notifications WHERE channel_id = $1 ORDER BY transition_id", [channel.id]),
    );
    assert.deepEqual(
      rows.map((r) => [r.transition_id, r.status]),
      [
        ["h-back", "pending"],
        ["h-firing", "pending"],
        ["h-silenced", "suppressed"],
      ],
    );
    const firing = rows.find((r) => r.transition_id === "h-firing")!.notice;
    assert.deepEqual(firing.subject, { serverId: serverA, serverName: "db-01", device: null, tags: ["prod", "db"] });
    assert.equal(firing.startedAt, "2026-11-23T10:55:00.000Z");
    assert.equal(firing.linkPath, `/servers/${serverA}?from=2026-11-23T10%3A00%3A00.000Z&to=2026-11-23T12%3A00%3A00.000Z`);
    assert.deepEqual([firing.value, firing.threshold, firing.unit, firing.basis], [91, 90, "%", "signal fs.used_ratio"]);
    assert.equal(rows.find((r) => r.transition_id === "h-back")!.notice.startedAt, null);
  });

  it("groups many subjects of one rule changing together into one message per channel, but one PagerDuty event each", async () => {
    const servers: string[] = [];
    for (let i = 0; i < 30; i++) {
      const { rows } = await client.query(
        "INSERT INTO servers (org_id, machine_id, hostname, os, tags) VALUES ($1, $2, $3, 'linux', '{fleet}') RETURNING id::text",
        [orgA, `fleet-machine-${i}`, `fleet-${String(i).padStart(2, "0")}`],
      );
      servers.push(rows[0].id);
    }
    const { channel: hook } = await webhookChannel(orgA, "Fleet hook");
    const { channel: pager } = await console_(orgA, (tx) =>
      createChannel(tx, { orgId: orgA, name: "Fleet pager", kind: "pagerduty", config: {}, secrets: { routingKey }, createdBy: null }),
    );
    for (const channelId of [hook.id, pager.id]) {
      await console_(orgA, (tx) =>
        createRoute(
          tx,
          orgA,
          { channelId, severities: ["critical"], scope: "tag", tag: "fleet", serverId: null, notifyResolved: true },
          null,
        ),
      );
    }
    // 28 servers go offline in one evaluation and 2 come back.
    const group = {
      orgId: orgA,
      ruleId: "rule-offline",
      ruleName: "Agent offline",
      signal: "agent.seconds_since_data",
      severity: "critical" as const,
      comparison: ">" as const,
      threshold: 180,
      unit: "s",
      at: new Date("2026-11-23T12:00:00Z"),
      note: "Check the agents.",
      transitions: servers.map((serverId, i) =>
        i < 28
          ? {
              historyId: `off-${String(i).padStart(2, "0")}`,
              serverId,
              component: "",
              from: "pending" as const,
              to: "firing" as const,
              value: 200 + i,
              silencedBy: null,
            }
          : { historyId: `back-${i}`, serverId, component: "", from: "firing" as const, to: "ok" as const, value: 5, silencedBy: null },
      ),
    };
    const result = await worker(orgA, (tx) => enqueueTransitionGroup(tx, group));
    assert.equal(
      result.queued.filter((q) => q.channelId === hook.id).length,
      2,
      "the webhook gets one message for the 28 firings and one for the 2 resolves",
    );
    assert.equal(
      result.queued.filter((q) => q.channelId === pager.id).length,
      30,
      "PagerDuty gets one event per alert, each its own incident",
    );
    assert.equal(
      (await worker(orgA, (tx) => enqueueTransitionGroup(tx, group))).queued.length,
      0,
      "a replayed group forms the same groups and queues nothing",
    );

    const { rows } = await worker(orgA, (tx) =>
      tx.query("SELECT transition_id, notice FROM notifications WHERE channel_id = $1 ORDER BY transition_id", [hook.id]),
    );
    assert.deepEqual(
      rows.map((r) => r.transition_id),
      ["back-28", "off-00"],
    );
    const firing = parseAlertNotice(rows[1].notice);
    assert.equal(firing.also.length, 25, "the most a message lists");
    assert.equal(firing.alsoUnlisted, 2, "the rest are counted");
    assert.deepEqual(new Set([firing.subject.serverName, ...firing.also.map((a) => a.subject.serverName)]).size, 26);
    const mail = renderNotification(
      { id: "9f8e7d6c-5b4a-4c3d-8e2f-1a0b9c8d7e6f", purpose: "alert", channelName: "Fleet", notice: firing },
      {
        kind: "email",
        config: {
          host: "smtp.example.com",
          port: 587,
          security: "starttls",
          username: null,
          from: "s@example.com",
          to: ["ops@example.com"],
        },
        secrets: { password: null },
      },
      { consoleUrl: "https://spindle.example.com" },
    );
    assert.equal(mail.transport === "smtp" && mail.subject, "[FIRING · critical] Agent offline on fleet-00 and 27 more");
    assert.ok(mail.transport === "smtp" && mail.text.includes("28 subjects changed to FIRING in the same evaluation"));
    assert.ok(mail.transport === "smtp" && mail.text.includes("- fleet-25: 225 s (threshold > 180 s)"), "each subject with its own value");
    assert.ok(mail.transport === "smtp" && mail.text.includes("- and 2 more, not listed"));
  });

  it("refuses a notice with a bad field, naming it, before writing anything", async () => {
    await assert.rejects(
      worker(orgA, (tx) =>
        enqueueAlertNotifications(tx, { ...firingNotice(), severity: "fatal", linkPath: "https://evil.example" } as never),
      ),
      /invalid alert notice: severity: .*; linkPath: linkPath is a path inside the console/,
    );
  });
});
