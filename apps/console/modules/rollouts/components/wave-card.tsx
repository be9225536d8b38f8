"use client";
// One wave: its state and times, its servers with what each runs, and every guard's reading with
// the basis it rests on (guard-readings.tsx); the comparison's metrics with their change and interval. A holding wave
// can be let through by an owner or admin, who says why.
import Link from "next/link";
import { Card, CardContent, CardHeader, CardTitle } from "@/components/ui/card";
import { formatDateTime } from "@/lib/format";
import type { RolloutWaveView } from "../types/rollout";
import { GuardReadings } from "./guard-readings";
import { OverrideForm } from "./override-form";
import { ServerStateBadge, WaveStateBadge } from "./rollout-badges";

export function WaveCard({
  wave,
  canOverride,
  onOverride,
}: {
  wave: RolloutWaveView;
  canOverride: boolean;
  onOverride: (reason: string) => Promise<string | null>;
}) {
  return (
    <Card data-testid="rollout-wave" data-wave={wave.wave} data-state={wave.state}>
      <CardHeader>
        <CardTitle className="flex flex-wrap items-center gap-3">
          {wave.label}
          <WaveStateBadge state={wave.state} />
          <span className="text-sm font-normal text-muted-foreground">
            {wave.servers.length} server{wave.servers.length === 1 ? "" : "s"}
            {wave.attempt > 1 ? ` · attempt ${wave.attempt}` : ""}
            {wave.releasedAt ? ` · out ${formatDateTime(wave.releasedAt)}` : ""}
            {wave.guardEndsAt ? ` · guard window until ${formatDateTime(wave.guardEndsAt)}` : ""}
            {wave.overriddenBy ? ` · passed by override (${wave.overriddenBy})` : ""}
          </span>
        </CardTitle>
      </CardHeader>
      <CardContent className="grid gap-4">
        {wave.state === "holding" ? (
          <div className="grid gap-2 rounded-md border border-warning/60 bg-warning/10 p-3 text-sm" data-testid="wave-hold">
            <p data-testid="wave-hold-reason">{wave.holdReason}</p>
            {canOverride ? (
              <OverrideForm
                id={`override-${wave.wave}`}
                label="Why it may go on anyway"
                action="Override the guard"
                testId="wave-override"
                onOverride={onOverride}
              />
            ) : null}
          </div>
        ) : null}

        <GuardReadings readings={wave.readings} readingsAt={wave.readingsAt} />

        <table className="w-full text-sm" data-testid="wave-servers">
          <thead>
            <tr className="text-left text-xs text-muted-foreground">
              <th>Server</th>
              <th>State</th>
              <th>Applied</th>
              <th>Note</th>
            </tr>
          </thead>
          <tbody>
            {wave.servers.map((server) => (
              <tr key={server.serverId} data-testid="wave-server" data-hostname={server.hostname} data-state={server.state}>
                <td>
                  <Link className="underline-offset-2 hover:underline" href={`/servers/${server.serverId}`}>
                    {server.hostname}
                  </Link>
                </td>
                <td>
                  <ServerStateBadge state={server.state} />
                </td>
                <td>{server.appliedAt ? formatDateTime(server.appliedAt) : "—"}</td>
                <td className="text-xs text-muted-foreground">
                  {server.state === "failed"
                    ? server.failedMessage
                    : server.state === "rolled_back"
                      ? server.rollbackConfirmedAt
                        ? "previous policy confirmed by the agent"
                        : "previous policy sent, not confirmed yet"
                      : ""}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </CardContent>
    </Card>
  );
}
