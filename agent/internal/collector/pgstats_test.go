package collector

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestPgStatIOIsReadFromPostgreSQL16(t *testing.T) {
	for version, want := range map[int]bool{90624: false, 150018: false, 159999: false, 160000: true, 170004: true, 180000: true} {
		query, ok := ioStatsQuery(version)
		if ok != want {
			t.Errorf("server_version_num %d: pg_stat_io read = %v, want %v", version, ok, want)
		}
		if ok && (!strings.Contains(query, "FROM pg_stat_io") || !strings.Contains(query, "COALESCE(fsyncs, 0)")) {
			t.Errorf("query %q", query)
		}
	}
}

func TestDatabaseStatsQuerySelectsTheConfiguredDatabases(t *testing.T) {
	all, err := databaseStatsQuery(nil)
	if strings.Contains(all, "ANY") || err != nil || !strings.Contains(all, "NOT d.datistemplate") {
		t.Errorf("all databases: %q %v", all, err)
	}
	some, err := databaseStatsQuery([]string{"shop", `o'brien\`})
	if want := `d.datname = ANY(ARRAY[E'shop', E'o''brien\\']::name[])`; !strings.Contains(some, want) || err != nil {
		t.Errorf("named databases: %q %v; want it to contain %s", some, err, want)
	}
	if _, err := databaseStatsQuery([]string{"a\x00b"}); err == nil {
		t.Error("a name with a NUL character was quoted into the query")
	}
}

func TestPgstatsDeltasBaselinesAndResets(t *testing.T) {
	c := &pgstatsCollector{}
	reset := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	shop := databaseCounters{name: "shop", commits: 100, rollbacks: 2, blocksHit: 1000, blocksRead: 50, readTimeMillis: 12.5}

	first := newRecordingSink()
	c.recordDatabases(map[int64]databaseCounters{16384: shop}, first)
	if len(first.series) != 0 {
		t.Fatalf("first tick must only baseline: %v", first.series)
	}

	later := shop
	later.commits, later.rollbacks, later.blocksHit, later.blocksRead, later.readTimeMillis = 130, 3, 1500, 60, 20
	auth := databaseCounters{name: "auth", commits: 5}
	second := newRecordingSink()
	c.recordDatabases(map[int64]databaseCounters{16384: later, 16385: auth}, second)
	checkGolden(t, "pgstats-deltas.golden", second.render())

	afterReset := databaseCounters{name: "shop", commits: 4, statsReset: reset}
	authLater := auth
	authLater.commits = 9
	third := newRecordingSink()
	c.recordDatabases(map[int64]databaseCounters{16384: afterReset, 16385: authLater}, third)
	if got := third.render(); strings.Contains(got, "db.namespace=shop") || !strings.Contains(got, "spindle.db.postgresql.commits[{transaction}]{db.namespace=auth} 4") {
		t.Fatalf("a reset database re-baselines, the other goes on:\n%s", got)
	}

	sameTimeButLower := afterReset
	sameTimeButLower.commits = 1 // a crash restart loses counters without recording a reset time
	fourth := newRecordingSink()
	c.recordDatabases(map[int64]databaseCounters{16384: sameTimeButLower}, fourth)
	if len(fourth.series) != 0 {
		t.Fatalf("counters going back must re-baseline: %v", fourth.series)
	}
}

func TestPgStatIODeltasOnlyForOperationsThatHappened(t *testing.T) {
	c := &pgstatsCollector{}
	key := ioStatsKey{"client backend", "relation", "normal"}
	c.recordIO(map[ioStatsKey]ioCounters{key: {ops: [6]int64{10, 5, 1, 100, 0, 0}}}, newRecordingSink())
	sink := newRecordingSink()
	c.recordIO(map[ioStatsKey]ioCounters{key: {ops: [6]int64{14, 5, 1, 160, 0, 2}}}, sink)
	want := `counter spindle.db.postgresql.io.operations[{operation}]{spindle.db.backend_type=client backend,spindle.db.io_context=normal,spindle.db.io_object=relation,spindle.db.io_operation=fsync} 2
counter spindle.db.postgresql.io.operations[{operation}]{spindle.db.backend_type=client backend,spindle.db.io_context=normal,spindle.db.io_object=relation,spindle.db.io_operation=hit} 60
counter spindle.db.postgresql.io.operations[{operation}]{spindle.db.backend_type=client backend,spindle.db.io_context=normal,spindle.db.io_object=relation,spindle.db.io_operation=read} 4
`
	if got := sink.render(); got != want {
		t.Fatalf("got\n%swant\n%s", got, want)
	}
}

func TestPgstatsUnreachableServerIsAnErrorWithAHint(t *testing.T) {
	start := time.Now()
	c, err := newPgstatsCollector(Options{PostgreSQL: PostgreSQLOptions{DSN: "postgres://spindle:secret-pw@127.0.0.1:56899/postgres?connect_timeout=2"}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	capability := c.(CapabilityReporter).Capability()
	if capability.Available || !strings.Contains(capability.Reason, "check databases.postgresql.dsn") {
		t.Fatalf("capability %+v", capability)
	}
	err = c.Collect(context.Background(), newRecordingSink())
	if err == nil || errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), "127.0.0.1:56899") {
		t.Fatalf("Collect: %v, want an error naming the server", err)
	}
	if strings.Contains(err.Error(), "secret-pw") || strings.Contains(capability.Reason, "secret-pw") {
		t.Fatalf("the password leaked into an error: %v", err)
	}
	if time.Since(start) > 10*time.Second {
		t.Fatalf("connection attempts took %v", time.Since(start))
	}
}

func TestPgstatsNeedsADSN(t *testing.T) {
	if _, err := newPgstatsCollector(Options{}); err == nil || !strings.Contains(err.Error(), "databases.postgresql.dsn") {
		t.Fatalf("%v", err)
	}
	if _, err := newPgstatsCollector(Options{PostgreSQL: PostgreSQLOptions{DSN: "postgres://x:y@host:notaport/db"}}); err == nil {
		t.Fatal("a malformed DSN must be refused")
	}
}
