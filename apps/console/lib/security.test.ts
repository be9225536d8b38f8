import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { contentSecurityPolicy, crossOriginProblem, refuseCrossOrigin, securityHeaders } from "./security";

const origin = "https://spindle.example.com";

describe("security headers", () => {
  it("allows scripts only from the console and with this response's nonce, and forbids framing", () => {
    const csp = contentSecurityPolicy("abc123", { dev: false });
    assert.match(csp, /script-src 'self' 'nonce-abc123' 'strict-dynamic'(;|$)/);
    assert.match(csp, /frame-ancestors 'none'/);
    assert.match(csp, /object-src 'none'/);
    assert.doesNotMatch(csp, /unsafe-eval/);
    assert.match(contentSecurityPolicy("n", { dev: true }), /'unsafe-eval'/);
  });

  it("sends HSTS only over https", () => {
    assert.equal(securityHeaders({ https: true })["strict-transport-security"], "max-age=63072000; includeSubDomains");
    assert.equal(securityHeaders({ https: false })["strict-transport-security"], undefined);
    assert.equal(securityHeaders({ https: false })["x-content-type-options"], "nosniff");
    assert.equal(securityHeaders({ https: false })["referrer-policy"], "strict-origin-when-cross-origin");
  });
});

describe("the Origin check on mutations", () => {
  it("lets reads through whatever their origin", () => {
    assert.equal(refuseCrossOrigin("GET", new Headers({ origin: "https://evil.example" }), origin), undefined);
  });

  it("accepts a mutation from the console's origin or a same-origin fetch without Origin", () => {
    assert.equal(refuseCrossOrigin("POST", new Headers({ origin }), origin), undefined);
    assert.equal(refuseCrossOrigin("DELETE", new Headers({ "sec-fetch-site": "same-origin" }), origin), undefined);
  });

  it("refuses a mutation from another origin, a look-alike, or with no origin at all", () => {
    for (const headers of <Record<string, string>[]>[
      { origin: "https://evil.example" },
      { origin: "https://spindle.example.com.evil.example" },
      { origin: "http://spindle.example.com" },
      { origin: "null" },
      { "sec-fetch-site": "cross-site" },
      {},
    ]) {
      assert.match(
        refuseCrossOrigin("POST", new Headers(headers), origin) ?? "accepted",
        /changes are accepted only from the console/,
        JSON.stringify(headers),
      );
    }
  });

  it("lets an API request with a bearer token through without Origin, but never better-auth's own routes", () => {
    const token = { authorization: "Bearer spk_abcdef" };
    assert.equal(refuseCrossOrigin("POST", new Headers(token), origin, "/api/policies"), undefined);
    assert.equal(
      refuseCrossOrigin("DELETE", new Headers({ ...token, origin: "https://evil.example" }), origin, "/api/api-tokens/x"),
      undefined,
    );
    assert.match(refuseCrossOrigin("POST", new Headers(token), origin, "/api/auth/sign-out") ?? "accepted", /changes are accepted only/);
    assert.match(refuseCrossOrigin("POST", new Headers(token), origin, "/servers") ?? "accepted", /changes are accepted only/);
    assert.match(
      refuseCrossOrigin("POST", new Headers({ authorization: "Basic eDp5" }), origin, "/api/policies") ?? "accepted",
      /changes are accepted only/,
    );
  });

  it("answers problem+json 403", async () => {
    const response = crossOriginProblem("no");
    assert.equal(response.status, 403);
    assert.equal(response.headers.get("content-type"), "application/problem+json");
    assert.deepEqual(await response.json(), { type: "about:blank", status: 403, title: "Cross-origin request refused", detail: "no" });
  });
});
