import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { serverStatus } from "./server-status";

describe("serverStatus", () => {
  const now = new Date("2026-11-21T10:00:00Z");
  const ago = (seconds: number) => new Date(now.getTime() - seconds * 1000);

  it("is online up to three 10 s intervals after the last batch", () => {
    assert.equal(serverStatus(ago(0), now), "online");
    assert.equal(serverStatus(ago(30), now), "online");
  });

  it("is offline once the last batch is older than 30 s", () => {
    assert.equal(serverStatus(ago(31), now), "offline");
  });

  it("is waiting when the agent enrolled but never sent telemetry", () => {
    assert.equal(serverStatus(null, now), "waiting");
  });
});
