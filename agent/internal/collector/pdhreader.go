package collector

import (
	"errors"
	"fmt"
	"sync"

	"github.com/spindle-io/spindle/agent/internal/pdh"
)

// pdhReader is the thin data source of the Windows collectors: it opens its PDH query on first
// use (and again after a failure, so counters installed later are picked up) and returns one
// snapshot per call; the query stays open for the life of the process. open is pdh.Open; tests need no reader, they feed snapshots directly.
type pdhReader struct {
	what  string // "diskstats", "meminfo": names the collector in errors
	specs []pdh.Spec
	open  func([]pdh.Spec) (pdh.Query, error)

	mu    sync.Mutex
	query pdh.Query
}

func newPDHReader(what string, specs []pdh.Spec) *pdhReader {
	return &pdhReader{what: what, specs: specs, open: pdh.Open}
}

func (r *pdhReader) read() (pdh.Snapshot, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.query == nil {
		q, err := r.open(r.specs)
		switch {
		case errors.Is(err, pdh.ErrUnsupported), errors.Is(err, pdh.ErrNoCounter):
			return pdh.Snapshot{}, fmt.Errorf("%s: %w: %w", r.what, ErrUnsupported, err)
		case err != nil:
			return pdh.Snapshot{}, fmt.Errorf("%s: %w", r.what, err)
		}
		r.query = q
	}
	s, err := r.query.Collect()
	if err != nil {
		return pdh.Snapshot{}, fmt.Errorf("%s: %w", r.what, err)
	}
	return s, nil
}
