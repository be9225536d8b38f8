import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { rolloutGuardsSchema } from "../rollouts/plan.js";
import { agentUpgradePlanSchema, agentUpgradeRequestSchema } from "./plan.js";
import { upgradeDecision } from "./eligibility.js";
import { planUpgradeWaves } from "./waves.js";

const servers = Array.from({ length: 20 }, (_, i) => ({
  id: `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`,
  tags: i < 15 ? ["web"] : ["db"],
}));

describe("agent upgrade waves", () => {
  it("puts every server in exactly one wave: the canary first, then the cumulative percentages", () => {
    const waves = planUpgradeWaves(servers, { canary: 2, wavePercents: [25, 100] }, "rollout-1");
    assert.deepEqual(
      waves.map((w) => w.serverIds.length),
      [2, 3, 15],
    );
    assert.deepEqual(
      waves.map((w) => w.label),
      ["canary", "25 %", "100 %"],
    );
    const all = waves.flatMap((w) => w.serverIds);
    assert.equal(new Set(all).size, servers.length);
  });

  it("spreads the canary over the kinds of server and keeps the same waves for the same rollout", () => {
    const waves = planUpgradeWaves(servers, { canary: 2, wavePercents: [100] }, "rollout-1");
    const canaryTags = waves[0]!.serverIds.map((id) => servers.find((s) => s.id === id)!.tags[0]);
    assert.deepEqual(canaryTags.sort(), ["db", "web"]);
    assert.deepEqual(planUpgradeWaves(servers, { canary: 2, wavePercents: [100] }, "rollout-1"), waves);
    assert.notDeepEqual(planUpgradeWaves(servers, { canary: 2, wavePercents: [100] }, "rollout-2")[0]!.serverIds, waves[0]!.serverIds);
  });

  it("drops waves a small fleet leaves empty, and plans nothing for no servers", () => {
    assert.deepEqual(
      planUpgradeWaves(servers.slice(0, 1), { canary: 1, wavePercents: [25, 50, 100] }, "s").map((w) => w.serverIds.length),
      [1],
    );
    assert.deepEqual(
      planUpgradeWaves(servers.slice(0, 3), { canary: 1, wavePercents: [50, 100] }, "s").map((w) => w.serverIds.length),
      [1, 1, 1],
    );
    assert.deepEqual(planUpgradeWaves([], { canary: 1, wavePercents: [100] }, "s"), []);
  });

  it("refuses plans whose waves do not grow to 100 %, with the field named", () => {
    const bad = agentUpgradePlanSchema.safeParse({ wavePercents: [50, 40] });
    assert.equal(bad.success, false);
    assert.deepEqual(
      bad.error!.issues.map((i) => i.path.join(".")),
      ["wavePercents.1", "wavePercents.1"],
    );
    assert.deepEqual(agentUpgradePlanSchema.parse({}), {
      canary: 1,
      wavePercents: [25, 100],
      soakMinutes: 10,
      answerTimeoutMinutes: 15,
      guards: rolloutGuardsSchema.parse({}),
    });
    assert.equal(agentUpgradeRequestSchema.safeParse({ targetVersion: "latest", scope: { kind: "organization" } }).success, false);
  });
});

describe("which servers an upgrade offers the version to", () => {
  const base = {
    id: "s",
    tags: [],
    agentVersion: "0.1.0",
    upgrade: { installMethod: "script", remote: true, reason: "" },
    pinnedVersion: null,
  };
  it("offers it to a remote-upgradable agent on another version, and says why not to the others", () => {
    assert.deepEqual(upgradeDecision(base, "0.1.1"), { offer: true });
    assert.match((upgradeDecision({ ...base, pinnedVersion: "0.1.0" }, "0.1.1") as { reason: string }).reason, /pinned to 0\.1\.0/);
    assert.match((upgradeDecision({ ...base, agentVersion: "0.1.1" }, "0.1.1") as { reason: string }).reason, /already runs 0\.1\.1/);
    assert.match(
      (upgradeDecision({ ...base, upgrade: { installMethod: "deb", remote: false, reason: "" } }, "0.1.1") as { reason: string }).reason,
      /apt-get install spindle-agent/,
    );
    assert.match((upgradeDecision({ ...base, upgrade: null }, "0.1.1") as { reason: string }).reason, /run the installer again/);
  });
});
