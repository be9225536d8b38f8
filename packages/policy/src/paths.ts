// Path and glob rules shared by every path field of a policy. The Go agent implements the same
// rules in agent/internal/policy/paths.go; vectors/path-matching.json keeps the two in step.

/** Longest path or pattern accepted, in bytes of UTF-8 (Linux PATH_MAX). */
export const maxPathBytes = 4096;

/** What a path field holds: a glob pattern (include, exclude, preallocation) or a plain path (pin, scan). */
export type PathKind = "glob" | "plain";

export type PathProblemCode =
  | "path_too_long"
  | "backslash_in_path"
  | "not_absolute_path"
  | "path_not_clean"
  | "invalid_glob"
  | "glob_not_allowed";

/** Shown in the JSON Schema; the full rules are in pathProblem. */
export const absolutePathPattern = "^(/|[A-Za-z]:/)";

const globMetacharacters = /[*?[]/;
const utf8 = new TextEncoder();

interface SplitPath {
  /** "/" on POSIX, "C:/" (drive letter upper-cased) on Windows. */
  root: string;
  /** Path segments after the root; empty for the root itself. */
  segments: string[];
}

function splitAbsolute(path: string): SplitPath | null {
  if (path.startsWith("/")) return { root: "/", segments: splitRest(path.slice(1)) };
  if (/^[A-Za-z]:\//.test(path)) {
    return { root: `${path[0]!.toUpperCase()}:/`, segments: splitRest(path.slice(3)) };
  }
  return null;
}

function splitRest(rest: string): string[] {
  return rest === "" ? [] : rest.split("/");
}

/**
 * The first rule a path breaks, or null. Each string gets at most one problem so the agent and
 * the console report the same thing; the checks run from the most basic to the most specific.
 */
export function pathProblem(path: string, kind: PathKind): PathProblemCode | null {
  if (utf8.encode(path).length > maxPathBytes) return "path_too_long";
  if (path.includes("\\")) return "backslash_in_path";
  const split = splitAbsolute(path);
  if (split === null) return "not_absolute_path";
  if (/[\u0000-\u001f\u007f]/.test(path)) return "path_not_clean";
  if (split.segments.some((segment) => segment === "" || segment === "." || segment === "..")) {
    return "path_not_clean";
  }
  if (kind === "plain") return globMetacharacters.test(path) ? "glob_not_allowed" : null;
  return split.segments.every(isValidGlobSegment) ? null : "invalid_glob";
}

function isValidGlobSegment(segment: string): boolean {
  if (segment === "**") return true;
  if (segment.includes("**")) return false; // "**" means "any depth" only as a whole segment
  const chars = Array.from(segment);
  for (let i = 0; i < chars.length; i++) {
    if (chars[i] !== "[") continue;
    const parsed = parseClass(chars, i);
    if (parsed === null) return false;
    i = parsed.end;
  }
  return true;
}

interface CharacterClass {
  negated: boolean;
  ranges: Array<[number, number]>;
  /** Index of the closing "]". */
  end: number;
}

/** Parses "[abc]", "[a-z]", "[!0-9]" starting at chars[start] === "["; null when malformed. */
function parseClass(chars: string[], start: number): CharacterClass | null {
  let i = start + 1;
  const negated = chars[i] === "!";
  if (negated) i++;
  const ranges: Array<[number, number]> = [];
  while (i < chars.length && chars[i] !== "]") {
    const low = chars[i]!.codePointAt(0)!;
    if (chars[i + 1] === "-" && i + 2 < chars.length && chars[i + 2] !== "]") {
      const high = chars[i + 2]!.codePointAt(0)!;
      if (low > high) return null;
      ranges.push([low, high]);
      i += 3;
    } else {
      ranges.push([low, low]);
      i++;
    }
  }
  if (i >= chars.length || ranges.length === 0) return null;
  return { negated, ranges, end: i };
}

/**
 * Whether a pattern matches a path or a directory above it, so "/srv/pg/pg_wal" covers every
 * file beneath it. "*" and "?" stay within one segment (and match dot files), "**" spans any
 * number of segments, "[a-z]" / "[!a-z]" match one character. Matching is case-sensitive except
 * for a Windows drive letter. Both arguments must already pass pathProblem.
 */
export function matchesPattern(pattern: string, path: string): boolean {
  const p = splitAbsolute(pattern);
  const s = splitAbsolute(path);
  if (p === null || s === null || p.root !== s.root) return false;
  return matchSegments(p.segments, 0, s.segments, 0);
}

function matchSegments(pattern: string[], pi: number, path: string[], si: number): boolean {
  if (pi === pattern.length) return true; // the rest of the path lies beneath a matched directory
  if (pattern[pi] === "**") {
    for (let k = si; k <= path.length; k++) {
      if (matchSegments(pattern, pi + 1, path, k)) return true;
    }
    return false;
  }
  if (si === path.length) return false;
  return matchSegment(Array.from(pattern[pi]!), 0, Array.from(path[si]!), 0) &&
    matchSegments(pattern, pi + 1, path, si + 1);
}

function matchSegment(pattern: string[], pi: number, name: string[], ni: number): boolean {
  while (pi < pattern.length) {
    const token = pattern[pi]!;
    if (token === "*") {
      for (let k = ni; k <= name.length; k++) {
        if (matchSegment(pattern, pi + 1, name, k)) return true;
      }
      return false;
    }
    if (ni === name.length) return false;
    if (token === "?") {
      pi++;
    } else if (token === "[") {
      const parsed = parseClass(pattern, pi)!;
      const code = name[ni]!.codePointAt(0)!;
      const inClass = parsed.ranges.some(([low, high]) => code >= low && code <= high);
      if (inClass === parsed.negated) return false;
      pi = parsed.end + 1;
    } else {
      if (token !== name[ni]) return false;
      pi++;
    }
    ni++;
  }
  return ni === name.length;
}

/**
 * The part of a pattern before its first wildcard segment, e.g. "/srv/pg/base" for
 * "/srv/pg/base/*.dat": every path the pattern matches lies at or beneath it.
 */
export function literalPrefix(pattern: string): string {
  const split = splitAbsolute(pattern);
  if (split === null) return pattern;
  const literal: string[] = [];
  for (const segment of split.segments) {
    if (globMetacharacters.test(segment)) break;
    literal.push(segment);
  }
  return split.root + literal.join("/");
}

/** The read cache manages a path when an include pattern matches it and no exclude pattern does. */
export function isManagedPath(
  readCache: { include: readonly string[]; exclude: readonly string[] },
  path: string,
): boolean {
  if (readCache.exclude.some((pattern) => matchesPattern(pattern, path))) return false;
  return readCache.include.some((pattern) => matchesPattern(pattern, path));
}
