// GET /api/healthz: readiness (the database answers). No session needed, nothing but a status.
import { pingDatabase, database } from "@/lib/db";
import { readiness } from "@/modules/health/lib/readiness";

export const dynamic = "force-dynamic";

export async function GET(): Promise<Response> {
  const answer = await readiness(() => pingDatabase(database()));
  return Response.json(answer.body, { status: answer.status, headers: { "cache-control": "no-store" } });
}
