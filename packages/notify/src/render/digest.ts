// The recommendations digest in each channel's form: per recommendation what to change, why,
// the predicted effect with its confidence, and a link to it in the console. PagerDuty channels
// cannot opt in (a digest is not an incident); render refuses one rather than page somebody.
import type { ChannelSettings } from "../channel-kinds.js";
import type { DigestItem, RecommendationDigest } from "../digest.js";
import type { EmailMessage, HttpMessage, RenderContext, RenderedMessage } from "./message.js";

export interface DigestToRender {
  /** The outbox id: webhook-id, e-mail Message-ID. */
  id: string;
  purpose: "recommendations";
  channelName: string;
  digest: RecommendationDigest;
}

const messageIdDomain = "notifications.spindle.invalid";

const link = (path: string, context: RenderContext) => new URL(path, context.consoleUrl).toString();

function titleOf(digest: RecommendationDigest): string {
  const count = digest.items.length + digest.more;
  return `${count} new Spindle recommendation${count === 1 ? "" : "s"}`;
}

function itemLines(item: DigestItem, context: RenderContext): string[] {
  return [
    `${item.title} (${item.hostname})`,
    `  Why: ${item.why}`,
    `  Predicted: ${item.predicted}`,
    `  Confidence: ${item.confidence.level}: ${item.confidence.reason}`,
    `  ${link(item.linkPath, context)}`,
  ];
}

function moreLine(digest: RecommendationDigest, context: RenderContext): string[] {
  return digest.more > 0 ? [`…and ${digest.more} more: ${link("/recommendations", context)}`] : [];
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);
}

function email(message: DigestToRender, context: RenderContext): EmailMessage {
  const { digest } = message;
  const text = [
    titleOf(digest),
    "",
    ...digest.items.flatMap((item) => [...itemLines(item, context), ""]),
    ...moreLine(digest, context),
    "",
    `Notification ${message.id}`,
  ].join("\n");
  const html = [
    `<h2 style="font-family:sans-serif">${escapeHtml(titleOf(digest))}</h2>`,
    ...digest.items.map((item) =>
      [
        `<div style="font-family:sans-serif;margin-bottom:12px">`,
        `<a href="${escapeHtml(link(item.linkPath, context))}"><b>${escapeHtml(item.title)}</b></a> (${escapeHtml(item.hostname)})<br>`,
        `Why: ${escapeHtml(item.why)}<br>Predicted: ${escapeHtml(item.predicted)}<br>`,
        `Confidence: ${escapeHtml(item.confidence.level)}: ${escapeHtml(item.confidence.reason)}</div>`,
      ].join(""),
    ),
    digest.more > 0
      ? `<p style="font-family:sans-serif"><a href="${escapeHtml(link("/recommendations", context))}">…and ${digest.more} more</a></p>`
      : "",
    `<p style="font-family:sans-serif;color:#777;font-size:small">Notification ${escapeHtml(message.id)}</p>`,
  ].join("\n");
  return {
    transport: "smtp",
    subject: titleOf(digest),
    text,
    html,
    messageId: `<${message.id}@${messageIdDomain}>`,
    references: `<recommendations-${digest.orgId}@${messageIdDomain}>`,
    headers: { "X-Spindle-Notification-Id": message.id },
  };
}

function chatText(message: DigestToRender, context: RenderContext, limit: number): string {
  const { digest } = message;
  const lines = [titleOf(digest), ...digest.items.flatMap((item) => itemLines(item, context)), ...moreLine(digest, context)];
  const text = lines.join("\n");
  return text.length <= limit ? text : `${text.slice(0, limit - 80)}…\nAll of them: ${link("/recommendations", context)}`;
}

function http(url: string, body: unknown, maxBodyBytes: number, signingSecret?: string): HttpMessage {
  return {
    transport: "http",
    url,
    body: JSON.stringify(body),
    headers: { "content-type": "application/json" },
    maxBodyBytes,
    ...(signingSecret ? { signingSecret } : {}),
  };
}

export function renderDigest(message: DigestToRender, settings: ChannelSettings, context: RenderContext): RenderedMessage {
  const { digest } = message;
  switch (settings.kind) {
    case "email":
      return email(message, context);
    case "slack":
      // Slack's limit for a message's text is 40,000 characters; the body limit below leaves room for JSON escaping.
      return http(settings.secrets.webhookUrl, { text: chatText(message, context, 30_000) }, 40_000);
    case "teams":
      return http(
        settings.secrets.webhookUrl,
        {
          type: "message",
          attachments: [
            {
              contentType: "application/vnd.microsoft.card.adaptive",
              contentUrl: null,
              content: {
                $schema: "http://adaptivecards.io/schemas/adaptive-card.json",
                type: "AdaptiveCard",
                version: "1.4",
                body: [{ type: "TextBlock", text: chatText(message, context, 20_000), wrap: true }],
                actions: [{ type: "Action.OpenUrl", title: "Open the recommendations", url: link("/recommendations", context) }],
              },
            },
          ],
        },
        28_000,
      );
    case "webhook": {
      const { orgId, ...fields } = digest;
      return http(
        settings.config.url,
        {
          type: "spindle.recommendations.digest",
          timestamp: digest.at,
          data: {
            notificationId: message.id,
            organizationId: orgId,
            ...fields,
            items: digest.items.map((item) => ({ ...item, url: link(item.linkPath, context) })),
            url: link("/recommendations", context),
          },
        },
        65_536,
        settings.secrets.signingSecret,
      );
    }
    case "pagerduty":
      throw new Error("a PagerDuty channel cannot carry the recommendations digest: turn the digest off for it");
  }
}
