package dbdetect

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/spindle-io/spindle/agent/internal/pgquery"
)

// postgreSQLDataGlobs are where distributions put clusters: Debian/Ubuntu, RHEL and its
// PGDG packages, Arch, and a source build's default.
var postgreSQLDataGlobs = []string{
	"/var/lib/postgresql/*/main",
	"/var/lib/pgsql/data",
	"/var/lib/pgsql/*/data",
	"/var/lib/postgres/data",
	"/usr/local/pgsql/data",
}

func postgreSQLDirs(ctx context.Context, s Sources) ([]Dir, error) {
	var dataDirs []string
	var askErr error
	if s.PostgreSQLDataDirectory != nil {
		path, err := s.PostgreSQLDataDirectory(ctx)
		switch {
		case err != nil:
			askErr = fmt.Errorf("ask PostgreSQL for its data_directory (looking in the usual places instead): %w", err)
		case isPostgreSQLData(under(s.Root, path)):
			dataDirs = []string{under(s.Root, path)}
		default:
			askErr = fmt.Errorf("PostgreSQL's data_directory %s is not on this host (a remote server?); looking in the usual places instead", path)
		}
	}
	if dataDirs == nil {
		for _, pattern := range postgreSQLDataGlobs {
			matches, _ := filepath.Glob(under(s.Root, pattern))
			for _, m := range matches {
				if isPostgreSQLData(m) {
					dataDirs = append(dataDirs, m)
				}
			}
		}
	}
	var dirs []Dir
	for _, data := range dataDirs {
		resolved := resolvedDir(data)
		if resolved == "" {
			continue
		}
		dirs = append(dirs, Dir{Path: resolved, Kind: PostgreSQLData})
		dirs = append(dirs, postgreSQLElsewhere(resolved)...)
	}
	return dirs, askErr
}

// isPostgreSQLData: every data directory has a PG_VERSION file.
func isPostgreSQLData(dir string) bool {
	info, err := os.Stat(filepath.Join(dir, "PG_VERSION"))
	return err == nil && info.Mode().IsRegular()
}

// postgreSQLElsewhere finds the WAL and tablespaces that a scan of the data directory would
// not reach: linked to another place (initdb --waldir, CREATE TABLESPACE) or mounted there.
func postgreSQLElsewhere(data string) []Dir {
	var dirs []Dir
	dataDev, _ := device(data)
	for _, name := range []string{"pg_wal", "pg_xlog" /* before PostgreSQL 10 */} {
		wal := filepath.Join(data, name)
		if elsewhere(wal, dataDev) {
			if resolved := resolvedDir(wal); resolved != "" {
				dirs = append(dirs, Dir{Path: resolved, Kind: PostgreSQLWAL})
			}
		}
	}
	links, _ := filepath.Glob(filepath.Join(data, "pg_tblspc", "*"))
	for _, link := range links {
		if resolved := resolvedDir(link); resolved != "" {
			dirs = append(dirs, Dir{Path: resolved, Kind: PostgreSQLTablespace})
		}
	}
	return dirs
}

// elsewhere reports whether path is a symlink, or a directory on another file system.
func elsewhere(path string, dataDev uint64) bool {
	info, err := os.Lstat(path)
	if err != nil {
		return false
	}
	if info.Mode()&os.ModeSymlink != 0 {
		return true
	}
	dev, ok := device(path)
	return ok && info.IsDir() && dev != dataDev
}

// AskPostgreSQL returns a Sources.PostgreSQLDataDirectory that connects with dsn and runs
// SHOW data_directory (superusers and members of pg_read_all_settings may).
func AskPostgreSQL(dsn string, timeout time.Duration) func(ctx context.Context) (string, error) {
	return func(ctx context.Context) (string, error) {
		ctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		conn, err := pgconn.Connect(ctx, dsn)
		if err != nil {
			return "", err
		}
		defer conn.Close(context.Background())
		return pgquery.Value(ctx, conn, "SHOW data_directory")
	}
}
