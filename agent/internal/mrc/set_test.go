package mrc

import (
	"fmt"
	"testing"
)

func TestSetRoutesCurvesAndBoundsThem(t *testing.T) {
	s, err := NewSet(4096, 1, 64)
	if err != nil {
		t.Fatal(err)
	}
	// 10,000 keys through a page-cache curve of 64: its rate, and the kernel's, must fall.
	for k := range uint64(10000) {
		s.Page(PageKeyHash(1, 1, k), "")
	}
	page, block := s.Thresholds()
	pageCurve := s.curves[CurveID{Curve: CurvePageCache}]
	if page != pageCurve.Threshold() || pageCurve.Rate() > 0.02 {
		t.Fatalf("page threshold %d, curve's %d at rate %v", page, pageCurve.Threshold(), pageCurve.Rate())
	}
	if block != thresholdFor(1) {
		t.Fatalf("block threshold %d before any disk curve, want the starting rate's", block)
	}
	// A scope curve made now starts at the rate the kernel still samples at, not at 1.
	s.Page(PageKeyHash(1, 1, 5), "/srv/*")
	scope := s.curves[CurveID{Curve: CurveReadCache, Scope: "/srv/*"}]
	if scope == nil || scope.Threshold() != page {
		t.Fatalf("scope curve %v does not start at the page stream's threshold %d", scope, page)
	}
	for k := range uint64(10000) {
		s.Page(PageKeyHash(1, 1, k), "/srv/*")
	}
	for i := range MaxCurves + 3 {
		s.Block(BlockKeyHash(2, uint64(i)), fmt.Sprintf("sd%c", 'a'+i))
	}
	if len(s.curves) != MaxCurves || s.Dropped() != 5 {
		t.Fatalf("%d curves, %d dropped; want %d and 5", len(s.curves), s.Dropped(), MaxCurves)
	}
	s.Retain(func(id CurveID) bool { return id.Curve != CurveBlock })
	if len(s.curves) != 2 || s.Dropped() != 0 {
		t.Fatalf("after dropping the disks: %d curves, %d dropped", len(s.curves), s.Dropped())
	}
	curves := s.Window(0, 0)
	if _, ok := curves[CurveID{Curve: CurvePageCache}]; !ok || len(curves) != 2 {
		t.Fatalf("window curves %v", curves)
	}
	if again := s.Window(0, 0); len(again) != 0 {
		t.Fatalf("an empty window sent %d curves; a curve without samples is not sent", len(again))
	}
}
