package httpapi

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/spindle-io/spindle/apps/gateway/test/otlpfixture"
)

// topFilesOf gives each batch its own list: batch 1 reads two files, batch 2 a different pair.
func topFilesOf(seq int64) otlpfixture.Deep {
	d := deepTelemetry(25)
	switch seq {
	case 1:
		d.TopFiles = map[string][2]int64{"/srv/pg/base/16384/2619": {100, 10}, "/srv/pg/base/16384/1259": {50, 50}}
	case 2:
		d.TopFiles = map[string][2]int64{"/srv/pg/base/16384/2619": {300, 0}, "inode:2049:131077": {20, 5}}
	default:
		d.TopFiles = nil // nothing read in the interval
	}
	return d
}

func TestPageCacheTopFilesKeepTheNewestListPerServer(t *testing.T) {
	g := newGateway(t)
	agent := g.enroll(t, "org-a", "machine-a")
	other := g.enroll(t, "org-a", "machine-b")
	first := otlpfixture.Proto(deepExport(topFilesOf, 1, 2))
	for attempt := 0; attempt < 2; attempt++ { // the second delivery is a replay: written once
		if resp := g.export(t, agent.Credential, first); resp.StatusCode != http.StatusOK {
			t.Fatalf("attempt %d: status %d: %s", attempt, resp.StatusCode, readAll(t, resp))
		}
	}
	if resp := g.export(t, other.Credential, otlpfixture.Proto(deepExport(topFilesOf, 1))); resp.StatusCode != http.StatusOK {
		t.Fatalf("other server: status %d: %s", resp.StatusCode, readAll(t, resp))
	}
	batch2End := sample(2).End.UTC()
	checks := map[string]int{
		`SELECT count(*) FROM page_cache_top_files WHERE server_id = $1`:                                                                        2,
		`SELECT count(*) FROM page_cache_top_files WHERE server_id = $1 AND path = '/srv/pg/base/16384/2619' AND accesses = 300 AND misses = 0`: 1,
		`SELECT count(*) FROM page_cache_top_files WHERE server_id = $1 AND path = 'inode:2049:131077' AND accesses = 20 AND misses = 5`:        1,
		`SELECT count(*) FROM page_cache_top_files WHERE server_id = $1 AND interval_seconds = 10`:                                              2,
	}
	for sql, want := range checks {
		if got := g.count(t, sql, agent.ServerID); got != want {
			t.Errorf("%s = %d, want %d", sql, got, want)
		}
	}
	if n := g.count(t, `SELECT count(*) FROM page_cache_top_files WHERE server_id = $1 AND seen_at = $2`, agent.ServerID, batch2End); n != 2 {
		t.Errorf("%d files seen at the end of batch 2 (%s), want 2", n, batch2End.Format(time.RFC3339))
	}
	if n := g.count(t, `SELECT count(*) FROM page_cache_top_files WHERE server_id = $1 AND accesses = 50`, other.ServerID); n != 1 {
		t.Error("the other server's list was replaced by this server's")
	}

	// An interval without file reads leaves the previous list in place.
	if resp := g.export(t, agent.Credential, otlpfixture.Proto(deepExport(topFilesOf, 3))); resp.StatusCode != http.StatusOK {
		t.Fatalf("batch 3: status %d: %s", resp.StatusCode, readAll(t, resp))
	}
	if n := g.count(t, `SELECT count(*) FROM page_cache_top_files WHERE server_id = $1 AND seen_at = $2`, agent.ServerID, batch2End); n != 2 {
		t.Errorf("%d files of batch 2 left after a batch without file reads, want 2", n)
	}
}

func TestPageCacheTopFilesWithMoreMissesThanAccessesAreRefused(t *testing.T) {
	g := newGateway(t)
	agent := g.enroll(t, "org-a", "machine-a")
	bad := func(int64) otlpfixture.Deep {
		d := deepTelemetry(25)
		d.TopFiles = map[string][2]int64{"/srv/pg/base/16384/2619": {10, 11}}
		return d
	}
	message := expectError(t, g.export(t, agent.Credential, otlpfixture.Proto(deepExport(bad, 1))), http.StatusBadRequest, reasonMalformed)
	if !strings.Contains(message, "/srv/pg/base/16384/2619") || !strings.Contains(message, "at most the accesses") {
		t.Fatalf("message %q does not name the file and the rule", message)
	}
	if n := g.count(t, `SELECT count(*) FROM page_cache_top_files`); n != 0 {
		t.Errorf("a refused batch wrote %d top files", n)
	}
}
