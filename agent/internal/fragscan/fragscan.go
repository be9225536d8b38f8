// Package fragscan measures how fragmented the files under a directory are: it walks the
// tree, maps every regular file with FIEMAP (counted as filefrag counts) and summarises the
// scan, keeping only the worst files. It is built to run beside a busy database: files are
// paced to a rate, the scanning thread runs at idle I/O priority and nice 19, symlinks are
// never followed and the walk stays on the root's file system. Memory does not grow with the
// number of files (the worst-files list is a bounded heap).
package fragscan

import (
	"context"
	"errors"
	"time"
)

// ErrUnsupported means scanning cannot work on this OS.
var ErrUnsupported = errors.New("fragmentation scanning not supported on this system")

// Settings tune one scan.
type Settings struct {
	// MaxFilesPerSecond paces the FIEMAP calls (and the opens before them); at least 1.
	MaxFilesPerSecond int
	// WorstFiles is how many of the most fragmented files a Result keeps.
	WorstFiles int
}

// FileExtents is one file of the worst-files list.
type FileExtents struct {
	Path      string
	SizeBytes int64
	Extents   int
}

// Result summarises one complete scan of one root.
type Result struct {
	Root string
	// Files are the regular files mapped; FragmentedFiles those with more than one extent.
	Files, FragmentedFiles int64
	// Extents of all mapped files; ExcessExtents those beyond one per non-empty file.
	Extents, ExcessExtents int64
	// UnsupportedFiles are regular files whose file system has no FIEMAP (skipped).
	UnsupportedFiles int64
	// Unreadable are files and directories that could not be opened, listed or mapped
	// (permissions, I/O errors); entries that vanished during the scan are not counted.
	Unreadable int64
	Duration   time.Duration
	Finished   time.Time
	// Worst are the files with more than one extent and the most extents, most first (ties by
	// path), at most Settings.WorstFiles of them.
	Worst []FileExtents
}

// Scan walks each root in turn on one thread set to idle I/O priority and nice 19 (the thread
// is discarded afterwards, so no other goroutine inherits its priority). The rate limit spans
// all roots. It returns the results of the roots it completed and the errors of the others;
// a cancelled ctx stops at once and returns ctx's error.
func Scan(ctx context.Context, roots []string, s Settings) ([]Result, error) {
	if s.MaxFilesPerSecond < 1 {
		s.MaxFilesPerSecond = 1
	}
	var results []Result
	var errs []error
	err := runAtIdlePriority(func() {
		pace := newPacer(s.MaxFilesPerSecond)
		for _, root := range roots {
			r, err := scanRoot(ctx, root, s, pace)
			if ctx.Err() != nil {
				errs = []error{ctx.Err()}
				return
			}
			if err != nil {
				errs = append(errs, err)
				continue
			}
			results = append(results, r)
		}
	})
	if err != nil {
		return nil, err
	}
	return results, errors.Join(errs...)
}

// pacer spaces events at least interval apart, without bursts to make up for slow periods.
type pacer struct {
	interval time.Duration
	next     time.Time
}

func newPacer(perSecond int) *pacer { return &pacer{interval: time.Second / time.Duration(perSecond)} }

func (p *pacer) wait(ctx context.Context) error {
	now := time.Now()
	if p.next.After(now) {
		timer := time.NewTimer(p.next.Sub(now))
		select {
		case <-ctx.Done():
			timer.Stop()
			return ctx.Err()
		case <-timer.C:
		}
		now = p.next
	}
	p.next = now.Add(p.interval)
	return nil
}

func (r *Result) count(f FileExtents, outcome fileOutcome) {
	switch outcome {
	case mapped:
		r.Files++
		r.Extents += int64(f.Extents)
		if f.Extents > 1 {
			r.FragmentedFiles++
			r.ExcessExtents += int64(f.Extents - 1)
		}
	case unsupported:
		r.UnsupportedFiles++
	case unreadable:
		r.Unreadable++
	}
}
