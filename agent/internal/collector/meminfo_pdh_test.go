package collector

import (
	"context"
	"strings"
	"testing"
)

const (
	gib             = 1 << 30
	fixtureTotals16 = 16 * gib
)

func TestMemoryFromPDHGolden(t *testing.T) {
	totals := windowsMemoryTotals{TotalPhysBytes: fixtureTotals16, CommitLimitBytes: 20 * gib}
	c := &meminfoCollector{read: func() (memoryBytes, error) {
		return memoryFromPDH(readPDHFixture(t, "pdh-memory"), totals)
	}}
	sink := newRecordingSink()
	if err := c.Collect(context.Background(), sink); err != nil {
		t.Fatal(err)
	}
	// cached = 0.5 GiB system cache + 4.25 GiB standby + 0.125 GiB modified; page files 4 GiB,
	// a quarter used; no buffers (Windows has none apart from its file cache).
	checkGolden(t, "windows/pdh-memory.golden", sink.render())
	m, _ := c.read()
	if m.Cached != 5234491392 || m.SwapTotal != 4*gib || m.SwapFree != 3*gib || m.Dirty != 128<<20 {
		t.Fatalf("worked by hand: cached 5234491392, swap 4 GiB with 3 GiB free, dirty 128 MiB; got %+v", m)
	}
	if strings.Contains(sink.render(), "buffers") {
		t.Fatal("buffers sent for Windows, which has no separate buffer cache")
	}
}

func TestMemoryFromPDHWithoutPageFile(t *testing.T) {
	s := readPDHFixture(t, "pdh-memory")
	delete(s.Values, pdhPagingUsage)
	m, err := memoryFromPDH(s, windowsMemoryTotals{TotalPhysBytes: fixtureTotals16, CommitLimitBytes: fixtureTotals16})
	if err != nil || !m.NoSwap {
		t.Fatalf("without a page file paging must be not measured, got %+v, %v", m, err)
	}
}

func TestMemoryFromPDHMissingCounter(t *testing.T) {
	s := readPDHFixture(t, "pdh-memory")
	delete(s.Values, pdhMemModified)
	_, err := memoryFromPDH(s, windowsMemoryTotals{TotalPhysBytes: fixtureTotals16})
	if err == nil || !strings.Contains(err.Error(), "Modified Page List Bytes") {
		t.Fatalf("want an error naming the missing counter, got %v", err)
	}
	s = readPDHFixture(t, "pdh-memory")
	if _, err := memoryFromPDH(s, windowsMemoryTotals{}); err == nil {
		t.Fatal("want an error when installed memory is unknown")
	}
}
