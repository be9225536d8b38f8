//go:build ignore

/* Split I/O: how often the block layer had to cut a bio because it exceeded the device's
 * limits (max_sectors_kb, segment counts, boundaries), per disk. Many splits mean the
 * application or file system issues I/Os larger than the device accepts in one piece. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "spindle_block.h"

char LICENSE[] SEC("license") = "GPL";

/* Cumulative split count per disk (MKDEV), per CPU; the agent sums CPUs and takes deltas. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, __u64);
} splits SEC(".maps");

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
