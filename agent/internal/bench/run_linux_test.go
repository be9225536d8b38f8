package bench

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// smallRequest is a quick buffered fileserver run in dir.
func smallRequest(dir string) Request {
	return Request{Profile: "fileserver", Paths: []string{dir}, SizeLimitBytes: 32 << 20, TimeLimitSeconds: 60,
		StepSeconds: 1, Loads: []Load{{Threads: 1, Outstanding: 2}}}
}

// entries lists what is left in dir.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	list, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range list {
		names = append(names, e.Name())
	}
	return names
}

func TestRunMeasuresAndRemovesItsFiles(t *testing.T) {
	dir := t.TempDir()
	var progress []Progress
	rep, err := Run(context.Background(), smallRequest(dir), nil, func(p Progress) { progress = append(progress, p) })
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Complete || len(rep.Steps) != 1 || rep.Steps[0].Off == nil || rep.Steps[0].On != nil {
		t.Fatalf("report %+v: want one measured off step and no on side", rep)
	}
	off := rep.Steps[0].Off
	if off.IOPS <= 0 || off.Operations == 0 || off.LatencyP99Seconds < off.LatencyP95Seconds || off.Passes != 1 {
		t.Fatalf("step result %+v", off)
	}
	if rep.Reads.Off == nil || !rep.Reads.Off.Measured || rep.Reads.On != nil {
		t.Fatalf("reads %+v", rep.Reads)
	}
	if rep.Saturation.Off == nil || rep.Saturation.On != nil {
		t.Fatalf("saturation %+v", rep.Saturation)
	}
	if left := entries(t, dir); len(left) != 0 {
		t.Fatalf("files left behind: %v", left)
	}
	if last := progress[len(progress)-1]; last.Phase != PhaseDone || last.Fraction != 1 {
		t.Fatalf("last progress %+v", last)
	}
}

func TestRunRefusesASymlinkedPathAndWritesNothing(t *testing.T) {
	real := t.TempDir()
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	_, err := Run(context.Background(), smallRequest(link), nil, nil)
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "symbolic link") {
		t.Fatalf("Run = %v, want a refusal naming the symbolic link", err)
	}
	if left := entries(t, real); len(left) != 0 {
		t.Fatalf("wrote %v through the link", left)
	}
}

func TestRunRefusesAFileOrMissingPath(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{file: "not a directory", filepath.Join(dir, "missing"): "create the directory first", "/": "root directory"} {
		if _, err := Run(context.Background(), smallRequest(path), nil, nil); !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), want) {
			t.Errorf("Run(%s) = %v, want a refusal with %q", path, err, want)
		}
	}
}

func TestRunRefusesToGoBelowTheFreeSpaceFloor(t *testing.T) {
	dir := t.TempDir()
	d, err := fileSystemOf(dir)
	if err != nil {
		t.Fatal(err)
	}
	req := smallRequest(dir)
	req.FreeSpaceFloorBytes = d.FreeBytesAt // any write takes free space below this
	_, err = Run(context.Background(), req, nil, nil)
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "below the floor") {
		t.Fatalf("Run = %v, want a floor refusal", err)
	}
	if left := entries(t, dir); len(left) != 0 {
		t.Fatalf("wrote %v despite the refusal", left)
	}
}

func TestCheckInsideFollowsLinksOut(t *testing.T) {
	allowed, outside := t.TempDir(), t.TempDir()
	escape := filepath.Join(allowed, "escape")
	if err := os.Symlink(outside, escape); err != nil {
		t.Fatal(err)
	}
	if err := checkInside(escape, []string{allowed}); !errors.Is(err, ErrRefused) {
		t.Fatalf("checkInside(link to outside) = %v, want a refusal", err)
	}
	inner := filepath.Join(allowed, "inner")
	if err := os.Mkdir(inner, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := checkInside(inner, []string{allowed}); err != nil {
		t.Fatalf("checkInside(inner) = %v", err)
	}
	if err := checkInside(allowed+"-sibling", []string{allowed}); err == nil {
		t.Fatal("a sibling with the allowed path as prefix was accepted")
	}
}

func TestCreateFileNeverFollowsOrReusesAPath(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	if err := os.WriteFile(target, []byte("keep"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{target, link} {
		if f, err := createFile(path, false); err == nil {
			f.Close()
			t.Fatalf("createFile(%s) opened an existing path", path)
		}
	}
	if content, _ := os.ReadFile(target); string(content) != "keep" {
		t.Fatalf("target changed to %q", content)
	}
}

func TestCancelStopsAtOnceAndRemovesTheFiles(t *testing.T) {
	dir := t.TempDir()
	req := smallRequest(dir)
	req.StepSeconds, req.TimeLimitSeconds = 30, 120
	ctx, cancel := context.WithCancel(context.Background())
	var started atomic.Bool
	done := make(chan struct{})
	var rep *Report
	var err error
	go func() {
		defer close(done)
		rep, err = Run(ctx, req, nil, func(p Progress) {
			if p.Phase == PhaseRunning {
				started.Store(true)
			}
		})
	}()
	for !started.Load() {
		time.Sleep(10 * time.Millisecond)
	}
	began := time.Now()
	cancel()
	<-done
	if waited := time.Since(began); waited > 5*time.Second {
		t.Fatalf("Run took %v to stop after cancel", waited)
	}
	if err == nil || !strings.Contains(err.Error(), "cancelled") || rep == nil || rep.Complete || rep.Stopped == "" {
		t.Fatalf("Run = %+v, %v; want a partial report stopped by cancel", rep, err)
	}
	if left := entries(t, dir); len(left) != 0 {
		t.Fatalf("files left behind after cancel: %v", left)
	}
}

func TestTimeLimitStopsTheRun(t *testing.T) {
	dir := t.TempDir()
	req := smallRequest(dir)
	// Validate accepts the plan (1 step of 1 s); a slow step is what the limit catches, so
	// give the step more than the limit by overriding after validation.
	req.TimeLimitSeconds = 3
	r := req.withDefaults()
	if err := r.Validate(); err != nil {
		t.Fatal(err)
	}
	r.StepSeconds = 20
	profile, _ := profileByName(r.Profile)
	ctx, cancel := context.WithTimeoutCause(context.Background(), r.TimeLimit(), errors.New("the time limit of 3 s was reached"))
	defer cancel()
	run := &runner{req: r, profile: profile, progress: func(Progress) {}, started: time.Now()}
	rep := run.newReport()
	began := time.Now()
	err := run.runGenerator(ctx, rep)
	if err == nil || time.Since(began) > 8*time.Second {
		t.Fatalf("runGenerator = %v after %v, want a stop at the 3 s limit", err, time.Since(began))
	}
	if left := entries(t, dir); len(left) != 0 {
		t.Fatalf("files left behind: %v", left)
	}
}

func TestABRunSwitchesTheRealFeatures(t *testing.T) {
	dir := t.TempDir()
	accel, err := NewAccelerator(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer accel.Close()
	// A target of ±100 % is met after the least blocks a run takes (2) on any machine but a
	// wildly noisy one, which the time limit then bounds.
	req := Request{Profile: "oltp", Paths: []string{dir}, SizeLimitBytes: 48 << 20, TimeLimitSeconds: 90,
		StepSeconds: 1, AB: true, TargetHalfWidthPercent: 100, Loads: []Load{{Threads: 2, Outstanding: 2}}}
	var sides []string
	rep, err := Run(context.Background(), req, accel, func(p Progress) {
		if p.Phase == PhaseRunning && p.Step == 1 {
			side := string(p.Side)
			if p.WarmUp {
				side = "warm-up " + side
			}
			sides = append(sides, side)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	a := rep.Alternation
	if a == nil || a.Blocks < MinBlocks || (a.StopReason != "target" && a.StopReason != "time-limit") || a.Stop == "" {
		t.Fatalf("alternation %+v: want at least %d blocks and a reason to stop", a, MinBlocks)
	}
	want := []string{"warm-up off"}
	for range a.Blocks {
		want = append(want, "off", "on", "on", "off")
	}
	if strings.Join(sides, ",") != strings.Join(want, ",") || len(rep.PassOrder) != len(want) || rep.WarmUpPasses != 1 {
		t.Fatalf("passes %v (order %v), want %v", sides, rep.PassOrder, want)
	}
	s := rep.Steps[0]
	if s.Off == nil || s.On == nil || s.Off.Passes != 2*a.Blocks || s.On.Passes != 2*a.Blocks || len(s.Passes) != len(want) ||
		!s.Passes[0].WarmUp || s.Passes[1].WarmUp || s.Passes[0].Throughput <= 0 {
		t.Fatalf("step %+v: want both sides from the compared passes and every pass kept", s)
	}
	if s.Change == nil || s.Change.Throughput.Status == NotMeasured || s.Change.Throughput.LowPercent == nil ||
		rep.Overall == nil || rep.Overall.LatencyMean.Status == NotMeasured {
		t.Fatalf("change %+v, overall %+v: want intervals", s.Change, rep.Overall)
	}
	if rep.Reads.On == nil || !rep.Reads.On.Measured || len(rep.Reads.Passes) != len(want) || rep.Reads.Caused == nil ||
		rep.Reads.Caused.Status == NotMeasured || rep.Reads.Caused.ReadsWith == 0 {
		t.Fatalf("reads %+v, caused %+v", rep.Reads.On, rep.Reads.Caused)
	}
	if rep.WritePath == nil || len(rep.WritePath.ExtentsOff) != 2*a.Blocks || len(rep.WritePath.ExtentsOn) != 2*a.Blocks ||
		len(rep.WritePath.ExtentsWarmUp) != 1 || rep.WritePath.FragmentsPrevented.Pairs != 2*a.Blocks {
		t.Fatalf("write path %+v", rep.WritePath)
	}
	// only the features can have reserved space for the log or budgeted the data file
	if rep.Accelerator == nil || rep.Accelerator.ReadCacheBudgetBytes == 0 || rep.Accelerator.PreallocatedBytes == 0 {
		t.Fatalf("accelerator %+v: the features did not act in the on passes", rep.Accelerator)
	}
	if left := entries(t, dir); len(left) != 0 {
		t.Fatalf("files left behind: %v", left)
	}
}
