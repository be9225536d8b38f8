/* What the page-cache programs (pagecache.bpf.c, mrcsample.bpf.c) share: naming the file behind
 * an address_space (device, inode) the way the agent's FileID and mrc.PageKeyHash do, the pages
 * of a folio, and the per-thread progress that makes each page of a read() count once. Programs
 * run at BTF tracepoints, so fields are plain CO-RE-relocated loads. */
#ifndef SPINDLE_FILE_H
#define SPINDLE_FILE_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

/* mapping_file names the file behind mapping: the superblock's s_dev (kernel encoding,
 * major << 20 | minor) and the inode number. False for a mapping without a host. */
static __always_inline bool mapping_file(struct address_space *mapping, __u32 *dev, __u64 *ino)
{
	struct inode *host;

	if (!mapping)
		return false;
	host = mapping->host;
	if (!host)
		return false;
	*ino = host->i_ino;
	*dev = host->i_sb->s_dev;
	return true;
}

/* folio_nr_pages(): 1 unless the folio is large (PG_head), then 2^order from _flags_1. */
static __always_inline __u64 folio_pages(struct folio *folio)
{
	unsigned long flags = 0, flags1 = 0;

	bpf_probe_read_kernel(&flags, sizeof(flags), __builtin_preserve_access_index(&folio->flags));
	if (!(flags & (1UL << bpf_core_enum_value(enum pageflags, PG_head))))
		return 1;
	bpf_probe_read_kernel(&flags1, sizeof(flags1), __builtin_preserve_access_index(&folio->_flags_1));
	return 1ULL << (flags1 & 0xff);
}

/* filemap_read calls filemap_get_pages once per batch of up to 31 folios, each time with the
 * range from the current position to the end of the request; a program remembers per thread
 * how far the current request was counted (in a map of its own, keyed by pid_tgid) so a page
 * counts once. */
struct read_progress {
	__u64 mapping;
	__u64 last_index;
	__u64 counted_to;
};

#define READ_PROGRESS_MAP(name)                                                                    \
	struct {                                                                                   \
		__uint(type, BPF_MAP_TYPE_LRU_HASH);                                               \
		__uint(max_entries, 8192);                                                         \
		__type(key, __u64);                                                                \
		__type(value, struct read_progress);                                               \
	} name SEC(".maps")

/* read_new_pages returns how many pages of index..last_index (clamped to the file's size) this
 * thread's current read has not counted yet, from *first on, and records them as counted. */
static __always_inline __u64 read_new_pages(void *progress, struct address_space *mapping, __u64 index,
					    __u64 last_index, __u32 page_shift, __u64 *first)
{
	__u64 tid = bpf_get_current_pid_tgid();
	__u64 size = mapping->host->i_size;
	__u64 last, from = index;
	struct read_progress *p, next = {};
	bool same;

	if (size == 0)
		return 0;
	last = (size - 1) >> page_shift;
	if (last > last_index)
		last = last_index;
	p = bpf_map_lookup_elem(progress, &tid);
	same = p && p->mapping == (__u64)mapping && p->last_index == last_index && index <= p->counted_to;
	if (same)
		from = p->counted_to + 1;
	next.mapping = (__u64)mapping;
	next.last_index = last_index;
	next.counted_to = (same && p->counted_to > last) ? p->counted_to : last;
	bpf_map_update_elem(progress, &tid, &next, BPF_ANY);
	*first = from;
	return last >= from ? last - from + 1 : 0;
}

#endif
