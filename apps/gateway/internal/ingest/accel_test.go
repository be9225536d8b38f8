package ingest

import (
	"reflect"
	"strings"
	"testing"

	"go.opentelemetry.io/collector/pdata/pmetric"

	"github.com/spindle-io/spindle/apps/gateway/internal/telemetry"
	"github.com/spindle-io/spindle/apps/gateway/test/otlpfixture"
)

// mapAccel maps one batch carrying only the given acceleration metrics and managed files.
func mapAccel(t *testing.T, accel map[string]float64, files map[string]int64, change func(md pmetric.Metrics)) (telemetry.Deep, error) {
	t.Helper()
	s := sample(3)
	md := otlpfixture.Build(s)
	otlpfixture.AddDeep(md, 0, s, otlpfixture.Deep{Accel: accel, ManagedFiles: files})
	if change != nil {
		change(md)
	}
	request, err := mapPdata(md)
	if err != nil {
		return telemetry.Deep{}, err
	}
	return request.Batches[0].Deep, nil
}

// values reads a row back as column → value, leaving out what was not sent.
func values(family telemetry.AccelFamily, row telemetry.AccelRow) map[string]any {
	out := map[string]any{}
	for i, c := range family.Columns {
		switch v := row.Values[i].(type) {
		case *int64:
			out[c.Column] = *v
		case *float64:
			out[c.Column] = *v
		}
	}
	return out
}

func TestMapAccelLeavesUnsentMetricsNil(t *testing.T) {
	deep, err := mapAccel(t, map[string]float64{
		"spindle.read_cache.budget":                      1 << 30,
		"spindle.read_cache.resident":                    1 << 20,
		"spindle.read_cache.misses":                      8192,
		"spindle.read_cache.hits":                        0,
		"spindle.read_cache.memory_read_latency":         0.0000012,
		"spindle.read_cache.memory_read_latency.samples": 4096,
		"spindle.write_opt.preallocated":                 1 << 20,
		"spindle.write_opt.managed.grown":                65536,
		"spindle.write_opt.managed.extents_added":        1,
		"spindle.write_opt.unmanaged.grown":              65536,
		"spindle.write_opt.unmanaged.extents_added":      12,
	}, map[string]int64{"/var/log/app/a.log": 3, "/var/log/app/b.log": 9}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(deep.ReadCache) != 1 || len(deep.WriteOpt) != 1 {
		t.Fatalf("read_cache %d rows, write_opt %d rows; want one each", len(deep.ReadCache), len(deep.WriteOpt))
	}
	rc := deep.ReadCache[0]
	if rc.Time != sampleEnd || rc.IntervalSeconds != 10 {
		t.Errorf("read_cache row at %s over %v s", rc.Time, rc.IntervalSeconds)
	}
	wantRC := map[string]any{"budget_bytes": int64(1 << 30), "resident_bytes": int64(1 << 20), "misses_bytes": int64(8192), "hits_bytes": int64(0),
		"memory_read_latency_seconds": 0.0000012, "memory_read_latency_samples": int64(4096)}
	if got := values(telemetry.ReadCacheFamily, rc); !reflect.DeepEqual(got, wantRC) {
		t.Errorf("read_cache values (unsent must be absent, a sent 0 kept)\n got %v\nwant %v", got, wantRC)
	}
	wantWO := map[string]any{"preallocated_bytes": int64(1 << 20), "managed_grown_bytes": int64(65536), "managed_extents_added": int64(1),
		"unmanaged_grown_bytes": int64(65536), "unmanaged_extents_added": int64(12)}
	if got := values(telemetry.WriteOptFamily, deep.WriteOpt[0]); !reflect.DeepEqual(got, wantWO) {
		t.Errorf("write_opt values\n got %v\nwant %v", got, wantWO)
	}
	wantFiles := &telemetry.WriteOptFiles{Time: sampleEnd, Files: []telemetry.WriteOptFile{{Path: "/var/log/app/b.log", Extents: 9}, {Path: "/var/log/app/a.log", Extents: 3}}}
	if !reflect.DeepEqual(deep.WriteOptFiles, wantFiles) {
		t.Errorf("write_opt_files %+v", deep.WriteOptFiles)
	}
}

func TestMapAccelRefusesWhatItCannotStore(t *testing.T) {
	counters := map[string]float64{"spindle.read_cache.misses": 1}
	with := func(extra map[string]float64) map[string]float64 {
		out := map[string]float64{}
		for k, v := range counters {
			out[k] = v
		}
		for k, v := range extra {
			out[k] = v
		}
		return out
	}
	cases := []struct {
		name   string
		accel  map[string]float64
		files  map[string]int64
		change func(md pmetric.Metrics)
		want   string
	}{
		{name: "gauges without any counter", accel: map[string]float64{"spindle.read_cache.budget": 1}, want: "interval is unknown"},
		{name: "latency without samples", accel: with(map[string]float64{"spindle.read_cache.memory_read_latency": 0.000001}), want: "must be sent together"},
		{name: "zero samples", accel: with(map[string]float64{"spindle.read_cache.memory_read_latency": 0.000001, "spindle.read_cache.memory_read_latency.samples": 0}), want: "at least one timed read"},
		{name: "zero latency", accel: with(map[string]float64{"spindle.read_cache.memory_read_latency": 0, "spindle.read_cache.memory_read_latency.samples": 10}), want: "positive finite"},
		{name: "negative counter", accel: map[string]float64{"spindle.write_opt.managed.grown": -1}, want: "negative"},
		{name: "wrong unit", accel: counters, change: func(md pmetric.Metrics) {
			otlpfixture.Metric(md, 0, "spindle.read_cache.misses").SetUnit("{page}")
		}, want: `Spindle expects "By"`},
		{name: "too many managed files", accel: counters, files: func() map[string]int64 {
			files := map[string]int64{}
			for i := 0; i < 21; i++ {
				files["/f"+strings.Repeat("x", i)] = 2
			}
			return files
		}(), want: "at most the 20"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := mapAccel(t, tc.accel, tc.files, tc.change)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// holdoutMetrics are the read cache's control-group counts of one interval, all seven.
var holdoutMetrics = map[string]float64{
	"spindle.read_cache.holdout":          10,
	"spindle.read_cache.managed.accessed": 36864,
	"spindle.read_cache.managed.missed":   4096,
	"spindle.read_cache.control.accessed": 4096,
	"spindle.read_cache.control.missed":   0,
	"spindle.read_cache.own.reads":        8192,
	"spindle.read_cache.own.page_hits":    4096,
}

func TestMapAccelStoresTheControlGroupInItsOwnRow(t *testing.T) {
	deep, err := mapAccel(t, holdoutMetrics, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(deep.ReadCacheHoldout) != 1 || len(deep.ReadCache) != 0 {
		t.Fatalf("read_cache_holdout %d rows, read_cache %d rows; want the control group's row alone", len(deep.ReadCacheHoldout), len(deep.ReadCache))
	}
	row := deep.ReadCacheHoldout[0]
	want := map[string]any{"holdout_percent": int64(10), "managed_accessed_bytes": int64(36864), "managed_missed_bytes": int64(4096),
		"control_accessed_bytes": int64(4096), "control_missed_bytes": int64(0), "own_read_bytes": int64(8192), "own_page_hit_bytes": int64(4096)}
	if got := values(telemetry.ReadCacheHoldoutFamily, row); row.IntervalSeconds != 10 || !reflect.DeepEqual(got, want) {
		t.Fatalf("read_cache_holdout row over %v s\n got %v\nwant %v", row.IntervalSeconds, got, want)
	}
}

func TestMapAccelRefusesPartOfTheControlGroup(t *testing.T) {
	partial := map[string]float64{}
	for name, v := range holdoutMetrics {
		if name != "spindle.read_cache.control.missed" {
			partial[name] = v
		}
	}
	_, err := mapAccel(t, partial, nil, nil)
	if err == nil || !strings.Contains(err.Error(), "travel together; missing spindle.read_cache.control.missed") {
		t.Fatalf("err = %v, want the missing control-group metric named", err)
	}
}

// The memory-read latency is sent every tick, also while the read cache is off and no counter
// goes with it: gauges stamped with the tick's start still make a row with its interval.
func TestMapAccelTakesTheIntervalFromStampedGauges(t *testing.T) {
	latency := map[string]float64{"spindle.read_cache.memory_read_latency": 0.000002, "spindle.read_cache.memory_read_latency.samples": 4096}
	deep, err := mapAccel(t, latency, nil, func(md pmetric.Metrics) {
		for _, name := range []string{"spindle.read_cache.memory_read_latency", "spindle.read_cache.memory_read_latency.samples"} {
			dp := otlpfixture.Metric(md, 0, name).Gauge().DataPoints().At(0)
			dp.SetStartTimestamp(otlpfixture.Metric(md, 0, "system.disk.operations").Sum().DataPoints().At(0).StartTimestamp())
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(deep.ReadCache) != 1 {
		t.Fatalf("read_cache rows %+v: want one for the stamped gauges", deep.ReadCache)
	}
	row := deep.ReadCache[0]
	got := values(telemetry.ReadCacheFamily, row)
	if row.IntervalSeconds != 10 || got["memory_read_latency_samples"] != int64(4096) || len(got) != 2 {
		t.Fatalf("read_cache row %+v (%v): want a 10 s row with only the latency and its samples", row, got)
	}
}

// TestMapAccelFillsEveryGenericFamily sends every metric of every generic family (catalogue.json
// families with gateway.rows "accel", write_opt_trimmed among them) and finds each in its
// family's one row: a family declared that way needs no mapping code.
func TestMapAccelFillsEveryGenericFamily(t *testing.T) {
	sent := map[string]float64{}
	want := map[string]map[string]any{}
	for _, family := range telemetry.AccelFamilies {
		want[family.Table] = map[string]any{}
		for i, c := range family.Columns {
			value := float64(1000 + i)
			if c.Kind == telemetry.AccelSeconds {
				value = 0.001 * float64(i+1)
				want[family.Table][c.Column] = value
			} else {
				want[family.Table][c.Column] = int64(value)
			}
			sent[c.Metric] = value
		}
	}
	deep, err := mapAccel(t, sent, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := want["write_opt_trimmed"]; !ok {
		t.Fatal("write_opt_trimmed is not a generic family")
	}
	for _, family := range telemetry.AccelFamilies {
		rows := deep.AccelRows(family)
		if len(rows) != 1 {
			t.Fatalf("%s: %d rows, want 1", family.Table, len(rows))
		}
		if got := values(*family, rows[0]); !reflect.DeepEqual(got, want[family.Table]) {
			t.Errorf("%s values\n got %v\nwant %v", family.Table, got, want[family.Table])
		}
	}
}
