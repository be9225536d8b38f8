"use client";
import { useState, type FormEvent } from "react";
import { Button } from "@/components/ui/button";
import { FormError } from "@/components/ui/form-error";
import { Input } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import { Select } from "@/components/ui/select";
import { fetchJson } from "@/lib/fetch-json";
import type { AlertScope } from "@spindle/domain";
import type { AlertSilenceSummary, SilenceTargets } from "../types/alerts";

export interface SilenceDraft {
  ruleId: string | null;
  scope: AlertScope;
}

const toLocalInput = (date: Date) => new Date(date.getTime() - date.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);

/**
 * A silence or maintenance window: which rule (or all), which subjects, from when to when, and
 * why. Opened from an alert it starts filled in with that alert's rule and server.
 */
export function SilenceForm({
  targets,
  draft,
  onSaved,
  onCancel,
}: {
  targets: SilenceTargets;
  draft?: SilenceDraft;
  onSaved: (silence: AlertSilenceSummary) => void;
  onCancel?: () => void;
}) {
  const now = new Date();
  const [ruleId, setRuleId] = useState(draft?.ruleId ?? "");
  const [scopeKind, setScopeKind] = useState<AlertScope["scope"]>(draft?.scope.scope ?? "organization");
  const [tag, setTag] = useState(draft?.scope.scope === "tag" ? draft.scope.tag : "");
  const [serverId, setServerId] = useState(
    draft?.scope.scope === "server" || draft?.scope.scope === "device" ? draft.scope.serverId : (targets.servers[0]?.id ?? ""),
  );
  const [device, setDevice] = useState(draft?.scope.scope === "device" ? draft.scope.device : "");
  const [startsAt, setStartsAt] = useState(toLocalInput(now));
  const [endsAt, setEndsAt] = useState(toLocalInput(new Date(now.getTime() + 2 * 3600_000)));
  const [comment, setComment] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setSaving(true);
    setError(null);
    const scope =
      scopeKind === "organization"
        ? { scope: scopeKind }
        : scopeKind === "tag"
          ? { scope: scopeKind, tag: tag.trim().toLowerCase() }
          : scopeKind === "server"
            ? { scope: scopeKind, serverId }
            : { scope: scopeKind, serverId, device: device.trim() };
    try {
      const { silence } = await fetchJson<{ silence: AlertSilenceSummary }>("/api/alerts/silences", {
        method: "POST",
        body: JSON.stringify({
          ruleId: ruleId || null,
          scope,
          startsAt: new Date(startsAt).toISOString(),
          endsAt: new Date(endsAt).toISOString(),
          comment,
        }),
      });
      onSaved(silence);
    } catch (failure) {
      setError(failure instanceof Error ? failure.message : String(failure));
    } finally {
      setSaving(false);
    }
  }

  return (
    <form onSubmit={submit} className="grid gap-4 rounded-lg border bg-card p-4" data-testid="silence-form">
      <div className="grid gap-4 md:grid-cols-3">
        <div className="grid gap-1.5">
          <Label htmlFor="silence-rule">Rule</Label>
          <Select id="silence-rule" value={ruleId} onChange={(e) => setRuleId(e.target.value)}>
            <option value="">Every rule</option>
            {targets.rules.map((r) => (
              <option key={r.id} value={r.id}>
                {r.name}
              </option>
            ))}
          </Select>
        </div>
        <div className="grid gap-1.5">
          <Label htmlFor="silence-scope">Applies to</Label>
          <Select id="silence-scope" value={scopeKind} onChange={(e) => setScopeKind(e.target.value as AlertScope["scope"])}>
            <option value="organization">Every server</option>
            <option value="tag">Servers with a tag</option>
            <option value="server">One server</option>
            <option value="device">One device of a server</option>
          </Select>
        </div>
        {scopeKind === "tag" ? (
          <div className="grid gap-1.5">
            <Label htmlFor="silence-tag">Tag</Label>
            <Input id="silence-tag" value={tag} onChange={(e) => setTag(e.target.value)} required />
          </div>
        ) : null}
        {scopeKind === "server" || scopeKind === "device" ? (
          <div className="grid gap-1.5">
            <Label htmlFor="silence-server">Server</Label>
            <Select id="silence-server" value={serverId} onChange={(e) => setServerId(e.target.value)} required>
              {targets.servers.map((s) => (
                <option key={s.id} value={s.id}>
                  {s.hostname}
                </option>
              ))}
            </Select>
          </div>
        ) : null}
        {scopeKind === "device" ? (
          <div className="grid gap-1.5">
            <Label htmlFor="silence-device">Device</Label>
            <Input id="silence-device" value={device} onChange={(e) => setDevice(e.target.value)} placeholder="sda" required />
          </div>
        ) : null}
      </div>
      <div className="grid gap-4 md:grid-cols-3">
        <div className="grid gap-1.5">
          <Label htmlFor="silence-starts">Starts</Label>
          <Input id="silence-starts" type="datetime-local" value={startsAt} onChange={(e) => setStartsAt(e.target.value)} required />
        </div>
        <div className="grid gap-1.5">
          <Label htmlFor="silence-ends">Ends</Label>
          <Input id="silence-ends" type="datetime-local" value={endsAt} onChange={(e) => setEndsAt(e.target.value)} required />
        </div>
        <div className="grid gap-1.5">
          <Label htmlFor="silence-comment">Why</Label>
          <Input
            id="silence-comment"
            value={comment}
            onChange={(e) => setComment(e.target.value)}
            placeholder="Disk replacement tonight"
            required
            maxLength={1000}
          />
        </div>
      </div>
      <FormError message={error} />
      <div className="flex gap-2">
        <Button type="submit" disabled={saving} data-testid="silence-submit">
          {saving ? "Saving…" : "Silence"}
        </Button>
        {onCancel ? (
          <Button variant="ghost" onClick={onCancel}>
            Cancel
          </Button>
        ) : null}
      </div>
      <p className="text-xs text-muted-foreground">
        Silenced alerts still change state and appear in the history, marked as silenced; they are not notified. Times are in your
        browser&apos;s time zone.
      </p>
    </form>
  );
}
