// Slack incoming webhooks (and the many tools that accept their format: Mattermost, Rocket.Chat,
// Discord's /slack endpoint): `text` is the notification fallback, `blocks` the message.
import type { ChannelSettingsOf } from "../channel-kinds.js";
import type { HttpMessage, NotificationToRender, RenderContext } from "./message.js";
import { bodyTextOf, factsOf, linkOf, titleOf } from "./text.js";

// Slack's limits: 3,000 characters in a section's text, 2,000 in a field, 10 fields per section.
const sectionTextLimit = 3000;
const fieldTextLimit = 2000;

function clip(text: string, limit: number): string {
  return text.length <= limit ? text : `${text.slice(0, limit - 1)}…`;
}

/** Slack mrkdwn treats &, < and > as control characters. */
function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

export function renderSlack(message: NotificationToRender, settings: ChannelSettingsOf<"slack">, context: RenderContext): HttpMessage {
  const title = titleOf(message);
  const link = linkOf(message.notice, context);
  const body = bodyTextOf(message);
  const blocks: unknown[] = [
    { type: "section", text: { type: "mrkdwn", text: `*<${link}|${clip(escapeMrkdwn(title), sectionTextLimit - link.length - 6)}>*` } },
    {
      type: "section",
      fields: factsOf(message)
        .slice(0, 10)
        .map(([name, value]) => ({ type: "mrkdwn", text: clip(`*${escapeMrkdwn(name)}*\n${escapeMrkdwn(value)}`, fieldTextLimit) })),
    },
  ];
  if (body) blocks.push({ type: "section", text: { type: "mrkdwn", text: clip(escapeMrkdwn(body), sectionTextLimit) } });
  blocks.push({ type: "context", elements: [{ type: "mrkdwn", text: `Spindle notification ${message.id}` }] });
  return {
    transport: "http",
    url: settings.secrets.webhookUrl,
    body: JSON.stringify({ text: title, blocks }),
    headers: { "content-type": "application/json" },
    maxBodyBytes: 40_000,
  };
}
