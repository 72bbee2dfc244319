// SPDX-License-Identifier: GPL-2.0-only
/* output/crashkernel.c - the crashkernel= answer of a capture kernel's report: its line, its JSON */
#include "output/crashkernel.h"

#include <inttypes.h>
#include <stdio.h>

#include "output/rows.h"

static double mib(uint64_t kib)
{
	return (double)kib / 1024;
}

bool crashkernel_line(char *buf, size_t size, const struct run *r)
{
	const struct sizing *z = &r->sz;
	struct sizing_answer a;
	char kaslr[48] = "", mid[160], other[160] = "", tail[320] = "";
	int n;

	if (!z->on)
		return false;
	sizing_answer(z, r->meta.boot.lost + r->meta.boot.lost_unknown, &a);
	if (a.kaslr)
		snprintf(kaslr, sizeof(kaslr), " (%.1f of it where KASLR may place it)", mib(a.kaslr));
	/* the larger of the boot's own peak and the run's goes into the sum, the other is said */
	if (a.boot_sets) {
		snprintf(mid, sizeof(mid), "the boot's own peak above that (the initramfs unpacked, "
			 "the boot buffer) %.1f", mib(a.u));
		snprintf(other, sizeof(other), "; the run's peak that cannot be reclaimed %.1f + "
			 "memtrace itself %.1f is less", mib(a.p), mib(a.t));
	} else {
		snprintf(mid, sizeof(mid), "peak that cannot be reclaimed %.1f + memtrace itself %.1f",
			 mib(a.p), mib(a.t));
		if (z->boot_known)
			snprintf(other, sizeof(other), "; the boot's own peak above the start (the "
				 "initramfs unpacked, the boot buffer) %.1f is less", mib(a.u));
	}
	if (a.lower)
		snprintf(tail, sizeof(tail), "; a lower bound: %s", a.why);
	n = snprintf(buf, size, "crashkernel: at least %u MiB for this kernel, initramfs and dump "
		     "target (kernel %.1f%s + before memtrace %.1f + %s + the kernel's free-memory "
		     "reserve %.1f MiB, rounded up%s%s)", a.mib, mib(a.k), kaslr, mib(a.b), mid,
		     mib(a.w), other, tail);
	return n > 0 && (size_t)n < size;
}

/*
 * The sample that set the peak that cannot be reclaimed, its /proc/meminfo parts:
 * what was in use then and the clean page cache left out of it (the file LRU less
 * what is dirty, under writeback, and the mapped pages kept: of Mapped, as many as
 * Unevictable and Shmem could hold, proc_mem_mapped_kept_kib()), and beside it what
 * else reclaim could or could not take (tmpfs, ramfs and mlocked pages, reclaimable
 * slab).
 */
bool crashkernel_sample_line(char *buf, size_t size, const struct run *r)
{
	const struct sizing *z = &r->sz;
	const struct sizing_sample *t = &z->top;
	int n;

	if (!z->on || !z->samples)
		return false;
	n = snprintf(buf, size, "peak that cannot be reclaimed, its /proc/meminfo at %.3f s: in use "
		     "%.1f MiB, less clean page cache %.1f (file LRU %.1f less dirty %.1f, writeback "
		     "%.1f, mapped kept %.1f of %.1f); besides: Shmem %.1f, Unevictable %.1f, "
		     "SReclaimable %.1f", (double)t->uptime_ms / 1000, mib(t->in_use),
		     mib(t->in_use - t->need), mib(t->file), mib(t->dirty), mib(t->writeback),
		     mib(t->mapped_kept), mib(t->mapped), mib(t->shmem), mib(t->unevictable),
		     mib(t->sreclaimable));
	return n > 0 && (size_t)n < size;
}

void crashkernel_text(struct out *o, const struct run *r)
{
	char line[1024], sample[512];

	if (!crashkernel_line(line, sizeof(line), r))
		return;
	if (crashkernel_sample_line(sample, sizeof(sample), r))
		out_printf(o, "%s\n", sample);
	out_printf(o, "%s\n", line);
}

void crashkernel_json(struct out *o, const struct run *r)
{
	const struct sizing *z = &r->sz;
	struct sizing_answer a;

	if (!z->on)
		return;
	sizing_answer(z, r->meta.boot.lost + r->meta.boot.lost_unknown, &a);
	out_printf(o, ",\"crashkernel\":{\"at_least_mib\":%u,\"lower_bound\":%s,\"why\":",
		   a.mib, a.lower ? "true" : "false");
	if (a.why)
		rows_json_str(o, a.why);
	else
		out_puts(o, "null");
	out_printf(o, ",\"capture_kernel\":%s,\"kib\":{\"sum\":%" PRIu64 ",\"kernel\":%" PRIu64
		   ",\"kaslr\":%" PRIu64 ",\"before_memtrace\":%" PRIu64 ",\"peak_not_reclaimable\":%"
		   PRIu64 ",\"memtrace\":%" PRIu64 ",\"boot\":%" PRIu64 ",\"free_reserve\":%"
		   PRIu64 "},\"boot_sets_it\":%s,\"facts\":{\"system_ram_kib\":%" PRIu64
		   ",\"mem_total_kib\":%" PRIu64 ",\"memory_blocks\":%u,\"memory_blocks_worst\":%u,"
		   "\"block_memmap_kib\":%" PRIu64 ",\"boot_buffer_given_back_kib\":%" PRIu64
		   ",\"boot_peak_above_end_kib\":%" PRIu64 ",\"memtrace_at_start_kib\":%" PRIu64
		   ",\"initrd_kib\":", z->capture ? "true" : "false", a.sum_kib, a.k, a.kaslr, a.b, a.p,
		   a.t, a.u, a.w, a.boot_sets ? "true" : "false", z->ram_kib, z->total_kib, z->blocks,
		   z->blocks_worst, z->memmap_kib, z->bootbuf_kib, a.boot_peak, z->self_start_kib);
	if (z->initrd_known)
		out_printf(o, "%" PRIu64, z->initrd_kib);
	else
		out_puts(o, "null");
	out_printf(o, ",\"meminfo_samples\":%" PRIu64 ",\"maxima_between_samples\":%" PRIu64
		   ",\"need_max_kib\":%" PRIu64 ",\"need_max_uptime_s\":%.3f,\"min_watermarks_kib\":%"
		   PRIu64 ",\"watermark_boost_kib\":%" PRIu64 ",\"zones\":%u,\"swap\":%s",
		   z->samples, z->between, z->need_max_kib, (double)z->max_uptime_ms / 1000,
		   z->min_free_kib, z->boost_kib, z->zones, z->swap ? "true" : "false");
	/* the sample that set the need's highest, its meminfo parts (sample_text()) */
	if (z->samples)
		out_printf(o, ",\"top_sample\":{\"uptime_s\":%.3f,\"need_kib\":%" PRIu64
			   ",\"in_use_kib\":%" PRIu64 ",\"file_lru_kib\":%" PRIu64 ",\"dirty_kib\":%"
			   PRIu64 ",\"writeback_kib\":%" PRIu64 ",\"mapped_kib\":%" PRIu64
			   ",\"mapped_kept_kib\":%" PRIu64 ",\"shmem_kib\":%" PRIu64
			   ",\"unevictable_kib\":%" PRIu64 ",\"sreclaimable_kib\":%" PRIu64 "}",
			   (double)z->top.uptime_ms / 1000, z->top.need, z->top.in_use, z->top.file,
			   z->top.dirty, z->top.writeback, z->top.mapped, z->top.mapped_kept,
			   z->top.shmem, z->top.unevictable, z->top.sreclaimable);
	out_puts(o, "}}");
}
