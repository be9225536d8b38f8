"use client";
// The Agent upgrades page: what the gateways serve, the versions across the fleet and which
// servers have an upgrade available, starting an upgrade, and the upgrades started.
import Link from "next/link";
import { Badge } from "@/components/ui/badge";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { FormError } from "@/components/ui/form-error";
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import { formatDateTime } from "@/lib/format";
import { usePolling } from "@/lib/use-polling";
import { describeScope } from "../lib/scope-text";
import type { UpgradeOverview } from "../types/agent-upgrades";
import { AttemptStateBadge, RolloutStatusBadge } from "./attempt-state-badge";
import { StartUpgradeForm } from "./start-upgrade-form";

export function UpgradesOverview({ initial, canStart }: { initial: UpgradeOverview; canStart: boolean }) {
  const { data, error } = usePolling<UpgradeOverview>("/api/agent-upgrades", { initial });
  const overview = data ?? initial;
  const active = overview.rollouts.find((r) => r.status === "running" || r.status === "paused");
  const available = overview.servers.filter((s) => s.upgradeAvailable !== null).length;
  return (
    <div className="grid gap-6">
      <FormError message={error} />
      <Card data-testid="fleet-versions">
        <CardHeader>
          <CardTitle>Versions across the fleet</CardTitle>
          <CardDescription>
            {overview.latestVersion
              ? `The gateways serve up to ${overview.latestVersion}; ${available} of ${overview.servers.length} servers run an older agent and are not pinned.`
              : "The gateways serve no agent releases yet (SPINDLE_AGENT_DIST_DIR)."}
          </CardDescription>
        </CardHeader>
        <CardContent className="grid gap-4">
          <div className="flex flex-wrap gap-2" data-testid="version-counts">
            {overview.versions.map((v) => (
              <Badge key={v.version} variant="outline">
                {v.version || "unknown"}: {v.servers} server{v.servers === 1 ? "" : "s"}
              </Badge>
            ))}
          </div>
          <Table>
            <TableHeader>
              <TableRow>
                <TableHead>Server</TableHead>
                <TableHead>Agent</TableHead>
                <TableHead>Upgrade</TableHead>
                <TableHead>How it upgrades</TableHead>
              </TableRow>
            </TableHeader>
            <TableBody>
              {overview.servers.map((s) => (
                <TableRow key={s.serverId} data-testid="fleet-version-row" data-hostname={s.hostname}>
                  <TableCell>
                    <Link className="font-medium hover:underline" href={`/servers/${s.serverId}`}>
                      {s.hostname}
                    </Link>
                    {s.online ? null : <span className="ml-2 text-xs text-muted-foreground">offline</span>}
                  </TableCell>
                  <TableCell className="font-mono text-sm" data-testid="agent-version">
                    {s.agentVersion || "unknown"}
                    {s.pinnedVersion ? (
                      <Badge className="ml-2" variant="outline">
                        pinned to {s.pinnedVersion}
                      </Badge>
                    ) : null}
                  </TableCell>
                  <TableCell>
                    {s.live ? (
                      <span className="flex items-center gap-2 text-sm">
                        {s.live.targetVersion} <AttemptStateBadge state={s.live.state} />
                      </span>
                    ) : s.pinnedVersion ? (
                      <span className="text-sm text-muted-foreground" data-testid="held-by-pin">
                        held at its pin
                      </span>
                    ) : s.upgradeAvailable ? (
                      <Badge variant="warning" data-testid="upgrade-available">
                        upgrade available: {s.upgradeAvailable}
                      </Badge>
                    ) : (
                      <span className="text-sm text-muted-foreground">up to date</span>
                    )}
                  </TableCell>
                  <TableCell className="text-sm text-muted-foreground">
                    {s.upgrade === null
                      ? "agent too old to upgrade over OpAMP: run the installer once"
                      : s.upgrade.remote
                        ? `over OpAMP (${s.upgrade.installMethod})`
                        : s.upgrade.reason}
                  </TableCell>
                </TableRow>
              ))}
            </TableBody>
          </Table>
        </CardContent>
      </Card>

      {canStart ? (
        <Card>
          <CardHeader>
            <CardTitle>Start an upgrade</CardTitle>
            <CardDescription>
              Servers pinned to a version, installed by a package manager or Kubernetes, or already on the version are left out and listed
              with the reason.
            </CardDescription>
          </CardHeader>
          <CardContent>
            <StartUpgradeForm
              releases={overview.releases}
              servers={overview.servers}
              disabledReason={
                active
                  ? `An upgrade to ${active.targetVersion} is ${active.status}: finish or cancel it first.`
                  : overview.releases.length === 0
                    ? "No release is served."
                    : null
              }
            />
          </CardContent>
        </Card>
      ) : null}

      <Card data-testid="rollouts">
        <CardHeader>
          <CardTitle>Upgrades</CardTitle>
        </CardHeader>
        <CardContent>
          {overview.rollouts.length === 0 ? (
            <p className="text-sm text-muted-foreground">No upgrade has been started yet.</p>
          ) : (
            <Table>
              <TableHeader>
                <TableRow>
                  <TableHead>Started</TableHead>
                  <TableHead>To</TableHead>
                  <TableHead>Servers</TableHead>
                  <TableHead>Status</TableHead>
                  <TableHead>Progress</TableHead>
                </TableRow>
              </TableHeader>
              <TableBody>
                {overview.rollouts.map((r) => (
                  <TableRow key={r.id} data-testid="rollout-row">
                    <TableCell>
                      <Link className="hover:underline" href={`/upgrades/${r.id}`}>
                        {formatDateTime(r.createdAt)}
                      </Link>
                      {r.createdBy ? <span className="text-xs text-muted-foreground"> by {r.createdBy}</span> : null}
                    </TableCell>
                    <TableCell className="font-mono text-sm">{r.targetVersion}</TableCell>
                    <TableCell className="text-sm">{describeScope(r.scope)}</TableCell>
                    <TableCell>
                      <RolloutStatusBadge status={r.status} />
                    </TableCell>
                    <TableCell className="text-sm text-muted-foreground">
                      {r.counts.installed ?? 0} installed{r.counts.rolled_back ? `, ${r.counts.rolled_back} rolled back` : ""}
                      {r.counts.failed ? `, ${r.counts.failed} failed` : ""}
                      {r.status === "running" || r.status === "paused" ? `, wave ${r.currentWave + 1} of ${r.waveCount}` : ""}
                    </TableCell>
                  </TableRow>
                ))}
              </TableBody>
            </Table>
          )}
        </CardContent>
      </Card>

      <Card data-testid="releases">
        <CardHeader>
          <CardTitle>Releases the gateways serve</CardTitle>
          <CardDescription>
            Each release&apos;s SHA256SUMS is signed with the gateway&apos;s key; agents check it before an upgrade runs.
          </CardDescription>
        </CardHeader>
        <CardContent>
          <Table>
            <TableHeader>
              <TableRow>
                <TableHead>Version</TableHead>
                <TableHead>Binaries</TableHead>
                <TableHead>Packages</TableHead>
              </TableRow>
            </TableHeader>
            <TableBody>
              {overview.releases.map((r) => (
                <TableRow key={r.version}>
                  <TableCell className="font-mono text-sm">{r.version}</TableCell>
                  <TableCell className="text-sm">{r.platforms.join(", ") || "none"}</TableCell>
                  <TableCell className="text-sm">{r.packages.join(", ") || "none"}</TableCell>
                </TableRow>
              ))}
            </TableBody>
          </Table>
        </CardContent>
      </Card>
    </div>
  );
}
