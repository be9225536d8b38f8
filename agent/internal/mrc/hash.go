package mrc

// mix64 is the splitmix64 finaliser, the same one the kernel program applies
// (internal/bpf/mrcsample/mrcsample.bpf.c): a bijection that spreads consecutive page and block
// numbers over the whole 64-bit space, so "hash below threshold" keeps a uniform spatial sample.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// PageKeyHash is the sampling hash of one page-cache page: the file (superblock device, inode)
// and the page index in it.
func PageKeyHash(dev uint32, ino, index uint64) uint64 {
	return mix64(mix64(uint64(dev)<<32^ino) ^ index)
}

// BlockKeyHash is the sampling hash of one block (BlockBytes) of a disk.
func BlockKeyHash(dev uint32, block uint64) uint64 {
	return mix64(mix64(uint64(dev)<<32^0xb10c) ^ block)
}

// BlockBytes is the granularity of the block curves: a block I/O touches every 4 KiB block of
// its sector range, the unit a flash cache in front of the disk would hold.
const BlockBytes = 4096
