package writeopt

import (
	"encoding/binary"
	"fmt"
)

// The replies of Windows' defragmentation and disk-performance requests, decoded apart from
// the syscalls (defrag_windows.go) so they are tested on every OS. Little-endian throughout.

// volumeBitmap is one reply of FSCTL_GET_VOLUME_BITMAP: bits from startLCN, 1 = in use.
type volumeBitmap struct {
	startLCN int64
	bits     []byte
	clusters int64 // valid bits in bits
}

// decodeVolumeBitmap reads a VOLUME_BITMAP_BUFFER: LARGE_INTEGER StartingLcn (rounded down to a
// multiple of 8 by the file system), LARGE_INTEGER BitmapSize (clusters from there to the end of
// the volume), then one bit per cluster, 1 = in use. Only the bits the reply holds count.
func decodeVolumeBitmap(reply []byte) (volumeBitmap, error) {
	if len(reply) < 16 {
		return volumeBitmap{}, fmt.Errorf("volume bitmap reply of %d bytes, shorter than its header", len(reply))
	}
	start := int64(binary.LittleEndian.Uint64(reply[0:]))
	size := int64(binary.LittleEndian.Uint64(reply[8:]))
	if start < 0 || size < 0 {
		return volumeBitmap{}, fmt.Errorf("volume bitmap reply from cluster %d of %d clusters", start, size)
	}
	bits := reply[16:]
	return volumeBitmap{startLCN: start, bits: bits, clusters: min(size, int64(len(bits))*8)}, nil
}

// freeRun finds a run of free clusters across successive bitmap replies.
type freeRun struct {
	start, length int64
	next          int64 // the cluster after the last one scanned
}

// scan extends the run over bitmap and returns its first cluster once it holds need clusters.
func (r *freeRun) scan(b volumeBitmap, need int64) (int64, bool) {
	if need <= 0 {
		return 0, false
	}
	if b.startLCN != r.next {
		r.length = 0 // not adjacent to what was scanned: a run cannot span the gap
	}
	for i := int64(0); i < b.clusters; i++ {
		if r.length == 0 && i%8 == 0 && i+8 <= b.clusters && b.bits[i/8] == 0xFF {
			i += 7 // eight clusters in use: no run starts here
			continue
		}
		if b.bits[i/8]&(1<<(i%8)) != 0 {
			r.length = 0
			continue
		}
		if r.length == 0 {
			r.start = b.startLCN + i
		}
		if r.length++; r.length >= need {
			return r.start, true
		}
	}
	r.next = b.startLCN + b.clusters
	return 0, false
}

// diskPerformanceCounters are the fields of DISK_PERFORMANCE the idle rule needs: IdleTime at
// offset 32 and QueryTime at 56, both in 100 ns units.
type diskPerformanceCounters struct{ idle, query int64 }

func decodeDiskPerformance(reply []byte) (diskPerformanceCounters, error) {
	if len(reply) < 64 {
		return diskPerformanceCounters{}, fmt.Errorf("DISK_PERFORMANCE reply of %d bytes, want at least 64", len(reply))
	}
	return diskPerformanceCounters{idle: int64(binary.LittleEndian.Uint64(reply[32:])),
		query: int64(binary.LittleEndian.Uint64(reply[56:]))}, nil
}

// busyPercent is the share of the time between two readings the disk was not idle. Counters
// that went back (a reset) give 0: no evidence of activity, as on Linux.
func busyPercent(before, after diskPerformanceCounters) float64 {
	elapsed := after.query - before.query
	idle := after.idle - before.idle
	if elapsed <= 0 || idle < 0 {
		return 0
	}
	return max(0, 100*float64(elapsed-min(idle, elapsed))/float64(elapsed))
}
