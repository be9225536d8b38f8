import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseEnv } from "./env.js";

describe("parseEnv", () => {
  it("applies defaults", () => {
    assert.deepEqual(parseEnv({ DATABASE_URL: "postgres://u@h/db" }), {
      DATABASE_URL: "postgres://u@h/db",
      SPINDLE_WORKER_CONCURRENCY: 4,
      SPINDLE_ROLLUP_INTERVAL_SECONDS: 15,
    });
  });

  it("says what to set when DATABASE_URL is missing or wrong", () => {
    assert.throws(() => parseEnv({}), /DATABASE_URL is not set/);
    assert.throws(() => parseEnv({ DATABASE_URL: "mysql://x" }), /must be a postgres:\/\/ or postgresql:\/\/ URL/);
  });

  it("rejects a nonsensical interval", () => {
    assert.throws(() => parseEnv({ DATABASE_URL: "postgres://u@h/db", SPINDLE_ROLLUP_INTERVAL_SECONDS: "soon" }), /SPINDLE_ROLLUP_INTERVAL_SECONDS/);
  });
});
