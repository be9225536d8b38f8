package forward

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"testing"
)

func TestABacklogIsReplayedSeveralBatchesPerRequest(t *testing.T) {
	f := newFixture(t, 10, ok)
	f.perRequest = 4
	f.serve(t)
	// The spool empties before the status records the last delivery: wait for both.
	eventually(t, "drained, with batch 10 the last delivered", func() bool {
		return f.spool.Stats().Batches == 0 && f.fwd.Status().LastDeliveredSeq == 10
	})
	if got := fmt.Sprint(f.gateway.requests); got != "[[1 2 3 4] [5 6 7 8] [9 10]]" {
		t.Fatalf("requests %s; want the oldest first, four at a time", got)
	}
}

func TestARefusedRequestOfSeveralBatchesIsResentOneByOne(t *testing.T) {
	f := newFixture(t, 6, func(attempt, seq int) (int, http.Header) {
		if seq == 3 {
			return http.StatusBadRequest, nil
		}
		return http.StatusOK, nil
	})
	f.perRequest = 4
	f.serve(t)
	eventually(t, "drained", func() bool { return f.spool.Stats().Batches == 0 })
	// 1-4 refused together; then one by one up to 4, so only 3 is set aside; then 5-6 together.
	if got := fmt.Sprint(f.gateway.requests); got != "[[1 2 3 4] [1] [2] [3] [4] [5 6]]" {
		t.Fatalf("requests %s", got)
	}
	if _, err := os.Stat(filepath.Join(f.dir, "rejected", fmt.Sprintf("%020d.batch", 3))); err != nil || f.spool.Stats().RejectedBatches != 1 {
		t.Fatalf("only batch 3 belongs in spool/rejected: %v %+v", err, f.spool.Stats())
	}
}
