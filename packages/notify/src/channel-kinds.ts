// The kinds of notification channel and what each needs. `config` may be shown to any member;
// `secrets` never leave the server (the console's database role cannot even read them).
import { randomBytes } from "node:crypto";
import { z } from "zod";
import { NotifyInputError, problemsOf } from "./input-error.js";

export const channelKinds = ["email", "slack", "teams", "pagerduty", "webhook"] as const;
export type ChannelKind = (typeof channelKinds)[number];

const httpUrl = z.url({ protocol: /^https?$/, error: "must be an http:// or https:// URL" }).max(2000);
const emailAddress = z.email({ error: "must be an e-mail address" }).max(254);

export const emailConfigSchema = z
  .object({
    host: z.string().trim().min(1).max(253),
    port: z.number().int().min(1).max(65535),
    /** tls: TLS from the first byte (usually 465); starttls: must upgrade (587); opportunistic: upgrades if offered. */
    security: z.enum(["tls", "starttls", "opportunistic"]),
    username: z.string().max(254).nullable(),
    from: emailAddress,
    to: z.array(emailAddress).min(1).max(50),
  })
  .strict();
export const emailSecretsSchema = z.object({ password: z.string().min(1).max(1000).nullable() }).strict();

export const slackSecretsSchema = z.object({ webhookUrl: httpUrl }).strict();
export const teamsSecretsSchema = z.object({ webhookUrl: httpUrl }).strict();
const noConfig = z.object({}).strict();

export const pagerDutyConfigSchema = z
  .object({
    /** https://events.pagerduty.com/v2/enqueue, or the EU service's https://events.eu.pagerduty.com/v2/enqueue. */
    eventsUrl: httpUrl.default("https://events.pagerduty.com/v2/enqueue"),
  })
  .strict();
export const pagerDutySecretsSchema = z
  .object({ routingKey: z.string().regex(/^[A-Za-z0-9]{32}$/, "a PagerDuty integration (routing) key is 32 letters and digits") })
  .strict();

export const webhookConfigSchema = z.object({ url: httpUrl }).strict();
// Standard Webhooks: "whsec_" and the base64 of 24 to 64 random bytes.
export const webhookSigningSecretSchema = z
  .string()
  .regex(/^whsec_[A-Za-z0-9+/]{32,88}={0,2}$/, "a signing secret is whsec_ followed by the base64 of 24 to 64 random bytes");
export const webhookSecretsSchema = z.object({ signingSecret: webhookSigningSecretSchema }).strict();

export const channelSettingsSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("email"), config: emailConfigSchema, secrets: emailSecretsSchema }),
  z.object({ kind: z.literal("slack"), config: noConfig, secrets: slackSecretsSchema }),
  z.object({ kind: z.literal("teams"), config: noConfig, secrets: teamsSecretsSchema }),
  z.object({ kind: z.literal("pagerduty"), config: pagerDutyConfigSchema, secrets: pagerDutySecretsSchema }),
  z.object({ kind: z.literal("webhook"), config: webhookConfigSchema, secrets: webhookSecretsSchema }),
]);
export type ChannelSettings = z.infer<typeof channelSettingsSchema>;
export type ChannelSettingsOf<K extends ChannelKind> = Extract<ChannelSettings, { kind: K }>;

/** A fresh Standard Webhooks signing secret: 32 random bytes. */
export function generateWebhookSigningSecret(): string {
  return `whsec_${randomBytes(32).toString("base64")}`;
}

/** Validates a kind's config and secrets together; the error names each bad field. */
export function parseChannelSettings(input: unknown): ChannelSettings {
  const result = channelSettingsSchema.safeParse(input);
  if (!result.success) {
    const problems = problemsOf(result.error.issues, "channel");
    throw new NotifyInputError("invalid channel settings", problems);
  }
  return result.data;
}

/**
 * What a form may show of each secret: enough of the end to recognise it, never enough to use it.
 * A webhook URL shows its origin and last four characters (the token lives in the path).
 */
export function secretHints(settings: ChannelSettings): Record<string, string> {
  const tail = (value: string) => `…${value.slice(-4)}`;
  switch (settings.kind) {
    case "email":
      return settings.secrets.password ? { password: "set" } : {};
    case "slack":
    case "teams":
      return { webhookUrl: `${new URL(settings.secrets.webhookUrl).origin}/${tail(settings.secrets.webhookUrl)}` };
    case "pagerduty":
      return { routingKey: tail(settings.secrets.routingKey) };
    case "webhook":
      return { signingSecret: `whsec_${tail(settings.secrets.signingSecret)}` };
  }
}
