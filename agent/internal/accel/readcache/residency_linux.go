package readcache

import (
	"fmt"
	"math/bits"
	"os"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/spindle-io/spindle/agent/internal/safeopen"
)

// residencyWindowBytes is how much of a file is mapped for one mincore call: the vector costs
// one byte per page (256 KiB here), reused across files.
const residencyWindowBytes = 1 << 30

// residency is a file's page-cache residency at one sample: one bit per page.
type residency struct {
	sizeBytes int64
	bits      []uint64
}

func (r residency) resident(page int64) bool {
	return page < int64(len(r.bits))*64 && r.bits[page/64]&(1<<(page%64)) != 0
}

func (r residency) clear(fromPage, toPage int64) {
	for p := fromPage; p < toPage && p/64 < int64(len(r.bits)); p++ {
		r.bits[p/64] &^= 1 << (p % 64)
	}
}

// count is the number of resident pages in [fromPage, toPage).
func (r residency) count(fromPage, toPage int64) int64 {
	n := int64(0)
	for p := fromPage; p < toPage && p/64 < int64(len(r.bits)); p++ {
		if r.bits[p/64]&(1<<(p%64)) != 0 {
			n++
		}
	}
	return n
}

func (r residency) total() int64 {
	n := 0
	for _, word := range r.bits {
		n += bits.OnesCount64(word)
	}
	return int64(n)
}

// sampler measures residency with mincore on a read-only shared mapping (mapping without
// touching faults nothing in, so measuring does not change what it measures).
type sampler struct {
	pageSize int64
	vector   []byte
}

func newSampler() *sampler {
	pageSize := int64(os.Getpagesize())
	return &sampler{pageSize: pageSize, vector: make([]byte, residencyWindowBytes/pageSize)}
}

func (s *sampler) sample(path string) (residency, error) {
	f, st, err := safeopen.Open(path, safeopen.Read, safeopen.Options{})
	if err != nil {
		return residency{}, err
	}
	defer f.Close()
	size := st.Size
	pages := (size + s.pageSize - 1) / s.pageSize
	r := residency{sizeBytes: size, bits: make([]uint64, (pages+63)/64)}
	for offset := int64(0); offset < size; offset += residencyWindowBytes {
		length := min(residencyWindowBytes, size-offset)
		mapping, err := unix.Mmap(int(f.Fd()), offset, int(length), unix.PROT_READ, unix.MAP_SHARED)
		if err != nil {
			return residency{}, fmt.Errorf("mmap %s: %w", path, err)
		}
		windowPages := (length + s.pageSize - 1) / s.pageSize
		err = mincore(mapping, s.vector[:windowPages])
		_ = unix.Munmap(mapping)
		if err != nil {
			return residency{}, fmt.Errorf("mincore %s: %w", path, err)
		}
		first := offset / s.pageSize
		for i, v := range s.vector[:windowPages] {
			if v&1 != 0 {
				page := first + int64(i)
				r.bits[page/64] |= 1 << (page % 64)
			}
		}
	}
	return r, nil
}

// mincore is mincore(2); golang.org/x/sys/unix has no wrapper.
func mincore(mapping []byte, vector []byte) error {
	_, _, errno := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(&mapping[0])),
		uintptr(len(mapping)), uintptr(unsafe.Pointer(&vector[0])))
	if errno != 0 {
		return errno
	}
	return nil
}

// change is what happened to a file between two samples.
type change struct {
	retainedPages int64
	pagedInPages  int64
	newestPage    int64 // highest page index paged in, -1 when none
}

func compare(previous, current residency) change {
	c := change{newestPage: -1}
	for i, word := range current.bits {
		var before uint64
		if i < len(previous.bits) {
			before = previous.bits[i]
		}
		c.retainedPages += int64(bits.OnesCount64(word & before))
		if added := word &^ before; added != 0 {
			c.pagedInPages += int64(bits.OnesCount64(added))
			c.newestPage = int64(i)*64 + int64(63-bits.LeadingZeros64(added))
		}
	}
	return c
}

// missingRuns lists the non-resident byte ranges of a file, in order.
func missingRuns(r residency, pageSize int64) [][2]int64 {
	var runs [][2]int64
	pages := (r.sizeBytes + pageSize - 1) / pageSize
	for p := int64(0); p < pages; {
		if r.resident(p) {
			p++
			continue
		}
		start := p
		for p < pages && !r.resident(p) {
			p++
		}
		runs = append(runs, [2]int64{start * pageSize, min(p*pageSize, r.sizeBytes) - start*pageSize})
	}
	return runs
}

// advise applies posix_fadvise to a byte range of a file by path.
func advise(path string, offset, length int64, advice int) error {
	f, _, err := safeopen.Open(path, safeopen.Read, safeopen.Options{})
	if err != nil {
		return err
	}
	defer f.Close()
	if err := unix.Fadvise(int(f.Fd()), offset, length, advice); err != nil {
		return fmt.Errorf("fadvise %s: %w", path, err)
	}
	return nil
}
