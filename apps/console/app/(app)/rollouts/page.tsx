import type { Metadata } from "next";
import Link from "next/link";
import { buttonVariants } from "@/components/ui/button";
import { Card, CardContent } from "@/components/ui/card";
import { PageHeader } from "@/components/ui/page-header";
import { database } from "@/lib/db";
import { formatDateTime } from "@/lib/format";
import { pageContext } from "@/modules/auth/lib/page-context";
import { RolloutStatusBadge, WaveStateBadge } from "@/modules/rollouts/components/rollout-badges";
import { listRollouts } from "@/modules/rollouts/lib/read-rollouts";

export const metadata: Metadata = { title: "Rollouts" };

export default async function RolloutsPage() {
  const context = await pageContext();
  const rollouts = await listRollouts(database(), context.orgId);
  return (
    <>
      <PageHeader
        title="Rollouts"
        description="Policy changes going out in waves: a canary, then percentages, each watched by guards and rolled back on a regression."
        actions={
          <Link href="/settings/rollouts" className={buttonVariants({ variant: "ghost" })} data-testid="rollout-settings-link">
            Settings
          </Link>
        }
      />
      {rollouts.length === 0 ? (
        <Card>
          <CardContent className="p-6 text-sm text-muted-foreground" data-testid="rollouts-empty">
            No rollouts yet. Saving a policy assigned to the organisation or a tag starts one.
          </CardContent>
        </Card>
      ) : (
        <Card>
          <CardContent className="p-0">
            <table className="w-full text-sm" data-testid="rollouts-table">
              <thead>
                <tr className="border-b text-left text-xs text-muted-foreground">
                  <th className="p-3">Change</th>
                  <th className="p-3">Status</th>
                  <th className="p-3">Waves</th>
                  <th className="p-3">Servers</th>
                  <th className="p-3">Started</th>
                </tr>
              </thead>
              <tbody>
                {rollouts.map((rollout) => (
                  <tr
                    key={rollout.id}
                    className="border-b last:border-0"
                    data-testid="rollout-row"
                    data-rollout-id={rollout.id}
                    data-status={rollout.status}
                  >
                    <td className="p-3">
                      <Link href={`/rollouts/${rollout.id}`} className="font-medium underline-offset-2 hover:underline">
                        {rollout.title}
                      </Link>
                    </td>
                    <td className="p-3">
                      <RolloutStatusBadge status={rollout.status} />
                    </td>
                    <td className="p-3">
                      <span className="flex flex-wrap gap-1">
                        {rollout.waves.map((w) => (
                          <span key={w.wave} className="inline-flex items-center gap-1 text-xs">
                            {w.label}
                            <WaveStateBadge state={w.state} />
                          </span>
                        ))}
                      </span>
                    </td>
                    <td className="p-3">
                      {rollout.applied} / {rollout.servers}
                    </td>
                    <td className="p-3 text-muted-foreground">{formatDateTime(rollout.createdAt)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </CardContent>
        </Card>
      )}
    </>
  );
}
