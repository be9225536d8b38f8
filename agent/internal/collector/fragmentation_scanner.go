//go:build linux || windows

package collector

// newFragmentationCollector starts the background scanner (extent maps, the idle-priority thread
// and the walk exist for Linux and Windows: see internal/fiemap and internal/fragscan).
func newFragmentationCollector(opts Options) (Collector, error) {
	c := newFragmentation(opts)
	c.start()
	return c, nil
}
