package policy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// Code identifies a kind of problem. Codes are stable API shared with packages/policy.
type Code string

// Codes for a document without the right shape.
const (
	CodeInvalidJSON              Code = "invalid_json"
	CodeInvalidType              Code = "invalid_type"
	CodeRequired                 Code = "required"
	CodeUnknownField             Code = "unknown_field"
	CodeNotInteger               Code = "not_integer"
	CodeTooSmall                 Code = "too_small"
	CodeTooBig                   Code = "too_big"
	CodeInvalidValue             Code = "invalid_value"
	CodeUnsupportedSchemaVersion Code = "unsupported_schema_version"
	CodePathTooLong              Code = "path_too_long"
	CodeBackslashInPath          Code = "backslash_in_path"
	CodeNotAbsolutePath          Code = "not_absolute_path"
	CodePathNotClean             Code = "path_not_clean"
	CodeInvalidGlob              Code = "invalid_glob"
	CodeGlobTooComplex           Code = "glob_too_complex"
	CodeGlobNotAllowed           Code = "glob_not_allowed"
)

// Codes for a well-formed document whose fields contradict each other.
const (
	CodeDuplicateEntry                           Code = "duplicate_entry"
	CodeDuplicatePreallocationPattern            Code = "duplicate_preallocation_pattern"
	CodeIncludeRequired                          Code = "include_required"
	CodeIncludeShadowedByExclude                 Code = "include_shadowed_by_exclude"
	CodePinRequiresReadCache                     Code = "pin_requires_read_cache"
	CodePinNotIncluded                           Code = "pin_not_included"
	CodePinExcluded                              Code = "pin_excluded"
	CodeScanThresholdExceedsBudget               Code = "scan_threshold_exceeds_budget"
	CodePreallocationRequiresWriteOptimization   Code = "preallocation_requires_write_optimization"
	CodeDefragmentationRequiresWriteOptimization Code = "defragmentation_requires_write_optimization"
	CodeDefragmentationIncludeRequired           Code = "defragmentation_include_required"
	CodeFragmentationPeriodBelowInterval         Code = "fragmentation_period_below_interval"
)

// Codes lists every code, in the order of packages/policy/src/problems.ts.
var Codes = []Code{
	CodeInvalidJSON, CodeInvalidType, CodeRequired, CodeUnknownField, CodeNotInteger, CodeTooSmall,
	CodeTooBig, CodeInvalidValue, CodeUnsupportedSchemaVersion, CodePathTooLong, CodeBackslashInPath,
	CodeNotAbsolutePath, CodePathNotClean, CodeInvalidGlob, CodeGlobTooComplex, CodeGlobNotAllowed,
	CodeDuplicateEntry, CodeDuplicatePreallocationPattern, CodeIncludeRequired,
	CodeIncludeShadowedByExclude, CodePinRequiresReadCache, CodePinNotIncluded, CodePinExcluded,
	CodeScanThresholdExceedsBudget, CodePreallocationRequiresWriteOptimization,
	CodeDefragmentationRequiresWriteOptimization, CodeDefragmentationIncludeRequired,
	CodeFragmentationPeriodBelowInterval,
}

// Problem is one thing wrong with a policy.
type Problem struct {
	// Path locates the problem, e.g. "readCache.pin[2]"; "" for the whole document.
	Path string `json:"path"`
	Code Code   `json:"code"`
	// Message says what to change, without the path.
	Message string `json:"message"`
}

// ValidationError is returned by Parse for a policy the agent refuses. Its text is the
// message reported to the console in RemoteConfigStatus.
type ValidationError struct {
	Problems []Problem
}

func (e *ValidationError) Error() string {
	lines := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		where := p.Path
		if where == "" {
			where = "policy"
		}
		lines[i] = where + ": " + p.Message
	}
	return "invalid policy: " + strings.Join(lines, "; ")
}

// location is a path into the document: string keys and int indexes.
type location []any

func (l location) key(name string) location { return append(append(location{}, l...), name) }
func (l location) index(i int) location     { return append(append(location{}, l...), i) }

var identifier = regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$]*$`)

// String renders a location as the TypeScript formatPath does.
func (l location) String() string {
	var b strings.Builder
	for _, segment := range l {
		switch s := segment.(type) {
		case int:
			fmt.Fprintf(&b, "[%d]", s)
		case string:
			if identifier.MatchString(s) {
				if b.Len() > 0 {
					b.WriteByte('.')
				}
				b.WriteString(s)
			} else {
				b.WriteString("[" + quoteJSON(s) + "]")
			}
		}
	}
	return b.String()
}

func quoteJSON(s string) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // JSON.stringify does not escape <, > and &
	_ = enc.Encode(s)        // encoding a string cannot fail
	return strings.TrimSuffix(buf.String(), "\n")
}

var listIndex = regexp.MustCompile(`\[(\d+)\]`)

// pathSortKey compares list indexes as numbers: "pin[2]" before "pin[10]".
func pathSortKey(path string) string {
	return listIndex.ReplaceAllStringFunc(path, func(m string) string {
		return fmt.Sprintf("[%010s]", m[1:len(m)-1])
	})
}

// sortProblems puts problems in the contract's order (path, then code) without repeats.
func sortProblems(problems []Problem) []Problem {
	seen := make(map[string]bool, len(problems))
	unique := make([]Problem, 0, len(problems))
	for _, p := range problems {
		key := p.Path + "\x00" + string(p.Code)
		if !seen[key] {
			seen[key] = true
			unique = append(unique, p)
		}
	}
	sort.SliceStable(unique, func(i, j int) bool {
		a, b := pathSortKey(unique[i].Path), pathSortKey(unique[j].Path)
		if a != b {
			return a < b
		}
		return unique[i].Code < unique[j].Code
	})
	return unique
}

// formatBytes renders 67108864 as "64 MiB", as the TypeScript messages do.
func formatBytes(n int64) string {
	units := []string{"bytes", "KiB", "MiB", "GiB", "TiB", "PiB"}
	value, unit := n, 0
	for unit < len(units)-1 && value >= 1024 && value%1024 == 0 {
		value /= 1024
		unit++
	}
	if unit == 0 {
		return fmt.Sprintf("%d bytes", n)
	}
	return fmt.Sprintf("%d %s", value, units[unit])
}

// formatLimit renders a limit in a message: byte fields in binary units, others as numbers.
func formatLimit(field string, limit int64) string {
	if strings.HasSuffix(field, "Bytes") && limit >= mebibyte {
		return fmt.Sprintf("%s (%d)", formatBytes(limit), limit)
	}
	return fmt.Sprintf("%d", limit)
}
