package httpapi

import (
	"bytes"
	"compress/gzip"
	"context"
	"net/http"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/pmetric/pmetricotlp"

	"github.com/spindle-io/spindle/apps/gateway/test/otlpfixture"
)

type diskRow struct {
	time                                         time.Time
	orgID, serverID, device                      string
	interval                                     float64
	readOps, writeOps, readBytes, writeBytes     int64
	readMerged, writeMerged, readTime, writeTime int64
	ioTime, weighted                             int64
	inProgress                                   int32
}

func (g *gateway) diskRows(t *testing.T) []diskRow {
	t.Helper()
	rows, err := g.db.Query(context.Background(), `SELECT time, org_id, server_id::text, device, interval_seconds,
		read_ops, write_ops, read_bytes, write_bytes, read_merged, write_merged, read_time_ms, write_time_ms,
		io_time_ms, weighted_io_time_ms, in_progress FROM disk_io ORDER BY time, device`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []diskRow
	for rows.Next() {
		var r diskRow
		if err := rows.Scan(&r.time, &r.orgID, &r.serverID, &r.device, &r.interval, &r.readOps, &r.writeOps, &r.readBytes,
			&r.writeBytes, &r.readMerged, &r.writeMerged, &r.readTime, &r.writeTime, &r.ioTime, &r.weighted, &r.inProgress); err != nil {
			t.Fatal(err)
		}
		r.time = r.time.UTC()
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// expectSampleRows checks the exact rows sample(1) must produce for agent.
func (g *gateway) expectSampleRows(t *testing.T, agent enrolledAgent) {
	t.Helper()
	want := []diskRow{
		{time: sampleEnd, orgID: agent.OrgID, serverID: agent.ServerID, device: "nvme0n1", interval: 10, readOps: 5000, writeOps: 1500,
			readBytes: 20480000, writeBytes: 6144000, readTime: 500, writeTime: 250, ioTime: 750, weighted: 800},
		{time: sampleEnd, orgID: agent.OrgID, serverID: agent.ServerID, device: "sda", interval: 10, readOps: 120, writeOps: 45,
			readBytes: 491520, writeBytes: 184320, readMerged: 3, writeMerged: 7, readTime: 240, writeTime: 90, ioTime: 313,
			weighted: 331, inProgress: 2},
	}
	got := g.diskRows(t)
	if len(got) != len(want) {
		t.Fatalf("disk_io has %d rows, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("disk_io row %d\n got %+v\nwant %+v", i, got[i], want[i])
		}
	}
	var total, available, free, cached, buffers, dirty, swapTotal, swapFree int64
	var at time.Time
	err := g.db.QueryRow(context.Background(), `SELECT time, total_bytes, available_bytes, free_bytes, cached_bytes, buffers_bytes,
		dirty_bytes, swap_total_bytes, swap_free_bytes FROM memory WHERE org_id = $1 AND server_id = $2`, agent.OrgID, agent.ServerID).
		Scan(&at, &total, &available, &free, &cached, &buffers, &dirty, &swapTotal, &swapFree)
	if err != nil {
		t.Fatal(err)
	}
	if !at.Equal(sampleEnd) || total != 8<<30 || available != 5<<30 || free != 1<<30 || cached != 3<<30 || buffers != 256<<20 ||
		dirty != 12<<20 || swapTotal != 1024<<20 || swapFree != 924<<20 {
		t.Errorf("memory row: %v %d %d %d %d %d %d %d %d", at, total, available, free, cached, buffers, dirty, swapTotal, swapFree)
	}
}

func TestExportProtobufWritesExactRows(t *testing.T) {
	g := newGateway(t)
	agent := g.enroll(t, "org-a", "machine-a")
	s := sample(1)
	s.Attributes = map[string]string{"host.name": "db01.prod", "service.version": "0.2.0"}
	beforeExport := time.Now().Truncate(time.Microsecond) // last_seen_at has microseconds
	resp := g.export(t, agent.Credential, otlpfixture.Proto(otlpfixture.Build(s)))
	body := readAll(t, resp)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/x-protobuf" {
		t.Fatalf("status %d, Content-Type %q: %s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	if err := pmetricotlp.NewExportResponse().UnmarshalProto(body); err != nil {
		t.Fatalf("response is not an ExportMetricsServiceResponse: %v", err)
	}
	g.expectSampleRows(t, agent)

	var hostname, agentVersion string
	var lastSeen *time.Time
	if err := g.db.QueryRow(context.Background(), `SELECT hostname, agent_version, last_seen_at FROM servers WHERE id = $1`, agent.ServerID).
		Scan(&hostname, &agentVersion, &lastSeen); err != nil {
		t.Fatal(err)
	}
	if hostname != "db01.prod" || agentVersion != "0.2.0" || lastSeen == nil || lastSeen.Before(beforeExport) {
		t.Fatalf("server metadata: %q %q last seen %v; want the export's, last seen not before it (%s)", hostname, agentVersion, lastSeen, beforeExport)
	}
	if hwm := g.count(t, `SELECT batch_hwm FROM agents WHERE id = $1`, agent.AgentID); hwm != 1 {
		t.Fatalf("batch_hwm = %d, want 1", hwm)
	}
}

func TestExportJSONAnswersInJSON(t *testing.T) {
	g := newGateway(t)
	agent := g.enroll(t, "org-a", "machine-a")
	resp := g.post(t, "/v1/metrics", map[string]string{"Content-Type": "application/json", "Authorization": "Bearer " + agent.Credential},
		otlpfixture.JSON(otlpfixture.Build(sample(1))))
	body := readAll(t, resp)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("status %d, Content-Type %q: %s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	if err := pmetricotlp.NewExportResponse().UnmarshalJSON(body); err != nil {
		t.Fatalf("response is not an OTLP/JSON ExportMetricsServiceResponse: %v", err)
	}
	g.expectSampleRows(t, agent)
}

func gzipped(t *testing.T, body []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write(body); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestExportGzipProtobuf(t *testing.T) {
	g := newGateway(t)
	agent := g.enroll(t, "org-a", "machine-a")
	resp := g.post(t, "/v1/metrics", map[string]string{"Content-Type": "application/x-protobuf", "Content-Encoding": "gzip",
		"Authorization": "Bearer " + agent.Credential}, gzipped(t, otlpfixture.Proto(otlpfixture.Build(sample(1)))))
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d: %s", resp.StatusCode, readAll(t, resp))
	}
	g.expectSampleRows(t, agent)
}

func TestReplayedBatchIsAcknowledgedAndWrittenOnce(t *testing.T) {
	g := newGateway(t)
	agent := g.enroll(t, "org-a", "machine-a")
	body := otlpfixture.Proto(otlpfixture.Build(sample(1)))
	for attempt := 1; attempt <= 3; attempt++ {
		if resp := g.export(t, agent.Credential, body); resp.StatusCode != http.StatusOK {
			t.Fatalf("attempt %d: status %d: %s", attempt, resp.StatusCode, readAll(t, resp))
		}
	}
	g.expectSampleRows(t, agent)
	// A request mixing the replayed batch with the next one writes only the next one.
	if resp := g.export(t, agent.Credential, otlpfixture.Proto(otlpfixture.Build(sample(1), sample(2)))); resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d: %s", resp.StatusCode, readAll(t, resp))
	}
	if n := g.count(t, `SELECT count(*) FROM disk_io`); n != 4 {
		t.Fatalf("%d disk rows, want 4 (two samples of two devices)", n)
	}
	if n := g.count(t, `SELECT count(*) FROM memory`); n != 2 {
		t.Fatalf("%d memory rows, want 2", n)
	}
}
