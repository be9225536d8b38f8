package ingest

import (
	"fmt"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/spindle-io/spindle/apps/gateway/internal/ingest/otlp"
)

// Bounds limit what one export may span, whatever metric families it carries: points outside
// [now − MaxAge, now + MaxAhead] would create chunks every tenant shares and rows beyond
// retention, and very many distinct timestamps or devices in one request would make one small
// body expensive to store. Checked over every data point of every metric, known or not, before
// anything is mapped or written.
type Bounds struct {
	MaxAge        time.Duration
	MaxAhead      time.Duration
	MaxTimestamps int // distinct point timestamps per request
	MaxDevices    int // distinct system.device values per request
}

// Defaults: a week of spool replay, ten minutes of clock skew; an agent's hour-long batch of
// 1 s samples has 3,600 timestamps.
const (
	DefaultMaxAge        = 7 * 24 * time.Hour
	DefaultMaxAhead      = 10 * time.Minute
	DefaultMaxTimestamps = 20_000
	DefaultMaxDevices    = 4_096
)

// DefaultBounds are the limits a gateway uses unless configured otherwise.
func DefaultBounds() Bounds {
	return Bounds{MaxAge: DefaultMaxAge, MaxAhead: DefaultMaxAhead, MaxTimestamps: DefaultMaxTimestamps, MaxDevices: DefaultMaxDevices}
}

// deviceAttribute names a block device on every per-device family.
const deviceAttribute = "system.device"

// CheckBounds reports the first point outside the bounds, in words an operator can act on.
func CheckBounds(md *otlp.Metrics, b Bounds, now time.Time) error {
	earliest := pcommon.NewTimestampFromTime(now.Add(-b.MaxAge))
	latest := pcommon.NewTimestampFromTime(now.Add(b.MaxAhead))
	timestamps := map[pcommon.Timestamp]struct{}{}
	devices := map[string]struct{}{}
	check := func(name string, ts, start pcommon.Timestamp, attrs otlp.Attributes) error {
		for _, t := range []pcommon.Timestamp{ts, start} {
			if t == 0 {
				continue // a missing time is the family's to refuse, with its own message
			}
			if t < earliest || t > latest {
				return fmt.Errorf("metric %s has a point at %s, outside the accepted window %s to %s (now − %s to now + %s); check the agent host's clock — nothing was written",
					name, t.AsTime().UTC().Format(time.RFC3339), earliest.AsTime().UTC().Format(time.RFC3339),
					latest.AsTime().UTC().Format(time.RFC3339), b.MaxAge, b.MaxAhead)
			}
		}
		if _, seen := timestamps[ts]; !seen {
			if len(timestamps) >= b.MaxTimestamps {
				return fmt.Errorf("the request has more than %d distinct point timestamps; send smaller batches", b.MaxTimestamps)
			}
			timestamps[ts] = struct{}{}
		}
		if device, ok := attrs.Get(deviceAttribute); ok {
			if _, seen := devices[device.AsString()]; !seen {
				if len(devices) >= b.MaxDevices {
					return fmt.Errorf("the request names more than %d distinct devices; send smaller batches", b.MaxDevices)
				}
				devices[device.AsString()] = struct{}{}
			}
		}
		return nil
	}
	for r := range md.ResourceMetrics {
		scopes := md.ResourceMetrics[r].ScopeMetrics
		for s := range scopes {
			for m := range scopes[s].Metrics {
				if err := eachTimestamp(&scopes[s].Metrics[m], check); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// eachTimestamp visits every data point of any metric type.
func eachTimestamp(m *otlp.Metric, visit func(name string, ts, start pcommon.Timestamp, attrs otlp.Attributes) error) error {
	for i := range m.Numbers {
		if err := visit(m.Name, m.Numbers[i].Time, m.Numbers[i].Start, m.Numbers[i].Attributes); err != nil {
			return err
		}
	}
	for i := range m.Histograms {
		if err := visit(m.Name, m.Histograms[i].Time, m.Histograms[i].Start, m.Histograms[i].Attributes); err != nil {
			return err
		}
	}
	for i := range m.Others {
		if err := visit(m.Name, m.Others[i].Time, m.Others[i].Start, m.Others[i].Attributes); err != nil {
			return err
		}
	}
	return nil
}
