package blocksplit

import (
	"testing"

	"github.com/spindle-io/spindle/agent/internal/bpf/bpftest"
)

// TestCountsSplits lowers a loop device's max_sectors_kb to 64 and issues 1 MiB O_DIRECT I/Os:
// the block layer must cut each into 16 pieces, which is 15 splits per I/O.
func TestCountsSplits(t *testing.T) {
	bpftest.RequireRoot(t)
	loop := bpftest.NewLoop(t, 64<<20)
	loop.SetMaxSectorsKB(t, 64)
	p, err := Load()
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	defer p.Close()

	before, err := p.Read()
	if err != nil {
		t.Fatal(err)
	}
	const ios = 20
	buf := bpftest.AlignedBuffer(t, 1<<20)
	loop.WriteDirect(t, buf, 0, ios/2)
	loop.ReadDirect(t, buf, 0, ios/2)
	after, err := p.Read()
	if err != nil {
		t.Fatal(err)
	}
	const want = ios * (1024/64 - 1)
	if got := after[loop.Dev] - before[loop.Dev]; got != want {
		t.Errorf("%d splits counted on %s, want %d", got, loop.Name, want)
	}
}
