package export

import (
	"bytes"
	"cmp"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	colmetricpb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	metricpb "go.opentelemetry.io/proto/otlp/metrics/v1"
	"google.golang.org/protobuf/proto"

	"github.com/spindle-io/spindle/agent/internal/catalogue"
	"github.com/spindle-io/spindle/agent/internal/collector"
	"github.com/spindle-io/spindle/agent/internal/hostinfo"
)

// captureTransport keeps the body the official exporter would have sent.
type captureTransport struct{ body []byte }

func (c *captureTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	defer req.Body.Close()
	raw, err := io.ReadAll(req.Body)
	if err != nil {
		return nil, err
	}
	if req.Header.Get("Content-Encoding") != "gzip" {
		c.body = raw
	} else if c.body, err = gunzip(raw); err != nil {
		return nil, err
	}
	return &http.Response{StatusCode: http.StatusOK, Header: http.Header{}, Body: io.NopCloser(strings.NewReader("")), Request: req}, nil
}

func gunzip(b []byte) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	return io.ReadAll(zr)
}

// measurement is one call a collector makes on its sink.
type measurement func(collector.Sink)

var (
	testHost         = hostinfo.Info{Hostname: "db01", OS: "linux", OSVersion: "Debian GNU/Linux 12 (bookworm)", Kernel: "6.1.0-18-amd64", Arch: "amd64"}
	testCapabilities = []string{"ebpf.block_latency", "ebpf.page_cache"}
)

// sdkComparison records the same measurements into the agent's sink and into the SDK
// pipeline the agent used before (sdkreference_test.go), one interval after another on the
// same two sinks, and encodes each interval both ways: the agent's encoder, and the official
// otlpmetrichttp exporter fed by the SDK (neither of which the agent links any more).
type sdkComparison struct {
	ours     *sink
	sdk      *sdkSink
	official *otlpmetrichttp.Exporter
	capture  *captureTransport
	interval int
}

func newSDKComparison(t *testing.T) *sdkComparison {
	t.Helper()
	capture := &captureTransport{}
	official, err := otlpmetrichttp.New(context.Background(), otlpmetrichttp.WithEndpointURL("http://capture.invalid/v1/metrics"),
		otlpmetrichttp.WithHTTPClient(&http.Client{Transport: capture}), otlpmetrichttp.WithCompression(otlpmetrichttp.GzipCompression),
		otlpmetrichttp.WithRetry(otlpmetrichttp.RetryConfig{Enabled: false}),
		otlpmetrichttp.WithTemporalitySelector(func(sdkmetric.InstrumentKind) metricdata.Temporality { return metricdata.DeltaTemporality }))
	if err != nil {
		t.Fatal(err)
	}
	return &sdkComparison{ours: newSink(func(err error) { t.Errorf("sink error: %v", err) }), sdk: newSDKSink(t),
		official: official, capture: capture}
}

// check records ms into both and requires the same request: the official request, put in
// the agent's order (metrics by name, points by attributes), must be byte for byte the
// agent's. Float sums may differ in the last bits: the SDK adds the whole and fractional parts
// of counter deltas separately.
func (c *sdkComparison) check(t *testing.T, ms []measurement) {
	t.Helper()
	for _, m := range ms {
		m(c.ours)
		m(c.sdk)
	}
	c.interval++
	from := time.Unix(1_700_000_000, 5).Add(time.Duration(c.interval) * 10 * time.Second)
	to := from.Add(10*time.Second + 2)
	seq := uint64(98 + c.interval)

	numbers, histograms := c.ours.take()
	metrics, err := batchMetrics(numbers, histograms, from, to)
	if err != nil {
		t.Fatal(err)
	}
	body, err := encodeRequest(batchResource(WithCapabilities(BaseResource(testHost, "1.2.3", "agent-1"), testCapabilities), seq).Set(), metrics)
	if err != nil {
		t.Fatal(err)
	}
	oursRaw, err := gunzip(body)
	if err != nil {
		t.Fatalf("the agent's body is not gzip: %v", err)
	}
	rm := c.sdk.collect(t, from, to, sdkBatchResource(testHost, "1.2.3", "agent-1", testCapabilities, seq))
	if err := c.official.Export(context.Background(), rm); err != nil {
		t.Fatal(err)
	}

	var got, want colmetricpb.ExportMetricsServiceRequest
	if err := proto.Unmarshal(oursRaw, &got); err != nil {
		t.Fatalf("the agent's body is not an ExportMetricsServiceRequest: %v", err)
	}
	if err := proto.Unmarshal(c.capture.body, &want); err != nil {
		t.Fatal(err)
	}
	inAgentOrder(&want)
	reconcileFloatSums(t, &got, &want)
	if !proto.Equal(&got, &want) {
		t.Fatalf("interval %d: the agent's request differs from the SDK's through the official exporter:\n got  %v\n want %v", c.interval, &got, &want)
	}
	wantRaw, err := proto.Marshal(&want)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(oursRaw, wantRaw) {
		t.Fatalf("equal messages but different bytes (%d vs %d)", len(oursRaw), len(wantRaw))
	}
}

// inAgentOrder sorts the SDK's metrics (instrument creation order, then histograms) by name
// and each metric's points (map order) by attributes, as the agent sends them.
func inAgentOrder(req *colmetricpb.ExportMetricsServiceRequest) {
	for _, rm := range req.ResourceMetrics {
		for _, sm := range rm.ScopeMetrics {
			slices.SortStableFunc(sm.Metrics, func(a, b *metricpb.Metric) int { return cmp.Compare(a.Name, b.Name) })
			for _, m := range sm.Metrics {
				byAttrs := func(a, b interface{ GetAttributes() []*commonpb.KeyValue }) int {
					return compareKeyValues(a.GetAttributes(), b.GetAttributes())
				}
				slices.SortFunc(m.GetSum().GetDataPoints(), func(a, b *metricpb.NumberDataPoint) int { return byAttrs(a, b) })
				slices.SortFunc(m.GetGauge().GetDataPoints(), func(a, b *metricpb.NumberDataPoint) int { return byAttrs(a, b) })
				slices.SortFunc(m.GetHistogram().GetDataPoints(), func(a, b *metricpb.HistogramDataPoint) int { return byAttrs(a, b) })
			}
		}
	}
}

// compareKeyValues is compareSets on the wire form, for the kinds of value the tests record.
func compareKeyValues(a, b []*commonpb.KeyValue) int {
	for i := range min(len(a), len(b)) {
		if c := cmp.Compare(a[i].Key, b[i].Key); c != 0 {
			return c
		}
		x, y := a[i].Value, b[i].Value
		if c := cmp.Compare(valueRank(x), valueRank(y)); c != 0 {
			return c
		}
		var c int
		switch x.Value.(type) {
		case *commonpb.AnyValue_BoolValue:
			c = cmp.Compare(boolRank(x.GetBoolValue()), boolRank(y.GetBoolValue()))
		case *commonpb.AnyValue_IntValue:
			c = cmp.Compare(x.GetIntValue(), y.GetIntValue())
		case *commonpb.AnyValue_StringValue:
			c = cmp.Compare(x.GetStringValue(), y.GetStringValue())
		default:
			panic(fmt.Sprintf("the tests record no %T attributes", x.Value))
		}
		if c != 0 {
			return c
		}
	}
	return cmp.Compare(len(a), len(b))
}

// valueRank orders value kinds as attribute.Type does.
func valueRank(v *commonpb.AnyValue) attribute.Type {
	switch v.Value.(type) {
	case *commonpb.AnyValue_BoolValue:
		return attribute.BOOL
	case *commonpb.AnyValue_IntValue:
		return attribute.INT64
	case *commonpb.AnyValue_DoubleValue:
		return attribute.FLOAT64
	case *commonpb.AnyValue_StringValue:
		return attribute.STRING
	}
	return attribute.MAP + 1
}

// reconcileFloatSums lets a float sum of want differ from got's by rounding only, then takes
// got's value so the rest of the comparison is exact.
func reconcileFloatSums(t *testing.T, got, want *colmetricpb.ExportMetricsServiceRequest) {
	t.Helper()
	if len(got.ResourceMetrics) != 1 || len(want.ResourceMetrics) != 1 ||
		len(got.ResourceMetrics[0].ScopeMetrics) != len(want.ResourceMetrics[0].ScopeMetrics) {
		return // proto.Equal reports it
	}
	for i, sm := range want.ResourceMetrics[0].ScopeMetrics {
		gotMetrics := got.ResourceMetrics[0].ScopeMetrics[i].Metrics
		for j, m := range sm.Metrics {
			if j >= len(gotMetrics) || m.Name != gotMetrics[j].Name {
				return
			}
			wantPoints, gotPoints := m.GetSum().GetDataPoints(), gotMetrics[j].GetSum().GetDataPoints()
			for k := range min(len(wantPoints), len(gotPoints)) {
				w, g := wantPoints[k], gotPoints[k]
				wv, wok := w.Value.(*metricpb.NumberDataPoint_AsDouble)
				gv, gok := g.Value.(*metricpb.NumberDataPoint_AsDouble)
				if !wok || !gok || wv.AsDouble == gv.AsDouble {
					continue
				}
				if math.Abs(wv.AsDouble-gv.AsDouble) > 1e-12*max(math.Abs(wv.AsDouble), math.Abs(gv.AsDouble)) {
					t.Errorf("%s: sum %v, the SDK's %v", m.Name, gv.AsDouble, wv.AsDouble)
				}
				wv.AsDouble = gv.AsDouble
			}
		}
	}
}

// TestRequestMatchesOfficialExporter encodes one batch of every kind of point the agent
// records (int and float counters and gauges, a pre-aggregated histogram, string and int
// attributes, the batch resource with the capabilities) and requires the request the SDK and
// the official exporter made of the same measurements.
func TestRequestMatchesOfficialExporter(t *testing.T) {
	dev := attribute.String(catalogue.AttrDevice, "sda")
	read := attribute.String(catalogue.AttrDirection, catalogue.DirectionRead)
	counts := make([]uint64, catalogue.LatencyBucketCount)
	counts[7], counts[27] = 3, 1
	newSDKComparison(t).check(t, []measurement{
		func(s collector.Sink) { s.AddInt(catalogue.DiskOperations, 600, dev, read) },
		func(s collector.Sink) { s.AddFloat(catalogue.DiskIOTime, 7.25, dev) },
		func(s collector.Sink) { s.SetInt(catalogue.DiskPendingOperations, 3, dev) },
		func(s collector.Sink) { s.SetInt(catalogue.MemoryLimit, 1<<30) },
		func(s collector.Sink) {
			s.SetFloat(catalogue.CollectorDuration, 0.0125, attribute.String(catalogue.AttrCollector, "diskstats"))
		},
		func(s collector.Sink) {
			s.AddHistogram(catalogue.DiskIOLatency, collector.HistogramDelta{BucketCounts: counts, Sum: 70.0005}, dev, read)
		},
	})
}

// TestRandomMeasurementsMatchTheSDK records random measurements over several intervals: every
// kind, series recorded many times (sums add, gauges keep the last), attribute sets in any
// order and with a repeated key, negative and zero deltas, histograms.
func TestRandomMeasurementsMatchTheSDK(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 12))
	c := newSDKComparison(t)
	for range 4 {
		c.check(t, randomMeasurements(r, 1+r.IntN(600)))
	}
}

// TestCardinalityOverflowMatchesTheSDK records more attribute sets on one counter than the
// SDK kept per interval: the sets beyond the limit add up in the otel.metric.overflow point,
// and sets seen before the limit was reached keep their own points.
func TestCardinalityOverflowMatchesTheSDK(t *testing.T) {
	var ms []measurement
	file := func(i int) attribute.KeyValue {
		return attribute.String("spindle.file.path", fmt.Sprintf("/data/f%05d", i))
	}
	for i := range cardinalityLimit + 150 {
		ms = append(ms, func(s collector.Sink) { s.AddInt(catalogue.PageCacheFileAccesses, int64(i), file(i)) })
	}
	for i := range 10 {
		ms = append(ms, func(s collector.Sink) { s.AddInt(catalogue.PageCacheFileAccesses, 1, file(i*300)) })
		ms = append(ms, func(s collector.Sink) { s.SetFloat(catalogue.CacheMRCHitRatio, 0.5, file(i)) })
	}
	c := newSDKComparison(t)
	c.check(t, ms)
	// The limit is per interval: the next one starts with room again.
	c.check(t, ms[:20])
}

func randomMeasurements(r *rand.Rand, n int) []measurement {
	intCounters := []catalogue.IntCounter{catalogue.DiskOperations, catalogue.DiskIO, catalogue.DiskSplitOperations, catalogue.PageCacheFileAccesses}
	floatCounters := []catalogue.FloatCounter{catalogue.DiskOperationTime, catalogue.DiskIOTime, catalogue.DiskWeightedIOTime}
	intGauges := []catalogue.IntGauge{catalogue.DiskPendingOperations, catalogue.MemoryUsage, catalogue.CacheMRCSampledAccesses}
	floatGauges := []catalogue.FloatGauge{catalogue.CacheMRCHitRatio, catalogue.CollectorDuration}
	out := make([]measurement, 0, n)
	for range n {
		attrs := randomAttributes(r)
		switch r.IntN(5) {
		case 0:
			m, v := intCounters[r.IntN(len(intCounters))], r.Int64N(1_000_000)-5
			out = append(out, func(s collector.Sink) { s.AddInt(m, v, attrs...) })
		case 1:
			m, v := floatCounters[r.IntN(len(floatCounters))], randomFloat(r)
			out = append(out, func(s collector.Sink) { s.AddFloat(m, v, attrs...) })
		case 2:
			m, v := intGauges[r.IntN(len(intGauges))], r.Int64N(1<<40)-1000
			out = append(out, func(s collector.Sink) { s.SetInt(m, v, attrs...) })
		case 3:
			m, v := floatGauges[r.IntN(len(floatGauges))], randomFloat(r)
			out = append(out, func(s collector.Sink) { s.SetFloat(m, v, attrs...) })
		default:
			d := collector.HistogramDelta{BucketCounts: make([]uint64, catalogue.LatencyBucketCount), Sum: randomFloat(r)}
			for range r.IntN(4) {
				d.BucketCounts[r.IntN(len(d.BucketCounts))] += uint64(r.IntN(1000))
			}
			out = append(out, func(s collector.Sink) { s.AddHistogram(catalogue.DiskIOLatency, d, attrs...) })
		}
	}
	return out
}

func randomFloat(r *rand.Rand) float64 {
	switch r.IntN(3) {
	case 0:
		return float64(r.IntN(100)) // whole: the SDK adds these apart from fractions
	case 1:
		return 0
	}
	return r.Float64() * 100
}

func randomAttributes(r *rand.Rand) []attribute.KeyValue {
	devices := []string{"sda", "sdb", "nvme0n1"}
	var kvs []attribute.KeyValue
	if r.IntN(4) > 0 {
		kvs = append(kvs, attribute.String(catalogue.AttrDevice, devices[r.IntN(len(devices))]))
	}
	if r.IntN(2) == 0 {
		kvs = append(kvs, attribute.String(catalogue.AttrDirection, []string{catalogue.DirectionRead, catalogue.DirectionWrite}[r.IntN(2)]))
	}
	if r.IntN(5) == 0 {
		kvs = append(kvs, attribute.Int64("spindle.mrc.size_bytes", []int64{-1, 4096, 1 << 20, 1 << 30}[r.IntN(4)]))
	}
	if r.IntN(8) == 0 {
		kvs = append(kvs, attribute.Bool("spindle.test.flag", r.IntN(2) == 0))
	}
	if r.IntN(10) == 0 {
		// The same key twice: the last value counts, in both.
		kvs = append(kvs, attribute.String(catalogue.AttrDevice, devices[r.IntN(len(devices))]))
	}
	r.Shuffle(len(kvs), func(i, j int) { kvs[i], kvs[j] = kvs[j], kvs[i] })
	return kvs
}
