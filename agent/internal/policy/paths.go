package policy

import (
	"fmt"
	"strings"
)

// Path and glob rules, mirroring packages/policy/src/paths.ts. Paths in a policy use forward
// slashes on every OS: "/var/lib/postgresql/**" on Linux, "D:/SQLData/*.mdf" on Windows.

// MaxPathBytes is the longest path or pattern accepted, in bytes (Linux PATH_MAX).
const MaxPathBytes = 4096

// PathKind says what a path field holds.
type PathKind int

const (
	// GlobPath is a pattern: include, exclude, preallocation and defragmentation fields.
	GlobPath PathKind = iota
	// PlainPath is a literal path: pin and fragmentation scan paths.
	PlainPath
)

type splitPath struct {
	root     string // "/" or "C:/" with the drive letter upper-cased
	segments []string
}

func splitAbsolute(path string) (splitPath, bool) {
	if strings.HasPrefix(path, "/") {
		return splitPath{root: "/", segments: splitRest(path[1:])}, true
	}
	if len(path) >= 3 && isASCIILetter(path[0]) && path[1] == ':' && path[2] == '/' {
		return splitPath{root: strings.ToUpper(path[:1]) + ":/", segments: splitRest(path[3:])}, true
	}
	return splitPath{}, false
}

func isASCIILetter(c byte) bool { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') }

func splitRest(rest string) []string {
	if rest == "" {
		return nil
	}
	return strings.Split(rest, "/")
}

// pathProblem returns the first rule a path breaks, or "" when it is fine. Each string gets at
// most one code, checked from the most basic to the most specific, as in TypeScript.
func pathProblem(path string, kind PathKind) Code {
	if len(path) > MaxPathBytes {
		return CodePathTooLong
	}
	if strings.Contains(path, `\`) {
		return CodeBackslashInPath
	}
	split, ok := splitAbsolute(path)
	if !ok {
		return CodeNotAbsolutePath
	}
	for _, r := range path {
		if r < 0x20 || r == 0x7f {
			return CodePathNotClean
		}
	}
	for _, segment := range split.segments {
		if segment == "" || segment == "." || segment == ".." {
			return CodePathNotClean
		}
	}
	if kind == PlainPath {
		if strings.ContainsAny(path, "*?[") {
			return CodeGlobNotAllowed
		}
		return ""
	}
	for _, segment := range split.segments {
		if !validGlobSegment(segment) {
			return CodeInvalidGlob
		}
	}
	if globTooComplex(split.segments) {
		return CodeGlobTooComplex
	}
	return ""
}

func validGlobSegment(segment string) bool {
	if segment == "**" {
		return true
	}
	if strings.Contains(segment, "**") {
		return false // "**" means "any depth" only as a whole segment
	}
	chars := []rune(segment)
	for i := 0; i < len(chars); i++ {
		if chars[i] != '[' {
			continue
		}
		class, ok := parseClass(chars, i)
		if !ok {
			return false
		}
		i = class.end
	}
	return true
}

type characterClass struct {
	negated bool
	ranges  [][2]rune
	end     int // index of the closing ']'
}

// parseClass parses "[abc]", "[a-z]", "[!0-9]" starting at chars[start] == '['.
func parseClass(chars []rune, start int) (characterClass, bool) {
	i := start + 1
	class := characterClass{}
	if i < len(chars) && chars[i] == '!' {
		class.negated = true
		i++
	}
	for i < len(chars) && chars[i] != ']' {
		low := chars[i]
		if i+2 < len(chars) && chars[i+1] == '-' && chars[i+2] != ']' {
			high := chars[i+2]
			if low > high {
				return class, false
			}
			class.ranges = append(class.ranges, [2]rune{low, high})
			i += 3
		} else {
			class.ranges = append(class.ranges, [2]rune{low, low})
			i++
		}
	}
	if i >= len(chars) || len(class.ranges) == 0 {
		return class, false
	}
	class.end = i
	return class, true
}

// Complexity bounds for one glob pattern, as in TypeScript. Matching is linear in pattern ×
// path length whatever the pattern, so these are defence in depth.
const (
	MaxGlobstarSegments = 8
	MaxSegmentWildcards = 32
)

func globTooComplex(segments []string) bool {
	globstars, wildcards := 0, 0
	for _, segment := range segments {
		if segment == "**" {
			globstars++
			continue
		}
		for _, token := range tokenize(segment) {
			if token.kind != tokenLiteral {
				wildcards++
			}
		}
	}
	return globstars > MaxGlobstarSegments || wildcards > MaxSegmentWildcards
}

type tokenKind int

const (
	tokenLiteral tokenKind = iota
	tokenStar
	tokenAny
	tokenClass
)

// token is one element of a pattern segment: "*", "?", a character class or a literal rune.
type token struct {
	kind  tokenKind
	char  rune
	class characterClass
}

// tokenize splits a valid (non-"**") pattern segment into tokens, parsing each class once.
func tokenize(segment string) []token {
	chars := []rune(segment)
	tokens := make([]token, 0, len(chars))
	for i := 0; i < len(chars); i++ {
		switch chars[i] {
		case '*':
			tokens = append(tokens, token{kind: tokenStar})
		case '?':
			tokens = append(tokens, token{kind: tokenAny})
		case '[':
			class, _ := parseClass(chars, i)
			tokens = append(tokens, token{kind: tokenClass, class: class})
			i = class.end
		default:
			tokens = append(tokens, token{kind: tokenLiteral, char: chars[i]})
		}
	}
	return tokens
}

func (t token) matches(r rune) bool {
	switch t.kind {
	case tokenAny:
		return true
	case tokenLiteral:
		return t.char == r
	case tokenClass:
		in := false
		for _, rg := range t.class.ranges {
			if r >= rg[0] && r <= rg[1] {
				in = true
				break
			}
		}
		return in != t.class.negated
	}
	return false
}

// segmentMatcher is "**" (globstar) or the tokens of one pattern segment.
type segmentMatcher struct {
	globstar bool
	tokens   []token
}

// MatchesPattern reports whether pattern matches path or a directory above it, so
// "/srv/pg/pg_wal" covers every file beneath it. "*" and "?" stay within one segment (and match
// dot files), "**" spans any number of segments, "[a-z]" and "[!a-z]" match one character.
// Matching is case-sensitive except for a Windows drive letter. Both must pass validation.
//
// Time is O(pattern length × path length) for every pattern: both levels use the greedy
// wildcard algorithm that only backtracks to the latest star, which is exact because a later
// star can absorb whatever an earlier one would have. The old recursive matcher tried every
// split and took tens of seconds on eight "**" segments ending in a name no segment has.
func MatchesPattern(pattern, path string) bool {
	matched, _ := matchCounting(pattern, path)
	return matched
}

// matchCounting is MatchesPattern that also returns the number of inner steps it took, so tests
// can prove the work is bounded without timing anything.
func matchCounting(pattern, path string) (bool, int) {
	p, okPattern := splitAbsolute(pattern)
	s, okPath := splitAbsolute(path)
	if !okPattern || !okPath || p.root != s.root {
		return false, 0
	}
	matchers := make([]segmentMatcher, 0, len(p.segments)+1)
	for _, segment := range p.segments {
		if segment == "**" {
			matchers = append(matchers, segmentMatcher{globstar: true})
		} else {
			matchers = append(matchers, segmentMatcher{tokens: tokenize(segment)})
		}
	}
	// "Matches a directory above the path" is the same as a trailing "**".
	matchers = append(matchers, segmentMatcher{globstar: true})
	names := make([][]rune, len(s.segments))
	for i, segment := range s.segments {
		names[i] = []rune(segment)
	}
	steps := 0
	matched := greedyMatch(matchers, names,
		func(m segmentMatcher) bool { return m.globstar },
		func(m segmentMatcher, name []rune) bool {
			return !m.globstar && greedyMatch(m.tokens, name,
				func(t token) bool { return t.kind == tokenStar },
				func(t token, r rune) bool { return t.matches(r) },
				&steps)
		},
		&steps)
	return matched, steps
}

// greedyMatch is a full match of elements against items, where a star element matches any run
// of items and every other element exactly one item. On a mismatch it resumes after the latest
// star with that star absorbing one more item; earlier stars are never revisited.
func greedyMatch[E, I any](elements []E, items []I, isStar func(E) bool, matchesOne func(E, I) bool, steps *int) bool {
	ei, ii := 0, 0
	starAt, starItems := -1, 0
	for ii < len(items) {
		*steps++
		switch {
		case ei < len(elements) && isStar(elements[ei]):
			starAt, starItems = ei, ii
			ei++
		case ei < len(elements) && matchesOne(elements[ei], items[ii]):
			ei++
			ii++
		case starAt >= 0:
			starItems++
			ei, ii = starAt+1, starItems
		default:
			return false
		}
	}
	for ei < len(elements) && isStar(elements[ei]) {
		ei++
	}
	return ei == len(elements)
}

// IsManaged reports whether the read cache manages path: an include pattern matches it and no
// exclude pattern does (exclude wins).
func (rc ReadCache) IsManaged(path string) bool {
	for _, pattern := range rc.Exclude {
		if MatchesPattern(pattern, path) {
			return false
		}
	}
	for _, pattern := range rc.Include {
		if MatchesPattern(pattern, path) {
			return true
		}
	}
	return false
}

// literalPrefix is the part of a pattern before its first wildcard segment: every path the
// pattern matches lies at or beneath it.
func literalPrefix(pattern string) string {
	split, ok := splitAbsolute(pattern)
	if !ok {
		return pattern
	}
	var literal []string
	for _, segment := range split.segments {
		if strings.ContainsAny(segment, "*?[") {
			break
		}
		literal = append(literal, segment)
	}
	return split.root + strings.Join(literal, "/")
}

// LiteralPrefix is the directory every path a pattern (or plain path) can reach lies at or
// beneath, e.g. "/srv/pg/base" for "/srv/pg/base/*.dat": what the agent's local policy_roots
// are checked against.
func LiteralPrefix(pattern string) string { return literalPrefix(pattern) }

// PathFields lists every path and pattern of a policy with its field name, for checks that
// apply to all of them alike.
func (p Policy) PathFields() [][2]string {
	var out [][2]string
	add := func(field string, paths []string) {
		for i, path := range paths {
			out = append(out, [2]string{fmt.Sprintf("%s[%d]", field, i), path})
		}
	}
	add("readCache.include", p.ReadCache.Include)
	add("readCache.exclude", p.ReadCache.Exclude)
	add("readCache.pin", p.ReadCache.Pin)
	for i, rule := range p.WriteOptimization.Preallocation {
		out = append(out, [2]string{fmt.Sprintf("writeOptimization.preallocation[%d].pattern", i), rule.Pattern})
	}
	add("writeOptimization.defragmentation.include", p.WriteOptimization.Defragmentation.Include)
	add("telemetry.fragmentationScan.paths", p.Telemetry.FragmentationScan.Paths)
	return out
}
