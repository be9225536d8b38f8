package writeopt

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/spindle-io/spindle/agent/internal/fiemap/fiemaptest"
	"github.com/spindle-io/spindle/agent/internal/policy"
)

// reservedPastEnd is what a file holds on disk beyond its size.
func reservedPastEnd(t *testing.T, path string) int64 {
	t.Helper()
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		t.Fatal(err)
	}
	return st.Blocks*512 - st.Size
}

// A file keeps its reservation while its writer has it open, however idle; once closed and
// idle, the reservation goes back to the file system with size, content and modification time
// unchanged, the trim's own inotify event reserves nothing again, and growing again does. The
// feature's events are handled here, in the test's goroutine, so nothing waits on a clock.
func TestIdleClosedFilesGiveTheirReservationBack(t *testing.T) {
	dir := fiemaptest.MountExt4(t, 256<<20)
	f, err := New(Config{TrimIdleAfter: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	wo := policy.Default().WriteOptimization
	wo.Enabled = true
	wo.Preallocation = []policy.PreallocationRule{{Pattern: filepath.ToSlash(dir) + "/*.log", ChunkBytes: 4 << 20}}
	if err := f.Apply(context.Background(), wo); err != nil {
		t.Fatal(err)
	}
	buffer := make([]byte, 64<<10)
	handle := func() { f.handleEvents(f.watcher, buffer) }

	path := filepath.Join(dir, "app.log")
	writer, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer writer.Close() // closed below; this one is for a failure before, so the unmount works
	content := bytes.Repeat([]byte("a log line\n"), 10_000)
	if _, err := writer.Write(content); err != nil {
		t.Fatal(err)
	}
	handle()
	if got := reservedPastEnd(t, path); got < 3<<20 {
		t.Fatalf("%d bytes reserved past the end after growth, want the 4 MiB window", got)
	}
	modified := modificationTime(t, path)

	f.trimIdle(time.Now().Add(30 * time.Second))
	if got := reservedPastEnd(t, path); got < 3<<20 {
		t.Fatalf("trimmed before it was idle for TrimIdleAfter: %d bytes left reserved", got)
	}
	f.trimIdle(time.Now().Add(time.Hour))
	if got := reservedPastEnd(t, path); got < 3<<20 {
		t.Fatalf("trimmed while its writer has it open: %d bytes left reserved", got)
	}
	if err := writer.Close(); err != nil {
		t.Fatal(err)
	}
	// The refused trim is retried TrimIdleAfter later.
	f.trimIdle(time.Now().Add(2 * time.Hour))
	if got := reservedPastEnd(t, path); got > 4096 {
		t.Fatalf("%d bytes still reserved past the end of an idle, closed file", got)
	}
	if stats := f.Stats(); stats.TrimmedBytes < 3<<20 || stats.LastError != "" {
		t.Errorf("stats after the trim: %+v", stats)
	}
	if data, err := os.ReadFile(path); err != nil || !bytes.Equal(data, content) {
		t.Fatalf("the trim changed the content (%d bytes, %v)", len(data), err)
	}
	if got := modificationTime(t, path); !got.Equal(modified) {
		t.Errorf("the trim changed the modification time: %v → %v", modified, got)
	}

	handle() // the truncate's own IN_MODIFY
	if got := reservedPastEnd(t, path); got > 4096 {
		t.Fatalf("the trim's own event reserved %d bytes again", got)
	}
	appender, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer appender.Close()
	if _, err := appender.Write([]byte("one more line\n")); err != nil {
		t.Fatal(err)
	}
	handle()
	if got := reservedPastEnd(t, path); got < 1<<20 {
		t.Fatalf("growing again reserved %d bytes, want a new window", got)
	}

	// Rotated by copytruncate: the file system frees everything past the new end, and the file
	// starts over from its first window.
	if err := appender.Truncate(0); err != nil {
		t.Fatal(err)
	}
	handle()
	if _, err := appender.Write([]byte("a fresh log\n")); err != nil {
		t.Fatal(err)
	}
	handle()
	if got := reservedPastEnd(t, path); got < 3<<20 {
		t.Fatalf("after a truncate and a new line, %d bytes reserved, want the 4 MiB first window", got)
	}
}

// Switching preallocation off trims the files it managed (those nobody has open for writing).
func TestPolicyOffTrimsReservations(t *testing.T) {
	dir := fiemaptest.MountExt4(t, 256<<20)
	f, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	wo := policy.Default().WriteOptimization
	wo.Enabled = true
	wo.Preallocation = []policy.PreallocationRule{{Pattern: filepath.ToSlash(dir) + "/*.log", ChunkBytes: 4 << 20}}
	ctx := context.Background()
	if err := f.Apply(ctx, wo); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "app.log")
	if err := os.WriteFile(path, []byte("first line\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f.handleEvents(f.watcher, make([]byte, 64<<10))
	if got := reservedPastEnd(t, path); got < 3<<20 {
		t.Fatalf("%d bytes reserved past the end, want the 4 MiB window", got)
	}
	if err := f.Apply(ctx, policy.Default().WriteOptimization); err != nil {
		t.Fatal(err)
	}
	if got := reservedPastEnd(t, path); got > 4096 {
		t.Fatalf("%d bytes still reserved after preallocation was switched off", got)
	}
}
