package fiemap

import (
	"encoding/binary"
	"testing"
)

// FuzzConsumeBatch feeds arbitrary ioctl replies (a mapped count and up to batchExtents extents
// of 28 bytes: logical, physical, length, flags) to consumeBatch: it must never panic, and a
// reply that is not done must move the next request's start forward.
func FuzzConsumeBatch(f *testing.F) {
	f.Add(uint32(1), uint64(0), extentBytes(0, 4096, 8192, fiemapExtentLast))
	f.Add(uint32(2), uint64(0), append(extentBytes(0, 4096, 8192, 0), extentBytes(8192, 100000, 4096, 0)...))
	f.Add(uint32(200), uint64(0), extentBytes(0, 0, 0, 0))
	f.Add(uint32(1), uint64(1<<63), extentBytes(^uint64(0)-10, 0, 100, 0))
	f.Fuzz(func(t *testing.T, mapped uint32, start uint64, raw []byte) {
		var extents [batchExtents]fiemapExtent
		for i := 0; i < batchExtents && len(raw) >= 28; i++ {
			extents[i] = fiemapExtent{
				Logical:  binary.LittleEndian.Uint64(raw[0:]),
				Physical: binary.LittleEndian.Uint64(raw[8:]),
				Length:   binary.LittleEndian.Uint64(raw[16:]),
				Flags:    binary.LittleEndian.Uint32(raw[24:]),
			}
			raw = raw[28:]
		}
		var counter Counter
		next, done, err := consumeBatch(&counter, mapped, extents[:], start)
		if err == nil && !done && next <= start {
			t.Fatalf("not done, but next start %d does not pass %d", next, start)
		}
		if counter.Extents() < 0 {
			t.Fatalf("negative extent count %d", counter.Extents())
		}
	})
}

func extentBytes(logical, physical, length uint64, flags uint32) []byte {
	b := make([]byte, 28)
	binary.LittleEndian.PutUint64(b[0:], logical)
	binary.LittleEndian.PutUint64(b[8:], physical)
	binary.LittleEndian.PutUint64(b[16:], length)
	binary.LittleEndian.PutUint32(b[24:], flags)
	return b
}
