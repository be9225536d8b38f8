"use client";
// The server page's agent version: what it runs, whether a newer release is served and how this
// agent is upgraded, its pin (set or removed here) and its recent upgrade attempts.
import Link from "next/link";
import { useState } from "react";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { FormError } from "@/components/ui/form-error";
import { Input } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import { Select } from "@/components/ui/select";
import { formatDateTime } from "@/lib/format";
import { usePolling } from "@/lib/use-polling";
import { sendJson } from "@/modules/policies/components/send-json";
import type { ServerAgentVersion } from "../types/agent-upgrades";
import { AttemptStateBadge } from "./attempt-state-badge";

export function ServerAgentPanel({ initial, canPin }: { initial: ServerAgentVersion; canPin: boolean }) {
  const { data, refresh } = usePolling<{ server: ServerAgentVersion }>(`/api/servers/${initial.serverId}/agent-version`, {
    initial: { server: initial },
  });
  const server = data?.server ?? initial;
  const [version, setVersion] = useState(server.pin?.version ?? server.releases[0] ?? "");
  const [reason, setReason] = useState("");
  const [message, setMessage] = useState<string | null>(null);

  async function pin() {
    const result = await sendJson<{ note: string | null }>(`/api/servers/${server.serverId}/agent-version`, "PUT", { version, reason });
    setMessage(result.ok ? result.data.note : result.message);
    await refresh();
  }
  async function unpin() {
    const result = await sendJson(`/api/servers/${server.serverId}/agent-version`, "DELETE");
    setMessage(result.ok ? null : result.message);
    await refresh();
  }

  return (
    <Card data-testid="server-agent-version">
      <CardHeader>
        <CardTitle className="flex items-center gap-3">
          Agent{" "}
          <span className="font-mono" data-testid="server-agent-running">
            {server.agentVersion || "unknown"}
          </span>
          {server.pin ? (
            <Badge variant="outline" data-testid="server-pin">
              pinned to {server.pin.version}
            </Badge>
          ) : server.upgradeAvailable ? (
            <Badge variant="warning" data-testid="server-upgrade-available">
              upgrade available: {server.upgradeAvailable}
            </Badge>
          ) : (
            <Badge variant="success">up to date</Badge>
          )}
        </CardTitle>
        <CardDescription>
          {server.upgrade === null
            ? "This agent is too old to take upgrades over OpAMP: run the installer again once."
            : server.upgrade.remote
              ? `Upgraded over OpAMP from the console's upgrades (installed by ${server.upgrade.installMethod}).`
              : server.upgrade.reason}{" "}
          <Link href="/upgrades" className="underline">
            Agent upgrades
          </Link>
        </CardDescription>
      </CardHeader>
      <CardContent className="grid gap-4">
        {canPin ? (
          <div className="flex flex-wrap items-end gap-3">
            <div className="grid gap-1.5">
              <Label htmlFor="pin-version">Pin to version</Label>
              <Select id="pin-version" value={version} onChange={(e) => setVersion(e.target.value)} data-testid="pin-version">
                {server.releases.map((r) => (
                  <option key={r} value={r}>
                    {r}
                  </option>
                ))}
              </Select>
            </div>
            <div className="grid gap-1.5">
              <Label htmlFor="pin-reason">Why (kept with the pin)</Label>
              <Input id="pin-reason" value={reason} onChange={(e) => setReason(e.target.value)} placeholder="vendor support matrix" />
            </div>
            <Button onClick={pin} disabled={version === ""} data-testid="pin-server">
              {server.pin ? "Change the pin" : "Pin"}
            </Button>
            {server.pin ? (
              <Button variant="outline" onClick={unpin} data-testid="unpin-server">
                Remove the pin
              </Button>
            ) : null}
          </div>
        ) : null}
        {server.pin ? (
          <p className="text-sm text-muted-foreground">
            Pinned {formatDateTime(server.pin.pinnedAt)}
            {server.pin.pinnedBy ? ` by ${server.pin.pinnedBy}` : ""}
            {server.pin.reason ? `: ${server.pin.reason}` : ""}. Upgrades leave this server out.
          </p>
        ) : null}
        <FormError message={message} />
        {server.attempts.length > 0 ? (
          <ul className="grid gap-1 text-sm" data-testid="server-upgrade-attempts">
            {server.attempts.map((a) => (
              <li key={a.id} className="flex flex-wrap items-center gap-2">
                <span className="text-muted-foreground">
                  {formatDateTime(a.reportedAt ?? a.offeredAt ?? a.finishedAt ?? new Date().toISOString())}
                </span>
                <span className="font-mono">
                  {a.fromVersion || "?"} → {a.targetVersion}
                </span>
                <AttemptStateBadge state={a.state} />
                {a.message ? <span>{a.message}</span> : null}
              </li>
            ))}
          </ul>
        ) : null}
      </CardContent>
    </Card>
  );
}
