import { database } from "@/lib/db";
import { problemResponse, ProblemError } from "@/lib/problem";
import { requireOrgContext } from "@/modules/auth/lib/org-context";
import { reportCsv } from "@/modules/bench/lib/report-csv";
import { getRun } from "@/modules/bench/lib/runs";
import { benchReport } from "@/modules/bench/types/bench";

/** The report's steps as CSV (text/csv, downloaded as a file). */
export async function GET(request: Request, { params }: { params: Promise<{ runId: string }> }): Promise<Response> {
  try {
    const context = await requireOrgContext(request.headers);
    const run = await getRun(database(), context.orgId, (await params).runId);
    const report = benchReport.safeParse(run.report);
    if (!report.success) throw new ProblemError(409, "No report", `This run has ${run.status} and has no report to export.`);
    const name = `spindle-proof-run-${run.hostname.replace(/[^A-Za-z0-9._-]+/g, "_")}-${run.profile}-${run.id.slice(0, 8)}.csv`;
    return new Response(reportCsv(report.data), {
      headers: { "content-type": "text/csv; charset=utf-8", "content-disposition": `attachment; filename="${name}"`, "cache-control": "no-store" },
    });
  } catch (error) {
    return problemResponse(error);
  }
}
