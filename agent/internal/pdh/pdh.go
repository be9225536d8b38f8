// Package pdh reads Windows performance counters (the Performance Data Helper library) as raw
// values, and reads the same values from recorded fixture files, so the code that turns counters
// into metrics is the same on every OS and is tested everywhere.
//
// Raw values, not PDH's formatted rates: a raw value is the counter's cumulative state (an
// operation count, a sum of 100 ns ticks), so the agent takes deltas over its own interval, as it
// does with /proc/diskstats, and one collection is enough (a formatted rate needs two).
package pdh

import (
	"errors"
	"fmt"
)

// ErrUnsupported means performance counters cannot be read on this OS (every OS but Windows).
var ErrUnsupported = errors.New("performance counters (PDH) exist on Windows only")

// ErrNoCounter means the counter's object is not installed on this machine (a SQL Server
// instance that is not there, counters disabled with lodctr /D): the caller reports no data.
var ErrNoCounter = errors.New("performance counter not found")

// Raw is one instance's raw counter value (PDH_RAW_COUNTER). What First and Second hold depends
// on the counter's type; the mapping code documents it for every counter it uses.
type Raw struct {
	First, Second int64
}

// Counter names one counter of an object in English (PdhAddEnglishCounter: the names are the
// same on a German or Japanese Windows), e.g. {`PhysicalDisk`, `Disk Reads/sec`}.
type Counter struct {
	Object, Name string
}

// Path is the wildcard path PDH expands to every instance: `\PhysicalDisk(*)\Disk Reads/sec`.
// An object without instances (Memory, Cache) has the path `\Memory\Available Bytes`.
func (c Counter) Path(instanced bool) string {
	if instanced {
		return fmt.Sprintf(`\%s(*)\%s`, c.Object, c.Name)
	}
	return fmt.Sprintf(`\%s\%s`, c.Object, c.Name)
}

// NoInstance is the instance name of a counter of an object without instances.
const NoInstance = ""

// Snapshot is one collection: every counter's raw value per instance, and each counter's time
// base (ticks per second of the timer counters: PdhGetCounterTimeBase).
type Snapshot struct {
	Values   map[Counter]map[string]Raw
	TimeBase map[Counter]int64
}

// Get returns counter c of instance (NoInstance for an object without instances).
func (s Snapshot) Get(c Counter, instance string) (Raw, bool) {
	v, ok := s.Values[c][instance]
	return v, ok
}

// Instances lists the instances counter c has in this snapshot, in no particular order.
func (s Snapshot) Instances(c Counter) []string {
	names := make([]string, 0, len(s.Values[c]))
	for name := range s.Values[c] {
		names = append(names, name)
	}
	return names
}

// Query is an open set of counters collected together; Collect returns one Snapshot of all of
// them. Not safe for concurrent use (each collector owns its query).
type Query interface {
	Collect() (Snapshot, error)
	Close() error
}

// Spec is one counter to add to a query: Instanced adds every instance (the `(*)` wildcard).
type Spec struct {
	Counter
	Instanced bool
}
