// Every generator of @spindle/domain on one server's evidence. The worker decides which curve
// stands for the read cache (its own scope's, else the whole page cache's) and which files the
// effective policy already manages; the generators do the rest.
import {
  capabilityCatalogue,
  defragmentFindings,
  flashTierFinding,
  missingCapabilityFindings,
  preallocationFindings,
  readCacheBudgetFinding,
  recommendationFindingSchema,
  scanDropBehindFindings,
  type BudgetCurve,
  type RecommendationFinding,
} from "@spindle/domain";
import { isManagedPath, matchesPattern } from "@spindle/policy";
import type { ServerEvidence } from "./evidence.js";

const catalogue = new Map(capabilityCatalogue.map((c) => [c.name, { label: c.label, whenMissing: c.whenMissing }]));

function budgetCurve(evidence: ServerEvidence): BudgetCurve | null {
  const own = evidence.curves.filter((c) => c.curve === "read_cache").sort((a, b) => b.sampledAccesses - a.sampledAccesses)[0];
  const whole = evidence.curves.find((c) => c.curve === "page_cache");
  const chosen = own ?? whole;
  return chosen ? { ...chosen, curve: chosen.curve as BudgetCurve["curve"] } : null;
}

export function findingsForServer(evidence: ServerEvidence): RecommendationFinding[] {
  const { policy, serverId } = evidence;
  const readCache = policy.readCache;
  const write = policy.writeOptimization;
  const worstFiles = evidence.worstFiles.map((file) => ({
    ...file,
    preallocated: write.enabled && write.preallocation.some((rule) => matchesPattern(rule.pattern, file.path)),
    defragmented:
      write.enabled && write.defragmentation.enabled && write.defragmentation.include.some((pattern) => matchesPattern(pattern, file.path)),
  }));
  const extentThreshold = write.defragmentation.extentThreshold;
  const findings: (RecommendationFinding | null)[] = [
    readCacheBudgetFinding({
      serverId,
      curve: budgetCurve(evidence),
      readCache,
      currentBudgetBytes: evidence.currentBudgetBytes,
      availableMemory: evidence.availableMemory,
    }),
    ...scanDropBehindFindings({
      serverId,
      readCache,
      topFiles: evidence.topFiles.map((file) => ({ ...file, managed: isManagedPath(readCache, file.path) })),
    }),
    ...preallocationFindings({ serverId, extentThreshold, worstFiles, roots: evidence.roots }),
    ...defragmentFindings({ serverId, extentThreshold, worstFiles, hotFiles: new Map(evidence.topFiles.map((f) => [f.path, f.accesses])) }),
    ...evidence.curves.filter((c) => c.curve === "block").map((c) => flashTierFinding(serverId, c.scope, c)),
    ...(evidence.capabilities
      ? missingCapabilityFindings({
          serverId,
          reported: evidence.capabilities.reported,
          reportedAt: evidence.capabilities.reportedAt,
          ebpfMode: policy.telemetry.ebpf,
          catalogue,
          hadPostgresqlStatistics: evidence.hadPostgresqlStatistics,
        })
      : []),
  ];
  // The generators' output is what the console will parse back: check it here, before it is stored.
  return findings.filter((f): f is RecommendationFinding => f !== null).map((f) => recommendationFindingSchema.parse(f));
}
