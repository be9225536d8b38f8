package proofrun

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// testPostgres is the test database server (scripts/test-db.sh) and its data directory.
func testPostgres(t *testing.T) (url, dataDir string) {
	t.Helper()
	url = os.Getenv("SPINDLE_TEST_DATABASE_URL")
	if url == "" {
		t.Skip("SPINDLE_TEST_DATABASE_URL not set: start the test database (scripts/test-db.sh)")
	}
	if _, err := exec.LookPath("pgbench"); err != nil {
		t.Skip("pgbench not installed (bash scripts/setup.sh --for-tests installs PostgreSQL)")
	}
	conn, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	if err := conn.QueryRow(context.Background(), "SHOW data_directory").Scan(&dataDir); err != nil {
		t.Fatal(err)
	}
	return url, dataDir
}

func scratchDatabases(t *testing.T, url string) int {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var n int
	if err := conn.QueryRow(context.Background(), "SELECT count(*) FROM pg_database WHERE datname LIKE 'spindle_proofrun_%'").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestPgbenchProfileMeasuresTPSAndDropsItsDatabase(t *testing.T) {
	url, dataDir := testPostgres(t)
	before := scratchDatabases(t, url)
	req := Request{Profile: "pgbench", Paths: []string{filepath.Dir(dataDir)}, SizeLimitBytes: 16 << 20,
		TimeLimitSeconds: 120, StepSeconds: 1, Loads: []Load{{Clients: 2}}, Postgres: &PostgresTarget{ConnString: url}}
	rep, err := Run(context.Background(), req, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	off := rep.Steps[0].Off
	if rep.Throughput != "tps" || off == nil || off.TPS == nil || *off.TPS <= 0 || off.Operations == 0 ||
		off.LatencyMeanSeconds <= 0 || off.LatencyP99Seconds < off.LatencyMeanSeconds/10 {
		t.Fatalf("pgbench step %+v", off)
	}
	if rep.Reads.Off == nil || rep.Reads.Off.Measured || !strings.Contains(rep.Reads.Off.Basis, "not measured") {
		t.Fatalf("reads %+v: pgbench's reads cannot be classified and must say so", rep.Reads.Off)
	}
	if after := scratchDatabases(t, url); after != before {
		t.Fatalf("%d scratch databases before, %d after: the run left one behind", before, after)
	}
}

func TestPgbenchProfileRefusesADataDirectoryOutsideTheAllowedPaths(t *testing.T) {
	url, _ := testPostgres(t)
	before := scratchDatabases(t, url)
	req := Request{Profile: "pgbench", Paths: []string{t.TempDir()}, SizeLimitBytes: 16 << 20,
		TimeLimitSeconds: 120, StepSeconds: 1, Loads: []Load{{Clients: 1}}, Postgres: &PostgresTarget{ConnString: url}}
	_, err := Run(context.Background(), req, nil, nil)
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "outside the allowed paths") {
		t.Fatalf("Run = %v, want a refusal naming the allowed paths", err)
	}
	if after := scratchDatabases(t, url); after != before {
		t.Fatal("a refused run created a database")
	}
}

func TestPgbenchProfileIsSkippedWithAReasonWithoutPgbench(t *testing.T) {
	req := Request{Profile: "pgbench", Paths: []string{t.TempDir()}, SizeLimitBytes: 16 << 20, TimeLimitSeconds: 120,
		Postgres: &PostgresTarget{ConnString: "host=/nonexistent", PgbenchPath: "/nonexistent/pgbench"}}
	_, err := Run(context.Background(), req, nil, nil)
	if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "not found") {
		t.Fatalf("Run = %v, want ErrUnavailable saying pgbench was not found", err)
	}
}

// An A/B pgproof run: the warm-up pass fills PostgreSQL's shared buffers (which no pass
// empties) before the compared blocks; every pass is kept and each change has an interval;
// what the read cache caused to storage reads is not measured for pgbench and says why.
func TestPgbenchABRunWarmsUpAndComparesBlocks(t *testing.T) {
	url, dataDir := testPostgres(t)
	accel, err := NewAccelerator(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer accel.Close()
	req := Request{Profile: "pgbench", Paths: []string{filepath.Dir(dataDir)}, SizeLimitBytes: 16 << 20, AB: true,
		TargetHalfWidthPercent: 100, TimeLimitSeconds: 120, StepSeconds: 1, Loads: []Load{{Clients: 2}},
		Postgres: &PostgresTarget{ConnString: url}}
	rep, err := Run(context.Background(), req, accel, nil)
	if err != nil {
		t.Fatal(err)
	}
	step := rep.Steps[0]
	if rep.WarmUpPasses != 1 || rep.Alternation.Blocks < MinBlocks || len(step.Passes) != len(rep.PassOrder) ||
		!step.Passes[0].WarmUp || step.Passes[0].Throughput <= 0 {
		t.Fatalf("passes %v, alternation %+v, step passes %+v", rep.PassOrder, rep.Alternation, step.Passes)
	}
	if step.Change == nil || step.Change.Throughput.Status == NotMeasured || step.Off.Passes != 2*rep.Alternation.Blocks {
		t.Fatalf("step %+v: want a change with an interval from the compared passes", step)
	}
	if c := rep.Reads.Caused; c == nil || c.Status != NotMeasured || !strings.Contains(c.Reason, "PostgreSQL") {
		t.Fatalf("caused reads %+v", c)
	}
	if !strings.Contains(strings.Join(rep.Notes, " "), "warm-up pass fills the shared buffers") {
		t.Fatalf("notes %v", rep.Notes)
	}
}

// An interleaved run: a warm-up pass with the control, then blocks in which every arm runs
// once in a random order, only its own accelerator on, and effects over the whole blocks.
func TestPgbenchArmsRunEveryArmOncePerBlockAlone(t *testing.T) {
	url, dataDir := testPostgres(t)
	before := scratchDatabases(t, url)
	var all []*fakeArm
	cache, oracle := &fakeArm{name: "cache", all: &all}, &fakeArm{name: "oracle", all: &all}
	all = []*fakeArm{cache, oracle}
	req := Request{Profile: "pgbench", Paths: []string{filepath.Dir(dataDir)}, SizeLimitBytes: 16 << 20,
		TimeLimitSeconds: 300, StepSeconds: 1, Loads: []Load{{Clients: 2}}, Postgres: &PostgresTarget{ConnString: url}}
	arms := []Arm{{Name: "off"}, {Name: "cache", Accel: cache}, {Name: "oracle", Accel: oracle}}
	var lines []string
	rep, err := RunArms(context.Background(), req, arms, ArmsOptions{Seed: 4, MaxBlocks: 3}, func(l string) { lines = append(lines, l) })
	if err != nil {
		t.Fatal(err)
	}
	if rep.WarmUp == nil || rep.WarmUp.Arm != "off" || len(rep.Blocks) != 3 || !strings.Contains(rep.Stop, "most blocks") {
		t.Fatalf("warm-up %+v, %d blocks, stop %q", rep.WarmUp, len(rep.Blocks), rep.Stop)
	}
	orders := map[string]bool{}
	for _, b := range rep.Blocks {
		got := map[string]int{}
		for i, p := range b.Passes {
			got[p.Arm]++
			if p.Arm != b.Order[i] || len(p.Steps) != 1 || p.Steps[0].TPS <= 0 || p.LoadAverage1m == nil {
				t.Fatalf("block %d pass %d: %+v (order %v)", b.Index, i, p, b.Order)
			}
		}
		if got["off"] != 1 || got["cache"] != 1 || got["oracle"] != 1 {
			t.Fatalf("block %d ran %v: every arm exactly once", b.Index, got)
		}
		orders[strings.Join(b.Order, ",")] = true
	}
	if len(orders) < 2 {
		t.Fatalf("every block ran in the order %v: the order must be drawn per block", orders)
	}
	if cache.enables != 3 || oracle.enables != 3 || len(cache.overlap)+len(oracle.overlap) != 0 || cache.on || oracle.on {
		t.Fatalf("cache %+v, oracle %+v: each on in its own passes only, and off at the end", cache, oracle)
	}
	if len(rep.Effects) != 3*2 || rep.Effects[0].Throughput.Blocks != 3 || rep.LoadAverage.Mean == nil {
		t.Fatalf("effects %+v, load %+v", rep.Effects, rep.LoadAverage)
	}
	if after := scratchDatabases(t, url); after != before {
		t.Fatal("the run left its scratch database behind")
	}
}
