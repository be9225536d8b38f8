// A report in the agent's shape (agent/internal/proofrun/report.go) with round numbers, so tests
// can check derived figures by hand: a warm-up pass and two blocks; step 1 has a measured change,
// step 2 one whose interval includes 0.
import type { ProofRunReport, Difference, PassResult } from "../types/proof-run";

const side = (iops: number, latencyMs: number) => ({
  iops,
  mbps: iops * 0.0655,
  tps: null,
  latencyMeanSeconds: latencyMs / 1000,
  latencyP95Seconds: (latencyMs * 2) / 1000,
  latencyP99Seconds: (latencyMs * 3) / 1000,
  operations: iops * 10,
  bytes: iops * 655360,
  passes: 4,
});

const order = ["off", "off", "on", "on", "off", "off", "on", "on", "off"] as const;

/** Nine passes of one step: the warm-up slower, then off and on at the given IOPS. */
const passes = (off: number, on: number): PassResult[] =>
  order.map((s, i) => {
    const iops = i === 0 ? off / 2 : s === "on" ? on : off;
    return {
      pass: i + 1,
      side: s,
      warmUp: i === 0,
      throughput: iops,
      mbps: iops * 0.0655,
      latencyMeanSeconds: 1 / iops,
      latencyP95Seconds: 2 / iops,
      latencyP99Seconds: 3 / iops,
      operations: iops * 5,
    };
  });

const difference = (status: Difference["status"], percent: number, low: number, high: number): Difference => ({
  status,
  percent,
  lowPercent: low,
  highPercent: high,
  pairs: 4,
  reason: "",
});

export function reportFixture(): ProofRunReport {
  return {
    profile: "fileserver",
    description: "IOmeter file-server mix",
    startedAt: "2026-11-23T08:00:00Z",
    endedAt: "2026-11-23T08:01:00Z",
    complete: true,
    ab: true,
    passOrder: [...order],
    warmUpPasses: 1,
    timeLimitSeconds: 300,
    throughput: "iops",
    latencyLimitSeconds: 0.05,
    stepSeconds: 5,
    alternation: {
      blocks: 2,
      targetHalfWidthPercent: 5,
      widestHalfWidthPercent: 30,
      stopReason: "time-limit",
      stop: "another block (about 45 s) would not fit in the time limit of 300 s; widest step interval ±30.0 %, target ±5 %",
      confidencePercent: 95,
      intervalsInFamily: 6,
      method: "2×2 crossover over adjacent pass pairs",
    },
    device: { path: "/srv/proof/spindle-bench-1", name: "vda", fileSystem: "ext4" },
    steps: [
      {
        index: 1,
        workload: "file server",
        label: "file server, 1 x 1",
        off: side(200, 20),
        on: side(300, 10),
        passes: passes(200, 300),
        change: { throughput: difference("measured", 50, 20, 80), latencyMean: difference("measured", -50, -60, -40) },
      },
      {
        index: 2,
        workload: "file server",
        label: "file server, 2 x 4",
        off: side(400, 80),
        on: side(410, 78),
        passes: passes(400, 410),
        change: {
          throughput: difference("no-measurable-difference", 2.5, -5, 9),
          latencyMean: difference("no-measurable-difference", -2.5, -9, 4),
        },
      },
    ],
    overall: { throughput: difference("measured", 24, 8, 41), latencyMean: difference("no-measurable-difference", -28, -45, 1) },
    reads: {
      off: {
        measured: true,
        basis: "mincore before each read",
        storageReads: 600,
        memoryReads: 400,
        storageReadPercent: 60,
        storageLatencySeconds: 0.006,
        memoryLatencySeconds: null,
        latencySource: "generator timing",
      },
      on: {
        measured: true,
        basis: "mincore before each read",
        storageReads: 100,
        memoryReads: 900,
        storageReadPercent: 10,
        storageLatencySeconds: 0.006,
        memoryLatencySeconds: 0.00001,
        latencySource: "generator timing",
      },
      passes: order.map((s, i) => ({
        pass: i + 1,
        side: s,
        warmUp: i === 0,
        storageReads: s === "on" ? 25 : 150,
        memoryReads: s === "on" ? 225 : 100,
      })),
      caused: {
        status: "measured",
        reason: "",
        storageSharePercentOff: 60,
        storageSharePercentOn: 10,
        shareChangePoints: -50,
        shareChangeLowPoints: -55,
        shareChangeHighPoints: -45,
        readsWith: 1000,
        storageReadsSaved: 500,
        storageReadsSavedLow: 450,
        storageReadsSavedHigh: 550,
        pairs: 4,
        basis: "share of read I/Os that went to storage in each compared pass",
      },
    },
    writePath: {
      extentsOff: [3, 3, 3, 6],
      extentsOn: [6, 3, 3, 3],
      extentsWarmUp: [4],
      fragmentsPrevented: {
        status: "no-measurable-difference",
        percent: 0,
        lowPercent: -90,
        highPercent: 90,
        pairs: 4,
        reason: "too few files to tell: with 4 log files per side the interval includes 0",
      },
      basis: "extents of each pass's log file",
    },
    notes: [],
  };
}
