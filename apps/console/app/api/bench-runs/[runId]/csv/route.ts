import { z } from "zod";
import { database } from "@/lib/db";
import { orgRoute } from "@/lib/api-route";
import { ProblemError } from "@/lib/problem";
import { reportCsv } from "@/modules/bench/lib/report-csv";
import { getRun } from "@/modules/bench/lib/runs";
import { benchReport } from "@/modules/bench/types/bench";

/** The report's steps as CSV (text/csv, downloaded as a file). */
export const GET = orgRoute(
  { summary: "A proof run's report as CSV", tag: "Proof runs", params: z.object({ runId: z.string() }),
    response: { csv: "The report's steps, one row per load step and pass (attachment)" }, errors: [409] },
  async ({ context, params }) => {
    const run = await getRun(database(), context.orgId, params.runId);
    const report = benchReport.safeParse(run.report);
    if (!report.success) throw new ProblemError(409, "No report", `This run has ${run.status} and has no report to export.`);
    const name = `spindle-proof-run-${run.hostname.replace(/[^A-Za-z0-9._-]+/g, "_")}-${run.profile}-${run.id.slice(0, 8)}.csv`;
    return new Response(reportCsv(report.data), {
      headers: { "content-type": "text/csv; charset=utf-8", "content-disposition": `attachment; filename="${name}"`, "cache-control": "no-store" },
    });
  },
);
