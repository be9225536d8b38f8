import { ArrowLeft } from "lucide-react";
import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { database } from "@/lib/db";
import { ProblemError } from "@/lib/problem";
import { can } from "@/modules/auth/lib/access";
import { pageContext } from "@/modules/auth/lib/page-context";
import { RolloutView } from "@/modules/rollouts/components/rollout-view";
import { getRollout } from "@/modules/rollouts/lib/read-rollouts";

export const metadata: Metadata = { title: "Rollout" };

export default async function RolloutPage({ params }: PageProps<"/rollouts/[id]">) {
  const { id } = await params;
  const context = await pageContext();
  const rollout = await getRollout(database(), context.orgId, id).catch((error: unknown) => {
    if (error instanceof ProblemError && error.status === 404) notFound();
    throw error;
  });
  return (
    <>
      <Link href="/rollouts" className="mb-4 inline-flex items-center gap-1 text-sm text-muted-foreground hover:text-foreground">
        <ArrowLeft className="size-4" aria-hidden /> Rollouts
      </Link>
      <RolloutView
        initial={rollout}
        canControl={can(context.role, { rollout: ["control"] })}
        canOverride={can(context.role, { rollout: ["override"] })}
      />
    </>
  );
}
