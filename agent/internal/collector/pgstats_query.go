package collector

import (
	"fmt"
	"strings"

	"github.com/spindle-io/spindle/agent/internal/pgquery"
)

// pgStatIOMinVersion is the first server_version_num with pg_stat_io.
const pgStatIOMinVersion = 160000

// statsResetMicros is how both queries return stats_reset: microseconds since the epoch as an
// integer, which reads the same whatever the session's DateStyle and TimeZone (NULL: never reset).
const statsResetMicros = "(extract(epoch FROM stats_reset) * 1000000)::int8"

// databaseStatsQuery reads pg_stat_database for the databases to report: the named ones, or
// every database that is not a template. The row for shared objects (datid 0) has no
// pg_database entry and drops out of the join. The names are quoted into the statement: it goes
// out with the pg_stat_io query as one simple-protocol statement list (one round trip, one
// snapshot, one transaction of the agent's own per tick), which has no parameters.
func databaseStatsQuery(databases []string) (string, error) {
	query := `SELECT s.datid::int8, s.datname, s.xact_commit, s.xact_rollback, s.blks_hit, s.blks_read,
       s.blk_read_time, ` + strings.Replace(statsResetMicros, "stats_reset", "s.stats_reset", 1) + `
  FROM pg_stat_database s JOIN pg_database d ON d.oid = s.datid
 WHERE NOT d.datistemplate`
	if len(databases) == 0 {
		return query, nil
	}
	names := make([]string, len(databases))
	for i, db := range databases {
		lit, err := pgquery.Literal(db)
		if err != nil {
			return "", fmt.Errorf("databases.postgresql.databases %q: %w", db, err)
		}
		names[i] = lit
	}
	return query + ` AND d.datname = ANY(ARRAY[` + strings.Join(names, ", ") + `]::name[])`, nil
}

// ioStatsQuery reads pg_stat_io, which exists from PostgreSQL 16 (server_version_num 160000);
// ok is false before. Columns that do not apply to a row are NULL and read as 0.
func ioStatsQuery(serverVersionNum int) (query string, ok bool) {
	if serverVersionNum < pgStatIOMinVersion {
		return "", false
	}
	columns := make([]string, len(pgStatIOOperations))
	for i, op := range pgStatIOOperations {
		columns[i] = fmt.Sprintf("COALESCE(%s, 0)::int8", op.column)
	}
	return `SELECT backend_type, object, context, ` + strings.Join(columns, ", ") + `, ` + statsResetMicros + `
  FROM pg_stat_io`, true
}

// pgStatIOOperations are the pg_stat_io columns reported, with their io_operation value.
var pgStatIOOperations = [...]struct{ column, operation string }{
	{"reads", "read"}, {"writes", "write"}, {"extends", "extend"},
	{"hits", "hit"}, {"evictions", "evict"}, {"fsyncs", "fsync"},
}
