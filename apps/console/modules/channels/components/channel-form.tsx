"use client";
import type { ChannelKind } from "@spindle/notify";
import { useState, type FormEvent } from "react";
import { Button } from "@/components/ui/button";
import { Field } from "@/components/ui/field";
import { FormError } from "@/components/ui/form-error";
import { Label } from "@/components/ui/label";
import { Select } from "@/components/ui/select";
import { fetchJson } from "@/lib/fetch-json";
import { channelFormFrom, configOf, emptyChannelForm, formKinds, kindLabels, secretsOf, type ChannelFormState } from "../lib/channel-form";
import type { ChannelSummary } from "../types/channels";

/**
 * Creates a channel of any kind, or edits one (its kind stays). Secrets are typed, never shown:
 * an edit shows the stored secret's hint and keeps it unless a new one is typed.
 */
export function ChannelForm({
  channel,
  onSaved,
  onCancel,
}: {
  channel?: ChannelSummary;
  onSaved: (result: { channel: ChannelSummary; generatedSigningSecret?: string }) => void;
  onCancel: () => void;
}) {
  const [form, setForm] = useState<ChannelFormState>(() => (channel ? channelFormFrom(channel) : emptyChannelForm()));
  const [error, setError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const set = (key: keyof ChannelFormState) => (event: { target: { value: string } }) =>
    setForm((f) => ({ ...f, [key]: event.target.value }));
  const hint = (key: string) => (channel?.secretHints[key] ? `Stored: ${channel.secretHints[key]}. Leave blank to keep it.` : undefined);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setSaving(true);
    setError(null);
    const secrets = secretsOf(form);
    try {
      if (channel) {
        const { channel: saved } = await fetchJson<{ channel: ChannelSummary }>(`/api/alerts/channels/${channel.id}`, {
          method: "PATCH",
          body: JSON.stringify({ name: form.name, config: configOf(form), ...(secrets ? { secrets } : {}) }),
        });
        onSaved({ channel: saved });
      } else {
        // A new e-mail channel without a password sends without authentication.
        const body = {
          name: form.name,
          kind: form.kind,
          config: configOf(form),
          secrets: secrets ?? (form.kind === "email" ? { password: null } : {}),
        };
        onSaved(await fetchJson("/api/alerts/channels", { method: "POST", body: JSON.stringify(body) }));
      }
    } catch (failure) {
      const fields = (failure as { errors?: { path: string; message: string }[] }).errors ?? [];
      setError(
        fields.length > 0
          ? fields.map((f) => `${f.path}: ${f.message}`).join("; ")
          : failure instanceof Error
            ? failure.message
            : String(failure),
      );
      setSaving(false);
    }
  }

  return (
    <form onSubmit={submit} className="grid gap-4 rounded-lg border bg-card p-4" data-testid="channel-form">
      <div className="grid gap-4 md:grid-cols-2">
        <Field id="channel-name" label="Channel name" value={form.name} onChange={set("name")} required maxLength={100} />
        <div className="grid gap-1.5">
          <Label htmlFor="channel-kind">Kind</Label>
          <Select
            id="channel-kind"
            value={form.kind}
            disabled={channel !== undefined}
            onChange={(e) => setForm((f) => ({ ...emptyChannelForm(e.target.value as ChannelKind), name: f.name }))}
          >
            {formKinds.map((k) => (
              <option key={k} value={k}>
                {kindLabels[k]}
              </option>
            ))}
          </Select>
        </div>
      </div>
      {form.kind === "email" ? (
        <div className="grid gap-4 md:grid-cols-3">
          <Field id="channel-host" label="SMTP host" value={form.host} onChange={set("host")} required />
          <Field id="channel-port" label="Port" type="number" value={form.port} onChange={set("port")} required />
          <div className="grid gap-1.5">
            <Label htmlFor="channel-security">Security</Label>
            <Select id="channel-security" value={form.security} onChange={set("security")}>
              <option value="starttls">STARTTLS required (587)</option>
              <option value="tls">TLS from the start (465)</option>
              <option value="opportunistic">STARTTLS when offered</option>
            </Select>
          </div>
          <Field id="channel-username" label="Username" value={form.username} onChange={set("username")} hint="Blank: no authentication" />
          <Field
            id="channel-password"
            label="Password"
            type="password"
            value={form.password}
            onChange={set("password")}
            hint={hint("password")}
            autoComplete="new-password"
          />
          <Field id="channel-from" label="From" type="email" value={form.from} onChange={set("from")} required />
          <div className="md:col-span-3">
            <Field id="channel-to" label="To" value={form.to} onChange={set("to")} required hint="Addresses separated by commas" />
          </div>
        </div>
      ) : null}
      {form.kind === "slack" || form.kind === "teams" ? (
        <Field
          id="channel-webhook-url"
          label="Incoming webhook URL"
          type="url"
          value={form.webhookUrl}
          onChange={set("webhookUrl")}
          required={!channel}
          hint={hint("webhookUrl") ?? "The URL is the credential: it is stored as a secret and never shown again."}
          autoComplete="off"
        />
      ) : null}
      {form.kind === "pagerduty" ? (
        <div className="grid gap-4 md:grid-cols-2">
          <Field
            id="channel-events-url"
            label="Events API URL"
            type="url"
            value={form.eventsUrl}
            onChange={set("eventsUrl")}
            required
            hint="EU accounts: https://events.eu.pagerduty.com/v2/enqueue"
          />
          <Field
            id="channel-routing-key"
            label="Integration (routing) key"
            value={form.routingKey}
            onChange={set("routingKey")}
            required={!channel}
            hint={hint("routingKey")}
            autoComplete="off"
          />
        </div>
      ) : null}
      {form.kind === "webhook" ? (
        <div className="grid gap-4 md:grid-cols-2">
          <Field id="channel-url" label="Webhook URL" type="url" value={form.url} onChange={set("url")} required />
          <Field
            id="channel-signing-secret"
            label="Signing secret"
            value={form.signingSecret}
            onChange={set("signingSecret")}
            autoComplete="off"
            hint={hint("signingSecret") ?? "Blank: one is generated and shown once after saving."}
          />
        </div>
      ) : null}
      <FormError message={error} />
      <div className="flex gap-2">
        <Button type="submit" disabled={saving} data-testid="save-channel">
          {saving ? "Saving…" : channel ? "Save channel" : "Create channel"}
        </Button>
        <Button variant="ghost" onClick={onCancel}>
          Cancel
        </Button>
      </div>
    </form>
  );
}
