//go:build !race

package proofrun

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"testing"
	"time"
)

// fioCase is one workload run by both the generator and fio on the same file.
type fioCase struct {
	name     string
	mix      Mix
	load     Load
	fioArgs  []string // the workload in fio's terms
	readSide bool     // which of fio's job figures to compare
}

// fioIOPS runs fio for seconds on path and returns its IOPS.
func fioIOPS(t *testing.T, path string, size int64, c fioCase, seconds int) float64 {
	t.Helper()
	args := append([]string{"--name=agree", "--filename=" + path, "--size=" + strconv.FormatInt(size, 10),
		"--direct=1", "--ioengine=psync", "--numjobs=" + strconv.Itoa(c.load.Threads*c.load.Outstanding), "--thread", "--group_reporting", "--time_based",
		"--runtime=" + strconv.Itoa(seconds), "--output-format=json"}, c.fioArgs...)
	out, err := exec.Command("fio", args...).Output()
	if err != nil {
		t.Fatalf("fio %v: %v", args, err)
	}
	var result struct {
		Jobs []struct {
			Read  struct{ IOPS float64 } `json:"read"`
			Write struct{ IOPS float64 } `json:"write"`
		} `json:"jobs"`
	}
	if err := json.Unmarshal(out, &result); err != nil || len(result.Jobs) != 1 {
		t.Fatalf("fio output: %v: %s", err, out)
	}
	if c.readSide {
		return result.Jobs[0].Read.IOPS
	}
	return result.Jobs[0].Write.IOPS
}

func median(v []float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	return s[len(s)/2]
}

// Not built with -race: the race detector multiplies the generator's CPU cost per I/O, which
// measures the detector, not the generator. scripts/test.sh runs this test in a normal build.
//
// The generator keeps threads x outstanding synchronous I/Os in flight, so its fio equivalent is
// that many psync jobs (what the device sees: the same number of I/Os in flight).
//
// TestGeneratorAgreesWithFio runs the generator and fio alternately on the same file with the
// same workload (direct I/O) and compares the medians of their IOPS: within 10 %.
func TestGeneratorAgreesWithFio(t *testing.T) {
	if _, err := exec.LookPath("fio"); err != nil {
		t.Skip("fio is not installed (bash scripts/setup.sh --for-tests installs it)")
	}
	// A comparison of speeds needs a quiet machine: `npm test` runs it alone, after the
	// workspace tests (scripts/test.sh), not beside other packages' tests.
	if os.Getenv("SPINDLE_FIO_AGREEMENT") == "" {
		t.Skip("set SPINDLE_FIO_AGREEMENT=1 to compare with fio; scripts/test.sh runs it on its own")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "agree.dat")
	const size = 256 << 20
	if err := writeDataFile(context.Background(), path, size); err != nil {
		t.Fatal(err)
	}
	cases := []fioCase{
		{name: "4 KiB random read, 1 x 4", mix: Mix{Name: "rr", ReadPercent: 100, RandomPercent: 100,
			Sizes: []SizeShare{{4 * kib, 100}}}, load: Load{Threads: 1, Outstanding: 4},
			fioArgs: []string{"--rw=randread", "--bs=4k", "--norandommap", "--randrepeat=0"}, readSide: true},
		{name: "64 KiB sequential write, 1 x 1", mix: Mix{Name: "sw", ReadPercent: 0, RandomPercent: 0,
			Sizes: []SizeShare{{64 * kib, 100}}}, load: Load{Threads: 1, Outstanding: 1},
			fioArgs: []string{"--rw=write", "--bs=64k"}},
	}
	// Neighbours' I/O on this shared machine moves throughput by 2x within seconds, so each
	// round runs both back to back (alternating who goes first) and the test compares the
	// median of the per-round ratios: drift slower than a round cancels. When 5 rounds leave the
	// median outside 10 %, up to 16 more are run and the median of all of them decides (a burst
	// of neighbours' I/O can spoil several rounds in a row; more rounds never move the bar). Single
	// rounds range −17 % to +14 % but their medians sit near 0 (−0.4 % and +3.7 % over 9 rounds in
	// CI on 2026-11-28), so 5 rounds usually decide: the test holds the machine alone for 40 s,
	// not 72.
	const rounds, extraRounds, seconds = 5, 16, 2
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tgt, closeTarget, err := openTarget(path, size, true)
			if err != nil {
				t.Fatal(err)
			}
			defer closeTarget()
			var ours, theirs, ratios []float64
			within := func() bool {
				d := 100 * (median(ratios) - 1)
				return d >= -10 && d <= 10
			}
			for round := 0; round < rounds || (round < rounds+extraRounds && !within()); round++ {
				generator := func() float64 {
					m, err := runStep(context.Background(), tgt, nil, stepPlan{mix: c.mix, load: c.load,
						duration: seconds * time.Second, seed: uint64(round)})
					if err != nil {
						t.Fatal(err)
					}
					return float64(m.operations) / m.seconds
				}
				var o, f float64
				if round%2 == 0 {
					o = generator()
					f = fioIOPS(t, path, size, c, seconds)
				} else {
					f = fioIOPS(t, path, size, c, seconds)
					o = generator()
				}
				ours, theirs, ratios = append(ours, o), append(theirs, f), append(ratios, o/f)
			}
			diff := 100 * (median(ratios) - 1)
			t.Logf("%s: %d rounds, generator median %.0f IOPS, fio median %.0f IOPS, median of per-round ratios %+.1f %%; "+
				"rounds: generator %.0f, fio %.0f", c.name, len(ratios), median(ours), median(theirs), diff, ours, theirs)
			if diff < -10 || diff > 10 {
				t.Errorf("%s: generator and fio differ by %+.1f %% (median of per-round ratios), more than 10 %%; "+
					"rounds: generator %.0f, fio %.0f", c.name, diff, ours, theirs)
			}
		})
	}
}
