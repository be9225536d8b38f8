package httpapi

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/spindle-io/spindle/apps/gateway/internal/store"
	"github.com/spindle-io/spindle/apps/gateway/test/otlpfixture"
)

// scrape is hostmetrics' view of one host at boot+n×10 s: counters grow by step per scrape.
func scrape(boot time.Time, at time.Time, n int64) otlpfixture.Scrape {
	return otlpfixture.Scrape{
		Start: boot, Time: at,
		Disks: []otlpfixture.HostDisk{{Device: "sda",
			ReadBytes: 1_000_000 + n*40960, WriteBytes: 2_000_000 + n*8192, ReadOps: 500 + n*10, WriteOps: 900 + n*2,
			ReadMerged: 30 + n, WriteMerged: 70 + n*3, ReadSeconds: 12.5 + float64(n)*0.25, WriteSeconds: 40 + float64(n)*0.125,
			IOSeconds: 50 + float64(n)*0.5, WeightedIOSeconds: 60 + float64(n)*0.75, PendingOperations: n}},
		Memory: &otlpfixture.HostMemory{Used: 3 << 30, Free: 1<<30 + n, Buffered: 256 << 20, Cached: 2 << 30,
			SlabReclaimable: 100 << 20, SlabUnreclaimable: 50 << 20, Limit: 8 << 30, Available: 5 << 30},
		Swap:    []otlpfixture.HostSwap{{Device: "/dev/sda2", Used: 100 << 20, Free: 900 << 20}, {Device: "/swapfile", Used: 1 << 20, Free: 511 << 20}},
		PageIns: 10 * n, PageOuts: 5 * n, MajorFaults: n, MinorFaults: 100 * n,
		Attributes: map[string]string{"host.name": "collector-host"},
	}
}

func exportScrape(t *testing.T, g *gateway, url, credential string, s otlpfixture.Scrape) {
	t.Helper()
	resp := (&gateway{url: url}).export(t, credential, otlpfixture.Proto(otlpfixture.BuildHostmetrics(s)))
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("export at %s: %d %s", s.Time, resp.StatusCode, readAll(t, resp))
	}
}

type diskDelta struct {
	interval                                 float64
	readOps, writeOps, readBytes, writeBytes int64
	readMerged, writeMerged, readMs, writeMs int64
	ioMs, weightedMs                         int64
	inProgress                               int32
}

func diskRowsByTime(t *testing.T, g *gateway, serverID string) map[time.Time]diskDelta {
	t.Helper()
	rows, err := g.db.Query(context.Background(), `
		SELECT time, interval_seconds, read_ops, write_ops, read_bytes, write_bytes, read_merged, write_merged,
		       read_time_ms, write_time_ms, io_time_ms, weighted_io_time_ms, in_progress
		FROM disk_io WHERE server_id = $1 AND device = 'sda' AND read_ops IS NOT NULL`, serverID)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[time.Time]diskDelta{}
	for rows.Next() {
		var at time.Time
		var d diskDelta
		if err := rows.Scan(&at, &d.interval, &d.readOps, &d.writeOps, &d.readBytes, &d.writeBytes, &d.readMerged, &d.writeMerged,
			&d.readMs, &d.writeMs, &d.ioMs, &d.weightedMs, &d.inProgress); err != nil {
			t.Fatal(err)
		}
		out[at.UTC()] = d
	}
	return out
}

// The step between two scrapes of scrape(): what one disk_io row must hold for a 10 s interval.
func stepDelta(pending int32) diskDelta {
	return diskDelta{interval: 10, readOps: 10, writeOps: 2, readBytes: 40960, writeBytes: 8192, readMerged: 1, writeMerged: 3,
		readMs: 250, writeMs: 125, ioMs: 500, weightedMs: 750, inProgress: pending}
}

func TestCollectorSourceTurnsCumulativeIntoDeltasAcrossRestartsAndGateways(t *testing.T) {
	g := newGateway(t)
	agent := g.enroll(t, "org-a", "collector-host")
	boot := sampleStart.Add(-24 * time.Hour)
	at := func(n int) time.Time { return sampleStart.Add(time.Duration(n) * 10 * time.Second) }

	// The first scrape is a baseline: levels are stored, counters only remembered.
	exportScrape(t, g, g.url, agent.Credential, scrape(boot, at(0), 0))
	if n := g.count(t, `SELECT count(*) FROM disk_io WHERE server_id = $1`, agent.ServerID); n != 0 {
		t.Fatalf("a baseline scrape wrote %d disk_io rows; a first cumulative point has no interval", n)
	}
	exportScrape(t, g, g.url, agent.Credential, scrape(boot, at(1), 1))
	// The Collector sends the same request again (a lost acknowledgement): nothing twice.
	exportScrape(t, g, g.url, agent.Credential, scrape(boot, at(1), 1))

	// A second gateway on the same database continues the same series.
	s2, err := store.Open(context.Background(), g.dbURL, 4)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s2.Close)
	url2, _ := serve(t, s2)
	exportScrape(t, g, url2, agent.Credential, scrape(boot, at(2), 2))

	// The host reboots: a new start time, counters from zero. The first point after it is a
	// new baseline, never a negative delta; the next one is a delta again.
	reboot := at(2).Add(time.Second)
	restarted := func(n int64) otlpfixture.Scrape {
		s := scrape(reboot, at(int(n)), n-3)
		return s
	}
	exportScrape(t, g, url2, agent.Credential, restarted(3))
	exportScrape(t, g, g.url, agent.Credential, restarted(4))
	// A counter that goes down without a new start time (a device replaced) is a baseline too.
	down := restarted(5)
	down.Disks[0].ReadOps = 1
	exportScrape(t, g, g.url, agent.Credential, down)

	got := diskRowsByTime(t, g, agent.ServerID)
	want := map[time.Time]diskDelta{at(1).UTC(): stepDelta(1), at(2).UTC(): stepDelta(2), at(4).UTC(): stepDelta(1)}
	if len(got) != 3 || g.count(t, `SELECT count(*) FROM disk_io WHERE server_id = $1`, agent.ServerID) != 4 {
		t.Fatalf("disk_io rows at %v, want scrapes 1, 2 and 4 complete and scrape 5 without read_ops", got)
	}
	for when, w := range want {
		if got[when] != w {
			t.Errorf("disk_io at %s = %+v, want %+v", when, got[when], w)
		}
	}
	if n := g.count(t, `SELECT count(*) FROM disk_io WHERE server_id = $1 AND time = $2 AND read_ops IS NULL AND write_ops = 2`, agent.ServerID, at(5)); n != 1 {
		t.Errorf("the row after a counter went down must leave that counter not measured (NULL) and keep the others")
	}
	if n := g.count(t, `SELECT count(*) FROM disk_io WHERE interval_seconds <> 10 OR read_bytes < 0 OR write_bytes < 0`); n != 0 {
		t.Errorf("%d disk_io rows with a wrong interval or a negative delta", n)
	}

	// Memory levels: one row per scrape (duplicate dropped), swap summed over both areas,
	// hostmetrics' "buffered" stored as buffers.
	if n := g.count(t, `SELECT count(*) FROM memory WHERE server_id = $1`, agent.ServerID); n != 6 {
		t.Fatalf("memory rows = %d, want 6 (one per distinct scrape)", n)
	}
	if n := g.count(t, `SELECT count(*) FROM memory WHERE server_id = $1 AND total_bytes = $2 AND available_bytes = $3
		AND buffers_bytes = $4 AND cached_bytes = $5 AND swap_total_bytes = $6 AND swap_free_bytes = $7 AND dirty_bytes IS NULL`,
		agent.ServerID, int64(8<<30), int64(5<<30), int64(256<<20), int64(2<<30), int64(1512<<20), int64(1411<<20)); n != 6 {
		t.Errorf("memory rows with the expected values = %d, want 6", n)
	}
	// What a Collector cannot measure shows as missing capabilities; the host name is recorded.
	if n := g.count(t, `SELECT count(*) FROM agents WHERE id = $1 AND telemetry_capabilities = '{}' AND telemetry_capabilities_at IS NOT NULL`, agent.AgentID); n != 1 {
		t.Errorf("a Collector source must report no capabilities (every eBPF and agent feature missing)")
	}
	if n := g.count(t, `SELECT count(*) FROM servers WHERE id = $1 AND hostname = 'collector-host'`, agent.ServerID); n != 1 {
		t.Errorf("host.name not recorded")
	}
}

func TestCollectorSourceRefusesMalformedExportsWholly(t *testing.T) {
	g := newGateway(t)
	agent := g.enroll(t, "org-a", "collector-host")
	boot := sampleStart.Add(-time.Hour)
	exportScrape(t, g, g.url, agent.Credential, scrape(boot, sampleStart, 0))

	cases := map[string]func(s otlpfixture.Scrape) []byte{
		"unit in milliseconds": func(s otlpfixture.Scrape) []byte {
			md := otlpfixture.BuildHostmetrics(s)
			md.ResourceMetrics().At(0).ScopeMetrics().At(0).Metrics().At(2).SetUnit("ms")
			return otlpfixture.Proto(md)
		},
		"no device": func(s otlpfixture.Scrape) []byte {
			md := otlpfixture.BuildHostmetrics(s)
			md.ResourceMetrics().At(0).ScopeMetrics().At(0).Metrics().At(0).Sum().DataPoints().At(0).Attributes().Remove("device")
			return otlpfixture.Proto(md)
		},
		"no start time": func(s otlpfixture.Scrape) []byte {
			md := otlpfixture.BuildHostmetrics(s)
			md.ResourceMetrics().At(0).ScopeMetrics().At(0).Metrics().At(1).Sum().DataPoints().At(0).SetStartTimestamp(0)
			return otlpfixture.Proto(md)
		},
		"delta counters without a sequence": func(s otlpfixture.Scrape) []byte {
			return otlpfixture.Proto(otlpfixture.Build(otlpfixture.Sample{NoSeq: true, Start: s.Time.Add(-10 * time.Second), End: s.Time,
				Disks: []otlpfixture.Disk{{Device: "sda", ReadOps: 1}}}))
		},
	}
	for name, body := range cases {
		t.Run(name, func(t *testing.T) {
			expectError(t, g.export(t, agent.Credential, body(scrape(boot, sampleStart.Add(10*time.Second), 1))), http.StatusBadRequest, reasonMalformed)
		})
	}
	if n := g.count(t, `SELECT count(*) FROM disk_io`); n != 0 {
		t.Fatalf("refused exports wrote %d disk_io rows", n)
	}
	// The refused exports moved no series: the next good scrape is a delta from the baseline.
	exportScrape(t, g, g.url, agent.Credential, scrape(boot, sampleStart.Add(10*time.Second), 1))
	if got := diskRowsByTime(t, g, agent.ServerID); got[sampleStart.Add(10*time.Second).UTC()] != stepDelta(1) {
		t.Fatalf("disk_io after refusals = %+v, want one step", got)
	}
	// Another organisation's agent sending the same series starts its own baseline.
	other := g.enroll(t, "org-b", "collector-host")
	exportScrape(t, g, g.url, other.Credential, scrape(boot, sampleStart.Add(20*time.Second), 2))
	if n := g.count(t, `SELECT count(*) FROM disk_io WHERE org_id = 'org-b'`); n != 0 {
		t.Fatalf("org-b's first scrape produced %d deltas: series state crossed organisations", n)
	}
}
