// The generic webhook: a JSON event in the Standard Webhooks shape ({type, timestamp, data}),
// signed by the sender per attempt. `data` is the notice itself plus the ids and the chart URL,
// so a receiver needs no other call to act on it.
import type { ChannelSettingsOf } from "../channel-kinds.js";
import type { HttpMessage, NotificationToRender, RenderContext } from "./message.js";
import { alertKeyOf, linkOf } from "./text.js";

const eventTypes = { firing: "spindle.alert.firing", no_data: "spindle.alert.no_data", ok: "spindle.alert.resolved" } as const;

export function renderWebhook(message: NotificationToRender, settings: ChannelSettingsOf<"webhook">, context: RenderContext): HttpMessage {
  const { notice } = message;
  const { orgId: _org, ...fields } = notice;
  const event = {
    type: message.purpose === "test" ? "spindle.test" : eventTypes[notice.state.to],
    timestamp: notice.at,
    data: {
      notificationId: message.id,
      alertKey: alertKeyOf(message),
      organizationId: notice.orgId,
      ...fields,
      url: linkOf(notice, context),
    },
  };
  return {
    transport: "http",
    url: settings.config.url,
    body: JSON.stringify(event),
    headers: { "content-type": "application/json" },
    signingSecret: settings.secrets.signingSecret,
    maxBodyBytes: 65_536,
  };
}
