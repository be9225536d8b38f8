// A report in the agent's shape (agent/internal/bench/report.go) with round numbers, so tests
// can check derived figures by hand. Two steps of one workload, one side missing on step 2.
import type { BenchReport } from "../types/bench";

const side = (iops: number, latencyMs: number) => ({
  iops, mbps: iops * 0.0655, tps: null, latencyMeanSeconds: latencyMs / 1000, latencyP95Seconds: (latencyMs * 2) / 1000,
  latencyP99Seconds: (latencyMs * 3) / 1000, operations: iops * 10, bytes: iops * 655360, passes: 2,
});

export function reportFixture(): BenchReport {
  return {
    profile: "fileserver", description: "IOmeter file-server mix", startedAt: "2026-11-23T08:00:00Z", endedAt: "2026-11-23T08:01:00Z",
    complete: true, ab: true, passOrder: ["off", "on", "on", "off"], throughput: "iops", latencyLimitSeconds: 0.05, stepSeconds: 5,
    device: { path: "/srv/bench/spindle-bench-1", name: "vda", fileSystem: "ext4" },
    steps: [
      { index: 1, workload: "file server", label: "file server, 1 x 1", off: side(200, 20), on: side(300, 10) },
      { index: 2, workload: "file server", label: "file server, 2 x 4", off: side(400, 80), on: null },
    ],
    reads: {
      off: { measured: true, basis: "mincore before each read", storageReads: 600, memoryReads: 400, storageReadPercent: 60,
        storageLatencySeconds: 0.006, memoryLatencySeconds: null, latencySource: "generator timing" },
      on: null,
    },
    writePath: null,
    notes: [],
  };
}
