// SPDX-License-Identifier: GPL-2.0-only
/* model/sizing.c - how much crashkernel= a capture needs: the terms measured on its boot, and their sum (pure) */
#include "model/sizing.h"

#define SIZEOF_STRUCT_PAGE	64	/* the kernel's struct page (x86-64, arm64, s390x) */

uint64_t sizing_memmap_kib(uint64_t block_bytes, uint32_t page_size)
{
	if (!block_bytes || !page_size)
		return 0;
	return block_bytes / page_size * SIZEOF_STRUCT_PAGE / 1024;
}

uint32_t sizing_blocks_worst(uint64_t bytes, uint64_t block_bytes)
{
	if (!bytes || !block_bytes)
		return 0;
	return (uint32_t)((bytes - 1) / block_bytes + 2);
}

static uint64_t minus(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

void sizing_answer(const struct sizing *z, uint64_t boot_lost, struct sizing_answer *a)
{
	uint64_t run;

	*a = (struct sizing_answer){ 0 };
	if (z->blocks_worst > z->blocks)
		a->kaslr = (uint64_t)(z->blocks_worst - z->blocks) * z->memmap_kib;
	a->k = minus(z->ram_kib, z->total_kib) + a->kaslr;
	a->b = minus(z->start_need_kib, z->bootbuf_kib);
	a->t = z->self_at_max_kib;
	/*
	 * the run's peak above B, memtrace's own left out; sampled once the boot
	 * buffer was given back, so above B, not above the start (B + P + T is the
	 * highest need); what was given back of the start makes it 0, never less
	 */
	a->p = minus(minus(z->need_max_kib, z->self_at_max_kib), a->b);
	/* the boot buffer held: through the boot, and beside memtrace's own at its start */
	a->boot_peak = z->boot_extra_kib;
	a->u = z->bootbuf_kib + (z->boot_extra_kib > z->self_start_kib ? z->boot_extra_kib :
				 z->self_start_kib);
	a->w = z->min_free_kib + z->boost_kib;
	run = a->p + a->t;
	a->boot_sets = a->u > run;
	a->sum_kib = a->k + a->b + (a->boot_sets ? a->u : run) + a->w;
	a->mib = (uint32_t)((a->sum_kib + 1023) / 1024);
	if (!z->ram_kib) {
		a->lower = true;
		a->why = "/proc/iomem says no System RAM: the kernel's own not known";
	} else if (!z->boot_known) {
		a->lower = true;
		a->why = "no boot buffer: the boot's own peak (the initramfs unpacked) not measured; "
			 "boot with trace_event=kmem:mm_page_alloc,kmem:mm_page_free";
	} else if (!z->initrd_known) {
		a->lower = true;
		a->why = "the kernel log does not say the initramfs's size (Freeing initrd memory)";
	} else if (boot_lost) {
		a->lower = true;
		a->why = "the boot buffer lost its oldest events (trace_buf_size= too small): the "
			 "boot's peak may be low";
	} else if (z->boot_truncated) {
		a->lower = true;
		a->why = "the boot buffer was not read to its end (its page or time limit): the "
			 "boot's peak may be low";
	} else if (!z->memmap_kib) {
		a->lower = true;
		a->why = "no memory block size (/sys/devices/system/memory): the block's struct "
			 "pages that KASLR may add to the kernel's own not counted";
	} else if (!z->samples) {
		a->lower = true;
		a->why = "/proc/meminfo could not be read while tracing";
	}
}
