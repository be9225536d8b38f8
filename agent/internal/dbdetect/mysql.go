package dbdetect

import (
	"bufio"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// mySQLOptionFiles are where MySQL and MariaDB read server options (Debian keeps them under
// /etc/mysql, in conf.d and mariadb.conf.d; RHEL uses /etc/my.cnf and /etc/my.cnf.d).
func mySQLOptionFiles(root string) []string {
	var files []string
	_ = filepath.WalkDir(under(root, "/etc/mysql"), func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".cnf") {
			files = append(files, path)
		}
		return nil
	})
	files = append(files, under(root, "/etc/my.cnf"))
	more, _ := filepath.Glob(under(root, "/etc/my.cnf.d/*.cnf"))
	return append(files, more...)
}

func mySQLDirs(root string) []Dir {
	var dirs []Dir
	for _, file := range mySQLOptionFiles(root) {
		for _, datadir := range serverDatadirs(file) {
			if resolved := resolvedDir(under(root, datadir)); resolved != "" {
				dirs = append(dirs, Dir{Path: resolved, Kind: MySQLData})
			}
		}
	}
	if len(dirs) == 0 {
		if resolved := resolvedDir(under(root, "/var/lib/mysql")); resolved != "" {
			dirs = append(dirs, Dir{Path: resolved, Kind: MySQLData})
		}
	}
	return dirs
}

// serverDatadirs returns the datadir values set for the server in one option file: in the
// [mysqld], [mysqld-8.0], [mariadb], [mariadbd], [mariadb-10.11] or [server] groups, not in a
// client's group.
func serverDatadirs(path string) []string {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	var dirs []string
	serverGroup := false
	scanner := bufio.NewScanner(f)
	for scanner.Scan() {
		line := strings.TrimSpace(scanner.Text())
		if line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		if strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]") {
			group := strings.ToLower(strings.TrimSpace(line[1 : len(line)-1]))
			serverGroup = group == "server" || group == "mysqld" || group == "mariadbd" || group == "mariadb" ||
				strings.HasPrefix(group, "mysqld-") || strings.HasPrefix(group, "mariadb-") || group == "mysqld_safe"
			continue
		}
		key, value, found := strings.Cut(line, "=")
		if !serverGroup || !found || strings.TrimSpace(key) != "datadir" {
			continue
		}
		value, _, _ = strings.Cut(value, "#")
		value = strings.Trim(strings.TrimSpace(value), `"'`)
		if filepath.IsAbs(value) {
			dirs = append(dirs, value)
		}
	}
	return dirs
}
