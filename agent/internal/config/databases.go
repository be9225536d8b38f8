package config

import (
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// Defaults of the fragmentation scanner.
const (
	DefaultFragmentationPeriod = time.Hour
	minFragmentationPeriod     = time.Minute
	DefaultMaxFilesPerSecond   = 2000
	maxMaxFilesPerSecond       = 100000
	DefaultWorstFiles          = 10
	maxWorstFiles              = 100 // each is a series per root and tick
)

// FragmentationConfig tunes the FIEMAP scanner (collector `fragmentation`). It scans Paths and
// the database directories it detects on its own.
type FragmentationConfig struct {
	Paths             []string      `yaml:"paths,omitempty"`
	Period            time.Duration `yaml:"period"`               // start to start of successive scans
	MaxFilesPerSecond int           `yaml:"max_files_per_second"` // pacing of FIEMAP calls
	WorstFiles        int           `yaml:"worst_files"`          // most fragmented files reported per root
}

// DatabasesConfig says how to reach local databases for their statistics.
type DatabasesConfig struct {
	PostgreSQL PostgreSQLConfig `yaml:"postgresql"`
}

// PostgreSQLConfig is the connection of the `pgstats` collector. The DSN may hold a password:
// agent.yaml is written with mode 0600 for that reason (and the credential).
type PostgreSQLConfig struct {
	DSN string `yaml:"dsn,omitempty"` // postgres://user:password@host:port/db?sslmode=… or key=value
	// Databases to report; empty means every database that is not a template.
	Databases []string `yaml:"databases,omitempty"`
}

func defaultFragmentation() FragmentationConfig {
	return FragmentationConfig{Period: DefaultFragmentationPeriod, MaxFilesPerSecond: DefaultMaxFilesPerSecond,
		WorstFiles: DefaultWorstFiles}
}

func (f FragmentationConfig) validate() error {
	var errs []error
	for _, p := range f.Paths {
		if !filepath.IsAbs(p) {
			errs = append(errs, fmt.Errorf("fragmentation.paths: %q must be an absolute path", p))
		}
	}
	if f.Period < minFragmentationPeriod {
		errs = append(errs, fmt.Errorf("fragmentation.period %s is below the minimum %s", f.Period, minFragmentationPeriod))
	}
	if f.MaxFilesPerSecond < 1 || f.MaxFilesPerSecond > maxMaxFilesPerSecond {
		errs = append(errs, fmt.Errorf("fragmentation.max_files_per_second %d must be between 1 and %d", f.MaxFilesPerSecond, maxMaxFilesPerSecond))
	}
	if f.WorstFiles < 0 || f.WorstFiles > maxWorstFiles {
		errs = append(errs, fmt.Errorf("fragmentation.worst_files %d must be between 0 and %d", f.WorstFiles, maxWorstFiles))
	}
	return errors.Join(errs...)
}

func (d DatabasesConfig) validate(pgstats CollectorConfig) error {
	pg := d.PostgreSQL
	if pg.DSN == "" {
		if pgstats.Enabled != nil && *pgstats.Enabled {
			return errors.New("collectors.pgstats.enabled is true but databases.postgresql.dsn is empty: set the connection, e.g. postgres://spindle:password@127.0.0.1:5432/postgres")
		}
		if len(pg.Databases) > 0 {
			return errors.New("databases.postgresql.databases is set but databases.postgresql.dsn is empty")
		}
		return nil
	}
	// pgconn redacts the password in its parse errors.
	if _, err := pgconn.ParseConfig(pg.DSN); err != nil {
		return fmt.Errorf("databases.postgresql.dsn: %w", err)
	}
	return nil
}
