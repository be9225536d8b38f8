import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseEnv } from "./env";

const valid = {
  DATABASE_URL: "postgres://postgres@127.0.0.1:5432/spindle",
  BETTER_AUTH_SECRET: "x".repeat(32),
};

describe("parseEnv", () => {
  it("fills in the documented defaults", () => {
    const env = parseEnv(valid);
    assert.equal(env.SPINDLE_CONSOLE_URL, "http://localhost:3000");
    assert.equal(env.SPINDLE_GATEWAY_URL, "http://localhost:4318");
  });

  it("drops a trailing slash so URLs can be joined", () => {
    assert.equal(parseEnv({ ...valid, SPINDLE_GATEWAY_URL: "https://gw.example.com/" }).SPINDLE_GATEWAY_URL, "https://gw.example.com");
  });

  it("names every missing or bad variable and says what to set", () => {
    assert.throws(
      () => parseEnv({ BETTER_AUTH_SECRET: "short", SPINDLE_CONSOLE_URL: "ftp://x" }),
      (error: Error) =>
        /DATABASE_URL is not set/.test(error.message) &&
        /BETTER_AUTH_SECRET must be at least 32 characters/.test(error.message) &&
        /SPINDLE_CONSOLE_URL/.test(error.message),
    );
  });
});

describe("SPINDLE_TRUSTED_PROXIES", () => {
  it("is empty by default and parses a comma-separated list of addresses and ranges", () => {
    assert.deepEqual(parseEnv(valid).SPINDLE_TRUSTED_PROXIES, []);
    assert.deepEqual(parseEnv({ ...valid, SPINDLE_TRUSTED_PROXIES: "10.0.0.5, 10.1.0.0/16,fd00::/8" }).SPINDLE_TRUSTED_PROXIES, [
      "10.0.0.5",
      "10.1.0.0/16",
      "fd00::/8",
    ]);
  });

  it("refuses anything that is not an address or range", () => {
    assert.throws(
      () => parseEnv({ ...valid, SPINDLE_TRUSTED_PROXIES: "proxy.example.com" }),
      /SPINDLE_TRUSTED_PROXIES must be a comma-separated list/,
    );
  });
});

describe("mail settings", () => {
  it("defaults to the local mailbox and accepts smtp:// and smtps:// URLs", () => {
    const env = parseEnv(valid);
    assert.equal(env.SPINDLE_SMTP_URL, undefined);
    assert.equal(env.SPINDLE_MAILBOX_DIR, ".spindle/mailbox");
    assert.equal(
      parseEnv({ ...valid, SPINDLE_SMTP_URL: "smtps://mailer:secret@smtp.example.com:465" }).SPINDLE_SMTP_URL,
      "smtps://mailer:secret@smtp.example.com:465",
    );
    assert.equal(
      parseEnv({ ...valid, SPINDLE_SMTP_URL: "", SPINDLE_MAIL_FROM: "" }).SPINDLE_SMTP_URL,
      undefined,
      "empty (compose's default) is unset",
    );
  });

  it("refuses a mail server that is not an smtp URL, saying what to write", () => {
    assert.throws(() => parseEnv({ ...valid, SPINDLE_SMTP_URL: "smtp.example.com:587" }), /SPINDLE_SMTP_URL/);
    assert.throws(() => parseEnv({ ...valid, SPINDLE_SMTP_URL: "https://smtp.example.com" }), /must be smtp:\/\/\[user:password@\]host/);
  });
});

describe("SPINDLE_SSO_TRUSTED_ISSUERS and SPINDLE_API_TOKEN_RATE_LIMIT", () => {
  it("parse origins and a positive rate", () => {
    const env = parseEnv({
      ...valid,
      SPINDLE_SSO_TRUSTED_ISSUERS: "http://127.0.0.1:8080/, https://idp.corp.example",
      SPINDLE_API_TOKEN_RATE_LIMIT: "120",
    });
    assert.deepEqual(env.SPINDLE_SSO_TRUSTED_ISSUERS, ["http://127.0.0.1:8080", "https://idp.corp.example"]);
    assert.equal(env.SPINDLE_API_TOKEN_RATE_LIMIT, 120);
    assert.equal(parseEnv(valid).SPINDLE_API_TOKEN_RATE_LIMIT, 600);
  });

  it("refuse an issuer with a path and a rate of zero", () => {
    assert.throws(
      () => parseEnv({ ...valid, SPINDLE_SSO_TRUSTED_ISSUERS: "http://idp/realms/x" }),
      /SPINDLE_SSO_TRUSTED_ISSUERS must be a comma-separated list of origins/,
    );
    assert.throws(() => parseEnv({ ...valid, SPINDLE_API_TOKEN_RATE_LIMIT: "0" }), /SPINDLE_API_TOKEN_RATE_LIMIT/);
  });
});
