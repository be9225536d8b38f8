package bench

import (
	"errors"
	"strings"
	"testing"
)

func validRequest() Request {
	return Request{Profile: "sqlio", Paths: []string{"/data/bench"}, SizeLimitBytes: 64 << 20, TimeLimitSeconds: 600}
}

func TestValidateRefusesBadRequestsWithAClearError(t *testing.T) {
	cases := []struct {
		name   string
		change func(*Request)
		want   string
	}{
		{"unknown profile", func(r *Request) { r.Profile = "tpcc" }, "unknown profile"},
		{"no path", func(r *Request) { r.Paths = nil }, "no path given"},
		{"three paths", func(r *Request) { r.Paths = []string{"/a", "/b", "/c"} }, "3 paths given"},
		{"relative path", func(r *Request) { r.Paths = []string{"data/bench"} }, "not absolute"},
		{"dot-dot", func(r *Request) { r.Paths = []string{"/data/../etc"} }, `contains ".."`},
		{"no size limit", func(r *Request) { r.SizeLimitBytes = 0 }, "no size limit"},
		{"no time limit", func(r *Request) { r.TimeLimitSeconds = 0 }, "no time limit"},
		{"negative floor", func(r *Request) { r.FreeSpaceFloorBytes = -1 }, "cannot be negative"},
		{"step too short", func(r *Request) { r.StepSeconds = 0.2 }, "too short"},
		{"direct with A/B", func(r *Request) { r.DirectIO, r.AB = true, true }, "direct I/O bypasses"},
		{"bad load", func(r *Request) { r.Loads = []Load{{Threads: 0, Outstanding: 4}} }, "threads > 0"},
		{"too many in flight", func(r *Request) { r.Loads = []Load{{Threads: 64, Outstanding: 128}} }, "exceeds"},
		{"clients for generator", func(r *Request) { r.Loads = []Load{{Clients: 4}} }, "threads > 0"},
		{"pgbench without PostgreSQL", func(r *Request) { r.Profile = "pgbench" }, "connection string"},
		{"pgbench with threads", func(r *Request) {
			r.Profile, r.Loads = "pgbench", []Load{{Threads: 1, Outstanding: 1}}
		}, "clients only"},
		{"plan longer than the limit", func(r *Request) { r.TimeLimitSeconds = 30 }, "time limit is 30 s"},
		{"A/B plan longer than the limit", func(r *Request) { r.AB, r.TimeLimitSeconds = true, 300 },
			"a warm-up pass and 2 blocks of off, on, on, off"},
		{"negative target", func(r *Request) { r.TargetHalfWidthPercent = -1 }, "cannot be negative"},
		{"target wider than any change", func(r *Request) { r.TargetHalfWidthPercent = 150 }, "at most ±100 %"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := validRequest()
			c.change(&r)
			err := r.Validate()
			if err == nil || !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Validate() = %v, want an ErrInvalid containing %q", err, c.want)
			}
		})
	}
	if err := validRequest().Validate(); err != nil {
		t.Fatalf("a valid request: %v", err)
	}
}

func TestPlanCountsEveryStepOfEveryPass(t *testing.T) {
	r := validRequest().withDefaults()
	r.AB = true
	p, _ := profileByName("sqlio")
	// 4 workloads x 3 loads x 9 passes (a warm-up and the least 2 blocks of 4) x 5 s, plus 64 MiB
	// at 50 MB/s and a second per pass
	want := 4*3*9*5.0 + float64(64<<20)/50e6 + 9
	if got := r.planSeconds(p); got != want {
		t.Fatalf("planSeconds = %v, want %v", got, want)
	}
}

func TestParseSizeAndLoads(t *testing.T) {
	for text, want := range map[string]int64{"1GiB": 1 << 30, "512MiB": 512 << 20, "10GB": 10e9, "4K": 4096, "123": 123} {
		if got, err := ParseSize(text); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", text, got, err, want)
		}
	}
	if _, err := ParseSize("lots"); err == nil {
		t.Error("ParseSize(lots) accepted")
	}
	loads, err := ParseLoads("1x1, 4x8")
	if err != nil || len(loads) != 2 || loads[1] != (Load{Threads: 4, Outstanding: 8}) {
		t.Fatalf("ParseLoads = %v, %v", loads, err)
	}
	if loads, err := ParseLoads("1,16"); err != nil || loads[1] != (Load{Clients: 16}) {
		t.Fatalf("ParseLoads clients = %v, %v", loads, err)
	}
	if _, err := ParseLoads("4xx"); err == nil {
		t.Error("ParseLoads(4xx) accepted")
	}
}

func TestProfilesFollowTheSeedDefinitions(t *testing.T) {
	for _, p := range Profiles() {
		for _, m := range p.Mixes {
			total := 0.0
			for _, s := range m.Sizes {
				total += s.Percent
			}
			if total < 99.99 || total > 100.01 {
				t.Errorf("%s/%s: size shares sum to %v %%", p.Name, m.Name, total)
			}
		}
	}
	oltp, _ := profileByName("oltp")
	m := oltp.Mixes[0]
	if m.SpanPercent != 80 || m.Hotspots != 30 || m.HotspotSpanPercent != 15 || m.HotspotIOPercent != 83 ||
		m.RandomPercent != 90 || m.ReadPercent != 65 || m.LogPercent != 15 {
		t.Fatalf("oltp mix %+v differs from SEED-FACTS.md", m)
	}
	fs, _ := profileByName("fileserver")
	if fs.Mixes[0].ReadPercent != 80 || fs.Mixes[0].RandomPercent != 100 {
		t.Fatalf("fileserver mix %+v differs from SEED-FACTS.md", fs.Mixes[0])
	}
}
