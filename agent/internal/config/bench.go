package config

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
)

// BenchConfig limits the proof runs the console may request on this server. Only an operator
// of the server (who edits agent.yaml) decides where they may write, how much free space they
// must leave and which PostgreSQL and pgbench they use: the console's request can set none of
// these (issue 25, L1). `spindle-agent bench` on the command line is not limited by it.
type BenchConfig struct {
	// Paths are directories remote proof runs may create their (temporary) files in; the
	// console's request form offers exactly these. Without them every remote run is refused.
	Paths []string `yaml:"paths,omitempty"`
	// FreeSpaceFloorBytes: a remote run is refused when its files would leave less free space
	// than this on a file system it writes to. 0: the larger of 1 GiB and 5 % of the file system.
	FreeSpaceFloorBytes int64 `yaml:"free_space_floor_bytes,omitempty"`
	// Pgbench is where remote pgbench runs go; unset refuses them.
	Pgbench BenchPgbenchConfig `yaml:"pgbench,omitempty"`
}

// BenchPgbenchConfig is the target of the pgbench profile's remote runs.
type BenchPgbenchConfig struct {
	// ConnString is a libpq connection string or URL to a database whose role may CREATEDB (the
	// run creates and drops a scratch database). May hold a password: agent.yaml is mode 0600.
	ConnString string `yaml:"conn_string,omitempty"`
	// Path is the pgbench binary; default: pgbench on PATH.
	Path string `yaml:"path,omitempty"`
}

func (b BenchConfig) validate() error {
	var errs []error
	for _, p := range b.Paths {
		if !filepath.IsAbs(p) || filepath.Clean(p) == "/" {
			errs = append(errs, fmt.Errorf("bench.paths: %q must be an absolute directory other than /", p))
		}
	}
	if b.FreeSpaceFloorBytes < 0 {
		errs = append(errs, errors.New("bench.free_space_floor_bytes cannot be negative"))
	}
	if b.Pgbench.ConnString != "" {
		// pgconn redacts the password in its parse errors.
		if _, err := pgconn.ParseConfig(b.Pgbench.ConnString); err != nil {
			errs = append(errs, fmt.Errorf("bench.pgbench.conn_string: %w", err))
		}
	}
	if p := b.Pgbench.Path; p != "" && (!filepath.IsAbs(p) || strings.ContainsAny(p, "\n\x00")) {
		errs = append(errs, fmt.Errorf("bench.pgbench.path: %q must be an absolute path to the pgbench binary", p))
	}
	if b.Pgbench.Path != "" && b.Pgbench.ConnString == "" {
		errs = append(errs, errors.New("bench.pgbench.path is set but bench.pgbench.conn_string is empty"))
	}
	return errors.Join(errs...)
}
