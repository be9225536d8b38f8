package agent

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestPIDNamespaceProblem(t *testing.T) {
	proc := t.TempDir()
	if err := pidNamespaceProblem(proc); err != nil {
		t.Fatalf("a /proc that does not say: %v", err)
	}
	if err := os.MkdirAll(filepath.Join(proc, "self", "ns"), 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(proc, "self", "ns", "pid")
	if err := os.Symlink("pid:[4026531836]", link); err != nil {
		t.Fatal(err)
	}
	if err := pidNamespaceProblem(proc); err != nil {
		t.Fatalf("the initial namespace: %v", err)
	}
	_ = os.Remove(link)
	if err := os.Symlink("pid:[4026532301]", link); err != nil {
		t.Fatal(err)
	}
	if err := pidNamespaceProblem(proc); !errors.Is(err, errOwnPIDNamespace) {
		t.Fatalf("a namespace of its own: %v", err)
	}
}
