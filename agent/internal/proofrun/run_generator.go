package proofrun

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"time"
)

// MinDataBytes is the smallest data file worth measuring.
const MinDataBytes = 16 << 20

// fileSizes splits the size limit: with a log writer, 3/4 for the data file and 1/4 for the
// log; data in whole MiB.
func fileSizes(limit int64, withLog bool) (data, log int64) {
	data = limit
	if withLog {
		data = limit / 4 * 3
		log = (limit - data) / logWriteBytes * logWriteBytes
	}
	return data / (1 << 20) * (1 << 20), log
}

func (r *runner) runGenerator(ctx context.Context, rep *Report) (err error) {
	r.report(Progress{Phase: PhasePreparing, Message: "checking paths and free space"})
	withLog := false
	for _, mix := range r.profile.Mixes {
		withLog = withLog || mix.LogPercent > 0
	}
	dataBytes, logBytes := fileSizes(r.req.SizeLimitBytes, withLog)
	if dataBytes < MinDataBytes {
		return invalid("the size limit leaves a %s data file; allow at least %s", formatBytes(dataBytes),
			formatBytes(MinDataBytes*4/3+1))
	}
	var allowed []string
	for _, p := range r.req.Paths {
		dir, err := allowedDir(p)
		if err != nil {
			return err
		}
		allowed = append(allowed, dir)
	}
	logDir := allowed[len(allowed)-1]
	needs := []spaceNeed{{allowed[0], dataBytes}}
	if withLog {
		needs = append(needs, spaceNeed{logDir, logBytes})
	}
	device, err := checkSpace(needs, r.req.FreeSpaceFloorBytes)
	if err != nil {
		return err
	}

	// From here on files exist: whatever happens, remove them.
	scratch, err := makeScratch(allowed[0])
	if err != nil {
		return err
	}
	scratches := []string{scratch}
	defer func() {
		r.report(Progress{Phase: PhaseCleaning, Message: "removing the proof run's files"})
		for _, dir := range scratches {
			if removeErr := os.RemoveAll(dir); removeErr != nil && err == nil {
				err = fmt.Errorf("remove the proof run's files in %s: %w", dir, removeErr)
			}
		}
	}()
	logScratch := scratch
	if withLog && logDir != allowed[0] {
		if logScratch, err = makeScratch(logDir); err != nil {
			return err
		}
		scratches = append(scratches, logScratch)
	}
	device.Path = scratch
	rep.Device = device

	dataPath := filepath.Join(scratch, "data.dat")
	r.report(Progress{Phase: PhasePreparing, Message: "writing the " + formatBytes(dataBytes) + " data file"})
	if err := writeDataFile(ctx, dataPath, dataBytes); err != nil {
		return err
	}
	rep.Files = append(rep.Files, File{Role: "data", Path: dataPath, Bytes: dataBytes})

	t, closeTarget, err := openTarget(dataPath, dataBytes, r.req.DirectIO)
	if err != nil {
		return err
	}
	defer closeTarget()

	if r.req.AB {
		defer func() {
			if disableErr := r.accel.Disable(context.WithoutCancel(ctx)); disableErr != nil && err == nil {
				err = disableErr
			}
		}()
	}
	var largestLog int64
	r.withLog = withLog
	statsBefore := r.acceleratorStats()
	err = r.alternate(ctx, rep, func(ctx context.Context, pass int, side Side, warmUp bool) error {
		logPath := filepath.Join(logScratch, fmt.Sprintf("pass%d.log", pass+1))
		var log *logTarget
		if withLog {
			file, err := createFile(logPath, false)
			if err != nil {
				return err
			}
			log = &logTarget{file: file, capBytes: logBytes}
		}
		passErr := r.runPass(ctx, rep, t, log, passPlan{pass: pass, side: side, warmUp: warmUp},
			dataPath, logScratch, dataBytes, logBytes)
		if log != nil {
			largestLog = max(largestLog, log.grown.Load())
			if passErr == nil {
				n, err := countExtents(logPath)
				if err != nil {
					passErr = fmt.Errorf("count the log file's extents: %w", err)
				}
				r.logExtents = append(r.logExtents, passExtents{pass: pass, side: side, warmUp: warmUp, extents: n})
			}
			_ = log.file.Close()
			_ = os.Remove(logPath) // the next pass grows a new log from nothing
		}
		return passErr
	})
	if withLog {
		rep.Files = append(rep.Files, File{Role: "log", Path: filepath.Join(logScratch, "pass<n>.log"), Bytes: largestLog})
	}
	if err != nil {
		return err
	}
	rep.Accelerator = r.acceleratorSummary(statsBefore)
	return nil
}

// passPlan is one pass: its position in the run, the features' state, and whether it warms up.
type passPlan struct {
	pass   int
	side   Side
	warmUp bool
}

// runPass switches the features for side, starts the data file cold, and measures every step.
func (r *runner) runPass(ctx context.Context, rep *Report, t target, log *logTarget, plan passPlan,
	dataPath, logDir string, dataBytes, logBytes int64) error {
	side := plan.side
	if err := dropPages(t.read); err != nil {
		return fmt.Errorf("start the pass cold (drop the data file's cached pages): %w", err)
	}
	if r.req.AB {
		var err error
		if side == On {
			budget := r.req.ReadCacheBudgetBytes
			if budget == 0 {
				budget = dataBytes
			}
			err = r.accel.Enable(ctx, Targets{DataFiles: []string{dataPath}, LogDir: logDir,
				LogPattern: filepath.ToSlash(logDir) + "/*.log", BudgetBytes: budget,
				PreallocChunk: max(logWriteBytes, min(logBytes/4, 64<<20))})
		} else {
			err = r.accel.Disable(ctx)
		}
		if err != nil {
			return fmt.Errorf("switch the acceleration features %s: %w", side, err)
		}
	}
	duration := time.Duration(r.req.StepSeconds * float64(time.Second))
	for i := range rep.Steps {
		step := rep.Steps[i]
		mix := r.mixNamed(step.Workload)
		r.report(Progress{Phase: PhaseRunning, Pass: plan.pass + 1, Side: side, WarmUp: plan.warmUp, Step: i + 1,
			Steps: len(rep.Steps), StepLabel: step.Label})
		m, err := runStep(ctx, t, log, stepPlan{mix: mix, load: step.Load, duration: duration,
			seed: uint64(plan.pass)<<32 | uint64(i)})
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fmt.Errorf("step %q: %w", step.Label, err)
		}
		m.pass, m.side, m.warmUp = plan.pass, side, plan.warmUp
		r.measures[i] = append(r.measures[i], m)
	}
	if side == On {
		r.onStats = r.accel.Stats() // budget and residency while the features are on
	}
	return nil
}

func (r *runner) mixNamed(name string) Mix {
	for _, m := range r.profile.Mixes {
		if m.Name == name {
			return m
		}
	}
	return Mix{}
}

// writeDataFile creates the data file with pseudo-random content in 1 MiB writes and syncs it,
// checking ctx between writes.
func writeDataFile(ctx context.Context, path string, size int64) error {
	f, err := createFile(path, false)
	if err != nil {
		return err
	}
	defer f.Close()
	rng := rand.NewChaCha8([32]byte{'s', 'p', 'i', 'n', 'd', 'l', 'e'})
	chunk := make([]byte, 1<<20)
	for written := int64(0); written < size; written += int64(len(chunk)) {
		if err := ctx.Err(); err != nil {
			return err
		}
		_, _ = rng.Read(chunk)
		if _, err := f.Write(chunk); err != nil {
			return fmt.Errorf("write the data file: %w", err)
		}
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("sync the data file: %w", err)
	}
	return nil
}

// openTarget opens the data file for the steps: reads direct or buffered; writes direct, or
// write-through (O_DSYNC) when buffered, so a write is measured to the device, not to memory.
func openTarget(path string, size int64, direct bool) (target, func(), error) {
	read, err := openFile(path, direct, false)
	if err != nil {
		return target{}, nil, err
	}
	write, err := openFile(path, direct, !direct)
	if err != nil {
		_ = read.Close()
		return target{}, nil, err
	}
	t := target{read: read, write: write, size: size, direct: direct}
	if !direct {
		if t.residency, err = newResidency(read, size); err != nil {
			_ = read.Close()
			_ = write.Close()
			return target{}, nil, err
		}
	}
	return t, func() {
		t.residency.close()
		_ = errors.Join(read.Close(), write.Close())
	}, nil
}

// acceleratorStats are the features' counters now; zero without A/B.
func (r *runner) acceleratorStats() AcceleratorStats {
	if r.accel == nil {
		return AcceleratorStats{}
	}
	return r.accel.Stats()
}

// acceleratorSummary is what the features did during this run: counters since before, the
// budget and residency as they were at the end of the last "on" pass; nil without A/B.
func (r *runner) acceleratorSummary(before AcceleratorStats) *AcceleratorStats {
	if !r.req.AB {
		return nil
	}
	s := r.accel.Stats()
	return &AcceleratorStats{
		ReadCacheBudgetBytes:        r.onStats.ReadCacheBudgetBytes,
		ReadCachePrefetchedBytes:    s.ReadCachePrefetchedBytes - before.ReadCachePrefetchedBytes,
		ReadCacheResidentBytes:      r.onStats.ReadCacheResidentBytes,
		ReadCacheMissBytes:          s.ReadCacheMissBytes - before.ReadCacheMissBytes,
		ReadCacheBackoffs:           s.ReadCacheBackoffs - before.ReadCacheBackoffs,
		ReadCacheDroppedBehindBytes: s.ReadCacheDroppedBehindBytes - before.ReadCacheDroppedBehindBytes,
		PreallocatedBytes:           s.PreallocatedBytes - before.PreallocatedBytes,
		FragmentsPrevented:          s.FragmentsPrevented - before.FragmentsPrevented,
		LastError:                   s.LastError,
	}
}
