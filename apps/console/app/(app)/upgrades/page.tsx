import type { Metadata } from "next";
import { PageHeader } from "@/components/ui/page-header";
import { database } from "@/lib/db";
import { can } from "@/modules/auth/lib/access";
import { pageContext } from "@/modules/auth/lib/page-context";
import { UpgradesOverview } from "@/modules/agent-upgrades/components/upgrades-overview";
import { getUpgradeOverview } from "@/modules/agent-upgrades/lib/overview";

export const metadata: Metadata = { title: "Agent upgrades" };

export default async function UpgradesPage() {
  const context = await pageContext();
  const overview = await getUpgradeOverview(database(), context.orgId);
  return (
    <>
      <PageHeader
        title="Agent upgrades"
        description="The agent versions your servers run, the releases the gateways serve, and upgrades in waves over OpAMP with automatic rollback."
      />
      <UpgradesOverview initial={overview} canStart={can(context.role, { agentUpgrade: ["start"] })} />
    </>
  );
}
