/* SPDX-License-Identifier: GPL-2.0-only */
/* stream/jsonl.h - the stream's JSON lines, with the fleet tracer's field names (pure, no allocation) */
#ifndef MEMTRACE_STREAM_JSONL_H
#define MEMTRACE_STREAM_JSONL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "stream/procinfo.h"
#include "stream/runtime.h"

/*
 * Every string is cut to a bound (escaped: name 100, cmd 1024, exe 512, the
 * container's id 70 and name 256, the pod's 80, 256, 256 bytes; the host 200),
 * so that the parts always fit their room and a line stays below PIPE_BUF.
 */
#define JL_PROC_MAX	3072	/* the "process" object of a line, at most (~2,800 used) */
#define JL_SRC_MAX	512	/* the "src" end of a line, at most (~260 used) */
#define JL_LINE_MAX	4000	/* a whole line, at most: below PIPE_BUF, so never torn */

/* evt_type, in the order of the MT_EVT_* bits (1 << evt) */
enum jl_evt { JL_ALLOC = 0, JL_FREE, JL_MAP, JL_UNMAP, JL_FAULT, JL__COUNT };

/* "pageAllocate", ... */
const char *jl_evt_name(enum jl_evt e);

/* The trace clock (CLOCK_MONOTONIC) in UTC, and the text of the last second shown. */
struct jl_clock {
	int64_t off_ns;		/* UTC minus the trace clock */
	int64_t sec;		/* the second whose text is in ymdhms (-1: none yet) */
	char ymdhms[20];	/* "2026-11-23T12:00:00" */
};

/* @mono_ns and @real_ns: CLOCK_MONOTONIC and CLOCK_REALTIME read at one instant. */
void jl_clock_init(struct jl_clock *k, uint64_t mono_ns, int64_t real_ns);

/* "2026-11-23T12:00:00.123456789Z" for trace time @ts (30 bytes, no NUL). */
size_t jl_time(struct jl_clock *k, uint64_t ts, char *dst);

/* "2026-11-23T11:04:00Z" for UTC seconds (20 bytes, no NUL). */
size_t jl_date_s(int64_t s, char *dst);

/*
 * The "process":{...} member (with its key) for @pi, with @c its container
 * (or NULL); strings escaped and cut to fit JL_PROC_MAX. Return: its length.
 */
size_t jl_process(char *dst, size_t size, const struct procinfo *pi, const struct rt_container *c);

/* The end of every line: ,"src":{"hostname":"...","name":"memtrace"}}\n. Return: its length. */
size_t jl_src(char *dst, size_t size, const char *hostname);

/*
 * A pageAllocate/pageFree/pageFault line's "size": the bytes of 2^@order pages of the
 * traced kernel's @page_size (16 or 64 KiB on some arm64 and ppc64le kernels).
 */
static inline uint64_t jl_page_bytes(uint32_t page_size, uint32_t order)
{
	return (uint64_t)page_size << order;
}

/* One event line's facts. Zero what does not apply. */
struct jl_event {
	uint8_t evt;		/* enum jl_evt */
	uint8_t call;		/* JL_MAP/JL_UNMAP: enum mt_call */
	bool failed;		/* a syscall that failed: size 0, requested_size, errno */
	int32_t err;		/* failed: its errno (brk's: ENOMEM, brk returns no errno) */
	uint64_t requested_size;	/* failed: the size it asked for */
	uint64_t ts;		/* trace clock */
	uint64_t size;		/* bytes */
	int32_t pid, tid;
	uint64_t pfn;		/* pages */
	uint32_t order;
	int32_t owner_pid, owner_tid;	/* pageFree: the page's owner, when known (else 0) */
	uint64_t address;	/* map/unmap/fault */
	uint64_t ip, error_code;	/* fault */
	uint64_t prot, flags, offset;	/* mmap (and mremap's flags) */
	int64_t fd;
	uint64_t old_address, old_size, new_size;	/* mremap */
	int64_t result;		/* syscalls: the return value */
	uint64_t latency_ns;	/* syscalls: from entry to exit */
};

/*
 * jl_event_line() - one event as a line into @dst (JL_LINE_MAX bytes fit any)
 * @proc, @src: from jl_process() and jl_src()
 * Return: its length, or 0 if it did not fit in @size.
 */
size_t jl_event_line(char *dst, size_t size, struct jl_clock *k, const struct jl_event *e,
		     const char *proc, size_t plen, const char *src, size_t slen);

/* {"type":"memtrace.lost","count":N,"source":...,"total":T,"timestamp":...,"src":...}\n */
size_t jl_lost_line(char *dst, size_t size, struct jl_clock *k, uint64_t ts, uint64_t count,
		    const char *source, uint64_t total, const char *src, size_t slen);

/* One process's facts for a summary line. */
struct jl_summary {
	uint64_t ts;
	int32_t pid;
	uint32_t interval_s;
	int64_t cur_pages, peak_pages;
	uint32_t page_size;
	bool exited;
	uint64_t count[JL__COUNT], bytes[JL__COUNT];	/* since the last summary */
};

/* {"timestamp":...,"type":"memtrace.summary","data":{...,"process":{...}},"src":...}\n */
size_t jl_summary_line(char *dst, size_t size, struct jl_clock *k, const struct jl_summary *sm,
		       const char *proc, size_t plen, const char *src, size_t slen);

#endif
