import assert from "node:assert/strict";
import { test } from "node:test";
import { startHealthServer } from "./health-server.js";

async function get(port: number, path: string): Promise<{ status: number; body: Record<string, string> }> {
  const response = await fetch(`http://127.0.0.1:${port}${path}`);
  return { status: response.status, body: (await response.json()) as Record<string, string> };
}

test("live while the runner runs, ready while the database also answers", async () => {
  let running = true;
  let database: "up" | "down" | "hung" = "up";
  const server = await startHealthServer(
    0,
    {
      running: () => running,
      ping: () =>
        database === "up" ? Promise.resolve() : database === "down" ? Promise.reject(new Error("ECONNREFUSED")) : new Promise(() => {}),
      timeoutMs: 50,
    },
    "127.0.0.1",
  );
  try {
    assert.equal((await get(server.port, "/livez")).status, 200);
    assert.deepEqual(await get(server.port, "/readyz"), { status: 200, body: { status: "ok", database: "ok" } });

    database = "down";
    const refused = await get(server.port, "/readyz");
    assert.equal(refused.status, 503);
    assert.match(refused.body.error!, /ECONNREFUSED.*check DATABASE_URL/);
    assert.equal((await get(server.port, "/livez")).status, 200, "a database outage never makes the worker restart");

    database = "hung";
    assert.match((await get(server.port, "/readyz")).body.error!, /no answer within 50 ms/);

    running = false;
    assert.equal((await get(server.port, "/livez")).status, 503);
    assert.equal((await get(server.port, "/nothing")).status, 404);
  } finally {
    await server.close();
  }
});
