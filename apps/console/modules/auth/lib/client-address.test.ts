// Sign-in rate limiting is keyed on the client address better-auth resolves with our options:
// the one server.ts set (lib/client-address.ts), which believes X-Forwarded-For only through
// the proxies in SPINDLE_TRUSTED_PROXIES. Issue 25, M3: with no proxy configured, better-auth used
// to believe a single forged X-Forwarded-For, so each forged address had a bucket of its own.
import assert from "node:assert/strict";
import type { IncomingHttpHeaders } from "node:http";
import { describe, it } from "node:test";
import { getIP } from "@better-auth/core/utils/ip";
import { rewriteForwardingHeaders, trustedProxies } from "@/lib/client-address";
import type { Db, Prisma } from "@/lib/db";
import { parseEnv } from "@/lib/env";

async function options() {
  const base = { DATABASE_URL: "postgres://postgres@127.0.0.1:1/none", BETTER_AUTH_SECRET: "x".repeat(32) };
  parseEnv(base); // fail here, with the message, if the fixture is wrong
  Object.assign(process.env, base, { NODE_ENV: "production" });
  const { createAuth } = await import("./auth");
  // No database is reached: only the options are read. $extends is the one client call creating them makes.
  return createAuth({ $extends: () => ({}) } as unknown as Prisma, {} as Db).options;
}

/** A sign-in request as Next.js hands it to better-auth after server.ts saw it come from `peer`. */
function signIn(peer: string, forwardedFor: string, trusted: string[]) {
  const headers: IncomingHttpHeaders = { "x-forwarded-for": forwardedFor };
  rewriteForwardingHeaders(headers, peer, trustedProxies(trusted));
  return new Request("http://console.test/api/auth/sign-in/email", { method: "POST", headers: headers as Record<string, string> });
}

describe("the client address for sign-in rate limiting", () => {
  it("is the peer for every forged X-Forwarded-For when no proxy is trusted", async () => {
    const opts = await options();
    const keys = new Set(["198.51.100.1", "198.51.100.2", "203.0.113.50"].map((forged) => getIP(signIn("203.0.113.9", forged, []), opts)));
    assert.deepEqual([...keys], ["203.0.113.9"]);
  });

  it("walks X-Forwarded-For through the trusted proxy only and ignores what the client forged before it", async () => {
    const opts = await options();
    assert.equal(getIP(signIn("10.0.0.1", "203.0.113.7", ["10.0.0.1"]), opts), "203.0.113.7");
    // The client sent "X-Forwarded-For: 198.51.100.1" itself; the proxy appended the real peer.
    assert.equal(getIP(signIn("10.0.0.1", "198.51.100.1, 203.0.113.7", ["10.0.0.1"]), opts), "203.0.113.7");
    assert.equal(getIP(signIn("10.0.0.1", "198.51.100.2, 203.0.113.7", ["10.0.0.1"]), opts), "203.0.113.7");
  });

  it("is not taken from the header a client could send itself", async () => {
    const opts = await options();
    const forged = new Request("http://console.test/api/auth/sign-in/email", {
      method: "POST",
      headers: { "x-forwarded-for": "198.51.100.9" },
    });
    assert.equal(getIP(forged, opts), null, "better-auth must read only the header server.ts sets");
  });
});
