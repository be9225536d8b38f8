import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ChannelSettings } from "../channel-kinds.js";
import { maxDigestItems, parseRecommendationDigest, type DigestItem, type RecommendationDigest } from "../digest.js";
import { renderNotification } from "./index.js";
import type { EmailMessage, HttpMessage } from "./message.js";

const context = { consoleUrl: "https://spindle.example.com" };
const id = "9f8e7d6c-5b4a-4c3d-8e2f-1a0b9c8d7e6f";
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
  pagerduty: {
    kind: "pagerduty",
    config: { eventsUrl: "https://events.pagerduty.com/v2/enqueue" },
    secrets: { routingKey: "R0123456789abcdefR0123456789abcd" },
  },
  webhook: {
    kind: "webhook",
    config: { url: "https://receiver.example.com/hook" },
    secrets: { signingSecret: `whsec_${Buffer.alloc(32, 7).toString("base64")}` },
  },
} satisfies Record<string, ChannelSettings>;

function item(n: number, title = `Raise the read-cache budget on host ${n}`): DigestItem {
  const recommendationId = `0000000${n % 10}-1111-4222-8333-444455556666`;
  return {
    recommendationId,
    serverId: "7d1c2b3a-4e5f-4a6b-8c7d-9e0f1a2b3c4d",
    hostname: `db-0${n % 10}`,
    kind: "read_cache_budget",
    title,
    why: "miss-ratio curve of the read cache (cache_mrc), 2026-11-23T09:00:00.000Z – 2026-11-23T10:00:00.000Z",
    predicted: "budget 2 GiB → 6 GiB: read hit ratio 61 % → 88 %",
    confidence: { level: "medium", reason: "12,000 sampled accesses" },
    linkPath: `/recommendations#recommendation-${recommendationId}`,
  };
}

function digest(items: DigestItem[], more = 0): RecommendationDigest {
  return parseRecommendationDigest({
    orgId: "org-1",
    digestId: "8e2d3c4b-5f6a-4b7c-9d8e-0f1a2b3c4d5e",
    at: "2026-11-23T10:00:00.000Z",
    periodStart: "2026-11-23T00:00:00.000Z",
    items,
    more,
  });
}

const render = (kind: keyof typeof settings, d: RecommendationDigest) =>
  renderNotification({ id, purpose: "recommendations", channelName: "Ops", digest: d }, settings[kind], context);

describe("the recommendations digest, rendered", () => {
  it("e-mail lists what, why, the predicted effect, the confidence and a link per recommendation, escaped in HTML", () => {
    const mail = render("email", digest([item(1, "Exclude <script> from the cache"), item(2)])) as EmailMessage;
    assert.equal(mail.subject, "2 new Spindle recommendations");
    assert.equal(mail.messageId, `<${id}@notifications.spindle.invalid>`);
    assert.match(mail.text, /Exclude <script> from the cache \(db-01\)\n {2}Why: miss-ratio curve/);
    assert.match(mail.text, /Predicted: budget 2 GiB → 6 GiB: read hit ratio 61 % → 88 %\n {2}Confidence: medium: 12,000 sampled accesses/);
    assert.ok(mail.text.includes("https://spindle.example.com/recommendations#recommendation-00000001-1111-4222-8333-444455556666"));
    assert.ok(mail.html.includes("Exclude &lt;script&gt; from the cache") && !mail.html.includes("<script>"));
  });

  it("counts what it does not list, and chat, Teams and webhook carry the same items", () => {
    const d = digest(
      Array.from({ length: maxDigestItems }, (_, n) => item(n)),
      7,
    );
    assert.equal((render("email", d) as EmailMessage).subject, `${maxDigestItems + 7} new Spindle recommendations`);
    assert.match(
      JSON.parse((render("slack", d) as HttpMessage).body).text,
      /…and 7 more: https:\/\/spindle\.example\.com\/recommendations$/,
    );
    const teams = render("teams", d) as HttpMessage;
    assert.ok(Buffer.byteLength(teams.body) <= teams.maxBodyBytes, "within Teams' limit");
    const hook = render("webhook", d) as HttpMessage;
    const event = JSON.parse(hook.body);
    assert.equal(event.type, "spindle.recommendations.digest");
    assert.equal(event.data.notificationId, id);
    assert.equal(event.data.items.length, maxDigestItems);
    assert.equal(
      event.data.items[0].url,
      "https://spindle.example.com/recommendations#recommendation-00000000-1111-4222-8333-444455556666",
    );
    assert.equal(event.data.more, 7);
    assert.equal(hook.signingSecret, settings.webhook.secrets.signingSecret);
  });

  it("refuses PagerDuty rather than page somebody with advice, and a digest that does not parse", () => {
    assert.throws(() => render("pagerduty", digest([item(1)])), /PagerDuty channel cannot carry the recommendations digest/);
    assert.throws(() => digest([]), /items/);
  });
});
