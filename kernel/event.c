// SPDX-License-Identifier: GPL-2.0-only
/* kernel/event.c - the tracepoints memtrace uses and the decoding of their records into typed events */
#include "kernel/event.h"

#include <stdio.h>
#include <string.h>

/*
 * The last fields say, in plain words, what is lost when the tracepoint is
 * missing, and when it is used at all.
 */
#define ALWAYS(sys, name, kind, need, loss) { sys, name, kind, need, loss, WHEN_ALWAYS, 0, CALL_NONE }
/* --stream only, for the MT_EVT_* types @evts; @call for the memory syscalls */
#define STREAM(sys, name, kind, loss, evts, call) \
	{ sys, name, kind, NEED_OPTIONAL, loss, WHEN_ALWAYS, evts, call }

const struct mt_tracepoint mt_tracepoints[] = {
	ALWAYS("kmem", "mm_page_alloc", EV_PAGE_ALLOC, NEED_REQUIRED,
	       "page allocations are not seen"),
	ALWAYS("kmem", "mm_page_free", EV_PAGE_FREE, NEED_REQUIRED, "page frees are not seen"),
	ALWAYS("sched", "sched_process_fork", EV_FORK, NEED_OPTIONAL,
	       "new tasks have no parent pid, and a name only once it is read from /proc"),
	ALWAYS("sched", "sched_process_exit", EV_EXIT, NEED_OPTIONAL,
	       "tasks are never seen to exit: they stay alive, and no slot is freed for new ones"),
	ALWAYS("sched", "sched_process_exec", EV_EXEC, NEED_OPTIONAL, "names do not follow exec"),
	ALWAYS("task", "task_rename", EV_RENAME, NEED_OPTIONAL,
	       "names do not follow renames (and exec, where sched_process_exec is missing too)"),
	ALWAYS("module", "module_load", EV_MOD_LOAD, NEED_OPTIONAL,
	       "modules have no names, and no pages are charged to them"),
	ALWAYS("module", "module_put", EV_MOD_PUT, NEED_OPTIONAL,
	       "where syscall events are missing too, a module load has no end"),
	ALWAYS("module", "module_free", EV_MOD_FREE, NEED_OPTIONAL, "unloaded modules stay live"),
	ALWAYS("syscalls", "sys_enter_finit_module", EV_MODSYS_ENTER, NEED_OPTIONAL,
	       "a module's pages are counted from its module_load to its init's end only, "
	       "not while its file is read and it is set up"),
	ALWAYS("syscalls", "sys_exit_finit_module", EV_MODSYS_EXIT, NEED_OPTIONAL,
	       "a module's pages are counted from its module_load to its init's end only, "
	       "not while its file is read and it is set up"),
	ALWAYS("syscalls", "sys_enter_init_module", EV_MODSYS_ENTER, NEED_OPTIONAL,
	       "a module loaded by init_module has its pages counted from its module_load to "
	       "its init's end only"),
	ALWAYS("syscalls", "sys_exit_init_module", EV_MODSYS_EXIT, NEED_OPTIONAL,
	       "a module loaded by init_module has its pages counted from its module_load to "
	       "its init's end only"),
	ALWAYS("oom", "mark_victim", EV_OOM_VICTIM, NEED_OPTIONAL,
	       "OOM kills are not seen: no report at the kill"),
	ALWAYS("task", "task_newtask", EV_NEWTASK, NEED_OPTIONAL,
	       "threads are told from processes only by /proc, for tasks alive at a report"),
	ALWAYS("huge_memory", "mm_collapse_huge_page_isolate", EV_COLLAPSE_ISOLATE, NEED_OPTIONAL,
	       "a huge page made of a process's pages (khugepaged) stays the collapsing task's"),
	ALWAYS("huge_memory", "mm_collapse_huge_page", EV_COLLAPSE, NEED_OPTIONAL,
	       "a huge page made of a process's pages (khugepaged) stays the collapsing task's"),
	ALWAYS("migrate", "mm_migrate_pages_start", EV_MIGRATE_START, NEED_OPTIONAL,
	       "pages moved by compaction or migration are not counted as such"),
	ALWAYS("migrate", "mm_migrate_pages", EV_MIGRATE_END, NEED_OPTIONAL,
	       "pages moved by compaction or migration are not counted as such"),
	/* crashkernel=: the page cache, on a block device (reclaim takes it back) or not */
	{ "filemap", "mm_filemap_add_to_page_cache", EV_FILE_ADD, NEED_OPTIONAL,
	  "the system peak is not split into page cache and the rest", WHEN_SIZING, 0, CALL_NONE },
	{ "filemap", "mm_filemap_delete_from_page_cache", EV_FILE_DEL, NEED_OPTIONAL,
	  "the system peak is not split into page cache and the rest", WHEN_SIZING, 0, CALL_NONE },
	{ "ftrace", "kernel_stack", EV_STACK, NEED_OPTIONAL,
	  "no kernel stacks: modules are attributed by their load brackets only", WHEN_STACKS,
	  0, CALL_NONE },
	/* --stream only: memoryMap / memoryUnmap / pageFault lines */
	STREAM("syscalls", "sys_enter_mmap", EV_MEMSYS_ENTER,
	       "mmap calls are not seen: no memoryMap lines for them", MT_EVT_MAP, CALL_MMAP),
	STREAM("syscalls", "sys_exit_mmap", EV_MEMSYS_EXIT,
	       "mmap calls are not seen: no memoryMap lines for them", MT_EVT_MAP, CALL_MMAP),
	STREAM("syscalls", "sys_enter_munmap", EV_MEMSYS_ENTER,
	       "munmap calls are not seen: no memoryUnmap lines for them", MT_EVT_UNMAP, CALL_MUNMAP),
	STREAM("syscalls", "sys_exit_munmap", EV_MEMSYS_EXIT,
	       "munmap calls are not seen: no memoryUnmap lines for them", MT_EVT_UNMAP, CALL_MUNMAP),
	STREAM("syscalls", "sys_enter_brk", EV_MEMSYS_ENTER,
	       "brk calls are not seen: a heap that grows or shrinks makes no lines",
	       MT_EVT_MAP | MT_EVT_UNMAP, CALL_BRK),
	STREAM("syscalls", "sys_exit_brk", EV_MEMSYS_EXIT,
	       "brk calls are not seen: a heap that grows or shrinks makes no lines",
	       MT_EVT_MAP | MT_EVT_UNMAP, CALL_BRK),
	STREAM("syscalls", "sys_enter_mremap", EV_MEMSYS_ENTER,
	       "mremap calls are not seen: memory grown or shrunk in place makes no lines",
	       MT_EVT_MAP | MT_EVT_UNMAP, CALL_MREMAP),
	STREAM("syscalls", "sys_exit_mremap", EV_MEMSYS_EXIT,
	       "mremap calls are not seen: memory grown or shrunk in place makes no lines",
	       MT_EVT_MAP | MT_EVT_UNMAP, CALL_MREMAP),
	STREAM("exceptions", "page_fault_user", EV_FAULT,
	       "user page faults are not seen: no pageFault lines (the tracepoint is x86's)",
	       MT_EVT_FAULT, CALL_NONE),
	{ NULL, NULL, EV_NONE, NEED_OPTIONAL, NULL, WHEN_ALWAYS, 0, CALL_NONE },
};

static const char *const kind_names[EV__COUNT] = {
	[EV_NONE] = "none",
	[EV_PAGE_ALLOC] = "page_alloc",
	[EV_PAGE_FREE] = "page_free",
	[EV_FORK] = "fork",
	[EV_EXIT] = "exit",
	[EV_EXEC] = "exec",
	[EV_RENAME] = "rename",
	[EV_MOD_LOAD] = "module_load",
	[EV_MOD_PUT] = "module_put",
	[EV_MOD_FREE] = "module_free",
	[EV_MODSYS_ENTER] = "module_syscall_enter",
	[EV_MODSYS_EXIT] = "module_syscall_exit",
	[EV_OOM_VICTIM] = "oom_victim",
	[EV_NEWTASK] = "newtask",
	[EV_STACK] = "stack",
	[EV_COLLAPSE_ISOLATE] = "collapse_isolate",
	[EV_COLLAPSE] = "collapse",
	[EV_MIGRATE_START] = "migrate_start",
	[EV_MIGRATE_END] = "migrate_end",
	[EV_MEMSYS_ENTER] = "mem_syscall_enter",
	[EV_MEMSYS_EXIT] = "mem_syscall_exit",
	[EV_FAULT] = "page_fault_user",
	[EV_FILE_ADD] = "file_add",
	[EV_FILE_DEL] = "file_delete",
};

const char *mt_kind_name(enum mt_kind k)
{
	return (unsigned)k < EV__COUNT ? kind_names[k] : "?";
}

/*
 * Each kind's fields by slot (struct mt_evdesc's f[] and have[]): the slot's
 * name says which field it holds, and kind_fields[] below puts each name at
 * its slot by that name, so decoder_decode() reads a field by the same name
 * decoder_add() found it by, and adding or reordering a field cannot shift
 * another's slot.
 */
enum { PAGE_PFN, PAGE_ORDER };
enum { FORK_PARENT_PID, FORK_CHILD_PID, FORK_CHILD_COMM };
enum { EXIT_PID, EXIT_COMM, EXIT_GROUP_DEAD };
enum { EXEC_PID, EXEC_OLD_PID, EXEC_FILENAME };
enum { RENAME_PID, RENAME_NEWCOMM };
enum { MOD_NAME, MOD_IP, MOD_REFCNT };			/* module_load, _put, _free */
enum { MODSYS_RET };					/* sys_exit_(f)init_module */
enum { OOM_PID, OOM_COMM, OOM_TOTAL_VM, OOM_ANON_RSS, OOM_FILE_RSS, OOM_SHMEM_RSS };
enum { NEWTASK_PID, NEWTASK_CLONE_FLAGS, NEWTASK_COMM };
enum { STACK_SIZE, STACK_CALLER };
enum { COLLAPSE_ISOLATE_PFN, COLLAPSE_ISOLATE_STATUS };
enum { COLLAPSE_STATUS };
enum { MIGRATE_REASON };				/* mm_migrate_pages_start, _pages */
enum { MEMSYS_RET };					/* sys_exit_mmap, ... */
enum { FAULT_ADDRESS, FAULT_IP, FAULT_ERROR_CODE };
enum { FILE_PFN, FILE_DEV, FILE_ORDER };		/* mm_filemap_{add_to,delete_from}_page_cache */

/* Per kind: the fields used, at their slots; a leading '!' marks required. */
static const char *const kind_fields[EV__COUNT][MT_SLOTS] = {
	[EV_PAGE_ALLOC] = { [PAGE_PFN] = "!pfn", [PAGE_ORDER] = "!order" },
	[EV_PAGE_FREE] = { [PAGE_PFN] = "!pfn", [PAGE_ORDER] = "!order" },
	[EV_FORK] = { [FORK_PARENT_PID] = "!parent_pid", [FORK_CHILD_PID] = "!child_pid",
		      [FORK_CHILD_COMM] = "child_comm" },
	[EV_EXIT] = { [EXIT_PID] = "!pid", [EXIT_COMM] = "comm", [EXIT_GROUP_DEAD] = "group_dead" },
	[EV_EXEC] = { [EXEC_PID] = "!pid", [EXEC_OLD_PID] = "old_pid",
		      [EXEC_FILENAME] = "filename" },
	[EV_RENAME] = { [RENAME_PID] = "!pid", [RENAME_NEWCOMM] = "!newcomm" },
	[EV_MOD_LOAD] = { [MOD_NAME] = "!name" },
	[EV_MOD_PUT] = { [MOD_NAME] = "!name", [MOD_IP] = "ip", [MOD_REFCNT] = "refcnt" },
	[EV_MOD_FREE] = { [MOD_NAME] = "!name" },
	[EV_MODSYS_ENTER] = { NULL },
	[EV_MODSYS_EXIT] = { [MODSYS_RET] = "!ret" },
	[EV_OOM_VICTIM] = { [OOM_PID] = "!pid", [OOM_COMM] = "comm", [OOM_TOTAL_VM] = "total_vm",
			    [OOM_ANON_RSS] = "anon_rss", [OOM_FILE_RSS] = "file_rss",
			    [OOM_SHMEM_RSS] = "shmem_rss" },
	[EV_NEWTASK] = { [NEWTASK_PID] = "!pid", [NEWTASK_CLONE_FLAGS] = "!clone_flags",
			 [NEWTASK_COMM] = "comm" },
	[EV_STACK] = { [STACK_SIZE] = "!size", [STACK_CALLER] = "!caller" },
	[EV_COLLAPSE_ISOLATE] = { [COLLAPSE_ISOLATE_PFN] = "!pfn",
				  [COLLAPSE_ISOLATE_STATUS] = "!status" },
	[EV_COLLAPSE] = { [COLLAPSE_STATUS] = "!status" },
	[EV_MIGRATE_START] = { [MIGRATE_REASON] = "reason" },
	[EV_MIGRATE_END] = { [MIGRATE_REASON] = "reason" },
	[EV_MEMSYS_EXIT] = { [MEMSYS_RET] = "!ret" },
	[EV_FAULT] = { [FAULT_ADDRESS] = "!address", [FAULT_IP] = "ip",
		       [FAULT_ERROR_CODE] = "error_code" },
	/* order: 6.x (large folios); before, a page at a time */
	[EV_FILE_ADD] = { [FILE_PFN] = "!pfn", [FILE_DEV] = "!s_dev", [FILE_ORDER] = "order" },
	[EV_FILE_DEL] = { [FILE_PFN] = "!pfn", [FILE_DEV] = "!s_dev", [FILE_ORDER] = "order" },
};

/*
 * EV_MEMSYS_ENTER: the arguments by name, at their slots in the kernel's
 * order (event.h's MMAP_* ...: syscall arguments are 8-byte slots on 64-bit).
 */
static const char *const call_fields[CALL__COUNT][MT_SLOTS] = {
	[CALL_MMAP] = { [MMAP_ADDR] = "!addr", [MMAP_LEN] = "!len", [MMAP_PROT] = "!prot",
			[MMAP_FLAGS] = "!flags", [MMAP_FD] = "!fd", [MMAP_OFF] = "off" },
	[CALL_MUNMAP] = { [MUNMAP_ADDR] = "!addr", [MUNMAP_LEN] = "!len" },
	[CALL_BRK] = { [BRK_BRK] = "!brk" },
	[CALL_MREMAP] = { [MREMAP_ADDR] = "!addr", [MREMAP_OLD_LEN] = "!old_len",
			  [MREMAP_NEW_LEN] = "!new_len", [MREMAP_FLAGS] = "!flags",
			  [MREMAP_NEW_ADDR] = "new_addr" },
};

/* Fields read as strings; all others are integers of 1, 2, 4 or 8 bytes. */
static bool is_string_field(const char *name)
{
	return !strcmp(name, "comm") || !strcmp(name, "child_comm") ||
	       !strcmp(name, "newcomm") || !strcmp(name, "filename") ||
	       !strcmp(name, "name");
}

void decoder_init(struct mt_decoder *d)
{
	memset(d, 0, sizeof(*d));
}

const struct mt_tracepoint *mt_tracepoint_find(const char *system, const char *name)
{
	const struct mt_tracepoint *tp;

	for (tp = mt_tracepoints; tp->system; tp++)
		if (!strcmp(tp->system, system) && !strcmp(tp->name, name))
			return tp;
	return NULL;
}

const struct mt_tracepoint *mt_tracepoint_find_name(const char *sys_colon_name)
{
	const char *c = strchr(sys_colon_name, ':');
	const struct mt_tracepoint *tp;
	size_t n;

	if (!c)
		return NULL;
	n = (size_t)(c - sys_colon_name);
	for (tp = mt_tracepoints; tp->system; tp++)
		if (strlen(tp->system) == n && !memcmp(tp->system, sys_colon_name, n) &&
		    !strcmp(tp->name, c + 1))
			return tp;
	return NULL;
}

static bool int_size_ok(uint32_t size)
{
	return size == 1 || size == 2 || size == 4 || size == 8;
}

static uint32_t field_end(const struct fmt_field *f)
{
	return f->offset + f->size;
}

/* A page event's fields in the usual layout: their places for decoder_decode_page(). */
static void page_fmt(struct mt_evdesc *ds)
{
	const struct fmt_field *pid = &ds->common_pid, *flags = &ds->common_flags;
	const struct fmt_field *pfn = &ds->f[PAGE_PFN], *order = &ds->f[PAGE_ORDER];
	struct mt_pagefmt *pg = &ds->page;
	uint32_t need = field_end(pid);

	if (pid->size != 4 || (flags->size && flags->size != 1) || order->size != 4 ||
	    (pfn->size != 8 && (pfn->size != 4 || pfn->is_signed)))
		return;
	if (flags->size && field_end(flags) > need)
		need = field_end(flags);
	if (field_end(pfn) > need)
		need = field_end(pfn);
	if (field_end(order) > need)
		need = field_end(order);
	pg->pid = (uint16_t)pid->offset;	/* offsets stop at 65535 (fmt_parse_event()) */
	pg->flags = (uint16_t)flags->offset;
	pg->have_flags = flags->size != 0;
	pg->pfn = (uint16_t)pfn->offset;
	pg->pfn_size = (uint8_t)pfn->size;
	pg->order = (uint16_t)order->offset;
	pg->need = need;
	pg->usual = pg->pid == MT_PAGE_PID && pg->have_flags && pg->flags == MT_PAGE_FLAGS &&
		    pg->pfn_size == 8 && pg->pfn == MT_PAGE_PFN && pg->order == MT_PAGE_ORDER;
	pg->on = true;
}

int decoder_add(struct mt_decoder *d, const struct mt_tracepoint *tp,
		const struct fmt_event *fe, char *err, size_t errlen)
{
	const char *const *names;
	const struct mt_evdesc *old;
	struct mt_evdesc *ds;
	const struct fmt_field *f;
	int i;

	if ((unsigned)tp->kind >= EV__COUNT) {
		snprintf(err, errlen, "%s:%s: unknown kind", tp->system, tp->name);
		return -1;
	}
	if (d->ndescs >= MT_MAX_DESCS) {
		snprintf(err, errlen, "too many events");
		return -1;
	}
	if (fe->id > UINT16_MAX) {
		snprintf(err, errlen, "%s:%s: event id %u is over 65535", tp->system, tp->name,
			 fe->id);
		return -1;
	}
	if ((old = decoder_desc(d, (uint16_t)fe->id))) {
		snprintf(err, errlen, "%s:%s: event id %u already used by %s:%s",
			 tp->system, tp->name, fe->id, old->tp->system, old->tp->name);
		return -1;
	}
	ds = &d->descs[d->ndescs];
	memset(ds, 0, sizeof(*ds));
	ds->page.need = UINT32_MAX;	/* not a page event's layout (page_fmt()) */
	ds->kind = tp->kind;
	ds->tp = tp;
	ds->finit = strstr(tp->name, "finit_module") != NULL;
	ds->call = tp->kind == EV_MEMSYS_ENTER || tp->kind == EV_MEMSYS_EXIT ? tp->call : 0;
	if (ds->call >= CALL__COUNT) {
		snprintf(err, errlen, "%s:%s: unknown syscall", tp->system, tp->name);
		return -1;
	}
	names = tp->kind == EV_MEMSYS_ENTER ? call_fields[ds->call] : kind_fields[tp->kind];

	f = fmt_find(fe, "common_type");
	if (!f || f->offset != 0 || f->size != 2) {
		snprintf(err, errlen, "%s:%s: common_type is not a u16 at offset 0",
			 tp->system, tp->name);
		return -1;
	}
	f = fmt_find(fe, "common_pid");
	if (!f || !int_size_ok(f->size)) {
		snprintf(err, errlen, "%s:%s: no usable common_pid", tp->system, tp->name);
		return -1;
	}
	ds->common_pid = *f;
	f = fmt_find(fe, "common_flags");
	if (f && int_size_ok(f->size))
		ds->common_flags = *f;
	else
		ds->common_flags.size = 0;

	for (i = 0; i < MT_SLOTS; i++) {
		const char *want = names[i];
		bool required;

		if (!want)
			continue;
		required = want[0] == '!';
		if (required)
			want++;
		f = fmt_find(fe, want);
		/* caller[]: a word array, as many words as the record holds (see decode) */
		if (f && !strcmp(want, "caller")) {
			if (f->kind != FMT_ARRAY || (f->size % 8) || (f->size / 8 != 4 && f->size / 8 != 8))
				f = NULL;
		} else if (f && !is_string_field(want) && !int_size_ok(f->size)) {
			f = NULL;
		}
		if (f && is_string_field(want) && f->kind == FMT_PLAIN)
			f = NULL;
		if (!f) {
			if (required) {
				snprintf(err, errlen, "%s:%s: field '%s' missing or unusable",
					 tp->system, tp->name, want);
				return -1;
			}
			continue;
		}
		ds->f[i] = *f;
		ds->have[i] = 1;
	}
	if (ds->kind == EV_PAGE_ALLOC || ds->kind == EV_PAGE_FREE)
		page_fmt(ds);
	d->ndescs++;
	d->by_id[fe->id] = (uint8_t)d->ndescs;
	return 0;
}

static bool get_int(const struct mt_evdesc *ds, int slot, const struct rb_record *r,
		    uint64_t *v)
{
	return ds->have[slot] && fmt_get_int(&ds->f[slot], r->data, r->len, r->big_endian, v);
}

static void get_str(const struct mt_evdesc *ds, int slot, const struct rb_record *r,
		    struct mt_str *s)
{
	s->s = "";
	s->len = 0;
	if (ds->have[slot] &&
	    !fmt_get_str(&ds->f[slot], r->data, r->len, r->big_endian, &s->s, &s->len)) {
		s->s = "";
		s->len = 0;
	}
}

/* a failed allocation has pfn all ones, whatever the field size */
static int decode_page(const struct mt_evdesc *ds, const struct rb_record *r, struct mt_event *ev)
{
	uint64_t v, v2;

	if (!get_int(ds, PAGE_PFN, r, &v) || !get_int(ds, PAGE_ORDER, r, &v2))
		return DEC_BAD;
	if (ds->f[PAGE_PFN].size < 8 && v == (1ULL << (8 * ds->f[PAGE_PFN].size)) - 1)
		v = UINT64_MAX;
	ev->u.page.pfn = v;
	ev->u.page.order = (uint32_t)v2;
	return DEC_OK;
}

static int decode_file(const struct mt_evdesc *ds, const struct rb_record *r, struct mt_event *ev)
{
	uint64_t v, dev, order;

	if (!get_int(ds, FILE_PFN, r, &v) || !get_int(ds, FILE_DEV, r, &dev))
		return DEC_BAD;
	ev->u.file.pfn = v;
	ev->u.file.dev = dev;
	ev->u.file.order = get_int(ds, FILE_ORDER, r, &order) ? (uint32_t)order : 0;
	return DEC_OK;
}

/*
 * The format says caller[8], but the kernel writes @size words and sizes the
 * record to them: take what the record holds.
 */
static int decode_stack(const struct mt_evdesc *ds, const struct rb_record *r,
			struct mt_event *ev)
{
	const struct fmt_field *c = &ds->f[STACK_CALLER];
	uint32_t elem = c->size / 8, room;
	uint64_t v;
	int64_t n;

	if (!get_int(ds, STACK_SIZE, r, &v) || c->offset > r->len)
		return DEC_BAD;
	n = (int64_t)(int32_t)v;
	room = (r->len - c->offset) / elem;
	if (n < 0)
		return DEC_BAD;
	ev->u.stack.frames = r->data + c->offset;
	ev->u.stack.n = (uint64_t)n < room ? (uint32_t)n : room;
	ev->u.stack.elem = (uint8_t)elem;
	ev->u.stack.big_endian = r->big_endian;
	return DEC_OK;
}

/* the arguments the call has, each at its slot (call_fields[]) */
static int decode_memsys_enter(const struct mt_evdesc *ds, const struct rb_record *r,
			       struct mt_event *ev)
{
	int i;

	ev->u.memsys.call = ds->call;
	ev->u.memsys.ret = 0;
	for (i = 0; i < MT_SLOTS; i++) {
		ev->u.memsys.arg[i] = 0;
		if (ds->have[i] && !get_int(ds, i, r, &ev->u.memsys.arg[i]))
			return DEC_BAD;
	}
	return DEC_OK;
}

static int decode_oom(const struct mt_evdesc *ds, const struct rb_record *r, struct mt_event *ev)
{
	uint64_t v;

	if (!get_int(ds, OOM_PID, r, &v))
		return DEC_BAD;
	ev->u.oom.pid = (int32_t)v;
	get_str(ds, OOM_COMM, r, &ev->u.oom.comm);
	ev->u.oom.total_vm_kb = get_int(ds, OOM_TOTAL_VM, r, &v) ? v : 0;
	ev->u.oom.anon_rss_kb = get_int(ds, OOM_ANON_RSS, r, &v) ? v : 0;
	ev->u.oom.file_rss_kb = get_int(ds, OOM_FILE_RSS, r, &v) ? v : 0;
	ev->u.oom.shmem_rss_kb = get_int(ds, OOM_SHMEM_RSS, r, &v) ? v : 0;
	return DEC_OK;
}

int decoder_decode_fields(const struct mt_evdesc *ds, const struct rb_record *r,
			  struct mt_event *ev)
{
	uint64_t v = 0, v2 = 0;

	if (!fmt_get_int(&ds->common_pid, r->data, r->len, r->big_endian, &v))
		return DEC_BAD;
	ev->tid = (int32_t)v;
	ev->flags = 0;
	if (ds->common_flags.size &&
	    fmt_get_int(&ds->common_flags, r->data, r->len, r->big_endian, &v))
		ev->flags = (uint8_t)v;

	switch (ds->kind) {
	case EV_PAGE_ALLOC:
	case EV_PAGE_FREE:
		return decode_page(ds, r, ev);
	case EV_FILE_ADD:
	case EV_FILE_DEL:
		return decode_file(ds, r, ev);
	case EV_FORK:
		if (!get_int(ds, FORK_PARENT_PID, r, &v) || !get_int(ds, FORK_CHILD_PID, r, &v2))
			return DEC_BAD;
		ev->u.fork.parent = (int32_t)v;
		ev->u.fork.child = (int32_t)v2;
		get_str(ds, FORK_CHILD_COMM, r, &ev->u.fork.comm);
		break;
	case EV_EXIT:
		if (!get_int(ds, EXIT_PID, r, &v))
			return DEC_BAD;
		ev->u.exit.pid = (int32_t)v;
		get_str(ds, EXIT_COMM, r, &ev->u.exit.comm);
		ev->u.exit.group_dead = get_int(ds, EXIT_GROUP_DEAD, r, &v2) ? (v2 != 0) : -1;
		break;
	case EV_EXEC:
		if (!get_int(ds, EXEC_PID, r, &v))
			return DEC_BAD;
		ev->u.exec.pid = (int32_t)v;
		ev->u.exec.old_pid = get_int(ds, EXEC_OLD_PID, r, &v2) ? (int32_t)v2 : (int32_t)v;
		get_str(ds, EXEC_FILENAME, r, &ev->u.exec.filename);
		break;
	case EV_RENAME:
		if (!get_int(ds, RENAME_PID, r, &v))
			return DEC_BAD;
		ev->u.rename.pid = (int32_t)v;
		get_str(ds, RENAME_NEWCOMM, r, &ev->u.rename.comm);
		break;
	case EV_MOD_LOAD:
	case EV_MOD_FREE:
	case EV_MOD_PUT:
		get_str(ds, MOD_NAME, r, &ev->u.module.name);
		if (!ev->u.module.name.len)
			return DEC_BAD;
		ev->u.module.ip = get_int(ds, MOD_IP, r, &v) ? v : 0;
		ev->u.module.refcnt = get_int(ds, MOD_REFCNT, r, &v2) ? (int64_t)v2 : -1;
		break;
	case EV_MODSYS_ENTER:
	case EV_MODSYS_EXIT:
		v = 0;
		if (ds->kind == EV_MODSYS_EXIT && !get_int(ds, MODSYS_RET, r, &v))
			return DEC_BAD;
		ev->u.modsys.ret = (int64_t)v;
		ev->u.modsys.finit = ds->finit;
		break;
	case EV_STACK:
		return decode_stack(ds, r, ev);
	case EV_NEWTASK:
		if (!get_int(ds, NEWTASK_PID, r, &v) || !get_int(ds, NEWTASK_CLONE_FLAGS, r, &v2))
			return DEC_BAD;
		ev->u.newtask.pid = (int32_t)v;
		ev->u.newtask.clone_flags = v2;
		get_str(ds, NEWTASK_COMM, r, &ev->u.newtask.comm);
		break;
	case EV_COLLAPSE_ISOLATE:
		if (!get_int(ds, COLLAPSE_ISOLATE_PFN, r, &v) ||
		    !get_int(ds, COLLAPSE_ISOLATE_STATUS, r, &v2))
			return DEC_BAD;
		ev->u.collapse.pfn = v;
		ev->u.collapse.status = (int32_t)v2;
		break;
	case EV_COLLAPSE:
		if (!get_int(ds, COLLAPSE_STATUS, r, &v))
			return DEC_BAD;
		ev->u.collapse.pfn = 0;
		ev->u.collapse.status = (int32_t)v;
		break;
	case EV_MIGRATE_START:
	case EV_MIGRATE_END:
		ev->u.migrate.reason = get_int(ds, MIGRATE_REASON, r, &v) ? (int32_t)v : -1;
		break;
	case EV_MEMSYS_ENTER:
		return decode_memsys_enter(ds, r, ev);
	case EV_MEMSYS_EXIT:
		if (!get_int(ds, MEMSYS_RET, r, &v))
			return DEC_BAD;
		ev->u.memsys.call = ds->call;
		ev->u.memsys.ret = (int64_t)v;
		break;
	case EV_FAULT:
		if (!get_int(ds, FAULT_ADDRESS, r, &v))
			return DEC_BAD;
		ev->u.fault.address = v;
		ev->u.fault.ip = get_int(ds, FAULT_IP, r, &v) ? v : 0;
		ev->u.fault.error_code = get_int(ds, FAULT_ERROR_CODE, r, &v) ? v : 0;
		break;
	case EV_OOM_VICTIM:
		return decode_oom(ds, r, ev);
	default:
		return DEC_UNKNOWN;
	}
	return DEC_OK;
}
