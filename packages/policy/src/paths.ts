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
  | "glob_too_complex"
  | "glob_not_allowed";

/**
 * Complexity bounds for one glob pattern. Matching is linear in pattern × path length whatever
 * the pattern, so these are defence in depth: they keep a single match cheap and a policy
 * readable. "**" segments and the one-segment wildcards ("*", "?", "[…]") are counted apart.
 */
export const maxGlobstarSegments = 8;
export const maxSegmentWildcards = 32;

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
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this refuses
  if (/[\u0000-\u001f\u007f]/.test(path)) return "path_not_clean";
  if (split.segments.some((segment) => segment === "" || segment === "." || segment === "..")) {
    return "path_not_clean";
  }
  if (kind === "plain") return globMetacharacters.test(path) ? "glob_not_allowed" : null;
  if (!split.segments.every(isValidGlobSegment)) return "invalid_glob";
  return globTooComplex(split.segments) ? "glob_too_complex" : null;
}

function globTooComplex(segments: readonly string[]): boolean {
  let globstars = 0;
  let wildcards = 0;
  for (const segment of segments) {
    if (segment === "**") {
      globstars++;
      continue;
    }
    wildcards += tokenize(segment).filter((token) => token.kind !== "literal").length;
  }
  return globstars > maxGlobstarSegments || wildcards > maxSegmentWildcards;
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

/** One element of a pattern segment: "*", "?", a character class or a literal character. */
type Token =
  | { kind: "star" }
  | { kind: "any" }
  | { kind: "class"; negated: boolean; ranges: Array<[number, number]> }
  | { kind: "literal"; char: string };

/** Splits a valid (non-"**") pattern segment into tokens, parsing each class once. */
function tokenize(segment: string): Token[] {
  const chars = Array.from(segment);
  const tokens: Token[] = [];
  for (let i = 0; i < chars.length; i++) {
    const char = chars[i]!;
    if (char === "*") tokens.push({ kind: "star" });
    else if (char === "?") tokens.push({ kind: "any" });
    else if (char === "[") {
      const parsed = parseClass(chars, i)!;
      tokens.push({ kind: "class", negated: parsed.negated, ranges: parsed.ranges });
      i = parsed.end;
    } else tokens.push({ kind: "literal", char });
  }
  return tokens;
}

function tokenMatches(token: Token, char: string): boolean {
  switch (token.kind) {
    case "any":
      return true;
    case "literal":
      return token.char === char;
    case "class": {
      const code = char.codePointAt(0)!;
      return token.ranges.some(([low, high]) => code >= low && code <= high) !== token.negated;
    }
    case "star":
      return false;
  }
}

/** A pattern segment: "**" (any number of path segments) or the tokens of one segment. */
type SegmentMatcher = "**" | Token[];

/** Counts the matcher's inner steps, so tests can prove the work is bounded. */
export interface MatchCounter {
  steps: number;
}

/**
 * Whether a pattern matches a path or a directory above it, so "/srv/pg/pg_wal" covers every
 * file beneath it. "*" and "?" stay within one segment (and match dot files), "**" spans any
 * number of segments, "[a-z]" / "[!a-z]" match one character. Matching is case-sensitive except
 * for a Windows drive letter. Both arguments must already pass pathProblem.
 *
 * Time is O(pattern length × path length) for every pattern: both levels use the greedy
 * wildcard algorithm that only ever backtracks to the latest "*" (or "**"), which is exact
 * because a later star can absorb whatever an earlier one would have. The old recursive matcher
 * tried every split and took tens of seconds on a pattern of eight "**" segments ending in a
 * name no path segment has.
 */
export function matchesPattern(pattern: string, path: string, counter?: MatchCounter): boolean {
  const p = splitAbsolute(pattern);
  const s = splitAbsolute(path);
  if (p === null || s === null || p.root !== s.root) return false;
  const matchers: SegmentMatcher[] = p.segments.map((segment) => (segment === "**" ? "**" : tokenize(segment)));
  // "Matches a directory above the path" is the same as a trailing "**".
  matchers.push("**");
  const names = s.segments.map((segment) => Array.from(segment));
  const count = counter ?? { steps: 0 };
  return greedyMatch(
    matchers,
    names,
    (matcher) => matcher === "**",
    (matcher, name) => matcher !== "**" && matchSegment(matcher, name, count),
    count,
  );
}

function matchSegment(tokens: readonly Token[], name: readonly string[], counter: MatchCounter): boolean {
  return greedyMatch(
    tokens,
    name,
    (token) => token.kind === "star",
    (token, char) => tokenMatches(token, char),
    counter,
  );
}

/**
 * Full match of a sequence of elements, where a star element matches any run of items and
 * every other element exactly one item. On a mismatch it resumes after the latest star with
 * that star absorbing one more item; earlier stars are never revisited.
 */
function greedyMatch<E, I>(
  elements: readonly E[],
  items: readonly I[],
  isStar: (element: E) => boolean,
  matchesOne: (element: E, item: I) => boolean,
  counter: MatchCounter,
): boolean {
  let ei = 0;
  let ii = 0;
  let starAt = -1;
  let starItems = 0;
  while (ii < items.length) {
    counter.steps++;
    const element = elements[ei];
    if (element !== undefined && isStar(element)) {
      starAt = ei;
      starItems = ii;
      ei++;
    } else if (element !== undefined && matchesOne(element, items[ii]!)) {
      ei++;
      ii++;
    } else if (starAt >= 0) {
      starItems++;
      ei = starAt + 1;
      ii = starItems;
    } else {
      return false;
    }
  }
  while (ei < elements.length && isStar(elements[ei]!)) ei++;
  return ei === elements.length;
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
export function isManagedPath(readCache: { include: readonly string[]; exclude: readonly string[] }, path: string): boolean {
  if (readCache.exclude.some((pattern) => matchesPattern(pattern, path))) return false;
  return readCache.include.some((pattern) => matchesPattern(pattern, path));
}
