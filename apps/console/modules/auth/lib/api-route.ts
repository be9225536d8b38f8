// The shape of every org-scoped API route: resolve who is asking and in which organisation (a
// session or an API token), check the permission the route declares, validate params / query /
// body with zod, call one operation, and answer JSON, or application/problem+json for any error.
import type { z } from "zod";
import { can } from "@/modules/auth/lib/access";
import { requireOrgContext } from "@/modules/auth/lib/org-context";
import type { OrgContext } from "@/modules/auth/types/context";
import { asApiToken } from "@/lib/db";
import { ProblemError, problemResponse } from "@/lib/problem";

type Permission = Parameters<typeof can>[1];

/** What the OpenAPI document says about a route (modules/api-reference/lib/build-document.ts): every org route declares it. */
export interface RouteDoc {
  summary: string;
  description?: string;
  /** The section of the reference the route belongs to. */
  tag: string;
  /** The success body's schema, or `{ csv }` describing a text/csv download. */
  response: z.ZodType | { csv: string };
  /** Statuses the route answers beyond the common ones (400, 401, 403, 404, 429, 500), e.g. 409. */
  errors?: number[];
}

export interface RouteSpec<P extends z.ZodType = z.ZodType, Q extends z.ZodType = z.ZodType, B extends z.ZodType = z.ZodType>
  extends RouteDoc {
  params?: P;
  query?: Q;
  body?: B;
  /** What the caller's role must allow; reading needs no more than membership. */
  permission?: Permission;
  status?: number;
}

/** A route handler carrying its spec, which the OpenAPI document is generated from. */
export type DocumentedHandler = ((request: Request, routeContext: NextRouteContext) => Promise<Response>) & { openapi: RouteSpec };

interface RouteInput<P, Q, B> {
  context: OrgContext;
  /** The request itself, for the few operations that call better-auth with the caller's session. */
  request: Request;
  params: P;
  query: Q;
  body: B;
}

type NextRouteContext = { params: Promise<Record<string, string | string[] | undefined>> };

function parse<T extends z.ZodType>(schema: T | undefined, value: unknown, where: string): z.infer<T> {
  if (!schema) return undefined as z.infer<T>;
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw new ProblemError(400, "Invalid request", `The ${where} is not valid.`, {
    errors: result.error.issues.map((issue) => ({ path: issue.path.join("."), message: issue.message })),
  });
}

async function readJson(request: Request): Promise<unknown> {
  const text = await request.text();
  if (!text) return {};
  try {
    return JSON.parse(text);
  } catch {
    throw new ProblemError(400, "Invalid request", "The request body is not valid JSON.");
  }
}

export function orgRoute<P extends z.ZodType = z.ZodUndefined, Q extends z.ZodType = z.ZodUndefined, B extends z.ZodType = z.ZodUndefined>(
  spec: RouteSpec<P, Q, B>,
  run: (input: RouteInput<z.infer<P>, z.infer<Q>, z.infer<B>>) => Promise<unknown>,
): DocumentedHandler {
  const handler = async (request: Request, routeContext: NextRouteContext): Promise<Response> => {
    try {
      const context = await requireOrgContext(request.headers);
      if (spec.permission && !can(context.role, spec.permission)) {
        throw new ProblemError(
          403,
          "Forbidden",
          `Your role (${context.role}) cannot do this; ask an owner or admin of ${context.orgName}.`,
        );
      }
      const params = parse(spec.params, await routeContext.params, "path");
      const query = parse(spec.query, Object.fromEntries(new URL(request.url).searchParams), "query string");
      const body = parse(spec.body, spec.body ? await readJson(request) : undefined, "request body");
      // Changes made with an API token record it in their audit rows (lib/db.ts).
      const result = await asApiToken(context.apiToken?.id, () => run({ context, params, query, body, request }));
      // An operation that answers something other than JSON (a CSV export) builds its own Response.
      if (result instanceof Response) return result;
      return Response.json(result, { status: spec.status ?? 200, headers: { "cache-control": "no-store" } });
    } catch (error) {
      return problemResponse(error);
    }
  };
  return Object.assign(handler, { openapi: spec as unknown as RouteSpec });
}
