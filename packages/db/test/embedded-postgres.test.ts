// The embedded PostgreSQL that `npm start` uses without DATABASE_URL: first start creates the
// cluster and database, a second start reuses both (data survives), stop really stops it. As
// root, in a directory the `postgres` user cannot enter (a clone under /root, mktemp -d), the
// programs and data move where it can, and the data directory asked for links there.
import assert from "node:assert/strict";
import { chmod, lstat, mkdtemp, readlink, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import pg from "pg";
import { startEmbeddedPostgres } from "../src/index.js";
import { relocationDir } from "../src/embedded-postgres/relocate.js";

const port = Number(process.env.SPINDLE_TEST_EMBEDDED_PG_PORT ?? 56301);

async function query(url: string, text: string): Promise<Record<string, unknown>[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text)).rows;
  } finally {
    await client.end();
  }
}

describe("startEmbeddedPostgres", () => {
  let root: string | undefined;
  after(async () => {
    if (root) await rm(root, { recursive: true, force: true });
  });

  it("initialises once, keeps data across restarts, and stops", { timeout: 180_000 }, async () => {
    root = await mkdtemp(join(tmpdir(), "spindle-embedded-pg-"));
    await chmod(root, 0o755); // as root, the server runs as the `postgres` user, who must reach the data
    const dataDir = join(root, "pgdata");

    const first = await startEmbeddedPostgres({ dataDir, port });
    try {
      assert.match(first.url, new RegExp(`^postgres://postgres:[^@]+@127\\.0\\.0\\.1:${port}/spindle$`));
      await query(first.url, "CREATE TABLE kept (note text); INSERT INTO kept VALUES ('still here')");
    } finally {
      await first.stop();
    }
    await assert.rejects(query(first.url, "SELECT 1"), /ECONNREFUSED/);
    assert.equal((await stat(`${dataDir}.password`)).mode & 0o777, 0o600);

    const second = await startEmbeddedPostgres({ dataDir, port });
    try {
      assert.equal(second.url, first.url);
      assert.deepEqual(await query(second.url, "SELECT note FROM kept"), [{ note: "still here" }]);
      const settings = await query(
        second.url,
        "SELECT current_setting('listen_addresses') AS listen, current_setting('unix_socket_directories') AS sockets",
      );
      assert.deepEqual(settings, [{ listen: "127.0.0.1", sockets: "" }]);
    } finally {
      await second.stop();
    }
  });
});

describe("startEmbeddedPostgres as root in a directory only root may enter", {
  skip: process.getuid?.() !== 0 ? "needs root" : false,
}, () => {
  let root: string | undefined;
  let relocated: string | undefined;
  after(async () => {
    if (root) await rm(root, { recursive: true, force: true });
    if (relocated) await rm(relocated, { recursive: true, force: true });
  });

  it("runs from /var/lib/spindle-embedded-postgres, links the data directory there, and finds it again", { timeout: 180_000 }, async () => {
    root = await mkdtemp(join(tmpdir(), "spindle-embedded-pg-private-")); // mode 0700, as mktemp -d and /root
    assert.equal((await stat(root)).mode & 0o777, 0o700);
    const dataDir = join(root, "clone", ".spindle", "pgdata");
    relocated = relocationDir(dataDir);

    const first = await startEmbeddedPostgres({ dataDir, port });
    try {
      assert.equal(first.dataDir, join(relocated, "data"));
      assert.ok((await lstat(dataDir)).isSymbolicLink(), "the data directory asked for is a link");
      assert.equal(await readlink(dataDir), join(relocated, "data"));
      await query(first.url, "CREATE TABLE kept (note text); INSERT INTO kept VALUES ('moved')");
    } finally {
      await first.stop();
    }
    const second = await startEmbeddedPostgres({ dataDir, port });
    try {
      assert.equal(second.dataDir, first.dataDir);
      assert.deepEqual(await query(second.url, "SELECT note FROM kept"), [{ note: "moved" }]);
    } finally {
      await second.stop();
    }
  });
});
