package telemetry

import "time"

// FilesystemRow is one mounted file system's space at the end of one interval (table
// filesystem, docs/metrics.md "File systems"): AvailableBytes ≤ FreeBytes ≤ SizeBytes.
type FilesystemRow struct {
	Time            time.Time
	Mountpoint      string
	Device          string
	FSType          string
	IntervalSeconds float64
	SizeBytes       int64
	FreeBytes       int64 // f_bfree: not in use, the root reserve included
	AvailableBytes  int64 // f_bavail: what applications may still write
}

// AgentSpoolRow is the agent's unacknowledged backlog at the end of one interval (table
// agent_spool, docs/metrics.md "Agent spool").
type AgentSpoolRow struct {
	Time            time.Time
	IntervalSeconds float64
	SpoolBytes      int64
	PendingBatches  int64
}
