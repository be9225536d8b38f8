package credential

import (
	"sync"
	"testing"
	"time"
)

func TestRenewDue(t *testing.T) {
	issued := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	expires := issued.Add(90 * 24 * time.Hour) // 2026-04-01; a third left from 2026-03-02
	threshold := issued.Add(60 * 24 * time.Hour)
	cases := []struct {
		name            string
		now, iss, until time.Time
		want            bool
	}{
		{"just issued", issued, issued, expires, false},
		{"half the lifetime used", issued.Add(45 * 24 * time.Hour), issued, expires, false},
		{"one second before a third is left", threshold.Add(-time.Second), issued, expires, false},
		{"exactly a third left", threshold, issued, expires, true},
		{"a week left", expires.Add(-7 * 24 * time.Hour), issued, expires, true},
		{"already expired", expires.Add(time.Hour), issued, expires, true},
		{"expiry unknown (fresh enrolment)", issued, issued, time.Time{}, true},
		{"issue time unknown", issued, time.Time{}, expires, true},
		{"issued after its expiry (clock went wrong)", issued, expires, issued, true},
		{"one-hour lifetime, 40 min used", issued.Add(40 * time.Minute), issued, issued.Add(time.Hour), true},
		{"one-hour lifetime, 39 min used", issued.Add(39 * time.Minute), issued, issued.Add(time.Hour), false},
	}
	for _, c := range cases {
		if got := RenewDue(c.now, c.iss, c.until); got != c.want {
			t.Errorf("%s: RenewDue = %v, want %v", c.name, got, c.want)
		}
	}
	if got := RenewAt(issued, expires); !got.Equal(threshold) {
		t.Errorf("RenewAt = %v, want %v", got, threshold)
	}
	if got := RenewAt(issued, time.Time{}); !got.IsZero() {
		t.Errorf("RenewAt with unknown expiry = %v, want zero", got)
	}
}

func TestHolderConcurrent(t *testing.T) {
	h := NewHolder("spa_old", time.Time{}, time.Time{})
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 1000; j++ {
				if s := h.Secret(); s != "spa_old" && s != "spa_new" {
					t.Errorf("Secret = %q", s)
					return
				}
			}
		}()
	}
	h.Set("spa_new", time.Unix(1, 0), time.Unix(2, 0))
	wg.Wait()
	if h.Secret() != "spa_new" {
		t.Fatalf("Secret after Set = %q", h.Secret())
	}
	if iss, exp := h.Times(); !iss.Equal(time.Unix(1, 0)) || !exp.Equal(time.Unix(2, 0)) {
		t.Fatalf("Times = %v %v", iss, exp)
	}
}
