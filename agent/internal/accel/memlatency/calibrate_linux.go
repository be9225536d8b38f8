package memlatency

import (
	"context"
	"fmt"
	"os"
	"time"

	"golang.org/x/sys/unix"

	"github.com/spindle-io/spindle/agent/internal/accel"
)

const (
	readSize = 4096 // the unit the console divides hit bytes by
	// filePages is the calibration file's size in reads: 8 MiB, more than most CPUs' L2 cache
	// and a good part of their L3, so the reads copy mostly from memory, as a page-cache hit on a
	// large working set does, rather than from a CPU cache the previous round warmed.
	filePages = 2048
	// stride walks the pages in an order the hardware prefetcher does not follow (odd, so it
	// visits every page of the power-of-two file once per round).
	stride = 97
)

// Calibrate creates a small file in dir, makes its pages resident, times `reads` 4 KiB preads of
// them, and returns their trimmed mean. It gives up once budget has passed since it started (a
// host so busy would not give a figure worth sending) and when ctx is cancelled; the file is
// removed either way.
func Calibrate(ctx context.Context, dir string, reads int, budget time.Duration) (Measurement, error) {
	if reads < 1 {
		return Measurement{}, fmt.Errorf("reads %d must be at least 1", reads)
	}
	deadline := time.Now().Add(budget)
	f, err := os.CreateTemp(dir, ".memlatency-*")
	if err != nil {
		return Measurement{}, fmt.Errorf("create the calibration file in %s (check that the state directory is writable): %w", dir, err)
	}
	defer os.Remove(f.Name())
	defer f.Close()
	if err := makeResident(f); err != nil {
		return Measurement{}, err
	}

	fd := int(f.Fd())
	buf := make([]byte, readSize)
	samples := make([]time.Duration, reads)
	for i := range samples {
		if i%256 == 0 {
			if err := ctx.Err(); err != nil {
				return Measurement{}, err
			}
			if time.Now().After(deadline) {
				return Measurement{}, fmt.Errorf("calibration with %d of %d reads done took longer than %s: the host is too busy to time memory reads now", i, reads, budget)
			}
		}
		offset := int64(i*stride%filePages) * readSize
		start := time.Now()
		n, err := unix.Pread(fd, buf, offset)
		samples[i] = time.Since(start)
		if err != nil || n != readSize {
			return Measurement{}, fmt.Errorf("read %d bytes at %d of %s: got %d: %v", readSize, offset, f.Name(), n, err)
		}
	}
	// A page evicted meanwhile (memory pressure) turned some reads into storage reads.
	if resident, err := residentPages(f); err != nil {
		return Measurement{}, err
	} else if resident != filePages {
		return Measurement{}, fmt.Errorf("%d of %d calibration pages were evicted while being timed (memory pressure); the measurement is discarded", filePages-resident, filePages)
	}
	mean, kept, err := TrimmedMean(samples, TrimFraction)
	if err != nil {
		return Measurement{}, err
	}
	return Measurement{Mean: mean, Samples: kept, At: time.Now()}, nil
}

// makeResident writes the file and checks with mincore that every page is in memory (a page just
// written is; WILLNEED asks the kernel to keep it so). It does not sync: a read copies a dirty
// page as it copies a clean one, and an fsync would make the agent's own spool writes wait.
func makeResident(f *os.File) error {
	page := make([]byte, readSize)
	for i := range page {
		page[i] = byte(i*31 + 7) // not zeros, which a file system could store as a hole
	}
	for p := range filePages {
		page[0], page[1] = byte(p), byte(p>>8) // no two pages alike
		if _, err := f.Write(page); err != nil {
			return fmt.Errorf("write the calibration file %s: %w", f.Name(), err)
		}
	}
	if err := unix.Fadvise(int(f.Fd()), 0, filePages*readSize, unix.FADV_WILLNEED); err != nil {
		return fmt.Errorf("fadvise WILLNEED on %s: %w", f.Name(), err)
	}
	resident, err := residentPages(f)
	if err != nil {
		return err
	}
	if resident != filePages {
		return fmt.Errorf("only %d of %d calibration pages are in the page cache just after writing them (memory pressure); try again later", resident, filePages)
	}
	return nil
}

// residentPages counts the file's pages in the page cache, with mincore on a read-only shared
// mapping (mapping without touching faults nothing in).
func residentPages(f *os.File) (int, error) {
	mapping, err := unix.Mmap(int(f.Fd()), 0, filePages*readSize, unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return 0, fmt.Errorf("mmap %s: %w", f.Name(), err)
	}
	defer unix.Munmap(mapping)
	pageSize := os.Getpagesize()
	vector := make([]byte, (len(mapping)+pageSize-1)/pageSize)
	if err := accel.Mincore(mapping, vector); err != nil {
		return 0, fmt.Errorf("mincore %s: %w", f.Name(), err)
	}
	resident := 0
	for _, v := range vector {
		if v&1 != 0 {
			resident++
		}
	}
	// Counted in 4 KiB reads, whatever the page size.
	return resident * pageSize / readSize, nil
}
