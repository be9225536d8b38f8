import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { matchWindows } from "./windows.js";

const at = (iso: string) => new Date(`2026-11-${iso}Z`);
const iso = (window: { from: Date; to: Date }) => [window.from.toISOString(), window.to.toISOString()];

describe("matchWindows", () => {
  it("matches a day after the change with the day before when history allows", () => {
    const windows = matchWindows(at("20T12:00:00"), at("21T18:00:00"), at("10T00:00:00"));
    assert.equal(windows.status, "matched");
    assert.equal(windows.matching, "same-hours-previous-day");
    assert.deepEqual(iso(windows.after), ["2026-11-20T12:00:00.000Z", "2026-11-21T12:00:00.000Z"]);
    assert.deepEqual(iso(windows.before), ["2026-11-19T12:00:00.000Z", "2026-11-20T12:00:00.000Z"]);
  });

  it("uses the same hours of the previous day for a change three hours ago", () => {
    const windows = matchWindows(at("20T12:00:00"), at("20T15:00:00"), at("10T00:00:00"));
    assert.equal(windows.status, "matched");
    assert.equal(windows.matching, "same-hours-previous-day");
    assert.deepEqual(iso(windows.before), ["2026-11-19T12:00:00.000Z", "2026-11-19T15:00:00.000Z"]);
  });

  it("falls back to the adjacent window of the same length without a day of history", () => {
    const windows = matchWindows(at("20T12:00:00"), at("20T15:00:00"), at("20T06:00:00"));
    assert.equal(windows.status, "matched");
    assert.equal(windows.matching, "adjacent");
    assert.deepEqual(iso(windows.before), ["2026-11-20T09:00:00.000Z", "2026-11-20T12:00:00.000Z"]);
    assert.deepEqual(iso(windows.after), ["2026-11-20T12:00:00.000Z", "2026-11-20T15:00:00.000Z"]);
  });

  it("shortens both windows to the history before the change, keeping them equal", () => {
    const windows = matchWindows(at("20T12:00:00"), at("20T15:00:00"), at("20T11:00:00"));
    assert.equal(windows.status, "matched");
    assert.deepEqual(iso(windows.before), ["2026-11-20T11:00:00.000Z", "2026-11-20T12:00:00.000Z"]);
    assert.deepEqual(iso(windows.after), ["2026-11-20T12:00:00.000Z", "2026-11-20T13:00:00.000Z"]);
  });

  it("has not enough data right after the change or without history before it", () => {
    assert.equal(matchWindows(at("20T12:00:00"), at("20T12:05:00"), at("10T00:00:00")).status, "not-enough-data");
    assert.equal(matchWindows(at("20T12:00:00"), at("20T15:00:00"), null).status, "not-enough-data");
    assert.equal(matchWindows(at("20T12:00:00"), at("20T15:00:00"), at("20T11:55:00")).status, "not-enough-data");
  });
});
