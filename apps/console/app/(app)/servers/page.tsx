import { Plus } from "lucide-react";
import type { Metadata } from "next";
import Link from "next/link";
import { buttonVariants } from "@/components/ui/button";
import { PageHeader } from "@/components/ui/page-header";
import { database } from "@/lib/db";
import { can } from "@/modules/auth/lib/access";
import { pageContext } from "@/modules/auth/lib/page-context";
import { FleetTable } from "@/modules/fleet/components/fleet-table";
import { listServers } from "@/modules/fleet/lib/list-servers";
import { ONLINE_WITHIN_SECONDS } from "@/modules/fleet/lib/server-status";

export const metadata: Metadata = { title: "Servers" };

export default async function ServersPage() {
  const context = await pageContext();
  const servers = await listServers(database(), context.orgId);
  const canAdd = can(context.role, { enrollmentToken: ["create"] });
  return (
    <>
      <PageHeader
        title="Servers"
        description={`Online means the agent reported within the last ${ONLINE_WITHIN_SECONDS} seconds.`}
        actions={
          canAdd && servers.length > 0 ? (
            <Link href="/servers/add" className={buttonVariants()} data-testid="add-server">
              <Plus /> Add server
            </Link>
          ) : null
        }
      />
      <FleetTable initialServers={servers} canAdd={canAdd} />
    </>
  );
}
