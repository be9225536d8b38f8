package proofrun

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"
)

func TestOffsetsStayInTheSpanAndHotspotsGetTheirShare(t *testing.T) {
	oltp, _ := profileByName("oltp")
	mix := oltp.Mixes[0]
	const fileSize = 1 << 30
	span := int64(fileSize) / 10 * 8
	c := newOffsetChooser(mix, span)
	rng := rand.New(rand.NewPCG(3, 4))
	inHotspot := func(offset int64) bool {
		region := span / 30
		return offset%region < c.hotspotBytes
	}
	hot, n := 0, 200_000
	for range n {
		size := pickSize(rng, mix.Sizes)
		offset := c.random(rng, size)
		if offset < 0 || offset+int64(size) > span {
			t.Fatalf("I/O of %d at %d leaves the first 80 %% (%d)", size, offset, span)
		}
		if offset%ioAlign(size) != 0 {
			t.Fatalf("offset %d not aligned for size %d", offset, size)
		}
		if inHotspot(offset) {
			hot++
		}
	}
	// 83 % aimed at the hotspots, plus the uniform rest that lands in them by chance (15 %)
	want := 0.83 + 0.17*0.15
	if got := float64(hot) / float64(n); got < want-0.01 || got > want+0.01 {
		t.Fatalf("%.3f of I/Os in hotspots, want %.3f", got, want)
	}
}

func TestSizesFollowTheMix(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	counts := map[int]int{}
	const n = 200_000
	for range n {
		counts[pickSize(rng, fileServerSizes)]++
	}
	for _, s := range fileServerSizes {
		got := 100 * float64(counts[s.Bytes]) / n
		if got < s.Percent-0.5 || got > s.Percent+0.5 {
			t.Errorf("%d B: %.2f %% of I/Os, want %.1f %%", s.Bytes, got, s.Percent)
		}
	}
}

func TestSequentialWrapsAtTheSpan(t *testing.T) {
	c := offsetChooser{span: 256 * kib}
	cursor := int64(0)
	var offsets []int64
	for range 5 {
		offsets = append(offsets, c.sequential(&cursor, 64*kib))
	}
	want := []int64{0, 64 * kib, 128 * kib, 192 * kib, 0}
	for i := range want {
		if offsets[i] != want[i] {
			t.Fatalf("offsets %v, want %v", offsets, want)
		}
	}
}

func TestStepMeasuresAMixOnARealFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "data.dat")
	const size = 32 << 20
	if err := writeDataFile(context.Background(), path, size); err != nil {
		t.Fatal(err)
	}
	tgt, closeTarget, err := openTarget(path, size, false)
	if err != nil {
		t.Fatal(err)
	}
	defer closeTarget()
	fs, _ := profileByName("fileserver")
	m, err := runStep(context.Background(), tgt, nil, stepPlan{mix: fs.Mixes[0], load: Load{Threads: 2, Outstanding: 2},
		duration: 700 * time.Millisecond, seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if m.operations == 0 || m.latency.n != m.operations || m.bytes < m.operations*512 {
		t.Fatalf("measure %+v: operations, latencies and bytes disagree", m)
	}
	if !m.reads.classified || m.reads.storage+m.reads.memory == 0 || m.reads.storage+m.reads.memory >= m.operations {
		t.Fatalf("reads %+v of %d I/Os at 80 %% reads: not classified", m.reads, m.operations)
	}
	if m.seconds <= 0 || m.seconds > 0.7 {
		t.Fatalf("step lasted %v s, want at most the step's 0.7 s", m.seconds)
	}
}

func TestLogWriterKeepsItsShareOfTheDataIOs(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "data.dat")
	const size = 32 << 20
	if err := writeDataFile(context.Background(), path, size); err != nil {
		t.Fatal(err)
	}
	tgt, closeTarget, err := openTarget(path, size, false)
	if err != nil {
		t.Fatal(err)
	}
	defer closeTarget()
	logFile, err := createFile(filepath.Join(dir, "pass1.log"), false)
	if err != nil {
		t.Fatal(err)
	}
	defer logFile.Close()
	log := &logTarget{file: logFile, capBytes: 8 << 20}
	oltp, _ := profileByName("oltp")
	m, err := runStep(context.Background(), tgt, log, stepPlan{mix: oltp.Mixes[0], load: Load{Threads: 2, Outstanding: 2},
		duration: time.Second, seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	// the writer never gets ahead of 15 % of the data I/Os
	if m.logWrites == 0 || float64(m.logWrites) > 0.15*float64(m.operations)+1 {
		t.Fatalf("%d log writes for %d data I/Os, want (0, 15 %%]", m.logWrites, m.operations)
	}
	if log.grown.Load() > log.capBytes {
		t.Fatalf("log grew to %d past its cap %d", log.grown.Load(), log.capBytes)
	}
}
