package collector

// newFragmentationCollector starts the background scanner (FIEMAP, ioprio and the walk are
// Linux-only: see internal/fiemap and internal/fragscan).
func newFragmentationCollector(opts Options) (Collector, error) {
	c := newFragmentation(opts)
	c.start()
	return c, nil
}
