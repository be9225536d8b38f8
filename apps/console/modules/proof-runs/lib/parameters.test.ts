import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { startRunInput } from "../types/proof-run";
import { toAgentParameters } from "./parameters";
import { parseLoads } from "./parse-loads";

describe("proof-run request", () => {
  it("becomes the agent's A/B request in bytes and seconds", () => {
    const input = startRunInput.parse({
      profile: "fileserver",
      dataPath: "/srv/proof",
      logPath: "/srv/log",
      sizeLimitMiB: 8,
      timeLimitSeconds: 60,
      stepSeconds: 1,
      latencyLimitMs: 20,
      targetHalfWidthPercent: 10,
      loads: [{ threads: 1, outstanding: 1 }],
    });
    assert.deepEqual(toAgentParameters(input), {
      paths: ["/srv/proof", "/srv/log"],
      sizeLimitBytes: 8 * 1024 * 1024,
      timeLimitSeconds: 60,
      stepSeconds: 1,
      latencyLimitSeconds: 0.02,
      targetHalfWidthPercent: 10,
      ab: true,
      directIO: false,
      loads: [{ threads: 1, outstanding: 1 }],
    });
  });

  it("leaves the profile's own load steps when none are given", () => {
    const input = startRunInput.parse({ profile: "sqlio", dataPath: "/srv/proof", sizeLimitMiB: 1, timeLimitSeconds: 60 });
    const parameters = toAgentParameters(input);
    assert.equal("loads" in parameters, false);
    assert.deepEqual(parameters.paths, ["/srv/proof"]);
    assert.equal(parameters.latencyLimitSeconds, 0.1, "100 ms by default, as the seed reports");
    assert.equal(parameters.targetHalfWidthPercent, 5, "±5 % by default");
  });

  it("refuses relative paths, parent references, unknown profile names and targets out of range", () => {
    for (const bad of [
      { dataPath: "srv/bench" },
      { dataPath: "/srv/../etc" },
      { profile: "Robert'); DROP" },
      { targetHalfWidthPercent: 0.5 },
      { targetHalfWidthPercent: 150 },
    ]) {
      const result = startRunInput.safeParse({ profile: "sqlio", dataPath: "/srv/proof", sizeLimitMiB: 1, timeLimitSeconds: 60, ...bad });
      assert.equal(result.success, false, JSON.stringify(bad));
    }
  });

  it("parses load steps and says what is wrong", () => {
    assert.deepEqual(parseLoads("1x1, 2×4 4*8"), [
      { threads: 1, outstanding: 1 },
      { threads: 2, outstanding: 4 },
      { threads: 4, outstanding: 8 },
    ]);
    assert.deepEqual(parseLoads(""), []);
    assert.match(String(parseLoads("2x")), /not threads x outstanding/);
    assert.match(String(parseLoads("0x4")), /start at 1/);
  });
});
