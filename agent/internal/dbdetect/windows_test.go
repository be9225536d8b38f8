package dbdetect

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// fakeRegistry stands in for HKEY_LOCAL_MACHINE (no Windows machine here); its values name
// directories of a temp tree shaped like a Windows host's.
type fakeRegistry map[string]map[string]string

func (r fakeRegistry) Values(key string) (map[string]string, error) {
	if v, ok := r[key]; ok {
		return v, nil
	}
	return map[string]string{}, nil
}

// Two SQL Server instances: the default one with its data root's DATA folder holding master
// and a user database, a log directory moved to L:, and SQLEXPRESS installed but with an empty
// data folder (no databases: not a root). Exchange 2019 with one mailbox database.
func TestFindWindowsDatabases(t *testing.T) {
	host, err := os.MkdirTemp("", "dbdetect") // not t.TempDir: this test also runs under Wine, which refuses Go's RemoveAll
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(host)
	mssql := filepath.Join(host, "Program Files/Microsoft SQL Server/MSSQL16.MSSQLSERVER/MSSQL")
	write(t, filepath.Join(mssql, "DATA/master.mdf"), "")
	write(t, filepath.Join(mssql, "DATA/Sales_2.NDF"), "")
	write(t, filepath.Join(host, "L/SQLLogs/Sales_log.ldf"), "")
	mkdir(t, filepath.Join(host, "Program Files/Microsoft SQL Server/MSSQL16.SQLEXPRESS/MSSQL/DATA"))
	exchange := filepath.Join(host, "Program Files/Microsoft/Exchange Server/V15")
	write(t, filepath.Join(exchange, "Mailbox/Mailbox Database 0123/Mailbox Database 0123.edb"), "")
	write(t, filepath.Join(exchange, "Mailbox/Mailbox Database 0123/E00.log"), "")
	reg := fakeRegistry{
		sqlServerInstances: {"MSSQLSERVER": "MSSQL16.MSSQLSERVER", "SQLEXPRESS": "MSSQL16.SQLEXPRESS"},
		sqlServerKey + `\MSSQL16.MSSQLSERVER\MSSQLServer`: {"DefaultLog": filepath.Join(host, "L/SQLLogs")},
		sqlServerKey + `\MSSQL16.MSSQLSERVER\Setup`:       {"SQLDataRoot": mssql},
		sqlServerKey + `\MSSQL16.SQLEXPRESS\Setup`: {
			"SQLDataRoot": filepath.Join(host, "Program Files/Microsoft SQL Server/MSSQL16.SQLEXPRESS/MSSQL")},
		exchangeSetupKey: {"MsiInstallPath": exchange},
	}
	dirs, err := Find(context.Background(), Sources{Root: host + "/no-unix-root", Registry: reg})
	if err != nil {
		t.Fatal(err)
	}
	want := []Dir{
		{filepath.Join(host, "L/SQLLogs"), SQLServerLog},
		{filepath.Join(mssql, "DATA"), SQLServerData},
		{filepath.Join(exchange, "Mailbox"), ExchangeDatabases},
	}
	byPath := func(a, b Dir) int { return strings.Compare(a.Path, b.Path) }
	slices.SortFunc(dirs, byPath)
	slices.SortFunc(want, byPath)
	if !slices.Equal(dirs, want) {
		t.Fatalf("found %+v\nwant %+v", dirs, want)
	}
}

// Without SQL Server or Exchange installed (their keys absent), nothing is found and nothing fails.
func TestFindWindowsNothingInstalled(t *testing.T) {
	dirs, err := Find(context.Background(), Sources{Root: filepath.Join(os.TempDir(), "no-such-root"), Registry: fakeRegistry{}})
	if err != nil || len(dirs) != 0 {
		t.Fatalf("got %+v, %v; want nothing", dirs, err)
	}
}
