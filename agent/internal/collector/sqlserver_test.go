package collector

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/spindle-io/spindle/agent/internal/pdh"
)

// replayQuery stands in for a PDH query on a Windows host (none here): each Collect returns
// the next recorded snapshot.
type replayQuery struct {
	t         *testing.T
	snapshots []string
	next      *int
	closed    bool
}

func (q *replayQuery) Collect() (pdh.Snapshot, error) {
	return readPDHFixture(q.t, q.snapshots[*q.next]), nil
}

func (q *replayQuery) Close() error { q.closed = true; return nil }

func TestSQLServerFromPDH(t *testing.T) {
	tick := 0
	opened := map[string]*replayQuery{}
	instances := []string{"MSSQLSERVER", "SALES"}
	c := &sqlServerCollector{
		instances: func() ([]string, error) { return instances, nil },
		open: func(specs []pdh.Spec) (pdh.Query, error) {
			q := &replayQuery{t: t, snapshots: []string{"pdh-sqlserver-tick1", "pdh-sqlserver-tick2"}, next: &tick}
			opened[specs[0].Object] = q
			return q, nil
		},
		queries: map[string]pdh.Query{}, prev: map[string]uint64{},
	}
	first := newRecordingSink()
	if err := c.Collect(context.Background(), first); err != nil {
		t.Fatal(err)
	}
	// First tick: gauges only (SALES has read no page yet: no hit ratio rather than 0).
	want1 := "gauge spindle.db.sqlserver.buffer_cache_hit_ratio[1]{spindle.db.sqlserver.instance=MSSQLSERVER} 0.995\n" +
		"gauge spindle.db.sqlserver.page_life_expectancy[s]{spindle.db.sqlserver.instance=MSSQLSERVER} 3600\n" +
		"gauge spindle.db.sqlserver.page_life_expectancy[s]{spindle.db.sqlserver.instance=SALES} 12\n"
	if got := first.render(); got != want1 {
		t.Fatalf("first tick\n got %s\nwant %s", got, want1)
	}
	tick++
	second := newRecordingSink()
	if err := c.Collect(context.Background(), second); err != nil {
		t.Fatal(err)
	}
	// 12,500 batches on the default instance; SALES restarted, so its count is re-baselined.
	checkGolden(t, "windows/pdh-sqlserver-tick2.golden", second.render())
	if !strings.Contains(second.render(), "batch_requests[{request}]{spindle.db.sqlserver.instance=MSSQLSERVER} 12500") ||
		strings.Contains(second.render(), "batch_requests[{request}]{spindle.db.sqlserver.instance=SALES}") {
		t.Fatal("want 12500 batches for MSSQLSERVER and none for the restarted SALES")
	}

	// SALES uninstalled: its query is closed and it is no longer reported.
	instances = []string{"MSSQLSERVER"}
	third := newRecordingSink()
	if err := c.Collect(context.Background(), third); err != nil {
		t.Fatal(err)
	}
	if !opened["MSSQL$SALES:SQL Statistics"].closed || strings.Contains(third.render(), "SALES") {
		t.Fatal("a removed instance must be forgotten and its query closed")
	}
}

func TestSQLServerInstanceThatCannotBeRead(t *testing.T) {
	tick := 0
	c := &sqlServerCollector{
		instances: func() ([]string, error) { return []string{"MSSQLSERVER", "STOPPED"}, nil },
		open: func(specs []pdh.Spec) (pdh.Query, error) {
			if strings.HasPrefix(specs[0].Object, "MSSQL$STOPPED") {
				return nil, fmt.Errorf("add counter: %w", pdh.ErrNoCounter)
			}
			return &replayQuery{t: t, snapshots: []string{"pdh-sqlserver-tick1"}, next: &tick}, nil
		},
		queries: map[string]pdh.Query{}, prev: map[string]uint64{},
	}
	sink := newRecordingSink()
	err := c.Collect(context.Background(), sink)
	if err == nil || !strings.Contains(err.Error(), "sqlserver STOPPED") || !errors.Is(err, pdh.ErrNoCounter) {
		t.Fatalf("want an error naming the instance, got %v", err)
	}
	if !strings.Contains(sink.render(), "instance=MSSQLSERVER} 3600") {
		t.Fatal("the readable instance must still be recorded")
	}
}

func TestSQLServerNoneInstalled(t *testing.T) {
	c := &sqlServerCollector{instances: func() ([]string, error) { return nil, nil }}
	if err := c.Collect(context.Background(), newRecordingSink()); !errors.Is(err, ErrNoData) {
		t.Fatalf("want ErrNoData, got %v", err)
	}
}
