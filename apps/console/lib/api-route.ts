// The shape of every org-scoped API route: resolve who is asking and in which organisation (a
// session or an API token), check the permission the route declares, validate params / query /
// body with zod, call one operation, and answer JSON, or application/problem+json for any error.
import { z } from "zod";
import { can } from "@/modules/auth/lib/access";
import { requireOrgContext } from "@/modules/auth/lib/org-context";
import type { OrgContext } from "@/modules/auth/types/context";
import { asApiToken } from "./db";
import { ProblemError, problemResponse } from "./problem";

type Permission = Parameters<typeof can>[1];

interface RouteSpec<P extends z.ZodType, Q extends z.ZodType, B extends z.ZodType> {
  params?: P;
  query?: Q;
  body?: B;
  /** What the caller's role must allow; reading needs no more than membership. */
  permission?: Permission;
  status?: number;
}

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
) {
  return async (request: Request, routeContext: NextRouteContext): Promise<Response> => {
    try {
      const context = await requireOrgContext(request.headers);
      if (spec.permission && !can(context.role, spec.permission)) {
        throw new ProblemError(403, "Forbidden", `Your role (${context.role}) cannot do this; ask an owner or admin of ${context.orgName}.`);
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
}
