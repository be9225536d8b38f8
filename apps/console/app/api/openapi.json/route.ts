// GET /api/openapi.json: the OpenAPI 3.1 document of the API, generated from the route handlers'
// zod schemas. Public (it describes the API, not any data); rendered at /api-reference.
import { openApiDocument } from "./document";

export const dynamic = "force-dynamic";

export function GET(): Response {
  return Response.json(openApiDocument(), { headers: { "cache-control": "no-store" } });
}
