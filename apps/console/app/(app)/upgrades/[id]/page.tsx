import { ArrowLeft } from "lucide-react";
import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { database } from "@/lib/db";
import { ProblemError } from "@/lib/problem";
import { can } from "@/modules/auth/lib/access";
import { pageContext } from "@/modules/auth/lib/page-context";
import { RolloutDetail } from "@/modules/agent-upgrades/components/rollout-detail";
import { getRollout } from "@/modules/agent-upgrades/lib/get-rollout";

export const metadata: Metadata = { title: "Agent upgrade" };

export default async function UpgradePage({ params }: PageProps<"/upgrades/[id]">) {
  const { id } = await params;
  const context = await pageContext();
  const rollout = await getRollout(database(), context.orgId, id).catch((error: unknown) => {
    if (error instanceof ProblemError && error.status === 404) notFound();
    throw error;
  });
  return (
    <>
      <Link href="/upgrades" className="mb-4 inline-flex items-center gap-1 text-sm text-muted-foreground hover:text-foreground">
        <ArrowLeft className="size-4" aria-hidden /> Agent upgrades
      </Link>
      <RolloutDetail initial={rollout} canControl={can(context.role, { agentUpgrade: ["control"] })} />
    </>
  );
}
