//go:build ignore

/* Spatially hashed samples of the page-cache and block access streams, for miss-ratio curves
 * (fixed-size SHARDS, Waldspurger et al., FAST 2015). Each access key is hashed:
 *   page cache  (device, inode, page index) for every page a read() asks for
 *               (mm_filemap_get_pages, each page of a call once) and every page fault on a file
 *               mapping (mm_filemap_fault);
 *   block       (device, 4 KiB block) for every block of a read or write request as it is issued
 *               to the disk (block_rq_issue).
 * An access whose hash is below its stream's threshold goes to user space through a ring buffer;
 * every access to a sampled key is kept, so reuse distances survive sampling. The agent lowers
 * the thresholds as its bounded samples fill (the thresholds map), and reads the total number of
 * accesses per stream (accesses) to correct the sample's size. The hash is the agent's
 * mrc.PageKeyHash / mrc.BlockKeyHash: splitmix64, bit for bit. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "spindle_block.h"

char LICENSE[] SEC("license") = "GPL";

/* Set by the agent before loading (os.Getpagesize): 12 on 4 KiB-page kernels. */
volatile const __u32 page_shift = 12;
/* When not zero, sample only this process (tgid): what a test needs on a busy host. */
volatile const __u32 only_tgid = 0;

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

/* Keeps struct mrc_sample in the object's BTF so bpf2go generates its Go twin. */
const struct mrc_sample *mrc_sample_type __attribute__((unused));

/* Per stream: keep accesses whose hash is below this. Starts at 0 (nothing) until the agent
 * writes the first threshold, so a loaded but unconfigured program costs only the hash. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, STREAM_COUNT);
	__type(key, __u32);
	__type(value, __u64);
} thresholds SEC(".maps");

/* Per stream: every access seen (pages, blocks), sampled or not. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, STREAM_COUNT);
	__type(key, __u32);
	__type(value, __u64);
} accesses SEC(".maps");

/* Per stream: samples the kernel could not hand over because the ring buffer was full. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, STREAM_COUNT);
	__type(key, __u32);
	__type(value, __u64);
} lost SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 512 * 1024);
} samples SEC(".maps");

/* The reader polls on a timer; wake it early only when the buffer is half full. */
#define WAKEUP_BYTES (256 * 1024)

/* filemap_read calls filemap_get_pages once per batch of folios, each time with the range from
 * the current position to the end of the request; remember per thread how far the current
 * request was sampled so a page counts once (as the pagecache program does). */
struct read_progress {
	__u64 mapping;
	__u64 last_index;
	__u64 counted_to;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 8192);
	__type(key, __u64);
	__type(value, struct read_progress);
} progress SEC(".maps");

static __always_inline __u64 mix64(__u64 x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x;
}

struct run {
	__u64 base;      /* the key's hash before the index is mixed in */
	__u64 first;     /* the first index of the run */
	__u64 threshold;
	__u64 ino;
	__u32 dev;
	__u32 stream;
};

static __always_inline void emit(struct run *r, __u64 index, __u64 hash)
{
	struct mrc_sample s = {
		.hash = hash, .ino = r->ino, .index = index, .dev = r->dev, .stream = r->stream,
	};
	__u64 flags = bpf_ringbuf_query(&samples, BPF_RB_AVAIL_DATA) >= WAKEUP_BYTES ? BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP;

	if (bpf_ringbuf_output(&samples, &s, sizeof(s), flags)) {
		__u32 key = r->stream;
		__u64 *n = bpf_map_lookup_elem(&lost, &key);

		if (n)
			(*n)++;
	}
}

static long sample_one(__u64 i, void *ctx)
{
	struct run *r = ctx;
	__u64 index = r->first + i;
	__u64 hash = mix64(r->base ^ index);

	if (hash < r->threshold)
		emit(r, index, hash);
	return 0;
}

/* sample_run hashes keys first .. first+count-1 of one file or disk. */
static __always_inline void sample_run(__u32 stream, __u32 dev, __u64 ino, __u64 base, __u64 first, __u64 count)
{
	__u32 key = stream;
	__u64 *threshold, *n;
	struct run r = {.base = base, .first = first, .ino = ino, .dev = dev, .stream = stream};

	if (count == 0)
		return;
	if (count > MAX_KEYS_PER_EVENT)
		count = MAX_KEYS_PER_EVENT;
	n = bpf_map_lookup_elem(&accesses, &key);
	if (n)
		*n += count;
	threshold = bpf_map_lookup_elem(&thresholds, &key);
	if (!threshold || *threshold == 0)
		return;
	r.threshold = *threshold;
	bpf_loop(count, sample_one, &r, 0);
}

static __always_inline bool skip_process(void)
{
	return only_tgid && (bpf_get_current_pid_tgid() >> 32) != only_tgid;
}

static __always_inline void sample_pages(struct address_space *mapping, __u64 first, __u64 count)
{
	struct inode *host = BPF_CORE_READ(mapping, host);
	__u64 ino;
	__u32 dev;

	if (!host)
		return;
	ino = BPF_CORE_READ(host, i_ino);
	dev = BPF_CORE_READ(host, i_sb, s_dev);
	sample_run(STREAM_PAGE_CACHE, dev, ino, mix64(((__u64)dev << 32) ^ ino), first, count);
}

SEC("tp_btf/mm_filemap_get_pages")
int BPF_PROG(read_pages, struct address_space *mapping, unsigned long index, unsigned long last_index)
{
	__u64 tid = bpf_get_current_pid_tgid();
	__u64 size, last, from = index;
	struct read_progress *p, next = {};
	bool same;

	if (skip_process())
		return 0;
	size = BPF_CORE_READ(mapping, host, i_size);
	if (size == 0)
		return 0;
	last = (size - 1) >> page_shift;
	if (last > last_index)
		last = last_index;
	p = bpf_map_lookup_elem(&progress, &tid);
	same = p && p->mapping == (__u64)mapping && p->last_index == last_index && index <= p->counted_to;
	if (same)
		from = p->counted_to + 1;
	if (last >= from)
		sample_pages(mapping, from, last - from + 1);
	next.mapping = (__u64)mapping;
	next.last_index = last_index;
	next.counted_to = (same && p->counted_to > last) ? p->counted_to : last;
	bpf_map_update_elem(&progress, &tid, &next, BPF_ANY);
	return 0;
}

SEC("tp_btf/mm_filemap_fault")
int BPF_PROG(fault, struct address_space *mapping, unsigned long index)
{
	if (skip_process())
		return 0;
	sample_pages(mapping, index, 1);
	return 0;
}

SEC("tp_btf/block_rq_issue")
int BPF_PROG(block_rq_issue, struct request *rq)
{
	int op = request_op(rq);
	__u64 sector, bytes, first, last;
	__u32 dev;

	/* No process filter here: requests are often issued from a kworker, not the reader. */
	if (op != SPINDLE_OP_READ && op != SPINDLE_OP_WRITE)
		return 0;
	dev = disk_devt(request_disk(rq));
	bytes = BPF_CORE_READ(rq, __data_len);
	if (dev == 0 || bytes == 0)
		return 0;
	sector = BPF_CORE_READ(rq, __sector);
	first = sector >> 3;
	last = (sector + (bytes >> 9) - 1) >> 3;
	sample_run(STREAM_BLOCK, dev, 0, mix64(((__u64)dev << 32) ^ 0xb10c), first, last - first + 1);
	return 0;
}
