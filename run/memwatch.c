// SPDX-License-Identifier: GPL-2.0-only
/* run/memwatch.c - a capture kernel's memory watched for crashkernel= (model/sizing.h): its facts, /proc/meminfo sampled */
#include "run/memwatch.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kernel/proc.h"
#include "lib/util.h"

static uint64_t page_kib(const struct run *r)
{
	return r->meta.page_size >= 1024 ? r->meta.page_size / 1024 : 1;
}

void memwatch_setup(struct run *r)
{
	struct sizing *z = &r->sz;
	struct zone_reserve res;
	struct iomem_ram ram;
	uint64_t block, ts;

	z->capture = !access("/proc/vmcore", F_OK);
	z->on = z->capture || r->opt.crashkernel;
	if (!z->on)
		return;
	block = sys_memory_block("/sys");
	if (!proc_iomem_ram("/proc", block, &ram)) {
		z->ram_kib = ram.bytes / 1024;
		z->blocks = ram.blocks;
		/* the reservation is the largest range: where KASLR put it, it may span one more */
		z->blocks_worst = ram.blocks - ram.largest_blocks +
				  sizing_blocks_worst(ram.largest, block);
		z->memmap_kib = sizing_memmap_kib(block, r->meta.page_size);
	} else {
		mt_warn("warning: crashkernel=: /proc/iomem says no System RAM: the kernel's own "
			"memory is not known");
	}
	if (!proc_reserve("/proc", &res)) {
		z->min_free_kib = res.min * page_kib(r);
		z->boost_kib = res.boost * page_kib(r);
		z->zones = res.zones;
	}
	z->swap = r->meta.mem_start.swap_kib > 0;
	z->total_kib = r->meta.mem_start.total_kib;
	z->start_need_kib = proc_mem_need_kib(&r->meta.mem_start);
	if (!kmsg_initrd(NULL, &z->initrd_kib, &ts)) {
		z->initrd_known = true;
		z->initrd_ts = ts;
	}
}

void memwatch_boot(struct run *r)
{
	const struct boot_buffer *b = &r->meta.boot;
	struct sizing *z = &r->sz;
	int64_t before, high;

	if (!z->on || !b->page_events)
		return;
	z->boot_known = true;
	z->boot_truncated = b->truncated;
	/* the compressed initramfs was held (outside MemTotal) until it was freed */
	before = b->peak_before + (int64_t)(z->initrd_kib / page_kib(r));
	high = before > b->peak_after ? before : b->peak_after;
	z->boot_extra_kib = high > b->end ? (uint64_t)(high - b->end) * page_kib(r) : 0;
}

/* memtrace's own resident memory (statm), KiB; 0 if it cannot be read */
static uint64_t self_rss_kib(const struct run *r)
{
	char buf[128];
	uint64_t resident = 0;
	ssize_t n = read_file("/proc/self/statm", buf, sizeof(buf));

	if (n <= 0 || proc_parse_statm(buf, (size_t)n, &resident))
		return 0;
	return resident * page_kib(r);
}

void memwatch_start(struct run *r)
{
	char buf[64], p[PATH_MAX];

	if (!r->sz.on)
		return;
	/* the instance's buffers, every CPU's: memtrace's own, allocated after the start */
	if (!tracefs_path(&r->tf, p, sizeof(p), "buffer_total_size_kb") &&
	    read_file(p, buf, sizeof(buf)) > 0)
		r->mw_ring_kib = strtoull(buf, NULL, 10);
	r->sz.self_start_kib = self_rss_kib(r) + r->mw_ring_kib;
	r->mw_hi = r->st.sys_cur;
	memwatch_sample(r);
}

static uint64_t uptime_ms(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_BOOTTIME, &ts))
		return 0;
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* @need (KiB) is the highest yet: kept, with memtrace's own then and when */
static void keep_max(struct sizing *z, uint64_t need, uint64_t self)
{
	if (need <= z->need_max_kib)
		return;
	z->need_max_kib = need;
	z->self_at_max_kib = self;
	z->max_uptime_ms = uptime_ms();
}

void memwatch_sample(struct run *r)
{
	struct sizing *z = &r->sz;
	int64_t pk = (int64_t)page_kib(r), between, base;
	struct proc_mem m;
	uint64_t need, self;

	r->mw_next = r->st.sys_cur + MEMWATCH_STEP;
	if (proc_mem("/proc", &m))
		return;
	z->samples++;
	need = proc_mem_need_kib(&m);
	self = self_rss_kib(r) + r->mw_ring_kib;
	base = (int64_t)need - r->st.sys_cur * pk;
	/* the traced level rose since the last sample: the need at its high (model/sizing.h) */
	if (r->mw_based &&
	    (between = sizing_between_kib(r->mw_base_kib, base, r->mw_hi, pk)) > 0 &&
	    (uint64_t)between > z->need_max_kib) {
		keep_max(z, (uint64_t)between, r->mw_base_kib < base ? r->mw_self_kib : self);
		z->between++;
	}
	if (z->samples == 1 || need > z->top.need)
		z->top = (struct sizing_sample){
			.need = need, .in_use = m.total_kib - m.free_kib, .file = m.file_kib,
			.dirty = m.dirty_kib, .writeback = m.writeback_kib, .mapped = m.mapped_kib,
			.mapped_kept = proc_mem_mapped_kept_kib(&m),
			.shmem = m.shmem_kib, .unevictable = m.unevictable_kib,
			.sreclaimable = m.sreclaim_kib, .uptime_ms = uptime_ms() };
	r->mw_based = true;
	r->mw_base_kib = base;
	r->mw_self_kib = self;
	r->mw_hi = r->st.sys_cur;
	keep_max(z, need, self);
}
