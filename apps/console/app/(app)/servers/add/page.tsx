import { ArrowLeft } from "lucide-react";
import type { Metadata } from "next";
import Link from "next/link";
import { PageHeader } from "@/components/ui/page-header";
import { database } from "@/lib/db";
import { can } from "@/modules/auth/lib/access";
import { pageContext } from "@/modules/auth/lib/page-context";
import { EnrollmentPanel } from "@/modules/enrollment/components/enrollment-panel";
import { listEnrollmentTokens } from "@/modules/enrollment/lib/list-enrollment-tokens";

export const metadata: Metadata = { title: "Add server" };

export default async function AddServerPage() {
  const context = await pageContext();
  const tokens = await listEnrollmentTokens(database(), context.orgId);
  return (
    <>
      <Link href="/servers" className="mb-4 inline-flex items-center gap-1 text-sm text-muted-foreground hover:text-foreground">
        <ArrowLeft className="size-4" aria-hidden /> Servers
      </Link>
      <PageHeader
        title="Add a Linux server"
        description="Run one command on the server: it installs the Spindle agent, enrols it with your organisation and starts sending disk telemetry."
      />
      <EnrollmentPanel initialTokens={tokens} canManage={can(context.role, { enrollmentToken: ["create"] })} />
    </>
  );
}
