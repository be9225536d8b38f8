import { ArrowLeft } from "lucide-react";
import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { Badge } from "@/components/ui/badge";
import { PageHeader } from "@/components/ui/page-header";
import { database } from "@/lib/db";
import { ProblemError } from "@/lib/problem";
import { can } from "@/modules/auth/lib/access";
import { pageContext } from "@/modules/auth/lib/page-context";
import { ArchiveButton } from "@/modules/policies/components/archive-button";
import { AssignmentPanel } from "@/modules/policies/components/assignment-panel";
import { PolicyWorkspace } from "@/modules/policies/components/policy-workspace";
import { getPolicy } from "@/modules/policies/lib/get-policy";
import { listAssignmentTargets } from "@/modules/policies/lib/list-assignment-targets";
import { RolloutsInProgress } from "@/modules/rollouts/components/rollouts-in-progress";
import { listRollouts } from "@/modules/rollouts/lib/read-rollouts";
import { getRolloutSettings } from "@/modules/rollouts/lib/rollout-settings";

export const metadata: Metadata = { title: "Policy" };

export default async function PolicyPage({ params }: PageProps<"/policies/[id]">) {
  const { id } = await params;
  const context = await pageContext();
  const policy = await getPolicy(database(), context.orgId, id).catch((error: unknown) => {
    if (error instanceof ProblemError && error.status === 404) notFound();
    throw error;
  });
  const targets = await listAssignmentTargets(database(), context.orgId);
  const { rolloutsRequired } = await getRolloutSettings(database(), context.orgId);
  const rollouts = await listRollouts(database(), context.orgId, { active: true, policyId: policy.id });
  const delivery = { assignments: policy.assignments, servers: targets.servers, rolloutsRequired };
  const canEdit = can(context.role, { policy: ["update"] });
  const canAssign = can(context.role, { policy: ["assign"] });
  const archived = policy.archivedAt !== null;
  return (
    <>
      <Link href="/policies" className="mb-4 inline-flex items-center gap-1 text-sm text-muted-foreground hover:text-foreground">
        <ArrowLeft className="size-4" aria-hidden /> Policies
      </Link>
      <PageHeader
        title={
          <span className="flex items-center gap-3" data-testid="policy-name">
            {policy.name}
            {archived ? <Badge variant="secondary">archived</Badge> : null}
          </span>
        }
        description={policy.description || (canEdit ? "No description." : undefined)}
        actions={canEdit ? <ArchiveButton policyId={policy.id} archived={archived} /> : null}
      />
      {!canEdit ? (
        <p className="mb-4 text-sm text-muted-foreground" data-testid="read-only">
          You can read this policy; owners and admins change it.
        </p>
      ) : null}
      <div className="grid gap-6 xl:grid-cols-[1fr_22rem]">
        <div className="min-w-0">
          <PolicyWorkspace
            key={policy.versions[0]?.version}
            policyId={policy.id}
            versions={policy.versions}
            canEdit={canEdit && !archived}
            delivery={delivery}
          />
        </div>
        <div className="grid content-start gap-6">
          {rollouts.length > 0 ? <RolloutsInProgress rollouts={rollouts} /> : null}
          <AssignmentPanel
            policyId={policy.id}
            archived={archived}
            assignments={policy.assignments}
            orgAssignments={targets.assignments}
            servers={targets.servers}
            knownTags={targets.tags}
            canEdit={canAssign}
            rolloutsRequired={rolloutsRequired}
          />
        </div>
      </div>
    </>
  );
}
