import assert from "node:assert/strict";
import { test } from "node:test";
import { readiness } from "./readiness";

test("ready when the database answers", async () => {
  assert.deepEqual(await readiness(async () => [{ "?column?": 1 }]), { status: 200, body: { status: "ok", database: "ok" } });
});

test("not ready when the database refuses, with what to check", async () => {
  const answer = await readiness(async () => {
    throw new Error("connect ECONNREFUSED 127.0.0.1:5432");
  });
  assert.equal(answer.status, 503);
  assert.match(answer.body.error!, /ECONNREFUSED.*check DATABASE_URL/);
});

test("not ready when the database hangs past the timeout", async () => {
  const answer = await readiness(() => new Promise(() => {}), 20);
  assert.equal(answer.status, 503);
  assert.match(answer.body.error!, /no answer within 20 ms/);
});
