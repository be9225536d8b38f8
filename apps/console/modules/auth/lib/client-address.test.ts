// Sign-in rate limiting is keyed on the client address better-auth resolves with our options:
// X-Forwarded-For is believed only through the proxies in SPINDLE_TRUSTED_PROXIES, so a client
// cannot choose its own rate-limit bucket by sending a forged X-Forwarded-For.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { getIP } from "@better-auth/core/utils/ip";
import type { Db, Prisma } from "@/lib/db";
import { parseEnv } from "@/lib/env";

async function optionsWith(trusted: string) {
  const base = { DATABASE_URL: "postgres://postgres@127.0.0.1:1/none", BETTER_AUTH_SECRET: "x".repeat(32), SPINDLE_TRUSTED_PROXIES: trusted };
  parseEnv(base); // fail here, with the message, if the fixture is wrong
  Object.assign(process.env, base, { NODE_ENV: "production" });
  const { createAuth } = await import("./auth");
  // No database is reached: only the options are read. $extends is the one client call creating them makes.
  return createAuth({ $extends: () => ({}) } as unknown as Prisma, {} as Db).options;
}

function request(forwardedFor: string) {
  return new Request("http://console.test/api/auth/sign-in/email", { method: "POST", headers: { "x-forwarded-for": forwardedFor } });
}

describe("the client address for sign-in rate limiting", () => {
  it("walks X-Forwarded-For through the trusted proxy only and ignores what the client forged before it", async () => {
    const options = await optionsWith("10.0.0.1");
    assert.equal(getIP(request("203.0.113.7, 10.0.0.1"), options), "203.0.113.7");
    // The client sent "X-Forwarded-For: 198.51.100.1" itself; the proxy appended the real peer.
    assert.equal(getIP(request("198.51.100.1, 203.0.113.7, 10.0.0.1"), options), "203.0.113.7");
    assert.equal(getIP(request("198.51.100.2, 203.0.113.7, 10.0.0.1"), options), "203.0.113.7");
  });
});
