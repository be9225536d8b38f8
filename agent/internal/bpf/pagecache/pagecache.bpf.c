//go:build ignore

/* Page-cache accesses and misses, system-wide, from the filemap tracepoints (kernel 6.10 and
 * newer), in pages:
 *   read      pages requested through read() and friends (mm_filemap_get_pages), each page of a
 *             call counted once and clamped to the file size;
 *   faulted   page faults on file mappings (mm_filemap_fault), one page each;
 *   added     pages that entered the cache (mm_filemap_add_to_page_cache);
 *   dirtied   pages that became dirty (writeback_dirty_folio).
 * The agent derives accesses = read + faulted and misses = added - dirtied (a page added to be
 * written was not a read miss), the cachestat correction, so hit ratio = 1 - misses/accesses.
 * The same four counts are kept per file (device and inode of the mapping's host) in a bounded
 * LRU hash, so the agent can name the files that use the cache most with the same formula.
 * For the files the read cache manages, the counts are also split into its control group and the
 * rest, and what the read cache's own thread did is counted apart (spindle_holdout.h). */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "spindle_file.h"
#include "spindle_holdout.h"

char LICENSE[] SEC("license") = "GPL";

/* Set by the agent before loading (os.Getpagesize): 12 on 4 KiB-page kernels. */
volatile const __u32 page_shift = 12;
/* When not zero, count only this process (tgid): what a test or a per-workload view needs on a
 * busy host. The agent's system-wide counts leave it at zero. */
volatile const __u32 only_tgid = 0;

enum page_cache_event {
	EVENT_READ = 0,
	EVENT_FAULTED = 1,
	EVENT_ADDED = 2,
	EVENT_DIRTIED = 3,
	EVENT_COUNT = 4,
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, EVENT_COUNT);
	__type(key, __u32);
	__type(value, __u64);
} counts SEC(".maps");

/* Per-file counts: the least recently updated file is evicted when the map is full, which drops
 * files that are not being read, never the busy ones the agent reports. */
#define MAX_FILES 10240

struct file_key {
	__u32 dev; /* the superblock's s_dev, kernel encoding (major << 20 | minor) */
	__u32 pad;
	__u64 ino;
};

struct file_counts {
	__u64 n[EVENT_COUNT];
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, MAX_FILES);
	__type(key, struct file_key);
	__type(value, struct file_counts);
} files SEC(".maps");

READ_PROGRESS_MAP(progress);

static __always_inline void add_file(__u32 event, struct address_space *mapping, __u64 pages)
{
	struct file_key key = {};
	struct file_counts *c, zero = {};

	if (!mapping_file(mapping, &key.dev, &key.ino))
		return;
	c = bpf_map_lookup_elem(&files, &key);
	if (!c) {
		bpf_map_update_elem(&files, &key, &zero, BPF_NOEXIST);
		c = bpf_map_lookup_elem(&files, &key);
		if (!c)
			return;
	}
	if (event < EVENT_COUNT)
		__sync_fetch_and_add(&c->n[event], pages);
}

static __always_inline bool counted_process(void)
{
	return !only_tgid || (bpf_get_current_pid_tgid() >> 32) == only_tgid;
}

/* add counts pages [first, first + pages) system-wide, for the file behind mapping, and by
 * group for the files the read cache manages. */
static __always_inline void add(__u32 event, struct address_space *mapping, __u64 first, __u64 pages)
{
	__u64 *n;

	if (!counted_process())
		return;
	n = bpf_map_lookup_elem(&counts, &event);

	if (n)
		*n += pages;
	add_file(event, mapping, pages);
	holdout_count(event, mapping, first, pages);
}

SEC("tp_btf/mm_filemap_get_pages")
int BPF_PROG(read_pages, struct address_space *mapping, unsigned long index, unsigned long last_index)
{
	__u64 first, count = read_new_pages(&progress, mapping, index, last_index, page_shift, &first);

	if (count)
		add(EVENT_READ, mapping, first, count);
	return 0;
}

SEC("tp_btf/mm_filemap_fault")
int BPF_PROG(fault, struct address_space *mapping, unsigned long index)
{
	add(EVENT_FAULTED, mapping, index, 1);
	return 0;
}

SEC("tp_btf/mm_filemap_add_to_page_cache")
int BPF_PROG(page_added, struct folio *folio)
{
	add(EVENT_ADDED, folio->mapping, folio->index, folio_pages(folio));
	return 0;
}

SEC("tp_btf/writeback_dirty_folio")
int BPF_PROG(page_dirtied, struct folio *folio, struct address_space *mapping)
{
	add(EVENT_DIRTIED, mapping, folio->index, folio_pages(folio));
	return 0;
}

/* Only the read cache's marks need evictions: a page it brought in and lost is no witness. */
SEC("tp_btf/mm_filemap_delete_from_page_cache")
int BPF_PROG(page_deleted, struct folio *folio)
{
	holdout_evicted(folio->mapping, folio->index, folio_pages(folio));
	return 0;
}
