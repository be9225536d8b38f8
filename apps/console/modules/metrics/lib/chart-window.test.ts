// Which table draws a window: the span decides the resolution, the age what is still kept.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { chartWindowQuerySchema, resolveChartWindow, sourceForWindow } from "./chart-window";

const now = new Date("2026-11-28T12:00:00Z");
const ago = (ms: number) => new Date(now.getTime() - ms);
const hour = 3_600_000;
const day = 24 * hour;

describe("chart windows", () => {
  it("reads raw samples up to 3 h, minutes up to 2 days, hours beyond", () => {
    assert.equal(sourceForWindow(ago(3 * hour), now, now).diskTable, "disk_io");
    assert.equal(sourceForWindow(ago(3 * hour + 1000), now, now).diskTable, "disk_io_1m");
    assert.equal(sourceForWindow(ago(2 * day), now, now).memoryTable, "memory_1m");
    assert.equal(sourceForWindow(ago(2 * day + 1000), now, now).diskTable, "disk_io_1h");
  });

  it("falls back to a coarser table once the finer one no longer holds the start", () => {
    assert.equal(sourceForWindow(ago(31 * day), ago(31 * day - hour), now).diskTable, "disk_io_1m", "raw rows live 30 days");
    assert.equal(sourceForWindow(ago(91 * day), ago(91 * day - hour), now).diskTable, "disk_io_1h", "minutes live 90 days");
  });

  it("resolves presets, presets ending at `to`, and custom windows (a later `to` meaning now)", () => {
    const live = resolveChartWindow(chartWindowQuerySchema.parse({}), now);
    assert.deepEqual([live.range, live.from.toISOString(), live.to.toISOString()], ["1h", "2026-11-28T11:00:00.000Z", now.toISOString()]);
    const focus = resolveChartWindow(chartWindowQuerySchema.parse({ range: "24h", to: "2026-11-27T00:00:00Z" }), now);
    assert.deepEqual([focus.from.toISOString(), focus.source.diskTable], ["2026-11-26T00:00:00.000Z", "disk_io_1m"]);
    const custom = resolveChartWindow(chartWindowQuerySchema.parse({ from: "2026-11-28T11:50:00Z", to: "2026-11-28T13:00:00Z" }), now);
    assert.deepEqual(
      [custom.range, custom.from.toISOString(), custom.to.toISOString(), custom.source.diskTable],
      ["custom", "2026-11-28T11:50:00.000Z", now.toISOString(), "disk_io"],
    );
  });

  it("refuses windows that cannot be drawn, saying why", () => {
    const problems = (input: Record<string, string>) =>
      chartWindowQuerySchema.safeParse(input).error!.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
    assert.deepEqual(problems({ range: "custom" }), ["from: range=custom needs from (and to, or now)"]);
    assert.deepEqual(problems({ from: "2026-01-01T00:00:00Z", to: "2027-03-01T00:00:00Z" }), ["from: a window spans at most 400 days"]);
    assert.deepEqual(problems({ from: "2999-01-01T00:00:00Z", to: "2999-01-02T00:00:00Z" }), [
      "from: from is in the future: there is nothing to draw yet",
    ]);
    assert.deepEqual(problems({ to: "noon" }), ["to: to is an ISO 8601 time with an offset, e.g. 2026-11-23T10:00:00Z"]);
  });
});
