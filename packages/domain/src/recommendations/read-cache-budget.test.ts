import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { readCacheBudgetFinding, type ReadCacheBudgetInput } from "./read-cache-budget.js";
import { recommendationFindingSchema } from "./types.js";

const gib = 1024 ** 3;
const mib = 1024 ** 2;
const from = new Date("2026-11-16T00:00:00Z");
const to = new Date("2026-11-23T00:00:00Z");

function input(overrides: Partial<ReadCacheBudgetInput> = {}): ReadCacheBudgetInput {
  return {
    serverId: "server-1",
    curve: {
      curve: "read_cache",
      scope: "",
      sampleRate: 0.01,
      sampledAccesses: 200_000,
      windowFrom: from,
      windowTo: to,
      sizesBytes: [1 * gib, 2 * gib, 4 * gib, 6 * gib, 8 * gib, 12 * gib],
      hitRatios: [0.4, 0.61, 0.8, 0.88, 0.885, 0.89],
    },
    readCache: { enabled: true, freeMemoryFloorBytes: 512 * mib, scanResistanceThresholdBytes: 128 * mib },
    currentBudgetBytes: 2 * gib,
    availableMemory: { p5Bytes: 9.5 * gib, samples: 10_080, from, to },
    ...overrides,
  };
}

describe("read-cache budget recommendation", () => {
  it("raises the budget to the knee within spare memory and quotes the curve", () => {
    const finding = readCacheBudgetFinding(input())!;
    // spare = 9.5 GiB - 0.5 GiB floor = 9 GiB; best under 9 GiB is 0.885 (8 GiB); 6 GiB (0.88) is within 0.01
    assert.equal(finding.kind, "read_cache_budget");
    assert.deepEqual(finding.change, { type: "set_read_cache_budget", budgetBytes: 6 * gib });
    assert.equal(finding.prediction.before, 0.61);
    assert.equal(finding.prediction.after, 0.88);
    assert.equal(
      finding.prediction.summary,
      "budget 2 GiB → 6 GiB: read hit ratio 61 % → 88 % on the curve of the last 7 days; the host has 9 GiB spare at the 5th percentile",
    );
    assert.equal(finding.title, "Raise the read-cache budget from 2 GiB to 6 GiB");
    assert.deepEqual(finding.confidence, {
      level: "high",
      tolerance: 0.03,
      reason: "200,000 sampled accesses on the curve: realised within ±3 points",
    });
    assert.equal(finding.evidence.chart.view, "miss-ratio-curve");
    assert.equal(finding.evidence.window.from, from.toISOString());
    recommendationFindingSchema.parse(finding);
  });

  it("caps the knee by spare memory", () => {
    // spare = 4.5 - 0.5 = 4 GiB: best under it is 0.80 at 4 GiB
    const finding = readCacheBudgetFinding(input({ availableMemory: { p5Bytes: 4.5 * gib, samples: 100, from, to } }))!;
    assert.deepEqual(finding.change, { type: "set_read_cache_budget", budgetBytes: 4 * gib });
    assert.equal(finding.prediction.after, 0.8);
  });

  it("lowers a budget that sits far past the knee and says what it frees", () => {
    const finding = readCacheBudgetFinding(
      input({ currentBudgetBytes: 12 * gib, availableMemory: { p5Bytes: 20 * gib, samples: 100, from, to } }),
    )!;
    // best under 19.5 GiB is 0.89 at 12 GiB; 6 GiB (0.88) is within 0.01 of it
    assert.equal(finding.title, "Lower the read-cache budget from 12 GiB to 6 GiB");
    assert.equal(finding.prediction.before, 0.89);
    assert.equal(finding.prediction.after, 0.88);
    assert.match(finding.prediction.summary, /frees 6 GiB for applications$/);
  });

  it("recommends nothing at the knee, without a curve, memory history or budget, or on a thin sample", () => {
    assert.equal(readCacheBudgetFinding(input({ currentBudgetBytes: 6 * gib })), null);
    assert.equal(readCacheBudgetFinding(input({ curve: null })), null);
    assert.equal(readCacheBudgetFinding(input({ availableMemory: null })), null);
    assert.equal(readCacheBudgetFinding(input({ currentBudgetBytes: null })), null);
    assert.equal(
      readCacheBudgetFinding(
        input({ readCache: { enabled: false, freeMemoryFloorBytes: 512 * mib, scanResistanceThresholdBytes: 128 * mib } }),
      ),
      null,
    );
    const thin = input();
    thin.curve = { ...thin.curve!, sampledAccesses: 999 };
    assert.equal(readCacheBudgetFinding(thin), null);
    // no spare memory at all
    assert.equal(readCacheBudgetFinding(input({ availableMemory: { p5Bytes: 400 * mib, samples: 100, from, to } })), null);
  });

  it("lowers confidence when the whole page cache's curve stands in for the read cache's", () => {
    const pageCache = input();
    pageCache.curve = { ...pageCache.curve!, curve: "page_cache" };
    const finding = readCacheBudgetFinding(pageCache)!;
    assert.equal(finding.confidence.level, "medium");
    assert.equal(finding.confidence.tolerance, 0.05);
    assert.equal(finding.evidence.chart.component, "page_cache:");
  });
});
