package telemetry

// SeriesPoint is the last point the gateway kept of one series a Collector sends without the
// agent's batch sequence (table cumulative_series): for a cumulative counter, the value the next
// point's delta is taken from; for a level, only its time, so a point sent again is known.
type SeriesPoint struct {
	Key           string // metric name and point attributes, canonical (ingest.seriesKey)
	StartUnixNano int64  // the series' start time; a new one means the source restarted
	TimeUnixNano  int64
	IsDouble      bool
	Int           int64
	Double        float64
}
