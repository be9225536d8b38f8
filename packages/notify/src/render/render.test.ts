import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ChannelSettings } from "../channel-kinds.js";
import { maxGroupedSubjects, type AlertNotice } from "../notice.js";
import { firingNotice } from "../test-support/notices.js";
import { renderNotification } from "./index.js";
import type { EmailMessage, HttpMessage } from "./message.js";

const context = { consoleUrl: "https://spindle.example.com" };
const id = "9f8e7d6c-5b4a-4c3d-8e2f-1a0b9c8d7e6f";
const routingKey = "R0123456789abcdefR0123456789abcd";

const settings = {
  email: {
    kind: "email",
    config: {
      host: "smtp.example.com",
      port: 587,
      security: "starttls",
      username: null,
      from: "spindle@example.com",
      to: ["ops@example.com"],
    },
    secrets: { password: null },
  },
  slack: { kind: "slack", config: {}, secrets: { webhookUrl: "https://hooks.slack.com/services/T/B/secret" } },
  teams: { kind: "teams", config: {}, secrets: { webhookUrl: "https://example.webhook.office.com/webhookb2/secret" } },
  pagerduty: { kind: "pagerduty", config: { eventsUrl: "https://events.pagerduty.com/v2/enqueue" }, secrets: { routingKey } },
  webhook: {
    kind: "webhook",
    config: { url: "https://receiver.example.com/hook" },
    secrets: { signingSecret: `whsec_${Buffer.alloc(32, 7).toString("base64")}` },
  },
} satisfies Record<string, ChannelSettings>;

function render(kind: keyof typeof settings, notice: AlertNotice = firingNotice(), purpose: "alert" | "test" = "alert") {
  return renderNotification({ id, purpose, channelName: "On-call", notice }, settings[kind], context);
}
const json = (message: ReturnType<typeof render>) => JSON.parse((message as HttpMessage).body);
const chartUrl = `https://spindle.example.com${firingNotice().linkPath}`;

describe("rendering", () => {
  it("e-mail: subject says state, severity, rule and subject; Message-ID is the outbox id; the thread id is the alert's", () => {
    const mail = render("email") as EmailMessage;
    assert.equal(mail.subject, "[FIRING · critical] p99 read latency high on db-01 nvme0n1");
    assert.equal(mail.messageId, `<${id}@notifications.spindle.invalid>`);
    assert.match(mail.text, /Value\s+42\.5 ms \(threshold > 20 ms\)/);
    assert.match(mail.text, /Measured from\s+p99 of eBPF block latency histograms/);
    assert.ok(mail.text.includes(`Chart around the event: ${chartUrl}`));
    assert.ok(mail.html.includes("battery &lt;and&gt; the queue depth &amp; scheduler"), "the note is HTML-escaped");
    const resolved = render("email", firingNotice({ transitionId: "event-2", state: { from: "firing", to: "ok" } })) as EmailMessage;
    assert.equal(resolved.references, mail.references, "firing and resolve share a thread");
  });

  it("lists the subjects of a grouped message, and counts those beyond the listed ones", () => {
    // The most a group lists, each with the longest names the schema allows but the last.
    const also = Array.from({ length: maxGroupedSubjects }, (_, i) => ({
      transitionId: `event-${i + 2}`,
      subject: {
        serverId: null,
        serverName: i === maxGroupedSubjects - 1 ? `db-${i + 2}` : `${"h".repeat(250)}${i}`,
        device: i === maxGroupedSubjects - 1 ? "nvme0n1" : "d".repeat(200),
        tags: [],
      },
      value: i,
      startedAt: null,
    }));
    const grouped = firingNotice({ also, alsoUnlisted: 10 });
    const mail = render("email", grouped) as EmailMessage;
    assert.equal(mail.subject, `[FIRING · critical] p99 read latency high on db-01 nvme0n1 and ${maxGroupedSubjects + 10} more`);
    assert.ok(mail.text.includes(`${maxGroupedSubjects + 11} subjects changed to FIRING`));
    assert.ok(mail.text.includes(`- db-${maxGroupedSubjects + 1} nvme0n1: ${maxGroupedSubjects - 1} ms (threshold > 20 ms)`));
    assert.ok(mail.text.includes("- and 10 more, not listed"));
    for (const kind of ["slack", "teams", "webhook"] as const) {
      const message = render(kind, grouped) as HttpMessage;
      assert.ok(Buffer.byteLength(message.body) <= message.maxBodyBytes, `${kind}: a full group fits the receiver's limit`);
    }
    assert.equal(json(render("webhook", grouped)).data.also.length, maxGroupedSubjects, "the webhook carries the grouped subjects as data");
  });

  it("says 'no data' instead of a number when there is no value", () => {
    const mail = render("email", firingNotice({ state: { from: "firing", to: "no_data" }, value: null })) as EmailMessage;
    assert.match(mail.text, /Value\s+no data \(threshold > 20 ms\)/);
    assert.doesNotMatch(mail.text, /Value\s+0/);
  });

  it("Slack: fallback text, linked title and escaped mrkdwn blocks", () => {
    const message = json(render("slack"));
    assert.equal(message.text, "[FIRING · critical] p99 read latency high on db-01 nvme0n1");
    assert.equal(message.blocks[0].text.text, `*<${chartUrl}|[FIRING · critical] p99 read latency high on db-01 nvme0n1>*`);
    assert.ok(message.blocks[2].text.text.includes("battery &lt;and&gt; the queue depth &amp; scheduler"));
    assert.ok(message.blocks[1].fields.length <= 10);
  });

  it("Teams: one Adaptive Card attachment with the facts and a link to the chart", () => {
    const message = json(render("teams"));
    assert.equal(message.type, "message");
    assert.equal(message.attachments.length, 1);
    const { contentType, content } = message.attachments[0];
    assert.equal(contentType, "application/vnd.microsoft.card.adaptive");
    assert.equal(content.type, "AdaptiveCard");
    assert.equal(content.body[0].color, "Attention");
    assert.deepEqual(
      content.body[1].facts.find((f: { title: string }) => f.title === "Value"),
      { title: "Value", value: "42.5 ms (threshold > 20 ms)" },
    );
    assert.deepEqual(content.actions[0], { type: "Action.OpenUrl", title: "Open the chart", url: chartUrl });
  });

  it("PagerDuty: a trigger and its resolve carry one dedup key per alert subject", () => {
    const trigger = json(render("pagerduty"));
    assert.equal(trigger.event_action, "trigger");
    assert.equal(trigger.routing_key, routingKey);
    assert.equal(trigger.payload.severity, "critical");
    assert.equal(trigger.payload.source, "db-01 nvme0n1");
    assert.equal(trigger.payload.component, "nvme0n1");
    assert.equal(trigger.client_url, chartUrl);
    const resolve = json(render("pagerduty", firingNotice({ transitionId: "event-2", state: { from: "firing", to: "ok" }, value: 3 })));
    assert.deepEqual(resolve, { routing_key: routingKey, event_action: "resolve", dedup_key: trigger.dedup_key });
    const otherDevice = json(render("pagerduty", firingNotice({ subject: { ...firingNotice().subject, device: "sda" } })));
    assert.notEqual(otherDevice.dedup_key, trigger.dedup_key);
  });

  it("generic webhook: a typed event carrying the notice, ids and chart URL, with the signing secret for the sender", () => {
    const message = render("webhook") as HttpMessage;
    const event = JSON.parse(message.body);
    assert.equal(event.type, "spindle.alert.firing");
    assert.equal(event.timestamp, "2026-11-23T10:00:00.000Z");
    assert.equal(event.data.notificationId, id);
    assert.equal(event.data.organizationId, "org-a");
    assert.equal(event.data.value, 42.5);
    assert.equal(event.data.url, chartUrl);
    assert.equal(message.signingSecret, settings.webhook.secrets.signingSecret);
  });

  it("a test message says it is a test on every kind", () => {
    assert.match((render("email", firingNotice(), "test") as EmailMessage).subject, /^Test notification for channel "On-call"$/);
    assert.equal(json(render("webhook", firingNotice(), "test")).type, "spindle.test");
    const page = json(render("pagerduty", firingNotice(), "test"));
    assert.equal(page.payload.severity, "info");
    assert.equal(page.dedup_key, `spindle-test-${id}`);
  });

  it("the largest notice the schema allows fits every receiver's limit", () => {
    const long = (n: number) => "x".repeat(n);
    const largest = firingNotice({
      transitionId: long(200),
      rule: { id: long(200), name: long(200) },
      unit: long(32),
      basis: long(300),
      note: "<&>".repeat(666),
      subject: {
        serverId: firingNotice().subject.serverId,
        serverName: long(253),
        device: long(200),
        tags: Array.from({ length: 64 }, (_, i) => `tag-${i}-${long(50)}`),
      },
      linkPath: `/${long(1999)}`,
    });
    for (const kind of ["slack", "teams", "pagerduty", "webhook"] as const) {
      const message = render(kind, largest) as HttpMessage;
      assert.ok(
        Buffer.byteLength(message.body) <= message.maxBodyBytes,
        `${kind}: ${Buffer.byteLength(message.body)} > ${message.maxBodyBytes}`,
      );
    }
    // Slack refuses the whole message when one block is over its limit.
    const blocks = json(render("slack", largest)).blocks;
    for (const field of blocks[1].fields) assert.ok(field.text.length <= 2000, `a Slack field of ${field.text.length} characters`);
    for (const block of [blocks[0], blocks[2]])
      assert.ok(block.text.text.length <= 3000, `a Slack section of ${block.text.text.length} characters`);
  });
});
