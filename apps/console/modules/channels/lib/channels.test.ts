// Channels and routes through the console's operations on a real database, as spindle_console:
// secrets go in and only hints come out, each change is audited, "send test" queues a real
// outbox row, viewers are refused and another organisation's channels are out of reach.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { registerSecretsKey } from "@spindle/notify";
import { testSecretsOpener } from "@spindle/notify/testing";
import { createOrganisation } from "@/test-support/fixtures";
import { createTestDatabase, skipWithoutDatabase, type TestDatabase } from "@/test-support/test-database";
import { listAuditLog } from "@/modules/audit/lib/list-audit-log";
import {
  createChannelFor,
  createRouteFor,
  deleteChannelFor,
  deleteRouteFor,
  listChannelSummaries,
  readDelivery,
  sendTestFor,
  updateChannelFor,
  type ChannelActor,
} from "./channels";

const slackUrl = "https://hooks.slack.example/services/T000/B000/secret-token-abcd";

describe("notification channels in the console", { skip: skipWithoutDatabase }, () => {
  let db: TestDatabase;
  let owner: ChannelActor;
  let viewer: ChannelActor;
  let other: ChannelActor;

  before(async () => {
    db = await createTestDatabase();
    const acme = await createOrganisation(db.prisma, "Acme");
    owner = { ...acme, role: "owner" };
    const suffix = randomUUID().slice(0, 8);
    const user = await db.prisma.user.create({ data: { id: `user-${suffix}`, name: "A viewer", email: `viewer-${suffix}@example.com` } });
    await db.prisma.member.create({ data: { id: `member-${suffix}`, organizationId: acme.orgId, userId: user.id, role: "viewer" } });
    viewer = { orgId: acme.orgId, userId: user.id, role: "viewer" };
    other = { ...(await createOrganisation(db.prisma, "Beta")), role: "owner" };
    await assert.rejects(
      createChannelFor(db, owner, { name: "Too early", kind: "slack", config: {}, secrets: { webhookUrl: slackUrl } }),
      { status: 503, message: /no worker has registered a key/ },
      "secrets are never saved unsealed",
    );
    await registerSecretsKey(db.pool, testSecretsOpener);
  });
  after(() => db?.drop());

  it("keeps secrets out of every answer and generates a webhook's signing secret once", async () => {
    const { channel } = await createChannelFor(db, owner, {
      name: "Ops Slack",
      kind: "slack",
      config: {},
      secrets: { webhookUrl: slackUrl },
    });
    assert.deepEqual(channel.secretHints, { webhookUrl: "https://hooks.slack.example/…abcd" });
    const hook = await createChannelFor(db, owner, {
      name: "Receiver",
      kind: "webhook",
      config: { url: "https://hooks.example.com/spindle" },
      secrets: {},
    });
    assert.match(hook.generatedSigningSecret ?? "", /^whsec_/);
    const listed = JSON.stringify(await listChannelSummaries(db, owner.orgId));
    assert.ok(!listed.includes("secret-token") && !listed.includes(hook.generatedSigningSecret!), "no secret in the list");
    assert.match(listed, /…abcd/);
  });

  it("refuses bad settings with the field, and a duplicate name", async () => {
    await assert.rejects(
      createChannelFor(db, owner, { name: "Mail", kind: "email", config: { host: "smtp", port: 0 }, secrets: {} }),
      (e: { status: number; extra: { errors: { path: string }[] } }) => e.status === 400 && e.extra.errors.length > 0,
    );
    await assert.rejects(createChannelFor(db, owner, { name: "ops slack", kind: "slack", config: {}, secrets: { webhookUrl: slackUrl } }), {
      status: 400,
    });
  });

  it("updates, routes, tests and deletes, each change in the audit log", async () => {
    const channel = (await listChannelSummaries(db, owner.orgId)).find((c) => c.name === "Ops Slack")!;
    const renamed = await updateChannelFor(db, owner, channel.id, { name: "Ops channel", enabled: false });
    assert.equal(renamed.enabled, false);
    const routed = await createRouteFor(db, owner, channel.id, {
      severities: ["critical", "warning"],
      scope: "organization",
      tag: null,
      serverId: null,
      notifyResolved: true,
    });
    assert.equal(routed.routes.length, 1);
    await assert.rejects(
      createRouteFor(db, owner, channel.id, { severities: [], scope: "organization", tag: null, serverId: null, notifyResolved: true }),
      { status: 400 },
    );
    const { notificationId } = await sendTestFor(db, owner, channel.id);
    const delivery = await readDelivery(db, owner.orgId, notificationId);
    assert.equal(delivery.purpose, "test");
    assert.ok(["pending", "sending", "sent", "failed"].includes(delivery.status));
    await assert.rejects(readDelivery(db, other.orgId, notificationId), { status: 404 });
    await deleteRouteFor(db, owner, routed.routes[0]!.id);
    await deleteChannelFor(db, owner, channel.id);
    const actions = (await listAuditLog(db, owner.orgId)).entries
      .map((e) => e.action)
      .filter((a) => a.startsWith("notification_"))
      .sort();
    assert.deepEqual(actions, [
      "notification_channel.created",
      "notification_channel.created",
      "notification_channel.deleted",
      "notification_channel.tested",
      "notification_channel.updated",
      "notification_route.created",
      "notification_route.deleted",
    ]);
    const audit = JSON.stringify((await listAuditLog(db, owner.orgId)).entries);
    assert.ok(!audit.includes("secret-token"), "no secret in the audit log");
  });

  it("opts a channel in to the recommendations digest, audited with the value; never a PagerDuty channel or another organisation's", async () => {
    const { channel } = await createChannelFor(db, owner, {
      name: "Digest hook",
      kind: "webhook",
      config: { url: "https://hooks.example.com/digest" },
      secrets: {},
    });
    assert.equal(channel.recommendationDigest, false, "off until someone opts in");
    const on = await updateChannelFor(db, owner, channel.id, { recommendationDigest: true });
    assert.equal(on.recommendationDigest, true);
    const entry = (await listAuditLog(db, owner.orgId)).entries.find(
      (e) => e.action === "notification_channel.updated" && e.target === channel.id,
    );
    assert.match(JSON.stringify(entry), /"recommendationDigest":true/);
    const pager = await createChannelFor(db, owner, {
      name: "Pager",
      kind: "pagerduty",
      config: {},
      secrets: { routingKey: "R0123456789abcdefR0123456789abcd" },
    });
    await assert.rejects(updateChannelFor(db, owner, pager.channel.id, { recommendationDigest: true }), { status: 400 });
    await assert.rejects(updateChannelFor(db, other, channel.id, { recommendationDigest: false }), { status: 404 });
    assert.equal((await listChannelSummaries(db, owner.orgId)).find((c) => c.id === channel.id)?.recommendationDigest, true);
  });

  it("lets viewers read but not change or test, and keeps organisations apart", async () => {
    const [channel] = await listChannelSummaries(db, viewer.orgId);
    assert.ok(channel);
    await assert.rejects(createChannelFor(db, viewer, { name: "x", kind: "slack", config: {}, secrets: { webhookUrl: slackUrl } }), {
      status: 403,
    });
    await assert.rejects(sendTestFor(db, viewer, channel.id), { status: 403 });
    await assert.rejects(updateChannelFor(db, other, channel.id, { enabled: false }), { status: 404 });
    await assert.rejects(deleteChannelFor(db, other, channel.id), { status: 404 });
    await assert.rejects(sendTestFor(db, other, channel.id), { status: 404 });
    assert.deepEqual(await listChannelSummaries(db, other.orgId), []);
  });
});
