import type { Metadata } from "next";
import Link from "next/link";
import { buttonVariants } from "@/components/ui/button";
import { PageHeader } from "@/components/ui/page-header";
import { database } from "@/lib/db";
import { AuditLogTable } from "@/modules/audit/components/audit-log-table";
import { listAuditLog } from "@/modules/audit/lib/list-audit-log";
import { pageContext } from "@/modules/auth/lib/page-context";

export const metadata: Metadata = { title: "Audit log" };

export default async function AuditLogPage({ searchParams }: PageProps<"/settings/audit">) {
  const context = await pageContext();
  const before = (await searchParams).before;
  const { entries, nextBefore } = await listAuditLog(database(), context.orgId, {
    before: typeof before === "string" ? before : undefined,
  });
  return (
    <>
      <PageHeader
        title="Audit log"
        description={`Who changed what in ${context.orgName}, newest first.`}
        actions={
          before ? (
            <Link href="/settings/audit" className={buttonVariants({ variant: "ghost" })}>
              Newest
            </Link>
          ) : null
        }
      />
      <AuditLogTable entries={entries} />
      {nextBefore ? (
        <div className="mt-4 flex justify-center">
          <Link href={`/settings/audit?before=${nextBefore}`} className={buttonVariants({ variant: "outline" })} data-testid="audit-older">
            Older entries
          </Link>
        </div>
      ) : null}
    </>
  );
}
