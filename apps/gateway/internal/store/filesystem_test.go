package store

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/spindle-io/spindle/apps/gateway/internal/ingest"
	"github.com/spindle-io/spindle/apps/gateway/internal/telemetry"
	"github.com/spindle-io/spindle/apps/gateway/test/otlpfixture"
	"github.com/spindle-io/spindle/apps/gateway/test/testdb"
)

// spaceBatch is what the agent sends for one interval, mapped by the real ingest code.
func spaceBatch(t *testing.T, seq int64, end time.Time, filesystems []otlpfixture.Filesystem, spool [2]int64) telemetry.Batch {
	t.Helper()
	s := otlpfixture.Sample{Seq: seq, Start: end.Add(-10 * time.Second), End: end}
	md := otlpfixture.Build(s)
	otlpfixture.AddSpace(md, 0, s, filesystems, &spool)
	decoded, err := ingest.Decode(otlpfixture.Proto(md), ingest.Protobuf)
	if err != nil {
		t.Fatal(err)
	}
	request, err := ingest.Map(decoded)
	if err != nil {
		t.Fatal(err)
	}
	return request.Batches[0]
}

// TestWriteBatchesStoresFilesystemAndSpool: OTLP through the gateway's mapper into PostgreSQL,
// each organisation's rows apart, a replay written once, and an impossible row refused whole.
func TestWriteBatchesStoresFilesystemAndSpool(t *testing.T) {
	s := openTestStore(t)
	testdb.Org(t, s.pool, "org-a")
	testdb.Org(t, s.pool, "org-b")
	a := authenticate(t, s, enrol(t, s, "org-a", "machine-a").Credential)
	b := authenticate(t, s, enrol(t, s, "org-b", "machine-b").Credential)
	ctx := context.Background()
	root := otlpfixture.Filesystem{Mountpoint: "/", Device: "/dev/vda", Type: "ext4", Size: 100 << 30, Used: 60 << 30, Free: 35 << 30, Reserved: 5 << 30}
	data := otlpfixture.Filesystem{Mountpoint: "/srv/my data", Device: "/dev/sdb1", Type: "xfs", Size: 1 << 40, Used: 1 << 39, Free: 1 << 39}

	first := spaceBatch(t, 1, t0, []otlpfixture.Filesystem{root, data}, [2]int64{4096, 1})
	if _, err := s.WriteBatches(ctx, a, []telemetry.Batch{first}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.WriteBatches(ctx, b, []telemetry.Batch{spaceBatch(t, 1, t0, []otlpfixture.Filesystem{root}, [2]int64{0, 0})}); err != nil {
		t.Fatal(err)
	}
	var size, free, available int64
	var device, fsType string
	var interval float64
	if err := s.pool.QueryRow(ctx, `SELECT size_bytes, free_bytes, available_bytes, device, fs_type, interval_seconds FROM filesystem
		WHERE org_id = 'org-a' AND server_id = $1 AND mountpoint = '/'`, a.ServerID).Scan(&size, &free, &available, &device, &fsType, &interval); err != nil {
		t.Fatal(err)
	}
	if size != 100<<30 || free != 40<<30 || available != 35<<30 || device != "/dev/vda" || fsType != "ext4" || interval != 10 {
		t.Errorf("root row: size %d free %d available %d device %s type %s interval %v", size, free, available, device, fsType, interval)
	}
	if n := count(t, s, `SELECT count(*) FROM filesystem WHERE server_id = $1 AND mountpoint = '/srv/my data' AND available_bytes = free_bytes`, a.ServerID); n != 1 {
		t.Errorf("%d rows for the mount point with a space in its name, want 1", n)
	}
	if n := count(t, s, `SELECT count(*) FROM agent_spool WHERE server_id = $1 AND spool_bytes = 4096 AND pending_batches = 1`, a.ServerID); n != 1 {
		t.Errorf("%d agent_spool rows of org-a's agent, want 1", n)
	}
	if n := count(t, s, `SELECT count(*) FROM filesystem WHERE org_id = 'org-b'`); n != 1 {
		t.Errorf("org-b has %d filesystem rows, want its own 1", n)
	}

	// The same batch again (a lost acknowledgement): nothing written twice.
	result, err := s.WriteBatches(ctx, a, []telemetry.Batch{first})
	if err != nil || result.DuplicateBatches != 1 {
		t.Fatalf("replay: %+v, %v", result, err)
	}
	if n := count(t, s, `SELECT count(*) FROM filesystem WHERE server_id = $1`, a.ServerID); n != 2 {
		t.Errorf("%d filesystem rows after the replay, want 2", n)
	}

	// A row the table refuses (available above free, which the mapper cannot produce but a
	// hand-made batch can) fails the whole batch: its spool row is not written either.
	bad := spaceBatch(t, 2, t0.Add(10*time.Second), []otlpfixture.Filesystem{root}, [2]int64{8192, 2})
	bad.Deep.Filesystems[0].AvailableBytes = bad.Deep.Filesystems[0].FreeBytes + 1
	if _, err := s.WriteBatches(ctx, a, []telemetry.Batch{bad}); err == nil || !strings.Contains(err.Error(), "filesystem") {
		t.Fatalf("an impossible filesystem row: %v, want a refusal naming the table", err)
	}
	if n := count(t, s, `SELECT count(*) FROM agent_spool WHERE server_id = $1`, a.ServerID); n != 1 {
		t.Errorf("%d agent_spool rows after the refused batch, want 1", n)
	}
}
