/* SPDX-License-Identifier: GPL-2.0-only */
/* kernel/event.h - typed events: map tracepoints to kinds and decode records with format-file offsets */
#ifndef MEMTRACE_KERNEL_EVENT_H
#define MEMTRACE_KERNEL_EVENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel/format.h"
#include "kernel/ringbuf.h"

/* the kernel's sizes of a task name (TASK_COMM_LEN) and a module name (MODULE_NAME_LEN) */
#define COMM_LEN	16
#define MODNAME_LEN	56

/*
 * Every tracepoint memtrace knows, in one table (event.c). Consumers (the
 * accounting in stats.c today; an event stream or a live view later) only see
 * struct mt_event, never raw records.
 */
enum mt_kind {
	EV_NONE = 0,
	EV_PAGE_ALLOC,		/* kmem:mm_page_alloc */
	EV_PAGE_FREE,		/* kmem:mm_page_free */
	EV_FORK,		/* sched:sched_process_fork */
	EV_EXIT,		/* sched:sched_process_exit */
	EV_EXEC,		/* sched:sched_process_exec */
	EV_RENAME,		/* task:task_rename */
	EV_MOD_LOAD,		/* module:module_load */
	EV_MOD_PUT,		/* module:module_put */
	EV_MOD_FREE,		/* module:module_free */
	EV_MODSYS_ENTER,	/* syscalls:sys_enter_finit_module / sys_enter_init_module */
	EV_MODSYS_EXIT,		/* syscalls:sys_exit_finit_module / sys_exit_init_module */
	EV_OOM_VICTIM,		/* oom:mark_victim */
	EV_NEWTASK,		/* task:task_newtask (thread or process) */
	EV_STACK,		/* ftrace:kernel_stack, from the stacktrace trigger (--stacks) */
	EV_COLLAPSE_ISOLATE,	/* huge_memory:mm_collapse_huge_page_isolate */
	EV_COLLAPSE,		/* huge_memory:mm_collapse_huge_page */
	EV_MIGRATE_START,	/* migrate:mm_migrate_pages_start */
	EV_MIGRATE_END,		/* migrate:mm_migrate_pages */
	EV_MEMSYS_ENTER,	/* syscalls:sys_enter_{mmap,munmap,brk,mremap} (--stream) */
	EV_MEMSYS_EXIT,		/* syscalls:sys_exit_{mmap,munmap,brk,mremap} (--stream) */
	EV_FAULT,		/* exceptions:page_fault_user (--stream) */
	EV_FILE_ADD,		/* filemap:mm_filemap_add_to_page_cache (crashkernel=) */
	EV_FILE_DEL,		/* filemap:mm_filemap_delete_from_page_cache (crashkernel=) */
	EV__COUNT
};

/* What the tracepoint is needed for. */
enum mt_need {
	NEED_REQUIRED,		/* without it memtrace cannot work (exit 5) */
	NEED_OPTIONAL,		/* enabled when present; a warning says what is lost */
};

/* When a tracepoint is used (the others cost nothing when not asked for). */
enum mt_when {
	WHEN_ALWAYS = 0,
	WHEN_STACKS,		/* with --stacks: made by the stacktrace trigger, never enabled */
	WHEN_SIZING,		/* in a capture kernel, or --crashkernel: page cache told apart */
};

/* The memory syscalls of EV_MEMSYS_ENTER / EV_MEMSYS_EXIT. */
enum mt_call { CALL_NONE = 0, CALL_MMAP, CALL_MUNMAP, CALL_BRK, CALL_MREMAP, CALL__COUNT };

/*
 * A memory syscall's arguments, in the kernel's order: where each one is in
 * mt_event.u.memsys.arg[] (event.c names each slot's field by these).
 */
enum { MMAP_ADDR, MMAP_LEN, MMAP_PROT, MMAP_FLAGS, MMAP_FD, MMAP_OFF };
enum { MUNMAP_ADDR, MUNMAP_LEN };
enum { BRK_BRK };
enum { MREMAP_ADDR, MREMAP_OLD_LEN, MREMAP_NEW_LEN, MREMAP_FLAGS, MREMAP_NEW_ADDR };

/* The most fields memtrace reads from one tracepoint (struct mt_evdesc's slots). */
#define MT_SLOTS 6

/*
 * The stream's event types (--stream --events), as bits: a tracepoint whose
 * `stream` is not 0 is enabled only in stream mode, and only when one of the
 * types it feeds is asked for; other modes never pay for it.
 */
#define MT_EVT_ALLOC	0x01	/* pageAllocate */
#define MT_EVT_FREE	0x02	/* pageFree */
#define MT_EVT_MAP	0x04	/* memoryMap */
#define MT_EVT_UNMAP	0x08	/* memoryUnmap */
#define MT_EVT_FAULT	0x10	/* pageFault */
#define MT_EVT_ALL	0x1f
#define MT_EVT_FAILED	0x20	/* --events failed: memory calls that failed too (off by default) */

struct mt_tracepoint {
	const char *system;
	const char *name;
	enum mt_kind kind;
	enum mt_need need;
	const char *loss;	/* what is lost without it, for the warning */
	enum mt_when when;
	uint8_t stream;		/* 0: every mode; else only --stream, for these MT_EVT_* */
	uint8_t call;		/* EV_MEMSYS_*: enum mt_call */
};

/* The table of tracepoints, terminated by an entry with system == NULL. */
extern const struct mt_tracepoint mt_tracepoints[];

/* Name of a kind, for reports ("page_alloc", ...). */
const char *mt_kind_name(enum mt_kind k);

/* common_flags bits that mean "not in task context" */
#define MT_FLAG_HARDIRQ	0x08
#define MT_FLAG_SOFTIRQ	0x10
#define MT_FLAG_NMI	0x40

#define MT_CLONE_THREAD	0x00010000ULL
#define MT_CLONE_PARENT	0x00008000ULL

/* A string inside a record: not NUL-terminated, valid while the record is. */
struct mt_str {
	const char *s;
	size_t len;
};

struct mt_event {
	enum mt_kind kind;
	uint32_t cpu;
	uint64_t ts;		/* trace clock, ns */
	int32_t tid;		/* common_pid: the running thread */
	uint8_t flags;		/* common_flags */
	union {
		struct { uint64_t pfn; uint32_t order; } page;
		/* a page into or out of the page cache; @dev the file's (its major 0: tmpfs, ramfs) */
		struct { uint64_t pfn; uint32_t order; uint64_t dev; } file;
		struct { int32_t parent, child; struct mt_str comm; } fork;
		struct { int32_t pid; int group_dead; struct mt_str comm; } exit;	/* group_dead -1: unknown */
		struct { int32_t pid, old_pid; struct mt_str filename; } exec;
		struct { int32_t pid; uint64_t clone_flags; struct mt_str comm; } newtask;
		struct { int32_t pid; struct mt_str comm; } rename;
		struct { uint64_t ip; int64_t refcnt; struct mt_str name; } module;
		struct { int64_t ret; bool finit; } modsys;
		/* frames innermost first, @elem bytes each (8, or 4 on 32-bit kernels), unaligned */
		struct { const uint8_t *frames; uint32_t n; uint8_t elem; bool big_endian; } stack;
		/* isolate: pfn = the old frame of the range's last pte (scan_pfn); status 1: success */
		struct { uint64_t pfn; int32_t status; } collapse;
		struct { int32_t reason; } migrate;
		/* a memory syscall: its arguments in the kernel's order (enter), its result (exit) */
		struct { uint8_t call; uint64_t arg[MT_SLOTS]; int64_t ret; } memsys;
		struct { uint64_t address, ip, error_code; } fault;
		struct {
			int32_t pid;
			struct mt_str comm;	/* len 0 on kernels without it */
			uint64_t total_vm_kb, anon_rss_kb, file_rss_kb, shmem_rss_kb;
		} oom;
	} u;
};

/*
 * The event @stride bytes after @ev, in an array of larger entries (a run of
 * them handed on in one call: reader_sink_run); @stride a multiple of the
 * event's alignment.
 */
static inline const struct mt_event *mt_event_next(const struct mt_event *ev, size_t stride)
{
	return (const void *)((const char *)ev + stride);
}

/* In interrupt context (hard, soft, NMI): the page is the interrupt's, not the running task's. */
static inline bool mt_event_in_irq(const struct mt_event *ev)
{
	return ev->flags & (MT_FLAG_HARDIRQ | MT_FLAG_SOFTIRQ | MT_FLAG_NMI);
}

/*
 * mm_page_alloc and mm_page_free in the layout every kernel has (common_pid 4
 * bytes, common_flags 1 or none, pfn an unsigned 4 or 8, order 4): their
 * places, resolved once, so that a record long enough for all of them is read
 * without a field lookup per field (decoder_decode()). Other layouts, and a
 * record too short, take the generic way, with the same result.
 */
struct mt_pagefmt {
	bool on;
	bool usual;				/* at the places of every 64-bit kernel: */
#define MT_PAGE_FLAGS	2			/* common_flags */
#define MT_PAGE_PID	4			/* common_pid */
#define MT_PAGE_PFN	8			/* pfn, 8 bytes */
#define MT_PAGE_ORDER	16			/* order */
	uint8_t pfn_size;			/* 4 or 8 */
	bool have_flags;
	uint16_t pid, flags, pfn, order;	/* offsets in the payload */
	/*
	 * bytes a record needs for all four; UINT32_MAX where not on, so that
	 * decoder_decode_order() asks one comparison, not two
	 */
	uint32_t need;
};

/* Field descriptors resolved from one format file. */
struct mt_evdesc {
	enum mt_kind kind;
	bool finit;				/* modsys: finit_module (else init_module) */
	uint8_t call;				/* memsys: enum mt_call */
	struct mt_pagefmt page;
	const struct mt_tracepoint *tp;
	struct fmt_field common_pid, common_flags;
	struct fmt_field f[MT_SLOTS];		/* per-kind fields, by slot: see event.c */
	uint8_t have[MT_SLOTS];
};

/*
 * id -> descriptor. ids are at most 65535 (u16 common_type): by_id[id] is the
 * descriptor's index in descs plus one, 0 for an id not set up (a byte each:
 * 64 KiB, where pointers took 512 KiB, all of it resident once zeroed: in a
 * capture kernel memtrace's own memory is taken from the reservation it sizes).
 */
#define MT_MAX_DESCS 32
struct mt_decoder {
	uint8_t by_id[65536];
	struct mt_evdesc descs[MT_MAX_DESCS];
	uint32_t ndescs;
};

/* the descriptor of event @id, NULL if none was set up */
static inline const struct mt_evdesc *decoder_desc(const struct mt_decoder *d, uint16_t id)
{
	return d->by_id[id] ? &d->descs[d->by_id[id] - 1] : NULL;
}

void decoder_init(struct mt_decoder *d);

/**
 * decoder_add() - register the format of one of mt_tracepoints[]
 * @tp: the tracepoint entry the format belongs to
 * @fe: parsed format file
 * @err: one-line reason on failure
 *
 * Return: 0, or -1 if a field memtrace needs is missing or has an unusable
 * size (the event must then not be used).
 */
int decoder_add(struct mt_decoder *d, const struct mt_tracepoint *tp,
		const struct fmt_event *fe, char *err, size_t errlen);

/* Result of decoder_decode() */
enum { DEC_OK = 1, DEC_UNKNOWN = 0, DEC_BAD = -1 };

/* Any record, field by field (its kind, cpu and time stamp are set): decoder_decode()'s slow way. */
int decoder_decode_fields(const struct mt_evdesc *ds, const struct rb_record *r,
			  struct mt_event *ev);

/*
 * A page event whose record holds all four fields (ds->page.need): read at
 * their places, as decoder_decode_fields() would read them.
 */
static inline __attribute__((always_inline)) int
decoder_decode_page(const struct mt_evdesc *ds, const struct rb_record *r, struct mt_event *ev,
		    bool be)
{
	const struct mt_pagefmt *pg = &ds->page;
	const uint8_t *p = r->data;

	if (pg->usual) {	/* the same reads, at places known here: no offset loaded */
		ev->tid = (int32_t)rb_ld32(p + MT_PAGE_PID, be);
		ev->flags = p[MT_PAGE_FLAGS];
		ev->u.page.pfn = rb_ld64(p + MT_PAGE_PFN, be);
		ev->u.page.order = rb_ld32(p + MT_PAGE_ORDER, be);
		return DEC_OK;
	}
	ev->tid = (int32_t)rb_ld32(p + pg->pid, be);
	ev->flags = pg->have_flags ? p[pg->flags] : 0;
	if (pg->pfn_size == 8) {
		ev->u.page.pfn = rb_ld64(p + pg->pfn, be);
	} else {
		uint32_t v = rb_ld32(p + pg->pfn, be);

		ev->u.page.pfn = v == UINT32_MAX ? UINT64_MAX : v;
	}
	ev->u.page.order = rb_ld32(p + pg->order, be);
	return DEC_OK;
}

/**
 * decoder_decode_order() - turn one record into a typed event
 * @be: the record's byte order, r->big_endian, given apart
 *
 * Inline, so that the page events, nearly every record, are decoded without a
 * call; every other record field by field, out of line. Always inline: the
 * reader's walk is compiled once for each byte order and gives @be as a
 * constant, so that no load asks it. (It cannot be read from the record: the
 * walk fills the record inline or through rb_next(), and after either the
 * compiler knows only what is in memory.)
 *
 * Return: DEC_OK; DEC_UNKNOWN for an event id not registered (skip it);
 * DEC_BAD if the record is too short for its fields (count and skip it).
 */
static inline __attribute__((always_inline)) int
decoder_decode_order(const struct mt_decoder *d, const struct rb_record *r, uint32_t cpu,
		     struct mt_event *ev, bool be)
{
	const struct mt_evdesc *ds;

	if (r->len < 2)
		return DEC_BAD;
	ds = decoder_desc(d, rb_ld16(r->data, be));
	if (!ds)
		return DEC_UNKNOWN;
	ev->kind = ds->kind;
	ev->cpu = cpu;
	ev->ts = r->ts;
	if (r->len >= ds->page.need)	/* and page.on */
		return decoder_decode_page(ds, r, ev, be);
	return decoder_decode_fields(ds, r, ev);
}

/* decoder_decode_order() in the record's own order: every caller but the walk. */
static inline int decoder_decode(const struct mt_decoder *d, const struct rb_record *r,
				 uint32_t cpu, struct mt_event *ev)
{
	return decoder_decode_order(d, r, cpu, ev, r->big_endian);
}

/* Lookup the tracepoint entry by "system", "name"; NULL if unknown. */
const struct mt_tracepoint *mt_tracepoint_find(const char *system, const char *name);

/* The same by "system:name"; NULL if unknown. */
const struct mt_tracepoint *mt_tracepoint_find_name(const char *sys_colon_name);

#endif
