package agent

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	colmetricpb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	"google.golang.org/protobuf/proto"

	"github.com/spindle-io/spindle/agent/internal/config"
	"github.com/spindle-io/spindle/agent/internal/forward"
	"github.com/spindle-io/spindle/agent/internal/status"
	"github.com/spindle-io/spindle/agent/internal/testutil"
)

type batch struct {
	seq     int64
	metrics map[string]bool
}

// TestRunShipsNumberedBatchesAndStopsCleanly runs the real agent loop against fixture /proc
// and /sys trees and a loopback gateway that decodes OTLP as the real one does.
func TestRunShipsNumberedBatchesAndStopsCleanly(t *testing.T) {
	var mu sync.Mutex
	var got []batch
	// received is signalled after every batch, so the test waits for batches, not for time:
	// on a loaded machine ticks slip, but every tick's batch still arrives.
	received := make(chan struct{}, 1)
	receivedCount := func() int { mu.Lock(); defer mu.Unlock(); return len(got) }
	gw := testutil.Server(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/metrics" { // no OpAMP here: the agent must run without a policy
			http.NotFound(w, r)
			return
		}
		zr, err := gzip.NewReader(r.Body)
		if err != nil {
			t.Errorf("gzip: %v", err)
			return
		}
		raw, _ := io.ReadAll(zr)
		var req colmetricpb.ExportMetricsServiceRequest
		if err := proto.Unmarshal(raw, &req); err != nil {
			t.Errorf("decode: %v", err)
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		b := batch{metrics: map[string]bool{}}
		rm := req.ResourceMetrics[0]
		for _, kv := range rm.Resource.Attributes {
			if kv.Key == "spindle.batch.seq" {
				b.seq = kv.Value.GetIntValue()
			}
		}
		for _, sm := range rm.ScopeMetrics {
			for _, m := range sm.Metrics {
				b.metrics[m.Name] = true
			}
		}
		mu.Lock()
		got = append(got, b)
		mu.Unlock()
		select {
		case received <- struct{}{}:
		default:
		}
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))

	dir := t.TempDir()
	proc := filepath.Join(dir, "proc")
	os.MkdirAll(proc, 0o755)
	copyFile(t, "../collector/testdata/proc-tick1/diskstats", filepath.Join(proc, "diskstats"))
	copyFile(t, "../collector/testdata/proc-meminfo/meminfo", filepath.Join(proc, "meminfo"))
	sys, _ := filepath.Abs("../collector/testdata/sys")

	cfg := config.Default()
	cfg.Gateway, cfg.Credential, cfg.AgentID, cfg.ServerID = gw.URL, "spa_test", "agent-1", "server-1"
	cfg.Interval, cfg.StateDir, cfg.ProcPath, cfg.SysPath = time.Second, filepath.Join(dir, "state"), proc, sys
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}

	// stopAfter cancels ctx once the gateway holds `want` batches; the deadline only bounds a
	// broken agent, it never decides the outcome of a working one.
	stopAfter := func(ctx context.Context, cancel context.CancelFunc, want int) {
		for receivedCount() < want {
			select {
			case <-received:
			case <-ctx.Done():
				return
			}
		}
		cancel()
	}
	options := Options{Version: "9.9.9", Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), DrainTimeout: time.Minute,
		Forward: forward.Settings{IdleCheck: 50 * time.Millisecond, MinBackoff: 50 * time.Millisecond}}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	go stopAfter(ctx, cancel, 3)
	err := Run(ctx, cfg, "agent.yaml", options)
	if err != nil {
		t.Fatal(err)
	}
	if errors.Is(context.Cause(ctx), context.DeadlineExceeded) {
		t.Fatalf("the gateway received %d batches in two minutes, want 3", receivedCount())
	}

	mu.Lock()
	defer mu.Unlock()
	// Three ticks (the first at once, then one per interval), then the shutdown flush; a tick
	// that slipped past the cancel on a loaded machine only adds a batch.
	if len(got) < 4 {
		t.Fatalf("gateway received %d batches, want at least 4 (three ticks and the shutdown flush)", len(got))
	}
	last := uint64(len(got))
	for i, b := range got {
		if b.seq != int64(i+1) {
			t.Fatalf("batch %d has seq %d; batches must arrive numbered 1, 2, 3, ... in order", i, b.seq)
		}
		if !b.metrics["system.memory.limit"] || !b.metrics["spindle.agent.collector.success"] {
			t.Errorf("batch %d lacks memory or self metrics: %v", b.seq, b.metrics)
		}
		if want := i > 0; b.metrics["system.disk.operations"] != want {
			t.Errorf("batch %d: disk metrics present=%v, want %v (the first tick only sets the baseline)", b.seq, !want, want)
		}
	}

	st, err := status.Read(cfg.StatusPath())
	if err != nil {
		t.Fatal(err)
	}
	if !st.Stopped || st.LastBatchSeq != last || st.Spool.Batches != 0 || st.Delivery.LastDeliveredSeq != last || len(st.Disks) == 0 {
		t.Fatalf("final status: %+v", st)
	}
	// Every capability is listed whether or not this host has it: the four eBPF collectors,
	// fragmentation, PostgreSQL statistics, PSI and the two acceleration features with what each
	// can do here (residency and the control group; preallocation, defragmentation and the
	// first window before a new file's first write, XFS extent size hints).
	if len(st.Capabilities) != 15 {
		t.Fatalf("status capabilities %+v, want the four eBPF ones, fiemap, postgresql, psi, accel.read_cache (and .residency, .holdout) "+
			"and accel.write_optimization (and .preallocation, .defragmentation, .first_write, .extent_size_hint)", st.Capabilities)
	}

	// A restart continues the numbering: stop it after its first batch.
	ctx2, cancel2 := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel2()
	mu.Unlock()
	go stopAfter(ctx2, cancel2, int(last)+1)
	err = Run(ctx2, cfg, "agent.yaml", options)
	mu.Lock()
	if err != nil {
		t.Fatal(err)
	}
	if after := got[len(got)-1].seq; after <= int64(last) {
		t.Fatalf("after restart the agent sent seq %d; it must continue above %d", after, last)
	}
}

func TestRunRefusesWithoutEnrolment(t *testing.T) {
	err := Run(context.Background(), config.Default(), "/etc/spindle/agent.yaml", Options{})
	if err == nil || !bytes.Contains([]byte(err.Error()), []byte("spindle-agent enroll --token")) {
		t.Fatalf("%v", err)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
