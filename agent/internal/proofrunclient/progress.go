package proofrunclient

import (
	"sync"

	"github.com/spindle-io/spindle/agent/internal/proofrun"
)

// progressReporter holds the newest progress from the proof run's goroutine for the poster,
// so a slow gateway never slows the measurement.
type progressReporter struct {
	mu      sync.Mutex
	latest  proofrun.Progress
	changed chan struct{} // buffered 1: a phase changed, post now
}

func newProgressReporter() *progressReporter {
	return &progressReporter{changed: make(chan struct{}, 1)}
}

func (p *progressReporter) set(progress proofrun.Progress) {
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

func (p *progressReporter) get() proofrun.Progress {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.latest
}
