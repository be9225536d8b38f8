// PagerDuty Events API v2: firing and no_data trigger, ok (a resolve) resolves. The dedup_key is the
// alert's key (organisation, rule, server, device), so the resolve closes the incident the
// trigger opened, and a trigger re-sent after a worker crash lands on the same alert.
import type { ChannelSettingsOf } from "../channel-kinds.js";
import type { HttpMessage, NotificationToRender, RenderContext } from "./message.js";
import { alertKeyOf, factsOf, linkOf, subjectText, titleOf } from "./text.js";

const summaryLimit = 1024;

export function renderPagerDuty(
  message: NotificationToRender,
  settings: ChannelSettingsOf<"pagerduty">,
  context: RenderContext,
): HttpMessage {
  const { notice } = message;
  const dedupKey = alertKeyOf(message);
  const link = linkOf(notice, context);
  const event =
    message.purpose === "alert" && notice.state.to === "ok"
      ? { routing_key: settings.secrets.routingKey, event_action: "resolve", dedup_key: dedupKey }
      : {
          routing_key: settings.secrets.routingKey,
          event_action: "trigger",
          dedup_key: dedupKey,
          payload: {
            summary: titleOf(message).slice(0, summaryLimit),
            source: message.purpose === "test" ? "spindle" : subjectText(notice),
            // PagerDuty's four severities include Spindle's three by name.
            severity: message.purpose === "test" ? "info" : notice.severity,
            timestamp: notice.at,
            ...(notice.subject.device ? { component: notice.subject.device } : {}),
            class: message.purpose === "test" ? "test" : notice.rule.name,
            custom_details: {
              ...Object.fromEntries(factsOf(message)),
              ...(notice.note ? { Note: notice.note } : {}),
              "Notification id": message.id,
            },
          },
          client: "Spindle",
          client_url: link,
          links: [{ href: link, text: "Chart around the event" }],
        };
  return {
    transport: "http",
    url: settings.config.eventsUrl,
    body: JSON.stringify(event),
    headers: { "content-type": "application/json" },
    maxBodyBytes: 512_000,
  };
}
