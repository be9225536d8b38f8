package benchrun

import (
	"sync"

	"github.com/spindle-io/spindle/agent/internal/bench"
)

// progressReporter holds the newest progress from the bench run's goroutine for the poster,
// so a slow gateway never slows the measurement.
type progressReporter struct {
	mu      sync.Mutex
	latest  bench.Progress
	changed chan struct{} // buffered 1: a phase changed, post now
}

func newProgressReporter() *progressReporter {
	return &progressReporter{changed: make(chan struct{}, 1)}
}

func (p *progressReporter) set(progress bench.Progress) {
	p.mu.Lock()
	phaseChanged := progress.Phase != p.latest.Phase || progress.Pass != p.latest.Pass
	p.latest = progress
	p.mu.Unlock()
	if phaseChanged {
		select {
		case p.changed <- struct{}{}:
		default:
		}
	}
}

func (p *progressReporter) get() bench.Progress {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.latest
}
