// Ctrl-C on `npm start`: the whole product (scripts/start.mjs with its embedded PostgreSQL,
// gateway, worker and console) stops cleanly while a real agent is connected over OpAMP, holds a
// proof-run long poll (the test holds one too, read by the gateway) and exports every second. Ctrl-C is SIGINT to the terminal's foreground
// process group, as here. The test waits for events, never for a span of time:
//   - start.mjs exits 0 and nothing of the product is left (its process group and the database);
//   - the gateway answered the long poll and closed the agent's OpAMP connection itself as the
//     shutdown began, and nothing logged an error;
//   - nothing is lost: started again, the product receives the agent's backlog, and every batch the
//     agent numbered is in the database exactly once.
// How long the stop took is printed (docs/benchmarks.md, "Stopping npm start"), not asserted.
// Ports 55670–55672, or SPINDLE_START_STOP_CONSOLE_PORT / _GATEWAY_PORT / _PG_PORT.
import assert from "node:assert/strict";
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { request } from "node:http";
import { createConnection } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import pg from "pg";
import { eventually, InstalledAgent } from "../support/agent";
import { repoRoot } from "../support/gateway";
import { queryRows } from "../support/postgres";
import { seedOrganisationWithToken } from "../support/seed";

const ports = {
  console: Number(process.env.SPINDLE_START_STOP_CONSOLE_PORT ?? 55670),
  gateway: Number(process.env.SPINDLE_START_STOP_GATEWAY_PORT ?? 55671),
  postgres: Number(process.env.SPINDLE_START_STOP_PG_PORT ?? 55672),
};
const gatewayUrl = `http://127.0.0.1:${ports.gateway}`;
// Its own state directory, which the `postgres` user may enter (as root the database runs as it).
const stateDir = mkdtempSync(join(tmpdir(), "spindle-start-stop-"));
chmodSync(stateDir, 0o755);
const agent = new InstalledAgent();

interface Product {
  child: ChildProcess;
  output: string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

async function startProduct(): Promise<Product> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    SPINDLE_CONSOLE_PORT: String(ports.console),
    SPINDLE_GATEWAY_PORT: String(ports.gateway),
    SPINDLE_EMBEDDED_PG_PORT: String(ports.postgres),
    SPINDLE_STATE_DIR: stateDir,
    SPINDLE_PUBLIC_GATEWAY_URL: gatewayUrl,
    SPINDLE_CONSOLE_URL: `http://localhost:${ports.console}`,
  };
  delete env.DATABASE_URL; // the embedded database, as a new user's `npm start` has
  // A process group of its own, as a terminal's foreground job is.
  const child = spawn(process.execPath, [join(repoRoot, "scripts/start.mjs"), "--no-build"], {
    env,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const product: Product = { child, output: "", exited: new Promise((r) => child.on("exit", (code, signal) => r({ code, signal }))) };
  child.stdout!.on("data", (d) => (product.output += d));
  child.stderr!.on("data", (d) => (product.output += d));
  await eventually(
    "Spindle is running",
    () => {
      if (child.exitCode !== null) throw new Error(`start.mjs exited ${child.exitCode}:\n${product.output}`);
      return product.output.includes("Spindle is running") ? true : undefined;
    },
    180_000,
  );
  return product;
}

function databaseUrl(): string {
  const password = readFileSync(join(stateDir, "pgdata.password"), "utf8").trim();
  return `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${ports.postgres}/spindle`;
}

function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: "127.0.0.1", port });
    socket.on("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.on("error", () => resolve(false));
  });
}

function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Ctrl-C: SIGINT to the whole process group. Resolves with the exit and how long it took. */
async function ctrlC(product: Product): Promise<{ code: number | null; seconds: number }> {
  const started = process.hrtime.bigint();
  process.kill(-product.child.pid!, "SIGINT");
  const { code } = await product.exited;
  return { code, seconds: Number(process.hrtime.bigint() - started) / 1e9 };
}

/**
 * GET /v1/bench/next?wait=30 as the agent polls: `sent` resolves with the client's port once the
 * request is written, `status` with the answer's status (or the error).
 */
function longPoll(credential: string): { sent: Promise<number>; status: Promise<number | string> } {
  let sent!: (port: number) => void;
  const sentPromise = new Promise<number>((r) => (sent = r));
  const status = new Promise<number | string>((resolve) => {
    const req = request(
      `${gatewayUrl}/v1/bench/next?wait=30`,
      { headers: { authorization: `Bearer ${credential}` }, agent: false },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on("error", (error) => resolve(`failed: ${error.message}`));
    req.on("finish", () => sent(req.socket!.localPort!));
    req.end();
  });
  return { sent: sentPromise, status };
}

/** Whether the gateway has taken the request off our connection: its socket's receive queue is empty. */
function gatewayHasRead(clientPort: number): boolean {
  const line = execFileSync("ss", ["-tnH", "state", "established", `( sport = :${ports.gateway} and dport = :${clientPort} )`], {
    encoding: "utf8",
  }).trim();
  return line !== "" && line.split(/\s+/)[0] === "0";
}

let product: Product | undefined;

before(async () => {
  product = await startProduct();
  const client = new pg.Client({ connectionString: databaseUrl() });
  await client.connect();
  const { token } = await seedOrganisationWithToken(client, "start-stop");
  await client.end();
  agent.install(InstalledAgent.oneLiner(gatewayUrl, token));
  agent.setInterval(1);
  agent.start();
});

after(async () => {
  await agent.destroy();
  if (product && product.child.exitCode === null) {
    process.kill(-product.child.pid!, "SIGTERM");
    await product.exited;
  }
  rmSync(stateDir, { recursive: true, force: true });
});

test("Ctrl-C stops the whole product cleanly, the gateway closing its OpAMP connections, and nothing is lost", async (t) => {
  const first = product!;
  await eventually(
    "the agent on OpAMP and delivering",
    async () => {
      const [row] = await queryRows<{ hwm: string }>(databaseUrl(), "SELECT batch_hwm AS hwm FROM agents");
      return first.output.includes("OpAMP agent connected") && Number(row?.hwm ?? 0) >= 3 ? true : undefined;
    },
    120_000,
  );

  // A proof-run long poll in flight, as the agent keeps one (its own may be near its end): the
  // gateway must answer it at once, not wait for it through its shutdown.
  const credential = /^credential: (spa_\S+)$/m.exec(readFileSync(agent.config, "utf8"))![1]!;
  const poll = longPoll(credential);
  const clientPort = await poll.sent;
  await eventually("the gateway to have read the long poll", () => (gatewayHasRead(clientPort) ? true : undefined));

  const stop = await ctrlC(first);
  t.diagnostic(
    `npm start stopped ${stop.seconds.toFixed(2)} s after Ctrl-C (${/Spindle stopped in [\d.]+ s/.exec(first.output)?.[0] ?? "?"})`,
  );
  assert.equal(stop.code, 0, first.output);
  assert.equal(groupAlive(first.child.pid!), false, "a process of the product outlived Ctrl-C");
  assert.equal(await listening(ports.postgres), false, "the embedded PostgreSQL outlived Ctrl-C");
  assert.equal(await listening(ports.gateway), false);
  assert.equal(await poll.status, 204, "the long poll was answered (nothing to do) when the gateway began to stop");
  // The WebSockets are closed as the shutdown begins, not after it.
  const closed = first.output.search(/"msg":"closed the agents' OpAMP connections[^"]*","connections":1\}/);
  const stopped = first.output.search(/"msg":"gateway stopped"/);
  assert.ok(closed > 0 && stopped > closed, `the OpAMP connections closed (at ${closed}) before the gateway stopped (at ${stopped})`);
  assert.match(first.output, /Spindle stopped in [\d.]+ s/);
  const errors = first.output
    .split("\n")
    .filter((line) => /"level":"ERROR"|\berror\b|\bERROR\b|exited \(/i.test(line) && !/"level":"(INFO|WARN)"/.test(line));
  assert.deepEqual(errors, [], "nothing logged as an error");

  // Started again, the product receives what the agent kept while it was down.
  product = await startProduct();
  const backlogUpTo = agent.status().lastBatchSeq;
  await eventually(
    "the agent's backlog delivered",
    () => ((agent.status().delivery.lastDeliveredSeq ?? 0) >= backlogUpTo + 1 ? true : undefined),
    120_000,
  );
  await agent.stop();
  const [written] = await queryRows<{ hwm: string; memory_rows: string; distinct_times: string }>(
    databaseUrl(),
    `SELECT (SELECT batch_hwm FROM agents) AS hwm, (SELECT count(*) FROM memory) AS memory_rows, (SELECT count(DISTINCT time) FROM memory) AS distinct_times`,
  );
  const { spool, lastBatchSeq } = agent.status();
  // One memory sample per batch: rows = batches written, none twice, none lost across the stop.
  assert.equal(written!.memory_rows, written!.distinct_times, "no sample was written twice");
  assert.equal(Number(written!.memory_rows), Number(written!.hwm), "every acknowledged batch was written once");
  assert.equal(Number(written!.hwm) + spool.batches, lastBatchSeq, "every batch is either written or still spooled");

  const second = await ctrlC(product);
  t.diagnostic(`npm start stopped ${second.seconds.toFixed(2)} s after Ctrl-C, with no agent connected`);
  assert.equal(second.code, 0, product.output);
});
