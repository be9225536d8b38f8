package collector

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
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
	batch := &pgx.Batch{}
	dbQuery, dbArgs := databaseStatsQuery(c.opts.Databases)
	batch.Queue(dbQuery, dbArgs...)
	ioQuery, withIO := ioStatsQuery(c.version)
	if withIO {
		batch.Queue(ioQuery)
	}
	results := c.conn.SendBatch(ctx, batch)
	defer results.Close()

	dbs := map[int64]databaseCounters{}
	rows, err := results.Query()
	if err != nil {
		return nil, nil, err
	}
	for rows.Next() {
		var id int64
		var d databaseCounters
		var reset *time.Time
		if err := rows.Scan(&id, &d.name, &d.commits, &d.rollbacks, &d.blocksHit, &d.blocksRead, &d.readTimeMillis, &reset); err != nil {
			rows.Close()
			return nil, nil, err
		}
		if reset != nil {
			d.statsReset = *reset
		}
		dbs[id] = d
	}
	if err := rows.Err(); err != nil {
		return nil, nil, err
	}
	if !withIO {
		return dbs, nil, results.Close()
	}

	ios := map[ioStatsKey]ioCounters{}
	rows, err = results.Query()
	if err != nil {
		return nil, nil, err
	}
	for rows.Next() {
		var k ioStatsKey
		var v ioCounters
		var reset *time.Time
		dest := []any{&k.backendType, &k.object, &k.context}
		for i := range v.ops {
			dest = append(dest, &v.ops[i])
		}
		if err := rows.Scan(append(dest, &reset)...); err != nil {
			rows.Close()
			return nil, nil, err
		}
		if reset != nil {
			v.statsReset = *reset
		}
		ios[k] = v
	}
	if err := rows.Err(); err != nil {
		return nil, nil, err
	}
	return dbs, ios, results.Close()
}
