package fragscan

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/windows"
)

func underWine() bool {
	return windows.NewLazySystemDLL("ntdll.dll").NewProc("wine_get_version").Find() == nil
}

// A real scan on Windows, or under Wine in CI: the background-mode thread, the walk, the
// attribute-only opens and the volume check. On Windows every file is mapped. Wine 8 refuses
// background mode (so Scan refuses to scan, as it must when it cannot lower its priority) and
// answers FSCTL_GET_RETRIEVAL_POINTERS with a stub reply the parser refuses: there the walk is
// run directly and every file must be counted unreadable, none with a made-up extent count.
func TestScanWindowsTree(t *testing.T) {
	root, err := os.MkdirTemp("", "fragscan")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(root) // best effort: Wine refuses some of Go's delete calls
	for _, name := range []string{"master.mdf", "sales.ndf", "sales_log.ldf", "sub/E00.log"} {
		path := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, make([]byte, 256<<10), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	settings := Settings{MaxFilesPerSecond: 1000, WorstFiles: 5}
	if underWine() {
		if _, err := Scan(context.Background(), []string{root}, settings); err == nil || !strings.Contains(err.Error(), "background mode") {
			t.Fatalf("under Wine: want the scan refused for want of background mode, got %v", err)
		}
		r, err := scanRoot(context.Background(), root, settings, newPacer(settings.MaxFilesPerSecond))
		if err != nil || r.Files != 0 || r.Unreadable != 4 || len(r.Worst) != 0 {
			t.Fatalf("under Wine: want 4 unreadable files and none mapped, got %+v, %v", r, err)
		}
		return
	}
	results, err := Scan(context.Background(), []string{root}, settings)
	if err != nil {
		t.Fatal(err)
	}
	if len(results) != 1 {
		t.Fatalf("%d results, want 1", len(results))
	}
	r := results[0]
	if r.Files != 4 || r.Extents < 4 {
		t.Fatalf("want 4 files mapped with at least one extent each, got %+v", r)
	}
}
