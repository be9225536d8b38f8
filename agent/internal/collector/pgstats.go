package collector

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"go.opentelemetry.io/otel/attribute"

	"github.com/spindle-io/spindle/agent/internal/catalogue"
	"github.com/spindle-io/spindle/agent/internal/pgquery"
)

func init() {
	// Off by default: it runs when agent.yaml has databases.postgresql.dsn (config decides).
	register("pgstats", false, newPgstatsCollector)
	registerCapability("pgstats", "postgresql.statistics")
}

// PostgreSQLOptions say which server and databases to read statistics from.
type PostgreSQLOptions struct {
	DSN       string   // postgres://user:password@host:port/dbname?sslmode=… or key=value form
	Databases []string // empty: every database that is not a template
}

const pgConnectTimeout = 5 * time.Second

// pgstatsCollector reads pg_stat_database (and pg_stat_io on 16+) every tick over one kept
// connection and records the per-database deltas. The first tick of a database, and a tick
// after its statistics were reset, only set the baseline.
type pgstatsCollector struct {
	opts    PostgreSQLOptions
	logger  *slog.Logger
	conn    *pgconn.PgConn
	version int // server_version_num of conn's server
	dbPrev  map[int64]databaseCounters
	ioPrev  map[ioStatsKey]ioCounters
	startUp error // why the first connection failed, for the capability
}

var _ CapabilityReporter = (*pgstatsCollector)(nil)

func newPgstatsCollector(opts Options) (Collector, error) {
	if opts.PostgreSQL.DSN == "" {
		return nil, errors.New("databases.postgresql.dsn is empty: set it in the agent config, or switch collectors.pgstats off")
	}
	if _, err := pgconn.ParseConfig(opts.PostgreSQL.DSN); err != nil {
		return nil, fmt.Errorf("databases.postgresql.dsn: %w", err)
	}
	c := &pgstatsCollector{opts: opts.PostgreSQL, logger: opts.Logger}
	// Connect now so the capability list sent with every batch says whether it works; a
	// server that is down is retried every tick.
	ctx, cancel := context.WithTimeout(context.Background(), pgConnectTimeout)
	defer cancel()
	c.startUp = c.connect(ctx)
	return c, nil
}

func (c *pgstatsCollector) Capability() Capability {
	if c.startUp != nil {
		return Capability{Name: "postgresql.statistics", Reason: c.startUp.Error()}
	}
	return Capability{Name: "postgresql.statistics", Available: true}
}

func (c *pgstatsCollector) connect(ctx context.Context) error {
	cfg, err := pgconn.ParseConfig(c.opts.DSN)
	if err != nil {
		return fmt.Errorf("databases.postgresql.dsn: %w", err)
	}
	cfg.RuntimeParams["application_name"] = "spindle-agent"
	if cfg.ConnectTimeout == 0 || cfg.ConnectTimeout > pgConnectTimeout {
		cfg.ConnectTimeout = pgConnectTimeout
	}
	conn, err := pgconn.ConnectConfig(ctx, cfg)
	if err != nil {
		return fmt.Errorf("connect to PostgreSQL at %s:%d: %w (check databases.postgresql.dsn in the agent config, that the server is running, and that pg_hba.conf lets the agent's user in)",
			cfg.Host, cfg.Port, err)
	}
	raw, err := pgquery.Value(ctx, conn, "SHOW server_version_num")
	if err != nil {
		conn.Close(context.Background())
		return fmt.Errorf("PostgreSQL at %s:%d: read server_version_num: %w", cfg.Host, cfg.Port, err)
	}
	version, err := strconv.Atoi(raw)
	if err != nil {
		conn.Close(context.Background())
		return fmt.Errorf("PostgreSQL at %s:%d: server_version_num %q: %w", cfg.Host, cfg.Port, raw, err)
	}
	c.conn, c.version = conn, version
	return nil
}

func (c *pgstatsCollector) Collect(ctx context.Context, sink Sink) error {
	if c.conn == nil {
		if err := c.connect(ctx); err != nil {
			return err
		}
	}
	dbs, ios, err := c.read(ctx)
	if err != nil {
		// Whatever broke (server restart, network), start from a fresh connection next tick.
		c.conn.Close(context.Background())
		c.conn = nil
		return fmt.Errorf("read PostgreSQL statistics: %w", err)
	}
	c.recordDatabases(dbs, sink)
	c.recordIO(ios, sink)
	return nil
}

func (c *pgstatsCollector) Close() error {
	if c.conn == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	return c.conn.Close(ctx)
}

func (c *pgstatsCollector) recordDatabases(cur map[int64]databaseCounters, sink Sink) {
	for id, now := range cur {
		before, seen := c.dbPrev[id]
		if !seen || !now.continues(before) {
			continue // new database (or one dropped and re-created: a new oid), or reset: baseline
		}
		ns := attribute.String(catalogue.AttrDBNamespace, now.name)
		sink.AddInt(catalogue.PostgreSQLCommits, now.commits-before.commits, ns)
		sink.AddInt(catalogue.PostgreSQLRollbacks, now.rollbacks-before.rollbacks, ns)
		sink.AddInt(catalogue.PostgreSQLBlocksHit, now.blocksHit-before.blocksHit, ns)
		sink.AddInt(catalogue.PostgreSQLBlocksRead, now.blocksRead-before.blocksRead, ns)
		sink.AddFloat(catalogue.PostgreSQLBlockReadTime, (now.readTimeMillis-before.readTimeMillis)/1000, ns)
	}
	c.dbPrev = cur
}

// recordIO records only the operations that happened: most pg_stat_io cells never move.
func (c *pgstatsCollector) recordIO(cur map[ioStatsKey]ioCounters, sink Sink) {
	for key, now := range cur {
		before, seen := c.ioPrev[key]
		if !seen || !now.continues(before) {
			continue
		}
		for i, op := range pgStatIOOperations {
			if d := now.ops[i] - before.ops[i]; d > 0 {
				sink.AddInt(catalogue.PostgreSQLIOOperations, d,
					attribute.String(catalogue.AttrDBBackendType, key.backendType),
					attribute.String(catalogue.AttrDBIOObject, key.object),
					attribute.String(catalogue.AttrDBIOContext, key.context),
					attribute.String(catalogue.AttrDBIOOperation, op.operation))
			}
		}
	}
	c.ioPrev = cur
}
