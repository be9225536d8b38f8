package collector

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/spindle-io/spindle/agent/internal/pdh"
)

func TestFileCacheFromPDH(t *testing.T) {
	ticks := []string{"pdh-cache-tick1", "pdh-cache-tick2"}
	next := 0
	c := &fileCacheCollector{read: func() (copyReads, error) {
		s := readPDHFixture(t, ticks[next])
		next++
		return copyReadsFromPDH(s)
	}}
	if err := c.Collect(context.Background(), newRecordingSink()); !errors.Is(err, ErrNoData) {
		t.Fatalf("first tick: want ErrNoData (baseline), got %v", err)
	}
	sink := newRecordingSink()
	if err := c.Collect(context.Background(), sink); err != nil {
		t.Fatal(err)
	}
	want := "counter spindle.page_cache.accesses[{page}]{} 2000\ncounter spindle.page_cache.misses[{page}]{} 300\n"
	if got := sink.render(); got != want {
		t.Fatalf("got\n%swant\n%s", got, want)
	}
	if cap := c.Capability(); cap.Available || !strings.Contains(cap.Reason, "read requests rather than pages") {
		t.Fatalf("the capability must say where the numbers come from: %+v", cap)
	}
}

func TestCopyReadsFromPDHRejectsNonsense(t *testing.T) {
	s := pdh.Snapshot{Values: map[pdh.Counter]map[string]pdh.Raw{}}
	if _, err := copyReadsFromPDH(s); err == nil {
		t.Fatal("a missing counter must be an error")
	}
	s.Values[pdhCopyReadHits] = map[string]pdh.Raw{pdh.NoInstance: {First: 5, Second: 4}}
	if _, err := copyReadsFromPDH(s); err == nil {
		t.Fatal("more hits than reads must be an error")
	}
}
