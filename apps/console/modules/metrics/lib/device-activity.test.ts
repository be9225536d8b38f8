import assert from "node:assert/strict";
import { test } from "node:test";
import type { DeviceSeries } from "../types/metrics";
import { partitionByActivity } from "./device-activity";

function device(name: string, readIops: (number | null)[], writeIops: (number | null)[]): DeviceSeries {
  const empty = readIops.map(() => null);
  return {
    device: name,
    time: readIops.map((_, i) => i * 10),
    readIops,
    writeIops,
    readMegabytesPerSecond: empty,
    writeMegabytesPerSecond: empty,
    readLatencyMs: empty,
    writeLatencyMs: empty,
    queueDepth: empty,
    utilisationPercent: empty,
  } as DeviceSeries;
}

test("busiest devices come first and idle ones are set apart", () => {
  const { active, idle } = partitionByActivity([
    device("loop1", [0, 0], [0, null]),
    device("sdb", [1, 1], [0, 0]),
    device("nvme0n1", [null, 500], [20, 0]),
    device("loop0", [null, null], [null, null]),
  ]);
  assert.deepEqual(
    active.map((d) => d.device),
    ["nvme0n1", "sdb"],
  );
  assert.deepEqual(
    idle.map((d) => d.device),
    ["loop0", "loop1"],
  );
});
