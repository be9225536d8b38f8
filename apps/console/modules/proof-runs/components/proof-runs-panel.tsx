"use client";
// The server page's "Proof runs": request an A/B run, watch it, cancel it, open its report.
import Link from "next/link";
import { useState } from "react";
import { Button, buttonVariants } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { FormError } from "@/components/ui/form-error";
import { usePolling } from "@/lib/use-polling";
import { sendJson } from "@/modules/policies/components/send-json";
import { activeStatuses, type OfferedProfile, type RunSummary } from "../types/proof-run";
import { ProofRunForm } from "./proof-run-form";
import { RunProgress } from "./run-progress";
import { RunStatusBadge } from "./run-status-badge";

interface Props {
  serverId: string;
  profiles: OfferedProfile[];
  paths: string[];
  initialRuns: RunSummary[];
  canRun: boolean;
}

export function ProofRunsPanel({ serverId, profiles, paths, initialRuns, canRun }: Props) {
  const [fast, setFast] = useState(initialRuns.some((run) => activeStatuses.includes(run.status)));
  const { data, refresh } = usePolling<{ runs: RunSummary[] }>(`/api/servers/${serverId}/proof-runs`, {
    initial: { runs: initialRuns },
    intervalMs: fast ? 1000 : 10_000,
  });
  const runs = data?.runs ?? initialRuns;
  const active = runs.some((run) => activeStatuses.includes(run.status));
  if (active !== fast) setFast(active);
  const [error, setError] = useState<string | null>(null);

  async function cancel(runId: string) {
    const result = await sendJson<{ run: RunSummary }>(`/api/proof-runs/${runId}/cancel`, "POST");
    setError(result.ok ? null : result.message);
    await refresh();
  }

  return (
    <Card data-testid="proof-runs">
      <CardHeader>
        <CardTitle>Proof runs</CardTitle>
        <CardDescription>
          A/B proof run on this server: after a warm-up pass the agent runs the profile in blocks of passes with the acceleration features
          off, on, on, off (alternating, so drift cancels), adding blocks until every step&apos;s change is known within your target or the
          time limit comes, in the directories you name. The report gives throughput and response time per load step, each change with its
          interval.
        </CardDescription>
      </CardHeader>
      <CardContent className="grid gap-5">
        {canRun ? (
          <ProofRunForm
            serverId={serverId}
            profiles={profiles}
            paths={paths}
            disabled={active}
            onStarted={() => {
              setFast(true);
              void refresh();
            }}
          />
        ) : (
          <p className="text-sm text-muted-foreground">Viewers can see proof runs; an owner or admin starts and cancels them.</p>
        )}
        <FormError message={error} />
        {runs.length === 0 ? (
          <p className="text-sm text-muted-foreground">No proof runs on this server yet.</p>
        ) : (
          <ul className="grid gap-3" data-testid="proof-run-list">
            {runs.map((run) => (
              <li key={run.id} className="grid gap-2 rounded-lg border p-3" data-testid="proof-run" data-run-id={run.id}>
                <div className="flex flex-wrap items-center justify-between gap-2">
                  <div className="flex items-center gap-2 text-sm">
                    <RunStatusBadge status={run.status} />
                    <span className="font-medium">{run.profile}</span>
                    <span className="text-muted-foreground">requested {new Date(run.createdAt).toLocaleString()}</span>
                  </div>
                  <div className="flex gap-2">
                    {run.hasReport ? (
                      <Link
                        href={`/proof-runs/${run.id}`}
                        className={buttonVariants({ size: "sm", variant: "outline" })}
                        data-testid="open-report"
                      >
                        {run.status === "succeeded" ? "Open report" : "Open partial report"}
                      </Link>
                    ) : null}
                    {canRun && (run.status === "queued" || run.status === "running") ? (
                      <Button size="sm" variant="outline" onClick={() => void cancel(run.id)} data-testid="cancel-run">
                        Cancel
                      </Button>
                    ) : null}
                  </div>
                </div>
                {activeStatuses.includes(run.status) ? <RunProgress run={run} /> : null}
                {run.error ? (
                  <p className="text-sm text-destructive" data-testid="run-error">
                    {run.error}
                  </p>
                ) : null}
              </li>
            ))}
          </ul>
        )}
      </CardContent>
    </Card>
  );
}
