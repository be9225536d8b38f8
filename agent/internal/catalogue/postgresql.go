package catalogue

// Attribute keys of the PostgreSQL metrics.
const (
	AttrDBNamespace   = "db.namespace"
	AttrDBBackendType = "spindle.db.backend_type"
	AttrDBIOObject    = "spindle.db.io_object"
	AttrDBIOContext   = "spindle.db.io_context"
	AttrDBIOOperation = "spindle.db.io_operation"
)

// PostgreSQL statistics (pg_stat_database, pg_stat_io), deltas over the interval.
var (
	PostgreSQLCommits = IntCounter{Metric{"spindle.db.postgresql.commits", "{transaction}",
		"Committed transactions, per database (divided by the interval: TPS)."}}
	PostgreSQLRollbacks = IntCounter{Metric{"spindle.db.postgresql.rollbacks", "{transaction}",
		"Rolled-back transactions, per database."}}
	PostgreSQLBlocksHit = IntCounter{Metric{"spindle.db.postgresql.blocks_hit", "{block}",
		"Buffer hits in shared buffers, per database."}}
	PostgreSQLBlocksRead = IntCounter{Metric{"spindle.db.postgresql.blocks_read", "{block}",
		"Blocks read from the OS (page cache or disk), per database."}}
	PostgreSQLBlockReadTime = FloatCounter{Metric{"spindle.db.postgresql.block_read_time", "s",
		"Time spent reading blocks, per database (needs track_io_timing)."}}
	PostgreSQLIOOperations = IntCounter{Metric{"spindle.db.postgresql.io.operations", "{operation}",
		"pg_stat_io operations by backend type, object, context and operation (PostgreSQL 16+)."}}
)
