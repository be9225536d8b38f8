package dbdetect

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Kinds found on Windows hosts, from the registry and confirmed by the files present.
const (
	SQLServerData     Kind = "sql server data directory"
	SQLServerLog      Kind = "sql server log directory"
	ExchangeDatabases Kind = "exchange databases"
)

// Registry reads string values of a key under HKEY_LOCAL_MACHINE, by value name. A missing key
// is an empty map, not an error. HostRegistry is the real one on Windows (nil elsewhere); tests
// use a map.
type Registry interface {
	Values(key string) (map[string]string, error)
}

const (
	sqlServerKey          = `SOFTWARE\Microsoft\Microsoft SQL Server`
	sqlServerInstances    = sqlServerKey + `\Instance Names\SQL`
	exchangeSetupKey      = `SOFTWARE\Microsoft\ExchangeServer\v15\Setup`
	sqlServerDataSubdir   = "DATA"
	exchangeMailboxSubdir = "Mailbox"
)

var (
	sqlServerFiles = []string{".mdf", ".ndf", ".ldf"}
	exchangeFiles  = []string{".edb"} // the logs beside it (E00*.log) prove nothing alone
)

// SQLServerInstances lists the SQL Server instances installed (their names: MSSQLSERVER for the
// default instance), from HKLM.
func SQLServerInstances(reg Registry) ([]string, error) {
	instances, err := reg.Values(sqlServerInstances)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", sqlServerInstances, err)
	}
	names := make([]string, 0, len(instances))
	for name := range instances {
		names = append(names, name)
	}
	slices.Sort(names)
	return names, nil
}

// sqlServerDirs finds each instance's default data and log directories (set at setup or in
// Server Properties → Database Settings) and its data root's DATA folder, keeping those that
// hold database files. Databases created elsewhere are not listed anywhere without a SQL login:
// add their directories to fragmentation.paths.
func sqlServerDirs(reg Registry) ([]Dir, error) {
	instances, err := reg.Values(sqlServerInstances)
	if err != nil {
		return nil, err
	}
	var dirs []Dir
	for _, id := range instances {
		server, err := reg.Values(sqlServerKey + `\` + id + `\MSSQLServer`)
		if err != nil {
			return dirs, err
		}
		setup, err := reg.Values(sqlServerKey + `\` + id + `\Setup`)
		if err != nil {
			return dirs, err
		}
		candidates := []Dir{{server["DefaultData"], SQLServerData}, {server["DefaultLog"], SQLServerLog}}
		if root := setup["SQLDataRoot"]; root != "" {
			candidates = append(candidates, Dir{filepath.Join(root, sqlServerDataSubdir), SQLServerData})
		}
		for _, c := range candidates {
			if resolved := resolvedDir(c.Path); c.Path != "" && resolved != "" && holdsFiles(resolved, sqlServerFiles, 0) {
				dirs = append(dirs, Dir{Path: resolved, Kind: c.Kind})
			}
		}
	}
	return dirs, nil
}

// exchangeDirs finds Exchange 2013-2019's Mailbox folder, where setup puts every database in a
// folder of its own (<name>.edb beside its E00*.log transaction logs), when it holds one.
func exchangeDirs(reg Registry) ([]Dir, error) {
	setup, err := reg.Values(exchangeSetupKey)
	if err != nil || setup["MsiInstallPath"] == "" {
		return nil, err
	}
	mailbox := resolvedDir(filepath.Join(setup["MsiInstallPath"], exchangeMailboxSubdir))
	if mailbox == "" || !holdsFiles(mailbox, exchangeFiles, 1) {
		return nil, nil
	}
	return []Dir{{Path: mailbox, Kind: ExchangeDatabases}}, nil
}

// holdsFiles reports whether dir, or a folder at most depth levels below it, holds a file with
// one of the extensions (case-insensitive, as Windows names are).
func holdsFiles(dir string, extensions []string, depth int) bool {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range entries {
		if e.IsDir() {
			if depth > 0 && holdsFiles(filepath.Join(dir, e.Name()), extensions, depth-1) {
				return true
			}
			continue
		}
		ext := strings.ToLower(filepath.Ext(e.Name()))
		for _, want := range extensions {
			if ext == want {
				return true
			}
		}
	}
	return false
}
