package writeopt

import "time"

// windowLimits bound the preallocation windows of one rule. A window is the space one fallocate
// reserves past a file's end; each window is one request the file system can satisfy with one
// contiguous run, so the fewer windows a file needs to grow, the fewer fragments it gets.
type windowLimits struct {
	// firstBytes is the rule's chunkBytes: the first window, before the file's rate is known, and
	// the smallest one while free space allows (a slow file gets no more windows than with
	// fixed chunks).
	firstBytes int64
	minBytes   int64 // when free space is short: no window is smaller (it would cost more than it saves)
	// capBytes is the per-file cap: space reserved past the file's end never exceeds it.
	capBytes int64
	// horizon: a window should last the file this long at the rate it grew over its last window.
	horizon time.Duration
	// freeShare: a window takes at most this fraction of the space still available, so many
	// growing files cannot reserve a disk full between them.
	freeShare float64
	// hintBytes: on XFS, the extent size hint a new file gets before its first window (0: none).
	hintBytes int64
}

// growthFactor bounds how much larger a window may be than the one before: how fast the windows
// ramp up to what the file's rate asks for (rate × horizon decides the size once they have).
// Each window is at least one extent, and the file system cannot put a window right after the
// previous one when other growing files reserved the space between (filefrag of the long
// workload: every window boundary is a break), so a file outrunning its windows has as many
// fragments as windows. With 8 a 512 MiB log needs 2 windows (64 MiB, then the rest) where
// doubling needed 4 and quadrupling 3 (docs/benchmarks.md); the cap on what lies past a file's
// end and the share of free space bound how much one burst can reserve either way.
const growthFactor = 8

// lastWindow is what the sizing remembers of a file's previous reservation.
type lastWindow struct {
	bytes     int64     // 0: nothing reserved yet
	startSize int64     // the file's size when it was reserved
	at        time.Time // when it was reserved
}

// due reports whether a file of size needs its next window: its size came within half a window
// of the end of what is reserved for it.
func (l windowLimits) due(last lastWindow, size, reservedEnd int64) bool {
	window := last.bytes
	if window == 0 {
		window = l.firstBytes
	}
	return size+window/2 > reservedEnd
}

// nextWindow sizes the window to reserve from start (the larger of the file's size and the end
// of what is reserved) for a file of size, with availableBytes still free on its file system.
//
// The first window is firstBytes. After that the window is the file's observed growth rate
// (bytes grown since the last window was reserved, per second) times the horizon, but at most
// growthFactor times the previous window: a file that keeps outrunning its windows gets
// geometrically larger ones, so its number of windows (and fragments) grows with the logarithm
// of its size instead of linearly, and one burst cannot reserve a huge region; a file that
// slowed down gets a window sized to its new rate, but never less than firstBytes. Every window takes at most
// freeShare of the available space (down to minBytes) and never makes the space reserved past
// the file's end exceed capBytes. It returns 0 when no window of minBytes fits (the disk is
// nearly full, or the cap is already reached).
func (l windowLimits) nextWindow(last lastWindow, size, start int64, now time.Time, availableBytes int64) int64 {
	window := l.firstBytes
	if last.bytes > 0 {
		window = growthFactor * last.bytes
		if elapsed := now.Sub(last.at); elapsed > 0 {
			// float64: bytes × nanoseconds overflows int64 past about 150 MB at a 1 min horizon.
			grownBytes := float64(max(0, size-last.startSize))
			rateTarget := grownBytes * float64(l.horizon) / float64(elapsed)
			if rateTarget < float64(window) {
				window = int64(rateTarget)
			}
		}
	}
	window = max(window, l.firstBytes)
	window = min(window, int64(float64(availableBytes)*l.freeShare), size+l.capBytes-start)
	if window < l.minBytes {
		return 0
	}
	return window
}
