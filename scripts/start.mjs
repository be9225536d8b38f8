#!/usr/bin/env node
// Starts the whole product on one machine: PostgreSQL (embedded unless DATABASE_URL is set),
// migrations, gateway, worker and console. `npm start` runs scripts/setup.sh first. Works from
// any directory, as any user; Ctrl-C stops everything (the database last).
//
//   DATABASE_URL           use this PostgreSQL/TimescaleDB instead of the embedded one
//   SPINDLE_CONSOLE_PORT   console port (3000)       SPINDLE_GATEWAY_PORT   gateway port (4318)
//   SPINDLE_PUBLIC_GATEWAY_URL  URL agents use to reach the gateway (http://<hostname>:4318, or
//                          this machine's first network address when the hostname does not resolve)
//   SPINDLE_EMBEDDED_PG_PORT  the embedded PostgreSQL's port (54320)
//   SPINDLE_STATE_DIR      local state: embedded PostgreSQL data, generated secrets (.spindle)
//   SPINDLE_AGENT_DIST_DIR the agent releases the gateway serves and offers as upgrades
//                          (agent/bin, what the build puts there; docs/install.md, "Upgrades")
//   SPINDLE_SMTP_URL       the mail server for the console's mail; unset: the local mailbox
//                          .spindle/mailbox (`npm run mailbox` lists it)
//   --no-build             skip the build (tests build once beforehand)
import { spawn, execFileSync } from "node:child_process";
import { generateKeyPairSync, randomBytes } from "node:crypto";
import { lookup } from "node:dns/promises";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { hostname, networkInterfaces } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
// Local state (embedded PostgreSQL's data, generated secrets); tests give each run its own.
const stateDir = resolve(process.env.SPINDLE_STATE_DIR ?? join(root, ".spindle"));
const consolePort = Number(process.env.SPINDLE_CONSOLE_PORT ?? 3000);
const gatewayPort = Number(process.env.SPINDLE_GATEWAY_PORT ?? 4318);
const embeddedPgPort = Number(process.env.SPINDLE_EMBEDDED_PG_PORT ?? 54320);
const consoleUrl = process.env.SPINDLE_CONSOLE_URL ?? `http://localhost:${consolePort}`;
const skipBuild = process.argv.includes("--no-build");
// What `npm start` runs, and so builds: the agents and installer files the gateway serves come
// with @spindle/agent; their dependencies (db, domain, policy, notify) come along through
// turbo's ^build. The Collector distribution, infra checks, the hostmetrics feed and the e2e
// typecheck build in `npm test` (or on demand), never here.
const startWorkspaces = ["@spindle/console", "@spindle/gateway", "@spindle/worker", "@spindle/db", "@spindle/agent"];

const children = [];
let stopDatabase = async () => {};
let stopping = false;

function log(message) {
  console.log(`\x1b[1;34m==>\x1b[0m ${message}`);
}

function run(command, args, options = {}) {
  execFileSync(command, args, { cwd: root, stdio: "inherit", ...options });
}

// The secret signs sessions: generated once per installation and kept with the local state.
function authSecret() {
  if (process.env.BETTER_AUTH_SECRET) return process.env.BETTER_AUTH_SECRET;
  const file = join(stateDir, "auth-secret");
  if (!existsSync(file)) writeFileSync(file, randomBytes(32).toString("base64url"), { mode: 0o600 });
  return readFileSync(file, "utf8").trim();
}

// The key notification channel secrets are sealed to: generated once per installation and kept
// with the local state, outside the database (docs/notifications.md, "Secrets at rest").
function notifySecretsKeyFile() {
  if (process.env.SPINDLE_NOTIFY_SECRETS_KEY_FILE) return process.env.SPINDLE_NOTIFY_SECRETS_KEY_FILE;
  const file = join(stateDir, "notify-secrets-key.pem");
  if (!existsSync(file)) {
    const { privateKey } = generateKeyPairSync("x25519");
    writeFileSync(file, privateKey.export({ format: "pem", type: "pkcs8" }), { mode: 0o600 });
  }
  return file;
}

function build() {
  log("building what npm start runs (Turborepo caches what has not changed)");
  const filters = startWorkspaces.map((name) => `--filter=${name}`);
  run("npx", ["turbo", "run", "build", ...filters, "--output-logs=errors-only"], {
    env: { ...process.env, TURBO_TELEMETRY_DISABLED: "1" },
  });
}

/**
 * The gateway URL agents are told: http://<hostname>:<port> when this machine resolves its own
 * name (so other machines on the network can use it too), else its first non-loopback address,
 * else loopback (this machine only; the console's Add server page then says so).
 */
async function publicGatewayUrl() {
  if (process.env.SPINDLE_PUBLIC_GATEWAY_URL) return process.env.SPINDLE_PUBLIC_GATEWAY_URL;
  const name = hostname();
  try {
    await lookup(name);
    return `http://${name}:${gatewayPort}`;
  } catch {
    const address = Object.values(networkInterfaces())
      .flat()
      .find((a) => a && a.family === "IPv4" && !a.internal);
    const host = address?.address ?? "127.0.0.1";
    log(
      `this machine's name ${name} does not resolve here, so agents are told the gateway is at ${host} (set SPINDLE_PUBLIC_GATEWAY_URL to choose)`,
    );
    return `http://${host}:${gatewayPort}`;
  }
}

async function database() {
  if (process.env.DATABASE_URL) {
    log("using the database in DATABASE_URL");
    return process.env.DATABASE_URL;
  }
  log(`starting embedded PostgreSQL on 127.0.0.1:${embeddedPgPort}`);
  const holder = spawn(process.execPath, [join(root, "scripts/embedded-postgres.mjs"), join(stateDir, "pgdata"), String(embeddedPgPort)], {
    detached: true,
    stdio: ["pipe", "pipe", "inherit"],
  });
  const exited = new Promise((r) => holder.on("exit", r));
  stopDatabase = async () => {
    holder.kill("SIGTERM");
    await exited;
  };
  const firstLine = await new Promise((resolveLine, reject) => {
    let out = "";
    holder.stdout.on("data", (chunk) => {
      out += chunk;
      if (out.includes("\n")) resolveLine(out.split("\n")[0]);
    });
    holder.on("exit", (code) => reject(new Error(`the embedded PostgreSQL did not start (exit ${code})`)));
  });
  const { url, dataDir } = JSON.parse(firstLine);
  const asked = join(stateDir, "pgdata");
  log(
    dataDir === asked
      ? `embedded PostgreSQL is up (data in ${relative(process.cwd(), asked) || asked})`
      : `embedded PostgreSQL is up (data in ${dataDir}, linked from ${asked}: the postgres user cannot enter this clone)`,
  );
  return url;
}

function service(name, command, args, options) {
  const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"], ...options });
  const prefix = `[${name}] `;
  for (const stream of [child.stdout, child.stderr]) {
    let pending = "";
    stream.on("data", (chunk) => {
      const lines = (pending + chunk).split("\n");
      pending = lines.pop();
      for (const line of lines) process.stdout.write(`${prefix + line}\n`);
    });
  }
  child.on("exit", (code, signal) => {
    if (stopping) return;
    console.error(`${prefix}exited (${signal ?? code}); stopping Spindle`);
    shutdown(1);
  });
  children.push(child);
  return child;
}

async function waitFor(url, what) {
  for (let attempt = 0; attempt < 240; attempt++) {
    try {
      const response = await fetch(url);
      if (response.status < 500) return;
    } catch {}
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`${what} did not answer at ${url} within two minutes: see its log lines above`);
}

async function shutdown(code, why) {
  if (stopping) return;
  stopping = true;
  const started = Date.now();
  if (why) log(`${why}: stopping Spindle`);
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
  await Promise.all(children.map((c) => (c.exitCode === null && c.signalCode === null ? new Promise((r) => c.on("exit", r)) : null)));
  await stopDatabase();
  if (why) log(`Spindle stopped in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  process.exit(code);
}

async function main() {
  mkdirSync(stateDir, { recursive: true });
  if (!skipBuild) build();
  const gatewayUrl = await publicGatewayUrl();
  const databaseUrl = await database();
  log("applying migrations");
  run("node", ["packages/db/dist/cli.js", "migrate"], { env: { ...process.env, DATABASE_URL: databaseUrl } });

  const env = { ...process.env, DATABASE_URL: databaseUrl };
  service("gateway", join(root, "apps/gateway/bin/spindle-gateway"), [], {
    env: {
      ...env,
      SPINDLE_GATEWAY_ADDR: `:${gatewayPort}`,
      SPINDLE_PUBLIC_URL: gatewayUrl,
      SPINDLE_AGENT_DIST_DIR: process.env.SPINDLE_AGENT_DIST_DIR || join(root, "agent/bin"),
      SPINDLE_GATEWAY_STATE_DIR: join(stateDir, "gateway"),
    },
  });
  // The worker links notifications to the console, so it needs the console's public URL too.
  service("worker", "node", ["dist/main.js"], {
    cwd: join(root, "apps/worker"),
    env: { ...env, SPINDLE_CONSOLE_URL: consoleUrl, SPINDLE_NOTIFY_SECRETS_KEY_FILE: notifySecretsKeyFile() },
  });
  // server.ts, not `next start`: it alone decides the client address from the connection.
  service("console", process.execPath, ["dist/server.js", "-p", String(consolePort)], {
    cwd: join(root, "apps/console"),
    env: {
      ...env,
      NODE_ENV: "production",
      BETTER_AUTH_SECRET: authSecret(),
      SPINDLE_CONSOLE_URL: consoleUrl,
      SPINDLE_GATEWAY_URL: gatewayUrl,
      SPINDLE_MAILBOX_DIR: process.env.SPINDLE_MAILBOX_DIR ?? join(stateDir, "mailbox"),
    },
  });
  await waitFor(`http://127.0.0.1:${gatewayPort}/healthz`, "the gateway");
  await waitFor(`http://127.0.0.1:${consolePort}/`, "the console");
  log(`Spindle is running: open ${consoleUrl} (gateway for agents: ${gatewayUrl}). Ctrl-C stops it.`);
  if (!process.env.SPINDLE_SMTP_URL) {
    log(
      "no SPINDLE_SMTP_URL: the console's mail (sign-up confirmations, password resets, invitations) goes to the local mailbox .spindle/mailbox; `npm run mailbox` lists it",
    );
  }
}

process.on("SIGINT", () => shutdown(0, "Ctrl-C"));
process.on("SIGTERM", () => shutdown(0, "SIGTERM"));
main().catch((error) => {
  console.error(`\x1b[1;31merror:\x1b[0m ${error.message}`);
  shutdown(1);
});
