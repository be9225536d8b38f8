// Package memlimittest creates real memory cgroups for tests that must run a workload under a
// memory limit. It needs root and a memory controller: cgroup v1 (a child of this process's
// memory cgroup) or cgroup v2 (a child of the unified root with +memory delegated). Without
// one the test fails under CI=true and is skipped with the reason otherwise.
package memlimittest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/spindle-io/spindle/agent/internal/memlimit"
)

// Cgroup is a memory cgroup made for one test and removed at its end.
type Cgroup struct {
	Version memlimit.Version
	Dir     string
	parent  string
}

var sequence atomic.Int64

// New makes a memory cgroup limited to limitBytes.
func New(t testing.TB, limitBytes int64) *Cgroup {
	t.Helper()
	unavailable := func(reason string) {
		t.Helper()
		message := "no memory cgroup for this test: " + reason +
			" (run as root on Linux with the cgroup v1 memory controller or cgroup v2 +memory)"
		if os.Getenv("CI") == "true" {
			t.Fatal(message)
		}
		t.Skip(message)
	}
	if os.Geteuid() != 0 {
		unavailable("not root")
	}
	reader, err := memlimit.Detect("/proc")
	if err != nil {
		unavailable(err.Error())
	}
	name := fmt.Sprintf("spindle-test-%d-%d", os.Getpid(), sequence.Add(1))
	var c *Cgroup
	switch reader.Version() {
	case memlimit.V1:
		c = &Cgroup{Version: memlimit.V1, parent: reader.Dir(), Dir: filepath.Join(reader.Dir(), name)}
	case memlimit.V2:
		root := v2Root(reader.Dir())
		if err := os.WriteFile(filepath.Join(root, "cgroup.subtree_control"), []byte("+memory"), 0); err != nil {
			unavailable("cannot delegate +memory at " + root + ": " + err.Error())
		}
		c = &Cgroup{Version: memlimit.V2, parent: root, Dir: filepath.Join(root, name)}
	default:
		unavailable("this process is in no memory cgroup hierarchy")
	}
	if err := os.Mkdir(c.Dir, 0o755); err != nil {
		unavailable(err.Error())
	}
	t.Cleanup(func() { c.remove(t) })
	limitFile := map[memlimit.Version]string{memlimit.V1: "memory.limit_in_bytes", memlimit.V2: "memory.max"}[c.Version]
	if err := os.WriteFile(filepath.Join(c.Dir, limitFile), []byte(strconv.FormatInt(limitBytes, 10)), 0); err != nil {
		t.Fatalf("set %s: %v", limitFile, err)
	}
	return c
}

// v2Root is the mount root of the unified hierarchy that dir lies in.
func v2Root(dir string) string {
	root := dir
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "cgroup.controllers")); err != nil {
			return root
		}
		root = d
		if filepath.Dir(d) == d {
			return root
		}
	}
}

// Join moves the calling process (every thread) into the cgroup at dir: a helper process calls
// it first thing, so all it allocates and reads is charged there.
func Join(dir string) error {
	return os.WriteFile(filepath.Join(dir, "cgroup.procs"), []byte(strconv.Itoa(os.Getpid())), 0)
}

// Reader reads the cgroup's limits as the agent would.
func (c *Cgroup) Reader() *memlimit.Reader { return memlimit.ForCgroup("/proc", c.Version, c.Dir) }

// remove moves any process left back to the parent and removes the cgroup (the kernel hands
// its page cache charges to the parent).
func (c *Cgroup) remove(t testing.TB) {
	deadline := time.Now().Add(5 * time.Second)
	for {
		procs, _ := os.ReadFile(filepath.Join(c.Dir, "cgroup.procs"))
		for pid := range strings.FieldsSeq(string(procs)) {
			_ = os.WriteFile(filepath.Join(c.parent, "cgroup.procs"), []byte(pid), 0)
		}
		err := os.Remove(c.Dir)
		if err == nil || errors.Is(err, os.ErrNotExist) {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("remove test cgroup %s: %v (remove it by hand with rmdir)", c.Dir, err)
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}
