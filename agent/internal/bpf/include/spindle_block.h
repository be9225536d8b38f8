/* Shared helpers for Spindle's block-layer programs. They run at BTF tracepoints (tp_btf), whose
 * arguments are typed kernel pointers: fields are read with plain loads, relocated by CO-RE
 * (vmlinux.h marks every struct preserve_access_index), not with bpf_probe_read_kernel calls,
 * which cost a helper call each. One object file serves all 5.x/6.x layouts. */
#ifndef SPINDLE_BLOCK_H
#define SPINDLE_BLOCK_H

#include "vmlinux.h"
#include <bpf/bpf_core_read.h>

/* Operations as the kernel numbers them (REQ_OP_*, the low REQ_OP_BITS of cmd_flags / bi_opf).
 * Only these four are recorded; the agent names them. */
#define SPINDLE_OP_READ 0
#define SPINDLE_OP_WRITE 1
#define SPINDLE_OP_FLUSH 2
#define SPINDLE_OP_DISCARD 3
#define SPINDLE_REQ_OP_MASK 0xff

/* Kernels before 5.17 kept the disk in request->rq_disk, before 5.12 in bio->bi_disk. These
 * "flavoured" types let CO-RE test for the old fields; the suffix after ___ is ignored. */
struct request___old {
	struct gendisk *rq_disk;
} __attribute__((preserve_access_index));

struct bio___old {
	struct gendisk *bi_disk;
} __attribute__((preserve_access_index));

/* Device number as the kernel's MKDEV (major << 20 | minor); the agent maps it to a name with
 * /sys/block/<name>/dev. Whole disks only: a partition's I/O counts for its disk. */
static __always_inline __u32 disk_devt(struct gendisk *disk)
{
	if (!disk)
		return 0;
	return ((__u32)disk->major << 20) | (__u32)disk->first_minor;
}

static __always_inline struct gendisk *request_disk(struct request *rq)
{
	struct request___old *old = (void *)rq;

	if (bpf_core_field_exists(old->rq_disk))
		return old->rq_disk;
	return rq->q->disk;
}

static __always_inline struct gendisk *bio_disk(struct bio *bio)
{
	struct bio___old *old = (void *)bio;

	if (bpf_core_field_exists(old->bi_disk))
		return old->bi_disk;
	return bio->bi_bdev->bd_disk;
}

/* The operation of a request, or -1 for one Spindle does not record (zone commands,
 * write-zeroes, driver-private passthrough). */
static __always_inline int request_op(struct request *rq)
{
	__u32 op = rq->cmd_flags & SPINDLE_REQ_OP_MASK;

	return op <= SPINDLE_OP_DISCARD ? (int)op : -1;
}

#endif
