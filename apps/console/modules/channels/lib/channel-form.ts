// The channel form's fields per kind (strings, as inputs hold them) and the config / secrets the
// API takes. Secrets start blank: on an edit, blank means "keep the stored ones".
import type { ChannelKind } from "@spindle/notify";

export interface ChannelFormState {
  name: string;
  kind: ChannelKind;
  host: string;
  port: string;
  security: "tls" | "starttls" | "opportunistic";
  username: string;
  from: string;
  to: string;
  password: string;
  webhookUrl: string;
  eventsUrl: string;
  routingKey: string;
  url: string;
  signingSecret: string;
}

// Typed against @spindle/notify's kinds, so a new kind fails the build until it has a label and
// fields here; the values are not imported because @spindle/notify is server code (senders).
export const kindLabels: Record<ChannelKind, string> = {
  email: "E-mail (SMTP)",
  slack: "Slack-compatible webhook",
  teams: "Microsoft Teams webhook",
  pagerduty: "PagerDuty (Events v2)",
  webhook: "Signed webhook (Standard Webhooks)",
};
export const formKinds = Object.keys(kindLabels) as ChannelKind[];

export function emptyChannelForm(kind: ChannelKind = "email"): ChannelFormState {
  return {
    name: "",
    kind,
    host: "",
    port: "587",
    security: "starttls",
    username: "",
    from: "",
    to: "",
    password: "",
    webhookUrl: "",
    eventsUrl: "https://events.pagerduty.com/v2/enqueue",
    routingKey: "",
    url: "",
    signingSecret: "",
  };
}

/** The stored config back into the form (secrets are never sent to the browser). */
export function channelFormFrom(channel: { name: string; kind: ChannelKind; config: Record<string, unknown> }): ChannelFormState {
  const c = channel.config;
  const str = (key: string, fallback = "") => (typeof c[key] === "string" ? (c[key] as string) : fallback);
  return {
    ...emptyChannelForm(channel.kind),
    name: channel.name,
    host: str("host"),
    port: typeof c.port === "number" ? String(c.port) : "587",
    security: str("security", "starttls") as ChannelFormState["security"],
    username: str("username"),
    from: str("from"),
    to: Array.isArray(c.to) ? (c.to as string[]).join(", ") : "",
    eventsUrl: str("eventsUrl", "https://events.pagerduty.com/v2/enqueue"),
    url: str("url"),
  };
}

export function configOf(form: ChannelFormState): Record<string, unknown> {
  switch (form.kind) {
    case "email":
      return {
        host: form.host.trim(),
        port: Number(form.port),
        security: form.security,
        username: form.username.trim() || null,
        from: form.from.trim(),
        to: form.to
          .split(/[,;\s]+/)
          .map((a) => a.trim())
          .filter(Boolean),
      };
    case "pagerduty":
      return { eventsUrl: form.eventsUrl.trim() };
    case "webhook":
      return { url: form.url.trim() };
    default:
      return {};
  }
}

/** null: nothing typed, so an edit keeps the stored secrets (and a new webhook gets a generated one). */
export function secretsOf(form: ChannelFormState): Record<string, unknown> | null {
  switch (form.kind) {
    case "email":
      return form.password ? { password: form.password } : null;
    case "slack":
    case "teams":
      return form.webhookUrl.trim() ? { webhookUrl: form.webhookUrl.trim() } : null;
    case "pagerduty":
      return form.routingKey.trim() ? { routingKey: form.routingKey.trim() } : null;
    case "webhook":
      return form.signingSecret.trim() ? { signingSecret: form.signingSecret.trim() } : null;
  }
}
