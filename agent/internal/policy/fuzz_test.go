package policy

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"unicode/utf8"
)

// FuzzParse: any bytes either give a policy or a *ValidationError whose problems all carry a
// known code and a message; Parse never panics. Seeds are every shared vector document.
func FuzzParse(f *testing.F) {
	for _, folder := range []string{"valid", "invalid"} {
		files, _ := filepath.Glob(filepath.Join(vectorsDir, folder, "*.json"))
		for _, file := range files {
			if data, err := os.ReadFile(file); err == nil {
				f.Add(data)
			}
		}
	}
	f.Add([]byte(`{"schemaVersion":1,"readCache":{"enabled":true,"include":["/srv/**/[a-z]*"]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		_, err := Parse(data)
		if err == nil {
			return
		}
		var invalid *ValidationError
		if !errors.As(err, &invalid) || len(invalid.Problems) == 0 {
			t.Fatalf("Parse returned %T %v, want a *ValidationError with problems", err, err)
		}
		for _, p := range invalid.Problems {
			if !slices.Contains(Codes, p.Code) || p.Message == "" {
				t.Fatalf("problem %+v has an unknown code or no message", p)
			}
		}
	})
}

// FuzzMatchesPattern compares the linear matcher with a memoised recursive reference (the old
// matcher's semantics, made polynomial) on every valid pattern the fuzzer finds, and checks the
// step bound the linear matcher promises.
func FuzzMatchesPattern(f *testing.F) {
	f.Add("/srv/**/*.db", "/srv/x/y/a.db")
	f.Add("/srv/[!a-c]?*", "/srv/dxy/z")
	f.Add("/**/**/x", "/a/b/x/c")
	f.Add("/srv/*a*a*b", "/srv/aaaaab")
	f.Add("D:/SQL/*.mdf", "d:/SQL/a.mdf")
	f.Fuzz(func(t *testing.T, pattern, path string) {
		if pathProblem(pattern, GlobPath) != "" || pathProblem(path, PlainPath) != "" || !utf8.ValidString(pattern+path) {
			return
		}
		got, steps := matchCounting(pattern, path)
		if want := referenceMatch(pattern, path); got != want {
			t.Fatalf("MatchesPattern(%q, %q) = %v, reference says %v", pattern, path, got, want)
		}
		bound := (utf8.RuneCountInString(pattern) + 2) * (utf8.RuneCountInString(path) + 2)
		if steps > bound {
			t.Fatalf("%d steps for %q against %q, bound %d", steps, pattern, path, bound)
		}
	})
}

// referenceMatch is the straightforward recursive definition, memoised on (pattern index, path
// index) at both levels so that it stays fast enough for the fuzzer.
func referenceMatch(pattern, path string) bool {
	p, _ := splitAbsolute(pattern)
	s, _ := splitAbsolute(path)
	if p.root != s.root {
		return false
	}
	memo := map[[2]int]bool{}
	var segments func(pi, si int) bool
	segments = func(pi, si int) bool {
		key := [2]int{pi, si}
		if v, ok := memo[key]; ok {
			return v
		}
		var v bool
		switch {
		case pi == len(p.segments):
			v = true
		case p.segments[pi] == "**":
			for k := si; k <= len(s.segments) && !v; k++ {
				v = segments(pi+1, k)
			}
		case si == len(s.segments):
			v = false
		default:
			v = referenceSegment(tokenize(p.segments[pi]), []rune(s.segments[si])) && segments(pi+1, si+1)
		}
		memo[key] = v
		return v
	}
	return segments(0, 0)
}

func referenceSegment(tokens []token, name []rune) bool {
	memo := map[[2]int]bool{}
	var match func(ti, ni int) bool
	match = func(ti, ni int) bool {
		key := [2]int{ti, ni}
		if v, ok := memo[key]; ok {
			return v
		}
		var v bool
		switch {
		case ti == len(tokens):
			v = ni == len(name)
		case tokens[ti].kind == tokenStar:
			v = match(ti+1, ni) || (ni < len(name) && match(ti, ni+1))
		case ni == len(name):
			v = false
		default:
			v = tokens[ti].matches(name[ni]) && match(ti+1, ni+1)
		}
		memo[key] = v
		return v
	}
	return match(0, 0)
}
