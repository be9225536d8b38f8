package dbdetect

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func mkdir(t *testing.T, path string) {
	t.Helper()
	if err := os.MkdirAll(path, 0o755); err != nil {
		t.Fatal(err)
	}
}

// A Debian host: a PostgreSQL 15 cluster whose WAL was moved to another disk (symlink) with
// one tablespace, a stale 13 directory without PG_VERSION, and MariaDB with its datadir moved
// to /srv (set in mariadb.conf.d, overriding nothing in a client group).
func debianHost(t *testing.T) string {
	root := t.TempDir()
	data := filepath.Join(root, "var/lib/postgresql/15/main")
	write(t, filepath.Join(data, "PG_VERSION"), "15\n")
	mkdir(t, filepath.Join(root, "wal-disk/pg_wal"))
	if err := os.Symlink(filepath.Join(root, "wal-disk/pg_wal"), filepath.Join(data, "pg_wal")); err != nil {
		t.Fatal(err)
	}
	mkdir(t, filepath.Join(root, "fast/ts1"))
	mkdir(t, filepath.Join(data, "pg_tblspc"))
	if err := os.Symlink(filepath.Join(root, "fast/ts1"), filepath.Join(data, "pg_tblspc/16390")); err != nil {
		t.Fatal(err)
	}
	mkdir(t, filepath.Join(root, "var/lib/postgresql/13/main"))
	write(t, filepath.Join(root, "etc/mysql/my.cnf"), "[client]\ndatadir = /wrong\n!includedir /etc/mysql/mariadb.conf.d/\n")
	write(t, filepath.Join(root, "etc/mysql/mariadb.conf.d/50-server.cnf"),
		"# MariaDB server\n[mysqld]\nuser = mysql\ndatadir = \"/srv/mysql\" # moved\n")
	mkdir(t, filepath.Join(root, "srv/mysql"))
	mkdir(t, filepath.Join(root, "var/lib/mysql")) // the default, not used: the option file wins
	return root
}

func TestFindOnADebianHost(t *testing.T) {
	root := debianHost(t)
	dirs, err := Find(context.Background(), Sources{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	want := []Dir{
		{filepath.Join(root, "var/lib/postgresql/15/main"), PostgreSQLData},
		{filepath.Join(root, "wal-disk/pg_wal"), PostgreSQLWAL},
		{filepath.Join(root, "fast/ts1"), PostgreSQLTablespace},
		{filepath.Join(root, "srv/mysql"), MySQLData},
	}
	if !slices.Equal(dirs, want) {
		t.Fatalf("found %v\nwant %v", dirs, want)
	}
}

func TestFindAsksTheServerFirst(t *testing.T) {
	root := debianHost(t)
	write(t, filepath.Join(root, "custom/pgdata/PG_VERSION"), "15\n")
	ask := func(context.Context) (string, error) { return "/custom/pgdata", nil }
	dirs, err := Find(context.Background(), Sources{Root: root, PostgreSQLDataDirectory: ask})
	if err != nil {
		t.Fatal(err)
	}
	if dirs[0] != (Dir{filepath.Join(root, "custom/pgdata"), PostgreSQLData}) || slices.ContainsFunc(dirs, func(d Dir) bool {
		return d.Path == filepath.Join(root, "var/lib/postgresql/15/main")
	}) {
		t.Fatalf("the server's answer must replace the search: %v", dirs)
	}

	refused := func(context.Context) (string, error) {
		return "", errors.New("permission denied to examine data_directory")
	}
	dirs, err = Find(context.Background(), Sources{Root: root, PostgreSQLDataDirectory: refused})
	if err == nil || dirs[0].Path != filepath.Join(root, "var/lib/postgresql/15/main") {
		t.Fatalf("a refused question must fall back to the usual places and say so: %v, %v", dirs, err)
	}
	remote := func(context.Context) (string, error) { return "/not/here", nil }
	if dirs, err = Find(context.Background(), Sources{Root: root, PostgreSQLDataDirectory: remote}); err == nil || len(dirs) != 4 {
		t.Fatalf("a data directory not on this host must fall back: %v, %v", dirs, err)
	}
}

func TestFindFallsBackToVarLibMySQLAndFindsNothingOnABareHost(t *testing.T) {
	root := t.TempDir()
	mkdir(t, filepath.Join(root, "var/lib/mysql"))
	dirs, err := Find(context.Background(), Sources{Root: root})
	if err != nil || !slices.Equal(dirs, []Dir{{filepath.Join(root, "var/lib/mysql"), MySQLData}}) {
		t.Fatalf("%v, %v", dirs, err)
	}
	if dirs, err := Find(context.Background(), Sources{Root: t.TempDir()}); err != nil || len(dirs) != 0 {
		t.Fatalf("bare host: %v, %v", dirs, err)
	}
}
