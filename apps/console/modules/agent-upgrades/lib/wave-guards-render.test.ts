// The upgrade page's guards of one wave, rendered as the browser gets them (react-dom/server): the
// verdict, the reason naming the guard, the windows, and each reading with the policy rollouts'
// GuardReadings: guard, reading, interval and verdict of every compared metric.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { WaveGuards } from "../components/wave-guards";
import type { UpgradeWaveGuards } from "../types/agent-upgrades";

const tripped: UpgradeWaveGuards = {
  verdict: "trip",
  reason:
    "A guard tripped after 10 min on the new version: Against servers not yet changed: Worse than the servers not yet changed: Read-cache miss ratio (managed files) +90.0 %.",
  readings: [
    {
      guard: "p99_read_latency",
      status: "not-measured",
      summary: "No server of the wave measures read latency (eBPF block latency is off or unavailable).",
      basis: "p99 of each device's merged eBPF latency buckets",
      servers: [],
      metrics: [],
    },
    {
      guard: "comparative",
      status: "trip",
      summary: "Worse than the servers not yet changed: Read-cache miss ratio (managed files) +90.0 %.",
      basis: "difference in differences of each cost per I/O",
      servers: [],
      metrics: [
        {
          key: "readCacheMissRatio",
          label: "Read-cache miss ratio (managed files)",
          status: "trip",
          change: 0.9,
          interval: { low: 0.4, high: 1.9, confidence: 0.95 },
          scale: "relative",
          pValue: 0.001,
          tolerance: 0.1,
          treated: 1,
          control: 4,
          detail: "+90.0 % (95 % interval +40.0 % to +190.0 %)",
        },
      ],
    },
  ],
  readingsAt: "2026-11-28T12:08:00.000Z",
  after: { start: "2026-11-28T11:58:00.000Z", end: "2026-11-28T12:08:00.000Z" },
  before: { start: "2026-11-28T11:46:00.000Z", end: "2026-11-28T11:56:00.000Z" },
  overriddenBy: null,
  overriddenAt: null,
};

const render = (guards: UpgradeWaveGuards, canOverride = true) =>
  renderToStaticMarkup(createElement(WaveGuards, { wave: 0, guards, canOverride, onOverride: async () => null }));
const text = (html: string) => html.replace(/<[^>]+>/g, " ").replace(/\s+/g, " ");

describe("an upgrade wave's guards on its page", () => {
  it("shows the verdict, the reason and every reading with its interval", () => {
    const html = render(tripped);
    assert.match(html, /data-verdict="trip"/);
    assert.match(text(html), /a guard tripped/);
    assert.match(text(html), /A guard tripped after 10 min on the new version: Against servers not yet changed/);
    assert.match(html, /data-guard="p99_read_latency" data-status="not-measured"/);
    assert.match(html, /data-guard="comparative" data-status="trip"/);
    const metric = html.match(/<tr[^>]*data-metric="readCacheMissRatio"[^>]*>.*?<\/tr>/)?.[0] ?? "";
    assert.equal(
      text(metric).trim(),
      "Read-cache miss ratio (managed files) +90.0 % +40.0 % to +190.0 % (95 %) 1 vs 4 tripped",
      "metric, change, interval, servers compared, verdict",
    );
    assert.doesNotMatch(html, /upgrade-wave-override/, "a trip is taken on by resuming, not by the hold's override");
  });

  it("offers the override only on a hold not yet overridden, and names who overrode it", () => {
    const held: UpgradeWaveGuards = { ...tripped, verdict: "hold", reason: "Holding: not enough data to judge the wave." };
    assert.match(render(held), /data-testid="upgrade-wave-override"/);
    assert.doesNotMatch(render(held, false), /upgrade-wave-override/, "not for a viewer");
    const overridden = render({ ...held, overriddenBy: "Olive Owner", overriddenAt: "2026-11-28T12:20:00.000Z" });
    assert.doesNotMatch(overridden, /upgrade-wave-override/);
    assert.match(text(overridden), /gone on past it by Olive Owner/);
  });
});
