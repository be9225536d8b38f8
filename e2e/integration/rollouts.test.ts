// Issue 23's end-to-end rollout test, every part real: five agents on this machine (the real
// binary, each its own machine id, state directory and files in a private mount namespace), the
// real gateway, worker and console (its API, as a signed-up owner), a PostgreSQL of their own.
// Three servers carry the tag the change goes to; two do not (they stay unchanged, controls for
// the last wave). Each server runs a read workload on its own files; the canary and its workload
// run inside a 320 MiB memory cgroup.
//   1. A harmless change goes through every wave (canary, 50 %, 100 %); the worker is killed
//      during the second wave's guard window and a new one takes the rollout on from there.
//   2. A change the agent refuses (FAILED) is rolled back from the canary; the others never get it.
//   3. A change whose own effect is a regression (the read cache pins cold files that fill the
//      canary's cgroup, so its workload loses its hot set) is rolled back by a guard reading
//      real telemetry; the others never get it.
// Guard windows: the product's minimum is 5 minutes. The test drives time through the database
// (it ends a watched wave's window 30 s after its servers applied), never through a setting a
// production deployment could change. Every wait is for a row or an answer.
//
// Root only; ports 55680–55682, or SPINDLE_ROLLOUTS_PG_PORT / SPINDLE_ROLLOUTS_GATEWAY_PORT /
// SPINDLE_ROLLOUTS_CONSOLE_PORT.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { userInfo } from "node:os";
import { after, before, test } from "node:test";
import type pg from "pg";
import { eventually } from "../support/agent";
import { ConsoleProcess, ConsoleSession } from "../support/console";
import { GatewayProcess } from "../support/gateway";
import { PostgresCluster, queryRows } from "../support/postgres";
import { RolloutFleet, type FleetAgent } from "../support/rollout-fleet";
import { WorkerProcess } from "../support/worker";

const mib = 1024 * 1024;
const windowSeconds = 30;
const skip = userInfo().uid !== 0 ? "needs root: private mount namespaces (machine ids), a memory cgroup, eBPF and mlock" : false;
const cluster = skip ? null : new PostgresCluster(Number(process.env.SPINDLE_ROLLOUTS_PG_PORT ?? 55680));
const databaseUrl = cluster?.url("spindle") ?? "";
const gateway = new GatewayProcess(Number(process.env.SPINDLE_ROLLOUTS_GATEWAY_PORT ?? 55681), databaseUrl);
const consoleApp = new ConsoleProcess(Number(process.env.SPINDLE_ROLLOUTS_CONSOLE_PORT ?? 55682), databaseUrl, gateway.url);
const workerEnv = { SPINDLE_ROLLOUT_STEP_SECONDS: "1", SPINDLE_ROLLOUT_SETTLE_SECONDS: "3" };
let worker = new WorkerProcess(databaseUrl, workerEnv);
const fleet = skip ? null : new RolloutFleet(320 * mib);
const session = new ConsoleSession(consoleApp.url);
const query = <T extends pg.QueryResultRow>(sql: string, params: unknown[] = []) => queryRows<T>(databaseUrl, sql, params);

interface Wave {
  wave: number;
  label: string;
  state: string;
  holdReason: string;
  readings: { guard: string; status: string; summary: string }[];
  servers: { serverId: string; state: string }[];
}
interface Rollout {
  id: string;
  status: string;
  statusReason: string;
  waveDetails: Wave[];
  timeline: { kind: string; message: string }[];
}
type Outcome = { mode: "rollout"; rolloutId: string; servers: number; waves: number } | { mode: "now"; reason: string };

let canary: FleetAgent;
let tagged: FleetAgent[] = [];
let untagged: FleetAgent[] = [];
let dbPolicyId = "";

async function explained<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    console.error(
      [
        `worker:\n${worker.output.slice(-8000)}`,
        `gateway:\n${gateway.output.slice(-4000)}`,
        ...(fleet?.agents ?? []).map((a) => `agent ${a.name}:\n${a.agent.output.slice(-3000)}`),
      ].join("\n"),
    );
    throw error;
  }
}

const rollout = async (id: string) => (await session.get<{ rollout: Rollout }>(`/api/rollouts/${id}`)).rollout;

/** Waits for the wave to be watched, then ends its guard window `windowSeconds` after its servers applied. */
async function shortenGuardWindow(rolloutId: string, wave: number): Promise<void> {
  await eventually(
    `wave ${wave} watched`,
    async () => {
      const rows = await query(
        `UPDATE rollout_waves SET guard_ends_at = applied_at + make_interval(secs => $3)
        WHERE rollout_id = $1 AND wave = $2 AND state = 'watching' RETURNING wave`,
        [rolloutId, wave, windowSeconds],
      );
      return rows.length === 1 || undefined;
    },
    120_000,
  );
}

async function waveState(rolloutId: string, wave: number): Promise<string> {
  return (await rollout(rolloutId)).waveDetails[wave]!.state;
}

/**
 * Waits for the wave to pass. A wave holds while its guards lack data (re-read each minute), which
 * a loaded machine's late telemetry causes, hence the generous bound; on timeout the error says
 * where it stopped: a hold's reason or a guard's reading, not only that it timed out.
 */
async function wavePassed(rolloutId: string, wave: number, description: string): Promise<void> {
  await eventually(description, async () => (await waveState(rolloutId, wave)) === "passed" || undefined, 300_000).catch(
    async (error: Error) => {
      const current = (await rollout(rolloutId)).waveDetails[wave]!;
      throw new Error(
        `${error.message}: the wave is ${current.state}${current.holdReason ? ` (${current.holdReason})` : ""}; ` +
          current.readings.map((r) => `${r.guard} ${r.status}: ${r.summary}`).join("; "),
      );
    },
  );
}

/** Servers that applied `hash` at any time (server_events: the history the charts mark). */
async function appliedEver(serverIds: string[], hash: string): Promise<string[]> {
  const rows = await query<{ server_id: string }>(
    "SELECT DISTINCT server_id::text FROM server_events WHERE kind = 'policy.applied' AND details->>'hash' = $2 AND server_id = ANY($1::uuid[])",
    [serverIds, hash],
  );
  return rows.map((r) => r.server_id);
}

async function plannedHash(rolloutId: string, serverId: string): Promise<string> {
  const [row] = await query<{ planned_hash: string }>("SELECT planned_hash FROM rollout_servers WHERE rollout_id = $1 AND server_id = $2", [
    rolloutId,
    serverId,
  ]);
  return row!.planned_hash;
}

async function saveDbVersion(layer: object, plan: object, comment: string): Promise<string> {
  const { delivery } = await session.post<{ delivery: Outcome }>(`/api/policies/${dbPolicyId}/versions`, {
    document: { schemaVersion: 1, ...layer },
    comment,
    delivery: { mode: "rollout", plan },
  });
  assert.equal(delivery.mode, "rollout", JSON.stringify(delivery));
  return (delivery as { rolloutId: string }).rolloutId;
}

before(async () => {
  if (skip) return;
  cluster!.start();
  cluster!.createMigratedDatabase();
  await gateway.start();
  worker.start();
  await consoleApp.start();
});

after(async () => {
  await fleet?.destroy();
  await worker.stop();
  await consoleApp.stop();
  await gateway.stop();
  cluster?.destroy();
});

test(
  "staged rollouts with real agents: every wave, a FAILED and a measured regression rolled back, a worker restarted",
  { skip, timeout: 900_000 },
  () =>
    explained(async () => {
      const id = randomBytes(3).toString("hex");
      await session.signUp(`Rollouts ${id}`, `rollouts-${id}@example.test`, `pw-${id}-long-enough`, `Rollouts Corp ${id}`);
      const { token } = await session.post<{ token: { installCommand: string } }>("/api/enrollment-tokens", {
        label: "rollouts",
        expiresIn: "1h",
      });
      for (const name of ["canary", "db-2", "db-3", "web-1", "web-2"]) {
        const entry = fleet!.install(name, token.installCommand, name === "canary");
        entry.agent.start();
        entry.serverId = await eventually(`${name}'s first batch`, () => {
          const status = entry.agent.status();
          return status.lastBatchSeq > 0 && status.delivery.lastDeliveredSeq ? status.serverId : undefined;
        });
        fleet!.startWorkload(entry, name === "canary");
      }
      [canary] = fleet!.agents;
      tagged = fleet!.agents.slice(0, 3);
      untagged = fleet!.agents.slice(3);
      assert.equal(new Set(fleet!.agents.map((a) => a.serverId)).size, 5, "five servers");
      for (const entry of tagged) await session.put(`/api/policies/servers/${entry.serverId}/tags`, { tags: ["db"] });

      // Every server: the read cache on its own files, sampling every second. Set up at once (confirmed).
      // No control group (holdoutPercent 0): part 3's regression is a pin of a measured size, and a
      // control group would leave a hash-drawn share of the pinned files' pages unpinned.
      const managed = `${fleet!.managed}/**`;
      const { policy: base } = await session.post<{ policy: { id: string } }>("/api/policies", {
        name: "Read cache",
        comment: "the read cache on every server's data",
        document: {
          schemaVersion: 1,
          telemetry: { intervalSeconds: 1 },
          readCache: { enabled: true, include: [managed], budgetPercentOfAvailable: 90, freeMemoryFloorBytes: 64 * mib, holdoutPercent: 0 },
        },
      });
      const baseAssigned = await session.post<{ delivery: Outcome }>("/api/policies/assignments", {
        scope: "organization",
        policyId: base.id,
        delivery: { mode: "now", confirm: true },
      });
      assert.equal(baseAssigned.delivery.mode, "now");
      const { policy: db } = await session.post<{ policy: { id: string } }>("/api/policies", {
        name: "Database servers",
        comment: "nothing yet",
      });
      dbPolicyId = db.id;
      await session.post("/api/policies/assignments", {
        scope: "tag",
        tag: "db",
        policyId: db.id,
        delivery: { mode: "now", confirm: true },
      });

      // Telemetry before any rollout: every server's read cache measured hits (eBPF) for a while.
      await eventually(
        "read-cache hits from every server",
        async () => {
          const rows = await query<{ n: number }>(
            "SELECT count(DISTINCT server_id)::int AS n FROM read_cache WHERE hits_bytes > 0 AND time > now() - interval '20 seconds' AND server_id = ANY($1::uuid[])",
            [fleet!.agents.map((a) => a.serverId)],
          );
          return rows[0]!.n === 5 || undefined;
        },
        180_000,
      );
      await new Promise((resolve) => setTimeout(resolve, windowSeconds * 1000)); // a full window of history before the first wave

      // The same plan each time: this canary by hand, then 50 %, then 100 %, guard thresholds per rollout.
      // Two servers not yet changed suffice (three servers change, two never do); the tolerance is wider
      // than the product's default because the host-wide page-cache counters of one shared machine jitter.
      const plan = {
        canary: { kind: "servers", serverIds: [canary.serverId] },
        wavePercents: [50, 100],
        guardWindowMinutes: 5,
        guards: { comparative: { minimumControls: 2, relativeTolerancePercent: 25 } },
      };

      // 1. A harmless change, through every wave.
      const harmless = await saveDbVersion({ readCache: { scanResistanceThresholdBytes: 96 * mib } }, plan, "a lower scan threshold");
      let detail = await rollout(harmless);
      assert.deepEqual(
        detail.waveDetails.map((w) => [w.label, w.servers.length]),
        [
          ["Canary", 1],
          ["50 %", 1],
          ["100 %", 1],
        ],
      );
      assert.deepEqual(
        detail.waveDetails[0]!.servers.map((s) => s.serverId),
        [canary.serverId],
      );
      assert.deepEqual(
        new Set(detail.waveDetails.slice(1).flatMap((w) => w.servers.map((s) => s.serverId))),
        new Set([tagged[1]!.serverId, tagged[2]!.serverId]),
      );
      const harmlessHash = await plannedHash(harmless, canary.serverId);
      const laterWaves = detail.waveDetails.slice(1).flatMap((w) => w.servers.map((s) => s.serverId));
      await shortenGuardWindow(harmless, 0);
      assert.deepEqual(await appliedEver(laterWaves, harmlessHash), [], "while the canary is watched, nothing reached the later waves");
      await wavePassed(harmless, 0, "the canary passed");

      // The worker dies (SIGKILL) while the second wave is watched; nothing moves until a new one starts.
      await shortenGuardWindow(harmless, 1);
      await worker.kill();
      const stalledAt = await rollout(harmless);
      assert.equal(stalledAt.waveDetails[1]!.state, "watching");
      await new Promise((resolve) => setTimeout(resolve, (windowSeconds + 10) * 1000));
      assert.equal(await waveState(harmless, 1), "watching", "no worker, no step");
      worker = new WorkerProcess(databaseUrl, workerEnv);
      worker.start();
      await wavePassed(harmless, 1, "the new worker passed the second wave");
      await shortenGuardWindow(harmless, 2);
      detail = await eventually(
        "the rollout completed",
        async () => {
          const current = await rollout(harmless);
          return current.status === "completed" ? current : undefined;
        },
        180_000,
      );
      for (const wave of detail.waveDetails) {
        assert.equal(wave.state, "passed");
        const comparative = wave.readings.find((r) => r.guard === "comparative");
        assert.equal(comparative?.status, "pass", `wave ${wave.label}: ${comparative?.summary}`);
      }
      assert.deepEqual(
        (
          await appliedEver(
            tagged.map((a) => a.serverId),
            harmlessHash,
          )
        ).sort(),
        tagged.map((a) => a.serverId).sort(),
        "every tagged server applied it",
      );
      assert.deepEqual(
        await appliedEver(
          untagged.map((a) => a.serverId),
          harmlessHash,
        ),
        [],
        "the untagged ones never",
      );
      assert.equal(detail.timeline.filter((e) => e.kind === "wave.released").length, 3, "each wave went out once, across the two workers");

      // 2. A policy the agent refuses: FAILED on the canary rolls it back; the others never get it.
      const refused = await saveDbVersion(
        { telemetry: { fragmentationScan: { paths: [fleet!.managed] } } },
        plan,
        "scan the data directory",
      );
      const refusedHash = await plannedHash(refused, canary.serverId);
      detail = await eventually(
        "the refused change rolled back",
        async () => {
          const current = await rollout(refused);
          return current.status === "paused" ? current : undefined;
        },
        120_000,
      );
      assert.match(
        detail.statusReason,
        /^Rolled back: 1 server refused the policy \(FAILED\): \S+: the agent refused the policy.*fragmentation scanner is not running/,
      );
      assert.deepEqual(
        await appliedEver(
          tagged.slice(1).map((a) => a.serverId),
          refusedHash,
        ),
        [],
      );
      await eventually(
        "the canary confirmed its previous policy",
        async () =>
          ((await rollout(refused)).waveDetails[0]!.servers[0]!.state === "rolled_back" &&
            (await query("SELECT 1 FROM rollout_servers WHERE rollout_id = $1 AND rollback_confirmed_at IS NOT NULL", [refused])).length ===
              1) ||
          undefined,
        60_000,
      );
      await session.post(`/api/rollouts/${refused}/abort`);

      // 3. A regression of the change's own making: pin cold files up to the canary's read-cache
      // budget (minus 16 MiB), inside its 320 MiB cgroup: what is left is below its hot set, which
      // its workload then reads from storage every pass.
      const [budget] = await query<{ budget: string }>(
        "SELECT budget_bytes AS budget FROM read_cache WHERE server_id = $1 AND budget_bytes IS NOT NULL ORDER BY time DESC LIMIT 1",
        [canary.serverId],
      );
      const pins = Math.min(RolloutFleet.coldFiles, Math.floor((Number(budget!.budget) - 16 * mib) / RolloutFleet.fileBytes));
      // The budget is what the cgroup leaves above the 64 MiB floor, so the pins leave the hot set about 80 MiB of its 112.
      assert.ok(
        pins >= 8,
        `a budget of ${Number(budget!.budget) / mib} MiB pins only ${pins} files: the cgroup is too full for this test's regression`,
      );
      const pinned = Array.from({ length: pins }, (_, i) => fleet!.coldFile(i));
      const harmful = await saveDbVersion(
        { readCache: { scanResistanceThresholdBytes: 96 * mib, pin: pinned } },
        plan,
        "keep the archive resident",
      );
      const harmfulHash = await plannedHash(harmful, canary.serverId);
      await eventually(
        "the canary pinned the files",
        async () => {
          const [row] = await query<{ pinned: string }>(
            "SELECT pinned_bytes AS pinned FROM read_cache WHERE server_id = $1 ORDER BY time DESC LIMIT 1",
            [canary.serverId],
          );
          return row && Number(row.pinned) >= pins * RolloutFleet.fileBytes ? true : undefined;
        },
        120_000,
      );
      // A hard guard (backoffs) may roll it back before the window ends; otherwise the window is shortened like the others'.
      detail = await eventually(
        "the regression rolled back",
        async () => {
          await query(
            `UPDATE rollout_waves SET guard_ends_at = applied_at + make_interval(secs => $2)
                  WHERE rollout_id = $1 AND wave = 0 AND state = 'watching' AND guard_ends_at > applied_at + make_interval(secs => $2)`,
            [harmful, windowSeconds],
          );
          const current = await rollout(harmful);
          return current.status === "paused" ? current : undefined;
        },
        180_000,
      );
      const tripped = detail.waveDetails[0]!.readings.filter((r) => r.status === "trip").map((r) => r.guard);
      console.log(`regression rolled back by ${tripped.join(", ")}: ${detail.statusReason}`);
      assert.ok(
        tripped.some((guard) => guard === "comparative" || guard === "backoffs"),
        `tripped by a measured guard, not a refusal: ${tripped}`,
      );
      assert.doesNotMatch(detail.statusReason, /FAILED|offline/);
      assert.deepEqual(
        await appliedEver(
          tagged.slice(1).map((a) => a.serverId),
          harmfulHash,
        ),
        [],
        "the later waves never received it",
      );
      await eventually(
        "the canary unpinned (its previous policy back)",
        async () => {
          const [row] = await query<{ pinned: string | null }>(
            "SELECT pinned_bytes AS pinned FROM read_cache WHERE server_id = $1 ORDER BY time DESC LIMIT 1",
            [canary.serverId],
          );
          return row && Number(row.pinned ?? 0) === 0 ? true : undefined;
        },
        120_000,
      );
      const [marked] = await query(
        "SELECT 1 FROM server_events WHERE server_id = $1 AND kind = 'policy.rolled_back' AND details->>'rolloutId' = $2",
        [canary.serverId, harmful],
      );
      assert.ok(marked, "the rollback is on the canary's charts");
    }),
);
