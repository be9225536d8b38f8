// The fleet page's latency summaries against real PostgreSQL: each server's read histograms of
// the last hour of complete minutes merged into one row, writes and older minutes left out, a
// server gone quiet losing its row, every organisation's servers in one run and each row
// visible to its own organisation only.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { openPlainDatabase, skipReason, type PlainDatabase } from "../test-support/telemetry.js";
import { inOrg } from "../test-support/notifications.js";
import { refreshReadLatencySummaries } from "./read-latency-summary.js";

const now = new Date("2026-11-28T12:00:30Z");
const minutesAgo = (m: number) => new Date(Date.parse("2026-11-28T12:00:00Z") - m * 60_000);
const servers = {
  a1: "00000000-0000-4000-8000-0000000000a1",
  a2: "00000000-0000-4000-8000-0000000000a2",
  b1: "00000000-0000-4000-8000-0000000000b1",
};

describe("refreshReadLatencySummaries", { skip: skipReason }, () => {
  let plain: PlainDatabase;

  const histogram = (bucket: Date, org: string, server: string, operation: string, counts: Record<number, number>, device = "sda") => {
    const buckets = Array.from({ length: 28 }, (_, i) => counts[i] ?? 0);
    return plain.pool.query(
      `INSERT INTO disk_latency_1m VALUES ($1, $2, $3, $4, $5, 60, $6, 0.1, ${buckets.map((_, i) => `$${i + 7}`).join(", ")}, 6)`,
      [bucket, org, server, device, operation, buckets.reduce((a, b) => a + b, 0), ...buckets],
    );
  };
  const summary = (org: string) =>
    inOrg(
      plain.pool,
      org,
      "spindle_console",
      async (tx) =>
        (
          await tx.query<{ server_id: string; reads: number; buckets: number[]; window_end: Date }>(
            "SELECT server_id::text, reads, buckets, window_end FROM server_read_latency ORDER BY server_id",
          )
        ).rows,
    );

  before(async () => {
    plain = await openPlainDatabase("worker_read_latency");
    for (const org of ["org-a", "org-b"]) await plain.pool.query("INSERT INTO organizations (id, name, slug) VALUES ($1, $1, $1)", [org]);
    for (const [id, org] of [
      [servers.a1, "org-a"],
      [servers.a2, "org-a"],
      [servers.b1, "org-b"],
    ]) {
      await plain.pool.query(
        "INSERT INTO servers (id, org_id, machine_id, hostname, os) VALUES ($1::uuid, $2, $1::text, $1::text, 'linux')",
        [id, org],
      );
    }
    await histogram(minutesAgo(5), "org-a", servers.a1, "read", { 5: 90 });
    await histogram(minutesAgo(5), "org-a", servers.a1, "read", { 20: 10 }, "sdb");
    await histogram(minutesAgo(50), "org-a", servers.a1, "read", { 6: 100 });
    await histogram(minutesAgo(5), "org-a", servers.a1, "write", { 25: 1000 });
    await histogram(minutesAgo(61), "org-a", servers.a1, "read", { 27: 1000 }); // before the hour
    await histogram(minutesAgo(-1), "org-a", servers.a1, "read", { 27: 1000 }); // the minute still under way
    await histogram(minutesAgo(10), "org-a", servers.a2, "write", { 3: 7 }); // writes only: not measured
    await histogram(minutesAgo(1), "org-b", servers.b1, "read", { 12: 4 });
  });
  after(async () => {
    await plain?.close();
  });

  it("merges each server's reads of the last hour of complete minutes, across devices, for every organisation", async () => {
    assert.deepEqual(await refreshReadLatencySummaries(plain.pool, now), { servers: 2, removed: 0 });
    const [a1, ...others] = await summary("org-a");
    assert.equal(others.length, 0, "a server that only wrote has no row");
    assert.equal(a1!.server_id, servers.a1);
    assert.equal(a1!.reads, 200);
    assert.deepEqual([a1!.buckets[5], a1!.buckets[6], a1!.buckets[20], a1!.buckets[25], a1!.buckets[27]], [90, 100, 10, 0, 0]);
    assert.equal(a1!.window_end.toISOString(), "2026-11-28T12:00:00.000Z");
    assert.deepEqual(
      (await summary("org-b")).map((row) => [row.server_id, row.reads]),
      [[servers.b1, 4]],
      "each organisation sees its own",
    );
  });

  it("drops the row of a server with no read left in the window, and keeps the others up to date", async () => {
    const later = new Date(now.getTime() + 10 * 60_000);
    await histogram(minutesAgo(-5), "org-b", servers.b1, "read", { 12: 6 });
    assert.deepEqual(await refreshReadLatencySummaries(plain.pool, later), { servers: 2, removed: 0 });
    assert.equal((await summary("org-b"))[0]!.reads, 10);
    const muchLater = new Date(now.getTime() + 2 * 3_600_000);
    assert.deepEqual(await refreshReadLatencySummaries(plain.pool, muchLater), { servers: 0, removed: 2 });
    assert.deepEqual(await summary("org-a"), []);
  });
});
