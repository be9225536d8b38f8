// The API's contract: the OpenAPI document (generated from the routes' zod schemas) is valid
// OpenAPI 3.1 by a maintained validator, documents every route file, and every documented
// operation, called through its real handler with an API token as a script would, gets a
// request that matches the document and answers what the document says (status, content type,
// body by JSON Schema 2020-12 with ajv). Owner-only operations, which tokens cannot reach, are
// also called with the owner's session to check their success answers. Changes that only an
// admin of the organisation may make (rollouts, agent upgrades, their settings) are also tried by
// a viewer's token (403), another organisation's admin token (404) and no credential (401),
// before the admin's own call shows that none of them changed anything.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { readdirSync, statSync } from "node:fs";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { after, before, describe, it } from "node:test";
import { Validator } from "@seriousme/openapi-schema-validator";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { createServer } from "@/test-support/fixtures";
import { discoveryServer } from "@/test-support/oidc-discovery";
import { createTestDatabase, skipWithoutDatabase, type TestDatabase } from "@/test-support/test-database";
import type { ApiRouteModule, OpenApiDocument } from "@/modules/api-reference/lib/build-document";
import { contractPlan, type ContractState } from "@/test-support/contract-plan";

const consoleUrl = "http://localhost:3000";
const appDir = join(import.meta.dirname, "../../app");

/** Every route.ts under app/api, as the URL path Next.js serves it. */
function routeFiles(dir = join(appDir, "api")): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return routeFiles(path);
    return name === "route.ts" ? [`/${relative(appDir, dir)}`] : [];
  });
}

describe("the API and its OpenAPI document", { skip: skipWithoutDatabase }, () => {
  let db: TestDatabase;
  let idp: { issuer: string; close(): Promise<void> };
  let document: OpenApiDocument;
  let routes: ApiRouteModule[];
  let undocumented: string[];
  let state: ContractState;
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);

  before(async () => {
    db = await createTestDatabase();
    idp = await discoveryServer();
    // The console reads its settings once, on first use: set them before any of it loads.
    Object.assign(process.env, {
      DATABASE_URL: db.consoleUrl,
      BETTER_AUTH_SECRET: "contract-test-secret-that-is-long-enough-0123456789",
      SPINDLE_CONSOLE_URL: consoleUrl,
      SPINDLE_MAILBOX_DIR: join(mkdtempSync(join(tmpdir(), "spindle-contract-")), "mailbox"),
      SPINDLE_SSO_TRUSTED_ISSUERS: idp.issuer,
    });
    const registry = await import("@/app/api/openapi.json/routes");
    const { openApiDocument } = await import("@/app/api/openapi.json/document");
    routes = registry.apiRouteFiles;
    undocumented = registry.undocumentedRouteFiles;
    document = openApiDocument();
    ajv.addSchema({ $id: "https://spindle.test/openapi.json", components: document.components }, "openapi");
    state = await (await import("@/test-support/contract-fixtures")).contractFixtures(db, { consoleUrl, issuer: idp.issuer, createServer });
  });
  after(async () => {
    await idp?.close();
    await db?.drop();
  });

  it("is valid OpenAPI 3.1 by a maintained validator", async () => {
    const result = await new Validator().validate(document as never);
    assert.equal(result.valid, true, JSON.stringify(result.errors, null, 2));
    assert.equal(document.openapi, "3.1.0");
  });

  it("documents every route file under app/api, and only those", () => {
    const documented = new Set(routes.map((route) => route.path));
    for (const file of routeFiles()) {
      assert.ok(documented.has(file) || undocumented.includes(file), `${file} has a route.ts but is not in app/api/openapi.json/routes.ts`);
    }
    for (const route of routes) {
      const methods = Object.keys(route.module).filter((name) => /^(GET|POST|PUT|PATCH|DELETE)$/.test(name));
      assert.ok(methods.length > 0, `${route.path} exports no handler`);
      for (const method of methods) {
        assert.ok(
          (route.module as Record<string, { openapi?: unknown }>)[method]?.openapi,
          `${method} ${route.path} is not an orgRoute with a spec`,
        );
      }
    }
  });

  it("calls every documented operation with an API token and gets what the document says", async () => {
    // biome-ignore lint/suspicious/noExplicitAny: an OpenAPI operation as JSON, read field by field
    type Operation = Record<string, any>;
    const operations = new Map<string, { method: string; path: string; operation: Operation }>();
    for (const [path, item] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(item))
        operations.set((operation as { operationId: string }).operationId, { method, path, operation: operation as Operation });
    }
    const called = new Set<string>();
    for (const step of contractPlan) {
      const call = step(state);
      const entry = operations.get(call.operationId);
      assert.ok(entry, `the plan calls ${call.operationId}, which the document does not have`);
      const { method, path, operation } = entry;
      const label = `${method.toUpperCase()} ${path} (${call.operationId}${call.as && call.as !== "token" ? `, ${call.as}` : ""})`;
      called.add(call.operationId);

      // The request, checked against the document before it is sent: every request of the plan
      // matches it, but the few sent to see a 400, which the document must refuse too.
      const problems: string[] = [];
      const parameters = (operation.parameters ?? []) as { name: string; in: string; required: boolean; schema: object }[];
      for (const parameter of parameters) {
        const value = parameter.in === "path" ? call.params?.[parameter.name] : call.query?.[parameter.name];
        if (value === undefined) {
          if (parameter.required) problems.push(`the required ${parameter.in} parameter ${parameter.name} is missing`);
          continue;
        }
        const coerced =
          (parameter.schema as { type?: string }).type === "integer" || (parameter.schema as { type?: string }).type === "number"
            ? Number(value)
            : value;
        if (!ajv.validate(parameter.schema, coerced))
          problems.push(`${parameter.in} parameter ${parameter.name}=${value}: ${ajv.errorsText()}`);
      }
      for (const name of Object.keys({ ...call.params, ...call.query })) {
        assert.ok(
          parameters.some((p) => p.name === name),
          `${label}: ${name} is not a documented parameter`,
        );
      }
      if (call.body !== undefined) {
        const ref = operation.requestBody?.content?.["application/json"]?.schema?.$ref as string | undefined;
        assert.ok(ref, `${label}: sends a body the document does not describe`);
        if (!ajv.validate({ $ref: `https://spindle.test/openapi.json${ref}` }, call.body))
          problems.push(`the request body: ${ajv.errorsText()}`);
      } else if (operation.requestBody?.required) {
        problems.push("the document requires a body");
      }
      if (call.invalid) assert.ok(problems.length > 0, `${label}: the document accepts a request the plan sends as invalid`);
      else assert.deepEqual(problems, [], `${label}: the request does not match the document`);

      // The call, through the route's own handler, as HTTP would reach it.
      const route = routes.find((r) => r.path.replace(/\[([A-Za-z0-9_]+)\]/g, "{$1}") === path)!;
      const handler = route.module[method.toUpperCase() as "GET"] as (
        request: Request,
        context: { params: Promise<Record<string, string>> },
      ) => Promise<Response>;
      let url = `${consoleUrl}${path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(call.params![name]!))}`;
      if (call.query) url += `?${new URLSearchParams(call.query)}`;
      const bearer = { viewer: state.viewerToken, stranger: state.strangerToken }[call.as as "viewer" | "stranger"] ?? state.adminToken;
      const headers = new Headers(
        call.as === "session"
          ? { cookie: state.ownerCookie, origin: consoleUrl }
          : call.as === "anonymous"
            ? {}
            : { authorization: `Bearer ${bearer}` },
      );
      if (call.body !== undefined) headers.set("content-type", "application/json");
      const response = await handler(
        new Request(url, { method: method.toUpperCase(), headers, body: call.body === undefined ? undefined : JSON.stringify(call.body) }),
        { params: Promise.resolve(call.params ?? {}) },
      );

      // The answer, checked against the document.
      const text = await response.text();
      const documented = operation.responses[String(response.status)];
      assert.ok(documented, `${label}: answered ${response.status}, which the document does not list: ${text.slice(0, 300)}`);
      assert.equal(response.status, call.status, `${label}: expected ${call.status}, got ${response.status}: ${text.slice(0, 500)}`);
      const contentType = (response.headers.get("content-type") ?? "").split(";")[0]!;
      const content = documented.content?.[contentType];
      assert.ok(content, `${label}: answered ${contentType}, the document says ${Object.keys(documented.content ?? {}).join(", ")}`);
      if (contentType === "text/csv") {
        assert.ok(text.length > 0, `${label}: an empty CSV`);
      } else {
        const body = JSON.parse(text);
        const schema = content.schema.$ref ? { $ref: `https://spindle.test/openapi.json${content.schema.$ref}` } : content.schema;
        assert.ok(
          ajv.validate(schema, body),
          `${label}: the ${response.status} body does not match the document: ${ajv.errorsText()}\n${text.slice(0, 1500)}`,
        );
        call.andThen?.(body, state);
      }
    }
    const missing = [...operations.keys()].filter((id) => !called.has(id));
    assert.deepEqual(missing, [], "every documented operation is called");
  });

  it("marks what a token changed in the audit log, and refuses a revoked token with 401", async () => {
    const rows = await db.pool.query<{ action: string; api_token_id: string | null }>(
      "SELECT action, api_token_id FROM audit_log WHERE org_id = $1 AND action = 'policy.created'",
      [state.orgId],
    );
    assert.ok(rows.rows.length > 0, "the plan created policies with the token");
    assert.ok(
      rows.rows.every((row) => row.api_token_id === state.adminTokenId),
      "changes made with the token name it",
    );
    const sessionRows = await db.pool.query<{ api_token_id: string | null }>(
      "SELECT api_token_id FROM audit_log WHERE org_id = $1 AND action = 'api_token.created' ORDER BY id LIMIT 1",
      [state.orgId],
    );
    assert.equal(sessionRows.rows[0]?.api_token_id, null, "changes made with the session name no token");

    const registry = await import("@/app/api/openapi.json/routes");
    const servers = registry.apiRouteFiles.find((route) => route.path === "/api/servers")!.module.GET as (
      r: Request,
      c: unknown,
    ) => Promise<Response>;
    const ask = (token: string) =>
      servers(new Request(`${consoleUrl}/api/servers`, { headers: { authorization: `Bearer ${token}` } }), { params: Promise.resolve({}) });
    const refused = await ask(state.revokedToken);
    assert.equal(refused.status, 401);
    assert.match(refused.headers.get("www-authenticate") ?? "", /Bearer/);
    assert.match((await refused.json()).detail, /revoked/);
    assert.equal((await ask(`spk_${randomUUID().replace(/-/g, "")}`)).status, 401, "an unknown token");
    assert.equal((await ask("")).status, 401, "an empty bearer");
  });
});
