package policy

import "strings"

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

// MatchesPattern reports whether pattern matches path or a directory above it, so
// "/srv/pg/pg_wal" covers every file beneath it. "*" and "?" stay within one segment (and match
// dot files), "**" spans any number of segments, "[a-z]" and "[!a-z]" match one character.
// Matching is case-sensitive except for a Windows drive letter. Both must pass validation.
func MatchesPattern(pattern, path string) bool {
	p, okPattern := splitAbsolute(pattern)
	s, okPath := splitAbsolute(path)
	if !okPattern || !okPath || p.root != s.root {
		return false
	}
	return matchSegments(p.segments, s.segments)
}

func matchSegments(pattern, path []string) bool {
	if len(pattern) == 0 {
		return true // the rest of the path lies beneath a matched directory
	}
	if pattern[0] == "**" {
		for k := 0; k <= len(path); k++ {
			if matchSegments(pattern[1:], path[k:]) {
				return true
			}
		}
		return false
	}
	if len(path) == 0 {
		return false
	}
	return matchSegment([]rune(pattern[0]), []rune(path[0])) && matchSegments(pattern[1:], path[1:])
}

func matchSegment(pattern, name []rune) bool {
	pi, ni := 0, 0
	for pi < len(pattern) {
		token := pattern[pi]
		if token == '*' {
			for k := ni; k <= len(name); k++ {
				if matchSegment(pattern[pi+1:], name[k:]) {
					return true
				}
			}
			return false
		}
		if ni == len(name) {
			return false
		}
		switch token {
		case '?':
			pi++
		case '[':
			class, _ := parseClass(pattern, pi)
			inClass := false
			for _, r := range class.ranges {
				if name[ni] >= r[0] && name[ni] <= r[1] {
					inClass = true
					break
				}
			}
			if inClass == class.negated {
				return false
			}
			pi = class.end + 1
		default:
			if token != name[ni] {
				return false
			}
			pi++
		}
		ni++
	}
	return ni == len(name)
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
