package ingest

import (
	"strings"
	"testing"

	"go.opentelemetry.io/collector/pdata/pmetric"

	"github.com/spindle-io/spindle/apps/gateway/internal/telemetry"
	"github.com/spindle-io/spindle/apps/gateway/test/otlpfixture"
)

// mapBuckets maps one batch carrying the control group's row and the given buckets.
func mapBuckets(t *testing.T, buckets map[int64][4]int64, change func(md pmetric.Metrics)) (telemetry.Deep, error) {
	t.Helper()
	s := sample(3)
	md := otlpfixture.Build(s)
	otlpfixture.AddDeep(md, 0, s, otlpfixture.Deep{Accel: holdoutMetrics, HoldoutBuckets: buckets})
	if change != nil {
		change(md)
	}
	request, err := mapPdata(md)
	if err != nil {
		return telemetry.Deep{}, err
	}
	return request.Batches[0].Deep, nil
}

func allBuckets() map[int64][4]int64 {
	out := map[int64][4]int64{}
	for b := range int64(telemetry.HoldoutBuckets) {
		out[b] = [4]int64{4096 * b, 0, 4096, 4096}
	}
	return out
}

func TestMapHoldoutBucketsStoresOneRowPerBucket(t *testing.T) {
	deep, err := mapBuckets(t, allBuckets(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(deep.ReadCacheHoldoutBuckets) != telemetry.HoldoutBuckets || len(deep.ReadCacheHoldout) != 1 {
		t.Fatalf("%d bucket rows and %d control-group rows, want 16 and 1", len(deep.ReadCacheHoldoutBuckets), len(deep.ReadCacheHoldout))
	}
	for i, row := range deep.ReadCacheHoldoutBuckets {
		want := telemetry.ReadCacheHoldoutBucketRow{Time: row.Time, HashBucket: int16(i), IntervalSeconds: 10,
			ManagedAccessed: 4096 * int64(i), ControlAccessed: 4096, ControlMissed: 4096}
		if row != want || !row.Time.Equal(deep.ReadCacheHoldout[0].Time) {
			t.Errorf("row %d = %+v, want %+v at the control group's time", i, row, want)
		}
	}
}

// Each way a bucket list could mislead the caused interval is refused with what to fix.
func TestMapHoldoutBucketsRefusesWhatTheJackknifeCannotUse(t *testing.T) {
	missing := allBuckets()
	delete(missing, 7)
	beyond := allBuckets()
	beyond[16] = [4]int64{}
	delete(beyond, 0)
	stringBucket := func(md pmetric.Metrics) {
		forEachPoint(md, "spindle.read_cache.bucket.control.missed", func(dp pmetric.NumberDataPoint) {
			if v, _ := dp.Attributes().Get("spindle.read_cache.bucket"); v.Int() == 3 {
				dp.Attributes().PutStr("spindle.read_cache.bucket", "3")
			}
		})
	}
	dropOne := func(md pmetric.Metrics) {
		forEachMetric(md, func(ms pmetric.MetricSlice) {
			ms.RemoveIf(func(m pmetric.Metric) bool { return m.Name() == "spindle.read_cache.bucket.managed.missed" })
		})
	}
	for _, c := range []struct {
		name    string
		buckets map[int64][4]int64
		change  func(pmetric.Metrics)
		want    string
	}{
		{"a bucket missing", missing, nil, "has 15 of the 16 buckets"},
		{"a bucket beyond 15", beyond, nil, "spindle.read_cache.bucket 16"},
		{"a bucket as text", allBuckets(), stringBucket, "no integer spindle.read_cache.bucket attribute"},
		{"a counter missing", allBuckets(), dropOne, "has no managed_missed_bytes"},
	} {
		_, err := mapBuckets(t, c.buckets, c.change)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", c.name, err, c.want)
		}
	}
}

func forEachMetric(md pmetric.Metrics, fn func(pmetric.MetricSlice)) {
	for i := range md.ResourceMetrics().Len() {
		sms := md.ResourceMetrics().At(i).ScopeMetrics()
		for j := range sms.Len() {
			fn(sms.At(j).Metrics())
		}
	}
}

func forEachPoint(md pmetric.Metrics, name string, fn func(pmetric.NumberDataPoint)) {
	forEachMetric(md, func(ms pmetric.MetricSlice) {
		for k := range ms.Len() {
			if m := ms.At(k); m.Name() == name {
				for p := range m.Sum().DataPoints().Len() {
					fn(m.Sum().DataPoints().At(p))
				}
			}
		}
	})
}
