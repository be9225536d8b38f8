package writeopt

import (
	"os"
	"time"
)

// attachGate puts the open gate on w's directories (and those it adds later), so an empty file a
// rule matches gets its first window before its first write. It returns why not where the gate
// cannot run; w then works with inotify alone, as before.
func (f *Feature) attachGate(w *watcher) error {
	if f.cfg.FirstWrite == FirstWriteInotify {
		return ErrFirstWriteInotify
	}
	gate, err := newOpenGate(func(path string) bool {
		_, managed := w.ruleFor(path)
		return managed
	}, func(path string, file *os.File) { f.reserveOnOpen(w, path, file) })
	if err != nil {
		return err
	}
	for _, dir := range w.dirs {
		if err := gate.mark(dir); err != nil {
			gate.close()
			return err
		}
	}
	w.gate = gate
	return nil
}

// reserveOnOpen gives a new file its first window while its opener waits (the gate's worker).
func (f *Feature) reserveOnOpen(w *watcher, path string, file *os.File) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.watcher != w {
		return // replaced by Apply meanwhile, or not in force yet
	}
	chunk, managed := w.ruleFor(path)
	if !managed {
		return
	}
	f.reserveLocked(path, chunk, func(g *growth, limits windowLimits, now time.Time) (int64, error) {
		return reserveIn(file, path, g, limits, now)
	})
	// The window may have come from inotify's report of the file's creation, handled while the
	// opener waited here: either way the gate held the first write back until it was reserved.
	if g := f.growth[path]; g != nil && g.reservedEnd > 0 {
		f.stats.FirstWritesReserved++
	}
}
