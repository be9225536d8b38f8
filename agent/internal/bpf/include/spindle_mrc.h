/* The miss-ratio-curve sampler's kernel half, shared by the programs that feed it: mrcsample.bpf.c
 * (page-cache accesses) and blockio.bpf.c (block accesses, at the one block_rq_issue program).
 * Both objects declare the same maps; the agent creates them once, with blockio, and hands them
 * to mrcsample at load, so the streams share one ring buffer and one set of counters.
 *
 * Sampling is spatial (fixed-size SHARDS, Waldspurger et al., FAST 2015): an access key is
 * hashed and kept when the hash is below its stream's threshold, so every access to a sampled
 * key is kept and reuse distances survive sampling. The hash is the agent's mrc.PageKeyHash /
 * mrc.BlockKeyHash (splitmix64, stratified over aligned groups of keys: mrc_sample_one), bit
 * for bit. */
#ifndef SPINDLE_MRC_H
#define SPINDLE_MRC_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#define STREAM_PAGE_CACHE 0
#define STREAM_BLOCK 1
#define STREAM_COUNT 2

/* Keys hashed per event at most: a 4 MiB read or request. Larger ones are rare (readahead and
 * the block layer split them) and are sampled on their first 4 MiB. */
#define MAX_KEYS_PER_EVENT 1024

struct mrc_sample {
	__u64 hash;
	__u64 ino;   /* page cache: the inode; block: 0 */
	__u64 index; /* page cache: the page index in the file; block: the 4 KiB block on the disk */
	__u32 dev;   /* page cache: the superblock's s_dev; block: the disk; both MKDEV */
	__u32 stream;
};

/* Per stream: keep accesses whose hash is below this. Starts at 0 (nothing) until the agent
 * writes the first threshold, so a loaded but unconfigured program costs only the count. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, STREAM_COUNT);
	__type(key, __u32);
	__type(value, __u64);
} mrc_thresholds SEC(".maps");

/* Per stream: every access seen (pages, blocks), sampled or not. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, STREAM_COUNT);
	__type(key, __u32);
	__type(value, __u64);
} mrc_accesses SEC(".maps");

/* Per stream: samples the kernel could not hand over because the ring buffer was full. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, STREAM_COUNT);
	__type(key, __u32);
	__type(value, __u64);
} mrc_lost SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 512 * 1024);
} mrc_samples SEC(".maps");

/* The reader polls on a timer; wake it early only when the buffer is half full. */
#define MRC_WAKEUP_BYTES (256 * 1024)

static __always_inline __u64 mix64(__u64 x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x;
}

struct mrc_run {
	__u64 base;      /* the key's hash before the index is mixed in */
	__u64 first;     /* the first index of the run */
	__u64 threshold;
	__u64 ino;
	__u32 dev;
	__u32 stream;
};

static __always_inline void mrc_emit(struct mrc_run *r, __u64 index, __u64 hash)
{
	struct mrc_sample s = {
		.hash = hash, .ino = r->ino, .index = index, .dev = r->dev, .stream = r->stream,
	};
	__u64 flags = bpf_ringbuf_query(&mrc_samples, BPF_RB_AVAIL_DATA) >= MRC_WAKEUP_BYTES ? BPF_RB_FORCE_WAKEUP
											     : BPF_RB_NO_WAKEUP;

	if (bpf_ringbuf_output(&mrc_samples, &s, sizeof(s), flags)) {
		__u32 key = r->stream;
		__u64 *n = bpf_map_lookup_elem(&mrc_lost, &key);

		if (n)
			(*n)++;
	}
}

/* The agent's mrc.StratumKeys: keys are sampled one per aligned group of this many (see
 * mrc_sample_one). */
#define MRC_STRATUM_KEYS 100ULL
/* The first hash no group's chosen key gets: U64_MAX / MRC_STRATUM_KEYS + 1. */
#define MRC_STRATA_END (0xffffffffffffffffULL / MRC_STRATUM_KEYS + 1)

/* x / MRC_STRATUM_KEYS, exactly, for every 64-bit x, without a division: BPF has no multiply-high
 * and the JIT turns each division into a DIV instruction with register shuffling around it, three
 * per key here. x / 100 = (x / 4) / 25, and for y < 2^62, y / 25 = mulhi(y, ceil(2^66 / 25)) / 4
 * (the rounding error of the constant, 2^66 / 25 * 0.0000000000000000016, stays below 1 / y);
 * the 64 x 64 -> 128 multiply-high is done in 32-bit halves. */
static __always_inline __u64 mrc_div_keys(__u64 x)
{
	const __u64 m = 0x28f5c28f5c28f5c3ULL, m_lo = m & 0xffffffff, m_hi = m >> 32;
	__u64 y = x >> 2, y_lo = y & 0xffffffff, y_hi = y >> 32;
	__u64 lolo = y_lo * m_lo, hilo = y_hi * m_lo, lohi = y_lo * m_hi;
	__u64 cross = (lolo >> 32) + (hilo & 0xffffffff) + (lohi & 0xffffffff);

	return (y_hi * m_hi + (hilo >> 32) + (lohi >> 32) + (cross >> 32)) >> 2;
}

/* One key's hash is mrc.stratifiedHash, bit for bit: each aligned group of MRC_STRATUM_KEYS keys
 * has one chosen key, picked by the group's hash and hashed below MRC_STRATA_END to the rest of
 * it; every other key hashes to its own hash spread over MRC_STRATA_END - 1 and above. At rates
 * up to 1 % only chosen keys are sampled, so a contiguous range of pages or blocks is sampled in
 * exact proportion while every key keeps the rate's chance, and lowering the threshold drops
 * whole groups by their hash. */
static __always_inline long mrc_sample_key(__u64 i, struct mrc_run *r)
{
	__u64 index = r->first + i, index_group = mrc_div_keys(index);
	__u64 group = mix64(r->base ^ mix64(index_group)), group_rank = mrc_div_keys(group), hash;

	if (index - index_group * MRC_STRATUM_KEYS == group - group_rank * MRC_STRATUM_KEYS) {
		hash = group_rank;
	} else {
		__u64 own;

		/* Below MRC_STRATA_END no other key can be sampled: skip its own hash. */
		if (r->threshold < MRC_STRATA_END)
			return 0;
		own = mix64(r->base ^ index);
		hash = 0xffffffffffffffffULL - own + mrc_div_keys(own);
	}
	if (hash < r->threshold)
		mrc_emit(r, index, hash);
	return 0;
}

/* The bpf_loop callback; a run of one key calls mrc_sample_key in line instead. */
static long mrc_sample_one(__u64 i, void *ctx)
{
	return mrc_sample_key(i, ctx);
}

/* mrc_sample_run counts keys first .. first+count-1 of one file or disk and hands over those
 * whose hash falls below the stream's threshold. A run of one key (a 4 KiB block I/O, a page
 * fault) is hashed in line; longer ones go through bpf_loop. */
static __always_inline void mrc_sample_run(__u32 stream, __u32 dev, __u64 ino, __u64 base, __u64 first, __u64 count)
{
	__u32 key = stream;
	__u64 *threshold, *n;
	struct mrc_run r = {.base = base, .first = first, .ino = ino, .dev = dev, .stream = stream};

	if (count == 0)
		return;
	if (count > MAX_KEYS_PER_EVENT)
		count = MAX_KEYS_PER_EVENT;
	n = bpf_map_lookup_elem(&mrc_accesses, &key);
	if (n)
		*n += count;
	threshold = bpf_map_lookup_elem(&mrc_thresholds, &key);
	if (!threshold || *threshold == 0)
		return;
	r.threshold = *threshold;
	if (count == 1)
		mrc_sample_key(0, &r);
	else
		bpf_loop(count, mrc_sample_one, &r, 0);
}

#endif
