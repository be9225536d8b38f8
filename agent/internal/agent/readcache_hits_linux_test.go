package agent

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/spindle-io/spindle/agent/internal/bpf/bpftest"
	"github.com/spindle-io/spindle/agent/internal/config"
)

// With the page-cache eBPF program running, the read cache measures its hits: reads of a
// managed file whose pages are resident arrive as spindle.read_cache.hits, in bytes, while a
// file outside the policy adds nothing to them.
func TestReadCacheMeasuresHitsWithThePageCacheProgram(t *testing.T) {
	bpftest.RequireRoot(t)
	dir := t.TempDir()
	hot, other := filepath.Join(dir, "hot"), filepath.Join(dir, "other")
	for _, d := range []string{hot, other} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	const size = 4 << 20
	managed, unmanaged := filepath.Join(hot, "table.dat"), filepath.Join(other, "scratch.dat")
	for _, path := range []string{managed, unmanaged} {
		if err := os.WriteFile(path, bytes.Repeat([]byte("h"), size), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gw := newPolicyGateway(t)
	cfg := config.Default()
	cfg.Gateway, cfg.Credential, cfg.AgentID, cfg.ServerID = gw.url, "spa_test", "0195f3c2-7a8b-7c3d-9e4f-0123456789ac", "server-1"
	cfg.Interval, cfg.StateDir, cfg.EBPF = time.Second, filepath.Join(dir, "state"), "on"
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	startRun(t, cfg)
	readCache := fmt.Sprintf(`"readCache":{"enabled":true,"include":[%q],"budgetBytes":67108864,"freeMemoryFloorBytes":67108864,"scanResistanceThresholdBytes":16777216}`, hot)
	mustBeApplied(t, gw.waitStatus(gw.setPolicy(`{"schemaVersion":1,"telemetry":{"intervalSeconds":1},`+readCache+`}`)))

	// Read both files over and over: the managed one's resident pages are hits. Then only the
	// unmanaged one: its reads go on at the same pace, and the hits must fall to zero.
	onlyUnmanaged := make(chan struct{})
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go func() {
		paths := []string{managed, unmanaged}
		for ctx.Err() == nil {
			select {
			case <-onlyUnmanaged:
				paths = []string{unmanaged}
			default:
			}
			for _, path := range paths {
				if f, err := os.Open(path); err == nil {
					_, _ = io.Copy(io.Discard, f)
					f.Close()
				}
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
	seen := gw.waitBatch("read-cache hits of at least one whole read of the managed file", 0, func(b map[string][]point) bool {
		hits, sent := value(b, "spindle.read_cache.hits")
		return sent && hits >= size
	})
	close(onlyUnmanaged)
	gw.waitBatch("zero hits (still sent) while only the unmanaged file is read", seen+2, func(b map[string][]point) bool {
		hits, sent := value(b, "spindle.read_cache.hits")
		return sent && hits == 0
	})
}
