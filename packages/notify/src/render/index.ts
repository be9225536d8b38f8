import type { ChannelSettings } from "../channel-kinds.js";
import { renderDigest, type DigestToRender } from "./digest.js";
import { renderEmail } from "./email.js";
import type { NotificationToRender, RenderContext, RenderedMessage } from "./message.js";
import { renderPagerDuty } from "./pagerduty.js";
import { renderSlack } from "./slack.js";
import { renderTeams } from "./teams.js";
import { renderWebhook } from "./webhook.js";

export type { DigestToRender } from "./digest.js";
export type { EmailMessage, HttpMessage, NotificationToRender, RenderContext, RenderedMessage } from "./message.js";

/** The message one channel receives for one outbox row: an alert (or test), or a recommendations digest. */
export function renderNotification(
  message: NotificationToRender | DigestToRender,
  settings: ChannelSettings,
  context: RenderContext,
): RenderedMessage {
  if (message.purpose === "recommendations") return renderDigest(message, settings, context);
  switch (settings.kind) {
    case "email":
      return renderEmail(message, settings, context);
    case "slack":
      return renderSlack(message, settings, context);
    case "teams":
      return renderTeams(message, settings, context);
    case "pagerduty":
      return renderPagerDuty(message, settings, context);
    case "webhook":
      return renderWebhook(message, settings, context);
  }
}
