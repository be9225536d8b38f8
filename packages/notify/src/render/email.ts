// E-mail: plain text and HTML alternatives, Message-ID from the outbox id (a re-send after a
// crash carries the same one, so mail systems and people can spot the duplicate), and every
// change of one alert threaded under one References id.
import type { ChannelSettingsOf } from "../channel-kinds.js";
import type { EmailMessage, NotificationToRender, RenderContext } from "./message.js";
import { alertKeyOf, bodyTextOf, factsOf, linkOf, titleOf } from "./text.js";

const messageIdDomain = "notifications.spindle.invalid";

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);
}

export function renderEmail(message: NotificationToRender, _settings: ChannelSettingsOf<"email">, context: RenderContext): EmailMessage {
  const title = titleOf(message);
  const facts = factsOf(message);
  const body = bodyTextOf(message);
  const link = linkOf(message.notice, context);
  const width = Math.max(...facts.map(([name]) => name.length));
  const text = [
    title,
    "",
    ...facts.map(([name, value]) => `${name.padEnd(width)}  ${value}`),
    ...(body ? ["", body] : []),
    "",
    `Chart around the event: ${link}`,
    "",
    `Notification ${message.id}`,
  ].join("\n");
  const html = [
    `<h2 style="font-family:sans-serif">${escapeHtml(title)}</h2>`,
    `<table style="font-family:sans-serif;border-collapse:collapse">`,
    ...facts.map(
      ([name, value]) => `<tr><th align="left" style="padding:2px 12px 2px 0">${escapeHtml(name)}</th><td>${escapeHtml(value)}</td></tr>`,
    ),
    `</table>`,
    body ? `<p style="font-family:sans-serif;white-space:pre-wrap">${escapeHtml(body)}</p>` : "",
    `<p style="font-family:sans-serif"><a href="${escapeHtml(link)}">Chart around the event</a></p>`,
    `<p style="font-family:sans-serif;color:#777;font-size:small">Notification ${escapeHtml(message.id)}</p>`,
  ].join("\n");
  return {
    transport: "smtp",
    subject: title,
    text,
    html,
    messageId: `<${message.id}@${messageIdDomain}>`,
    references: `<${alertKeyOf(message)}@${messageIdDomain}>`,
    headers: { "X-Spindle-Notification-Id": message.id },
  };
}
