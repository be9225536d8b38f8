package httpapi

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"

	"go.opentelemetry.io/collector/pdata/pmetric"

	"github.com/spindle-io/spindle/apps/gateway/test/otlpfixture"
)

func pageCacheCurve() otlpfixture.Curve {
	return otlpfixture.Curve{Curve: "page_cache", SizesBytes: []int64{409600, 819200, 1 << 30}, HitRatios: []float64{0.1, 0.4, 0.9},
		SampleRate: 0.01, SampledAccesses: 5230, WindowSeconds: 300}
}

func curveExport(seq int64, curves ...otlpfixture.Curve) pmetric.Metrics {
	s := sample(seq)
	md := otlpfixture.Build(s)
	otlpfixture.AddCurves(md, 0, s, curves...)
	return md
}

func TestMissRatioCurvesAreStoredPerServerAndWindowOnce(t *testing.T) {
	g := newGateway(t)
	a := g.enroll(t, "org-a", "machine-a")
	b := g.enroll(t, "org-b", "machine-b")
	block := otlpfixture.Curve{Curve: "block", Scope: "nvme0n1", SizesBytes: []int64{409600}, HitRatios: []float64{0.25},
		SampleRate: 0.004, SampledAccesses: 90, WindowSeconds: 299.5}
	body := otlpfixture.Proto(curveExport(1, pageCacheCurve(), block))
	for attempt := range 2 { // the second delivery is a replay: written once
		if resp := g.export(t, a.Credential, body); resp.StatusCode != http.StatusOK {
			t.Fatalf("attempt %d: status %d: %s", attempt, resp.StatusCode, readAll(t, resp))
		}
	}
	// The other organisation's agent sends a curve with the very same key: it is its own row.
	if resp := g.export(t, b.Credential, otlpfixture.Proto(curveExport(1, pageCacheCurve()))); resp.StatusCode != http.StatusOK {
		t.Fatalf("org-b: status %d: %s", resp.StatusCode, readAll(t, resp))
	}

	end := sample(1).End.UTC()
	var sizes []int64
	var ratios []float64
	var rate, window float64
	var sampled int64
	if err := g.db.QueryRow(context.Background(), `
		SELECT sizes_bytes, hit_ratios, sample_rate, window_seconds, sampled_accesses FROM cache_mrc
		WHERE org_id = 'org-a' AND server_id = $1 AND curve = 'page_cache' AND scope = '' AND time = $2`, a.ServerID, end).
		Scan(&sizes, &ratios, &rate, &window, &sampled); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(sizes, []int64{409600, 819200, 1 << 30}) || !slices.Equal(ratios, []float64{0.1, 0.4, 0.9}) ||
		rate != 0.01 || window != 300 || sampled != 5230 {
		t.Fatalf("stored curve: sizes %v ratios %v rate %v window %v sampled %d", sizes, ratios, rate, window, sampled)
	}
	checks := map[string]int{
		`SELECT count(*) FROM cache_mrc WHERE server_id = $1`: 2,
		`SELECT count(*) FROM cache_mrc WHERE server_id = $1 AND org_id = 'org-a' AND curve = 'block' AND scope = 'nvme0n1' AND window_seconds = 299.5`: 1,
	}
	for sql, want := range checks {
		if got := g.count(t, sql, a.ServerID); got != want {
			t.Errorf("%s = %d, want %d", sql, got, want)
		}
	}
	if n := g.count(t, `SELECT count(*) FROM cache_mrc WHERE server_id = $1 AND org_id = 'org-b'`, b.ServerID); n != 1 {
		t.Errorf("org-b holds %d curves of its own server, want 1", n)
	}
	if n := g.count(t, `SELECT count(*) FROM cache_mrc WHERE org_id = 'org-b' AND server_id = $1`, a.ServerID); n != 0 {
		t.Errorf("%d of org-a's server's curves landed in org-b", n)
	}
}

func TestMalformedMissRatioCurvesAreRefusedWhole(t *testing.T) {
	g := newGateway(t)
	a := g.enroll(t, "org-a", "machine-a")
	change := func(f func(*otlpfixture.Curve)) otlpfixture.Curve {
		c := pageCacheCurve()
		f(&c)
		return c
	}
	for name, tc := range map[string]struct {
		md   pmetric.Metrics
		says string
	}{
		"falling":            {curveExport(1, change(func(c *otlpfixture.Curve) { c.HitRatios[2] = 0.3 })), "a larger LRU cache never hits less"},
		"above one":          {curveExport(1, change(func(c *otlpfixture.Curve) { c.HitRatios[2] = 1.5 })), "outside [0, 1]"},
		"repeated size":      {curveExport(1, change(func(c *otlpfixture.Curve) { c.SizesBytes[1] = c.SizesBytes[0] })), "two hit ratios for 409600 bytes"},
		"rate zero":          {curveExport(1, change(func(c *otlpfixture.Curve) { c.SampleRate = 0 })), "sample rate 0 is outside (0, 1]"},
		"unknown curve":      {curveExport(1, change(func(c *otlpfixture.Curve) { c.Curve = "l2arc" })), `"l2arc" is not page_cache, read_cache or block`},
		"scoped page cache":  {curveExport(1, change(func(c *otlpfixture.Curve) { c.Scope = "/srv/*" })), "a page_cache curve has no scope"},
		"block without disk": {curveExport(1, change(func(c *otlpfixture.Curve) { c.Curve = "block" })), "needs its spindle.mrc.scope"},
		"no basis": {otlpfixture.Without(curveExport(1, pageCacheCurve()), "spindle.cache.mrc.window"),
			"spindle.cache.mrc.window are all required"},
		"no points": {otlpfixture.Without(curveExport(1, pageCacheCurve()), "spindle.cache.mrc.hit_ratio"), "no spindle.cache.mrc.hit_ratio points"},
	} {
		t.Run(name, func(t *testing.T) {
			message := expectError(t, g.export(t, a.Credential, otlpfixture.Proto(tc.md)), http.StatusBadRequest, reasonMalformed)
			if !strings.Contains(message, tc.says) {
				t.Errorf("message %q does not say %q", message, tc.says)
			}
		})
	}
	// Nothing of the refused batches was written: no curve, and not the disks they carried.
	for _, table := range []string{"cache_mrc", "disk_io", "memory"} {
		if n := g.count(t, `SELECT count(*) FROM `+table); n != 0 {
			t.Errorf("refused batches wrote %d rows to %s", n, table)
		}
	}
	if resp := g.export(t, a.Credential, otlpfixture.Proto(curveExport(1, pageCacheCurve()))); resp.StatusCode != http.StatusOK {
		t.Fatalf("the corrected batch: status %d: %s", resp.StatusCode, readAll(t, resp))
	}
}
