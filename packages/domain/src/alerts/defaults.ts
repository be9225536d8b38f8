// The rules every organisation gets, seeded by the worker (editable, can be turned off).
// Thresholds and durations are chosen so a healthy fleet stays quiet: each fires only on a
// sustained condition that needs a person, and resolves only after it has been clear for a
// while. docs/alerts.md lists them with the reasoning; a test checks they all parse.
import type { AlertCondition, AlertSeverity } from "./schema.js";

export interface DefaultAlertRule extends AlertCondition {
  /** Stable key: alert_rules.default_key. */
  key: string;
  name: string;
  severity: AlertSeverity;
  note: string;
}

/** Raise when defaultAlertRules gains a rule, so existing organisations receive it. */
export const defaultAlertRulesVersion = 3;

const minute = 60;

export const defaultAlertRules: readonly DefaultAlertRule[] = [
  {
    key: "agent_offline", name: "Agent offline", severity: "critical",
    signal: "agent.seconds_since_data", aggregation: "last", comparison: ">", threshold: 180,
    windowSeconds: 5 * minute, forSeconds: minute, resolveSeconds: minute, noDataSeconds: 10 * minute,
    note: "No telemetry for 3 minutes (18 intervals of 10 s). Check that the server is up, that `systemctl status spindle-agent` is active, and that it reaches the gateway (`spindle-agent status`). The agent spools while the gateway is unreachable and sends the backlog when it is back.",
  },
  {
    key: "read_latency_p99", name: "p99 read latency high", severity: "warning",
    signal: "disk.read_latency", aggregation: "p99", comparison: ">", threshold: 250,
    windowSeconds: 5 * minute, forSeconds: 10 * minute, resolveSeconds: 10 * minute, noDataSeconds: 15 * minute,
    note: "1 % of reads on this device took longer than 250 ms for 10 minutes. Look at the device's queue depth and utilisation, the I/O pressure of the server, and which processes read most.",
  },
  {
    key: "write_latency_p99", name: "p99 write latency high", severity: "warning",
    signal: "disk.write_latency", aggregation: "p99", comparison: ">", threshold: 500,
    windowSeconds: 5 * minute, forSeconds: 10 * minute, resolveSeconds: 10 * minute, noDataSeconds: 15 * minute,
    note: "1 % of writes on this device took longer than 500 ms for 10 minutes. Check for a write burst (dirty memory being flushed), a failing or rebuilding disk, or a full write cache on the controller.",
  },
  {
    key: "device_saturated", name: "Device saturated", severity: "warning",
    signal: "disk.saturation_queue_depth", aggregation: "avg", comparison: ">", threshold: 16,
    windowSeconds: 5 * minute, forSeconds: 15 * minute, resolveSeconds: 10 * minute, noDataSeconds: 15 * minute,
    note: "The device was busy over 90 % of the time with more than 16 I/Os waiting on average, for 15 minutes: it cannot keep up. Find the processes behind the load, move data, or add a read cache policy for the hot files.",
  },
  {
    key: "page_cache_hit_collapse", name: "Page-cache hit ratio collapsed", severity: "warning",
    signal: "page_cache.hit_ratio", aggregation: "avg", comparison: "<", threshold: 50,
    windowSeconds: 5 * minute, forSeconds: 15 * minute, resolveSeconds: 10 * minute, noDataSeconds: 15 * minute,
    note: "Fewer than half of page-cache lookups hit, for 15 minutes, with real read traffic. Memory may be short (see pressure and available memory) or a scan is evicting the working set; a read cache policy with drop-behind protects it.",
  },
  {
    key: "split_io_high", name: "Split I/O high", severity: "info",
    signal: "disk.split_io_share", aggregation: "avg", comparison: ">", threshold: 20,
    windowSeconds: 5 * minute, forSeconds: 15 * minute, resolveSeconds: 15 * minute, noDataSeconds: 15 * minute,
    note: "More than one bio in five is split by the block layer, for 15 minutes: fragmented files or misaligned, oversized requests. Check fragmentation of the busiest files and consider a write optimisation policy.",
  },
  {
    key: "fragmentation_growing", name: "Fragmentation growing", severity: "info",
    signal: "fragmentation.excess_extents_growth", aggregation: "last", comparison: ">", threshold: 25,
    windowSeconds: 24 * 60 * minute, forSeconds: 0, resolveSeconds: 60 * minute, noDataSeconds: 2 * 24 * 60 * minute,
    note: "Excess extents under this scanned root grew by more than a quarter in a day. Growing files are being allocated piecemeal: enable write optimisation (preallocation) for them, and defragment the worst files (see the fragmentation panel).",
  },
  {
    key: "read_cache_backoff", name: "Read cache shrinking under memory pressure", severity: "warning",
    signal: "read_cache.backoffs", aggregation: "sum", comparison: ">=", threshold: 3,
    windowSeconds: 15 * minute, forSeconds: 15 * minute, resolveSeconds: 15 * minute, noDataSeconds: 15 * minute,
    note: "The managed read cache gave memory back three times or more in 15 minutes, for 15 minutes: applications need the memory. Lower the cache budget in the policy or add memory; the cache's gains shrink meanwhile.",
  },
  {
    key: "policy_failed", name: "Policy failed on a server", severity: "warning",
    signal: "policy.failed", aggregation: "last", comparison: ">=", threshold: 1,
    windowSeconds: 5 * minute, forSeconds: 0, resolveSeconds: 0, noDataSeconds: 10 * minute,
    note: "The agent refused or rolled back the policy it was sent and kept its last good one. The server's policy panel shows the agent's message; fix the policy or its assignment.",
  },
  {
    key: "rollout_rolled_back", name: "Policy rollout rolled back", severity: "warning",
    signal: "policy.rolled_back", aggregation: "last", comparison: ">=", threshold: 1,
    windowSeconds: 5 * minute, forSeconds: 0, resolveSeconds: 0, noDataSeconds: 10 * minute,
    note: "A staged rollout rolled this server back to the policy it had before and paused: a guard saw a regression (the rollout page says which, with its reading), or a person rolled it back. Resume the rollout once the cause is understood, or abort it.",
  },
  {
    key: "ebpf_lost", name: "eBPF measurement stopped", severity: "warning",
    signal: "agent.ebpf_capabilities_lost", aggregation: "last", comparison: ">", threshold: 0,
    windowSeconds: 24 * 60 * minute, forSeconds: 5 * minute, resolveSeconds: 5 * minute, noDataSeconds: 10 * minute,
    note: "The server sent eBPF data (latency histograms, split I/O or page-cache hits) in the last day but its newest batches say it no longer can: usually a kernel update without BTF, or the agent restarted without root. The server's capabilities panel says why.",
  },
  {
    key: "disk_filling_up", name: "Disk filling up", severity: "warning",
    signal: "filesystem.hours_until_full", aggregation: "last", comparison: "<", threshold: 24,
    windowSeconds: 6 * 60 * minute, forSeconds: 60 * minute, resolveSeconds: 30 * minute, noDataSeconds: 60 * minute,
    note: "At the rate of the last 6 hours this file system is full within a day, and less than 40 % of it is available. Find what grows (`du -xsh` under the mount point, logs, database files, the spool), free or add space before writes start failing.",
  },
  {
    key: "spool_growing", name: "Spool growing on an agent", severity: "warning",
    signal: "agent.spool_pending_batches", aggregation: "avg", comparison: ">", threshold: 30,
    windowSeconds: 15 * minute, forSeconds: 15 * minute, resolveSeconds: 10 * minute, noDataSeconds: 15 * minute,
    note: "The agent holds more than 30 unacknowledged batches (5 minutes of telemetry at 10 s) on average, for 15 minutes, while still delivering: the gateway is refusing or slowing its batches (429 overload, rejected batches, a slow link). Check `spindle-agent status` for the last export error and the gateway's logs; the spool is bounded, and the oldest batches are dropped when it is full.",
  },
];
