package writeopt

import (
	"slices"
	"testing"
	"time"
)

const mib = int64(1) << 20

var testLimits = windowLimits{firstBytes: 64 * mib, minBytes: mib, capBytes: 1024 * mib, horizon: time.Minute,
	freeShare: 1.0 / 8}

const plentyFree = 1 << 40

func TestNextWindowHandComputed(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	cases := []struct {
		name            string
		limits          windowLimits
		last            lastWindow
		size, start     int64
		now             time.Time
		availableBytes  int64
		wantWindowBytes int64
	}{
		{name: "first window: the rule's chunk", limits: testLimits, size: 8 << 10, start: 8 << 10, now: t0,
			availableBytes: plentyFree, wantWindowBytes: 64 * mib},
		// 48 MiB in 5 s is 9.6 MiB/s, 576 MiB a minute: more than 8 × 64 MiB, so 8 times it.
		{name: "outrunning: 8 times the last window", limits: testLimits, last: lastWindow{bytes: 64 * mib, startSize: 0, at: t0},
			size: 48 * mib, start: 64 * mib, now: t0.Add(5 * time.Second), availableBytes: plentyFree,
			wantWindowBytes: 512 * mib},
		// 32 MiB in 10 s is 3.2 MiB/s, 192 MiB a minute: between 64 MiB and 8 × 64 MiB.
		{name: "outrunning, not 8 times over: its rate", limits: testLimits, last: lastWindow{bytes: 64 * mib, startSize: 0, at: t0},
			size: 32 * mib, start: 64 * mib, now: t0.Add(10 * time.Second), availableBytes: plentyFree,
			wantWindowBytes: 192 * mib},
		// 48 MiB in 30 s is 1.6 MiB/s: 96 MiB a minute, less than twice 64 MiB.
		{name: "rate times horizon", limits: testLimits, last: lastWindow{bytes: 64 * mib, startSize: 16 * mib, at: t0},
			size: 64 * mib, start: 80 * mib, now: t0.Add(30 * time.Second), availableBytes: plentyFree,
			wantWindowBytes: 96 * mib},
		// 1000 MiB in 600 s: 100 MiB a minute, far less than twice 512 MiB.
		{name: "slowed down: shrunk to its rate", limits: testLimits, last: lastWindow{bytes: 512 * mib, startSize: 0, at: t0},
			size: 1000 * mib, start: 1100 * mib, now: t0.Add(600 * time.Second), availableBytes: plentyFree,
			wantWindowBytes: 100 * mib},
		// 64 MiB in 600 s: 6,710,886.4 bytes a minute, less than the rule's chunk.
		{name: "slow: never below the rule's chunk", limits: testLimits, last: lastWindow{bytes: 128 * mib, startSize: 0, at: t0},
			size: 64 * mib, start: 128 * mib, now: t0.Add(600 * time.Second), availableBytes: plentyFree,
			wantWindowBytes: 64 * mib},
		{name: "stalled: the rule's chunk", limits: testLimits, last: lastWindow{bytes: 128 * mib, startSize: 100 * mib, at: t0},
			size: 100 * mib, start: 150 * mib, now: t0.Add(time.Hour), availableBytes: plentyFree,
			wantWindowBytes: 64 * mib},
		// 8 × 512 MiB is 4 GiB, but 1000 + 1024 - 1200 = 824 MiB is all the cap leaves.
		{name: "per-file cap on what lies past the end", limits: testLimits, last: lastWindow{bytes: 512 * mib, startSize: 700 * mib, at: t0},
			size: 1000 * mib, start: 1200 * mib, now: t0, availableBytes: plentyFree, wantWindowBytes: 824 * mib},
		{name: "cap reached: nothing", limits: testLimits, last: lastWindow{bytes: 512 * mib, startSize: 0, at: t0},
			size: 100 * mib, start: 1124 * mib, now: t0, availableBytes: plentyFree, wantWindowBytes: 0},
		// An eighth of 80 MiB free.
		{name: "bounded by free space", limits: testLimits, size: 0, start: 0, now: t0, availableBytes: 80 * mib,
			wantWindowBytes: 10 * mib},
		// An eighth of 4 MiB is below the 1 MiB minimum.
		{name: "disk nearly full: nothing", limits: testLimits, size: 0, start: 0, now: t0, availableBytes: 4 * mib,
			wantWindowBytes: 0},
	}
	for _, c := range cases {
		got := c.limits.nextWindow(c.last, c.size, c.start, c.now, c.availableBytes)
		if got != c.wantWindowBytes {
			t.Errorf("%s: window %d bytes, want %d", c.name, got, c.wantWindowBytes)
		}
	}
}

func TestDueWithinHalfAWindow(t *testing.T) {
	last := lastWindow{bytes: 128 * mib}
	for _, c := range []struct {
		last        lastWindow
		size, end   int64
		wantDue     bool
		description string
	}{
		{lastWindow{}, 0, 0, true, "nothing reserved yet"},
		{lastWindow{}, 32 * mib, 64 * mib, false, "first window: exactly half of 64 MiB left"},
		{lastWindow{}, 32*mib + 1, 64 * mib, true, "first window: less than half left"},
		{last, 100 * mib, 164 * mib, false, "64 MiB left of a 128 MiB window"},
		{last, 100*mib + 1, 164 * mib, true, "less than 64 MiB left"},
	} {
		if got := testLimits.due(c.last, c.size, c.end); got != c.wantDue {
			t.Errorf("%s: due = %v, want %v", c.description, got, c.wantDue)
		}
	}
}

// A file that keeps outrunning its windows (the clock does not move, so its rate is unbounded)
// grows to 2 GiB in 1 MiB steps: each window is 8 times the last until the 1 GiB cap on what lies
// past its end holds them back. Hand-computed (MiB): 64 reserved at size 0 → end 64; due at 33
// (33 + 32 > 64): 512 → end 576; at 321 (321 + 256 > 576): 8 × 512 is 4096 but the cap leaves
// 321 + 1024 − 576 = 769 → end 1345; at 961 (961 + 384.5 > 1345): the cap leaves
// 961 + 1024 − 1345 = 640 → end 1985; at 1666 (1666 + 320 > 1985): the cap leaves
// 1666 + 1024 − 1985 = 705 → end 2690, beyond 2048: five windows.
func TestWindowsGrowEightfoldWhileTheFileOutrunsThem(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var last lastWindow
	var reservedEnd int64
	var windows []int64
	for size := int64(0); size <= 2048*mib; size += mib {
		if !testLimits.due(last, size, reservedEnd) {
			continue
		}
		start := max(size, reservedEnd)
		window := testLimits.nextWindow(last, size, start, now, plentyFree)
		reservedEnd = start + window
		last = lastWindow{bytes: window, startSize: size, at: now}
		windows = append(windows, window/mib)
	}
	if want := []int64{64, 512, 769, 640, 705}; !slices.Equal(windows, want) {
		t.Fatalf("windows (MiB) %v, want %v", windows, want)
	}
}
