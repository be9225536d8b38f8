import { isManagedPath, literalPrefix, matchesPattern } from "./paths.js";
import { formatBytes, type PathSegment, type ProblemCode } from "./problems.js";
import type { Policy } from "./schema.js";

// Cross-field rules: a well-formed policy whose fields contradict each other. They apply to the
// effective policy (after inheritance), never to a single layer. The Go agent has the same rules
// in agent/internal/policy/rules.go, in the same order.

export interface RuleProblem {
  path: PathSegment[];
  code: ProblemCode;
  message: string;
}

export function policyRuleProblems(policy: Policy): RuleProblem[] {
  return [
    ...duplicateProblems(policy),
    ...readCacheProblems(policy.readCache),
    ...writeOptimizationProblems(policy.writeOptimization),
    ...telemetryProblems(policy.telemetry),
  ];
}

function duplicateProblems(policy: Policy): RuleProblem[] {
  const lists: Array<[PathSegment[], readonly string[]]> = [
    [["readCache", "include"], policy.readCache.include],
    [["readCache", "exclude"], policy.readCache.exclude],
    [["readCache", "pin"], policy.readCache.pin],
    [["writeOptimization", "defragmentation", "include"], policy.writeOptimization.defragmentation.include],
    [["telemetry", "fragmentationScan", "paths"], policy.telemetry.fragmentationScan.paths],
  ];
  const problems: RuleProblem[] = [];
  for (const [path, list] of lists) {
    list.forEach((entry, index) => {
      const first = list.indexOf(entry);
      if (first !== index) {
        problems.push({
          path: [...path, index],
          code: "duplicate_entry",
          message: `repeats entry ${first} ("${entry}"): remove one of them`,
        });
      }
    });
  }
  const patterns = policy.writeOptimization.preallocation.map((rule) => rule.pattern);
  patterns.forEach((pattern, index) => {
    const first = patterns.indexOf(pattern);
    if (first !== index) {
      problems.push({
        path: ["writeOptimization", "preallocation", index, "pattern"],
        code: "duplicate_preallocation_pattern",
        message: `rule ${first} already preallocates "${pattern}": keep one rule per pattern with the chunk size you want`,
      });
    }
  });
  return problems;
}

function readCacheProblems(readCache: Policy["readCache"]): RuleProblem[] {
  const problems: RuleProblem[] = [];
  readCache.include.forEach((pattern, index) => {
    const shadowedBy = readCache.exclude.find((exclude) => exclude === pattern || matchesPattern(exclude, literalPrefix(pattern)));
    if (shadowedBy !== undefined) {
      problems.push({
        path: ["readCache", "include", index],
        code: "include_shadowed_by_exclude",
        message: `every file it matches is excluded by "${shadowedBy}" (exclude wins): remove one of the two`,
      });
    }
  });
  if (readCache.pin.length > 0 && !readCache.enabled) {
    problems.push({
      path: ["readCache", "pin"],
      code: "pin_requires_read_cache",
      message: "pins paths while readCache.enabled is false: enable the read cache or set pin to []",
    });
  }
  if (readCache.enabled && readCache.include.length === 0) {
    problems.push({
      path: ["readCache", "include"],
      code: "include_required",
      message: 'the read cache is enabled but manages no files: add at least one pattern, e.g. "/var/lib/postgresql/**"',
    });
  }
  if (readCache.enabled && readCache.include.length > 0) {
    readCache.pin.forEach((pin, index) => {
      const excludedBy = readCache.exclude.find((pattern) => matchesPattern(pattern, pin));
      if (excludedBy !== undefined) {
        problems.push({
          path: ["readCache", "pin", index],
          code: "pin_excluded",
          message: `is excluded by "${excludedBy}" and would never be cached: unpin it or narrow the exclude`,
        });
      } else if (!isManagedPath(readCache, pin)) {
        problems.push({
          path: ["readCache", "pin", index],
          code: "pin_not_included",
          message: "matches no include pattern: pinned paths must be managed by the cache, so add a pattern that covers it",
        });
      }
    });
  }
  if (readCache.budgetBytes !== null && readCache.scanResistanceThresholdBytes >= readCache.budgetBytes) {
    problems.push({
      path: ["readCache", "scanResistanceThresholdBytes"],
      code: "scan_threshold_exceeds_budget",
      message: `must be below budgetBytes (${formatBytes(readCache.budgetBytes)}), or one sequential scan can evict the whole hot set before it is dropped behind`,
    });
  }
  return problems;
}

function writeOptimizationProblems(write: Policy["writeOptimization"]): RuleProblem[] {
  const problems: RuleProblem[] = [];
  if (!write.enabled && write.preallocation.length > 0) {
    problems.push({
      path: ["writeOptimization", "preallocation"],
      code: "preallocation_requires_write_optimization",
      message: "lists rules while writeOptimization.enabled is false: enable write optimisation or set preallocation to []",
    });
  }
  const defragmentation = write.defragmentation;
  if (defragmentation.enabled && !write.enabled) {
    problems.push({
      path: ["writeOptimization", "defragmentation", "enabled"],
      code: "defragmentation_requires_write_optimization",
      message: "defragmentation is part of write optimisation: set writeOptimization.enabled to true as well",
    });
  }
  if (defragmentation.enabled && defragmentation.include.length === 0) {
    problems.push({
      path: ["writeOptimization", "defragmentation", "include"],
      code: "defragmentation_include_required",
      message: "defragmentation is enabled but may touch no files: list the patterns of files it may rewrite",
    });
  }
  return problems;
}

function telemetryProblems(telemetry: Policy["telemetry"]): RuleProblem[] {
  const scan = telemetry.fragmentationScan;
  if (scan.periodSeconds >= telemetry.intervalSeconds) return [];
  return [
    {
      path: ["telemetry", "fragmentationScan", "periodSeconds"],
      code: "fragmentation_period_below_interval",
      message: `must be at least telemetry.intervalSeconds (${telemetry.intervalSeconds}): results are only exported once per interval`,
    },
  ];
}
