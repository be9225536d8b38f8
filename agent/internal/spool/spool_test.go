package spool

import (
	"bytes"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
)

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func body(n int, fill byte) []byte { return bytes.Repeat([]byte{fill}, n) }

func mustAppend(t *testing.T, s *Spool, seq uint64, size int) {
	t.Helper()
	if err := s.Append(Batch{Seq: seq, ContentEncoding: "gzip", Body: body(size, byte(seq))}); err != nil {
		t.Fatal(err)
	}
}

func TestReplayIsInSequenceOrderAcrossRestart(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, 1<<20, quiet())
	if err != nil {
		t.Fatal(err)
	}
	for _, seq := range []uint64{3, 9, 10, 100} { // 100 sorts before 9 as text without padding
		mustAppend(t, s, seq, 10)
	}
	if err := s.Append(Batch{Seq: 50, Body: []byte("x")}); err == nil {
		t.Fatal("a batch below the newest must be refused: replay order is file order")
	}

	reopened, err := Open(dir, 1<<20, quiet())
	if err != nil {
		t.Fatal(err)
	}
	var got []uint64
	for {
		b, ok, err := reopened.Oldest()
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			break
		}
		if b.ContentEncoding != "gzip" || !bytes.Equal(b.Body, body(10, byte(b.Seq))) {
			t.Fatalf("batch %d came back altered: %q %v", b.Seq, b.ContentEncoding, b.Body)
		}
		got = append(got, b.Seq)
		if err := reopened.Remove(b.Seq); err != nil {
			t.Fatal(err)
		}
	}
	if want := []uint64{3, 9, 10, 100}; !equal(got, want) {
		t.Fatalf("replay order %v, want %v", got, want)
	}
	if st := reopened.Stats(); st.Batches != 0 || st.Bytes != 0 {
		t.Fatalf("spool not empty after removing everything: %+v", st)
	}
}

func TestBoundDropsOldestAndCountsThem(t *testing.T) {
	dir := t.TempDir()
	headerLen := len(headerPrefix) + len("gzip") + 1
	batchSize := 1000 + headerLen
	s, err := Open(dir, int64(3*batchSize), quiet())
	if err != nil {
		t.Fatal(err)
	}
	for seq := uint64(1); seq <= 5; seq++ {
		mustAppend(t, s, seq, 1000)
	}
	st := s.Stats()
	if st.Batches != 3 || st.DroppedBatches != 2 || st.OldestSeq != 3 || st.NewestSeq != 5 || st.Bytes != int64(3*batchSize) {
		t.Fatalf("after 5 appends into room for 3: %+v", st)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.batch"))
	if len(files) != 3 || filepath.Base(files[0]) != "00000000000000000003.batch" {
		t.Fatalf("files on disk: %v", files)
	}

	// A smaller bound at the next start applies to what is already there.
	s2, err := Open(dir, int64(batchSize), quiet())
	if err != nil {
		t.Fatal(err)
	}
	if st := s2.Stats(); st.Batches != 1 || st.OldestSeq != 5 || st.DroppedBatches != 2 {
		t.Fatalf("reopened with a smaller bound: %+v", st)
	}
}

func TestNewestBatchIsKeptEvenIfLargerThanTheBound(t *testing.T) {
	s, _ := Open(t.TempDir(), 100, quiet())
	mustAppend(t, s, 1, 500)
	mustAppend(t, s, 2, 500)
	if st := s.Stats(); st.Batches != 1 || st.NewestSeq != 2 {
		t.Fatalf("%+v", st)
	}
}

func TestCrashLeftoversAreCleanedAndIgnored(t *testing.T) {
	dir := t.TempDir()
	s, _ := Open(dir, 1<<20, quiet())
	mustAppend(t, s, 1, 10)
	// What a crash during Append leaves: a temp file never renamed.
	partial := filepath.Join(dir, ".00000000000000000002.tmp")
	if err := os.WriteFile(partial, []byte("spindle-batch/1 content-enc"), 0o600); err != nil {
		t.Fatal(err)
	}
	// And a file that is not a batch at all.
	if err := os.WriteFile(filepath.Join(dir, "notes.batch"), []byte("?"), 0o600); err != nil {
		t.Fatal(err)
	}
	s2, err := Open(dir, 1<<20, quiet())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(partial); !os.IsNotExist(err) {
		t.Fatalf("partial file still there: %v", err)
	}
	if st := s2.Stats(); st.Batches != 1 || st.NewestSeq != 1 {
		t.Fatalf("%+v", st)
	}
	mustAppend(t, s2, 2, 10) // the crashed sequence number is reusable locally: it never left
}

func TestCorruptBatchIsRejectedNotBlocking(t *testing.T) {
	dir := t.TempDir()
	s, _ := Open(dir, 1<<20, quiet())
	mustAppend(t, s, 1, 10)
	mustAppend(t, s, 2, 10)
	if err := os.WriteFile(filepath.Join(dir, "00000000000000000001.batch"), []byte("garbage"), 0o600); err != nil {
		t.Fatal(err)
	}
	b, ok, err := s.Oldest()
	if err != nil || !ok || b.Seq != 2 {
		t.Fatalf("Oldest = %d %v %v, want batch 2 after skipping the corrupt one", b.Seq, ok, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "rejected", "00000000000000000001.batch")); err != nil {
		t.Fatalf("corrupt batch not moved to rejected: %v", err)
	}
}

func TestRejectedIsBounded(t *testing.T) {
	dir := t.TempDir()
	s, _ := Open(dir, 1<<20, quiet())
	s.maxRejected = 3
	for seq := uint64(1); seq <= 5; seq++ {
		mustAppend(t, s, seq, 10)
		if err := s.Reject(seq); err != nil {
			t.Fatal(err)
		}
	}
	files, _ := filepath.Glob(filepath.Join(dir, "rejected", "*.batch"))
	if len(files) != 3 || filepath.Base(files[0]) != "00000000000000000003.batch" {
		t.Fatalf("rejected dir keeps the newest 3, got %v", files)
	}
	if st := s.Stats(); st.RejectedBatches != 5 || st.Batches != 0 {
		t.Fatalf("%+v", st)
	}
}

func TestSequencePersistsAndRaises(t *testing.T) {
	path := filepath.Join(t.TempDir(), "batch.seq")
	seq, err := OpenSequence(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	for want := uint64(1); want <= 3; want++ {
		if got, err := seq.Next(); err != nil || got != want {
			t.Fatalf("Next = %d, %v; want %d", got, err, want)
		}
	}
	again, _ := OpenSequence(path, 0)
	if got, _ := again.Next(); got != 4 {
		t.Fatalf("after restart Next = %d, want 4", got)
	}
	if err := RaiseSequence(path, 1000); err != nil {
		t.Fatal(err)
	}
	if err := RaiseSequence(path, 10); err != nil { // never lowers
		t.Fatal(err)
	}
	raised, _ := OpenSequence(path, 0)
	if got, _ := raised.Next(); got != 1001 {
		t.Fatalf("after enrolment with hwm 1000 Next = %d, want 1001", got)
	}
	floored, _ := OpenSequence(path, 5000) // spool holds newer batches than the file says
	if got, _ := floored.Next(); got != 5001 {
		t.Fatalf("with spool floor 5000 Next = %d, want 5001", got)
	}
	if err := os.WriteFile(path, []byte("junk"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenSequence(path, 0); err == nil {
		t.Fatal("a corrupt sequence file must be an error, not a silent restart at 1")
	}
}

func equal(a, b []uint64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
