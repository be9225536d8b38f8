package spool

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// refuse makes the disk refuse batch seq: a directory where its temp file must be created
// fails the open as a full disk does, for root too.
func refuse(t *testing.T, dir string, seq uint64) func() {
	t.Helper()
	path := filepath.Join(dir, fmt.Sprintf(".%020d%s", seq, tmpSuffix))
	if err := os.Mkdir(path, 0o700); err != nil {
		t.Fatal(err)
	}
	return func() { os.Remove(path) }
}

func TestBatchesTheDiskRefusesAreHeldDeliveredAndWrittenLater(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, 1<<20, quiet())
	if err != nil {
		t.Fatal(err)
	}
	mustAppend(t, s, 1, 10)
	allow2, allow3 := refuse(t, dir, 2), refuse(t, dir, 3)
	mustAppend(t, s, 2, 10)
	mustAppend(t, s, 3, 10)
	st := s.Stats()
	if st.Batches != 3 || st.HeldBatches != 2 || st.HeldBytes != 2*int64(len(headerPrefix)+len("gzip\n")+10) || st.WriteError == "" {
		t.Fatalf("after two refused writes: %+v", st)
	}

	// Delivery goes on from memory, in sequence order.
	for _, want := range []uint64{1, 2} {
		b, ok, err := s.Oldest()
		if err != nil || !ok || b.Seq != want || string(b.Body) != string(body(10, byte(want))) {
			t.Fatalf("oldest = %d %v %v, want batch %d intact", b.Seq, ok, err, want)
		}
		if err := s.Remove(b.Seq); err != nil {
			t.Fatal(err)
		}
	}

	// The disk has room again: the next append writes the held batch first, then its own.
	allow2()
	allow3()
	mustAppend(t, s, 4, 10)
	if st := s.Stats(); st.Batches != 2 || st.HeldBatches != 0 || st.HeldBytes != 0 || st.WriteError != "" || st.DroppedBatches != 0 {
		t.Fatalf("after the disk recovered: %+v", st)
	}
	reopened, err := Open(dir, 1<<20, quiet())
	if err != nil {
		t.Fatal(err)
	}
	if st := reopened.Stats(); st.Batches != 2 || st.OldestSeq != 3 || st.NewestSeq != 4 {
		t.Fatalf("held batch 3 did not reach the disk: %+v", st)
	}
}

func TestMemoryHeldWhileTheDiskRefusesIsBoundedAndDropsAreCounted(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, 64<<20, quiet())
	if err != nil {
		t.Fatal(err)
	}
	const size = 1 << 20
	for seq := uint64(1); seq <= 10; seq++ {
		refuse(t, dir, seq)
		mustAppend(t, s, seq, size)
	}
	st := s.Stats()
	if st.HeldBytes > MaxHeldBytes || st.DroppedBatches == 0 || st.OldestSeq != 1+st.DroppedBatches || st.NewestSeq != 10 {
		t.Fatalf("held memory over its bound or drops not oldest first: %+v", st)
	}
	if uint64(st.Batches)+st.DroppedBatches != 10 {
		t.Fatalf("every batch is held or counted as dropped: %+v", st)
	}
}

func TestNumbersGoOnWhenTheSequenceFileCannotBeWritten(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "batch.seq")
	seq, err := OpenSequence(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := seq.Next(); n != 1 || err != nil || seq.PersistError() != nil {
		t.Fatalf("Next = %d, %v (persist %v)", n, err, seq.PersistError())
	}
	blocker := path + tmpSuffix // the disk refuses the file's temp copy, as a full one does
	if err := os.Mkdir(blocker, 0o700); err != nil {
		t.Fatal(err)
	}
	for want := uint64(2); want <= 3; want++ {
		if n, err := seq.Next(); n != want || err != nil {
			t.Fatalf("Next = %d, %v; want %d handed out though the file lags", n, err, want)
		}
	}
	if seq.PersistError() == nil {
		t.Fatal("PersistError must say the file lags")
	}
	if last, _ := readSequence(path); last != 1 {
		t.Fatalf("file holds %d, want 1 while the disk refuses", last)
	}
	os.Remove(blocker)
	if n, _ := seq.Next(); n != 4 || seq.PersistError() != nil {
		t.Fatalf("Next = %d, persist %v", n, seq.PersistError())
	}
	if last, _ := readSequence(path); last != 4 {
		t.Fatalf("file holds %d, want 4 once the disk takes it", last)
	}
}
