package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/collector/pdata/pmetric/pmetricotlp"

	"github.com/spindle-io/spindle/apps/gateway/test/otlpfixture"
)

// ingestLoad keeps a few enrolled servers exporting agent-shaped OTLP batches (4 devices and
// memory) while the OpAMP fleet is measured, to show ingest keeps flowing.
type ingestLoad struct {
	cancel    context.CancelFunc
	wg        sync.WaitGroup
	acked     atomic.Int64
	refused   atomic.Int64
	mu        sync.Mutex
	latencies []time.Duration
}

type ingestResult struct {
	acked, refused int64
	p50, p99       time.Duration
}

func startIngest(ctx context.Context, o options, servers []enrolledServer) *ingestLoad {
	ctx, cancel := context.WithCancel(ctx)
	l := &ingestLoad{cancel: cancel}
	for i, s := range servers {
		l.wg.Add(1)
		go func() { defer l.wg.Done(); l.export(ctx, o, s, i) }()
	}
	return l
}

func (l *ingestLoad) export(ctx context.Context, o options, s enrolledServer, index int) {
	client := &http.Client{Timeout: 30 * time.Second}
	tick := time.NewTicker(o.ingestInterval)
	defer tick.Stop()
	for seq := int64(1); ; seq++ {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		end := time.Now().Truncate(time.Millisecond)
		sample := otlpfixture.Sample{Seq: seq, Start: end.Add(-o.ingestInterval), End: end,
			Attributes: map[string]string{"host.name": fmt.Sprintf("ingest-%d", index)}}
		for d := range 4 {
			sample.Disks = append(sample.Disks, otlpfixture.Disk{Device: fmt.Sprintf("sd%c", 'a'+d), ReadOps: 100, WriteOps: 50,
				ReadBytes: 409600, WriteBytes: 204800, ReadSeconds: 0.05, WriteSeconds: 0.04, IOSeconds: 0.3, WeightedIOSeconds: 0.4})
		}
		sample.Memory = &otlpfixture.Memory{Limit: 16 << 30, Available: 8 << 30, Free: 4 << 30, Cached: 2 << 30, Buffers: 1 << 28, Dirty: 1 << 20, SwapUsed: 0, SwapFree: 1 << 30}
		body, err := pmetricotlp.NewExportRequestFromMetrics(otlpfixture.Build(sample)).MarshalProto()
		if err != nil {
			l.refused.Add(1)
			continue
		}
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, o.gateway+"/v1/metrics", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/x-protobuf")
		req.Header.Set("Authorization", "Bearer "+s.secret)
		started := time.Now()
		resp, err := client.Do(req)
		if err != nil {
			if ctx.Err() == nil {
				l.refused.Add(1)
			}
			continue
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			l.refused.Add(1)
			continue
		}
		l.acked.Add(1)
		l.mu.Lock()
		l.latencies = append(l.latencies, time.Since(started))
		l.mu.Unlock()
	}
}

func (l *ingestLoad) stop() ingestResult {
	l.cancel()
	l.wg.Wait()
	sort.Slice(l.latencies, func(a, b int) bool { return l.latencies[a] < l.latencies[b] })
	return ingestResult{acked: l.acked.Load(), refused: l.refused.Load(), p50: quantile(l.latencies, 0.5), p99: quantile(l.latencies, 0.99)}
}
