import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { gainsSelectionFromParams, withGainsSelection } from "./gains-url";

describe("the Gains range in the server page's URL", () => {
  it("round-trips presets and custom ranges next to the charts' own window", () => {
    const custom = { range: "custom" as const, from: "2026-11-28T10:00:00.000Z", to: "2026-11-28T10:30:00.000Z" };
    const params = withGainsSelection(new URLSearchParams("from=2026-11-28T09:00:00Z&to=2026-11-28T11:00:00Z"), custom);
    assert.equal(params.get("from"), "2026-11-28T09:00:00Z", "the charts' window is left alone");
    assert.deepEqual(gainsSelectionFromParams(params), custom);
    assert.deepEqual(gainsSelectionFromParams(withGainsSelection(params, { range: "7d" })), { range: "7d" });
  });

  it("falls back to the default for no range or a bad one", () => {
    assert.deepEqual(gainsSelectionFromParams(new URLSearchParams("")), { range: "1h" });
    assert.deepEqual(gainsSelectionFromParams(new URLSearchParams("gains=custom&gainsFrom=x")), { range: "1h" });
  });
});
