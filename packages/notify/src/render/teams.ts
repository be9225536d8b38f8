// Microsoft Teams incoming webhooks (Workflows "post to a channel when a webhook request is
// received", and the older connector webhooks): a message with one Adaptive Card attachment.
// Card version 1.4 is what both accept; Teams refuses payloads over 28 KB.
import type { ChannelSettingsOf } from "../channel-kinds.js";
import type { HttpMessage, NotificationToRender, RenderContext } from "./message.js";
import { bodyTextOf, factsOf, linkOf, titleOf } from "./text.js";

const colours = { firing: "Attention", no_data: "Warning", ok: "Good" } as const;

export function renderTeams(message: NotificationToRender, settings: ChannelSettingsOf<"teams">, context: RenderContext): HttpMessage {
  const body = bodyTextOf(message);
  const card = {
    $schema: "http://adaptivecards.io/schemas/adaptive-card.json",
    type: "AdaptiveCard",
    version: "1.4",
    body: [
      {
        type: "TextBlock",
        text: titleOf(message),
        weight: "Bolder",
        size: "Medium",
        wrap: true,
        color: message.purpose === "test" ? "Default" : colours[message.notice.state.to],
      },
      { type: "FactSet", facts: factsOf(message).map(([title, value]) => ({ title, value })) },
      ...(body ? [{ type: "TextBlock", text: body, wrap: true }] : []),
      { type: "TextBlock", text: `Spindle notification ${message.id}`, isSubtle: true, size: "Small", wrap: true },
    ],
    actions: [{ type: "Action.OpenUrl", title: "Open the chart", url: linkOf(message.notice, context) }],
  };
  return {
    transport: "http",
    url: settings.secrets.webhookUrl,
    body: JSON.stringify({
      type: "message",
      attachments: [{ contentType: "application/vnd.microsoft.card.adaptive", contentUrl: null, content: card }],
    }),
    headers: { "content-type": "application/json" },
    maxBodyBytes: 28_000,
  };
}
