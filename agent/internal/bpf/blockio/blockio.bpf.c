//go:build ignore

/* The agent's block-layer programs, one per hook, so each block I/O runs at most one program at
 * issue and one at completion whatever collectors use them:
 *   block_rq_complete  adds issue-to-completion time to a log2 histogram per (disk, operation),
 *                      in a per-CPU array indexed by the disk's queue, and samples the request's
 *                      4 KiB blocks for the block miss-ratio curve (spindle_mrc.h);
 *   block_rq_issue     stamps issue times, only where the kernel does not (see issued_at): the
 *                      agent attaches it only when some disk needs it, so on most hosts a block
 *                      I/O runs one program;
 *   block_split        counts bios the block layer cut to fit the device's limits, per disk.
 * The agent switches the parts on as collectors start (switches) and attaches a hook only while
 * something uses it. The request is read once per program, with plain BTF loads. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "spindle_block.h"
#include "spindle_mrc.h"

char LICENSE[] SEC("license") = "GPL";

/* Set before loading by tests only: stamp every issue time here, as on kernels that do not. */
volatile const __u32 own_stamps = 0;
/* Set to 0 before loading on kernels without what the block sampling needs (bpf_loop: 5.17,
 * ring buffers: 5.8): the verifier then never sees that branch, so latency and split counts
 * still load there. */
volatile const __u32 with_mrc = 1;

/* Bits of switches[0]; the agent sets them (blockio.Feature). */
#define SWITCH_LATENCY 1
#define SWITCH_MRC 2

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} switches SEC(".maps");

/* Slot i counts latencies <= 2^i microseconds (and above the previous slot's bound); the last
 * slot counts everything above 2^(LATENCY_SLOTS-2) us (67 s). Upper-inclusive, like OTLP's
 * explicit bucket boundaries, so the agent exports the slots unchanged. */
#define LATENCY_SLOTS 28

struct latency_key {
	__u32 dev;
	__u32 op;
};

struct latency_hist {
	__u32 dev; /* the disk whose histogram this is (MKDEV); 0 while the slot is free */
	__u32 pad;
	__u64 slots[LATENCY_SLOTS];
	__u64 sum_ns;
};

/* Cumulative histograms, per CPU so completions on different CPUs never contend; the agent sums
 * the CPUs and takes deltas between reads. A disk's histograms live in a per-CPU array at
 * (disk slot, operation), the disk slot being its request queue's id (a small number the kernel
 * hands out densely, one per queue) modulo LATENCY_DISKS: an array lookup compiles to address
 * arithmetic, where a hash map costs a helper call, hashing and a bucket walk per I/O. Each CPU's
 * entry records its disk, claimed by the first completion that finds it free; a disk whose slot
 * another disk already holds on that CPU (ids that collide modulo LATENCY_DISKS, or a queue id
 * reused after a disk went away) is counted in latency_overflow, keyed by (disk, operation). */
#define LATENCY_DISKS 64 /* a power of two */
#define LATENCY_OPS 4    /* SPINDLE_OP_READ .. SPINDLE_OP_DISCARD */

/* LATENCY_DISKS - 1; tests set 0, so that every disk wants slot 0 and all but one overflow. */
volatile const __u32 latency_disk_mask = LATENCY_DISKS - 1;

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, LATENCY_DISKS * LATENCY_OPS);
	__type(key, __u32);
	__type(value, struct latency_hist);
} latency SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, 1024);
	__type(key, struct latency_key);
	__type(value, struct latency_hist);
} latency_overflow SEC(".maps");

/* Where the kernel keeps block statistics for a queue (QUEUE_FLAG_STATS: writeback throttling,
 * the default on most disks, and io.latency switch it on), it stamps each request's
 * io_start_time_ns right after block_rq_issue and marks it RQF_STATS: the completion reads that
 * stamp from the request it reads anyway, and the issue program does nothing for latency. The
 * kernel's clock reading may be shared by the requests of one plugged batch (blk_time_get_ns), so
 * a request's time can include the few microseconds the batch took to submit, as the kernel's
 * own latency statistics do.
 *
 * Elsewhere, issue times of requests in flight go to an open-addressed table in a preallocated
 * array, indexed by a hash of the request's address and probed ISSUED_PROBES slots deep. Array
 * lookups compile to address arithmetic, where a hash map costs helper calls, a bucket lock and
 * an allocation per I/O. Requests come from per-queue pools
 * that the kernel reuses, so a slot whose completion was never seen (a request issued before
 * the program was attached, or requeued) is found again by the same request's next issue; a
 * request that finds its probes all busy is counted in untracked instead of measured. Slots are
 * claimed with plain stores, not compare-and-swap (BPF atomics need 5.12, and this path is the
 * one older kernels take): two CPUs issuing requests of the same hash in the same instant can
 * both claim a slot, and the loser's I/O goes unmeasured. */
#define ISSUED_SLOTS 16384 /* a power of two */
#define ISSUED_PROBES 4

struct issued_slot {
	__u64 rq;
	__u64 at_ns;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, ISSUED_SLOTS);
	__type(key, __u32);
	__type(value, struct issued_slot);
} issued SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} untracked SEC(".maps");

/* Completions of requests with no issue time at all (the kernel did not stamp them and neither
 * did block_rq_issue: it was not attached, or attached after they were issued), per CPU. The
 * agent attaches block_rq_issue when this moves (blockio.User.KeepTiming). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} unstamped SEC(".maps");

/* Cumulative split count per disk (MKDEV), per CPU. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, __u64);
} splits SEC(".maps");

/* One u64 per CPU to turn the request's address into a plain number: the verifier forbids
 * arithmetic on a kernel pointer, but a value read back from a map is a scalar. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} scratch SEC(".maps");

static __always_inline bool request_id(struct request *rq, __u64 *id)
{
	__u32 zero = 0;
	volatile __u64 *s = bpf_map_lookup_elem(&scratch, &zero);

	if (!s)
		return false;
	*s = (__u64)rq;
	*id = *s;
	return true;
}

static __always_inline __u32 issued_hash(__u64 rq)
{
	/* Fibonacci hashing: requests are a few hundred bytes apart, the top bits spread them. */
	return (__u32)((rq * 0x9E3779B97F4A7C15ULL) >> 50);
}

static __always_inline __u32 log2_u32(__u32 v)
{
	__u32 r, shift;

	r = (v > 0xFFFF) << 4;
	v >>= r;
	shift = (v > 0xFF) << 3;
	v >>= shift;
	r |= shift;
	shift = (v > 0xF) << 2;
	v >>= shift;
	r |= shift;
	shift = (v > 0x3) << 1;
	v >>= shift;
	r |= shift;
	r |= (v >> 1);
	return r;
}

static __always_inline __u32 log2_u64(__u64 v)
{
	__u32 hi = v >> 32;

	return hi ? log2_u32(hi) + 32 : log2_u32((__u32)v);
}

/* The smallest i with latency <= 2^i us, i.e. ceil(ns / 1000) <= 2^i, i.e. ns <= 1000 * 2^i,
 * found without a division (a DIV per I/O costs more than the rest of the arithmetic): with
 * k = ceil(log2(ns)), 1000 * 2^(k-11) < 2^(k-1) < ns <= 2^k < 1000 * 2^(k-9), so i is k-10 or
 * k-9 and one comparison tells which. */
static __always_inline __u64 latency_slot(__u64 ns)
{
	/* 64-bit throughout: with 32-bit values the compiler bounds-checks a zero-extended copy and
	 * indexes with the original, which the verifier cannot follow. */
	__u64 k, slot;

	if (ns <= 1000)
		return 0;
	k = log2_u64(ns - 1) + 1;
	slot = k >= 10 ? k - 10 : 0;
	if (ns > (1000ULL << slot))
		slot++;
	return slot < LATENCY_SLOTS ? slot : LATENCY_SLOTS - 1;
}

static __always_inline void stamp_issue(__u64 rq)
{
	__u32 h = issued_hash(rq), zero = 0;
	__u64 now = bpf_ktime_get_ns();
	struct issued_slot *s;
	__u64 *n;

	for (int i = 0; i < ISSUED_PROBES; i++) {
		__u32 idx = (h + i) & (ISSUED_SLOTS - 1);
		__u64 was;

		s = bpf_map_lookup_elem(&issued, &idx);
		if (!s)
			return;
		was = s->rq;
		if (was == 0 || was == rq) {
			s->rq = rq;
			s->at_ns = now;
			return;
		}
	}
	n = bpf_map_lookup_elem(&untracked, &zero);
	if (n)
		(*n)++;
}

/* take_issue returns the request's issue time and frees its slot, or 0 when it has none. */
static __always_inline __u64 take_issue(__u64 rq)
{
	__u32 h = issued_hash(rq);

	for (int i = 0; i < ISSUED_PROBES; i++) {
		__u32 idx = (h + i) & (ISSUED_SLOTS - 1);
		struct issued_slot *s = bpf_map_lookup_elem(&issued, &idx);
		__u64 at;

		if (!s)
			return 0;
		if (s->rq != rq)
			continue;
		at = s->at_ns;
		s->at_ns = 0;
		s->rq = 0; /* release the slot after reading it */
		return at;
	}
	return 0;
}

/* RQF_STATS as an enum (recent kernels); older kernels have it as a macro whose bit moved between
 * versions, so there the agent always stamps issue times itself. */
static __always_inline bool kernel_stamps_known(void)
{
	return !own_stamps && bpf_core_enum_value_exists(enum rqf_flags, __RQF_STATS);
}

/* kernel_stamps says whether the kernel will stamp this request's start: QUEUE_FLAG_STATS, which
 * the kernel sets exactly while the queue's statistics have a callback (writeback throttling,
 * io.latency) or accounting users. Read from q->stats because QUEUE_FLAG_STATS is an anonymous
 * enum CO-RE cannot relocate. */
static __always_inline bool kernel_stamps(struct request *rq)
{
	struct blk_queue_stats *stats;

	if (!kernel_stamps_known())
		return false;
	stats = rq->q->stats;
	if (!stats)
		return false;
	if (bpf_core_field_exists(stats->accounting) && stats->accounting > 0)
		return true;
	return (__u64)stats->callbacks.next != (__u64)&stats->callbacks;
}

/* never_issued says whether the request completes without having been issued: a flush the block
 * layer answers without sending it to the device (an empty flush while another is in flight),
 * which block_rq_issue never sees and the kernel never stamps, on any disk. */
static __always_inline bool never_issued(struct request *rq)
{
	return bpf_core_field_exists(rq->state) && rq->state == MQ_RQ_IDLE;
}

/* The issue time of a completing request: the kernel's stamp, or the one stamp_issue made, or 0
 * (counted in unstamped when the request was issued). */
static __always_inline __u64 issued_at(struct request *rq)
{
	__u32 zero = 0;
	__u64 id, at, *n;

	if (kernel_stamps_known() && (rq->rq_flags & (1U << bpf_core_enum_value(enum rqf_flags, __RQF_STATS))))
		return rq->io_start_time_ns;
	at = request_id(rq, &id) ? take_issue(id) : 0;
	if (!at && !never_issued(rq)) {
		n = bpf_map_lookup_elem(&unstamped, &zero);
		if (n)
			(*n)++;
	}
	return at;
}

static __always_inline __u32 switched_on(void)
{
	__u32 zero = 0, *sw = bpf_map_lookup_elem(&switches, &zero);

	return sw ? *sw : 0;
}

/* The agent attaches this only while latency is on and some disk's requests go unstamped by the
 * kernel; the queue check is the kernel's own condition for stamping, read before it stamps. */
SEC("tp_btf/block_rq_issue")
int BPF_PROG(block_rq_issue, struct request *rq)
{
	__u64 id;

	if (request_op(rq) >= 0 && !kernel_stamps(rq) && request_id(rq, &id))
		stamp_issue(id);
	return 0;
}

/* latency_of finds the histogram of (dev, op): its slot in the array, or the overflow hash. */
static __always_inline struct latency_hist *latency_of(struct request *rq, __u32 dev, int op)
{
	__u32 idx = ((__u32)rq->q->id & latency_disk_mask) * LATENCY_OPS + op;
	struct latency_key lk = {.dev = dev, .op = op};
	struct latency_hist *hist = bpf_map_lookup_elem(&latency, &idx);

	if (!hist)
		return NULL;
	if (hist->dev == dev)
		return hist;
	if (hist->dev == 0) {
		/* Per CPU, and a program never runs nested in itself on one CPU: no other writer. */
		hist->dev = dev;
		return hist;
	}
	hist = bpf_map_lookup_elem(&latency_overflow, &lk);
	if (!hist) {
		struct latency_hist zero = {.dev = dev};

		bpf_map_update_elem(&latency_overflow, &lk, &zero, BPF_NOEXIST);
		hist = bpf_map_lookup_elem(&latency_overflow, &lk);
	}
	return hist;
}

static __always_inline void record_latency(struct request *rq, __u32 dev, int op)
{
	__u64 start = issued_at(rq), delta;
	struct latency_hist *hist;

	if (!start)
		return; /* issued before latency was switched on, or not stamped at all */
	delta = bpf_ktime_get_ns() - start;
	hist = latency_of(rq, dev, op);
	if (!hist)
		return;
	hist->slots[latency_slot(delta)]++;
	hist->sum_ns += delta;
}

/* The blocks are sampled as they complete rather than as they are issued: the request's position
 * and the bytes this completion covers are still in place (the kernel advances them after the
 * tracepoint; a request completed in parts is sampled part by part, each block once), and one
 * hook then serves both features. Completion order differs from issue order only within the
 * queue's depth, which moves no reuse distance the curve's grain can see. */
static __always_inline void sample_blocks(struct request *rq, __u32 dev, __u32 bytes)
{
	__u64 sector = rq->__sector, first, last;

	if (bytes == 0)
		return;
	first = sector >> 3;
	last = (sector + (bytes >> 9) - 1) >> 3;
	mrc_sample_run(STREAM_BLOCK, dev, 0, mix64(((__u64)dev << 32) ^ 0xb10c), first, last - first + 1);
}

SEC("tp_btf/block_rq_complete")
int BPF_PROG(block_rq_complete, struct request *rq, int error, unsigned int nr_bytes)
{
	__u32 sw = switched_on(), dev;
	int op = request_op(rq);

	if (op < 0)
		return 0;
	dev = disk_devt(request_disk(rq));
	if (dev == 0)
		return 0;
	if (with_mrc && (sw & SWITCH_MRC) && op <= SPINDLE_OP_WRITE)
		sample_blocks(rq, dev, nr_bytes);
	if (sw & SWITCH_LATENCY)
		record_latency(rq, dev, op);
	return 0;
}

SEC("tp_btf/block_split")
int BPF_PROG(block_split, struct bio *bio, unsigned int new_sector)
{
	__u32 dev = disk_devt(bio_disk(bio));
	__u64 *count;

	if (dev == 0)
		return 0;
	count = bpf_map_lookup_elem(&splits, &dev);
	if (!count) {
		__u64 one = 1;

		bpf_map_update_elem(&splits, &dev, &one, BPF_NOEXIST);
		return 0;
	}
	(*count)++;
	return 0;
}
