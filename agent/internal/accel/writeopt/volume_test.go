package writeopt

import (
	"encoding/binary"
	"testing"
)

func bitmapReply(start, size int64, bits ...byte) []byte {
	b := make([]byte, 16, 16+len(bits))
	binary.LittleEndian.PutUint64(b[0:], uint64(start))
	binary.LittleEndian.PutUint64(b[8:], uint64(size))
	return append(b, bits...)
}

func TestFreeRunFindsTheFirstRunLongEnoughAcrossReplies(t *testing.T) {
	// Clusters 0-7 in use, 8-10 free, 11 in use, 12-15 free | next reply: 16-17 free, then used.
	first, err := decodeVolumeBitmap(bitmapReply(0, 24, 0xFF, 0b0000_1000))
	if err != nil {
		t.Fatal(err)
	}
	var run freeRun
	if start, ok := run.scan(first, 3); !ok || start != 8 {
		t.Fatalf("3 clusters: %d, %v; want 8", start, ok)
	}
	run = freeRun{}
	if _, ok := run.scan(first, 6); ok {
		t.Fatal("6 clusters found in a reply whose longest free run is 4")
	}
	second, _ := decodeVolumeBitmap(bitmapReply(16, 8, 0b1111_1100))
	if start, ok := run.scan(second, 6); !ok || start != 12 {
		t.Fatalf("6 clusters across replies: %d, %v; want 12", start, ok)
	}
	gap, _ := decodeVolumeBitmap(bitmapReply(64, 8, 0b1111_1100))
	run = freeRun{}
	run.scan(first, 6)
	if start, ok := run.scan(gap, 6); ok {
		t.Fatalf("a run spanning a gap between replies: %d", start)
	}
}

func TestDecodeVolumeBitmapCountsOnlyTheBitsItHolds(t *testing.T) {
	b, err := decodeVolumeBitmap(bitmapReply(8, 1000, 0, 0))
	if err != nil || b.clusters != 16 || b.startLCN != 8 {
		t.Fatalf("got %+v, %v; want 16 clusters from 8", b, err)
	}
	if _, err := decodeVolumeBitmap(make([]byte, 12)); err == nil {
		t.Fatal("a reply shorter than its header was accepted")
	}
}

func TestBusyPercentFromIdleAndQueryTime(t *testing.T) {
	perf := func(idle, query int64) diskPerformanceCounters {
		raw := make([]byte, 88)
		binary.LittleEndian.PutUint64(raw[32:], uint64(idle))
		binary.LittleEndian.PutUint64(raw[56:], uint64(query))
		c, err := decodeDiskPerformance(raw)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	// 1 s apart (10,000,000 × 100 ns), idle 0.95 s of it: 5 % busy.
	if got := busyPercent(perf(1_000, 50_000_000), perf(9_501_000, 60_000_000)); got < 4.999 || got > 5.001 {
		t.Fatalf("busy %.3f %%, want 5", got)
	}
	if got := busyPercent(perf(9_000, 60_000_000), perf(1_000, 70_000_000)); got != 0 {
		t.Fatalf("idle counter went back: %.1f %%, want 0", got)
	}
	if _, err := decodeDiskPerformance(make([]byte, 40)); err == nil {
		t.Fatal("a short DISK_PERFORMANCE was accepted")
	}
}
