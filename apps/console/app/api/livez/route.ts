// GET /api/livez: liveness. Answers whenever Next.js serves requests, database or not, so a
// database outage makes consoles unready, never restarts them all.
export const dynamic = "force-dynamic";

export function GET(): Response {
  return Response.json({ status: "ok" }, { headers: { "cache-control": "no-store" } });
}
