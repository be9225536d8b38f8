package policy

import (
	"path/filepath"
	"strings"
	"testing"
)

type pathMatchingVectors struct {
	Description string `json:"description"`
	Patterns    []struct {
		Pattern string `json:"pattern"`
		Path    string `json:"path"`
		Matches bool   `json:"matches"`
	} `json:"patterns"`
	Managed []struct {
		Include []string `json:"include"`
		Exclude []string `json:"exclude"`
		Path    string   `json:"path"`
		Managed bool     `json:"managed"`
	} `json:"managed"`
}

func loadPathMatchingVectors(t *testing.T) pathMatchingVectors {
	var vectors pathMatchingVectors
	readJSON(t, filepath.Join(vectorsDir, "path-matching.json"), &vectors)
	return vectors
}

func TestPathMatchingVectors(t *testing.T) {
	vectors := loadPathMatchingVectors(t)
	if len(vectors.Patterns) == 0 || len(vectors.Managed) == 0 {
		t.Fatal("path-matching.json has no cases")
	}
	for _, c := range vectors.Patterns {
		if code := pathProblem(c.Pattern, GlobPath); code != "" {
			t.Errorf("vector pattern %q is invalid: %s", c.Pattern, code)
		}
		if got := MatchesPattern(c.Pattern, c.Path); got != c.Matches {
			t.Errorf("MatchesPattern(%q, %q) = %v, want %v", c.Pattern, c.Path, got, c.Matches)
		}
	}
	for _, c := range vectors.Managed {
		rc := ReadCache{Include: c.Include, Exclude: c.Exclude}
		if got := rc.IsManaged(c.Path); got != c.Managed {
			t.Errorf("IsManaged(%q) with include %q exclude %q = %v, want %v", c.Path, c.Include, c.Exclude, got, c.Managed)
		}
	}
}

func TestLiteralPrefix(t *testing.T) {
	for pattern, want := range map[string]string{
		"/srv/pg/base/*/x": "/srv/pg/base",
		"/**":              "/",
		"D:/SQL/db[0-9]":   "D:/SQL",
		"/srv/pg":          "/srv/pg",
	} {
		if got := literalPrefix(pattern); got != want {
			t.Errorf("literalPrefix(%q) = %q, want %q", pattern, got, want)
		}
	}
}

func TestPathLengthCountsBytes(t *testing.T) {
	if code := pathProblem("/"+strings.Repeat("é", 2047), PlainPath); code != "" {
		t.Errorf("4095 bytes refused: %s", code)
	}
	if code := pathProblem("/"+strings.Repeat("é", 2048), PlainPath); code != CodePathTooLong {
		t.Errorf("4097 bytes: got %q, want %s", code, CodePathTooLong)
	}
}
