// The Spindle OpenTelemetry Collector distribution (infra/otel-collector), built from its
// committed sources and run for real with the real gateway and agent (issue 13):
// (a) Collector as a source: this machine's /proc counters in the hostmetrics receiver's
//     cumulative shape (apps/gateway/cmd/spindle-hostmetrics-feed, since the distribution cannot
//     include hostmetrics) → Collector (source-otlp.yaml, the server's credential in its
//     otlphttp headers) → gateway → disk_io and memory rows holding the exact deltas;
// (b) the real agent → Collector (fanin.yaml, the gateway's relay credential) → gateway, the
//     gateway restarted mid-stream: every batch the agent numbered is written exactly once.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { appendFileSync } from "node:fs";
import { after, before, test } from "node:test";
import pg from "pg";
import { eventually, InstalledAgent } from "../support/agent";
import { GatewayProcess } from "../support/gateway";
import { buildCollector, buildHostmetricsFeed, CollectorProcess } from "../support/otel-collector";
import { PostgresCluster, queryRows } from "../support/postgres";
import { seedOrganisationWithToken } from "../support/seed";

const port = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const cluster = new PostgresCluster(port("SPINDLE_OTELCOL_PG_PORT", 4618));
const databaseUrl = cluster.url("spindle");
const relayCredential = `spr_${randomBytes(32).toString("hex")}`;
const gateway = new GatewayProcess(port("SPINDLE_OTELCOL_GATEWAY_PORT", 4611), databaseUrl, { SPINDLE_RELAY_CREDENTIALS: relayCredential });
const base = port("SPINDLE_OTELCOL_COLLECTOR_PORT", 4612); // and the next five
const agent = new InstalledAgent();
let source: CollectorProcess | undefined;
let fanin: CollectorProcess | undefined;
let feedBinary = "";
let tokens: { source: string; agent: string };

function query<T extends pg.QueryResultRow>(sql: string, params: unknown[] = []): Promise<T[]> {
  return queryRows<T>(databaseUrl, sql, params);
}

before(async () => {
  buildCollector();
  feedBinary = buildHostmetricsFeed();
  cluster.start();
  cluster.createMigratedDatabase();
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  tokens = {
    source: (await seedOrganisationWithToken(client, "otelcol-source")).token,
    agent: (await seedOrganisationWithToken(client, "otelcol-fanin")).token,
  };
  await client.end();
  await gateway.start();
});

after(async () => {
  await agent.destroy();
  await source?.stop();
  await fanin?.stop();
  await gateway.stop();
  cluster.destroy();
});

/** The documented enrolment of a Collector source: the enrolment token buys a credential. */
async function enrolSource(token: string): Promise<{ credential: string; serverId: string }> {
  const response = await fetch(`${gateway.url}/v1/enroll`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ token, machineId: `otelcol-${randomBytes(8).toString("hex")}`, hostname: "otelcol-source", os: "linux" }),
  });
  assert.equal(response.status, 200, await response.clone().text());
  return (await response.json()) as { credential: string; serverId: string };
}

interface FedScrape {
  time: string;
  disks: { Device: string; ReadBytes: number; WriteBytes: number; ReadOps: number; WriteOps: number }[];
}

test("a Collector as a source lands this machine's real counters as deltas", async () => {
  const { credential, serverId } = await enrolSource(tokens.source);
  source = new CollectorProcess(
    "source-otlp.yaml",
    { otlp: base, health: base + 1, metrics: base + 2 },
    { SPINDLE_GATEWAY_URL: gateway.url, SPINDLE_AGENT_CREDENTIAL: credential },
  );
  try {
    await source.start();
    const scrapes = execFileSync(feedBinary, ["-endpoint", source.url, "-interval", "1s", "-count", "4"], { encoding: "utf8" })
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as FedScrape);
    const devices = scrapes[0].disks.map((d) => d.Device);
    assert.ok(devices.length > 0, "this machine has block devices in /proc/diskstats");
    // Three intervals per device (the first scrape is the baseline), one memory row per scrape.
    await eventually(
      "every delta row",
      async () =>
        (Number((await query<{ n: string }>("SELECT count(*) AS n FROM disk_io WHERE server_id = $1", [serverId]))[0].n) >=
          3 * devices.length &&
          Number((await query<{ n: string }>("SELECT count(*) AS n FROM memory WHERE server_id = $1", [serverId]))[0].n) >= 4) ||
        undefined,
    );

    const rows = await query<{
      device: string;
      read_bytes: string;
      write_bytes: string;
      read_ops: string;
      write_ops: string;
      interval_seconds: number;
    }>(
      `SELECT device, read_bytes, write_bytes, read_ops, write_ops, interval_seconds FROM disk_io WHERE server_id = $1 ORDER BY device, time`,
      [serverId],
    );
    assert.equal(rows.length, 3 * devices.length, "no row twice, none for the baseline");
    for (const device of devices) {
      const stored = rows.filter((r) => r.device === device);
      const fed = scrapes.map((s) => s.disks.find((d) => d.Device === device)!);
      for (let i = 1; i < fed.length; i++) {
        const row = stored[i - 1];
        const what = `${device} interval ${i}`;
        assert.equal(Number(row.read_bytes), fed[i].ReadBytes - fed[i - 1].ReadBytes, `${what}: read bytes`);
        assert.equal(Number(row.write_bytes), fed[i].WriteBytes - fed[i - 1].WriteBytes, `${what}: write bytes`);
        assert.equal(Number(row.read_ops), fed[i].ReadOps - fed[i - 1].ReadOps, `${what}: read operations`);
        assert.equal(Number(row.write_ops), fed[i].WriteOps - fed[i - 1].WriteOps, `${what}: write operations`);
        const seconds = (Date.parse(scrapes[i].time) - Date.parse(scrapes[i - 1].time)) / 1000;
        assert.ok(Math.abs(row.interval_seconds - seconds) < 0.01, `${what}: interval ${row.interval_seconds} s, fed ${seconds} s`);
      }
    }
    const [memory] = await query<{ n: string; total: string }>(
      "SELECT count(*) AS n, max(total_bytes) AS total FROM memory WHERE server_id = $1 AND total_bytes IS NOT NULL AND free_bytes IS NOT NULL",
      [serverId],
    );
    assert.equal(Number(memory.n), 4, "one memory row per scrape, with total and free");
    const [{ capabilities }] = await query<{ capabilities: string[] }>(
      "SELECT telemetry_capabilities AS capabilities FROM agents WHERE server_id = $1",
      [serverId],
    );
    assert.deepEqual(capabilities, [], "a Collector source reports no capabilities: every eBPF one shows as missing");
  } catch (error) {
    console.error(`collector output:\n${source.output}\ngateway output:\n${gateway.output}`);
    throw error;
  }
});

test("the real agent through a Collector keeps exactly once across a gateway restart", async () => {
  fanin = new CollectorProcess(
    "fanin.yaml",
    { otlp: base + 3, health: base + 4, metrics: base + 5 },
    { SPINDLE_GATEWAY_URL: gateway.url, SPINDLE_RELAY_CREDENTIAL: relayCredential },
  );
  try {
    await fanin.start();
    agent.install(InstalledAgent.oneLiner(gateway.url, tokens.agent));
    agent.setInterval(1);
    appendFileSync(agent.config, `collector: ${fanin.url}\n`);
    agent.start();
    const serverId = await eventually("the agent's first status", () => agent.status().serverId);
    const memoryRows = async () =>
      Number((await query<{ n: string }>("SELECT count(*) AS n FROM memory WHERE server_id = $1", [serverId]))[0].n);
    await eventually("batches through the Collector", async () => (await memoryRows()) >= 3 || undefined);

    // The gateway goes away while the agent keeps sampling: the Collector queues and retries.
    await gateway.stop();
    await eventually("the agent delivers to the Collector meanwhile", () => {
      const seq = agent.status().delivery.lastDeliveredSeq ?? 0;
      return seq >= 3 + 3 || undefined;
    });
    await gateway.start();
    await eventually("batches after the restart", async () => (await memoryRows()) >= 8 || undefined, 90_000);
    await agent.stop();

    const last = agent.status().lastBatchSeq;
    await eventually(
      `the gateway's mark reaching the agent's last batch ${last}`,
      async () =>
        Number((await query<{ hwm: string }>("SELECT batch_hwm AS hwm FROM agents WHERE server_id = $1", [serverId]))[0].hwm) === last ||
        undefined,
      90_000,
    );
    // One memory row per batch: each numbered batch written once, none lost, none twice.
    assert.equal(await memoryRows(), last, `memory rows for batches 1..${last}`);
    const duplicates = await query("SELECT time FROM memory WHERE server_id = $1 GROUP BY time HAVING count(*) > 1", [serverId]);
    assert.deepEqual(duplicates, [], "no sample was written twice");
    assert.ok(!gateway.output.includes("spa_"), "the gateway never logs an agent credential");
  } catch (error) {
    console.error(`agent output:\n${agent.output}\ncollector output:\n${fanin.output}\ngateway output:\n${gateway.output}`);
    throw error;
  }
});
