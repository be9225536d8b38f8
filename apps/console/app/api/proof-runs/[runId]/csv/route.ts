import { z } from "zod";
import { database } from "@/lib/db";
import { orgRoute } from "@/modules/auth/lib/api-route";
import { ProblemError } from "@/lib/problem";
import { reportCsv, reportPassesCsv } from "@/modules/proof-runs/lib/report-csv";
import { getRun } from "@/modules/proof-runs/lib/runs";
import { proofRunReport } from "@/modules/proof-runs/types/proof-run";

/**
 * The report as CSV (text/csv, downloaded as a file): its steps with the changes and intervals,
 * or with ?what=passes every pass of every step as measured.
 */
export const GET = orgRoute(
  {
    summary: "A proof run's report as CSV",
    description:
      "Its steps with the changes and intervals (`what=steps`, the default), or every pass of every step as measured (`what=passes`). 409 while the run has no report.",
    tag: "Proof runs",
    params: z.object({ runId: z.string() }),
    query: z.object({ what: z.enum(["steps", "passes"], { error: "Ask for what=steps (the default) or what=passes." }).default("steps") }),
    response: { csv: "The report's steps, or every pass (attachment)" },
    errors: [409],
  },
  async ({ context, params, query }) => {
    const run = await getRun(database(), context.orgId, params.runId);
    const report = proofRunReport.safeParse(run.report);
    if (!report.success) throw new ProblemError(409, "No report", `This run has ${run.status} and has no report to export.`);
    const suffix = query.what === "passes" ? "-passes" : "";
    const name = `spindle-proof-run-${run.hostname.replace(/[^A-Za-z0-9._-]+/g, "_")}-${run.profile}-${run.id.slice(0, 8)}${suffix}.csv`;
    return new Response(query.what === "passes" ? reportPassesCsv(report.data) : reportCsv(report.data), {
      headers: {
        "content-type": "text/csv; charset=utf-8",
        "content-disposition": `attachment; filename="${name}"`,
        "cache-control": "no-store",
      },
    });
  },
);
