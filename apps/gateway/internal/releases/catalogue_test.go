package releases

import (
	"crypto/ed25519"
	"crypto/rand"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spindle-io/spindle/apps/gateway/internal/signing"
)

func write(t *testing.T, dir, path, content string) {
	t.Helper()
	full := filepath.Join(dir, path)
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestCatalogueReadsTheTopReleaseAndOnePerDirectory(t *testing.T) {
	_, private, _ := ed25519.GenerateKey(rand.Reader)
	dir := t.TempDir()
	write(t, dir, "VERSION", "0.1.0\n")
	write(t, dir, "spindle-agent-linux-amd64", "a0")
	write(t, dir, "spindle-agent-windows-amd64.msi", "m0")
	write(t, dir, "0.1.1/spindle-agent-linux-amd64", "a1")
	write(t, dir, "0.1.1/spindle-agent-linux-arm64", "b1")
	write(t, dir, "0.1.1/spindle-agent_0.1.1_amd64.deb", "deb")
	write(t, dir, "0.1.1/spindle-agent-0.1.1-1.x86_64.rpm", "rpm")
	write(t, dir, "0.1.1/notes.txt", "ignored")
	write(t, dir, "latest/spindle-agent-linux-amd64", "not a version directory")
	c := New(dir, signing.New(private))
	if err := c.Refresh(); err != nil {
		t.Fatal(err)
	}
	var versions []string
	for _, r := range c.Releases() {
		versions = append(versions, r.Version)
	}
	if strings.Join(versions, ",") != "0.1.1,0.1.0" {
		t.Fatalf("releases %v", versions)
	}
	r, _ := c.Release("0.1.1")
	if len(r.Binaries) != 2 || len(r.Packages) != 2 || r.Packages[0].Format != "rpm" || r.Packages[1].Format != "deb" {
		t.Fatalf("0.1.1: %+v", r)
	}
	if !ed25519.Verify(private.Public().(ed25519.PublicKey), r.Sums, r.Signature) {
		t.Fatal("the release's SHA256SUMS signature does not verify")
	}
	if !strings.Contains(string(r.Sums), "  spindle-agent-linux-arm64\n") || strings.Contains(string(r.Sums), ".deb") {
		t.Fatalf("sums %q", r.Sums)
	}
	top, _ := c.Release("0.1.0")
	if _, ok := top.Binary("windows", "amd64"); ok {
		t.Fatal("an MSI was taken for the binary a running agent swaps in")
	}
	if f, ok := top.Binary("linux", "amd64"); !ok || f.Name != "spindle-agent-linux-amd64" {
		t.Fatal("no linux/amd64 binary in the top release")
	}
}

func TestCatalogueRehashesAReplacedFileAndReportsABadVersionFile(t *testing.T) {
	_, private, _ := ed25519.GenerateKey(rand.Reader)
	dir := t.TempDir()
	write(t, dir, "VERSION", "0.1.0")
	write(t, dir, "spindle-agent-linux-amd64", "first")
	c := New(dir, signing.New(private))
	if err := c.Refresh(); err != nil {
		t.Fatal(err)
	}
	before, _ := c.Release("0.1.0")
	write(t, dir, "spindle-agent-linux-amd64", "second")
	future := time.Now().Add(time.Hour)
	_ = os.Chtimes(filepath.Join(dir, "spindle-agent-linux-amd64"), future, future)
	if err := c.Refresh(); err != nil {
		t.Fatal(err)
	}
	after, _ := c.Release("0.1.0")
	if before.Binaries[0].SHA256 == after.Binaries[0].SHA256 || string(before.Sums) == string(after.Sums) {
		t.Fatal("a replaced binary kept its old sum")
	}
	write(t, dir, "VERSION", "latest")
	err := c.Refresh()
	if err == nil || !strings.Contains(err.Error(), `holds "latest", not a version`) {
		t.Fatalf("a bad VERSION file: %v", err)
	}
	if len(c.Releases()) != 0 {
		t.Fatal("a release without a valid version is served")
	}
}

func TestVersionsOrderAndRefuseWhatIsNotOne(t *testing.T) {
	sorted := []string{"0.1.10", "0.1.2", "0.1.0-dev", "0.1.0", "1.0.0-rc.10", "1.0.0-rc.2", "1.0.0-alpha", "1.0.0"}
	slices.SortFunc(sorted, Compare)
	if strings.Join(sorted, " ") != "0.1.0-dev 0.1.0 0.1.2 0.1.10 1.0.0-alpha 1.0.0-rc.2 1.0.0-rc.10 1.0.0" {
		t.Fatalf("sorted %v", sorted)
	}
	for _, bad := range []string{"", "..", "1.2", "1.2.3/..", "1.2.3-..", "v1.2.3", "1.2.3-a/b"} {
		if IsVersion(bad) {
			t.Errorf("%q taken for a version", bad)
		}
	}
}
