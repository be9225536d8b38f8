//go:build linux || windows

package writeopt

import (
	"errors"
	"os"
	"path/filepath"
	"time"

	"github.com/spindle-io/spindle/agent/internal/policy"
)

// windowLimits are the sizing bounds for the files of a rule whose first window is firstBytes.
func (f *Feature) windowLimits(firstBytes int64) windowLimits {
	return windowLimits{
		firstBytes: firstBytes,
		minBytes:   policy.MinChunkBytes,
		capBytes:   max(f.cfg.PreallocationCapBytes, firstBytes),
		horizon:    f.cfg.PreallocationHorizon,
		freeShare:  maxWindowShareOfFreeSpace,
		hintBytes:  f.hintBytes(firstBytes),
	}
}

// hintBytes is the XFS extent size hint of a rule's new files: its first window, when the
// agent's configuration asks for hints.
func (f *Feature) hintBytes(firstBytes int64) int64 {
	if !f.cfg.ExtentSizeHint {
		return 0
	}
	return firstBytes
}

// trimIdle trims the reservations of the files that have not changed for TrimIdleAfter. A file
// still open for writing keeps its reservation and is tried again TrimIdleAfter later.
func (f *Feature) trimIdle(now time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for path, g := range f.growth {
		if g.reservedEnd > g.lastSize && now.Sub(g.lastEvent) >= f.cfg.TrimIdleAfter && !now.Before(g.nextTrim) {
			f.trimLocked(path, g, now)
		}
	}
}

// releaseUnmanagedLocked trims and forgets the files that w (nil: none) no longer manages: on
// a policy change and when the feature stops.
func (f *Feature) releaseUnmanagedLocked(w *watcher) {
	now := time.Now()
	for path, g := range f.growth {
		if w != nil {
			if _, managed := w.ruleFor(path); managed {
				continue
			}
		}
		if g.reservedEnd > g.lastSize {
			f.trimLocked(path, g, now)
		}
		g.closeHold()
		delete(f.growth, path)
	}
}

func (f *Feature) trimLocked(path string, g *growth, now time.Time) {
	size, freedBytes, err := trimReservation(path, g)
	switch {
	case errors.Is(err, os.ErrNotExist):
		g.closeHold()
		delete(f.growth, path)
	case errors.Is(err, errOpenForWriting):
		g.nextTrim = now.Add(f.cfg.TrimIdleAfter)
	case err != nil:
		f.stats.LastError = err.Error()
		g.nextTrim = now.Add(f.cfg.TrimIdleAfter)
	default:
		g.lastSize, g.reservedEnd, g.trimmed = size, size, true
		f.stats.TrimmedBytes += freedBytes
	}
}

// ruleFor returns the first window (chunk size) of the first rule matching path.
func (w *watcher) ruleFor(path string) (int64, bool) {
	slashed := filepath.ToSlash(path)
	for _, rule := range w.rules {
		if policy.MatchesPattern(rule.Pattern, slashed) {
			return rule.ChunkBytes, true
		}
	}
	return 0, false
}
