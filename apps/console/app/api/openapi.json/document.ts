import { env } from "@/lib/env";
import { buildOpenApiDocument, type OpenApiDocument } from "@/lib/openapi/build-document";
import { apiRouteFiles, apiTags } from "./routes";

/** The document served at /api/openapi.json and drawn at /api-reference. */
export function openApiDocument(): OpenApiDocument {
  return buildOpenApiDocument(apiRouteFiles, { serverUrl: env().SPINDLE_CONSOLE_URL, version: "1", tags: apiTags });
}
