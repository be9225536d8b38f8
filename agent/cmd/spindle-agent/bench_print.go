package main

import (
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/spindle-io/spindle/agent/internal/bench"
)

// printReport writes the seed reports' table: per step, throughput and latency off and on, the
// change with its interval ("no measurable difference" when the interval includes 0), and
// what the read cache and write optimisation caused.
func printReport(w io.Writer, r *bench.Report) {
	fmt.Fprintf(w, "%s: %s\n%s on %s (%s, %s)\n", r.Profile, r.Description, r.StartedAt.Format(time.RFC3339),
		r.Device.Path, r.Device.Name, r.Device.FileSystem)
	if a := r.Alternation; a != nil {
		fmt.Fprintf(w, "passes: %d warm-up, then %d blocks of off, on, on, off; %s\n", r.WarmUpPasses, a.Blocks, a.Stop)
		fmt.Fprintf(w, "intervals: %.0f %% for the %d step and overall changes together (%s)\n", a.ConfidencePercent,
			a.IntervalsInFamily, a.Method)
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "step\t%s off\t%s on\tchange\tmean ms off\tmean ms on\tchange\tp99 ms off\tp99 ms on\n", r.Throughput, r.Throughput)
	for _, s := range r.Steps {
		var throughputChange, latencyChange = "-", "-"
		if s.Change != nil {
			throughputChange, latencyChange = difference(s.Change.Throughput), difference(s.Change.LatencyMean)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", s.Label, throughputOf(s.Off), throughputOf(s.On), throughputChange,
			ms(s.Off, func(x *bench.Result) float64 { return x.LatencyMeanSeconds }), ms(s.On, func(x *bench.Result) float64 { return x.LatencyMeanSeconds }),
			latencyChange,
			ms(s.Off, func(x *bench.Result) float64 { return x.LatencyP99Seconds }), ms(s.On, func(x *bench.Result) float64 { return x.LatencyP99Seconds }))
	}
	if r.Overall != nil {
		fmt.Fprintf(tw, "overall\t\t\t%s\t\t\t%s\t\t\n", difference(r.Overall.Throughput), difference(r.Overall.LatencyMean))
	}
	_ = tw.Flush()
	if c := r.Reads.Caused; c != nil {
		fmt.Fprintf(w, "\nstorage reads caused by the read cache: %s\n", caused(c))
	}
	if wp := r.WritePath; wp != nil && r.AB {
		fmt.Fprintf(w, "log file extents off %v, on %v: fragments prevented %s\n", wp.ExtentsOff, wp.ExtentsOn,
			difference(wp.FragmentsPrevented))
	}
	if r.Stopped != "" {
		fmt.Fprintf(w, "\nstopped: %s\n", r.Stopped)
	}
}

// difference is a change as the report states it: a figure with its interval only when the
// interval excludes 0.
func difference(d bench.Difference) string {
	switch d.Status {
	case bench.Measured:
		return fmt.Sprintf("%+.1f %% (%+.1f to %+.1f)", *d.Percent, *d.LowPercent, *d.HighPercent)
	case bench.NoMeasurableDifference:
		return fmt.Sprintf("no measurable difference (%+.1f to %+.1f %%)", *d.LowPercent, *d.HighPercent)
	}
	return "not measured"
}

func caused(c *bench.CausedReads) string {
	switch c.Status {
	case bench.Measured:
		return fmt.Sprintf("%.0f storage reads saved (%.0f to %.0f) of %d reads with the features; storage share %.1f %% off, %.1f %% on",
			*c.StorageReadsSaved, *c.StorageReadsSavedLow, *c.StorageReadsSavedHigh, c.ReadsWith, *c.StorageSharePercentOff, *c.StorageSharePercentOn)
	case bench.NoMeasurableDifference:
		return fmt.Sprintf("no measurable difference (%.0f to %.0f storage reads saved of %d)", *c.StorageReadsSavedLow,
			*c.StorageReadsSavedHigh, c.ReadsWith)
	}
	return "not measured: " + c.Reason
}

func throughputOf(r *bench.Result) string {
	switch {
	case r == nil:
		return "-"
	case r.TPS != nil:
		return fmt.Sprintf("%.1f", *r.TPS)
	}
	return fmt.Sprintf("%.0f", r.IOPS)
}

func ms(r *bench.Result, f func(*bench.Result) float64) string {
	if r == nil {
		return "-"
	}
	return fmt.Sprintf("%.2f", 1000*f(r))
}
