package readcache

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"

	"github.com/spindle-io/spindle/agent/internal/policy"
)

// The control group (policy readCache.holdoutPercent, docs/gains.md "Read cache: what it
// caused"): the cache leaves a hash-drawn share of the managed pages alone, so the page-cache
// eBPF program can count what happens to them beside what happens to the pages the cache
// manages. The unit is a page group of HoldoutGroupBytes, not a file: a database keeps its hot
// set in a few large files, and a file-level draw would put all of it on one side. A group is the
// largest page-cache folio (2 MiB on x86-64 and arm64 with 4 KiB pages) so no folio straddles
// the control and the managed pages: the kernel evicts, locks and reads ahead whole folios, and a
// folio half in the control could neither be dropped behind a scanner nor left alone. A group is
// in the control when
//
//	mix(mix(mix(salt ^ kernelDev) ^ inode) ^ group) >> 32  <  percent × 2³² / 100
//
// with mix the splitmix64 step. The same function runs in the kernel
// (internal/bpf/pagecache/pagecache.bpf.c); salt comes from the policy, so every policy version
// draws anew and a restart with the same policy keeps the draw. Selection never looks at heat.

// HoldoutGroupBytes is the size of a page group, aligned within the file: the page cache's
// largest folio with 4 KiB pages (HPAGE_PMD_SIZE), so every folio lies in one group. (With larger
// pages, folios can be larger; the kernel still counts their pages group by group.)
const HoldoutGroupBytes = 2 << 20

// FileKey names a file as stat(2) does: its file system's device number (userspace encoding)
// and its inode.
type FileKey struct {
	Dev uint64
	Ino uint64
}

// Holdout is one policy version's draw of the control group. The zero value holds nothing out.
type Holdout struct {
	Salt uint64
	// Threshold: a group whose hash's upper 32 bits are below it is in the control.
	Threshold uint32
	Percent   int64
}

// NewHoldout draws the control group of an applied policy: the salt is the first 8 bytes
// (little-endian) of the SHA-256 of the policy as the agent holds it (every default applied).
func NewHoldout(p policy.Policy) Holdout {
	encoded, err := json.Marshal(p)
	if err != nil {
		panic("readcache: a policy always encodes: " + err.Error())
	}
	sum := sha256.Sum256(encoded)
	return holdoutOf(binary.LittleEndian.Uint64(sum[:8]), p.ReadCache.HoldoutPercent)
}

func holdoutOf(salt uint64, percent int64) Holdout {
	percent = min(max(percent, 0), 100)
	threshold := uint64(percent) << 32 / 100
	return Holdout{Salt: salt, Threshold: uint32(min(threshold, 1<<32-1)), Percent: percent}
}

// Active says whether any group is held out.
func (h Holdout) Active() bool { return h.Threshold > 0 }

// splitmix64 is one step of Steele, Lea and Flood's SplitMix64: a 64-bit mix in which every
// input bit moves every output bit.
func splitmix64(z uint64) uint64 {
	z += 0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// kernelDev is the kernel's encoding of a device number (major << 20 | minor, a superblock's
// s_dev), from stat(2)'s userspace encoding (glibc's gnu_dev_major and gnu_dev_minor).
func kernelDev(dev uint64) uint32 {
	major := uint32((dev>>8)&0xfff) | uint32((dev>>32)&^0xfff)
	minor := uint32(dev&0xff) | uint32((dev>>12)&^0xff)
	return major<<20 | minor
}

// groupHash is the page group's hash under the draw: the control takes its upper 32 bits, the
// bucket a further mix of it.
func (h Holdout) groupHash(file FileKey, group uint64) uint64 {
	x := splitmix64(h.Salt ^ uint64(kernelDev(file.Dev)))
	x = splitmix64(x ^ file.Ino)
	return splitmix64(x ^ group)
}

// Control says whether the group-th page group of file is in the control.
func (h Holdout) Control(file FileKey, group uint64) bool {
	if h.Threshold == 0 {
		return false
	}
	return uint32(h.groupHash(file, group)>>32) < h.Threshold
}

// HoldoutBuckets is how many hash buckets the managed page groups are counted in, both groups
// apart (spindle_holdout.h): each bucket is a random sixteenth of the groups with its own share of
// the control, so the spread between buckets shows how much the draw moves the estimate
// (docs/gains.md). 16 gives the interval's t quantile 15 degrees of freedom (2.13 against the
// normal's 1.96) for 64 small series per interval.
const HoldoutBuckets = 16

// holdoutBucketSalt separates the bucket hash from the draw's (spindle_holdout.h HOLDOUT_BUCKET_SALT).
const holdoutBucketSalt = 0x5851f42d4c957f2d

// Bucket is the group-th page group's bucket: the top 4 bits of a further SplitMix64 step of its
// hash, so which bucket a group lies in says nothing of whether it is in the control.
func (h Holdout) Bucket(file FileKey, group uint64) int {
	return int(splitmix64(h.groupHash(file, group)^holdoutBucketSalt) >> 60)
}

// controlGroups is one file's draw: bit g set when group g is in the control.
type controlGroups struct {
	bits   []uint64
	groups int64
	count  int64 // groups set
}

// drawGroups draws the control groups of a file of sizeBytes.
func (h Holdout) drawGroups(file FileKey, sizeBytes int64) controlGroups {
	groups := (sizeBytes + HoldoutGroupBytes - 1) / HoldoutGroupBytes
	c := controlGroups{groups: groups}
	if !h.Active() || groups == 0 {
		return c
	}
	c.bits = make([]uint64, (groups+63)/64)
	for g := int64(0); g < groups; g++ {
		if h.Control(file, uint64(g)) {
			c.bits[g/64] |= 1 << (g % 64)
			c.count++
		}
	}
	return c
}

func (c controlGroups) has(group int64) bool {
	return group >= 0 && group < c.groups && c.bits != nil && c.bits[group/64]&(1<<(group%64)) != 0
}

// managedRuns splits [offset, offset+length) into the byte ranges outside the control groups,
// in order, adjacent ones merged.
func (c controlGroups) managedRuns(offset, length int64) [][2]int64 {
	end := offset + length
	if c.count == 0 {
		if length <= 0 {
			return nil
		}
		return [][2]int64{{offset, length}}
	}
	var runs [][2]int64
	for at := offset; at < end; {
		group := at / HoldoutGroupBytes
		next := min(end, (group+1)*HoldoutGroupBytes)
		if !c.has(group) {
			if n := len(runs); n > 0 && runs[n-1][0]+runs[n-1][1] == at {
				runs[n-1][1] += next - at
			} else {
				runs = append(runs, [2]int64{at, next - at})
			}
		}
		at = next
	}
	return runs
}

// controlPage says whether a page (of pageSize bytes) lies in a control group.
func (c controlGroups) controlPage(page, pageSize int64) bool {
	return c.count > 0 && c.has(page*pageSize/HoldoutGroupBytes)
}
