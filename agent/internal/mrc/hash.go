package mrc

import "math"

// mix64 is the splitmix64 finaliser, the same one the kernel program applies
// (internal/bpf/include/spindle_mrc.h): a bijection that spreads consecutive page and block
// numbers over the whole 64-bit space.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// StratumKeys is the size of the aligned groups of consecutive keys (pages of a file, blocks of
// a disk) that the sampling hash stratifies: 1 / DefaultRate.
const StratumKeys = 100

// strataEnd is the first hash value no group's chosen key gets: chosen keys hash below it,
// every other key at or above it.
const strataEnd = math.MaxUint64/StratumKeys + 1

// stratifiedHash is the sampling hash of key index of the file or disk whose hash is base.
// Sampling keeps a key when its hash is below a threshold, at the rate threshold / 2^64; this
// hash makes that sample stratified: each aligned group of StratumKeys keys has one chosen key,
// picked by the group's hash, and at rates up to 1/StratumKeys only chosen keys are sampled, a
// group's chosen key when the rest of the group's hash (its rank, uniform below strataEnd) is
// below the threshold. Every key keeps exactly the rate's chance (1/StratumKeys to be chosen ×
// threshold/strataEnd for the rank), but a contiguous range of keys, a hot table or a loop, is
// sampled in exact proportion at 1 % instead of by the luck of independent draws, which is most
// of a 1 % curve's error on such streams (docs/benchmarks.md). Lowering the threshold, as
// fixed-size SHARDS does when the sample is full, drops whole groups by their rank: still
// spatially uniform, and the rate still exactly threshold / 2^64. Above 1/StratumKeys the other
// keys join by their own hash, spread uniformly over [strataEnd, 2^64), so each key's chance is
// still the rate (and at rate 1 every key is kept, as the exact curve needs).
func stratifiedHash(base, index uint64) uint64 {
	group := mix64(base ^ mix64(index/StratumKeys))
	if index%StratumKeys == group%StratumKeys {
		return group / StratumKeys
	}
	// own/StratumKeys ≤ strataEnd−1, so this maps [0, 2^64) onto [strataEnd−1, 2^64) evenly.
	own := mix64(base ^ index)
	return math.MaxUint64 - own + own/StratumKeys
}

// PageKeyHash is the sampling hash of one page-cache page: the file (superblock device, inode)
// and the page index in it.
func PageKeyHash(dev uint32, ino, index uint64) uint64 {
	return stratifiedHash(mix64(uint64(dev)<<32^ino), index)
}

// BlockKeyHash is the sampling hash of one block (BlockBytes) of a disk.
func BlockKeyHash(dev uint32, block uint64) uint64 {
	return stratifiedHash(mix64(uint64(dev)<<32^0xb10c), block)
}

// BlockBytes is the granularity of the block curves: a block I/O touches every 4 KiB block of
// its sector range, the unit a flash cache in front of the disk would hold.
const BlockBytes = 4096
