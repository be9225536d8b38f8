//go:build ignore

/* Spatially hashed samples of the page-cache access stream, for miss-ratio curves (fixed-size
 * SHARDS, spindle_mrc.h): each access key (device, inode, page index) is hashed for every page a
 * read() asks for (mm_filemap_get_pages, each page of a call once) and every page fault on a file
 * mapping (mm_filemap_fault). The block stream, (device, 4 KiB block) of every read or write
 * request issued to a disk, is sampled by the shared block_rq_issue program (blockio.bpf.c) into
 * the same maps: the agent creates them with the block programs and passes them to this object.
 * An access whose hash is below its stream's threshold goes to user space through the ring
 * buffer; the agent lowers the thresholds as its bounded samples fill, and reads the total number
 * of accesses per stream to correct the sample's size. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "spindle_file.h"
#include "spindle_mrc.h"

char LICENSE[] SEC("license") = "GPL";

/* Set by the agent before loading (os.Getpagesize): 12 on 4 KiB-page kernels. */
volatile const __u32 page_shift = 12;
/* When not zero, sample only this process (tgid): what a test needs on a busy host. */
volatile const __u32 only_tgid = 0;

/* Keeps struct mrc_sample in the object's BTF so bpf2go generates its Go twin. */
const struct mrc_sample *mrc_sample_type __attribute__((unused));

READ_PROGRESS_MAP(progress);

static __always_inline bool skip_process(void)
{
	return only_tgid && (bpf_get_current_pid_tgid() >> 32) != only_tgid;
}

static __always_inline void sample_pages(struct address_space *mapping, __u64 first, __u64 count)
{
	__u64 ino;
	__u32 dev;

	if (!mapping_file(mapping, &dev, &ino))
		return;
	mrc_sample_run(STREAM_PAGE_CACHE, dev, ino, mix64(((__u64)dev << 32) ^ ino), first, count);
}

SEC("tp_btf/mm_filemap_get_pages")
int BPF_PROG(read_pages, struct address_space *mapping, unsigned long index, unsigned long last_index)
{
	__u64 first, count;

	if (skip_process())
		return 0;
	count = read_new_pages(&progress, mapping, index, last_index, page_shift, &first);
	if (count)
		sample_pages(mapping, first, count);
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
