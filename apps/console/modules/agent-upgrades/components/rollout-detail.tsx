"use client";
// One upgrade, followed live: its status and why, each wave's servers with the state their agent
// reported and its message, each wave's measured guards (wave-guards.tsx), and pause, resume (past
// the failures and a tripped guard, or retrying them), cancel and the override of a hold.
import { useState } from "react";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { FormError } from "@/components/ui/form-error";
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import { formatDateTime } from "@/lib/format";
import { usePolling } from "@/lib/use-polling";
import { sendJson } from "@/modules/policies/components/send-json";
import { describeScope } from "../lib/scope-text";
import type { AttemptView, RolloutDetail as Detail } from "../types/agent-upgrades";
import { AttemptStateBadge, RolloutStatusBadge } from "./attempt-state-badge";
import { WaveGuards } from "./wave-guards";

function AttemptRows({ attempts }: { attempts: AttemptView[] }) {
  return (
    <Table>
      <TableHeader>
        <TableRow>
          <TableHead>Server</TableHead>
          <TableHead>From</TableHead>
          <TableHead>State</TableHead>
          <TableHead>What the agent said</TableHead>
          <TableHead>Last report</TableHead>
        </TableRow>
      </TableHeader>
      <TableBody>
        {attempts.map((a) => (
          <TableRow key={a.id} data-testid="attempt-row" data-hostname={a.hostname}>
            <TableCell className="font-medium">{a.hostname}</TableCell>
            <TableCell className="font-mono text-sm">{a.fromVersion || "unknown"}</TableCell>
            <TableCell>
              <AttemptStateBadge state={a.state} />
              {a.acknowledged ? <span className="ml-2 text-xs text-muted-foreground">resumed past</span> : null}
            </TableCell>
            <TableCell className="max-w-md text-sm" data-testid="attempt-message">
              {a.message || <span className="text-muted-foreground">—</span>}
            </TableCell>
            <TableCell className="text-sm text-muted-foreground">
              {a.reportedAt ? formatDateTime(a.reportedAt) : a.offeredAt ? `offered ${formatDateTime(a.offeredAt)}` : "—"}
            </TableCell>
          </TableRow>
        ))}
      </TableBody>
    </Table>
  );
}

/** Where the current wave is: installing, soaking, or held by its guards for want of data. */
function currentStage(rollout: Detail): string {
  if (!rollout.waveInstalledAt) return ": installing";
  const guards = rollout.waves[rollout.currentWave]?.guards;
  if (guards?.verdict === "hold" && guards.overriddenAt === null) return ": installed, held by its guards (not enough data; see below)";
  return `: installed, soaking since ${formatDateTime(rollout.waveInstalledAt)}`;
}

export function RolloutDetail({ initial, canControl }: { initial: Detail; canControl: boolean }) {
  const live = initial.status === "running" || initial.status === "paused";
  const { data, refresh } = usePolling<{ rollout: Detail }>(`/api/agent-upgrades/${initial.id}`, {
    initial: { rollout: initial },
    intervalMs: live ? 2000 : 30_000,
  });
  const rollout = data?.rollout ?? initial;
  const [error, setError] = useState<string | null>(null);
  const [retry, setRetry] = useState(false);

  async function act(action: "pause" | "resume" | "cancel") {
    const result = await sendJson(`/api/agent-upgrades/${rollout.id}/${action}`, "POST", action === "resume" ? { retryFailed: retry } : {});
    setError(result.ok ? null : result.message);
    await refresh();
  }

  async function override(reason: string): Promise<string | null> {
    const result = await sendJson(`/api/agent-upgrades/${rollout.id}/override`, "POST", { reason });
    await refresh();
    return result.ok ? null : result.message;
  }

  return (
    <div className="grid gap-6">
      <Card>
        <CardHeader>
          <CardTitle className="flex items-center gap-3">
            Agent {rollout.targetVersion} on {describeScope(rollout.scope)} <RolloutStatusBadge status={rollout.status} />
          </CardTitle>
          <CardDescription>
            Started {formatDateTime(rollout.createdAt)}
            {rollout.createdBy ? ` by ${rollout.createdBy}` : ""}; canary of {rollout.plan.canary}, then{" "}
            {rollout.plan.wavePercents.join(" %, ")} %, each wave soaking {rollout.plan.soakMinutes} min and passing the measured guards
            before the next is offered.
            {rollout.status === "running" ? ` Wave ${rollout.currentWave + 1} of ${rollout.waveCount}${currentStage(rollout)}.` : ""}
          </CardDescription>
        </CardHeader>
        <CardContent className="grid gap-3">
          {rollout.statusReason ? (
            <p className="text-sm" data-testid="rollout-reason">
              <strong>{rollout.status === "paused" ? "Paused: " : ""}</strong>
              {rollout.statusReason}
            </p>
          ) : null}
          <FormError message={error} />
          {canControl && live ? (
            <div className="flex flex-wrap items-center gap-3">
              {rollout.status === "running" ? (
                <Button variant="outline" onClick={() => act("pause")} data-testid="pause-upgrade">
                  Pause
                </Button>
              ) : null}
              {rollout.status === "paused" ? (
                <>
                  <Button onClick={() => act("resume")} data-testid="resume-upgrade">
                    Resume
                  </Button>
                  <label className="flex items-center gap-2 text-sm">
                    <input type="checkbox" checked={retry} onChange={(e) => setRetry(e.target.checked)} /> offer the version again to the
                    servers that failed
                  </label>
                </>
              ) : null}
              <Button variant="destructive" onClick={() => act("cancel")} data-testid="cancel-upgrade">
                Cancel the upgrade
              </Button>
            </div>
          ) : null}
        </CardContent>
      </Card>
      {rollout.waves.map((wave) => (
        <Card key={wave.index} data-testid="wave" data-wave={wave.index}>
          <CardHeader>
            <CardTitle>{wave.index === 0 ? "Canary" : `Wave ${wave.index}`}</CardTitle>
          </CardHeader>
          <CardContent className="grid gap-4">
            <AttemptRows attempts={wave.attempts} />
            {wave.guards ? (
              <WaveGuards
                wave={wave.index}
                guards={wave.guards}
                canOverride={canControl && rollout.status === "running" && wave.index === rollout.currentWave}
                onOverride={override}
              />
            ) : null}
          </CardContent>
        </Card>
      ))}
      {rollout.skipped.length > 0 ? (
        <Card data-testid="skipped">
          <CardHeader>
            <CardTitle>Left out</CardTitle>
            <CardDescription>These servers are not offered the version, for the reason given.</CardDescription>
          </CardHeader>
          <CardContent>
            <AttemptRows attempts={rollout.skipped} />
          </CardContent>
        </Card>
      ) : null}
    </div>
  );
}
