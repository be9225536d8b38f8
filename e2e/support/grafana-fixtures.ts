// One organisation's sample of every family the Grafana dashboards draw, written through the raw
// tables so that either time-series path (worker rollups or continuous aggregates) derives the
// aggregates the panels read. Six 10-second samples from 00:00:10 to 00:01:00 on 2026-01-01.
// Values are test constants, not user input, so they are inlined as SQL literals.

export interface GrafanaFixture {
  orgId: string;
  serverId: string;
  hostname: string;
}

const samples = "generate_series(0, 5) AS i";
const at = "'2026-01-01T00:00:10Z'::timestamptz + i * interval '10 s'";
const buckets = (counts: Record<number, number>) => Array.from({ length: 28 }, (_, i) => String(counts[i] ?? 0)).join(", ");

/** The statements that seed one organisation, its server and a sample of every family. */
export function grafanaFixtureSql({ orgId, serverId, hostname }: GrafanaFixture): string[] {
  const o = `'${orgId}'`;
  const s = `'${serverId}'`;
  return [
    `INSERT INTO organizations (id, name, slug) VALUES (${o}, ${o}, ${o})`,
    `INSERT INTO servers (id, org_id, machine_id, hostname, os) VALUES (${s}, ${o}, ${s}, '${hostname}', 'linux')`,
    // 100 read IOPS at 2 ms and 50 write IOPS at 4 ms on vda.
    `INSERT INTO disk_io SELECT ${at}, ${o}, ${s}, 'vda', 10, 1000, 500, 4096000, 2048000, 0, 0, 2000, 2000, 5000, 7000, 1 FROM ${samples}`,
    `INSERT INTO memory SELECT ${at}, ${o}, ${s}, 8e9, 4e9, 1e9, 2e9, 1e8, 1e7, 0, 0 FROM ${samples}`,
    // Per sample: reads 90 in (512, 1024] µs (bucket 10) and 10 in (4096, 8192] µs (bucket 13).
    `INSERT INTO disk_latency (time, org_id, server_id, device, operation, interval_seconds, operations, sum_seconds,
       ${Array.from({ length: 28 }, (_, i) => `bucket_${String(i).padStart(2, "0")}`).join(", ")})
     SELECT ${at}, ${o}, ${s}, 'vda', 'read', 10, 100, 0.1, ${buckets({ 10: 90, 13: 10 })} FROM ${samples}`,
    // Per sample: 50 writes in (2048, 4096] µs (bucket 12), from an agent that did not count untimed writes.
    `INSERT INTO disk_latency (time, org_id, server_id, device, operation, interval_seconds, operations, sum_seconds,
       ${Array.from({ length: 28 }, (_, i) => `bucket_${String(i).padStart(2, "0")}`).join(", ")})
     SELECT ${at}, ${o}, ${s}, 'vda', 'write', 10, 50, 0.15, ${buckets({ 12: 50 })} FROM ${samples}`,
    // Per sample: 5 reads the disk completed that no histogram holds (spindle.disk.io.untimed).
    `INSERT INTO disk_io_untimed SELECT ${at}, ${o}, ${s}, 'vda', 'read', 10, 5 FROM ${samples}`,
    `INSERT INTO disk_split_io SELECT ${at}, ${o}, ${s}, 'vda', 10, 150 FROM ${samples}`,
    `INSERT INTO page_cache SELECT ${at}, ${o}, ${s}, 10, 1000, 100 FROM ${samples}`,
    `INSERT INTO pg_database_stats SELECT ${at}, ${o}, ${s}, 'app', 10, 500, 5, 9000, 1000, 20000 FROM ${samples}`,
    `INSERT INTO pressure SELECT ${at}, ${o}, ${s}, 10, 1000000, 0, 2500000, 500000 FROM ${samples}`,
    // The first SQL Server sample has no batch count and no hit ratio yet (not measured).
    `INSERT INTO sqlserver_stats SELECT ${at}, ${o}, ${s}, 'MSSQLSERVER', 10, CASE WHEN i = 0 THEN NULL ELSE 4000 END,
       CASE WHEN i = 0 THEN NULL ELSE 0.99 END, 600 FROM ${samples}`,
    `INSERT INTO fragmentation_scans VALUES ('2026-01-01T00:00:30Z', ${o}, ${s}, '/data', 100, 25, 400, 300, 0, 1200)`,
    `INSERT INTO fragmentation_worst_files VALUES (${o}, ${s}, '/data', '/data/big.db', 120, 1073741824, '2026-01-01T00:00:30Z')`,
    `INSERT INTO page_cache_top_files VALUES (${o}, ${s}, '/data/big.db', 800, 80, 10, '2026-01-01T00:01:00Z')`,
    `INSERT INTO read_cache (time, org_id, server_id, interval_seconds, budget_bytes, resident_bytes, pinned_bytes, managed_files,
       hits_bytes, misses_bytes, prefetched_bytes, dropped_behind_bytes, backoffs, memory_read_latency_seconds, memory_read_latency_samples)
     SELECT ${at}, ${o}, ${s}, 10, 1073741824, 536870912, 0, 3, 3000000, 1000000, 500000, 0, 0, 0.000002, 1000 FROM ${samples}`,
    // Per sample: managed 900 page accesses / 90 misses, control 100 / 30 (10 % held out).
    `INSERT INTO read_cache_holdout (time, org_id, server_id, interval_seconds, holdout_percent, managed_accessed_bytes, managed_missed_bytes,
       control_accessed_bytes, control_missed_bytes, own_read_bytes, own_page_hit_bytes)
     SELECT ${at}, ${o}, ${s}, 10, 10, 3686400, 368640, 409600, 122880, 0, 0 FROM ${samples}`,
    // Per sample and hash bucket: managed 56 page accesses / 5 misses, control 6 / 2.
    `INSERT INTO read_cache_holdout_bucket (time, org_id, server_id, hash_bucket, interval_seconds, managed_accessed_bytes,
       managed_missed_bytes, control_accessed_bytes, control_missed_bytes)
     SELECT ${at}, ${o}, ${s}, b, 10, 229376, 20480, 24576, 8192 FROM ${samples} CROSS JOIN generate_series(0, 15) AS b`,
    `INSERT INTO write_opt (time, org_id, server_id, interval_seconds, preallocated_bytes, fragments_prevented, files_defragmented,
       managed_grown_bytes, managed_extents_added, unmanaged_grown_bytes, unmanaged_extents_added)
     SELECT ${at}, ${o}, ${s}, 10, 1048576, 4, 0, 1073741824, 1, 1073741824, 16 FROM ${samples}`,
    `INSERT INTO write_opt_trimmed (time, org_id, server_id, interval_seconds, trimmed_bytes) SELECT ${at}, ${o}, ${s}, 10, 524288 FROM ${samples}`,
    `INSERT INTO write_opt_files VALUES (${o}, ${s}, '/data/wal.log', 2, '2026-01-01T00:01:00Z')`,
    `INSERT INTO cache_mrc (org_id, server_id, time, window_seconds, curve, scope, sample_rate, sampled_accesses, sizes_bytes, hit_ratios)
     VALUES (${o}, ${s}, '2026-01-01T00:01:00Z', 60, 'page_cache', '', 0.01, 5000, '{1048576,2097152}', '{0.5,0.75}')`,
    `INSERT INTO alert_rules (id, org_id, name, signal, aggregation, comparison, threshold, window_seconds, scope, severity)
     VALUES (md5(${s})::uuid, ${o}, 'Slow reads', 'disk.read_latency', 'avg', '>', 1, 300, 'organization', 'warning')`,
    `INSERT INTO alert_states (org_id, rule_id, server_id, component, state, state_since, value, updated_at)
     VALUES (${o}, md5(${s})::uuid, ${s}, 'vda', 'firing', '2026-01-01T00:01:00Z', 2, '2026-01-01T00:01:00Z')`,
    `INSERT INTO alert_history (org_id, rule_id, rule_name, severity, server_id, component, at, from_state, to_state, value, threshold, comparison)
     VALUES (${o}, md5(${s})::uuid, 'Slow reads', 'warning', ${s}, 'vda', '2026-01-01T00:01:00Z', 'pending', 'firing', 2, 1, '>')`,
  ];
}

/** The continuous aggregates (TimescaleDB path) the panels read, finest first. */
export const continuousAggregates = [
  "disk_io_1m",
  "memory_1m",
  "disk_latency_1m",
  "disk_io_untimed_1m",
  "disk_split_io_1m",
  "page_cache_1m",
  "pg_database_stats_1m",
  "sqlserver_stats_1m",
  "pressure_1m",
  "read_cache_1m",
  "read_cache_holdout_1m",
  "read_cache_holdout_bucket_1m",
  "write_opt_1m",
  "write_opt_trimmed_1m",
];

/**
 * Rows of one organisation in every tenant relation the dashboards do not draw, so that a test
 * reading every relation as another organisation's Grafana login has something to leak.
 * (A relation Grafana can read without a row here fails grafana-tenant-binding.test.ts by name.)
 */
export function tenantRowsSql({ orgId, serverId }: GrafanaFixture): string[] {
  const o = `'${orgId}'`;
  const s = `'${serverId}'`;
  const policy = `md5(${o} || 'policy')::uuid`;
  const hash = `md5(${o}) || md5(${o})`;
  const rollout = `md5(${o} || 'rollout')::uuid`;
  const upgrade = `md5(${o} || 'upgrade')::uuid`;
  return [
    `INSERT INTO agents (org_id, server_id, credential_hash) VALUES (${o}, ${s}, sha256(${o}::bytea))`,
    `INSERT INTO enrollment_tokens (org_id, token_hash, token_hint, expires_at) VALUES (${o}, sha256((${o} || 'token')::bytea), 'spe_…', now() + interval '1 h')`,
    `INSERT INTO audit_log (org_id, action, target) VALUES (${o}, 'server.renamed', ${s})`,
    `INSERT INTO notification_channels (org_id, name, kind, secrets) VALUES (${o}, 'On call', 'webhook', '{"signingSecret": "sealed"}')`,
    `INSERT INTO agent_spool SELECT ${at}, ${o}, ${s}, 10, 4096, 2 FROM ${samples}`,
    `INSERT INTO filesystem SELECT ${at}, ${o}, ${s}, '/data', 'vda1', 'ext4', 10, 1e9, 5e8, 4e8 FROM ${samples}`,
    `INSERT INTO alert_evaluation_progress (org_id, evaluated_at) VALUES (${o}, '2026-01-01T00:01:00Z')`,
    `INSERT INTO alert_silences (org_id, scope, server_id, starts_at, ends_at, comment)
     VALUES (${o}, 'server', ${s}, '2026-01-01T00:00:00Z', '2026-01-02T00:00:00Z', 'maintenance')`,
    `INSERT INTO proof_runs (org_id, server_id, profile, parameters) VALUES (${o}, ${s}, 'sqlio', '{}')`,
    `INSERT INTO cumulative_series (org_id, server_id, series_key, start_unix_nano, last_unix_nano, last_int)
     VALUES (${o}, ${s}, 'system.disk.io|vda|read', 1, 2, 3)`,
    `INSERT INTO policies (id, org_id, name) VALUES (${policy}, ${o}, 'Databases')`,
    `INSERT INTO policy_versions (policy_id, org_id, version, document) VALUES (${policy}, ${o}, 1, '{"schemaVersion": 1}')`,
    `INSERT INTO policy_assignments (org_id, policy_id, scope, server_id) VALUES (${o}, ${policy}, 'server', ${s})`,
    `INSERT INTO server_policy_status (org_id, server_id, desired_version_hash) VALUES (${o}, ${s}, ${hash})`,
    `INSERT INTO server_effective_policies (org_id, server_id, document, hash) VALUES (${o}, ${s}, '{"schemaVersion": 1}', ${hash})`,
    `INSERT INTO recommendations (org_id, server_id, kind, subject, title, evidence, prediction, confidence)
     VALUES (${o}, ${s}, 'flash_tier', 'vda', 'Add a flash tier', '{}', '{}', '{}')`,
    // Staged rollouts (issue 23), chart marks and the fleet's latency summary (issue 27), agent upgrades (issue 26).
    `INSERT INTO org_rollout_settings (org_id) VALUES (${o})`,
    `INSERT INTO rollouts (id, org_id, kind, title, policy_id, policy_version, plan) VALUES (${rollout}, ${o}, 'policy_version', 'Databases v1', ${policy}, 1, '{}')`,
    `INSERT INTO rollout_slots (org_id, rollout_id, scope, server_id) VALUES (${o}, ${rollout}, 'server', ${s})`,
    `INSERT INTO rollout_waves (org_id, rollout_id, wave, label) VALUES (${o}, ${rollout}, 0, 'canary')`,
    `INSERT INTO rollout_servers (org_id, rollout_id, server_id, wave) VALUES (${o}, ${rollout}, ${s}, 0)`,
    `INSERT INTO rollout_events (org_id, rollout_id, kind, message) VALUES (${o}, ${rollout}, 'rollout.started', 'started')`,
    `INSERT INTO server_events (org_id, server_id, at, kind) VALUES (${o}, ${s}, '2026-01-01T00:00:30Z', 'policy.applied')`,
    `INSERT INTO server_read_latency (org_id, server_id, window_start, window_end, reads, buckets)
     VALUES (${o}, ${s}, '2026-01-01T00:00:00Z', '2026-01-01T00:01:00Z', 100, array_fill(0::double precision, ARRAY[27]) || 100::double precision)`,
    `INSERT INTO agent_version_pins (org_id, server_id, version) VALUES (${o}, ${s}, '0.1.0')`,
    `INSERT INTO agent_upgrade_rollouts (id, org_id, target_version, scope, plan, wave_count) VALUES (${upgrade}, ${o}, '0.1.1', '{}', '{}', 1)`,
    `INSERT INTO agent_upgrades (org_id, server_id, rollout_id, wave, target_version) VALUES (${o}, ${s}, ${upgrade}, 0, '0.1.1')`,
    `INSERT INTO agent_upgrade_waves (org_id, rollout_id, wave, verdict, readings_at, after_start, after_end, before_start, before_end)
     VALUES (${o}, ${upgrade}, 0, 'hold', now(), now(), now(), now(), now())`,
  ];
}

/**
 * Plain PostgreSQL only: a range in the worker's queue of ranges to roll up (after the rollup
 * that empties it), so that the queue, a tenant table too, has a row of the organisation.
 */
export function rollupQueueRowSql({ orgId, serverId }: GrafanaFixture): string {
  return `INSERT INTO rollup_pending (source, org_id, server_id, first_time, last_time)
    VALUES ('disk_io', '${orgId}', '${serverId}', '2026-01-01T00:00:00Z', '2026-01-01T00:01:00Z')`;
}
