#!/usr/bin/env node
// Starts the whole product on one machine: PostgreSQL (embedded unless DATABASE_URL is set),
// migrations, gateway, worker and console. `npm start` runs scripts/setup.sh first.
//
//   DATABASE_URL           use this PostgreSQL/TimescaleDB instead of the embedded one
//   SPINDLE_CONSOLE_PORT   console port (3000)       SPINDLE_GATEWAY_PORT   gateway port (4318)
//   SPINDLE_PUBLIC_GATEWAY_URL  URL agents use to reach the gateway (http://<hostname>:4318)
//   SPINDLE_SMTP_URL       the mail server for the console's mail; unset: the local mailbox
//                          .spindle/mailbox (`npm run mailbox` lists it)
//   --no-build             skip the build (tests build once beforehand)
import { spawn, execFileSync } from "node:child_process";
import { generateKeyPairSync, randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const stateDir = join(root, ".spindle");
const consolePort = Number(process.env.SPINDLE_CONSOLE_PORT ?? 3000);
const gatewayPort = Number(process.env.SPINDLE_GATEWAY_PORT ?? 4318);
const embeddedPgPort = Number(process.env.SPINDLE_EMBEDDED_PG_PORT ?? 54320);
const consoleUrl = process.env.SPINDLE_CONSOLE_URL ?? `http://localhost:${consolePort}`;
const gatewayUrl = process.env.SPINDLE_PUBLIC_GATEWAY_URL ?? `http://${hostname()}:${gatewayPort}`;
const skipBuild = process.argv.includes("--no-build");

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
  log("building (Turborepo caches what has not changed)");
  run("npx", ["turbo", "run", "build", "--output-logs=errors-only"], { env: { ...process.env, TURBO_TELEMETRY_DISABLED: "1" } });
}

async function database() {
  if (process.env.DATABASE_URL) {
    log("using the database in DATABASE_URL");
    return process.env.DATABASE_URL;
  }
  log(`starting embedded PostgreSQL on 127.0.0.1:${embeddedPgPort} (data in .spindle/pgdata)`);
  const holder = spawn("node", [join(root, "scripts/embedded-postgres.mjs"), join(stateDir, "pgdata"), String(embeddedPgPort)],
    { detached: true, stdio: ["pipe", "pipe", "inherit"] });
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
  return JSON.parse(firstLine).url;
}

function service(name, command, args, options) {
  const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"], ...options });
  const prefix = `[${name}] `;
  for (const stream of [child.stdout, child.stderr]) {
    let pending = "";
    stream.on("data", (chunk) => {
      const lines = (pending + chunk).split("\n");
      pending = lines.pop();
      for (const line of lines) process.stdout.write(prefix + line + "\n");
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

async function shutdown(code) {
  if (stopping) return;
  stopping = true;
  for (const child of children) child.kill("SIGTERM");
  await Promise.all(children.map((c) => (c.exitCode === null ? new Promise((r) => c.on("exit", r)) : null)));
  await stopDatabase();
  process.exit(code);
}

async function main() {
  mkdirSync(stateDir, { recursive: true });
  if (!skipBuild) build();
  const databaseUrl = await database();
  log("applying migrations");
  run("node", ["packages/db/dist/cli.js", "migrate"], { env: { ...process.env, DATABASE_URL: databaseUrl } });

  const env = { ...process.env, DATABASE_URL: databaseUrl };
  service("gateway", join(root, "apps/gateway/bin/spindle-gateway"), [], {
    env: { ...env, SPINDLE_GATEWAY_ADDR: `:${gatewayPort}`, SPINDLE_PUBLIC_URL: gatewayUrl,
      SPINDLE_AGENT_DIST_DIR: join(root, "agent/bin"), SPINDLE_GATEWAY_STATE_DIR: join(stateDir, "gateway") },
  });
  // The worker links notifications to the console, so it needs the console's public URL too.
  service("worker", "node", ["dist/main.js"], {
    cwd: join(root, "apps/worker"),
    env: { ...env, SPINDLE_CONSOLE_URL: consoleUrl, SPINDLE_NOTIFY_SECRETS_KEY_FILE: notifySecretsKeyFile() },
  });
  service("console", join(root, "node_modules/.bin/next"), ["start", "-p", String(consolePort)], {
    cwd: join(root, "apps/console"),
    env: { ...env, NODE_ENV: "production", BETTER_AUTH_SECRET: authSecret(),
      SPINDLE_CONSOLE_URL: consoleUrl, SPINDLE_GATEWAY_URL: gatewayUrl,
      SPINDLE_MAILBOX_DIR: process.env.SPINDLE_MAILBOX_DIR ?? join(stateDir, "mailbox") },
  });
  await waitFor(`http://127.0.0.1:${gatewayPort}/healthz`, "the gateway");
  await waitFor(`http://127.0.0.1:${consolePort}/`, "the console");
  log(`Spindle is running: open ${consoleUrl} (gateway for agents: ${gatewayUrl}). Ctrl-C stops it.`);
  if (!process.env.SPINDLE_SMTP_URL) {
    log("no SPINDLE_SMTP_URL: the console's mail (sign-up confirmations, password resets, invitations) goes to the local mailbox .spindle/mailbox; `npm run mailbox` lists it");
  }
}

process.on("SIGINT", () => shutdown(0));
process.on("SIGTERM", () => shutdown(0));
main().catch((error) => {
  console.error(`\x1b[1;31merror:\x1b[0m ${error.message}`);
  shutdown(1);
});
