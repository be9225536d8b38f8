package fiemap

import (
	"encoding/binary"
	"fmt"
)

// Windows maps a file's clusters with FSCTL_GET_RETRIEVAL_POINTERS, whose reply is a
// RETRIEVAL_POINTERS_BUFFER (winioctl.h), little-endian:
//
//	DWORD ExtentCount; (4 bytes padding) LARGE_INTEGER StartingVcn;
//	struct { LARGE_INTEGER NextVcn; LARGE_INTEGER Lcn; } Extents[ExtentCount];
//
// Extent i covers the virtual clusters from the previous NextVcn (StartingVcn for the first) up
// to its own NextVcn, on disk from cluster Lcn. Lcn −1 marks clusters with no disk space (a
// sparse hole, or the unallocated part of a compressed unit). The parsing is here, apart from
// the syscall (fiemap_windows.go), so it is tested and fuzzed on every OS.
const (
	retrievalHeaderBytes = 16
	retrievalExtentBytes = 16
	noLCN                = -1
)

// consumeRetrievalPointers feeds one reply to counter, in clusters (the counting rule only
// compares positions, so the unit does not matter), and returns the VCN the next request starts
// at. Extents starting at or after endVCN are not counted (space reserved past the end of the
// file; math.MaxInt64 counts all). It trusts nothing: a count beyond the buffer, or VCNs that do not advance, are errors
// rather than a panic or a loop.
func consumeRetrievalPointers(counter *Counter, reply []byte, endVCN int64) (nextVCN int64, err error) {
	if len(reply) < retrievalHeaderBytes {
		return 0, fmt.Errorf("retrieval pointers reply of %d bytes, shorter than its header", len(reply))
	}
	count := binary.LittleEndian.Uint32(reply[0:])
	vcn := int64(binary.LittleEndian.Uint64(reply[8:]))
	if uint64(count) > uint64(len(reply)-retrievalHeaderBytes)/retrievalExtentBytes {
		return 0, fmt.Errorf("retrieval pointers reply claims %d extents in %d bytes", count, len(reply))
	}
	if vcn < 0 {
		return 0, fmt.Errorf("retrieval pointers reply starts at negative cluster %d", vcn)
	}
	for i := range int(count) {
		at := retrievalHeaderBytes + i*retrievalExtentBytes
		next := int64(binary.LittleEndian.Uint64(reply[at:]))
		lcn := int64(binary.LittleEndian.Uint64(reply[at+8:]))
		if next <= vcn {
			return 0, fmt.Errorf("extent %d ends at cluster %d, not after %d", i, next, vcn)
		}
		if lcn != noLCN && vcn < endVCN {
			if lcn < 0 {
				return 0, fmt.Errorf("extent %d at negative disk cluster %d", i, lcn)
			}
			counter.Add(Extent{Logical: uint64(vcn), Physical: uint64(lcn), Length: uint64(next - vcn)})
		}
		vcn = next
	}
	return vcn, nil
}
