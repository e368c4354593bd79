// SPDX-License-Identifier: GPL-2.0
/*
 * pktdedup: the allocations the memory caps govern (filters, source
 * windows, top-talker summaries, new-source filters and rings), and what
 * each takes from the allocator, to the byte, so that the budget charges
 * what is really held.
 *
 * kvmalloc() would not do: above 8 KiB its kmalloc path takes a power of
 * two of pages (384 KiB of sketches take 512 KiB, 544 KiB take 1 MiB), and
 * its vmalloc fallback another size (page-granular, or in 2 MiB units
 * with huge pages), depending on fragmentation. Here the path is chosen by
 * size alone, each with a size that does not depend on the moment:
 *
 *  - up to KMALLOC_MAX_CACHE_SIZE (8 KiB): a slab object,
 *    kmalloc_size_roundup() bytes;
 *  - up to KMALLOC_MAX_SIZE (4 MiB): exactly PAGE_ALIGN(size) of pages on
 *    the node asked for (a block of the next order, split, its tail given
 *    back, as alloc_pages_exact_nid() does): in the kernel's direct map,
 *    whose huge pages keep the packet path's TLB misses where kmalloc's
 *    were. Should no such block be free, vmalloc() takes the same pages
 *    (on any node: the kernel exports no vmalloc() on a node with these
 *    flags), plus its array of page pointers (8 bytes a page), the one
 *    thing not charged (pd_mem_taken() counts it, and the docs' slack);
 *  - above: vmalloc() with huge pages (kvmalloc_node()'s), of size rounded
 *    up to 2 MiB, so that the huge pages and their 4 KiB fallback take
 *    the same; with its array of page pointers, itself a vmalloc() or a
 *    slab object.
 *
 * alloc_percpu() takes its size once per possible CPU.
 *
 * Every allocation is PD_GFP: charged to the memory cgroup of the task
 * that asks (or the one set_active_memcg() names), failing rather than
 * invoking the OOM killer. pd_mem_taken() sums what each allocation took
 * as it was made (a slab object's ksize(), the pages kept, a vmalloc()
 * area's pages and page array as vmalloc() sizes them), whichever path
 * it took: /proc's mem_total_allocated, which the tests compare with
 * the budget.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "pktdedup.h"

/* Above this, huge vmalloc pages: sizes in their unit. */
#define PD_MEM_HUGE PMD_SIZE

static atomic64_t pd_mem_now = ATOMIC64_INIT(0);

/* The page-pointer array vmalloc() keeps for an area of that many pages. */
static u64 pd_vm_array_bytes(u64 pages)
{
	u64 array = pages * sizeof(struct page *);

	if (array <= PAGE_SIZE)
		return kmalloc_size_roundup(array);
	/* itself a vmalloc() of small pages */
	return PAGE_ALIGN(array) + pd_vm_array_bytes(PAGE_ALIGN(array) >>
						      PAGE_SHIFT);
}

/* The size pd_mem_zalloc() asks vmalloc() for, above KMALLOC_MAX_SIZE. */
static size_t pd_mem_huge_size(size_t size)
{
	return ALIGN(size, PD_MEM_HUGE);
}

u64 pd_mem_size(size_t size)
{
	if (!size)
		return 0;
	if (size <= KMALLOC_MAX_CACHE_SIZE)
		return kmalloc_size_roundup(size);
	if (size <= KMALLOC_MAX_SIZE)
		return PAGE_ALIGN(size);
	size = pd_mem_huge_size(size);
	return size + pd_vm_array_bytes(size >> PAGE_SHIFT);
}

/* Exactly PAGE_ALIGN(size) of zeroed pages on node, or NULL. */
static void *pd_pages_exact(size_t size, int node)
{
	unsigned int order = get_order(size);
	unsigned long nr = DIV_ROUND_UP(size, PAGE_SIZE), i;
	struct page *page;

	page = alloc_pages_node(node, (PD_GFP | __GFP_ZERO) & ~__GFP_COMP,
				order);
	if (!page)
		return NULL;
	split_page(page, order);
	for (i = nr; i < (1UL << order); i++)
		__free_page(page + i);
	return page_address(page);
}

/* What a vmalloc()ed area holds: its pages and its page-pointer array. */
static u64 pd_vm_taken(size_t size)
{
	return PAGE_ALIGN(size) + pd_vm_array_bytes(PAGE_ALIGN(size) >>
						     PAGE_SHIFT);
}

void *pd_mem_zalloc(size_t size, int node)
{
	u64 taken;
	void *p;

	if (!size)
		return NULL;
	if (size <= KMALLOC_MAX_CACHE_SIZE) {
		p = kzalloc_node(size, PD_GFP, node);
		taken = p ? ksize(p) : 0;
	} else if (size <= KMALLOC_MAX_SIZE) {
		p = pd_pages_exact(size, node);
		taken = PAGE_ALIGN(size);
		if (!p) {	/* no free block of that order: the same pages */
			p = __vmalloc(size, PD_GFP | __GFP_ZERO);
			taken = pd_vm_taken(size);
		}
	} else {
		/* kmalloc() refuses this size: vmalloc(), huge pages if it can */
		size = pd_mem_huge_size(size);
		p = kvmalloc_node(size, PD_GFP | __GFP_ZERO, node);
		taken = pd_vm_taken(size);
	}
	if (p)
		atomic64_add(taken, &pd_mem_now);
	return p;
}

void pd_mem_free(void *p, size_t size)
{
	if (!p)
		return;
	if (size <= KMALLOC_MAX_CACHE_SIZE) {
		atomic64_sub(ksize(p), &pd_mem_now);
		kfree(p);
	} else if (is_vmalloc_addr(p)) {
		if (size > KMALLOC_MAX_SIZE)
			size = pd_mem_huge_size(size);
		atomic64_sub(pd_vm_taken(size), &pd_mem_now);
		vfree(p);
	} else {
		atomic64_sub(PAGE_ALIGN(size), &pd_mem_now);
		free_pages_exact(p, size);
	}
}

u64 pd_percpu_size(size_t size)
{
	return (u64)size * num_possible_cpus();
}

void __percpu *pd_percpu_zalloc(size_t size, size_t align)
{
	void __percpu *p = __alloc_percpu_gfp(size, align, PD_GFP);

	if (p)
		atomic64_add(pd_percpu_size(size), &pd_mem_now);
	return p;
}

void pd_percpu_free(void __percpu *p, size_t size)
{
	if (!p)
		return;
	atomic64_sub(pd_percpu_size(size), &pd_mem_now);
	free_percpu(p);
}

u64 pd_mem_taken(void)
{
	return atomic64_read(&pd_mem_now);
}
