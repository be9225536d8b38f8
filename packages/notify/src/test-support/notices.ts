// Notices and settings for tests: a realistic firing alert, overridable field by field.
import type { AlertNotice } from "../notice.js";

export const serverA = "0b9d3c1e-7f6a-4c2b-9e4d-1a2b3c4d5e6f";

export function firingNotice(overrides: Partial<AlertNotice> = {}): AlertNotice {
  return {
    orgId: "org-a",
    transitionId: "event-1",
    rule: { id: "rule-latency", name: "p99 read latency high" },
    severity: "critical",
    state: { from: "pending", to: "firing" },
    subject: { serverId: serverA, serverName: "db-01", device: "nvme0n1", tags: ["prod", "db"] },
    value: 42.5,
    threshold: 20,
    comparison: ">",
    unit: "ms",
    basis: "p99 of eBPF block latency histograms, 5-minute window",
    startedAt: "2026-11-23T09:55:00.000Z",
    at: "2026-11-23T10:00:00.000Z",
    note: "Check the RAID controller's battery <and> the queue depth & scheduler.",
    linkPath: `/servers/${serverA}?from=2026-11-23T09:30:00Z&to=2026-11-23T10:30:00Z`,
    silenced: false,
    also: [],
    alsoUnlisted: 0,
    ...overrides,
  };
}
