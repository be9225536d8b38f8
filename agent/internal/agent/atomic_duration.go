package agent

import (
	"sync/atomic"
	"time"
)

// atomicDuration is a time.Duration read and written from different goroutines.
type atomicDuration struct{ v atomic.Int64 }

func (d *atomicDuration) Load() time.Duration   { return time.Duration(d.v.Load()) }
func (d *atomicDuration) Store(v time.Duration) { d.v.Store(int64(v)) }
func (d *atomicDuration) Swap(v time.Duration) time.Duration {
	return time.Duration(d.v.Swap(int64(v)))
}
