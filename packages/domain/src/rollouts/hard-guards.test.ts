import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { latencyBucketCount } from "../metrics/latency.js";
import { applyTimeoutGuard, backoffGuard, failedGuard, latencyGuard, offlineGuard } from "./hard-guards.js";
import { defaultRolloutPlan } from "./plan.js";
import { decideWave, guardReadingSchema, type GuardReading } from "./readings.js";

const guards = defaultRolloutPlan().guards;
const a = { serverId: "a", hostname: "db-1" };
const b = { serverId: "b", hostname: "db-2" };
/** 1,000 I/Os in one log2 bucket (bucket 10 is (512 µs, 1.024 ms] on the 1 µs × 2^k bounds). */
const histogram = (bucket: number, count = 1000) => Array.from({ length: latencyBucketCount }, (_, i) => (i === bucket ? count : 0));

describe("hard guards", () => {
  it("trips on any FAILED, naming the agent's message", () => {
    assert.equal(failedGuard([], 2).status, "pass");
    const reading = failedGuard([{ ...a, message: "pin exceeds RLIMIT_MEMLOCK" }], 2);
    assert.equal(reading.status, "trip");
    assert.match(reading.summary, /1 server refused the policy \(FAILED\): db-1: pin exceeds RLIMIT_MEMLOCK/);
  });

  it("trips when an agent of the wave goes quiet past the limit", () => {
    const now = new Date("2026-11-28T12:00:00Z");
    const seen = (secondsAgo: number) => new Date(now.getTime() - secondsAgo * 1000);
    assert.equal(
      offlineGuard(
        [
          { ...a, lastSeenAt: seen(10) },
          { ...b, lastSeenAt: seen(299) },
        ],
        now,
        guards,
      ).status,
      "pass",
    );
    const reading = offlineGuard(
      [
        { ...a, lastSeenAt: seen(10) },
        { ...b, lastSeenAt: seen(301) },
      ],
      now,
      guards,
    );
    assert.equal(reading.status, "trip");
    assert.deepEqual(
      reading.servers?.map((s) => s.hostname),
      ["db-2"],
    );
  });

  it("holds servers that never confirm, only after the apply timeout", () => {
    const released = new Date("2026-11-28T12:00:00Z");
    assert.equal(applyTimeoutGuard([a], released, new Date("2026-11-28T12:14:59Z"), guards), null);
    assert.equal(applyTimeoutGuard([a], released, new Date("2026-11-28T12:15:00Z"), guards)?.status, "not-enough-data");
    assert.equal(applyTimeoutGuard([], released, new Date("2026-11-28T13:00:00Z"), guards), null);
  });

  it("counts backoffs against the window before, and says when nothing runs the cache", () => {
    assert.equal(backoffGuard([{ ...a, before: null, after: null }], guards, 15).status, "not-measured");
    assert.equal(backoffGuard([{ ...a, before: 4, after: 6 }], guards, 15).status, "pass");
    const reading = backoffGuard(
      [
        { ...a, before: 0, after: 3 },
        { ...b, before: 1, after: 1 },
      ],
      guards,
      15,
    );
    assert.equal(reading.status, "trip");
    assert.match(reading.summary, /db-1 0 → 3 \(limit \+3\)/);
  });

  it("trips a p99 two log2 buckets up, never one (the bucket's width), and skips quiet devices", () => {
    const device = (before: number, after: number, count = 1000) => ({
      ...a,
      device: "sdb",
      before: histogram(before, count),
      after: histogram(after, count),
    });
    assert.equal(latencyGuard("read", [device(10, 11)], guards).status, "pass");
    const tripped = latencyGuard("read", [device(10, 12)], guards);
    assert.equal(tripped.status, "trip");
    assert.match(tripped.summary, /sdb on db-1 ≤ 1\.024 ms → ≤ 4\.096 ms/);
    assert.equal(latencyGuard("write", [device(10, 14, 50)], guards).status, "not-measured");
    assert.equal(latencyGuard("write", [], guards).status, "not-measured");
  });
});

describe("a wave's decision", () => {
  const reading = (guard: GuardReading["guard"], status: GuardReading["status"], summary = `${guard} ${status}`) =>
    guardReadingSchema.parse({ guard, status, summary, basis: "test" });

  it("rolls back on any trip, even with another guard short of data", () => {
    const decision = decideWave([reading("comparative", "not-enough-data"), reading("failed", "trip", "db-1 refused.")]);
    assert.deepEqual(decision, { outcome: "trip", reason: "db-1 refused.", guards: ["failed"] });
  });

  it("holds when a guard lacks data, and when the comparison was not made at all", () => {
    assert.equal(decideWave([reading("failed", "pass"), reading("comparative", "not-enough-data")]).outcome, "hold");
    assert.equal(decideWave([reading("failed", "pass"), reading("comparative", "not-measured")]).outcome, "hold");
    assert.equal(decideWave([reading("failed", "pass")]).outcome, "hold");
  });

  it("passes with the comparison made and nothing tripped; a guard nothing measures does not hold", () => {
    assert.deepEqual(decideWave([reading("failed", "pass"), reading("p99_read_latency", "not-measured"), reading("comparative", "pass")]), {
      outcome: "pass",
    });
  });
});
