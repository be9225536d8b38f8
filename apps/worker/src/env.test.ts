import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseEnv } from "./env.js";

describe("parseEnv", () => {
  it("applies defaults", () => {
    assert.deepEqual(parseEnv({ DATABASE_URL: "postgres://u@h/db" }), {
      DATABASE_URL: "postgres://u@h/db",
      SPINDLE_WORKER_CONCURRENCY: 4,
      SPINDLE_ROLLUP_INTERVAL_SECONDS: 15,
      SPINDLE_WORKER_HEALTH_PORT: 0,
      SPINDLE_RECOMMENDATION_REFRESH_SECONDS: 900,
      SPINDLE_RECOMMENDATION_REALISE_AFTER_SECONDS: 86_400,
      SPINDLE_RECOMMENDATION_DIGEST_SECONDS: 86_400,
      SPINDLE_CONSOLE_URL: "http://localhost:3000",
      SPINDLE_NOTIFY_SEND_TIMEOUT_SECONDS: 15,
      SPINDLE_NOTIFY_RETRY_BASE_SECONDS: 10,
      SPINDLE_NOTIFY_RETRY_MAX_SECONDS: 900,
      SPINDLE_NOTIFY_MAX_ATTEMPTS: 25,
      SPINDLE_NOTIFY_ALLOW_PRIVATE_TARGETS: false,
      SPINDLE_ROLLOUT_STEP_SECONDS: 5,
      SPINDLE_ROLLOUT_SETTLE_SECONDS: 30,
      SPINDLE_UPGRADE_INTERVAL_SECONDS: 15,
    });
  });

  it("says what to set when DATABASE_URL is missing or wrong", () => {
    assert.throws(() => parseEnv({}), /DATABASE_URL is not set/);
    assert.throws(() => parseEnv({ DATABASE_URL: "mysql://x" }), /must be a postgres:\/\/ or postgresql:\/\/ URL/);
  });

  it("refuses a realised-effect window shorter than 20 seconds", () => {
    assert.throws(() => parseEnv({ DATABASE_URL: "postgres://u@h/db", SPINDLE_RECOMMENDATION_REALISE_AFTER_SECONDS: "10" }), /at least 20/);
  });

  it("rejects a nonsensical interval", () => {
    assert.throws(
      () => parseEnv({ DATABASE_URL: "postgres://u@h/db", SPINDLE_ROLLUP_INTERVAL_SECONDS: "soon" }),
      /SPINDLE_ROLLUP_INTERVAL_SECONDS/,
    );
  });

  it("reads the notification settings and says what is wrong with them", () => {
    const env = parseEnv({
      DATABASE_URL: "postgres://u@h/db",
      SPINDLE_NOTIFY_ALLOW_PRIVATE_TARGETS: "true",
      SPINDLE_NOTIFY_RETRY_BASE_SECONDS: "0.2",
    });
    assert.equal(env.SPINDLE_NOTIFY_ALLOW_PRIVATE_TARGETS, true);
    assert.equal(env.SPINDLE_NOTIFY_RETRY_BASE_SECONDS, 0.2);
    assert.throws(
      () => parseEnv({ DATABASE_URL: "postgres://u@h/db", SPINDLE_NOTIFY_ALLOW_PRIVATE_TARGETS: "yes" }),
      /must be true or false/,
    );
    assert.throws(
      () => parseEnv({ DATABASE_URL: "postgres://u@h/db", SPINDLE_CONSOLE_URL: "spindle.example.com" }),
      /SPINDLE_CONSOLE_URL must be/,
    );
    assert.throws(
      () =>
        parseEnv({ DATABASE_URL: "postgres://u@h/db", SPINDLE_NOTIFY_RETRY_BASE_SECONDS: "60", SPINDLE_NOTIFY_RETRY_MAX_SECONDS: "30" }),
      /must not be below/,
    );
  });
});
