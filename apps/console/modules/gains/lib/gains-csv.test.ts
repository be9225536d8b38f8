import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { serverLedger } from "@spindle/domain";
import type { ServerGains } from "../types/gains";
import { readSeriesCsv, serverLedgerCsv } from "./gains-csv";

const page = 4096;
const unit = {
  holdoutShare: 0.1,
  managedAccessedBytes: 900 * page,
  managedMissedBytes: 90 * page,
  controlAccessedBytes: 100 * page,
  controlMissedBytes: 30 * page,
};
const ledger = serverLedger({
  readCache: { hitsBytes: 40_960_000, missesBytes: 8_192_000, samples: 360 },
  holdout: { units: Array.from({ length: 20 }, () => unit), samples: 20, ownReadBytes: 0, ownPageHitBytes: 0 },
  storage: { devices: ["sda"], readBytes: 8_192_000, readOps: 1000, latencySumSeconds: 5, latencyOperations: 1000 },
  devices: [{ device: "sda", observedSeconds: 3600, readOps: 1000, writeOps: 0, busySeconds: 5 }],
  memoryLatency: { meanSeconds: 2e-6, timedReads: 4096 },
  writeOpt: {
    managedGrownBytes: null,
    managedExtentsAdded: null,
    unmanagedGrownBytes: null,
    unmanagedExtentsAdded: null,
    samples: 0,
    filesDefragmented: null,
    preallocatedBytes: null,
  },
});
const gains = {
  hostname: "=db01",
  ledger,
  range: { range: "1h", from: "2026-11-23T09:00:00.000Z", to: "2026-11-23T10:00:00.000Z", resolution: "raw", bucketSeconds: null },
  series: { time: [1_795_424_400, 1_795_424_410], memoryBytesPerSecond: [4096, null], storageBytesPerSecond: [0, null] },
} as unknown as ServerGains;

describe("gains CSV", () => {
  it("writes one ledger line per effect; a missing figure is empty with its reason, never 0", () => {
    const lines = serverLedgerCsv(gains).trimEnd().split("\r\n");
    assert.equal(lines[0], "scope,server,feature,line,unit,value,status,basis,from,to,kind,interval_low,interval_high,confidence,note");
    assert.equal(lines.length, 1 + ledger.length);
    assert.ok(lines[1]!.startsWith("server,'=db01,read-cache,Reads served from memory (managed files),By,40960000,measured,"));
    assert.ok(lines[1]!.endsWith(",description,,,,"), lines[1]);
    // 18,000 × (0.3 − 0.1) = 3,600 pages = 1,800 reads of 8 KiB, every interval alike: a point interval.
    const saved = lines.find((line) => line.includes("Storage reads saved (caused)"))!;
    // These sums carry no hash buckets (an older agent): the note says what the interval leaves out.
    assert.match(
      saved,
      /,\{io\},1800,measured,.*,caused,1800,1800,0\.95,the interval omits the variance of the control group.s draw of page groups \(the agent sent no counts per hash bucket: update it\)$/,
    );
    const defragmented = lines.find((line) => line.includes("Files defragmented"))!;
    assert.match(defragmented, /,\{file\},,not measured,the agent sent no write-optimisation counters/);
  });

  it("writes the read series with an empty cell where the agent sent nothing", () => {
    assert.equal(
      readSeriesCsv(gains),
      "time,server,memory_read_bytes_per_second,storage_read_bytes_per_second\r\n" +
        "2026-11-23T09:00:00.000Z,'=db01,4096,0\r\n2026-11-23T09:00:10.000Z,'=db01,,\r\n",
    );
  });
});
