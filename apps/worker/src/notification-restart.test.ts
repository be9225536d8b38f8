// The worker process killed (SIGKILL) while a webhook is being delivered: nothing is lost, and
// the one notification in flight is delivered again by the next worker with the same id, which
// is what a receiver deduplicates on. Real processes (src/main.ts), real PostgreSQL, a real
// receiver that checks the Standard Webhooks signature itself.
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { createHmac } from "node:crypto";
import { once } from "node:events";
import type { IncomingHttpHeaders } from "node:http";
import { fileURLToPath } from "node:url";
import { after, before, describe, it } from "node:test";
import { startHttpReceiver, writeTestSecretsKeyFile, type HttpReceiver } from "@spindle/notify/testing";
import { deliverNotification } from "./jobs/notification-delivery.js";
import { enqueue, outboxRows, routedChannel, seedOrganization, testDelivery } from "./test-support/notifications.js";
import { openPlainDatabase, skipReason, type PlainDatabase } from "./test-support/telemetry.js";

const orgId = "org-restart";
const serverId = "9f3e4d5c-6b7a-4c8d-9e0f-1a2b3c4d5e6f";
const workerDir = fileURLToPath(new URL("..", import.meta.url));

function signatureValid(secret: string, headers: IncomingHttpHeaders, body: string): boolean {
  const key = Buffer.from(secret.slice("whsec_".length), "base64");
  const expected = createHmac("sha256", key).update(`${headers["webhook-id"]}.${headers["webhook-timestamp"]}.${body}`).digest("base64");
  return String(headers["webhook-signature"]).split(" ").includes(`v1,${expected}`);
}

interface WorkerProcess {
  child: ChildProcess;
  output: () => string;
}

function startWorker(databaseUrl: string): WorkerProcess {
  let output = "";
  const child = spawn(process.execPath, ["--import", "tsx", "src/main.ts"], {
    cwd: workerDir,
    env: {
      PATH: process.env.PATH,
      DATABASE_URL: databaseUrl,
      SPINDLE_WORKER_CONCURRENCY: "2",
      SPINDLE_ROLLUP_INTERVAL_SECONDS: "0",
      SPINDLE_CONSOLE_URL: "https://spindle.example.com",
      // Long enough that the receiver's hang outlasts the kill; the claim lasts 3 s + 10 s.
      SPINDLE_NOTIFY_SEND_TIMEOUT_SECONDS: "3",
      SPINDLE_NOTIFY_ALLOW_PRIVATE_TARGETS: "true",
      SPINDLE_NOTIFY_SECRETS_KEY_FILE: writeTestSecretsKeyFile(),
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  return { child, output: () => output };
}

async function stop(worker: WorkerProcess | undefined, signal: NodeJS.Signals): Promise<void> {
  if (!worker || worker.child.exitCode !== null || worker.child.signalCode !== null) return;
  const exited = once(worker.child, "exit");
  worker.child.kill(signal);
  await exited;
}

/** Waits for a row state the other process produces: re-reads on each tick, no deadline of its own. */
async function untilRow(plain: PlainDatabase, id: string, check: (row: { status: string; attempts: number }) => boolean) {
  for (;;) {
    const [row] = await outboxRows(plain.pool, "id = $1", [id]);
    if (row && check(row)) return row;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe("a worker killed mid-delivery", { skip: skipReason, timeout: 180_000 }, () => {
  let plain: PlainDatabase;
  let receiver: HttpReceiver;
  const workers: WorkerProcess[] = [];

  before(async () => {
    plain = await openPlainDatabase("notify_restart");
    await seedOrganization(plain.pool, orgId, serverId, []);
    // The first request is never answered: the worker sending it is killed meanwhile.
    receiver = await startHttpReceiver((_request, index) => (index === 0 ? "hang" : { status: 200 }));
  });
  after(async () => {
    for (const worker of workers) await stop(worker, "SIGKILL");
    await receiver?.close();
    await plain?.close();
  });

  it("loses nothing and re-sends only the notification in flight, with the same id", async () => {
    try {
      await killAndRestart();
    } catch (error) {
      for (const [i, worker] of workers.entries()) console.error(`--- worker ${i + 1} output ---\n${worker.output()}`);
      throw error;
    }
  });

  async function killAndRestart(): Promise<void> {
    const hook = await routedChannel(plain.pool, orgId, "Receiver", "webhook", { url: `${receiver.url}/hook` }, {});
    // Enqueued while no worker runs: its announcement is lost, the first worker's start-up sweep finds it.
    const { queued } = await enqueue(plain.pool, {
      orgId,
      transitionId: "restart-1",
      rule: { id: "r", name: "Disk filling up" },
      severity: "warning",
      state: { from: "pending", to: "firing" },
      subject: { serverId, serverName: "db-01", device: "sda", tags: [] },
      value: 93,
      threshold: 90,
      comparison: ">",
      unit: "%",
      basis: "filesystem used space",
      startedAt: "2026-11-23T10:00:00Z",
      at: "2026-11-23T10:05:00Z",
      note: "",
      linkPath: `/servers/${serverId}`,
      silenced: false,
    });
    const id = queued[0]!.notificationId;

    const first = startWorker(plain.db.url);
    workers.push(first);
    await receiver.waitForRequests(1);
    await stop(first, "SIGKILL");
    const [inFlight] = await outboxRows(plain.pool, "id = $1", [id]);
    assert.deepEqual([inFlight!.status, inFlight!.attempts], ["sending", 1], "the claim outlives the killed worker");

    const second = startWorker(plain.db.url);
    workers.push(second);
    const sent = await untilRow(plain, id, (row) => row.status === "sent");
    assert.equal(sent.attempts, 2);
    const requests = await receiver.waitForRequests(2);
    assert.equal(requests.length, 2, "delivered twice: the killed attempt and the one that finished");
    for (const request of requests) {
      assert.equal(request.headers["webhook-id"], id, "the same id both times, for the receiver to deduplicate");
      assert.ok(signatureValid(hook.generatedSigningSecret!, request.headers, request.body));
    }
    await stop(second, "SIGTERM");
    assert.equal(second.child.exitCode, 0, second.output());

    // The dead worker's job stays locked in graphile-worker (it frees such jobs after four
    // hours); when it runs then, it finds the notification sent and sends nothing.
    const late = await deliverNotification(plain.pool, { orgId, notificationId: id }, testDelivery);
    assert.deepEqual(late, { kind: "finished", status: "sent" });
    assert.equal(receiver.requests.length, 2);
  }
});
