package forward

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/spindle-io/spindle/agent/internal/spool"
	"github.com/spindle-io/spindle/agent/internal/testutil"
)

// A renewal that lands while a batch is under way: the gateway refuses the replaced credential
// at once, and the forwarder sends the batch again with the new one instead of waiting as for
// a refused credential (here an hour, so only the immediate resend can deliver it).
func TestBatchRefusedForACredentialJustRenewedIsSentAgainAtOnce(t *testing.T) {
	dir := t.TempDir()
	sp, err := spool.Open(dir, 1<<20, quiet())
	if err != nil {
		t.Fatal(err)
	}
	appendBatch(t, sp, 1)
	var mu sync.Mutex
	current := "spa_old"
	credential := func() string { mu.Lock(); defer mu.Unlock(); return current }
	var seen []string
	server := testutil.Server(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		auth := r.Header.Get("Authorization")
		seen = append(seen, auth)
		if auth != "Bearer spa_new" {
			current = "spa_new" // the renewal completes while this request is answered
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		w.WriteHeader(http.StatusOK)
	}))
	fwd := New(Settings{Gateway: server.URL, CredentialFunc: credential, Spool: sp, Logger: quiet(),
		UnauthenticatedRetry: time.Hour, IdleCheck: 50 * time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { fwd.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })

	eventually(t, "the batch delivered with the renewed credential", func() bool {
		st := sp.Stats()
		return st.Batches == 0
	})
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 2 || seen[0] != "Bearer spa_old" || seen[1] != "Bearer spa_new" {
		t.Fatalf("requests %v; want one with the old credential, then one with the new", seen)
	}
}
