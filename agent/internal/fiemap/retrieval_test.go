package fiemap

import (
	"encoding/binary"
	"math"
	"testing"
)

// retrievalReply builds a RETRIEVAL_POINTERS_BUFFER as Windows returns it.
func retrievalReply(startVCN int64, extents ...[2]int64) []byte {
	b := make([]byte, retrievalHeaderBytes+len(extents)*retrievalExtentBytes)
	binary.LittleEndian.PutUint32(b[0:], uint32(len(extents)))
	binary.LittleEndian.PutUint64(b[8:], uint64(startVCN))
	for i, e := range extents {
		binary.LittleEndian.PutUint64(b[16+16*i:], uint64(e[0]))
		binary.LittleEndian.PutUint64(b[24+16*i:], uint64(e[1]))
	}
	return b
}

// Cases worked by hand (no Windows machine here: these replies are built from the documented
// layout, not recorded).
func TestConsumeRetrievalPointers(t *testing.T) {
	cases := []struct {
		name  string
		reply []byte
		want  int
		next  int64
	}{
		{"contiguous file", retrievalReply(0, [2]int64{256, 1000}), 1, 256},
		{"three fragments", retrievalReply(0, [2]int64{16, 1000}, [2]int64{32, 5000}, [2]int64{48, 200}), 3, 48},
		{"adjacent runs on disk are one fragment", retrievalReply(0, [2]int64{16, 1000}, [2]int64{32, 1016}), 1, 32},
		{"sparse hole skipped in file and disk alike", retrievalReply(0, [2]int64{16, 1000}, [2]int64{32, noLCN}, [2]int64{48, 1032}), 1, 48},
		{"compressed unit: allocated part then virtual part", retrievalReply(0, [2]int64{5, 700}, [2]int64{16, noLCN}, [2]int64{21, 9000}), 2, 21},
	}
	for _, c := range cases {
		var counter Counter
		next, err := consumeRetrievalPointers(&counter, c.reply, math.MaxInt64)
		if err != nil || counter.Extents() != c.want || next != c.next {
			t.Errorf("%s: %d extents, next %d, %v; want %d, %d", c.name, counter.Extents(), next, err, c.want, c.next)
		}
	}
}

// A reply continued (ERROR_MORE_DATA) counts as one file: the second starts where the first ended.
func TestConsumeRetrievalPointersAcrossReplies(t *testing.T) {
	var counter Counter
	next, err := consumeRetrievalPointers(&counter, retrievalReply(0, [2]int64{16, 1000}), math.MaxInt64)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := consumeRetrievalPointers(&counter, retrievalReply(next, [2]int64{32, 1016}, [2]int64{40, 50}), math.MaxInt64); err != nil {
		t.Fatal(err)
	}
	if counter.Extents() != 2 {
		t.Fatalf("%d extents, want 2 (1000-1031 contiguous, then 50)", counter.Extents())
	}
}

// Space reserved past the end of the file (preallocation) is not fragmentation of its data.
func TestConsumeRetrievalPointersStopsAtEnd(t *testing.T) {
	var counter Counter
	reply := retrievalReply(0, [2]int64{16, 1000}, [2]int64{32, 5000}, [2]int64{64, 9000})
	if _, err := consumeRetrievalPointers(&counter, reply, 32); err != nil || counter.Extents() != 2 {
		t.Fatalf("%d extents, %v; want 2 (the run from cluster 32 lies past the end)", counter.Extents(), err)
	}
}

func TestConsumeRetrievalPointersRejectsNonsense(t *testing.T) {
	truncated := retrievalReply(0, [2]int64{16, 1000})
	binary.LittleEndian.PutUint32(truncated, 9)
	for name, reply := range map[string][]byte{
		"short header":      make([]byte, 8),
		"count past buffer": truncated,
		"no progress":       retrievalReply(16, [2]int64{16, 1000}),
		"negative start":    retrievalReply(-5, [2]int64{16, 1000}),
		"negative lcn":      retrievalReply(0, [2]int64{16, -7}),
	} {
		var counter Counter
		if _, err := consumeRetrievalPointers(&counter, reply, math.MaxInt64); err == nil {
			t.Errorf("%s: want an error", name)
		}
	}
}

func FuzzConsumeRetrievalPointers(f *testing.F) {
	f.Add(retrievalReply(0, [2]int64{16, 1000}, [2]int64{32, noLCN}))
	f.Add(make([]byte, 3))
	f.Fuzz(func(t *testing.T, reply []byte) {
		var counter Counter
		next, err := consumeRetrievalPointers(&counter, reply, math.MaxInt64)
		if err == nil && len(reply) >= retrievalHeaderBytes && binary.LittleEndian.Uint32(reply) > 0 &&
			next <= int64(binary.LittleEndian.Uint64(reply[8:])) {
			t.Fatalf("accepted a reply that does not advance: next %d", next)
		}
	})
}
