package blocksamples

import (
	"testing"
	"time"

	"github.com/spindle-io/spindle/agent/internal/bpf"
	"github.com/spindle-io/spindle/agent/internal/bpf/bpftest"
)

// waitForSamples drains the ring until want samples of dev arrived or 5 s passed.
func waitForSamples(t *testing.T, st *Stream, dev bpf.Dev, want int) []Sample {
	t.Helper()
	var mine []Sample
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline) && len(mine) < want; {
		time.Sleep(pollInterval / 2)
		for _, s := range st.Ring().Drain() {
			if s.Dev == dev {
				mine = append(mine, s)
			}
		}
	}
	return mine
}

// TestStreamRecordsEachIO keeps every I/O (sample_every 1) and finds each write of a burst,
// in order, with its sector, size, operation and time.
func TestStreamRecordsEachIO(t *testing.T) {
	bpftest.RequireRoot(t)
	loop := bpftest.NewLoop(t, 64<<20)
	st, err := Start(Settings{SampleEvery: 1, Capacity: 1 << 16})
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	defer st.Close()

	const writes, size, offset = 500, 8192, 1 << 20
	buf := bpftest.AlignedBuffer(t, size)
	issued := time.Now()
	loop.WriteDirect(t, buf, offset, writes)
	mine := waitForSamples(t, st, loop.Dev, writes)
	if len(mine) != writes {
		t.Fatalf("%d samples of %s, want %d", len(mine), loop.Name, writes)
	}
	for i, s := range mine {
		want := Sample{Dev: loop.Dev, Sector: uint64((offset + i*size) / 512), Bytes: size, Op: bpf.OpWrite, Time: s.Time}
		if s != want {
			t.Fatalf("sample %d = %+v, want %+v", i, s, want)
		}
		if s.Time.Before(issued.Add(-time.Second)) || s.Time.After(time.Now()) {
			t.Fatalf("sample %d dated %s, the burst started at %s", i, s.Time, issued)
		}
	}
}

// TestStreamStaysBounded runs a burst of 2,000 writes into a ring of 64: the ring never holds
// more than 64 and every sample beyond that is counted as overwritten.
func TestStreamStaysBounded(t *testing.T) {
	bpftest.RequireRoot(t)
	loop := bpftest.NewLoop(t, 64<<20)
	st, err := Start(Settings{SampleEvery: 1, Capacity: 64})
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	defer st.Close()

	const writes = 2000
	buf := bpftest.AlignedBuffer(t, 4096)
	for range writes / 100 {
		loop.WriteDirect(t, buf, 0, 100)
		if n := st.Ring().Len(); n > 64 {
			t.Fatalf("ring holds %d samples, capacity 64", n)
		}
	}
	time.Sleep(2 * pollInterval)
	stats := st.Ring().Stats()
	lost, err := st.Lost()
	if err != nil {
		t.Fatal(err)
	}
	if st.Ring().Len() != 64 || stats.Kept+lost < writes || stats.Overwritten != stats.Kept-64 {
		t.Errorf("len %d, stats %+v, lost %d after %d writes into a ring of 64", st.Ring().Len(), stats, lost, writes)
	}
}

// TestSamplingKeepsAboutOneInN checks the spatial sampling rate on distinct blocks.
func TestSamplingKeepsAboutOneInN(t *testing.T) {
	bpftest.RequireRoot(t)
	loop := bpftest.NewLoop(t, 64<<20)
	st, err := Start(Settings{SampleEvery: 16, Capacity: 1 << 16})
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	defer st.Close()
	const writes = 3200
	loop.WriteDirect(t, bpftest.AlignedBuffer(t, 4096), 0, writes)
	time.Sleep(2 * pollInterval)
	n := 0
	for _, s := range st.Ring().Drain() {
		if s.Dev == loop.Dev {
			n++
		}
	}
	// 3200/16 = 200 expected; a fair hash stays well within 100..300.
	if n < 100 || n > 300 {
		t.Errorf("%d of %d distinct blocks sampled at 1 in 16", n, writes)
	}
}
