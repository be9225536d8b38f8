import { ArrowLeft } from "lucide-react";
import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { prisma } from "@/lib/db";
import { ProblemError } from "@/lib/problem";
import { pageContext } from "@/modules/auth/lib/page-context";
import { ServerDetail } from "@/modules/fleet/components/server-detail";
import { getServer } from "@/modules/fleet/lib/get-server";
import { can } from "@/modules/auth/lib/access";
import { ServerPolicyPanel } from "@/modules/policies/components/server-policy-panel";
import { getServerPolicy } from "@/modules/policies/lib/get-server-policy";

export const metadata: Metadata = { title: "Server" };

export default async function ServerPage({ params }: PageProps<"/servers/[id]">) {
  const { id } = await params;
  const context = await pageContext();
  const server = await getServer(prisma(), context.orgId, id).catch((error: unknown) => {
    if (error instanceof ProblemError && error.status === 404) notFound();
    throw error;
  });
  const serverPolicy = await getServerPolicy(prisma(), context.orgId, server.id);
  return (
    <>
      <Link href="/servers" className="mb-4 inline-flex items-center gap-1 text-sm text-muted-foreground hover:text-foreground">
        <ArrowLeft className="size-4" aria-hidden /> Servers
      </Link>
      <ServerDetail initialServer={server} />
      <div className="mt-6">
        <ServerPolicyPanel initial={serverPolicy} canEdit={can(context.role, { policy: ["assign"] })} />
      </div>
    </>
  );
}
