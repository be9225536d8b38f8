import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { gainsExportQuerySchema, gainsQueryString, gainsRangeQuerySchema } from "../types/range";
import { resolveRange } from "./gains-range";

const now = new Date("2026-11-23T10:00:00Z");

describe("gains ranges", () => {
  it("answers 1 h from raw rows, 24 h from 1-minute and 7 d / 30 d from 1-hour buckets", () => {
    const resolve = (range: "1h" | "24h" | "7d" | "30d") => resolveRange(gainsRangeQuerySchema.parse({ range }), now);
    assert.deepEqual(
      [resolve("1h").resolution, resolve("24h").resolution, resolve("7d").resolution, resolve("30d").resolution],
      ["raw", "1m", "1h", "1h"],
    );
    assert.equal(resolve("30d").from.toISOString(), "2026-10-24T10:00:00.000Z");
    assert.equal(resolve("1h").to, now);
  });

  it("takes a custom range with offsets and picks the resolution by its span", () => {
    const query = gainsRangeQuerySchema.parse({ range: "custom", from: "2026-11-20T08:00:00+01:00", to: "2026-11-20T09:30:00+01:00" });
    const range = resolveRange(query, now);
    assert.equal(range.from.toISOString(), "2026-11-20T07:00:00.000Z");
    assert.equal(range.resolution, "1m", "90 minutes is more than raw rows should draw");
    assert.equal(
      gainsQueryString({ range: "custom", from: "2026-11-20T07:00:00.000Z", to: "2026-11-20T08:30:00.000Z" }),
      "range=custom&from=2026-11-20T07%3A00%3A00.000Z&to=2026-11-20T08%3A30%3A00.000Z",
    );
  });

  it("refuses bad custom ranges with a message that says what to send", () => {
    const problems = (input: unknown) => {
      const result = gainsRangeQuerySchema.safeParse(input);
      return result.success ? [] : result.error.issues.map((issue) => issue.message);
    };
    assert.match(problems({ range: "custom", from: "2026-11-20T08:00:00Z" })[0]!, /needs both from and to/);
    assert.match(problems({ range: "custom", from: "2026-11-20T08:00:00Z", to: "2026-11-20T07:00:00Z" })[0]!, /after from/);
    assert.match(problems({ range: "custom", from: "2020-01-01T00:00:00Z", to: "2026-11-20T07:00:00Z" })[0]!, /at most 400 days/);
    assert.match(problems({ range: "1h", from: "2026-11-20T08:00:00Z" })[0]!, /range=custom only/);
    assert.ok(problems({ range: "custom", from: "yesterday", to: "2026-11-20T07:00:00Z" }).length > 0);
    assert.ok(problems({ range: "90d" }).length > 0);
    const series = gainsExportQuerySchema.safeParse({ what: "series" });
    assert.equal(series.success, false);
    assert.match(series.error!.issues[0]!.message, /add serverId/);
  });
});
