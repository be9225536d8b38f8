import { Plus } from "lucide-react";
import type { Metadata } from "next";
import Link from "next/link";
import { buttonVariants } from "@/components/ui/button";
import { PageHeader } from "@/components/ui/page-header";
import { database } from "@/lib/db";
import { can } from "@/modules/auth/lib/access";
import { pageContext } from "@/modules/auth/lib/page-context";
import { PolicyList } from "@/modules/policies/components/policy-list";
import { listPolicies } from "@/modules/policies/lib/list-policies";
import { RolloutsInProgress } from "@/modules/rollouts/components/rollouts-in-progress";
import { listRollouts } from "@/modules/rollouts/lib/read-rollouts";

export const metadata: Metadata = { title: "Policies" };

export default async function PoliciesPage({ searchParams }: PageProps<"/policies">) {
  const context = await pageContext();
  const showArchived = (await searchParams).archived === "1";
  const policies = await listPolicies(database(), context.orgId, { includeArchived: showArchived });
  const canCreate = can(context.role, { policy: ["create"] });
  const rollouts = await listRollouts(database(), context.orgId, { active: true });
  return (
    <>
      <PageHeader
        title="Policies"
        description="What the agents' read cache, write optimisation and telemetry do. Every save is a new version; agents confirm what they applied."
        actions={
          <>
            <Link
              href={showArchived ? "/policies" : "/policies?archived=1"}
              className={buttonVariants({ variant: "ghost" })}
              data-testid="toggle-archived"
            >
              {showArchived ? "Hide archived" : "Show archived"}
            </Link>
            {canCreate && policies.length > 0 ? (
              <Link href="/policies/new" className={buttonVariants()} data-testid="create-policy">
                <Plus /> Create policy
              </Link>
            ) : null}
          </>
        }
      />
      {rollouts.length > 0 ? (
        <div className="mb-6">
          <RolloutsInProgress rollouts={rollouts} />
        </div>
      ) : null}
      <PolicyList policies={policies} canCreate={canCreate} />
    </>
  );
}
