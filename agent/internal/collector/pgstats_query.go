package collector

import (
	"fmt"
	"strings"
)

// pgStatIOMinVersion is the first server_version_num with pg_stat_io.
const pgStatIOMinVersion = 160000

// databaseStatsQuery reads pg_stat_database for the databases to report: the named ones, or
// every database that is not a template. The row for shared objects (datid 0) has no
// pg_database entry and drops out of the join.
func databaseStatsQuery(databases []string) (query string, args []any) {
	query = `SELECT s.datid::int8, s.datname, s.xact_commit, s.xact_rollback, s.blks_hit, s.blks_read,
       s.blk_read_time, s.stats_reset
  FROM pg_stat_database s JOIN pg_database d ON d.oid = s.datid
 WHERE NOT d.datistemplate`
	if len(databases) > 0 {
		query += ` AND d.datname = ANY($1)`
		args = []any{databases}
	}
	return query, args
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
	return `SELECT backend_type, object, context, ` + strings.Join(columns, ", ") + `, stats_reset
  FROM pg_stat_io`, true
}

// pgStatIOOperations are the pg_stat_io columns reported, with their io_operation value.
var pgStatIOOperations = [...]struct{ column, operation string }{
	{"reads", "read"}, {"writes", "write"}, {"extends", "extend"},
	{"hits", "hit"}, {"evictions", "evict"}, {"fsyncs", "fsync"},
}
