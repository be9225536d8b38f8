"use client";
// The alert severities (@spindle/domain, client-safe) are the notices' severities.
import { alertSeverities as severities } from "@spindle/domain";
import { useState, type FormEvent } from "react";
import { Button } from "@/components/ui/button";
import { FormError } from "@/components/ui/form-error";
import { Input } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import { Select } from "@/components/ui/select";
import { fetchJson } from "@/lib/fetch-json";
import type { ChannelSummary } from "../types/channels";

/** Which alerts go to a channel: severities, and every server, a tag or one server. */
export function RouteForm({
  channelId,
  servers,
  onSaved,
}: {
  channelId: string;
  servers: { id: string; hostname: string }[];
  onSaved: (channel: ChannelSummary) => void;
}) {
  const [chosen, setChosen] = useState<string[]>(["critical", "warning"]);
  const [scope, setScope] = useState<"organization" | "tag" | "server">("organization");
  const [tag, setTag] = useState("");
  const [serverId, setServerId] = useState(servers[0]?.id ?? "");
  const [notifyResolved, setNotifyResolved] = useState(true);
  const [error, setError] = useState<string | null>(null);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setError(null);
    try {
      const { channel } = await fetchJson<{ channel: ChannelSummary }>(`/api/alerts/channels/${channelId}/routes`, {
        method: "POST",
        body: JSON.stringify({
          severities: chosen,
          scope,
          tag: scope === "tag" ? tag.trim().toLowerCase() : null,
          serverId: scope === "server" ? serverId : null,
          notifyResolved,
        }),
      });
      onSaved(channel);
    } catch (failure) {
      const fields = (failure as { errors?: { path: string; message: string }[] }).errors ?? [];
      setError(fields.length > 0 ? fields.map((f) => f.message).join("; ") : failure instanceof Error ? failure.message : String(failure));
    }
  }

  return (
    <form onSubmit={submit} className="flex flex-wrap items-end gap-3 text-sm" data-testid="route-form">
      <fieldset className="flex items-center gap-2">
        <legend className="sr-only">Severities</legend>
        {severities.map((s) => (
          <label key={s} className="flex items-center gap-1">
            <input
              type="checkbox"
              checked={chosen.includes(s)}
              onChange={(e) => setChosen((c) => (e.target.checked ? [...c, s] : c.filter((x) => x !== s)))}
            />{" "}
            {s}
          </label>
        ))}
      </fieldset>
      <div className="grid gap-1">
        <Label htmlFor={`route-scope-${channelId}`}>Route from</Label>
        <Select id={`route-scope-${channelId}`} value={scope} onChange={(e) => setScope(e.target.value as typeof scope)}>
          <option value="organization">every server</option>
          <option value="tag">servers with a tag</option>
          <option value="server">one server</option>
        </Select>
      </div>
      {scope === "tag" ? (
        <div className="grid gap-1">
          <Label htmlFor={`route-tag-${channelId}`}>Tag</Label>
          <Input id={`route-tag-${channelId}`} value={tag} onChange={(e) => setTag(e.target.value)} required />
        </div>
      ) : null}
      {scope === "server" ? (
        <div className="grid gap-1">
          <Label htmlFor={`route-server-${channelId}`}>Server</Label>
          <Select id={`route-server-${channelId}`} value={serverId} onChange={(e) => setServerId(e.target.value)}>
            {servers.map((s) => (
              <option key={s.id} value={s.id}>
                {s.hostname}
              </option>
            ))}
          </Select>
        </div>
      ) : null}
      <label className="flex items-center gap-1 pb-2">
        <input type="checkbox" checked={notifyResolved} onChange={(e) => setNotifyResolved(e.target.checked)} /> also when resolved
      </label>
      <Button type="submit" size="sm" data-testid="add-route">
        Add route
      </Button>
      <div className="basis-full">
        <FormError message={error} />
      </div>
    </form>
  );
}
