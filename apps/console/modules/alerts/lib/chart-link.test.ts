import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { selectionFromParams } from "@/modules/metrics/lib/window-selection";
import { chartLinkForAlert, chartWindowAround } from "./chart-link";

const now = new Date("2026-11-23T12:00:00Z");

describe("the link from an alert to the charts around it", () => {
  it("centres the hour around a recent event, never past now", () => {
    assert.deepEqual(chartWindowAround(new Date("2026-11-23T09:00:00Z"), now), { range: "1h", to: new Date("2026-11-23T09:30:00Z") });
    assert.deepEqual(chartWindowAround(new Date("2026-11-23T11:50:00Z"), now), { range: "1h", to: now });
  });

  it("falls back to coarser ranges once raw samples and then minutes are gone", () => {
    assert.equal(chartWindowAround(new Date("2026-10-01T12:00:00Z"), now).range, "24h");
    assert.equal(chartWindowAround(new Date("2026-06-01T12:00:00Z"), now).range, "7d");
  });

  it("builds a URL the server page accepts", () => {
    const link = chartLinkForAlert("0b8c9a52-0000-4000-8000-000000000001", "2026-11-23T09:00:00.000Z", now);
    const url = new URL(link, "http://x");
    assert.equal(url.pathname, "/servers/0b8c9a52-0000-4000-8000-000000000001");
    assert.deepEqual(selectionFromParams(url.searchParams), {
      selection: { range: "1h", to: "2026-11-23T09:30:00.000Z", at: "2026-11-23T09:00:00.000Z" },
      problems: [],
    });
  });

  it("opens the from/to link of a notification as that window", () => {
    assert.deepEqual(selectionFromParams(new URLSearchParams("from=2026-11-23T08:00:00.000Z&to=2026-11-23T10:00:00.000Z")).selection, {
      range: "custom",
      from: "2026-11-23T08:00:00.000Z",
      to: "2026-11-23T10:00:00.000Z",
    });
  });
});
