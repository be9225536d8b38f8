package collector

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/spindle-io/spindle/agent/internal/pgquery"
)

// databaseCounters is one pg_stat_database row.
type databaseCounters struct {
	name                                      string
	commits, rollbacks, blocksHit, blocksRead int64
	readTimeMillis                            float64
	statsReset                                time.Time // zero when never reset
}

// continues reports whether now follows before without a statistics reset in between: the
// reset time is unchanged and no counter went backwards (pg_stat_reset() records a time,
// a crash restart does not).
func (now databaseCounters) continues(before databaseCounters) bool {
	return now.statsReset.Equal(before.statsReset) && now.commits >= before.commits &&
		now.rollbacks >= before.rollbacks && now.blocksHit >= before.blocksHit &&
		now.blocksRead >= before.blocksRead && now.readTimeMillis >= before.readTimeMillis
}

type ioStatsKey struct{ backendType, object, context string }

// ioCounters are one pg_stat_io row's operations, in pgStatIOOperations order.
type ioCounters struct {
	ops        [len(pgStatIOOperations)]int64
	statsReset time.Time
}

func (now ioCounters) continues(before ioCounters) bool {
	if !now.statsReset.Equal(before.statsReset) {
		return false
	}
	for i := range now.ops {
		if now.ops[i] < before.ops[i] {
			return false
		}
	}
	return true
}

// read runs the statistics queries in one round trip.
func (c *pgstatsCollector) read(ctx context.Context) (map[int64]databaseCounters, map[ioStatsKey]ioCounters, error) {
	sql, err := databaseStatsQuery(c.opts.Databases)
	if err != nil {
		return nil, nil, err
	}
	ioQuery, withIO := ioStatsQuery(c.version)
	if withIO {
		sql += ";\n" + ioQuery
	}
	results, err := pgquery.Query(ctx, c.conn, sql)
	if err != nil {
		return nil, nil, err
	}
	want := 1
	if withIO {
		want = 2
	}
	if len(results) != want {
		return nil, nil, fmt.Errorf("%d results for %d statistics queries", len(results), want)
	}

	dbs := map[int64]databaseCounters{}
	for _, row := range results[0] {
		var d databaseCounters
		var id int64
		p := &textRow{cols: row}
		if len(row) != 8 {
			return nil, nil, fmt.Errorf("pg_stat_database: %d columns, want 8", len(row))
		}
		id, d.name = p.int(0), p.text(1)
		d.commits, d.rollbacks, d.blocksHit, d.blocksRead = p.int(2), p.int(3), p.int(4), p.int(5)
		d.readTimeMillis, d.statsReset = p.float(6), p.micros(7)
		if p.err != nil {
			return nil, nil, fmt.Errorf("pg_stat_database: %w", p.err)
		}
		dbs[id] = d
	}
	if !withIO {
		return dbs, nil, nil
	}

	ios := map[ioStatsKey]ioCounters{}
	for _, row := range results[1] {
		var k ioStatsKey
		var v ioCounters
		p := &textRow{cols: row}
		if len(row) != 3+len(v.ops)+1 {
			return nil, nil, fmt.Errorf("pg_stat_io: %d columns, want %d", len(row), 3+len(v.ops)+1)
		}
		k.backendType, k.object, k.context = p.text(0), p.text(1), p.text(2)
		for i := range v.ops {
			v.ops[i] = p.int(3 + i)
		}
		v.statsReset = p.micros(3 + len(v.ops))
		if p.err != nil {
			return nil, nil, fmt.Errorf("pg_stat_io: %w", p.err)
		}
		ios[k] = v
	}
	return dbs, ios, nil
}

// textRow parses one text-format row, keeping the first error. NULL reads as zero: only
// blk_read_time and stats_reset can be NULL, and a zero stats_reset means never reset.
type textRow struct {
	cols [][]byte
	err  error
}

func (r *textRow) text(i int) string { return string(r.cols[i]) }

func (r *textRow) int(i int) int64 {
	if r.cols[i] == nil {
		return 0
	}
	n, err := strconv.ParseInt(string(r.cols[i]), 10, 64)
	if err != nil && r.err == nil {
		r.err = fmt.Errorf("column %d: %w", i+1, err)
	}
	return n
}

func (r *textRow) float(i int) float64 {
	if r.cols[i] == nil {
		return 0
	}
	f, err := strconv.ParseFloat(string(r.cols[i]), 64)
	if err != nil && r.err == nil {
		r.err = fmt.Errorf("column %d: %w", i+1, err)
	}
	return f
}

// micros reads microseconds since the epoch (statsResetMicros); NULL is the zero time.
func (r *textRow) micros(i int) time.Time {
	if r.cols[i] == nil {
		return time.Time{}
	}
	return time.UnixMicro(r.int(i))
}
