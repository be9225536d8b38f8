// A server page's chart window and its URL: what a shared link opens, and what a bad one says.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { answers, selectionFromParams, selectionQuery, withSelection, zoomSelection } from "./window-selection";

const from = (query: string) => selectionFromParams(new URLSearchParams(query));

describe("the chart window in the URL", () => {
  it("reads the live hour, presets, an alert's window and a custom window", () => {
    assert.deepEqual(from(""), { selection: { range: "1h", to: null, at: null }, problems: [] });
    assert.deepEqual(from("range=7d").selection, { range: "7d", to: null, at: null });
    assert.deepEqual(from("range=24h&to=2026-11-28T10:00:00Z&at=2026-11-28T09:00:00Z").selection, {
      range: "24h",
      to: "2026-11-28T10:00:00Z",
      at: "2026-11-28T09:00:00Z",
    });
    assert.deepEqual(from("from=2026-11-28T10:00:00%2B01:00&to=2026-11-28T10:20:00Z").selection, {
      range: "custom",
      from: "2026-11-28T09:00:00.000Z",
      to: "2026-11-28T10:20:00.000Z",
    });
  });

  it("falls back to the live hour with the reason for a bad window", () => {
    const bad = from("from=2026-11-28T11:00:00Z&to=2026-11-28T10:00:00Z");
    assert.deepEqual(bad.selection, { range: "1h", to: null, at: null });
    assert.deepEqual(bad.problems, ["from: from must be before to"]);
    assert.deepEqual(from("range=1y").problems, ["range: range is one of: 1h, 24h, 7d, custom"]);
  });

  it("writes a zoom into the URL, keeping the page's other parameters, and reads it back the same", () => {
    const zoomed = zoomSelection(1795860000, 1795860600);
    const params = withSelection(new URLSearchParams("range=24h&gains=7d"), zoomed);
    assert.equal(params.toString(), "gains=7d&from=2026-11-28T10%3A00%3A00.000Z&to=2026-11-28T10%3A10%3A00.000Z");
    assert.deepEqual(selectionFromParams(params).selection, zoomed);
    assert.equal(selectionQuery(zoomed), "from=2026-11-28T10%3A00%3A00.000Z&to=2026-11-28T10%3A10%3A00.000Z");
    assert.equal(withSelection(params, { range: "1h", to: null, at: null }).toString(), "gains=7d");
  });

  it("widens a window narrower than a minute (a 15 s evidence link, a tiny drag) around its middle", () => {
    assert.deepEqual(from("from=2026-11-28T10:00:00Z&to=2026-11-28T10:00:15Z"), {
      selection: { range: "custom", from: "2026-11-28T09:59:37.000Z", to: "2026-11-28T10:00:38.000Z" },
      problems: [],
    });
    assert.deepEqual(zoomSelection(1795860000, 1795860020), {
      range: "custom",
      from: "2026-11-28T09:59:40.000Z",
      to: "2026-11-28T10:00:40.000Z",
    });
  });

  it("draws an answer only in the window it was asked for", () => {
    const zoomed = zoomSelection(1795860000, 1795860600);
    assert.equal(answers({ range: "custom", from: "2026-11-28T10:00:00.000Z" }, zoomed), true);
    assert.equal(answers({ range: "custom", from: "2026-11-28T09:00:00.000Z" }, zoomed), false);
    assert.equal(answers({ range: "1h", from: "2026-11-28T09:00:00.000Z" }, zoomed), false);
    assert.equal(answers(undefined, zoomed), false);
  });
});
