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
	char kaslr[48] = "", tail[320] = "";
	int n;

	if (!z->on)
		return false;
	sizing_answer(z, r->meta.boot.lost + r->meta.boot.lost_unknown, &a);
	if (a.kaslr)
		snprintf(kaslr, sizeof(kaslr), " (%.1f of it where KASLR may place it)", mib(a.kaslr));
	if (a.lower)
		snprintf(tail, sizeof(tail), "; a lower bound: %s", a.why);
	if (a.boot_sets)
		n = snprintf(buf, size, "crashkernel: at least %u MiB for this kernel, initramfs "
			     "and dump target (kernel %.1f%s + before memtrace %.1f + the boot's "
			     "peak unpacking the initramfs %.1f + the kernel's free-memory reserve "
			     "%.1f MiB, rounded up; the run's peak that cannot be reclaimed %.1f + "
			     "memtrace itself %.1f is less%s)", a.mib, mib(a.k), kaslr, mib(a.b),
			     mib(a.u), mib(a.w), mib(a.p), mib(a.t), tail);
	else
		n = snprintf(buf, size, "crashkernel: at least %u MiB for this kernel, initramfs "
			     "and dump target (kernel %.1f%s + before memtrace %.1f + peak that "
			     "cannot be reclaimed %.1f + the kernel's free-memory reserve %.1f + "
			     "memtrace itself %.1f MiB, rounded up; the boot's peak unpacking the "
			     "initramfs %.1f is less%s)", a.mib, mib(a.k), kaslr, mib(a.b), mib(a.p),
			     mib(a.w), mib(a.t), mib(a.u), tail);
	return n > 0;
}

void crashkernel_text(struct out *o, const struct run *r)
{
	char line[1024];

	if (crashkernel_line(line, sizeof(line), r))
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
		   PRIu64 ",\"memtrace\":%" PRIu64 ",\"boot_unpack\":%" PRIu64 ",\"free_reserve\":%"
		   PRIu64 "},\"boot_sets_it\":%s,\"facts\":{\"system_ram_kib\":%" PRIu64
		   ",\"mem_total_kib\":%" PRIu64 ",\"memory_blocks\":%u,\"memory_blocks_worst\":%u,"
		   "\"block_memmap_kib\":%" PRIu64 ",\"boot_buffer_given_back_kib\":%" PRIu64
		   ",\"initrd_kib\":", z->capture ? "true" : "false", a.sum_kib, a.k, a.kaslr, a.b, a.p,
		   a.t, a.u, a.w, a.boot_sets ? "true" : "false", z->ram_kib, z->total_kib, z->blocks,
		   z->blocks_worst, z->memmap_kib, z->bootbuf_kib);
	if (z->initrd_known)
		out_printf(o, "%" PRIu64, z->initrd_kib);
	else
		out_puts(o, "null");
	out_printf(o, ",\"meminfo_samples\":%" PRIu64 ",\"need_max_kib\":%" PRIu64
		   ",\"need_max_uptime_s\":%.3f,\"swap\":%s}}", z->samples, z->need_max_kib,
		   (double)z->max_uptime_ms / 1000, z->swap ? "true" : "false");
}
