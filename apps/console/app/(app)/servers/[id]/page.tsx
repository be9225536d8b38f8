import { ArrowLeft } from "lucide-react";
import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { database } from "@/lib/db";
import { ProblemError } from "@/lib/problem";
import { pageContext } from "@/modules/auth/lib/page-context";
import { ServerDetail } from "@/modules/fleet/components/server-detail";
import { OpenAlerts } from "@/modules/alerts/components/open-alerts";
import { listAlertTargets } from "@/modules/alerts/lib/silence-targets";
import { ServerAccessPanel } from "@/modules/fleet/components/server-access-panel";
import { getServer } from "@/modules/fleet/lib/get-server";
import { getAgentState } from "@/modules/fleet/lib/server-lifecycle";
import { can } from "@/modules/auth/lib/access";
import { ServerGainsSection } from "@/modules/gains/components/server-gains-section";
import { CacheCurvesSection } from "@/modules/cache-curves/components/cache-curves-section";
import { ServerPolicyPanel } from "@/modules/policies/components/server-policy-panel";
import { getServerPolicy } from "@/modules/policies/lib/get-server-policy";
import { ProofRunsPanel } from "@/modules/proof-runs/components/proof-runs-panel";
import { getServerOffer } from "@/modules/proof-runs/lib/profiles";
import { listRuns } from "@/modules/proof-runs/lib/runs";
import { ServerRecommendationsPanel } from "@/modules/recommendations/components/server-recommendations-panel";
import { listRecommendations } from "@/modules/recommendations/lib/list-recommendations";
import { ServerAgentPanel } from "@/modules/agent-upgrades/components/server-agent-panel";
import { getServerAgentVersion } from "@/modules/agent-upgrades/lib/server-agent";

export const metadata: Metadata = { title: "Server" };

export default async function ServerPage({ params }: PageProps<"/servers/[id]">) {
  const { id } = await params;
  const context = await pageContext();
  const server = await getServer(database(), context.orgId, id).catch((error: unknown) => {
    if (error instanceof ProblemError && error.status === 404) notFound();
    throw error;
  });
  const [serverPolicy, runs, offer, alertTargets, recommendations, agentVersion] = await Promise.all([
    getServerPolicy(database(), context.orgId, server.id),
    listRuns(database(), context.orgId, server.id),
    getServerOffer(database(), context.orgId, server.id),
    listAlertTargets(database(), context.orgId),
    listRecommendations(database(), context.orgId, { serverId: server.id }),
    getServerAgentVersion(database(), context.orgId, server.id),
  ]);
  const canManage = can(context.role, { server: ["revoke", "delete"] });
  const agentState = canManage ? await getAgentState(database(), context, server.id) : null;
  return (
    <>
      <Link href="/servers" className="mb-4 inline-flex items-center gap-1 text-sm text-muted-foreground hover:text-foreground">
        <ArrowLeft className="size-4" aria-hidden /> Servers
      </Link>
      <ServerDetail
        initialServer={server}
        alerts={
          <section className="grid gap-2" data-testid="server-alerts" aria-labelledby="server-alerts-title">
            <h2 id="server-alerts-title" className="text-lg font-semibold">
              Alerts on this server
            </h2>
            <OpenAlerts
              serverId={server.id}
              canSilence={can(context.role, { alertSilence: ["create"] })}
              canAcknowledge={can(context.role, { alert: ["acknowledge"] })}
              targets={alertTargets}
            />
          </section>
        }
      />
      <div className="mt-6">
        <ServerPolicyPanel initial={serverPolicy} canEdit={can(context.role, { policy: ["assign"] })} />
      </div>
      <div className="mt-6">
        <ServerRecommendationsPanel
          serverId={server.id}
          initial={recommendations}
          canAct={can(context.role, { recommendation: ["apply"] })}
        />
      </div>
      <div className="mt-6">
        <ServerGainsSection serverId={server.id} />
        {/* The anchor recommendations' evidence links point at. */}
        <div className="mt-6 scroll-mt-6" id="miss-ratio-curves">
          <CacheCurvesSection serverId={server.id} />
        </div>
        <ProofRunsPanel
          serverId={server.id}
          profiles={offer.profiles}
          paths={offer.paths}
          initialRuns={runs}
          canRun={can(context.role, { proofRun: ["start"] })}
        />
      </div>
      <div className="mt-6">
        <ServerAgentPanel initial={agentVersion} canPin={can(context.role, { agentUpgrade: ["pin"] })} />
      </div>
      {agentState ? (
        <div className="mt-6">
          <ServerAccessPanel serverId={server.id} hostname={server.hostname} initial={agentState} />
        </div>
      ) : null}
    </>
  );
}
