package catalogue

// Attribute keys of the PostgreSQL metrics.
const (
	AttrDBNamespace   = "db.namespace"
	AttrDBBackendType = "spindle.db.backend_type"
	AttrDBIOObject    = "spindle.db.io_object"
	AttrDBIOContext   = "spindle.db.io_context"
	AttrDBIOOperation = "spindle.db.io_operation"
)

// AttrSQLServerInstance names a SQL Server instance (MSSQLSERVER for the default one).
const AttrSQLServerInstance = "spindle.db.sqlserver.instance"
