// The OpenAPI 3.1 document of the console's API, generated from the routes themselves: each
// org route's spec (lib/api-route.ts) carries its zod schemas for path, query and body, its
// success schema and what it may answer besides. Nothing here is written by hand per route.
import type { z } from "zod";
import type { DocumentedHandler, RouteSpec } from "@/modules/auth/lib/api-route";
import { roleNames, can } from "@/modules/auth/lib/access";
import { jsonSchemaOf, type JsonSchema } from "@/lib/openapi/json-schema";
import { problemSchema } from "@/lib/openapi/schemas";

export const httpMethods = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;
export type HttpMethod = (typeof httpMethods)[number];

/** One route file: its URL path as Next.js names it (`/api/servers/[id]`) and its exports. */
export interface ApiRouteModule {
  path: string;
  module: Partial<Record<HttpMethod, unknown>>;
}

export interface DocumentedOperation {
  method: HttpMethod;
  /** The OpenAPI path, `/api/servers/{id}`. */
  path: string;
  operationId: string;
  spec: RouteSpec;
}

export interface OpenApiDocument {
  openapi: "3.1.0";
  info: Record<string, unknown>;
  servers: { url: string }[];
  tags: { name: string; description?: string }[];
  security: Record<string, string[]>[];
  paths: Record<string, Record<string, unknown>>;
  components: { schemas: Record<string, JsonSchema>; securitySchemes: Record<string, unknown> };
}

const problemContent = { "application/problem+json": { schema: { $ref: "#/components/schemas/Problem" } } };

const commonErrors: Record<number, string> = {
  400: "The path, query or body is not valid; `errors` lists each problem by path",
  401: "No session and no valid API token (`WWW-Authenticate: Bearer`); a revoked or expired token says so",
  403: "The caller's role does not allow this, or the organisation requires MFA or single sign-on of this session",
  404: "Nothing with this id in the caller's organisation (another organisation's ids answer the same)",
  409: "The change conflicts with the current state (the detail says which)",
  413: "The request names more than one call may change (the detail says how to split it)",
  422: "The request is well formed but cannot be done as asked (the detail says why)",
  429: "The API token used more than its requests per minute (`Retry-After` says when to retry)",
  500: "An error on Spindle's side",
  503: "A part Spindle needs is not there yet (the detail says what to do)",
};

function isDocumented(handler: unknown): handler is DocumentedHandler {
  return typeof handler === "function" && typeof (handler as Partial<DocumentedHandler>).openapi === "object";
}

export function openApiPath(nextPath: string): string {
  return nextPath.replace(/\[([A-Za-z0-9_]+)\]/g, "{$1}");
}

/** `GET /api/servers/{id}/metrics` → `getServersByIdMetrics`. */
export function operationIdOf(method: HttpMethod, path: string): string {
  const words = path
    .replace(/^\/api\//, "")
    .split("/")
    .flatMap((segment) => {
      const param = /^\{(.+)\}$/.exec(segment);
      return (param ? `by-${param[1]}` : segment).split(/[^A-Za-z0-9]+/);
    })
    .filter(Boolean)
    .map((word) => word[0]!.toUpperCase() + word.slice(1));
  return method.toLowerCase() + words.join("");
}

export function documentedOperations(routes: ApiRouteModule[]): DocumentedOperation[] {
  const operations: DocumentedOperation[] = [];
  for (const route of routes) {
    const path = openApiPath(route.path);
    for (const method of httpMethods) {
      const handler = route.module[method];
      if (isDocumented(handler)) operations.push({ method, path, operationId: operationIdOf(method, path), spec: handler.openapi });
    }
  }
  return operations;
}

type ObjectSchema = { properties?: Record<string, JsonSchema>; required?: string[]; allOf?: ObjectSchema[] };

/** A query made of two objects (`a.and(b)`, e.g. a filter and the chart window) is one list of parameters. */
function flattenAllOf(json: ObjectSchema): { properties: Record<string, JsonSchema>; required: string[] } {
  const parts = [json, ...(json.allOf ?? []).map(flattenAllOf)];
  return {
    properties: Object.assign({}, ...parts.map((part) => part.properties ?? {})),
    required: parts.flatMap((part) => part.required ?? []),
  };
}

function parametersOf(schema: z.ZodType | undefined, location: "path" | "query") {
  if (!schema) return [];
  const json = flattenAllOf(jsonSchemaOf(schema, "input") as ObjectSchema);
  return Object.entries(json.properties ?? {}).map(([name, property]) => {
    const { description, ...rest } = property as { description?: string };
    return {
      name,
      in: location,
      required: location === "path" || (json.required ?? []).includes(name),
      ...(description ? { description } : {}),
      schema: rest,
    };
  });
}

function whoMay(spec: RouteSpec): string {
  if (!spec.permission) return "Any member of the organisation (session or API token).";
  const roles = roleNames.filter((role) => can(role, spec.permission!));
  return `Roles: ${roles.join(", ")}${roles.includes("owner") && !roles.includes("admin") ? " (API tokens act at most as admin, so they are refused)" : ""}.`;
}

function operationOf(operation: DocumentedOperation, schemas: Record<string, JsonSchema>) {
  const { spec, operationId } = operation;
  const responses: Record<string, unknown> = {};
  const success = String(spec.status ?? 200);
  if ("csv" in spec.response) {
    responses[success] = { description: spec.response.csv, content: { "text/csv": { schema: { type: "string" } } } };
  } else {
    schemas[`${operationId}Response`] = jsonSchemaOf(spec.response, "output");
    responses[success] = {
      description: "Success",
      content: { "application/json": { schema: { $ref: `#/components/schemas/${operationId}Response` } } },
    };
  }
  const statuses = new Set([
    401,
    403,
    429,
    500,
    ...(spec.params || spec.query || spec.body ? [400] : []),
    ...(spec.params ? [404] : []),
    ...(spec.errors ?? []),
  ]);
  for (const status of [...statuses].sort())
    responses[String(status)] = { description: commonErrors[status] ?? "Refused", content: problemContent };

  const result: Record<string, unknown> = {
    operationId,
    summary: spec.summary,
    description: [spec.description, whoMay(spec)].filter(Boolean).join("\n\n"),
    tags: [spec.tag],
    parameters: [...parametersOf(spec.params, "path"), ...parametersOf(spec.query, "query")],
    responses,
  };
  if (spec.body) {
    const body = jsonSchemaOf(spec.body, "input");
    schemas[`${operationId}Request`] = body;
    result.requestBody = {
      required: Array.isArray((body as { required?: unknown }).required) && (body as { required: unknown[] }).required.length > 0,
      content: { "application/json": { schema: { $ref: `#/components/schemas/${operationId}Request` } } },
    };
  }
  return result;
}

export function buildOpenApiDocument(
  routes: ApiRouteModule[],
  options: { serverUrl: string; version: string; tags: { name: string; description: string }[] },
): OpenApiDocument {
  const schemas: Record<string, JsonSchema> = { Problem: jsonSchemaOf(problemSchema, "output") };
  const paths: OpenApiDocument["paths"] = {};
  for (const operation of documentedOperations(routes)) {
    (paths[operation.path] ??= {})[operation.method.toLowerCase()] = operationOf(operation, schemas);
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Spindle API",
      version: options.version,
      description:
        "The Spindle console's JSON API. Authenticate with an API token (`Authorization: Bearer spk_…`, created in Settings → API tokens) " +
        "or the console's session cookie. Every route is scoped to the token's or the session's organisation. Errors are RFC 9457 problem details.",
    },
    servers: [{ url: options.serverUrl }],
    tags: options.tags,
    security: [{ apiToken: [] }, { session: [] }],
    paths,
    components: {
      schemas,
      securitySchemes: {
        apiToken: {
          type: "http",
          scheme: "bearer",
          bearerFormat: "spk_…",
          description: "An API token of one organisation; it acts for its creator with the lesser of its role and theirs.",
        },
        session: {
          type: "apiKey",
          in: "cookie",
          name: "better-auth.session_token",
          description: "The console's session (browsers only: mutations must come from the console's origin).",
        },
      },
    },
  };
}
