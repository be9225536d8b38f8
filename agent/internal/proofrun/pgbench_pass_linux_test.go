package proofrun

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Each pgbench pass starts from the database as it is then, not as pgbench -i left it: the
// files listed are the directory's regular files at that moment (a new segment file joins, a
// removed one leaves; subdirectories and symlinks are not the database's data), every one of them
// is out of the page cache, and the read cache's budget is the request's or else their size now.
func TestEveryPgbenchPassRelistsTheDatabasesFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, size int) string {
		t.Helper()
		path := filepath.Join(dir, name)
		f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := f.Write(make([]byte, size)); err != nil {
			t.Fatal(err)
		}
		if err := f.Sync(); err != nil { // written back, so dropping its pages can evict them
			t.Fatal(err)
		}
		if _, err := os.ReadFile(path); err != nil { // and in the page cache, as a pass leaves it
			t.Fatal(err)
		}
		return path
	}
	relation, fsm := write("16384", 64<<10), write("16384_fsm", 24<<10)
	if err := os.Mkdir(filepath.Join(dir, "pg_internal"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(relation, filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	r := &runner{}
	pass := func(wantFiles []string, wantBudget int64) {
		t.Helper()
		targets, err := r.pgbenchPassTargets(dir)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(targets.DataFiles, wantFiles) || targets.BudgetBytes != wantBudget {
			t.Fatalf("targets %v, budget %d; want %v, budget %d", targets.DataFiles, targets.BudgetBytes, wantFiles, wantBudget)
		}
		for _, f := range targets.DataFiles {
			if resident, pages := residentPages(t, f); resident != 0 {
				t.Fatalf("%s: %d of its %d pages still in the page cache at the start of the pass", f, resident, pages)
			}
		}
	}
	pass([]string{relation, fsm}, 88<<10)

	// pgbench's updates grow the relation past a segment: the next pass has the new file, and the
	// budget follows the size.
	write("16384", 16<<10)
	segment := write("16384.1", 32<<10)
	pass([]string{relation, segment, fsm}, 136<<10)

	// A file removed since (a vacuum truncates the free-space map away) is no longer listed; a
	// budget set in the request is kept whatever the size.
	if err := os.Remove(fsm); err != nil {
		t.Fatal(err)
	}
	r.req.ReadCacheBudgetBytes = 4096
	pass([]string{relation, segment}, 4096)

	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := r.pgbenchPassTargets(dir); err == nil || !strings.Contains(err.Error(), "list the scratch database's files") {
		t.Fatalf("a database directory gone: %v, want an error naming the listing", err)
	}
}
