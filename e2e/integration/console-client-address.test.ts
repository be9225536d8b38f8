// Issue 25, M3: the sign-in rate limit (10 attempts a minute per client address) cannot be
// dodged with a forged X-Forwarded-For. The real console (its own server, apps/console/dist/
// server.js) on a copy of the migrated template: with no trusted proxy, a client that forges a
// new X-Forwarded-For on every attempt is still one client; behind a trusted proxy each client the
// proxy names has its own budget; and `next start`, which would believe the forged header, is
// refused. Ports: SPINDLE_CLIENT_ADDRESS_CONSOLE_PORT (default 55690) and the next one.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { ConsoleProcess, ConsoleSession } from "../support/console";
import { repoRoot } from "../support/gateway";
import { freshDatabase } from "../support/template-db";

const port = Number(process.env.SPINDLE_CLIENT_ADDRESS_CONSOLE_PORT ?? 55690);
const email = "owner@client-address.test";
const password = "correct horse battery staple";

async function signIn(consoleUrl: string, forwardedFor: string, attempt: string): Promise<number> {
  const response = await fetch(`${consoleUrl}/api/auth/sign-in/email`, {
    method: "POST",
    headers: { origin: consoleUrl, "content-type": "application/json", "x-forwarded-for": forwardedFor },
    body: JSON.stringify({ email, password: attempt }),
  });
  await response.text();
  return response.status;
}

describe("the console's client address", () => {
  let database: { url: string; drop: () => Promise<void> };
  const consoles: ConsoleProcess[] = [];
  before(async () => {
    database = await freshDatabase();
  });
  after(async () => {
    for (const c of consoles) await c.stop();
    await database?.drop();
  });

  async function start(offset: number, env: Record<string, string> = {}) {
    const process = new ConsoleProcess(port + offset, database.url, "http://127.0.0.1:1", env);
    consoles.push(process);
    await process.start();
    return process;
  }

  it("is the connection's, whatever X-Forwarded-For a client forges, when no proxy is trusted", async () => {
    const console = await start(0);
    await new ConsoleSession(console.url).signUp("Owner", email, password, "Client Address");
    // signUp signed in once from this connection: 9 of the minute's 10 attempts are left.
    const statuses: number[] = [];
    for (let i = 1; i <= 10; i++) statuses.push(await signIn(console.url, `198.51.100.${i}`, "wrong password"));
    assert.deepEqual(statuses.slice(0, 9), Array(9).fill(401), "nine wrong passwords, each from a 'new' forged address");
    assert.equal(statuses[9], 429, "the eleventh attempt from the same connection is rate limited");
    assert.equal(await signIn(console.url, "203.0.113.99", password), 429, "a fresh forged address does not reset it either");
  });

  it("is the one a trusted proxy names, so clients behind it have a budget each", async () => {
    const console = await start(1, { SPINDLE_TRUSTED_PROXIES: "127.0.0.1,::1" });
    const statuses: number[] = [];
    for (let i = 1; i <= 12; i++) statuses.push(await signIn(console.url, `203.0.113.${i}`, "wrong password"));
    assert.deepEqual(statuses, Array(12).fill(401), "twelve clients behind the proxy, one attempt each");
    const same: number[] = [];
    for (let i = 1; i <= 11; i++) same.push(await signIn(console.url, "1.2.3.4, 198.51.100.77", "wrong password"));
    assert.equal(same[10], 429, "one client named by the proxy, eleven attempts (what it wrote before the proxy's entry is ignored)");
  });

  it("refuses to run under `next start`, which would believe a forged X-Forwarded-For", async () => {
    const child = spawn(join(repoRoot, "node_modules/.bin/next"), ["start", "-H", "127.0.0.1", "-p", String(port + 2)], {
      cwd: join(repoRoot, "apps/console"),
      env: { ...process.env, NODE_ENV: "production", DATABASE_URL: database.url, BETTER_AUTH_SECRET: "x".repeat(40) },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    const code = await new Promise<number | null>((resolve) => {
      const timer = setTimeout(() => child.kill("SIGKILL"), 120_000);
      child.on("exit", (c) => {
        clearTimeout(timer);
        resolve(c);
      });
    });
    // null: it was still serving when the timer killed it, which is what a refusal must prevent.
    assert.notEqual(code, null, `next start kept running:\n${output}`);
    assert.notEqual(code, 0, output);
    assert.match(output, /must be started with `node apps\/console\/dist\/server\.js/);
  });
});
