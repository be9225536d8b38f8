package forward

import (
	"context"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/spindle-io/spindle/agent/internal/spool"
	"github.com/spindle-io/spindle/agent/internal/testutil"
)

// The gateway's high-water mark on a 2xx raises the agent's sequence above it, so an agent whose
// state went back stops numbering batches the gateway would drop as replays.
func TestGatewayMarkRaisesTheSequence(t *testing.T) {
	f := newFixture(t, 1, func(int, int) (int, http.Header) {
		return http.StatusOK, http.Header{BatchHWMHeader: {"5000"}}
	})
	seq, err := spool.OpenSequence(filepath.Join(t.TempDir(), "batch.seq"), 1)
	if err != nil {
		t.Fatal(err)
	}
	url := testutil.Server(t, f.gateway).URL
	f.fwd = New(Settings{Gateway: url, Credential: "spa_test", Spool: f.spool, Logger: quiet(),
		MinBackoff: 20 * time.Millisecond, IdleCheck: 50 * time.Millisecond,
		OnMark: func(mark uint64) {
			if _, err := seq.Raise(mark); err != nil {
				t.Error(err)
			}
		}})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { f.fwd.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	eventually(t, "batch delivered", func() bool { return f.spool.Stats().Batches == 0 })
	next, err := seq.Next()
	if err != nil || next != 5001 {
		t.Fatalf("next sequence %d (%v), want 5001: continue above the gateway's mark", next, err)
	}
}
