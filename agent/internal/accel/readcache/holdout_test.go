package readcache

import (
	"math"
	"testing"

	"github.com/spindle-io/spindle/agent/internal/policy"
)

func TestKernelDevIsTheSuperblockEncoding(t *testing.T) {
	for _, c := range []struct {
		dev  uint64 // stat(2)'s st_dev, glibc's makedev
		want uint32 // major << 20 | minor
	}{
		{0x801, 8<<20 | 1},      // sda1
		{0x10303, 259<<20 | 3},  // nvme0n1p3: major 259 = 0x103
		{0x10012c, 1<<20 | 300}, // makedev(1, 300): minor 0x12c, low byte at bit 0, the rest from bit 20
	} {
		if got := kernelDev(c.dev); got != c.want {
			t.Errorf("kernelDev(%#x) = %#x, want %#x", c.dev, got, c.want)
		}
	}
}

// Pinned values: the kernel program computes the same function, and a change here changes which
// pages every agent holds out (docs/metrics.md).
func TestControlIsThePinnedHash(t *testing.T) {
	h := holdoutOf(0x0123456789abcdef, 10)
	if h.Threshold != 429496729 {
		t.Fatalf("10 %% threshold %d, want ⌊2³² / 10⌋ = 429496729", h.Threshold)
	}
	if got := splitmix64(0); got != 0xe220a8397b1dcdaf {
		t.Fatalf("splitmix64(0) = %#x, want the published first output 0xe220a8397b1dcdaf", got)
	}
	file := FileKey{Dev: 0x801, Ino: 131073}
	var control []uint64
	for g := uint64(0); g < 64; g++ {
		if h.Control(file, g) {
			control = append(control, g)
		}
	}
	want := pinnedControlGroups
	if len(control) != len(want) {
		t.Fatalf("control groups %v, want %v", control, want)
	}
	for i := range want {
		if control[i] != want[i] {
			t.Fatalf("control groups %v, want %v", control, want)
		}
	}
}

// pinnedControlGroups are the control groups among the first 64 of inode 131073 on sda1 at
// salt 0x0123456789abcdef and 10 %, as computed when the function was fixed.
var pinnedControlGroups = []uint64{15, 46, 51, 63}

func TestHoldoutIsStableAcrossRestartsAndDrawnAgainPerPolicyVersion(t *testing.T) {
	p := policy.Default()
	p.ReadCache.Enabled, p.ReadCache.Include = true, []string{"/srv/db/**"}
	first, again := NewHoldout(p), NewHoldout(p)
	if first != again || first.Percent != 10 {
		t.Fatalf("the same policy drew %+v then %+v", first, again)
	}
	next := p
	next.Telemetry.IntervalSeconds = 20 // another policy version
	redrawn := NewHoldout(next)
	if redrawn.Salt == first.Salt {
		t.Fatal("a new policy version kept the draw")
	}
	// Two independent 10 % draws share about 1 % of the groups, not 10 %.
	file := FileKey{Dev: 0x801, Ino: 42}
	both, inFirst := 0, 0
	for g := uint64(0); g < 100_000; g++ {
		a, b := first.Control(file, g), redrawn.Control(file, g)
		if a {
			inFirst++
		}
		if a && b {
			both++
		}
	}
	if share := float64(both) / float64(inFirst); share > 0.13 {
		t.Fatalf("%.1f %% of the first draw's groups are in the second: not drawn again", share*100)
	}
}

func TestHoldoutIsUniformAndIndependentOfTheFile(t *testing.T) {
	for _, percent := range []int64{1, 10, 25, 50} {
		h := holdoutOf(0x5eed, percent)
		// 200 files × 1,000 groups: the share held out within 4 standard deviations of the percent.
		n, held := 0, 0
		for ino := uint64(1); ino <= 200; ino++ {
			for g := uint64(0); g < 1000; g++ {
				n++
				if h.Control(FileKey{Dev: 0x10303, Ino: ino}, g) {
					held++
				}
			}
		}
		p := float64(percent) / 100
		if sd := math.Sqrt(p * (1 - p) / float64(n)); math.Abs(float64(held)/float64(n)-p) > 4*sd {
			t.Errorf("%d %%: held out %.3f %% of %d groups", percent, 100*float64(held)/float64(n), n)
		}
	}
	// The hash's upper 32 bits are uniform: chi-square over 16 equal bins, 160,000 groups, below
	// the 0.1 % critical value for 15 degrees of freedom (37.70).
	h := holdoutOf(0xfeedface, 50)
	var bins [16]float64
	for ino := uint64(1); ino <= 160; ino++ {
		for g := uint64(0); g < 1000; g++ {
			x := splitmix64(h.Salt ^ uint64(kernelDev(0x801)))
			x = splitmix64(x ^ ino)
			x = splitmix64(x ^ g)
			bins[x>>60]++
		}
	}
	chi := 0.0
	for _, observed := range bins {
		chi += (observed - 10_000) * (observed - 10_000) / 10_000
	}
	if chi > 37.70 {
		t.Errorf("chi-square %.1f over 16 bins: the draw is not uniform", chi)
	}
}

func TestHigherHoldoutsKeepTheLowerOnesGroups(t *testing.T) {
	low, high := holdoutOf(7, 10), holdoutOf(7, 20)
	file := FileKey{Dev: 0x801, Ino: 9}
	for g := uint64(0); g < 10_000; g++ {
		if low.Control(file, g) && !high.Control(file, g) {
			t.Fatalf("group %d is held out at 10 %% and not at 20 %%", g)
		}
	}
	if none := holdoutOf(7, 0); none.Active() || none.Control(file, 0) {
		t.Fatal("0 % held something out")
	}
}

func TestManagedRunsSkipTheControlGroups(t *testing.T) {
	const g = HoldoutGroupBytes
	c := controlGroups{bits: []uint64{0b10110}, groups: 6, count: 3} // groups 1, 2 and 4
	got := c.managedRuns(0, 6*g-100)
	want := [][2]int64{{0, g}, {3 * g, g}, {5 * g, g - 100}}
	if len(got) != len(want) {
		t.Fatalf("runs %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("runs %v, want %v", got, want)
		}
	}
	if got := c.managedRuns(g+10, g); len(got) != 0 {
		t.Fatalf("a range inside control groups has managed runs %v", got)
	}
	if got := (controlGroups{}).managedRuns(5, 10); len(got) != 1 || got[0] != [2]int64{5, 10} {
		t.Fatalf("without a control the range is one run, got %v", got)
	}
	if !c.controlPage(g/4096, 4096) || c.controlPage(0, 4096) {
		t.Fatal("controlPage disagrees with the groups")
	}
}

// Pinned buckets of the first 24 groups: the kernel hashes them the same way (the root test in
// internal/bpf/pagecache checks it against the program), and a change here reshuffles every
// agent's buckets.
func TestBucketIsThePinnedHash(t *testing.T) {
	h := holdoutOf(0x0123456789abcdef, 10)
	file := FileKey{Dev: 0x801, Ino: 131073}
	want := []int{15, 4, 1, 14, 8, 2, 10, 2, 7, 8, 15, 14, 2, 14, 10, 7, 3, 15, 6, 6, 14, 11, 8, 8}
	for g, w := range want {
		if got := h.Bucket(file, uint64(g)); got != w {
			t.Fatalf("group %d in bucket %d, want %d", g, got, w)
		}
	}
}

// Each bucket must be a small copy of the whole experiment: a sixteenth of the groups, a tenth
// of them in the control. A bucket hash that followed the draw (the control's bits) would put the
// control in a few buckets, and the buckets would no longer be small copies of the whole draw.
func TestBucketsAreUniformAndIndependentOfTheDraw(t *testing.T) {
	h := holdoutOf(0x9e3779b97f4a7c15, 10)
	const files, groups = 40, 4000 // 160,000 groups: 10,000 a bucket, 1,000 of them in the control
	var all, control [HoldoutBuckets]float64
	for f := range uint64(files) {
		file := FileKey{Dev: 0x803, Ino: 1000 + f}
		for g := range uint64(groups) {
			b := h.Bucket(file, g)
			all[b]++
			if h.Control(file, g) {
				control[b]++
			}
		}
	}
	for b := range HoldoutBuckets {
		// Binomial sd: √(160,000 × 1/16 × 15/16) ≈ 97 groups; √(10,000 × 0.1 × 0.9) = 30 control groups. 5 sd either way.
		if math.Abs(all[b]-10_000) > 5*97 {
			t.Errorf("bucket %d holds %.0f groups, want about 10,000", b, all[b])
		}
		if math.Abs(control[b]-all[b]/10) > 5*30 {
			t.Errorf("bucket %d: %.0f of its %.0f groups in the control, want about a tenth", b, control[b], all[b])
		}
	}
}
