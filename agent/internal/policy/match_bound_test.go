package policy

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// Every shared vector, including the adversarial ones the old backtracking matcher took tens of
// seconds on (billions of steps), must finish within (pattern + 2) × (path + 2) steps.
func TestMatchingWorkIsBoundedByPatternTimesPath(t *testing.T) {
	vectors := loadPathMatchingVectors(t)
	for _, v := range vectors.Patterns {
		matched, steps := matchCounting(v.Pattern, v.Path)
		if matched != v.Matches {
			t.Errorf("%s against %s: matched %v, want %v", v.Pattern, v.Path, matched, v.Matches)
		}
		bound := (utf8.RuneCountInString(v.Pattern) + 2) * (utf8.RuneCountInString(v.Path) + 2)
		if steps > bound {
			t.Errorf("%s against %s: %d steps, bound %d", v.Pattern, v.Path, steps, bound)
		}
	}
}

func TestPatternComplexityBounds(t *testing.T) {
	cases := map[string]Code{
		"/" + strings.Repeat("**/", 7) + "**":                                 "",
		"/" + strings.Repeat("**/", 8) + "**":                                 CodeGlobTooComplex,
		"/srv/" + strings.Repeat("?", 16) + "/" + strings.Repeat("[a-z]*", 8): "",
		"/srv/" + strings.Repeat("?", 17) + "/" + strings.Repeat("[a-z]*", 8): CodeGlobTooComplex,
	}
	for pattern, want := range cases {
		if got := pathProblem(pattern, GlobPath); got != want {
			t.Errorf("pathProblem(%q) = %q, want %q", pattern, got, want)
		}
	}
}
