// Scan, fragmentation, flash-tier and capability findings on hand-built evidence.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { missingCapabilityFindings } from "./capabilities.js";
import { flashTierFinding } from "./flash-tier.js";
import { defragmentFindings, growthPattern, idealExtents, preallocationFindings, type FragmentedFile } from "./fragmentation.js";
import { scanDropBehindFindings, type TopFile } from "./scan-drop-behind.js";
import { recommendationFindingSchema } from "./types.js";

const gib = 1024 ** 3;
const mib = 1024 ** 2;
const seenAt = new Date("2026-11-23T12:00:00Z");

describe("scan drop-behind", () => {
  const file = (path: string, accesses: number, misses: number, managed = false): TopFile => ({
    path,
    accesses,
    misses,
    intervalSeconds: 10,
    seenAt,
    managed,
  });
  const readCache = { enabled: true, scanResistanceThresholdBytes: 128 * mib };

  it("names the unmanaged file that is read once and holds most of the misses", () => {
    // backup.tar: 50,000 accesses, 49,000 missed (98 %), 49,000 × 4 KiB = 191.4 MiB > 128 MiB; share 49,000 / 50,000 = 98 %
    const findings = scanDropBehindFindings({
      serverId: "s",
      readCache,
      topFiles: [
        file("/srv/backup.tar", 50_000, 49_000),
        file("/srv/db/hot.dat", 90_000, 1_000),
        file("inode:8:12", 60_000, 59_000, false),
      ],
    });
    assert.equal(findings.length, 1);
    const [finding] = findings;
    assert.deepEqual(finding!.change, { type: "add_read_cache_include", pattern: "/srv/backup.tar" });
    // total misses 49,000 + 1,000 + 59,000 = 109,000; the inode entry counts in the total but cannot be named
    assert.ok(Math.abs(finding!.prediction.before! - 49_000 / 109_000) < 1e-12);
    assert.match(finding!.prediction.summary, /^45 % of the page-cache misses/);
    assert.equal(finding!.evidence.window.from, "2026-11-23T11:59:50.000Z");
    recommendationFindingSchema.parse(finding);
  });

  it("leaves alone managed files, small scans, files that hit, and a disabled cache", () => {
    assert.equal(scanDropBehindFindings({ serverId: "s", readCache, topFiles: [file("/a", 50_000, 49_000, true)] }).length, 0);
    assert.equal(scanDropBehindFindings({ serverId: "s", readCache, topFiles: [file("/a", 1_000, 1_000)] }).length, 0); // 3.9 MiB
    assert.equal(scanDropBehindFindings({ serverId: "s", readCache, topFiles: [file("/a", 100_000, 80_000)] }).length, 0); // 80 % missed
    assert.equal(
      scanDropBehindFindings({ serverId: "s", readCache: { ...readCache, enabled: false }, topFiles: [file("/a", 50_000, 49_000)] }).length,
      0,
    );
  });
});

describe("fragmentation findings", () => {
  const worst = (path: string, extents: number, sizeBytes: number, extra: Partial<FragmentedFile> = {}): FragmentedFile => ({
    root: "/var/lib/app",
    path,
    extents,
    sizeBytes,
    seenAt,
    preallocated: false,
    defragmented: false,
    ...extra,
  });
  const roots = [
    { root: "/var/lib/app", firstExcessExtents: 100, lastExcessExtents: 400, from: new Date("2026-11-16T12:00:00Z"), to: seenAt, scans: 8 },
  ];

  it("knows ext4's fewest extents and the growth pattern", () => {
    assert.equal(idealExtents(1 * gib), 8);
    assert.equal(idealExtents(1), 1);
    assert.equal(growthPattern("/var/lib/app/logs/a.log"), "/var/lib/app/logs/*.log");
    assert.equal(growthPattern("/var/lib/app/journal"), "/var/lib/app/journal");
  });

  it("proposes one preallocation rule per directory and extension that keeps fragmenting", () => {
    const findings = preallocationFindings({
      serverId: "s",
      extentThreshold: 16,
      roots,
      worstFiles: [
        worst("/var/lib/app/logs/a.log", 300, 1 * gib), // excess 300 - 8 = 292
        worst("/var/lib/app/logs/b.log", 40, 256 * mib), // excess 40 - 2 = 38
        worst("/var/lib/app/logs/c.log", 30, 256 * mib, { preallocated: true }),
        worst("/var/lib/app/data.db", 10, 1 * gib), // under the threshold
      ],
    });
    assert.equal(findings.length, 1);
    assert.deepEqual(findings[0]!.change, { type: "add_preallocation_rule", pattern: "/var/lib/app/logs/*.log", chunkBytes: 64 * mib });
    assert.equal(findings[0]!.prediction.before, 330);
    assert.match(findings[0]!.prediction.summary, /^these 2 files hold 340 extents \(330 more than ext4 needs\)/);
    recommendationFindingSchema.parse(findings[0]);
  });

  it("proposes nothing where the root stopped fragmenting", () => {
    const still = [{ ...roots[0]!, lastExcessExtents: 100 }];
    assert.equal(
      preallocationFindings({ serverId: "s", extentThreshold: 16, roots: still, worstFiles: [worst("/var/lib/app/x.log", 300, gib)] })
        .length,
      0,
    );
  });

  it("defragments a hot fragmented file, not a cold one", () => {
    const findings = defragmentFindings({
      serverId: "s",
      extentThreshold: 16,
      worstFiles: [worst("/var/lib/app/hot.db", 500, 2 * gib), worst("/var/lib/app/cold.db", 500, 2 * gib)],
      hotFiles: new Map([["/var/lib/app/hot.db", 12_345]]),
    });
    assert.equal(findings.length, 1);
    assert.deepEqual(findings[0]!.change, { type: "add_defragmentation_include", pattern: "/var/lib/app/hot.db" });
    // 2 GiB / 128 MiB = 16 extents at best
    assert.equal(findings[0]!.prediction.before, 484);
    assert.equal(findings[0]!.prediction.after, 0);
    assert.match(findings[0]!.prediction.summary, /^500 extents → 16/);
  });
});

describe("flash tier", () => {
  const curve = {
    sizesBytes: [16 * gib, 32 * gib, 64 * gib, 128 * gib],
    hitRatios: [0.2, 0.45, 0.62, 0.625],
    sampleRate: 0.01,
    sampledAccesses: 50_000,
    windowFrom: new Date("2026-11-16T12:00:00Z"),
    windowTo: seenAt,
  };

  it("sizes the tier at the knee of the block curve and offers no Apply", () => {
    const finding = flashTierFinding("s", "nvme0n1", curve)!;
    assert.equal(finding.title, "A 64 GiB flash tier in front of nvme0n1 would serve 62 % of its I/O");
    assert.equal(finding.change, null);
    assert.equal(finding.confidence.level, "medium");
    assert.match(finding.steps, /at least 64 GiB in front of nvme0n1/);
  });

  it("stays quiet when even the largest size serves little", () => {
    assert.equal(flashTierFinding("s", "sda", { ...curve, hitRatios: [0.05, 0.1, 0.2, 0.25] }), null);
  });
});

describe("missing capabilities", () => {
  const catalogue = new Map([
    ["ebpf.page_cache", { label: "Page-cache hits and misses (eBPF)", whenMissing: "needs kernel 6.10" }],
    ["postgresql.statistics", { label: "PostgreSQL statistics", whenMissing: "set databases.postgresql.dsn in agent.yaml" }],
  ]);
  const base = { serverId: "s", reportedAt: seenAt, catalogue, hadPostgresqlStatistics: false };

  it("turns eBPF back on by policy when the policy turned it off", () => {
    const [finding] = missingCapabilityFindings({ ...base, reported: ["psi.pressure"], ebpfMode: "off" });
    assert.deepEqual(finding!.change, { type: "set_telemetry_ebpf", mode: "auto" });
    assert.equal(finding!.title, "Enable Page-cache hits and misses (eBPF)");
  });

  it("gives the catalogue's step when the kernel is the reason, and PostgreSQL only where it was connected before", () => {
    const findings = missingCapabilityFindings({ ...base, reported: [], ebpfMode: "auto", hadPostgresqlStatistics: true });
    assert.deepEqual(
      findings.map((f) => [f.subject, f.change, f.steps]),
      [
        ["ebpf.page_cache", null, "needs kernel 6.10"],
        ["postgresql.statistics", null, "set databases.postgresql.dsn in agent.yaml"],
      ],
    );
    assert.equal(missingCapabilityFindings({ ...base, reported: ["ebpf.page_cache"], ebpfMode: "auto" }).length, 0);
  });
});
