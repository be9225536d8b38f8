// Problems are the one error shape of the policy contract: the console shows them inline, the
// agent returns them in RemoteConfigStatus. Codes are stable API: the Go agent returns the same
// codes and paths (agent/internal/policy/problems.go), and the shared vectors pin both.

/** Codes for a document that does not have the right shape. */
export const structuralProblemCodes = [
  "invalid_json",
  "invalid_type",
  "required",
  "unknown_field",
  "not_integer",
  "too_small",
  "too_big",
  "invalid_value",
  "unsupported_schema_version",
  "path_too_long",
  "backslash_in_path",
  "not_absolute_path",
  "path_not_clean",
  "invalid_glob",
  "glob_too_complex",
  "glob_not_allowed",
] as const;

/** Codes for a well-formed document whose fields contradict each other (checked only when well-formed). */
export const ruleProblemCodes = [
  "duplicate_entry",
  "duplicate_preallocation_pattern",
  "include_required",
  "include_shadowed_by_exclude",
  "pin_requires_read_cache",
  "pin_not_included",
  "pin_excluded",
  "scan_threshold_exceeds_budget",
  "preallocation_requires_write_optimization",
  "defragmentation_requires_write_optimization",
  "defragmentation_include_required",
  "fragmentation_period_below_interval",
] as const;

export type ProblemCode = (typeof structuralProblemCodes)[number] | (typeof ruleProblemCodes)[number];

export type PathSegment = string | number;

export interface Problem {
  /** Where the problem is, e.g. "readCache.pin[2]"; "" for the document itself. */
  path: string;
  code: ProblemCode;
  /** A sentence a person can act on, without the path (shown beside the field). */
  message: string;
}

const identifier = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** ["readCache", "pin", 2] → "readCache.pin[2]"; odd keys are quoted: ["a.b"] → '["a.b"]'. */
export function formatPath(segments: readonly PathSegment[]): string {
  let out = "";
  for (const segment of segments) {
    if (typeof segment === "number") out += `[${segment}]`;
    else if (identifier.test(segment)) out += out === "" ? segment : `.${segment}`;
    else out += `[${JSON.stringify(segment)}]`;
  }
  return out;
}

/** Sorts list indexes as numbers: "pin[2]" before "pin[10]". */
function pathSortKey(path: string): string {
  return path.replace(/\[(\d+)\]/g, (_, index: string) => `[${index.padStart(10, "0")}]`);
}

/**
 * Problems in the contract's order, which the Go agent keeps too: by path (list indexes compared
 * as numbers), then by code; exact repeats of a path and code removed.
 */
export function sortProblems(problems: readonly Problem[]): Problem[] {
  const seen = new Set<string>();
  const keyed = problems
    .filter((problem) => {
      const key = `${problem.path}\u0000${problem.code}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    })
    .map((problem) => ({ problem, key: pathSortKey(problem.path) }));
  keyed.sort((a, b) => compare(a.key, b.key) || compare(a.problem.code, b.problem.code));
  return keyed.map(({ problem }) => problem);
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** One line per problem, for logs and the agent's FAILED message. */
export function describeProblems(problems: readonly Problem[]): string {
  return problems.map((problem) => `${problem.path === "" ? "policy" : problem.path}: ${problem.message}`).join("\n");
}

const mebibyte = 1024 * 1024;

/** 67108864 → "64 MiB"; used in messages so limits read in the unit people think in. */
export function formatBytes(bytes: number): string {
  const units = ["bytes", "KiB", "MiB", "GiB", "TiB", "PiB"];
  let value = bytes;
  let unit = 0;
  while (unit < units.length - 1 && value >= 1024 && value % 1024 === 0) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${bytes} bytes` : `${value} ${units[unit]}`;
}

/** A limit in a message: bytes fields in binary units, everything else as a plain number. */
export function formatLimit(fieldName: PathSegment | undefined, limit: number): string {
  return typeof fieldName === "string" && fieldName.endsWith("Bytes") && limit >= mebibyte
    ? `${formatBytes(limit)} (${limit})`
    : String(limit);
}
