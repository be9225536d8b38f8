import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { ProblemError } from "@/lib/problem";
import { createTestDatabase, skipWithoutDatabase, type TestDatabase } from "@/test-support/test-database";
import { createOrganisation, createServer } from "@/test-support/fixtures";
import { queryCacheCurves } from "./query-cache-curves";

const end = new Date("2026-11-21T10:00:00Z");
const earlier = new Date("2026-11-21T09:55:00Z");
const gib = 1024 ** 3;

describe("queryCacheCurves", { skip: skipWithoutDatabase }, () => {
  let db: TestDatabase;
  let orgId: string;
  let otherOrgId: string;
  let serverId: string;
  let otherServerId: string;

  async function insertCurve(org: string, server: string, time: Date, curve: string, scope: string, ratios: number[]) {
    await db.pool.query(
      `INSERT INTO cache_mrc (org_id, server_id, time, window_seconds, curve, scope, sample_rate, sampled_accesses, sizes_bytes, hit_ratios)
       VALUES ($1, $2, $3, 300, $4, $5, 0.01, 5230, $6, $7)`,
      [org, server, time, curve, scope, ratios.map((_, i) => String(gib * 2 ** i)), ratios],
    );
  }

  before(async () => {
    db = await createTestDatabase();
    ({ orgId } = await createOrganisation(db.prisma, "Acme"));
    ({ orgId: otherOrgId } = await createOrganisation(db.prisma, "Other"));
    ({ id: serverId } = await createServer(db.prisma, orgId, "db01", end));
    ({ id: otherServerId } = await createServer(db.prisma, otherOrgId, "db99", end));
    await insertCurve(orgId, serverId, earlier, "page_cache", "", [0.2, 0.3]);
    await insertCurve(orgId, serverId, end, "page_cache", "", [0.61, 0.8, 0.88]);
    await insertCurve(orgId, serverId, end, "block", "nvme0n1", [0.1]);
    await insertCurve(orgId, serverId, end, "read_cache", "/srv/pg/**", [0.5, 0.9]);
    await insertCurve(otherOrgId, otherServerId, end, "page_cache", "", [0.99]);
    // Memory over the newest window: MemAvailable 9, 10 … 28 GiB; the 5th percentile is 9 GiB.
    for (let i = 0; i < 20; i++) {
      await db.pool.query(
        `INSERT INTO memory (time, org_id, server_id, total_bytes, available_bytes, free_bytes, cached_bytes, buffers_bytes, dirty_bytes, swap_total_bytes, swap_free_bytes)
         VALUES ($1, $2, $3, $4, $5, 0, 0, 0, 0, 0, 0)`,
        [new Date(end.getTime() - i * 10_000), orgId, serverId, 64 * gib, (9 + i) * gib],
      );
    }
    await db.pool.query(`INSERT INTO read_cache (time, org_id, server_id, interval_seconds, budget_bytes) VALUES ($1, $2, $3, 10, $4)`, [
      new Date(end.getTime() - 20_000),
      orgId,
      serverId,
      2 * gib,
    ]);
  });
  after(() => db?.drop());

  it("shows the newest window's curves in order, with the budget and the spare memory and their basis", async () => {
    const shown = await queryCacheCurves(db, orgId, serverId);
    assert.equal(shown.end, end.toISOString());
    assert.deepEqual(shown.windows, [
      { end: end.toISOString(), windowSeconds: 300 },
      { end: earlier.toISOString(), windowSeconds: 300 },
    ]);
    assert.deepEqual(
      shown.curves.map((c) => `${c.curve}:${c.scope}`),
      ["page_cache:", "read_cache:/srv/pg/**", "block:nvme0n1"],
    );
    assert.deepEqual(shown.curves[0], {
      curve: "page_cache",
      scope: "",
      sampleRate: 0.01,
      sampledAccesses: 5230,
      windowSeconds: 300,
      sizesBytes: [gib, 2 * gib, 4 * gib],
      hitRatios: [0.61, 0.8, 0.88],
    });
    assert.equal(shown.readCacheBudget?.bytes, 2 * gib);
    assert.match(shown.readCacheBudget!.basis, /reported by the agent at 2026-11-21T09:59:40/);
    assert.equal(shown.spareMemory?.bytes, 9 * gib);
    assert.match(shown.spareMemory!.basis, /5th percentile of MemAvailable over 20 samples/);
  });

  it("says not measured (null) where the window has no budget or memory, and picks a window by its end", async () => {
    const shown = await queryCacheCurves(db, orgId, serverId, earlier.toISOString());
    assert.equal(shown.end, earlier.toISOString());
    assert.deepEqual(
      shown.curves.map((c) => c.hitRatios),
      [[0.2, 0.3]],
    );
    assert.equal(shown.readCacheBudget, null);
    assert.equal(shown.spareMemory, null);
    await assert.rejects(
      queryCacheCurves(db, orgId, serverId, "2026-11-21T09:50:00Z"),
      (e: unknown) => e instanceof ProblemError && e.status === 404,
    );
  });

  it("shows a window whose end the gateway stored in microseconds (an ISO end has milliseconds)", async () => {
    const { id: gatewayServer } = await createServer(db.prisma, orgId, "db02", end);
    await db.pool.query(
      `INSERT INTO cache_mrc (org_id, server_id, time, window_seconds, curve, scope, sample_rate, sampled_accesses, sizes_bytes, hit_ratios)
       VALUES ($1, $2, '2026-11-21T10:00:00.313184Z', 15, 'read_cache', '/srv/pg/**', 0.01, 5230, $3, $4)`,
      [orgId, gatewayServer, [String(gib)], [0.8]],
    );
    const shown = await queryCacheCurves(db, orgId, gatewayServer);
    assert.equal(shown.end, "2026-11-21T10:00:00.313Z");
    assert.deepEqual(
      shown.curves.map((c) => c.hitRatios),
      [[0.8]],
    );
  });

  it("never shows another organisation's server or curves", async () => {
    await assert.rejects(queryCacheCurves(db, orgId, otherServerId), (e: unknown) => e instanceof ProblemError && e.status === 404);
    const other = await queryCacheCurves(db, otherOrgId, otherServerId);
    assert.deepEqual(
      other.curves.map((c) => c.hitRatios),
      [[0.99]],
    );
    assert.equal(other.readCacheBudget, null);
  });

  it("has nothing to show for a server that sent no curve", async () => {
    const { id } = await createServer(db.prisma, orgId, "web01", end);
    assert.deepEqual(await queryCacheCurves(db, orgId, id), {
      windows: [],
      end: null,
      curves: [],
      readCacheBudget: null,
      spareMemory: null,
    });
  });
});
