//go:build ignore

/* Block I/O latency: a log2 histogram per (device, operation) of the time from issue to the
 * device until completion, aggregated in the kernel so the agent reads a few hundred counters
 * per interval whatever the IOPS. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "spindle_block.h"

char LICENSE[] SEC("license") = "GPL";

/* Slot i counts latencies <= 2^i microseconds (and above the previous slot's bound); the last
 * slot counts everything above 2^(LATENCY_SLOTS-2) us (67 s). Upper-inclusive, like OTLP's
 * explicit bucket boundaries, so the agent exports the slots unchanged. */
#define LATENCY_SLOTS 28

struct latency_key {
	__u32 dev;
	__u32 op;
};

struct latency_hist {
	__u64 slots[LATENCY_SLOTS];
	__u64 sum_ns;
};

/* Issue time per in-flight request. LRU so a request whose completion we never see (issued
 * before a driver reset, say) is evicted instead of filling the map. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u64);
	__type(value, __u64);
} issued_at SEC(".maps");

/* Cumulative histograms; per CPU so completions on different CPUs never contend. The agent
 * sums the CPUs and takes deltas between reads. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, 1024);
	__type(key, struct latency_key);
	__type(value, struct latency_hist);
} latency SEC(".maps");

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

/* The smallest i with latency <= 2^i us: with us = ceil(ns / 1000) that is ceil(log2(us)). */
static __always_inline __u32 latency_slot(__u64 ns)
{
	__u64 us = (ns + 999) / 1000;
	__u32 slot;

	if (us <= 1)
		return 0;
	slot = log2_u64(us - 1) + 1;
	return slot < LATENCY_SLOTS ? slot : LATENCY_SLOTS - 1;
}

SEC("tp_btf/block_rq_issue")
int BPF_PROG(block_rq_issue, struct request *rq)
{
	__u64 key = (__u64)rq;
	__u64 now = bpf_ktime_get_ns();

	if (request_op(rq) < 0)
		return 0;
	bpf_map_update_elem(&issued_at, &key, &now, BPF_ANY);
	return 0;
}

SEC("tp_btf/block_rq_complete")
int BPF_PROG(block_rq_complete, struct request *rq, int error, unsigned int nr_bytes)
{
	__u64 key = (__u64)rq;
	__u64 *start = bpf_map_lookup_elem(&issued_at, &key);
	struct latency_key lk = {};
	struct latency_hist *hist;
	__u64 delta;
	int op;

	if (!start)
		return 0; /* issued before we attached, or not an operation we record */
	delta = bpf_ktime_get_ns() - *start;
	bpf_map_delete_elem(&issued_at, &key);

	op = request_op(rq);
	lk.dev = disk_devt(request_disk(rq));
	if (op < 0 || lk.dev == 0)
		return 0;
	lk.op = op;

	hist = bpf_map_lookup_elem(&latency, &lk);
	if (!hist) {
		static const struct latency_hist zero = {};

		bpf_map_update_elem(&latency, &lk, &zero, BPF_NOEXIST);
		hist = bpf_map_lookup_elem(&latency, &lk);
		if (!hist)
			return 0;
	}
	hist->slots[latency_slot(delta)]++;
	hist->sum_ns += delta;
	return 0;
}
