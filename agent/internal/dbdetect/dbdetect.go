// Package dbdetect finds the directories where local databases keep their files, for the
// fragmentation scanner: PostgreSQL's data directory (asked of the server when a connection is
// configured, else looked for where distributions put it), its WAL and tablespaces when they
// live elsewhere, the MySQL/MariaDB datadir from the server's option files, and on Windows the
// SQL Server and Exchange database folders from the registry (windows.go).
package dbdetect

import (
	"context"
	"errors"
	"os"
	"path/filepath"
)

// Kind says what a directory holds.
type Kind string

const (
	PostgreSQLData       Kind = "postgresql data directory"
	PostgreSQLWAL        Kind = "postgresql WAL"
	PostgreSQLTablespace Kind = "postgresql tablespace"
	MySQLData            Kind = "mysql datadir"
)

// Dir is one directory to scan, with symlinks resolved.
type Dir struct {
	Path string
	Kind Kind
}

// Sources are where Find looks.
type Sources struct {
	// Root prefixes every path Find looks at or reports ("/" on a host; a fixture tree in
	// tests, or the host's root mounted into a container).
	Root string
	// PostgreSQLDataDirectory asks the configured server for its data_directory; nil when no
	// connection is configured. An error falls back to the well-known locations.
	PostgreSQLDataDirectory func(ctx context.Context) (string, error)
	// Registry is HKEY_LOCAL_MACHINE on Windows (HostRegistry), nil elsewhere.
	Registry Registry
}

// Find returns the database directories present, without duplicates, and the problems met
// on the way (worth a debug log; none of them stops the others from being found).
func Find(ctx context.Context, s Sources) ([]Dir, error) {
	if s.Root == "" {
		s.Root = "/"
	}
	var dirs []Dir
	var errs []error
	pg, err := postgreSQLDirs(ctx, s)
	dirs, errs = append(dirs, pg...), append(errs, err)
	dirs = append(dirs, mySQLDirs(s.Root)...)
	if s.Registry != nil {
		sql, err := sqlServerDirs(s.Registry)
		dirs, errs = append(dirs, sql...), append(errs, err)
		exchange, err := exchangeDirs(s.Registry)
		dirs, errs = append(dirs, exchange...), append(errs, err)
	}
	return unique(dirs), errors.Join(errs...)
}

func unique(dirs []Dir) []Dir {
	seen := map[string]bool{}
	var out []Dir
	for _, d := range dirs {
		if !seen[d.Path] {
			seen[d.Path] = true
			out = append(out, d)
		}
	}
	return out
}

// under joins a host path to the root.
func under(root, path string) string { return filepath.Join(root, path) }

// resolvedDir returns path with symlinks resolved if it is a directory, else "".
func resolvedDir(path string) string {
	resolved, err := filepath.EvalSymlinks(path)
	if err != nil {
		return ""
	}
	if info, err := os.Stat(resolved); err != nil || !info.IsDir() {
		return ""
	}
	return resolved
}
