import { ArrowLeft } from "lucide-react";
import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { Alert, AlertDescription, AlertTitle } from "@/components/ui/alert";
import { database } from "@/lib/db";
import { env } from "@/lib/env";
import { ProblemError } from "@/lib/problem";
import { pageContext } from "@/modules/auth/lib/page-context";
import { ProofRunReportView } from "@/modules/proof-runs/components/proof-run-report";
import { getRun } from "@/modules/proof-runs/lib/runs";
import { proofRunReport } from "@/modules/proof-runs/types/proof-run";

export const metadata: Metadata = { title: "Proof run" };

/** A proof run's report: a link members of the organisation can share; anyone else gets 404. */
export default async function ProofRunPage({ params }: PageProps<"/proof-runs/[runId]">) {
  const { runId } = await params;
  const context = await pageContext();
  const run = await getRun(database(), context.orgId, runId).catch((error: unknown) => {
    if (error instanceof ProblemError && error.status === 404) notFound();
    throw error;
  });
  // The link members share: the console's public origin, never one a request's headers claim.
  const origin = env().SPINDLE_CONSOLE_URL;
  const report = proofRunReport.safeParse(run.report);
  return (
    <>
      <Link
        href={`/servers/${run.serverId}`}
        className="mb-4 inline-flex items-center gap-1 text-sm text-muted-foreground hover:text-foreground print:hidden"
      >
        <ArrowLeft className="size-4" aria-hidden /> {run.hostname}
      </Link>
      {report.success ? (
        <ProofRunReportView runId={run.id} hostname={run.hostname} report={report.data} shareUrl={`${origin}/proof-runs/${run.id}`} />
      ) : (
        <Alert data-testid="no-report">
          <AlertTitle>No report</AlertTitle>
          <AlertDescription>
            {run.status === "succeeded"
              ? `The agent's report could not be read: ${report.error.issues[0]?.message ?? "unknown shape"}. Update the console and the agent to matching versions.`
              : `This run has ${run.status}${run.error ? `: ${run.error}` : ""}. It finished no pass to report (a run that stops early keeps the passes it finished).`}
          </AlertDescription>
        </Alert>
      )}
    </>
  );
}
