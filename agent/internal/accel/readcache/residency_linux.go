package readcache

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"

	"github.com/spindle-io/spindle/agent/internal/accel"
	"github.com/spindle-io/spindle/agent/internal/memlimit"
	"github.com/spindle-io/spindle/agent/internal/safeopen"
)

// residencyWindowBytes is how much of a file is mapped for one mincore call: the vector costs
// one byte per page (256 KiB at most), reused across files and made only as large as the
// largest window measured so far (an agent whose read cache manages nothing holds none).
const residencyWindowBytes = 1 << 30

const (
	fadviseDontNeed = unix.FADV_DONTNEED
	fadviseWillNeed = unix.FADV_WILLNEED
)

// sampler measures residency with mincore on a read-only shared mapping (mapping without
// touching faults nothing in, so measuring does not change what it measures).
type sampler struct {
	pageSize int64
	vector   []byte
	// measuresResidency: Linux's sample is real residency (on Windows it is always empty).
	measuresResidency bool
}

func newSampler() *sampler {
	pageSize := int64(os.Getpagesize())
	return &sampler{pageSize: pageSize, measuresResidency: true}
}

// ResidencyMeasurable is nil: mincore measures every managed file's residency.
func ResidencyMeasurable() error { return nil }

// defaultMemory reads MemAvailable, the agent's own memory cgroup and PSI.
func defaultMemory(procPath string) (MemorySource, error) { return memlimit.Detect(procPath) }

func (s *sampler) sample(path string) (residency, error) {
	f, st, err := safeopen.Open(path, safeopen.Read, safeopen.Options{})
	if err != nil {
		return residency{}, err
	}
	defer f.Close()
	size := st.Size
	pages := (size + s.pageSize - 1) / s.pageSize
	r := residency{sizeBytes: size, bits: make([]uint64, (pages+63)/64),
		key: FileKey{Dev: uint64(st.Dev), Ino: st.Ino}, keyKnown: true} //nolint:unconvert // Dev is uint32 on some architectures
	for offset := int64(0); offset < size; offset += residencyWindowBytes {
		length := min(residencyWindowBytes, size-offset)
		mapping, err := unix.Mmap(int(f.Fd()), offset, int(length), unix.PROT_READ, unix.MAP_SHARED)
		if err != nil {
			return residency{}, fmt.Errorf("mmap %s: %w", path, err)
		}
		windowPages := (length + s.pageSize - 1) / s.pageSize
		if int64(len(s.vector)) < windowPages {
			s.vector = make([]byte, windowPages)
		}
		err = accel.Mincore(mapping, s.vector[:windowPages])
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

// currentThreadID is the calling OS thread's id, which the page-cache program compares with.
func currentThreadID() int { return unix.Gettid() }

// advise applies posix_fadvise to a byte range of a file by path.
func advise(path string, offset, length int64, advice int) error {
	return adviseRuns(path, [][2]int64{{offset, length}}, advice)
}

// adviseRuns applies posix_fadvise to each byte range of a file, opened once.
func adviseRuns(path string, runs [][2]int64, advice int) error {
	if len(runs) == 0 {
		return nil
	}
	f, _, err := safeopen.Open(path, safeopen.Read, safeopen.Options{})
	if err != nil {
		return err
	}
	defer f.Close()
	for _, run := range runs {
		if err := unix.Fadvise(int(f.Fd()), run[0], run[1], advice); err != nil {
			return fmt.Errorf("fadvise %s: %w", path, err)
		}
	}
	return nil
}
