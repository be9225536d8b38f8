"use client";
import { Megaphone, Plus, Trash2 } from "lucide-react";
import { useState } from "react";
import { Alert, AlertDescription, AlertTitle } from "@/components/ui/alert";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { EmptyState } from "@/components/ui/empty-state";
import { FormError } from "@/components/ui/form-error";
import { fetchJson } from "@/lib/fetch-json";
import { kindLabels } from "../lib/channel-form";
import type { ChannelSummary } from "../types/channels";
import { ChannelForm } from "./channel-form";
import { RouteForm } from "./route-form";
import { SendTestButton } from "./send-test";

type Route = ChannelSummary["routes"][number];

function describeRoute(route: Route, hostnames: Map<string, string>): string {
  const where =
    route.scope === "organization"
      ? "every server"
      : route.scope === "tag"
        ? `servers tagged ${route.tag}`
        : (hostnames.get(route.serverId ?? "") ?? "a removed server");
  return `${route.severities.join(", ")} from ${where}${route.notifyResolved ? ", and their resolves" : ", not their resolves"}`;
}

/** Every channel with its settings (secrets as hints), routes, switch, edit, delete and send test. */
export function ChannelsView({
  initial,
  servers,
  canManage,
}: {
  initial: ChannelSummary[];
  servers: { id: string; hostname: string }[];
  canManage: boolean;
}) {
  const [channels, setChannels] = useState(initial);
  const [editing, setEditing] = useState<string | "new" | null>(null);
  const [revealed, setRevealed] = useState<{ name: string; secret: string } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const hostnames = new Map(servers.map((s) => [s.id, s.hostname]));
  const replace = (saved: ChannelSummary) =>
    setChannels((all) => [...all.filter((c) => c.id !== saved.id), saved].sort((a, b) => a.name.localeCompare(b.name)));

  async function act(work: () => Promise<void>) {
    setError(null);
    try {
      await work();
    } catch (failure) {
      setError(failure instanceof Error ? failure.message : String(failure));
    }
  }
  const patch = (c: ChannelSummary, change: { enabled: boolean } | { recommendationDigest: boolean }) =>
    act(async () =>
      replace(
        (await fetchJson<{ channel: ChannelSummary }>(`/api/alerts/channels/${c.id}`, { method: "PATCH", body: JSON.stringify(change) }))
          .channel,
      ),
    );
  const toggle = (c: ChannelSummary) => patch(c, { enabled: !c.enabled });
  const remove = (c: ChannelSummary) =>
    act(async () => {
      if (!window.confirm(`Delete the channel "${c.name}" with its routes and delivery history?`)) return;
      await fetchJson(`/api/alerts/channels/${c.id}`, { method: "DELETE" });
      setChannels((all) => all.filter((x) => x.id !== c.id));
    });
  const removeRoute = (c: ChannelSummary, route: Route) =>
    act(async () => {
      await fetchJson(`/api/alerts/routes/${route.id}`, { method: "DELETE" });
      replace({ ...c, routes: c.routes.filter((r) => r.id !== route.id) });
    });

  return (
    <div className="grid gap-4">
      {canManage && editing !== "new" ? (
        <div>
          <Button onClick={() => setEditing("new")} data-testid="create-channel">
            <Plus /> New channel
          </Button>
        </div>
      ) : null}
      {editing === "new" ? (
        <ChannelForm
          onCancel={() => setEditing(null)}
          onSaved={({ channel, generatedSigningSecret }) => {
            replace(channel);
            setEditing(null);
            if (generatedSigningSecret) setRevealed({ name: channel.name, secret: generatedSigningSecret });
          }}
        />
      ) : null}
      {revealed ? (
        <Alert data-testid="generated-secret">
          <AlertTitle>Signing secret of “{revealed.name}”: copy it now, it is not shown again</AlertTitle>
          <AlertDescription>
            <code className="break-all">{revealed.secret}</code>{" "}
            <Button variant="ghost" size="sm" onClick={() => setRevealed(null)}>
              Done
            </Button>
          </AlertDescription>
        </Alert>
      ) : null}
      <FormError message={error} />
      {channels.length === 0 ? (
        <EmptyState
          icon={Megaphone}
          title="No notification channels"
          data-testid="channels-empty"
          description="Alerts show here and on the server pages but reach nobody until a channel (e-mail, Slack, Teams, PagerDuty or a signed webhook) and a route to it exist."
        />
      ) : (
        channels.map((c) => (
          <section
            key={c.id}
            className="grid gap-3 rounded-xl border bg-card p-4 shadow-sm"
            data-testid="channel"
            data-name={c.name}
            data-kind={c.kind}
            data-enabled={c.enabled}
          >
            <div className="flex flex-wrap items-center gap-2">
              <h2 className="font-semibold">{c.name}</h2>
              <Badge variant="outline">{kindLabels[c.kind]}</Badge>
              {!c.enabled ? <Badge variant="secondary">off</Badge> : null}
              <div className="ml-auto flex flex-wrap items-center gap-2">
                {canManage ? <SendTestButton channelId={c.id} /> : null}
                {canManage ? (
                  <>
                    <label className="flex items-center gap-1 text-sm">
                      <input type="checkbox" checked={c.enabled} onChange={() => toggle(c)} aria-label={`${c.name} enabled`} /> enabled
                    </label>
                    {c.kind !== "pagerduty" ? (
                      <label
                        className="flex items-center gap-1 text-sm"
                        title="New recommendations in one message per period (a day by default): what to change, why, the predicted effect and a link to each"
                      >
                        <input
                          type="checkbox"
                          checked={c.recommendationDigest}
                          onChange={() => patch(c, { recommendationDigest: !c.recommendationDigest })}
                          aria-label={`${c.name} recommendations digest`}
                          data-testid="channel-digest"
                        />{" "}
                        recommendations digest
                      </label>
                    ) : null}
                    <Button variant="outline" size="sm" onClick={() => setEditing(c.id)} data-testid="edit-channel">
                      Edit
                    </Button>
                    <Button variant="ghost" size="sm" onClick={() => remove(c)} data-testid="delete-channel">
                      <Trash2 /> Delete
                    </Button>
                  </>
                ) : null}
              </div>
            </div>
            <dl className="grid gap-x-6 gap-y-1 text-sm sm:grid-cols-[10rem_1fr]" data-testid="channel-settings">
              {Object.entries(c.config).map(([key, value]) => (
                <div key={key} className="contents">
                  <dt className="text-muted-foreground">{key}</dt>
                  <dd className="break-all">{Array.isArray(value) ? value.join(", ") : String(value ?? "none")}</dd>
                </div>
              ))}
              {Object.entries(c.secretHints).map(([key, value]) => (
                <div key={key} className="contents">
                  <dt className="text-muted-foreground">{key}</dt>
                  <dd data-testid="secret-hint">{value}</dd>
                </div>
              ))}
            </dl>
            {editing === c.id ? (
              <ChannelForm
                channel={c}
                onCancel={() => setEditing(null)}
                onSaved={({ channel }) => {
                  replace(channel);
                  setEditing(null);
                }}
              />
            ) : null}
            <div className="grid gap-2">
              <h3 className="text-sm font-medium">Routes</h3>
              {c.routes.length === 0 ? (
                <p className="text-sm text-muted-foreground" data-testid="no-routes">
                  No route: nothing is sent to this channel yet.
                </p>
              ) : (
                <ul className="grid gap-1 text-sm">
                  {c.routes.map((r) => (
                    <li key={r.id} className="flex items-center gap-2" data-testid="route">
                      {describeRoute(r, hostnames)}
                      {canManage ? (
                        <Button variant="ghost" size="sm" onClick={() => removeRoute(c, r)} aria-label="Remove route">
                          <Trash2 />
                        </Button>
                      ) : null}
                    </li>
                  ))}
                </ul>
              )}
              {canManage ? <RouteForm channelId={c.id} servers={servers} onSaved={replace} /> : null}
            </div>
          </section>
        ))
      )}
    </div>
  );
}
