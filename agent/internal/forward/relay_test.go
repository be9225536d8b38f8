package forward

import (
	"compress/gzip"
	"context"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	collectorpb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	metricspb "go.opentelemetry.io/proto/otlp/metrics/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"
	"google.golang.org/protobuf/proto"

	"github.com/spindle-io/spindle/agent/internal/spool"
	"github.com/spindle-io/spindle/agent/internal/testutil"
)

// spooledBatch is an agent batch as the exporter spools it: one ResourceMetrics, gzipped, that
// already carries a stale credential attribute (a batch spooled before a renewal).
func spooledBatch(t *testing.T, seq int64) []byte {
	t.Helper()
	request := &collectorpb.ExportMetricsServiceRequest{ResourceMetrics: []*metricspb.ResourceMetrics{{
		Resource: &resourcepb.Resource{Attributes: []*commonpb.KeyValue{
			{Key: "spindle.batch.seq", Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_IntValue{IntValue: seq}}},
			{Key: AgentCredentialAttribute, Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: "spa_old"}}},
		}},
	}}}
	raw, err := proto.Marshal(request)
	if err != nil {
		t.Fatal(err)
	}
	return gz(string(raw))
}

func TestThroughACollectorEachResourceCarriesTheCurrentCredential(t *testing.T) {
	dir := t.TempDir()
	sp, err := spool.Open(dir, 1<<20, quiet())
	if err != nil {
		t.Fatal(err)
	}
	for seq := int64(1); seq <= 3; seq++ {
		if err := sp.Append(spool.Batch{Seq: uint64(seq), ContentEncoding: "gzip", Body: spooledBatch(t, seq)}); err != nil {
			t.Fatal(err)
		}
	}
	var mu sync.Mutex
	credentials := map[int64]string{}
	collector := testutil.Server(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if got := r.Header.Get("Authorization"); got != "" {
			t.Errorf("a request to the Collector carries Authorization %q; the credential travels in the resources", got)
		}
		zr, err := gzip.NewReader(r.Body)
		if err != nil {
			t.Errorf("body: %v", err)
			return
		}
		raw, _ := io.ReadAll(zr)
		request := &collectorpb.ExportMetricsServiceRequest{}
		if err := proto.Unmarshal(raw, request); err != nil {
			t.Errorf("decode: %v", err)
			return
		}
		for _, rm := range request.ResourceMetrics {
			var seq int64
			var found []string
			for _, kv := range rm.Resource.Attributes {
				switch kv.Key {
				case "spindle.batch.seq":
					seq = kv.Value.GetIntValue()
				case AgentCredentialAttribute:
					found = append(found, kv.Value.GetStringValue())
				}
			}
			if len(found) != 1 {
				t.Errorf("batch %d carries %d credential attributes, want 1", seq, len(found))
				continue
			}
			mu.Lock()
			credentials[seq] = found[0]
			mu.Unlock()
		}
		w.WriteHeader(http.StatusOK)
	}))
	var current atomic.Value
	current.Store("spa_renewed")
	fwd := New(Settings{Gateway: "http://gateway.invalid:1", Collector: collector.URL, CredentialFunc: func() string { return current.Load().(string) },
		Spool: sp, Logger: quiet(), IdleCheck: 20 * time.Millisecond, MaxBatchesPerRequest: 2})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { fwd.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })

	eventually(t, "all three batches delivered to the Collector", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(credentials) == 3
	})
	for seq, got := range credentials {
		if got != "spa_renewed" {
			t.Errorf("batch %d went out with %q, want the current credential", seq, got)
		}
	}
	eventually(t, "the spool emptied", func() bool { b, _ := sp.OldestBatches(10, 1<<20); return len(b) == 0 })
}
