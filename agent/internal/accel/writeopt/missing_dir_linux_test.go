package writeopt

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/spindle-io/spindle/agent/internal/fiemap/fiemaptest"
	"github.com/spindle-io/spindle/agent/internal/policy"
)

// A rule whose directory does not exist when the policy is applied (a service installed after
// the agent, a log directory made at its first start) is waited for on the nearest directory that
// exists and followed down as each directory on the way appears, so the logs made there are
// preallocated without the policy being applied again; a directory off the way is not watched.
func TestARuleDirectoryMadeAfterThePolicyIsFollowed(t *testing.T) {
	dir := fiemaptest.MountExt4(t, 256<<20)
	f, err := New(Config{FirstWrite: FirstWriteInotify})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	wo := policy.Default().WriteOptimization
	wo.Enabled = true
	wo.Preallocation = []policy.PreallocationRule{{Pattern: filepath.ToSlash(dir) + "/srv/app/logs/*.log", ChunkBytes: 4 << 20}}
	if err := f.Apply(context.Background(), wo); err != nil {
		t.Fatal(err)
	}
	buffer := make([]byte, 64<<10)
	handle := func() { f.handleEvents(f.watcher, buffer) }

	for _, step := range []string{"srv", "srv/app", "srv/app/logs", "elsewhere"} {
		if err := os.Mkdir(filepath.Join(dir, step), 0o755); err != nil {
			t.Fatal(err)
		}
		handle()
	}
	content := bytes.Repeat([]byte("a log line\n"), 10_000)
	logPath, offPath := filepath.Join(dir, "srv/app/logs/app.log"), filepath.Join(dir, "elsewhere/app.log")
	for _, path := range []string{logPath, offPath} {
		if err := os.WriteFile(path, content, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	handle()
	if got := reservedPastEnd(t, logPath); got < 3<<20 {
		t.Errorf("%d bytes reserved past the end of a log in the rule's late directory, want its 4 MiB window", got)
	}
	if got := reservedPastEnd(t, offPath); got >= policy.MinChunkBytes {
		t.Errorf("%d bytes reserved past the end of a file no rule matches", got)
	}
	if st := f.Stats(); st.LastError != "" {
		t.Errorf("last error: %s", st.LastError)
	}
}
