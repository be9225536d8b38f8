/* The read cache's control group, counted in the kernel (pagecache.bpf.c; docs/gains.md "Read
 * cache: what it caused"). The agent lists the files its read cache manages in holdout_files and
 * writes the draw into holdout_config; for those files every page-cache event is split by page
 * group into the control (the groups the cache leaves alone) and the managed rest, and the read
 * cache's own thread (cache_tid, set while it samples) is counted apart: the pages it brings in,
 * marked page by page in holdout_loaded, and the first access of another thread to each of them
 * while it stays resident.
 *
 * A group is in the control when mix(mix(mix(salt ^ dev) ^ ino) ^ group) >> 32 < threshold,
 * mix being the SplitMix64 step: readcache.Holdout.Control in the agent, bit for bit.
 *
 * Both groups' events are also counted per hash bucket of page groups (holdout_buckets): a group
 * with hash h lies in bucket mix(h ^ HOLDOUT_BUCKET_SALT) >> 60, a second hash independent of the
 * draw (readcache.Holdout.Bucket). Each bucket is a random sixteenth of the page groups with its
 * own share of the control, so the console can tell, from the spread between buckets, how much
 * the draw itself moves the comparison (docs/gains.md). */
#ifndef SPINDLE_HOLDOUT_H
#define SPINDLE_HOLDOUT_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

/* Groups walked per event at most: 32 GiB of a read at 2 MiB groups. Beyond, pages count as
 * managed (a read() that large is rare; the control's share is then slightly understated). */
#define HOLDOUT_MAX_GROUPS 16384
/* Marks are kept in words of 64 pages; a read walks at most this many words (1 GiB of 4 KiB
 * pages): first hits beyond are not counted, which keeps the direct witness a lower bound. */
#define HOLDOUT_MAX_WORDS 4096
#define HOLDOUT_WORD_SHIFT 6
/* 16 buckets: 15 degrees of freedom for the interval's t quantile (2.13 against 1.96), 1 KiB of
 * counters per CPU, and 64 small series per interval on the wire. */
#define HOLDOUT_BUCKET_BITS 4
#define HOLDOUT_BUCKETS (1 << HOLDOUT_BUCKET_BITS)
#define HOLDOUT_BUCKET_SALT 0x5851f42d4c957f2dULL

struct holdout_config {
	__u64 salt;
	__u32 threshold;   /* a group whose hash's upper 32 bits are below this is in the control */
	__u32 group_shift; /* pages per group: 1 << group_shift */
	__u32 cache_tid;   /* the read cache's thread while it samples, 0 otherwise */
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct holdout_config);
} holdout_config SEC(".maps");

struct holdout_file {
	__u32 dev; /* the superblock's s_dev, kernel encoding */
	__u32 pad;
	__u64 ino;
};

/* Cumulative since the agent listed the file, in pages. managed and control count the events of
 * every thread but the cache's, in the page-cache order: read, faulted, added, dirtied. */
struct holdout_counts {
	__u64 managed[4];
	__u64 control[4];
	__u64 own_added; /* pages the cache's thread brought into the page cache */
	__u64 own_hits;  /* first accesses by other threads to those pages while resident */
};

/* Only the agent adds entries (the files its read cache manages); the programs update them. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 131072);
	__type(key, struct holdout_file);
	__type(value, struct holdout_counts);
} holdout_files SEC(".maps");

struct holdout_word_key {
	struct holdout_file file;
	__u64 word; /* page index >> HOLDOUT_WORD_SHIFT */
};

/* Per bucket of page groups, cumulative since load, in pages, in the page-cache event order; the
 * cache's own thread is not counted, as in holdout_counts. Groups beyond HOLDOUT_MAX_GROUPS of one
 * event are in no bucket (the buckets' sum is then slightly below the files'). */
struct holdout_bucket_counts {
	__u64 managed[4];
	__u64 control[4];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, HOLDOUT_BUCKETS);
	__type(key, __u32);
	__type(value, struct holdout_bucket_counts);
} holdout_buckets SEC(".maps");

/* Pages the cache brought in and nobody has read since, one bit each. An LRU: when it is full
 * the oldest words go, and their first hits are not counted (a lower bound stays one). */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, struct holdout_word_key);
	__type(value, __u64);
} holdout_loaded SEC(".maps");

static __always_inline __u64 holdout_mix(__u64 z)
{
	z += 0x9e3779b97f4a7c15ULL;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static __always_inline __u64 holdout_popcount(__u64 x)
{
	x = x - ((x >> 1) & 0x5555555555555555ULL);
	x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
	x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
	return (x * 0x0101010101010101ULL) >> 56;
}

/* The pages [first, end) within the span of bits [lo, hi) of a word starting at page base. */
static __always_inline __u64 holdout_word_mask(__u64 base, __u64 first, __u64 end)
{
	__u64 lo = first > base ? first - base : 0, hi = end - base < 64 ? end - base : 64;

	if (hi <= lo)
		return 0;
	return (hi - lo == 64 ? ~0ULL : ((1ULL << (hi - lo)) - 1)) << lo;
}

struct holdout_walk {
	__u64 base;  /* the file's hash before the group is mixed in; for words: unused */
	__u64 first; /* pages [first, end) */
	__u64 end;
	__u64 start; /* the first group (or word) */
	__u64 result;
	struct holdout_file file;
	__u32 shift;
	__u32 threshold;
	__u32 event; /* for the buckets: 0 read, 1 faulted, 2 added, 3 dirtied */
	__u32 pad;
};

static long holdout_group(__u64 i, void *ctx)
{
	struct holdout_walk *w = ctx;
	__u64 group = w->start + i, lo = group << w->shift, hi = (group + 1) << w->shift, hash;
	struct holdout_bucket_counts *b;
	__u32 bucket;
	bool control;

	if (lo < w->first)
		lo = w->first;
	if (hi > w->end)
		hi = w->end;
	if (hi <= lo)
		return 1;
	hash = holdout_mix(w->base ^ group);
	control = (hash >> 32) < w->threshold;
	if (control)
		w->result += hi - lo;
	bucket = holdout_mix(hash ^ HOLDOUT_BUCKET_SALT) >> (64 - HOLDOUT_BUCKET_BITS);
	b = bpf_map_lookup_elem(&holdout_buckets, &bucket);
	if (b) {
		if (control)
			b->control[w->event & 3] += hi - lo;
		else
			b->managed[w->event & 3] += hi - lo;
	}
	return 0;
}

/* How many of pages [first, first + count) of the file lie in control groups; each group's pages
 * are added to its bucket's counts of the event on the way. */
static __always_inline __u64 holdout_control_pages(struct holdout_config *cfg, struct holdout_file *file, __u32 event,
						   __u64 first, __u64 count)
{
	struct holdout_walk w = {.first = first, .end = first + count, .shift = cfg->group_shift & 63,
				 .threshold = cfg->threshold, .event = event, .file = *file};
	__u64 groups;

	if (cfg->threshold == 0 || count == 0)
		return 0;
	w.base = holdout_mix(holdout_mix(cfg->salt ^ file->dev) ^ file->ino);
	w.start = first >> w.shift;
	groups = ((w.end - 1) >> w.shift) - w.start + 1;
	if (groups == 1)
		holdout_group(0, &w);
	else
		bpf_loop(groups < HOLDOUT_MAX_GROUPS ? groups : HOLDOUT_MAX_GROUPS, holdout_group, &w, 0);
	return w.result;
}

static long holdout_mark_word(__u64 i, void *ctx)
{
	struct holdout_walk *w = ctx;
	struct holdout_word_key key = {.file = w->file, .word = w->start + i};
	__u64 mask = holdout_word_mask(key.word << HOLDOUT_WORD_SHIFT, w->first, w->end), *bits;

	if (!mask)
		return 1;
	bits = bpf_map_lookup_elem(&holdout_loaded, &key);
	if (bits) {
		__sync_fetch_and_or(bits, mask);
		return 0;
	}
	bpf_map_update_elem(&holdout_loaded, &key, &mask, BPF_NOEXIST);
	bits = bpf_map_lookup_elem(&holdout_loaded, &key); /* another CPU may have made it first */
	if (bits)
		__sync_fetch_and_or(bits, mask);
	return 0;
}

/* clear: a word's bits for pages [first, end) go; result counts how many were set. */
static long holdout_clear_word(__u64 i, void *ctx)
{
	struct holdout_walk *w = ctx;
	struct holdout_word_key key = {.file = w->file, .word = w->start + i};
	__u64 mask = holdout_word_mask(key.word << HOLDOUT_WORD_SHIFT, w->first, w->end), *bits;

	if (!mask)
		return 1;
	bits = bpf_map_lookup_elem(&holdout_loaded, &key);
	if (bits && (*bits & mask))
		w->result += holdout_popcount(__sync_fetch_and_and(bits, ~mask) & mask);
	return 0;
}

/* Marks pages [first, first + count) as brought in by the cache (set) or clears them and
 * returns how many were marked. */
static __always_inline __u64 holdout_marks(struct holdout_file *file, __u64 first, __u64 count, bool set)
{
	struct holdout_walk w = {.first = first, .end = first + count, .file = *file};
	__u64 words;

	if (count == 0)
		return 0;
	w.start = first >> HOLDOUT_WORD_SHIFT;
	words = ((w.end - 1) >> HOLDOUT_WORD_SHIFT) - w.start + 1;
	if (words > HOLDOUT_MAX_WORDS)
		words = HOLDOUT_MAX_WORDS;
	if (set)
		bpf_loop(words, holdout_mark_word, &w, 0);
	else
		bpf_loop(words, holdout_clear_word, &w, 0);
	return w.result;
}

/* holdout_count splits one page-cache event on pages [first, first + count) of a managed file
 * (event: 0 read, 1 faulted, 2 added, 3 dirtied). */
static __always_inline void holdout_count(__u32 event, struct address_space *mapping, __u64 first, __u64 count)
{
	struct holdout_file file = {};
	struct holdout_counts *c;
	struct holdout_config *cfg;
	__u32 zero = 0;
	__u64 control;

	if (count == 0 || event > 3 || !mapping_file(mapping, &file.dev, &file.ino))
		return;
	c = bpf_map_lookup_elem(&holdout_files, &file);
	if (!c)
		return;
	cfg = bpf_map_lookup_elem(&holdout_config, &zero);
	if (!cfg)
		return;
	if (cfg->cache_tid && (__u32)bpf_get_current_pid_tgid() == cfg->cache_tid) {
		/* The cache's own reads and faults (pinning) are neither group's accesses. */
		if (event == 2) {
			__sync_fetch_and_add(&c->own_added, count);
			holdout_marks(&file, first, count, true);
		}
		return;
	}
	control = holdout_control_pages(cfg, &file, event, first, count);
	if (control > count)
		control = count;
	__sync_fetch_and_add(&c->control[event & 3], control);
	__sync_fetch_and_add(&c->managed[event & 3], count - control);
	if (event <= 1 && c->own_added)
		__sync_fetch_and_add(&c->own_hits, holdout_marks(&file, first, count, false));
}

/* holdout_evicted forgets the cache's marks on pages that left the page cache: a page the cache
 * brought in and the kernel then evicted no longer stands for a read it spared. */
static __always_inline void holdout_evicted(struct address_space *mapping, __u64 first, __u64 count)
{
	struct holdout_file file = {};
	struct holdout_counts *c;

	if (!mapping_file(mapping, &file.dev, &file.ino))
		return;
	c = bpf_map_lookup_elem(&holdout_files, &file);
	if (c && c->own_added)
		holdout_marks(&file, first, count, false);
}

#endif
