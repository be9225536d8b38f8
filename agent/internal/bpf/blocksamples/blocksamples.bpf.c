//go:build ignore

/* A sampled stream of block accesses for miss-ratio-curve estimation. Sampling is spatial, as
 * in SHARDS (Waldspurger et al., FAST '15): an I/O is kept when a hash of its disk and starting
 * 4 KiB block falls in 1/sample_every of the hash space, so every access to a sampled block is
 * kept and reuse distances survive sampling. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "spindle_block.h"

char LICENSE[] SEC("license") = "GPL";

/* Set by the agent before loading; 1 keeps every I/O. */
volatile const __u32 sample_every = 64;

struct block_sample {
	__u64 timestamp_ns; /* CLOCK_MONOTONIC (bpf_ktime_get_ns) at issue */
	__u64 sector;       /* 512-byte sector offset on the disk */
	__u32 dev;          /* MKDEV of the disk */
	__u32 bytes;
	__u32 op;
	__u32 pad;
};

/* Keeps struct block_sample in the object's BTF so bpf2go generates its Go twin. */
const struct block_sample *block_sample_type __attribute__((unused));

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 256 * 1024);
} samples SEC(".maps");

/* Samples the kernel could not hand over because the ring buffer was full. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} lost SEC(".maps");

/* The reader polls on a timer; wake it early only when the buffer is half full, so a busy disk
 * costs one wakeup per many samples instead of one per sample. */
#define WAKEUP_BYTES (128 * 1024)

static __always_inline __u64 mix64(__u64 x)
{
	/* splitmix64 finaliser: cheap, and good enough to spread sequential block numbers. */
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x;
}

SEC("tp_btf/block_rq_issue")
int BPF_PROG(block_rq_issue, struct request *rq)
{
	struct block_sample *s;
	__u64 sector, flags;
	__u32 dev, zero = 0;
	int op = request_op(rq);

	if (op < 0)
		return 0;
	dev = disk_devt(request_disk(rq));
	if (dev == 0)
		return 0;
	sector = BPF_CORE_READ(rq, __sector);
	if (sample_every > 1 && mix64(((__u64)dev << 44) ^ (sector >> 3)) % sample_every != 0)
		return 0;

	s = bpf_ringbuf_reserve(&samples, sizeof(*s), 0);
	if (!s) {
		__u64 *n = bpf_map_lookup_elem(&lost, &zero);

		if (n)
			(*n)++;
		return 0;
	}
	s->timestamp_ns = bpf_ktime_get_ns();
	s->sector = sector;
	s->dev = dev;
	s->bytes = BPF_CORE_READ(rq, __data_len);
	s->op = op;
	s->pad = 0;
	flags = bpf_ringbuf_query(&samples, BPF_RB_AVAIL_DATA) >= WAKEUP_BYTES ? BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP;
	bpf_ringbuf_submit(s, flags);
	return 0;
}
