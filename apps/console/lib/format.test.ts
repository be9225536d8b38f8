import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { formatBytes, formatNumber, formatRelative } from "./format";

describe("format", () => {
  it("says how long ago, in the largest sensible unit", () => {
    const now = Date.parse("2026-11-21T10:00:00Z");
    assert.equal(formatRelative(null, now), "never");
    assert.equal(formatRelative("2026-11-21T09:59:48Z", now), "12 s ago");
    assert.equal(formatRelative("2026-11-21T09:55:00Z", now), "5 min ago");
    assert.equal(formatRelative("2026-11-19T10:00:00Z", now), "2 days ago");
  });

  it("formats bytes with decimal units", () => {
    assert.equal(formatBytes(512), "512 B");
    assert.equal(formatBytes(16_000_000_000), "16.0 GB");
    assert.equal(formatBytes(250_000_000), "250 MB");
  });

  it("keeps two significant digits for small values", () => {
    assert.equal(formatNumber(0.04096), "0.041");
    assert.equal(formatNumber(12.5), "12.5");
    assert.equal(formatNumber(1234.4), "1,234");
  });
});
