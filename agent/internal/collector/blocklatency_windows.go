package collector

import "github.com/spindle-io/spindle/agent/internal/etw"

// windowsDiskLatencyCollector starts the kernel logger's disk I/O session.
func windowsDiskLatencyCollector(opts Options) Collector {
	s, err := etw.Start()
	if err != nil {
		if opts.Logger != nil {
			opts.Logger.Info("disk latency histograms are not available (ETW)", "reason", err)
		}
		return &etwLatencyCollector{startErr: err}
	}
	return &etwLatencyCollector{histograms: s.Histograms().Snapshot, close: s.Close}
}
