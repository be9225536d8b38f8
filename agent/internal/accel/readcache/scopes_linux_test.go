package readcache

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"testing"

	"github.com/spindle-io/spindle/agent/internal/policy"
)

// ManagedFiles names each managed file's scope: the first include pattern, in policy order,
// that matches it; an excluded file is in none. These are the read-cache curves' scopes.
func TestManagedFilesNameTheirIncludePattern(t *testing.T) {
	dir := filepath.ToSlash(t.TempDir())
	for _, name := range []string{"db/a", "db/b", "logs/c", "db/skip.tmp"} {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	f, err := New(Config{}, Deps{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if got := f.ManagedFiles(); len(got) != 0 {
		t.Fatalf("managed files while the cache is off: %v", got)
	}
	rc := policy.Default().ReadCache
	rc.Enabled = true
	rc.Include = []string{dir + "/db/**", dir + "/**"}
	rc.Exclude = []string{dir + "/**/*.tmp"}
	if err := f.Apply(context.Background(), rc); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{dir + "/db/a": dir + "/db/**", dir + "/db/b": dir + "/db/**", dir + "/logs/c": dir + "/**"}
	if got := f.ManagedFiles(); !maps.Equal(got, want) {
		t.Fatalf("managed files %v, want %v", got, want)
	}
}
