// The "disk filling up" and "spool growing" signals against a real PostgreSQL (plain mode, rolled
// up by the worker's own job): a file system shrinking on a straight line fires with the hours
// the line predicts, one with plenty of space or a flat trend does not, freeing space resolves;
// a growing spool fires on its mean backlog; another organisation's identical data is never seen.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { fillFloorAvailablePercent } from "@spindle/domain";
import { rollupPending } from "@spindle/timeseries";
import { openPlainDatabase, skipReason, type PlainDatabase } from "../test-support/telemetry.js";
import { evaluateOrganization } from "./evaluate.js";

const GB = 1e9;
const size = 100 * GB;
const start = Date.UTC(2026, 10, 20, 6, 0, 0);
/** Available bytes of "/" at ms: 30 GB at 06:00, falling 5 GB an hour (full at 12:00). */
const rootAvailable = (ms: number) => 30 * GB - ((ms - start) / 3_600_000) * 5 * GB;

async function insertFilesystem(
  db: PlainDatabase,
  org: string,
  server: string,
  mountpoint: string,
  fromMs: number,
  toMs: number,
  available: (ms: number) => number,
) {
  const values: unknown[] = [];
  const tuples: string[] = [];
  for (let ms = fromMs; ms < toMs; ms += 60_000) {
    const time = new Date(ms + 30_000); // mid-minute, one sample per minute
    const free = Math.round(available(ms + 30_000));
    values.push(time, org, server, mountpoint, `/dev/${mountpoint === "/" ? "vda" : "vdb"}`, size, free, free);
    const b = values.length - 8;
    tuples.push(`($${b + 1}, $${b + 2}, $${b + 3}, $${b + 4}, $${b + 5}, 'ext4', 60, $${b + 6}, $${b + 7}, $${b + 8})`);
  }
  await db.pool.query(
    `INSERT INTO filesystem (time, org_id, server_id, mountpoint, device, fs_type, interval_seconds, size_bytes, free_bytes, available_bytes) VALUES ${tuples.join(", ")}`,
    values,
  );
  await rollupPending(db.pool);
}

async function history(db: PlainDatabase, org: string, ruleName: string) {
  return (
    await db.pool.query(
      "SELECT component, from_state, to_state, value, at FROM alert_history WHERE org_id = $1 AND rule_name = $2 ORDER BY at, component",
      [org, ruleName],
    )
  ).rows;
}

describe("disk filling up and spool growing", { skip: skipReason }, () => {
  let db: PlainDatabase;
  const server: Record<string, string> = {};

  before(async () => {
    db = await openPlainDatabase("alerts_space");
    for (const org of ["org-a", "org-b"]) {
      await db.pool.query("INSERT INTO organizations (id, name, slug) VALUES ($1, $1, $1)", [org]);
      const { rows } = await db.pool.query(
        "INSERT INTO servers (org_id, machine_id, hostname, os, tags, last_seen_at) VALUES ($1, 'm1', 'fs-' || $1, 'linux', '{}', '2026-11-20T12:00:00Z') RETURNING id::text",
        [org],
      );
      server[org] = rows[0].id;
    }
  });
  after(async () => db?.close());

  it("predicts when a shrinking file system is full, fires under a day, and resolves when space is freed", async () => {
    const at = new Date(start + 3 * 3_600_000); // 09:00: 15 GB left, 3 h to go
    await insertFilesystem(db, "org-a", server["org-a"]!, "/", start, at.getTime(), rootAvailable);
    // Flat at 10 % available: no trend, no prediction. Shrinking fast but 80 % available: above the floor.
    await insertFilesystem(db, "org-a", server["org-a"]!, "/data", start, at.getTime(), () => 10 * GB);
    await insertFilesystem(
      db,
      "org-a",
      server["org-a"]!,
      "/big",
      start,
      at.getTime(),
      (ms) => 90 * GB - ((ms - start) / 3_600_000) * 2 * GB,
    );
    // Org B fills the same way; org A's evaluation must not see it.
    await insertFilesystem(db, "org-b", server["org-b"]!, "/", start, at.getTime(), rootAvailable);
    await db.pool.query(
      `INSERT INTO alert_rules (org_id, name, signal, aggregation, comparison, threshold, window_seconds, for_seconds, resolve_seconds, no_data_seconds, scope, severity)
       VALUES ('org-a', 'Full within a day, at once', 'filesystem.hours_until_full', 'last', '<', 24, 21600, 0, 0, 3600, 'organization', 'warning')`,
    );

    const first = await evaluateOrganization(db.pool, "org-a", at);
    assert.ok(first.evaluated);
    const fired = await history(db, "org-a", "Full within a day, at once");
    assert.deepEqual(
      fired.map((h) => [h.component, h.to_state]),
      [["/", "firing"]],
      "only the shrinking file system under the floor fires",
    );
    // The fitted line is the generating one: 15 GB left at 5 GB an hour.
    assert.ok(Math.abs(fired[0].value - 3) < 0.01, `predicted ${fired[0].value} h, want 3 h`);
    const defaults = (
      await db.pool.query(
        "SELECT s.component, s.state FROM alert_states s JOIN alert_rules r ON r.id = s.rule_id WHERE s.org_id = 'org-a' AND r.default_key = 'disk_filling_up' ORDER BY 1",
      )
    ).rows;
    assert.deepEqual(
      defaults,
      [
        { component: "/", state: "pending" },
        { component: "/big", state: "ok" },
        { component: "/data", state: "ok" },
      ],
      "the default rule waits an hour before firing",
    );
    assert.ok(((15 * GB) / size) * 100 < fillFloorAvailablePercent);
    const others = (
      await db.pool.query("SELECT count(*)::int AS n FROM alert_history WHERE org_id = 'org-a' AND server_id = $1", [server["org-b"]])
    ).rows[0].n;
    assert.equal(others, 0, "org B's file system is not org A's subject");

    // Space is freed at 09:00 (back to 60 % available) and stays: above the floor, resolved.
    const later = new Date(at.getTime() + 40 * 60_000);
    await insertFilesystem(db, "org-a", server["org-a"]!, "/", at.getTime(), later.getTime(), () => 60 * GB);
    await evaluateOrganization(db.pool, "org-a", later);
    const resolved = (await history(db, "org-a", "Full within a day, at once")).at(-1);
    assert.equal(resolved.to_state, "ok");
    assert.equal(resolved.value, null, "no prediction is recorded as NULL, never 0");
  });

  it("fires on a spool whose backlog stays above the limit", async () => {
    const at = new Date(Date.UTC(2026, 10, 20, 10, 0, 0));
    const values: unknown[] = [];
    const tuples: string[] = [];
    for (let i = 0; i < 120; i++) {
      // 20 minutes of 10-second samples, the backlog growing by one batch every 20 s: 0 → 59.
      const time = new Date(at.getTime() - 20 * 60_000 + (i + 1) * 10_000 - 1);
      values.push(time, "org-a", server["org-a"], Math.floor(i / 2), Math.floor(i / 2) * 50_000);
      const b = values.length - 5;
      tuples.push(`($${b + 1}, $${b + 2}, $${b + 3}, 10, $${b + 5}, $${b + 4})`);
    }
    await db.pool.query(
      `INSERT INTO agent_spool (time, org_id, server_id, interval_seconds, spool_bytes, pending_batches) VALUES ${tuples.join(", ")}`,
      values,
    );
    await rollupPending(db.pool);
    await db.pool.query(
      `INSERT INTO alert_rules (org_id, name, signal, aggregation, comparison, threshold, window_seconds, for_seconds, resolve_seconds, no_data_seconds, scope, severity)
       VALUES ('org-a', 'Spool over 30, at once', 'agent.spool_pending_batches', 'avg', '>', 30, 900, 0, 0, 900, 'organization', 'warning')`,
    );
    await evaluateOrganization(db.pool, "org-a", at);
    const [fired] = await history(db, "org-a", "Spool over 30, at once");
    // The last 15 minutes hold samples 30..119: backlog 15..59, mean 37.
    assert.equal(fired?.to_state, "firing");
    assert.ok(Math.abs(fired.value - 37) < 0.01, `mean backlog ${fired.value}, want 37`);
    const state = (
      await db.pool.query(
        "SELECT s.state FROM alert_states s JOIN alert_rules r ON r.id = s.rule_id WHERE s.org_id = 'org-a' AND r.default_key = 'spool_growing'",
      )
    ).rows;
    assert.deepEqual(state, [{ state: "pending" }], "the default rule holds it 15 minutes first");
  });
});
