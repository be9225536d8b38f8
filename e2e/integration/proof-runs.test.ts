// A proof run requested as the console requests it (a queued row in proof_runs) reaches the
// real agent through the real gateway: the agent offers its profiles, takes the run at its long
// poll, runs an A/B run with the proof-run engine on a tiny file (a warm-up pass, then off/on/on/off
// blocks), posts progress, and its report with every pass and each change's interval is stored;
// a second run is cancelled mid-way, stops, and keeps the passes it finished with no change stated;
// both leave no files behind.
import assert from "node:assert/strict";
import { mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { eventually } from "../support/agent";
import { PolicyStack } from "../support/policy-stack";

const stack = new PolicyStack(
  Number(process.env.SPINDLE_BENCH_RUNS_PG_PORT ?? 56730),
  Number(process.env.SPINDLE_BENCH_RUNS_GATEWAY_PORT ?? 56731),
);
const dataDir = () => join(stack.agent.prefix, "proof-run-data");

before(async () => {
  await stack.start();
  mkdirSync(dataDir(), { recursive: true });
  // Only the operator decides where remote runs may write: agent.yaml proof_runs.paths.
  await stack.agent.stop();
  stack.agent.allowProofRunPaths([dataDir()]);
  stack.agent.start();
});

after(async () => {
  await stack.destroy();
});

async function explained(run: () => Promise<void>): Promise<void> {
  try {
    await run();
  } catch (error) {
    console.error(stack.describe());
    throw error;
  }
}

interface Difference {
  status: string;
  percent: number | null;
  lowPercent: number | null;
  highPercent: number | null;
  reason?: string;
}

interface RunRow {
  status: string;
  progress: number | null;
  phase: string | null;
  error: string | null;
  report: {
    complete: boolean;
    ab: boolean;
    passOrder: string[];
    warmUpPasses: number;
    alternation: { blocks: number; targetHalfWidthPercent: number; stopReason: string } | null;
    steps: {
      index: number;
      off: { iops: number } | null;
      on: { iops: number } | null;
      passes: { pass: number; warmUp?: boolean }[];
      change: { throughput: Difference; latencyMean: Difference } | null;
    }[];
  } | null;
}

async function queueRun(parameters: object): Promise<string> {
  const [row] = await stack.query<{ id: string }>(
    "INSERT INTO proof_runs (org_id, server_id, profile, parameters) VALUES ($1, $2, 'fileserver', $3) RETURNING id::text",
    [stack.orgId, stack.serverId, JSON.stringify(parameters)],
  );
  return row!.id;
}

async function run(id: string): Promise<RunRow> {
  const [row] = await stack.query<RunRow>("SELECT status, progress, phase, error, report FROM proof_runs WHERE id = $1", [id]);
  return row!;
}

// A target of ±100 % lets the run stop after its least two blocks; the time limit bounds it otherwise.
const tiny = () => ({
  paths: [dataDir()],
  sizeLimitBytes: 32 << 20,
  timeLimitSeconds: 90,
  stepSeconds: 1,
  latencyLimitSeconds: 0.05,
  targetHalfWidthPercent: 100,
  ab: true,
  directIO: false,
  loads: [
    { threads: 1, outstanding: 1 },
    { threads: 2, outstanding: 2 },
  ],
});

test("the agent offers its proof-run profiles and the directories agent.yaml allows", () =>
  explained(async () => {
    const offer = await eventually(
      "profiles and paths in agents.capabilities",
      async () => {
        const [row] = await stack.query<{ names: string[] | null; paths: string[] | null }>(
          `SELECT ARRAY(SELECT jsonb_array_elements(capabilities->'proofRuns'->'profiles')->>'name') AS names,
                ARRAY(SELECT jsonb_array_elements_text(capabilities->'proofRuns'->'paths')) AS paths FROM agents`,
        );
        return row?.paths && row.paths.length > 0 ? row : undefined;
      },
      30_000,
    );
    assert.deepEqual([...offer.names!].sort(), ["fileserver", "oltp", "pgbench", "sqlio"]);
    assert.deepEqual(offer.paths, [dataDir()]);
  }));

test("a run naming a directory agent.yaml does not allow is refused by the agent", () =>
  explained(async () => {
    const id = await queueRun({ ...tiny(), paths: [stack.agent.prefix] });
    const row = await eventually(
      "the refusal",
      async () => {
        const r = await run(id);
        return r.status === "failed" ? r : undefined;
      },
      30_000,
    );
    assert.match(row.error ?? "", /not one this agent allows for proof runs/);
  }));

test("a tiny A/B run goes from queued through running to a stored report", () =>
  explained(async () => {
    const id = await queueRun(tiny());
    const running = await eventually(
      "the run to report progress",
      async () => {
        const row = await run(id);
        if (row.status === "failed") throw new Error(`run failed: ${row.error}`);
        return row.status === "running" && row.progress !== null ? row : undefined;
      },
      30_000,
    );
    assert.ok(running.progress! >= 0 && running.progress! < 1);
    const done = await eventually(
      "the run to succeed",
      async () => {
        const row = await run(id);
        if (row.status === "failed") throw new Error(`run failed: ${row.error}`);
        return row.status === "succeeded" ? row : undefined;
      },
      120_000,
    );
    assert.equal(done.progress, 1);
    const report = done.report!;
    assert.equal(report.ab, true);
    assert.equal(report.complete, true);
    assert.equal(report.warmUpPasses, 1);
    assert.ok(report.alternation && report.alternation.blocks >= 2, "at least two off/on/on/off blocks");
    assert.equal(report.alternation.targetHalfWidthPercent, 100);
    const blocks = Array.from({ length: report.alternation.blocks }, () => ["off", "on", "on", "off"]).flat();
    assert.deepEqual(report.passOrder, ["off", ...blocks], "a warm-up pass, then whole blocks");
    assert.equal(report.steps.length, 2);
    for (const step of report.steps) {
      assert.ok(step.off && step.off.iops > 0, `step ${step.index} measured without the features`);
      assert.ok(step.on && step.on.iops > 0, `step ${step.index} measured with the features`);
      assert.equal(step.passes.length, report.passOrder.length, "every pass kept");
      assert.equal(step.passes[0]!.warmUp, true);
      for (const d of [step.change!.throughput, step.change!.latencyMean]) {
        assert.notEqual(d.status, "not-measured", `step ${step.index}: ${d.reason}`);
        assert.ok(d.lowPercent! <= d.percent! && d.percent! <= d.highPercent!, "the estimate inside its interval");
        assert.equal(
          d.status === "no-measurable-difference",
          d.lowPercent! <= 0 && d.highPercent! >= 0,
          "the wording follows the interval",
        );
      }
    }
    assert.deepEqual(readdirSync(dataDir()), [], "the run removed its files");
  }));

test("a run cancelled from the console stops and removes its files", () =>
  explained(async () => {
    const id = await queueRun({
      ...tiny(),
      stepSeconds: 5,
      timeLimitSeconds: 600,
      loads: [
        { threads: 1, outstanding: 1 },
        { threads: 1, outstanding: 2 },
        { threads: 2, outstanding: 2 },
        { threads: 2, outstanding: 4 },
      ],
    });
    await eventually(
      "the run to start measuring",
      async () => {
        const row = await run(id);
        return row.status === "running" && (row.progress ?? 0) > 0 ? row : undefined;
      },
      30_000,
    );
    await stack.query("UPDATE proof_runs SET status = 'cancelling', cancel_requested_at = now() WHERE id = $1", [id]);
    const cancelled = await eventually(
      "the agent to stop the run",
      async () => {
        const row = await run(id);
        return ["cancelled", "failed", "succeeded"].includes(row.status) ? row : undefined;
      },
      30_000,
    );
    assert.equal(cancelled.status, "cancelled", `ended ${cancelled.status}: ${cancelled.error}`);
    // The passes it finished are kept; no change is stated from them.
    assert.equal(cancelled.report?.complete, false);
    assert.equal(cancelled.report?.alternation?.stopReason, "incomplete");
    for (const step of cancelled.report!.steps) {
      assert.equal(step.change?.throughput.status, "not-measured");
      assert.equal(step.change?.throughput.percent, null);
    }
    await eventually("the scratch files to be gone", () => (readdirSync(dataDir()).length === 0 ? true : undefined), 15_000);
  }));

test("a second request while one runs is refused by the database, and the agent takes the next after", () =>
  explained(async () => {
    const id = await queueRun(tiny());
    await assert.rejects(queueRun(tiny()), /proof_runs_one_active_key/);
    await eventually(
      "the run to finish",
      async () => {
        const row = await run(id);
        return ["succeeded", "failed"].includes(row.status) ? row : undefined;
      },
      120_000,
    );
    assert.equal((await run(id)).status, "succeeded");
  }));
