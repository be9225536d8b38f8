// The comparison's figures: a server-wide series from its devices, and servers on one time axis.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { DeviceSeries, MemorySeries } from "@/modules/metrics/types/metrics";
import { comparisonQuerySchema } from "../types/comparison";
import { alignServers } from "./align";
import { combineDevices } from "./combine-devices";

function device(name: string, time: number[], rates: Partial<DeviceSeries>): DeviceSeries {
  const empty = time.map(() => null);
  return {
    device: name,
    time,
    readIops: empty,
    writeIops: empty,
    readMegabytesPerSecond: empty,
    writeMegabytesPerSecond: empty,
    readLatencyMs: empty,
    writeLatencyMs: empty,
    queueDepth: empty,
    utilisationPercent: empty,
    ...rates,
  } as DeviceSeries;
}
const memory: MemorySeries = { time: [10, 20], totalBytes: [8, 8], availableBytes: [3, null], cachedBytes: [1, 1], dirtyBytes: [0, 0] };

describe("the comparison's figures", () => {
  const sda = device("sda", [10, 20, 30], { readIops: [100, 0, null], readLatencyMs: [2, null, null], utilisationPercent: [10, 50, null] });
  const sdb = device("sdb", [10, 20, 30], { readIops: [300, 10, null], readLatencyMs: [6, 4, null], utilisationPercent: [70, 20, null] });

  it("adds rates over devices, weighs latency by I/Os, takes the busiest device's utilisation, keeps gaps", () => {
    assert.deepEqual(combineDevices("readIops", [sda, sdb], memory), { time: [10, 20, 30], values: [400, 10, null] });
    assert.deepEqual(combineDevices("readLatency", [sda, sdb], memory).values, [(2 * 100 + 6 * 300) / 400, 4, null]);
    assert.deepEqual(combineDevices("utilisation", [sda, sdb], memory).values, [70, 50, null]);
    assert.deepEqual(combineDevices("memoryAvailable", [sda, sdb], memory), { time: [10, 20], values: [3, null] });
  });

  it("puts servers on one axis: undefined where a server has no sample, null where it has a gap", () => {
    assert.deepEqual(
      alignServers([
        { time: [10, 30], values: [1, null] },
        { time: [20, 30], values: [5, 6] },
      ]),
      {
        time: [10, 20, 30],
        series: [
          [1, undefined, null],
          [undefined, 5, 6],
        ],
      },
    );
  });

  it("takes 2 to 4 servers and a known metric", () => {
    const issues = (input: Record<string, string>) =>
      comparisonQuerySchema.safeParse(input).error!.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
    assert.deepEqual(issues({ servers: "a" }), ["servers: servers is a comma-separated list of 2 to 4 different server ids"]);
    assert.deepEqual(issues({ servers: "a,a" }), ["servers: servers is a comma-separated list of 2 to 4 different server ids"]);
    assert.deepEqual(issues({ servers: "a,b,c,d,e" }), ["servers: servers is a comma-separated list of 2 to 4 different server ids"]);
    assert.match(issues({ servers: "a,b", metric: "temperature" })[0]!, /^metric: metric is one of: readIops, writeIops/);
    assert.equal(comparisonQuerySchema.parse({ servers: "a,b" }).metric, "readIops");
  });
});
