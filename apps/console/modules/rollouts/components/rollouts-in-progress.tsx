import Link from "next/link";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import type { RolloutSummary } from "../types/rollout";
import { RolloutStatusBadge, WaveStateBadge } from "./rollout-badges";

/** Running and paused rollouts, each with its waves' states: on the policies pages. */
export function RolloutsInProgress({ rollouts, title = "Rollouts in progress" }: { rollouts: RolloutSummary[]; title?: string }) {
  return (
    <Card data-testid="rollouts-in-progress">
      <CardHeader>
        <CardTitle>{title}</CardTitle>
        <CardDescription>Changes going out in waves; each wave is watched before the next.</CardDescription>
      </CardHeader>
      <CardContent className="grid gap-3">
        {rollouts.map((rollout) => (
          <Link
            key={rollout.id}
            href={`/rollouts/${rollout.id}`}
            className="grid gap-1.5 rounded-md border p-3 text-sm hover:bg-accent/40"
            data-testid="rollout-in-progress"
            data-rollout-id={rollout.id}
          >
            <span className="flex items-center justify-between gap-2">
              <span className="font-medium">{rollout.title}</span>
              <RolloutStatusBadge status={rollout.status} />
            </span>
            <span className="text-muted-foreground">
              {rollout.applied} of {rollout.servers} server{rollout.servers === 1 ? "" : "s"} on the new policy
            </span>
            <span className="flex flex-wrap gap-1">
              {rollout.waves.map((wave) => (
                <span key={wave.wave} className="inline-flex items-center gap-1 text-xs">
                  {wave.label}
                  <WaveStateBadge state={wave.state} />
                </span>
              ))}
            </span>
            {rollout.status === "paused" && rollout.statusReason ? (
              <span className="text-xs text-destructive">{rollout.statusReason}</span>
            ) : null}
          </Link>
        ))}
      </CardContent>
    </Card>
  );
}
