package config

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestFragmentationAndPostgreSQLSettings(t *testing.T) {
	cfg, err := Parse([]byte(""))
	if err != nil {
		t.Fatal(err)
	}
	if f := cfg.Fragmentation; f.Period != time.Hour || f.MaxFilesPerSecond != 2000 || f.WorstFiles != 10 || len(f.Paths) != 0 {
		t.Fatalf("fragmentation defaults %+v", f)
	}
	always := func(string) bool { return true }
	if slices.Contains(cfg.EnabledCollectors(always), "pgstats") {
		t.Fatal("pgstats must stay off without a connection")
	}
	if why := cfg.WhyOff("pgstats"); !strings.Contains(why, "databases.postgresql.dsn") {
		t.Errorf("WhyOff(pgstats) = %q", why)
	}

	cfg, err = Parse([]byte(`
fragmentation: {paths: [/srv/data, /var/log], period: 30m, max_files_per_second: 500, worst_files: 3}
databases:
  postgresql:
    dsn: postgres://spindle:pw@127.0.0.1:5432/postgres?sslmode=disable
    databases: [shop]
`))
	if err != nil {
		t.Fatal(err)
	}
	if f := cfg.Fragmentation; !slices.Equal(f.Paths, []string{"/srv/data", "/var/log"}) || f.Period != 30*time.Minute ||
		f.MaxFilesPerSecond != 500 || f.WorstFiles != 3 {
		t.Fatalf("fragmentation %+v", f)
	}
	if pg := cfg.Databases.PostgreSQL; !slices.Equal(pg.Databases, []string{"shop"}) || !strings.Contains(pg.DSN, "127.0.0.1:5432") {
		t.Fatalf("postgresql %+v", pg)
	}
	if !slices.Contains(cfg.EnabledCollectors(func(string) bool { return false }), "pgstats") {
		t.Fatal("a configured connection switches pgstats on")
	}
	off, err := Parse([]byte("databases: {postgresql: {dsn: 'host=/run/postgresql user=spindle'}}\ncollectors: {pgstats: {enabled: false}}"))
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(off.EnabledCollectors(always), "pgstats") {
		t.Fatal("collectors.pgstats.enabled: false wins over a configured connection")
	}
}

func TestFragmentationAndPostgreSQLValidation(t *testing.T) {
	for yamlText, want := range map[string]string{
		"fragmentation: {paths: [relative/dir]}":                                `fragmentation.paths: "relative/dir" must be an absolute path`,
		"fragmentation: {period: 10s}":                                          "fragmentation.period 10s is below the minimum 1m0s",
		"fragmentation: {max_files_per_second: 0}":                              "fragmentation.max_files_per_second 0 must be between 1",
		"fragmentation: {worst_files: 1000}":                                    "fragmentation.worst_files 1000 must be between 0 and 100",
		"collectors: {pgstats: {enabled: true}}":                                "databases.postgresql.dsn is empty",
		"databases: {postgresql: {databases: [x]}}":                             "databases.postgresql.dsn is empty",
		"databases: {postgresql: {dsn: 'postgres://u:topsecret@h:notaport/d'}}": "databases.postgresql.dsn",
		"databases: {mysql: {dsn: x}}":                                          "field mysql not found",
	} {
		_, err := Parse([]byte(yamlText))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: want error containing %q, got %v", yamlText, want, err)
			continue
		}
		if strings.Contains(err.Error(), "topsecret") {
			t.Errorf("%s: the password leaked into the error: %v", yamlText, err)
		}
	}
}

func TestSaveKeepsTheDatabaseConnection(t *testing.T) {
	path := filepath.Join(t.TempDir(), "agent.yaml")
	cfg := Default()
	cfg.Databases.PostgreSQL.DSN = "postgres://spindle:pw@127.0.0.1:5432/postgres"
	cfg.Fragmentation.Paths = []string{"/srv"}
	if err := Save(path, cfg); err != nil {
		t.Fatal(err)
	}
	back, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if back.Databases.PostgreSQL.DSN != cfg.Databases.PostgreSQL.DSN || !slices.Equal(back.Fragmentation.Paths, []string{"/srv"}) ||
		back.Fragmentation.Period != time.Hour {
		t.Fatalf("round trip lost settings: %+v", back)
	}
}
