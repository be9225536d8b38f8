import { database } from "@/lib/db";
import { orgRoute } from "@/modules/auth/lib/api-route";
import { exportGainsCsv } from "@/modules/gains/lib/export-gains";
import { gainsExportQuerySchema } from "@/modules/gains/types/range";

/** CSV of the ledger (fleet or one server) or of one server's read series. */
export const GET = orgRoute(
  {
    summary: "Export gains as CSV",
    description: "The fleet's or a server's savings ledger, or a server's read series.",
    tag: "Gains",
    query: gainsExportQuerySchema,
    response: { csv: "scope,server,feature,line,unit,value,status,basis,from,to (ledger) or the read series (attachment)" },
  },
  async ({ context, query }) => {
    const file = await exportGainsCsv(database(), context.orgId, query);
    return new Response(file.body, {
      headers: {
        "content-type": "text/csv; charset=utf-8",
        "content-disposition": `attachment; filename="${file.name}"`,
        "cache-control": "no-store",
      },
    });
  },
);
