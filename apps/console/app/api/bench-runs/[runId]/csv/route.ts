import { database } from "@/lib/db";
import { problemResponse, ProblemError } from "@/lib/problem";
import { requireOrgContext } from "@/modules/auth/lib/org-context";
import { reportCsv, reportPassesCsv } from "@/modules/bench/lib/report-csv";
import { getRun } from "@/modules/bench/lib/runs";
import { benchReport } from "@/modules/bench/types/bench";

/**
 * The report as CSV (text/csv, downloaded as a file): its steps with the changes and intervals,
 * or with ?what=passes every pass of every step as measured.
 */
export async function GET(request: Request, { params }: { params: Promise<{ runId: string }> }): Promise<Response> {
  try {
    const context = await requireOrgContext(request.headers);
    const run = await getRun(database(), context.orgId, (await params).runId);
    const what = new URL(request.url).searchParams.get("what") ?? "steps";
    if (what !== "steps" && what !== "passes") throw new ProblemError(400, "Unknown export", "Ask for what=steps (the default) or what=passes.");
    const report = benchReport.safeParse(run.report);
    if (!report.success) throw new ProblemError(409, "No report", `This run has ${run.status} and has no report to export.`);
    const suffix = what === "passes" ? "-passes" : "";
    const name = `spindle-proof-run-${run.hostname.replace(/[^A-Za-z0-9._-]+/g, "_")}-${run.profile}-${run.id.slice(0, 8)}${suffix}.csv`;
    return new Response(what === "passes" ? reportPassesCsv(report.data) : reportCsv(report.data), {
      headers: { "content-type": "text/csv; charset=utf-8", "content-disposition": `attachment; filename="${name}"`, "cache-control": "no-store" },
    });
  } catch (error) {
    return problemResponse(error);
  }
}
