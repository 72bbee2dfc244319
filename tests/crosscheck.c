// SPDX-License-Identifier: GPL-2.0-only
/*
 * crosscheck.c - reference cross-check of memtrace's own decoder against libtraceevent
 *
 * crosscheck [OPTIONS] DIR     DIR: a recording of memtrace --record (tracefs layout)
 *
 * Every per_cpu/cpuN/trace_pipe_raw file of DIR is walked sub-buffer by
 * sub-buffer, and each sub-buffer is decoded twice:
 *   (a) by memtrace: ringbuf.c (rb_page_open/rb_next), format.c (the format
 *       files and header_page) and event.c (decoder_add/decoder_decode);
 *   (b) by libtraceevent: kbuffer (kbuffer_load_subbuffer, kbuffer_read_event,
 *       kbuffer_next_event, kbuffer_missed_events, kbuffer_raw_get) and tep
 *       (tep_parse_header_page, tep_parse_event, tep_data_type, tep_data_pid,
 *       tep_data_flags, tep_read_number_field, tep_get_field_raw).
 * The two results are compared record by record: payload position and length,
 * absolute time stamp, event type id and, for the events memtrace decodes,
 * common_pid, common_flags and every field memtrace reads. Per sub-buffer:
 * page time stamp, commit size, record count, time extends, absolute time
 * stamps, discarded-event paddings and the missed-events flags and counts.
 * The format files are compared field by field (name, offset, size, signed,
 * kind), and memtrace's reader.c is run over the same files as --replay does:
 * its events must be the reference events (counted and hashed per kind).
 *
 * The libtraceevent side is written from libtraceevent's public API and from
 * what memtrace promises in event.h (which fields, failed-allocation pfn all
 * ones, group_dead -1 when absent, ...); it shares no decoding code with
 * memtrace.
 *
 * Exit: 0 all equal and at least one event compared, 1 a mismatch (or nothing
 * compared), 2 usage or I/O error.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* full paths: the project has a tracefs.h of its own */
#include <traceevent/event-parse.h>
#include <traceevent/kbuffer.h>
#ifndef CROSSCHECK_NO_TRACEFS
#include <tracefs/tracefs.h>
#endif

#include "kernel/event.h"
#include "kernel/format.h"
#include "kernel/reader.h"
#include "kernel/ringbuf.h"
#include "lib/util.h"

#define EXIT_MISMATCH	1
#define EXIT_ERR	2
#define MAX_EVENTS	32
#define MAX_CPUS	4096
#define TEXT_MAX	(1 << 20)
#define KB_COMMIT_MASK	((1u << 27) - 1)	/* only to keep kbuffer inside the page */

static struct {
	const char *dir;	/* what libtraceevent decodes */
	const char *mdir;	/* what memtrace decodes (--memtrace-dir; default dir) */
	const char *locate;	/* --locate SYS:EVENT:FIELD */
	const char *live_dir;	/* --live-formats[=TRACEFS] */
	bool live;
	bool formats_only;
	bool no_reader;
	bool big_endian;	/* the recording's byte order (--big-endian/--little-endian) */
	unsigned long max_print;
} opt = { .max_print = 20, .big_endian = RB_HOST_BE };

static uint64_t mismatches;
static uint64_t errors;

__attribute__((format(printf, 1, 2)))
static void mismatch(const char *fmt, ...)
{
	va_list ap;

	mismatches++;
	if (mismatches > opt.max_print)
		return;
	va_start(ap, fmt);
	fputs("MISMATCH ", stdout);
	vprintf(fmt, ap);
	fputc('\n', stdout);
	va_end(ap);
}

__attribute__((format(printf, 1, 2)))
static void error(const char *fmt, ...)
{
	va_list ap;

	errors++;
	va_start(ap, fmt);
	fputs("crosscheck: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

/* Whole file into a fresh NUL-terminated buffer; NULL (errno set) on failure. */
static char *slurp(const char *path, size_t *len)
{
	char *buf = malloc(TEXT_MAX + 1);
	size_t n = 0;
	ssize_t r;
	int fd;

	if (!buf)
		return NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		free(buf);
		return NULL;
	}
	while (n < TEXT_MAX && (r = read(fd, buf + n, TEXT_MAX - n)) != 0) {
		if (r < 0) {
			if (errno == EINTR)
				continue;
			close(fd);
			free(buf);
			return NULL;
		}
		n += (size_t)r;
	}
	close(fd);
	buf[n] = '\0';
	*len = n;
	return buf;
}

static bool exists(const char *path)
{
	return access(path, R_OK) == 0;
}

/* ------------------------------------------------------------ memtrace side -- */

static struct rb_layout mlayout;
static struct mt_decoder mdec;
static struct {
	const struct mt_tracepoint *tp;
	struct fmt_event fe;
	bool registered;	/* decoder_add() accepted it */
} mfmt[MAX_EVENTS];
static int nmfmt;

static int memtrace_load(const char *dir)
{
	const struct mt_tracepoint *tp;
	char path[PATH_MAX], err[256], *text;
	size_t len;

	snprintf(path, sizeof(path), "%s/events/header_page", dir);
	text = slurp(path, &len);
	if (!text) {
		error("%s: %s", path, strerror(errno));
		return -1;
	}
	if (fmt_parse_header_page(&mlayout, text, len, err, sizeof(err))) {
		free(text);
		error("%s: memtrace: %s", path, err);
		return -1;
	}
	free(text);
	/* told, as libtraceevent is (the reader below finds it from the pages itself) */
	mlayout.big_endian = opt.big_endian;
	decoder_init(&mdec);
	for (tp = mt_tracepoints; tp->system; tp++) {
		snprintf(path, sizeof(path), "%s/events/%s/%s/format", dir, tp->system, tp->name);
		if (!exists(path))
			continue;
		if (nmfmt >= MAX_EVENTS) {
			error("too many events");
			return -1;
		}
		text = slurp(path, &len);
		if (!text) {
			error("%s: %s", path, strerror(errno));
			return -1;
		}
		mfmt[nmfmt].tp = tp;
		snprintf(mfmt[nmfmt].fe.system, sizeof(mfmt[nmfmt].fe.system), "%s", tp->system);
		if (fmt_parse_event(&mfmt[nmfmt].fe, text, len, err, sizeof(err))) {
			/* libtraceevent may still parse it: reported in compare_formats() */
			printf("note: %s: memtrace cannot parse: %s\n", path, err);
			mfmt[nmfmt].fe.nfields = 0;
			mfmt[nmfmt].fe.id = UINT32_MAX;
		} else {
			mfmt[nmfmt].registered =
				decoder_add(&mdec, tp, &mfmt[nmfmt].fe, err, sizeof(err)) == 0;
			if (!mfmt[nmfmt].registered)
				printf("note: %s:%s: memtrace does not use it: %s\n", tp->system,
				       tp->name, err);
		}
		free(text);
		nmfmt++;
	}
	return 0;
}

/* ------------------------------------------------------- libtraceevent side -- */

static struct tep_handle *tep;
static struct kbuffer *kb;
static uint32_t rsubbuf;	/* sub-buffer size (tep_get_sub_buffer_size) */
static uint32_t rcommit;	/* commit word size (tep_get_header_page_size) */
static uint32_t rts;		/* time stamp size (tep_get_header_timestamp_size) */
static uint32_t rstart;		/* where kbuffer expects the data: time stamp + commit */

/*
 * What memtrace reads of each tracepoint (event.h): the reference decoder
 * looks these fields up in libtraceevent's parse of the same format files.
 */
struct want {
	const char *name;
	bool required;
	bool str;
	bool words;	/* an array of 4- or 8-byte words (kernel_stack's caller[]) */
};

static const struct want wants[EV__COUNT][6] = {
	[EV_PAGE_ALLOC] = { { "pfn", true, false }, { "order", true, false } },
	[EV_PAGE_FREE] = { { "pfn", true, false }, { "order", true, false } },
	[EV_FORK] = { { "parent_pid", true, false }, { "child_pid", true, false },
		      { "child_comm", false, true } },
	[EV_EXIT] = { { "pid", true, false }, { "comm", false, true },
		      { "group_dead", false, false } },
	[EV_EXEC] = { { "pid", true, false }, { "old_pid", false, false },
		      { "filename", false, true } },
	[EV_RENAME] = { { "pid", true, false }, { "newcomm", true, true } },
	[EV_MOD_LOAD] = { { "name", true, true } },
	[EV_MOD_PUT] = { { "name", true, true }, { "ip", false, false },
			 { "refcnt", false, false } },
	[EV_MOD_FREE] = { { "name", true, true } },
	[EV_MODSYS_EXIT] = { { "ret", true, false } },
	[EV_OOM_VICTIM] = { { "pid", true, false }, { "comm", false, true },
			    { "total_vm", false, false }, { "anon_rss", false, false },
			    { "file_rss", false, false }, { "shmem_rss", false, false } },
	[EV_NEWTASK] = { { "pid", true, false }, { "clone_flags", true, false },
			 { "comm", false, true } },
	[EV_STACK] = { { "size", true, false }, { "caller", true, false, true } },
	[EV_COLLAPSE_ISOLATE] = { { "pfn", true, false }, { "status", true, false } },
	[EV_COLLAPSE] = { { "status", true, false } },
	[EV_MIGRATE_START] = { { "reason", false, false } },
	[EV_MIGRATE_END] = { { "reason", false, false } },
};

struct ref_desc {
	const struct mt_tracepoint *tp;
	struct tep_event *ev;
	bool usable;
	const char *why;	/* why not usable */
	struct tep_format_field *pid, *flags;
	struct tep_format_field *f[6];
};

static struct ref_desc rdesc[MAX_EVENTS];
static int nrdesc;
static struct ref_desc *rby_id[65536];

static bool int_size(int size)
{
	return size == 1 || size == 2 || size == 4 || size == 8;
}

static bool is_stringish(const struct tep_format_field *f)
{
	return (f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC)) != 0;
}

static void ref_describe(struct ref_desc *d)
{
	struct tep_format_field *f;
	int i;

	d->usable = false;
	f = tep_find_common_field(d->ev, "common_type");
	if (!f || f->offset != 0 || f->size != 2) {
		d->why = "common_type is not a u16 at 0";
		return;
	}
	d->pid = tep_find_common_field(d->ev, "common_pid");
	if (!d->pid || !int_size(d->pid->size)) {
		d->why = "no usable common_pid";
		return;
	}
	d->flags = tep_find_common_field(d->ev, "common_flags");
	if (d->flags && !int_size(d->flags->size))
		d->flags = NULL;
	for (i = 0; i < 6 && wants[d->tp->kind][i].name; i++) {
		const struct want *w = &wants[d->tp->kind][i];

		f = tep_find_field(d->ev, w->name);
		if (f && w->words)
			f = (f->flags & TEP_FIELD_IS_ARRAY) &&
			    (f->elementsize == 4 || f->elementsize == 8) ? f : NULL;
		else if (f && (w->str ? !is_stringish(f) : !int_size(f->size)))
			f = NULL;
		if (!f && w->required) {
			d->why = "a required field is missing or unusable";
			return;
		}
		d->f[i] = f;
	}
	d->usable = true;
}

static int parse_event_file(struct tep_handle *t, const char *path, const char *sys)
{
	char *text;
	size_t len;

	text = slurp(path, &len);
	if (!text) {
		error("%s: %s", path, strerror(errno));
		return -1;
	}
	/* a print-fmt problem still leaves the fields parsed: checked by lookup */
	tep_parse_event(t, text, len, sys);
	free(text);
	return 0;
}

static int ref_load(const char *dir)
{
	char path[PATH_MAX], *text;
	const struct mt_tracepoint *tp;
	struct dirent *s, *e;
	size_t len;
	DIR *ds, *de;

	tep = tep_alloc();
	if (!tep) {
		error("tep_alloc failed");
		return -1;
	}
	tep_set_file_bigendian(tep, opt.big_endian ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	snprintf(path, sizeof(path), "%s/events/header_page", dir);
	text = slurp(path, &len);
	if (!text) {
		error("%s: %s", path, strerror(errno));
		return -1;
	}
	if (tep_parse_header_page(tep, text, len, (int)sizeof(long))) {
		free(text);
		error("%s: libtraceevent cannot parse it", path);
		return -1;
	}
	free(text);
	rcommit = (uint32_t)tep_get_header_page_size(tep);
	rts = (uint32_t)tep_get_header_timestamp_size(tep);
	rsubbuf = (uint32_t)tep_get_sub_buffer_size(tep);
	if ((rcommit != 4 && rcommit != 8) || rts != 8 || rsubbuf < 32 || rsubbuf > (1u << 27)) {
		error("%s: libtraceevent: commit %u, timestamp %u, sub-buffer %u bytes", path,
		      rcommit, rts, rsubbuf);
		return -1;
	}
	tep_set_long_size(tep, (int)rcommit);
	rstart = rts + rcommit;
	kb = kbuffer_alloc(rcommit == 8 ? KBUFFER_LSIZE_8 : KBUFFER_LSIZE_4,
			   opt.big_endian ? KBUFFER_ENDIAN_BIG : KBUFFER_ENDIAN_LITTLE);
	if (!kb) {
		error("kbuffer_alloc failed");
		return -1;
	}

	/* every format file of the recording, not only those memtrace knows */
	snprintf(path, sizeof(path), "%s/events", dir);
	ds = opendir(path);
	if (!ds) {
		error("%s: %s", path, strerror(errno));
		return -1;
	}
	/* readdir()'s NULL is the end or an error: errno (0 before) tells */
	while ((errno = 0, s = readdir(ds))) {
		if (s->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/events/%s", dir, s->d_name);
		de = opendir(path);
		if (!de)
			continue;	/* header_page, header_event */
		while ((errno = 0, e = readdir(de))) {
			if (e->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/events/%s/%s/format", dir, s->d_name,
				 e->d_name);
			if (exists(path) && parse_event_file(tep, path, s->d_name)) {
				closedir(de);
				closedir(ds);
				return -1;
			}
		}
		if (errno) {
			error("%s/events/%s: %s", dir, s->d_name, strerror(errno));
			closedir(de);
			closedir(ds);
			return -1;
		}
		closedir(de);
	}
	if (errno) {
		error("%s/events: %s", dir, strerror(errno));
		closedir(ds);
		return -1;
	}
	closedir(ds);

	for (tp = mt_tracepoints; tp->system; tp++) {
		struct tep_event *ev = tep_find_event_by_name(tep, tp->system, tp->name);
		struct ref_desc *d;

		if (!ev)
			continue;
		if (nrdesc >= MAX_EVENTS || ev->id < 0 || ev->id > 65535) {
			error("%s:%s: too many events or bad id %d", tp->system, tp->name, ev->id);
			return -1;
		}
		d = &rdesc[nrdesc++];
		d->tp = tp;
		d->ev = ev;
		ref_describe(d);
		if (d->usable)
			rby_id[ev->id] = d;
	}
	return 0;
}

/* An integer field of a record, sign-extended as the format says. */
static bool ref_int(const struct tep_format_field *f, const struct tep_record *rec, uint64_t *v)
{
	unsigned long long x;

	if (!f || f->offset < 0 || f->offset + f->size > rec->size)
		return false;
	if (tep_read_number_field((struct tep_format_field *)f, rec->data, &x))
		return false;
	if (f->flags & TEP_FIELD_IS_SIGNED) {
		switch (f->size) {
		case 1:
			x = (unsigned long long)(long long)(int8_t)x;
			break;
		case 2:
			x = (unsigned long long)(long long)(int16_t)x;
			break;
		case 4:
			x = (unsigned long long)(long long)(int32_t)x;
			break;
		default:
			break;
		}
	}
	*v = x;
	return true;
}

/* A string or byte-array field: up to its first NUL; empty if it lies outside the record. */
static void ref_str(struct ref_desc *d, const struct tep_format_field *f,
		    struct tep_record *rec, struct mt_str *out)
{
	const uint8_t *base = rec->data, *p;
	const void *nul;
	int len = 0;

	out->s = "";
	out->len = 0;
	if (!f || f->offset < 0 || f->offset + f->size > rec->size)
		return;
	p = tep_get_field_raw(NULL, d->ev, f->name, rec, &len, 0);
	if (!p)
		return;
	/* char buf[] of size 0 runs to the end of the payload */
	if (!(f->flags & TEP_FIELD_IS_DYNAMIC) && f->size == 0)
		len = rec->size - f->offset;
	if (p < base || len < 0 || p - base + len > rec->size)
		return;
	nul = memchr(p, '\0', (size_t)len);
	out->s = (const char *)p;
	out->len = nul ? (size_t)((const uint8_t *)nul - p) : (size_t)len;
}

/* The reference decoder: libtraceevent's reading of a record as a struct mt_event. */
static int ref_decode(struct tep_record *rec, uint32_t cpu, struct mt_event *ev)
{
	struct ref_desc *d;
	uint64_t v = 0, v2 = 0;
	int type;

	memset(ev, 0, sizeof(*ev));
	if (rec->size < 2)
		return DEC_BAD;
	type = tep_data_type(tep, rec);
	if (type < 0 || type > 65535 || !rby_id[type])
		return DEC_UNKNOWN;
	d = rby_id[type];
	ev->kind = d->tp->kind;
	ev->cpu = cpu;
	ev->ts = rec->ts;
	if (d->pid->offset + d->pid->size > rec->size)
		return DEC_BAD;
	ev->tid = (int32_t)tep_data_pid(tep, rec);
	if (d->flags && d->flags->offset + d->flags->size <= rec->size)
		ev->flags = (uint8_t)tep_data_flags(tep, rec);

	switch (ev->kind) {
	case EV_PAGE_ALLOC:
	case EV_PAGE_FREE:
		if (!ref_int(d->f[0], rec, &v) || !ref_int(d->f[1], rec, &v2))
			return DEC_BAD;
		/* the kernel writes -1UL for a failed allocation: all ones of the field */
		if (d->f[0]->size < 8 && v == (1ULL << (8 * d->f[0]->size)) - 1)
			v = UINT64_MAX;
		ev->u.page.pfn = v;
		ev->u.page.order = (uint32_t)v2;
		break;
	case EV_FORK:
		if (!ref_int(d->f[0], rec, &v) || !ref_int(d->f[1], rec, &v2))
			return DEC_BAD;
		ev->u.fork.parent = (int32_t)v;
		ev->u.fork.child = (int32_t)v2;
		ref_str(d, d->f[2], rec, &ev->u.fork.comm);
		break;
	case EV_EXIT:
		if (!ref_int(d->f[0], rec, &v))
			return DEC_BAD;
		ev->u.exit.pid = (int32_t)v;
		ref_str(d, d->f[1], rec, &ev->u.exit.comm);
		ev->u.exit.group_dead = ref_int(d->f[2], rec, &v2) ? (v2 != 0) : -1;
		break;
	case EV_EXEC:
		if (!ref_int(d->f[0], rec, &v))
			return DEC_BAD;
		ev->u.exec.pid = (int32_t)v;
		ev->u.exec.old_pid = ref_int(d->f[1], rec, &v2) ? (int32_t)v2 : (int32_t)v;
		ref_str(d, d->f[2], rec, &ev->u.exec.filename);
		break;
	case EV_RENAME:
		if (!ref_int(d->f[0], rec, &v))
			return DEC_BAD;
		ev->u.rename.pid = (int32_t)v;
		ref_str(d, d->f[1], rec, &ev->u.rename.comm);
		break;
	case EV_MOD_LOAD:
	case EV_MOD_PUT:
	case EV_MOD_FREE:
		ref_str(d, d->f[0], rec, &ev->u.module.name);
		if (!ev->u.module.name.len)
			return DEC_BAD;
		ev->u.module.ip = ref_int(d->f[1], rec, &v) ? v : 0;
		ev->u.module.refcnt = ref_int(d->f[2], rec, &v2) ? (int64_t)v2 : -1;
		break;
	case EV_MODSYS_ENTER:
	case EV_MODSYS_EXIT:
		if (ev->kind == EV_MODSYS_EXIT) {
			if (!ref_int(d->f[0], rec, &v))
				return DEC_BAD;
			ev->u.modsys.ret = (int64_t)v;
		}
		ev->u.modsys.finit = strstr(d->tp->name, "finit_module") != NULL;
		break;
	case EV_NEWTASK:
		if (!ref_int(d->f[0], rec, &v) || !ref_int(d->f[1], rec, &v2))
			return DEC_BAD;
		ev->u.newtask.pid = (int32_t)v;
		ev->u.newtask.clone_flags = v2;
		ref_str(d, d->f[2], rec, &ev->u.newtask.comm);
		break;
	case EV_OOM_VICTIM:
		if (!ref_int(d->f[0], rec, &v))
			return DEC_BAD;
		ev->u.oom.pid = (int32_t)v;
		ref_str(d, d->f[1], rec, &ev->u.oom.comm);
		ev->u.oom.total_vm_kb = ref_int(d->f[2], rec, &v) ? v : 0;
		ev->u.oom.anon_rss_kb = ref_int(d->f[3], rec, &v) ? v : 0;
		ev->u.oom.file_rss_kb = ref_int(d->f[4], rec, &v) ? v : 0;
		ev->u.oom.shmem_rss_kb = ref_int(d->f[5], rec, &v) ? v : 0;
		break;
	case EV_COLLAPSE_ISOLATE:
		if (!ref_int(d->f[0], rec, &v) || !ref_int(d->f[1], rec, &v2))
			return DEC_BAD;
		ev->u.collapse.pfn = v;
		ev->u.collapse.status = (int32_t)v2;
		break;
	case EV_COLLAPSE:
		if (!ref_int(d->f[0], rec, &v))
			return DEC_BAD;
		ev->u.collapse.status = (int32_t)v;
		break;
	case EV_MIGRATE_START:
	case EV_MIGRATE_END:
		ev->u.migrate.reason = ref_int(d->f[0], rec, &v) ? (int32_t)v : -1;
		break;
	case EV_STACK: {
		/*
		 * The format's caller[8] is a minimum: the kernel writes @size
		 * words and sizes the record to hold them. The words the record
		 * holds, at most @size, from libtraceevent's field offset and
		 * element size and the record size kbuffer gives.
		 */
		const struct tep_format_field *c = d->f[1];
		int64_t n;
		uint32_t elem, room;

		if (!ref_int(d->f[0], rec, &v) || !c || c->offset < 0 || c->offset > rec->size)
			return DEC_BAD;
		elem = c->elementsize ? (uint32_t)c->elementsize : 8;
		n = (int64_t)(int32_t)v;
		if (n < 0)
			return DEC_BAD;
		room = (uint32_t)(rec->size - c->offset) / elem;
		ev->u.stack.frames = (const uint8_t *)rec->data + c->offset;
		ev->u.stack.n = (uint64_t)n < room ? (uint32_t)n : room;
		ev->u.stack.elem = (uint8_t)elem;
		break;
	}
	default:
		return DEC_UNKNOWN;
	}
	return DEC_OK;
}

/* ------------------------------------------------------------- comparisons -- */

/* Where we are, for mismatch lines. */
static char where[256];

static void diff_u(const char *what, uint64_t m, uint64_t r)
{
	if (m != r)
		mismatch("%s: %s: memtrace %" PRIu64 " (0x%" PRIx64 "), libtraceevent %" PRIu64
			 " (0x%" PRIx64 ")", where, what, m, m, r, r);
}

static void diff_s(const char *what, int64_t m, int64_t r)
{
	if (m != r)
		mismatch("%s: %s: memtrace %" PRId64 ", libtraceevent %" PRId64, where, what, m, r);
}

static void show(char *out, size_t size, const struct mt_str *s)
{
	size_t i, o = 0;

	for (i = 0; i < s->len && o + 5 < size; i++) {
		unsigned char ch = (unsigned char)s->s[i];

		if (isprint(ch) && ch != '"' && ch != '\\')
			out[o++] = (char)ch;
		else
			o += (size_t)snprintf(out + o, size - o, "\\x%02x", ch);
	}
	out[o] = '\0';
}

static void diff_str(const char *what, const struct mt_str *m, const struct mt_str *r)
{
	char a[80], b[80];

	if (m->len == r->len && (!m->len || !memcmp(m->s, r->s, m->len)))
		return;
	show(a, sizeof(a), m);
	show(b, sizeof(b), r);
	mismatch("%s: %s: memtrace \"%s\" (%zu bytes), libtraceevent \"%s\" (%zu bytes)", where,
		 what, a, m->len, b, r->len);
}

static void compare_events(const struct mt_event *m, const struct mt_event *r)
{
	diff_u("kind", m->kind, r->kind);
	if (m->kind != r->kind)
		return;
	diff_u("cpu", m->cpu, r->cpu);
	diff_u("event ts", m->ts, r->ts);
	diff_s("common_pid", m->tid, r->tid);
	diff_u("common_flags", m->flags, r->flags);
	switch (m->kind) {
	case EV_PAGE_ALLOC:
	case EV_PAGE_FREE:
		diff_u("pfn", m->u.page.pfn, r->u.page.pfn);
		diff_u("order", m->u.page.order, r->u.page.order);
		break;
	case EV_FORK:
		diff_s("parent_pid", m->u.fork.parent, r->u.fork.parent);
		diff_s("child_pid", m->u.fork.child, r->u.fork.child);
		diff_str("child_comm", &m->u.fork.comm, &r->u.fork.comm);
		break;
	case EV_EXIT:
		diff_s("pid", m->u.exit.pid, r->u.exit.pid);
		diff_s("group_dead", m->u.exit.group_dead, r->u.exit.group_dead);
		diff_str("comm", &m->u.exit.comm, &r->u.exit.comm);
		break;
	case EV_EXEC:
		diff_s("pid", m->u.exec.pid, r->u.exec.pid);
		diff_s("old_pid", m->u.exec.old_pid, r->u.exec.old_pid);
		diff_str("filename", &m->u.exec.filename, &r->u.exec.filename);
		break;
	case EV_RENAME:
		diff_s("pid", m->u.rename.pid, r->u.rename.pid);
		diff_str("newcomm", &m->u.rename.comm, &r->u.rename.comm);
		break;
	case EV_MOD_LOAD:
	case EV_MOD_PUT:
	case EV_MOD_FREE:
		diff_str("name", &m->u.module.name, &r->u.module.name);
		diff_u("ip", m->u.module.ip, r->u.module.ip);
		diff_s("refcnt", m->u.module.refcnt, r->u.module.refcnt);
		break;
	case EV_MODSYS_ENTER:
	case EV_MODSYS_EXIT:
		diff_s("ret", m->u.modsys.ret, r->u.modsys.ret);
		diff_u("finit", m->u.modsys.finit, r->u.modsys.finit);
		break;
	case EV_NEWTASK:
		diff_s("pid", m->u.newtask.pid, r->u.newtask.pid);
		diff_u("clone_flags", m->u.newtask.clone_flags, r->u.newtask.clone_flags);
		diff_str("comm", &m->u.newtask.comm, &r->u.newtask.comm);
		break;
	case EV_COLLAPSE_ISOLATE:
	case EV_COLLAPSE:
		diff_u("collapse pfn", m->u.collapse.pfn, r->u.collapse.pfn);
		diff_s("collapse status", m->u.collapse.status, r->u.collapse.status);
		break;
	case EV_MIGRATE_START:
	case EV_MIGRATE_END:
		diff_s("migrate reason", m->u.migrate.reason, r->u.migrate.reason);
		break;
	case EV_STACK: {
		uint32_t i;

		diff_u("stack frames", m->u.stack.n, r->u.stack.n);
		diff_u("stack word size", m->u.stack.elem, r->u.stack.elem);
		for (i = 0; i < m->u.stack.n && i < r->u.stack.n && m->u.stack.elem == 8 &&
		     r->u.stack.elem == 8; i++) {
			uint64_t a, b;

			a = rb_ld64(m->u.stack.frames + 8 * i, m->u.stack.big_endian);
			b = rb_ld64(r->u.stack.frames + 8 * i, opt.big_endian);
			diff_u("stack frame", a, b);
		}
		break;
	}
	case EV_OOM_VICTIM:
		diff_s("pid", m->u.oom.pid, r->u.oom.pid);
		diff_str("comm", &m->u.oom.comm, &r->u.oom.comm);
		diff_u("total_vm", m->u.oom.total_vm_kb, r->u.oom.total_vm_kb);
		diff_u("anon_rss", m->u.oom.anon_rss_kb, r->u.oom.anon_rss_kb);
		diff_u("file_rss", m->u.oom.file_rss_kb, r->u.oom.file_rss_kb);
		diff_u("shmem_rss", m->u.oom.shmem_rss_kb, r->u.oom.shmem_rss_kb);
		break;
	default:
		break;
	}
}

/* Order-independent digest of an event's content (for the reader.c check). */
static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const uint8_t *b = p;

	while (n--) {
		h ^= *b++;
		h *= 0x100000001b3ULL;
	}
	return h;
}

static uint64_t fnv_u(uint64_t h, uint64_t v)
{
	return fnv(h, &v, sizeof(v));
}

static uint64_t fnv_s(uint64_t h, const struct mt_str *s)
{
	return fnv(fnv_u(h, s->len), s->s, s->len);
}

static uint64_t ev_hash(const struct mt_event *e)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	h = fnv_u(h, (uint64_t)e->kind);
	h = fnv_u(h, e->cpu);
	h = fnv_u(h, e->ts);
	h = fnv_u(h, (uint64_t)(int64_t)e->tid);
	h = fnv_u(h, e->flags);
	switch (e->kind) {
	case EV_PAGE_ALLOC:
	case EV_PAGE_FREE:
		h = fnv_u(fnv_u(h, e->u.page.pfn), e->u.page.order);
		break;
	case EV_FORK:
		h = fnv_u(fnv_u(h, (uint64_t)e->u.fork.parent), (uint64_t)e->u.fork.child);
		h = fnv_s(h, &e->u.fork.comm);
		break;
	case EV_EXIT:
		h = fnv_u(fnv_u(h, (uint64_t)e->u.exit.pid), (uint64_t)e->u.exit.group_dead);
		h = fnv_s(h, &e->u.exit.comm);
		break;
	case EV_EXEC:
		h = fnv_u(fnv_u(h, (uint64_t)e->u.exec.pid), (uint64_t)e->u.exec.old_pid);
		h = fnv_s(h, &e->u.exec.filename);
		break;
	case EV_RENAME:
		h = fnv_s(fnv_u(h, (uint64_t)e->u.rename.pid), &e->u.rename.comm);
		break;
	case EV_MOD_LOAD:
	case EV_MOD_PUT:
	case EV_MOD_FREE:
		h = fnv_u(fnv_u(h, e->u.module.ip), (uint64_t)e->u.module.refcnt);
		h = fnv_s(h, &e->u.module.name);
		break;
	case EV_MODSYS_ENTER:
	case EV_MODSYS_EXIT:
		h = fnv_u(fnv_u(h, (uint64_t)e->u.modsys.ret), e->u.modsys.finit);
		break;
	case EV_NEWTASK:
		h = fnv_u(fnv_u(h, (uint64_t)e->u.newtask.pid), e->u.newtask.clone_flags);
		h = fnv_s(h, &e->u.newtask.comm);
		break;
	case EV_COLLAPSE_ISOLATE:
	case EV_COLLAPSE:
		h = fnv_u(fnv_u(h, e->u.collapse.pfn), (uint64_t)e->u.collapse.status);
		break;
	case EV_MIGRATE_START:
	case EV_MIGRATE_END:
		h = fnv_u(h, (uint64_t)e->u.migrate.reason);
		break;
	case EV_STACK:
		h = fnv_u(fnv_u(h, e->u.stack.n), e->u.stack.elem);
		h = fnv(h, e->u.stack.frames, (size_t)e->u.stack.n * e->u.stack.elem);
		break;
	case EV_OOM_VICTIM:
		h = fnv_u(h, (uint64_t)e->u.oom.pid);
		h = fnv_s(h, &e->u.oom.comm);
		h = fnv_u(fnv_u(h, e->u.oom.total_vm_kb), e->u.oom.anon_rss_kb);
		h = fnv_u(fnv_u(h, e->u.oom.file_rss_kb), e->u.oom.shmem_rss_kb);
		break;
	default:
		break;
	}
	return h;
}

static const char *kind_of_field(const struct fmt_field *f)
{
	static const char *const names[] = { "plain", "array", "__data_loc", "__rel_loc",
					     "dynamic tail" };

	return f->kind < sizeof(names) / sizeof(names[0]) ? names[f->kind] : "?";
}

static const char *kind_of_tep(const struct tep_format_field *f)
{
	if ((f->flags & TEP_FIELD_IS_DYNAMIC) && (f->flags & TEP_FIELD_IS_RELATIVE))
		return "__rel_loc";
	if (f->flags & TEP_FIELD_IS_DYNAMIC)
		return "__data_loc";
	if ((f->flags & TEP_FIELD_IS_ARRAY) && f->size == 0)
		return "dynamic tail";
	if (f->flags & TEP_FIELD_IS_ARRAY)
		return "array";
	return "plain";
}

static uint64_t fields_compared, formats_compared;

/* memtrace's parse of header_page and the format files against libtraceevent's. */
static void compare_formats(void)
{
	int i;
	uint32_t k;

	snprintf(where, sizeof(where), "header_page");
	diff_u("sub-buffer size", rb_subbuf_size(&mlayout), rsubbuf);
	diff_u("commit word size", mlayout.commit_size, rcommit);
	diff_u("data offset (time stamp + commit)", mlayout.data_off, rstart);
	for (i = 0; i < nmfmt; i++) {
		const struct mt_tracepoint *tp = mfmt[i].tp;
		const struct fmt_event *fe = &mfmt[i].fe;
		struct tep_event *ev = tep_find_event_by_name(tep, tp->system, tp->name);
		struct ref_desc *d = NULL;
		int j, ntep;

		snprintf(where, sizeof(where), "format %s:%s", tp->system, tp->name);
		if (!ev) {
			mismatch("%s: memtrace parsed it, libtraceevent did not", where);
			continue;
		}
		formats_compared++;
		if (fe->id == UINT32_MAX) {
			mismatch("%s: libtraceevent parsed it, memtrace did not", where);
			continue;
		}
		diff_u("event id", fe->id, (uint64_t)ev->id);
		ntep = ev->format.nr_common + ev->format.nr_fields;
		diff_u("number of fields", fe->nfields, (uint64_t)ntep);
		for (k = 0; k < fe->nfields; k++) {
			const struct fmt_field *mf = &fe->fields[k];
			struct tep_format_field *tf = tep_find_any_field(ev, mf->name);

			snprintf(where, sizeof(where), "format %s:%s field %s", tp->system,
				 tp->name, mf->name);
			fields_compared++;
			if (!tf) {
				mismatch("%s: not found by libtraceevent", where);
				continue;
			}
			diff_u("offset", mf->offset, (uint64_t)tf->offset);
			diff_u("size", mf->size, (uint64_t)tf->size);
			diff_u("signed", mf->is_signed, (tf->flags & TEP_FIELD_IS_SIGNED) != 0);
			diff_u("common field", mf->common,
			       tep_find_common_field(ev, mf->name) != NULL);
			if (strcmp(kind_of_field(mf), kind_of_tep(tf)))
				mismatch("%s: kind: memtrace %s, libtraceevent %s", where,
					 kind_of_field(mf), kind_of_tep(tf));
		}
		for (j = 0; j < nrdesc; j++)
			if (rdesc[j].tp == tp)
				d = &rdesc[j];
		snprintf(where, sizeof(where), "format %s:%s", tp->system, tp->name);
		if (d && mfmt[i].registered != d->usable)
			mismatch("%s: memtrace %s, reference %s", where,
				 mfmt[i].registered ? "uses it" : "does not use it",
				 d->usable ? "uses it" : d->why);
	}
	/* formats libtraceevent found for memtrace's events but memtrace did not read */
	for (i = 0; i < nrdesc; i++) {
		int j;
		bool seen = false;

		for (j = 0; j < nmfmt; j++)
			seen |= mfmt[j].tp == rdesc[i].tp;
		if (!seen)
			mismatch("format %s:%s: libtraceevent has it, memtrace did not load it",
				 rdesc[i].tp->system, rdesc[i].tp->name);
	}
}

#ifndef CROSSCHECK_NO_TRACEFS
static const char *flag_kind(unsigned long flags)
{
	if ((flags & TEP_FIELD_IS_DYNAMIC) && (flags & TEP_FIELD_IS_RELATIVE))
		return "__rel_loc";
	if (flags & TEP_FIELD_IS_DYNAMIC)
		return "__data_loc";
	if (flags & TEP_FIELD_IS_ARRAY)
		return "array";
	return "plain";
}

static void compare_field_lists(const char *ev_name, struct tep_format_field **rec_f,
				struct tep_format_field **live_f)
{
	int i;

	for (i = 0; rec_f && rec_f[i]; i++) {
		struct tep_format_field *a = rec_f[i], *b = NULL;
		int j;

		for (j = 0; live_f && live_f[j]; j++)
			if (!strcmp(live_f[j]->name, a->name))
				b = live_f[j];
		snprintf(where, sizeof(where), "live format %s field %s", ev_name, a->name);
		fields_compared++;
		if (!b) {
			mismatch("%s: in the recording, not in the live tracefs", where);
			continue;
		}
		if (a->offset != b->offset || a->size != b->size ||
		    (a->flags & TEP_FIELD_IS_SIGNED) != (b->flags & TEP_FIELD_IS_SIGNED) ||
		    strcmp(flag_kind(a->flags), flag_kind(b->flags)))
			mismatch("%s: recording offset %d size %d signed %d %s, live offset %d "
				 "size %d signed %d %s", where, a->offset, a->size,
				 (a->flags & TEP_FIELD_IS_SIGNED) != 0, flag_kind(a->flags),
				 b->offset, b->size, (b->flags & TEP_FIELD_IS_SIGNED) != 0,
				 flag_kind(b->flags));
	}
	for (i = 0; live_f && live_f[i]; i++) {
		bool found = false;
		int j;

		for (j = 0; rec_f && rec_f[j]; j++)
			found |= !strcmp(rec_f[j]->name, live_f[i]->name);
		if (!found)
			mismatch("live format %s field %s: live, not in the recording", ev_name,
				 live_f[i]->name);
	}
}

/* The recording's formats (parsed by tep) against what libtracefs loads from the kernel. */
static int compare_live_formats(void)
{
	const char *tdir = opt.live_dir ? opt.live_dir : tracefs_tracing_dir();
	const char *systems[MAX_EVENTS + 1];
	struct tep_handle *live;
	int i, j, ns = 0;

	if (!tdir) {
		error("--live-formats: no tracefs found");
		return -1;
	}
	for (i = 0; i < nrdesc; i++) {
		for (j = 0; j < ns; j++)
			if (!strcmp(systems[j], rdesc[i].tp->system))
				break;
		if (j == ns)
			systems[ns++] = rdesc[i].tp->system;
	}
	systems[ns] = NULL;
	tracefs_set_loglevel(TEP_LOG_NONE);
	live = tracefs_local_events_system(tdir, systems);
	if (!live) {
		error("--live-formats: libtracefs cannot load the events of %s", tdir);
		return -1;
	}
	snprintf(where, sizeof(where), "live header_page (%s)", tdir);
	diff_u("commit word size", rcommit, (uint64_t)tep_get_header_page_size(live));
	diff_u("time stamp size", rts, (uint64_t)tep_get_header_timestamp_size(live));
	for (i = 0; i < nrdesc; i++) {
		struct tep_event *a = rdesc[i].ev, *b;
		char name[160];
		struct tep_format_field **rc, **lc, **rf, **lf;

		snprintf(name, sizeof(name), "%s:%s", a->system, a->name);
		b = tep_find_event_by_name(live, a->system, a->name);
		if (!b) {
			mismatch("live format %s: in the recording, not in %s", name, tdir);
			continue;
		}
		formats_compared++;
		if (a->id != b->id)
			mismatch("live format %s: id %d in the recording, %d live", name, a->id,
				 b->id);
		rc = tep_event_common_fields(a);
		lc = tep_event_common_fields(b);
		rf = tep_event_fields(a);
		lf = tep_event_fields(b);
		compare_field_lists(name, rc, lc);
		compare_field_lists(name, rf, lf);
		free(rc);
		free(lc);
		free(rf);
		free(lf);
	}
	printf("live formats: %" PRIu64 " events of %s compared with the recording\n",
	       formats_compared, tdir);
	tep_free(live);
	return 0;
}
#endif

/* ---------------------------------------------------------------- the walk -- */

struct totals {
	uint64_t subbufs, records, extends, stamps, paddings, null_paddings;
	uint64_t missed_hidden, rejected, short_tail;
	uint64_t unknown, bad;
	uint64_t kind[EV__COUNT];
	uint64_t hash[EV__COUNT];	/* sum of ev_hash() of the reference events */
	uint64_t m_missed_pages, m_missed_unknown, m_lost;	/* memtrace's, for reader.c */
};

static struct totals tot;

static ssize_t read_full(int fd, uint8_t *buf, size_t size)
{
	size_t n = 0;
	ssize_t r;

	while (n < size) {
		r = read(fd, buf + n, size - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		if (r == 0)
			break;
		n += (size_t)r;
	}
	return (ssize_t)n;
}

static uint64_t read_commit(const uint8_t *page)
{
	return rb_ldword(page + rts, rcommit, opt.big_endian);
}

/* Per-page libtraceevent view of the record types, by kbuffer_raw_get(). */
static void raw_types(uint8_t *page, uint64_t *ext, uint64_t *stamps, uint64_t *pads,
		      uint64_t *nulls)
{
	struct kbuffer_raw_info ri = { .next = page + rstart };
	uint32_t guard = 0;

	*ext = *stamps = *pads = *nulls = 0;
	while (guard++ < rsubbuf && kbuffer_raw_get(kb, page, &ri)) {
		switch (ri.type) {
		case KBUFFER_TYPE_PADDING:
			if (ri.delta)
				(*pads)++;
			else
				(*nulls)++;
			break;
		case KBUFFER_TYPE_TIME_EXTEND:
			(*ext)++;
			break;
		case KBUFFER_TYPE_TIME_STAMP:
			(*stamps)++;
			break;
		default:
			break;
		}
	}
}

/* Compare one sub-buffer; mpage/mn what memtrace got, rpage/rn the reference copy. */
static void compare_page(int cpu, uint64_t idx, const uint8_t *mpage, size_t mn,
			 uint8_t *rpage, size_t rn, struct totals *t)
{
	struct rb_cursor c;
	struct rb_page_info info;
	struct rb_record r;
	uint64_t fileoff = idx * rsubbuf, ext, stamps, pads, nulls;
	unsigned long long kts = 0;
	uint32_t rsize, nrec = 0, mcount = 0, kcount = 0;
	int mopen, mres, missed;
	bool rvalid;
	void *kd;

	t->subbufs++;
	snprintf(where, sizeof(where), "cpu%d sub-buffer %" PRIu64 " (file offset 0x%" PRIx64
		 ")", cpu, idx, fileoff);
	mopen = rb_page_open(&c, &mlayout, mpage, mn, &info);
	rsize = (uint32_t)read_commit(rpage) & KB_COMMIT_MASK;
	rvalid = rn >= rstart && rsize <= rn - rstart;
	if (mopen != 0 || !rvalid) {
		if ((mopen == 0) != rvalid)
			mismatch("%s: page usable: memtrace %s, libtraceevent commit %u of %zu bytes",
				 where, mopen == 0 ? "yes" : "no", rsize, rn);
		t->rejected++;
		return;
	}
	if (kbuffer_load_subbuffer(kb, rpage)) {
		mismatch("%s: kbuffer_load_subbuffer failed", where);
		return;
	}
	diff_u("page time stamp", info.ts, kbuffer_subbuf_timestamp(kb, rpage));
	diff_u("commit size", info.size, (uint64_t)kbuffer_subbuffer_size(kb));
	diff_u("data offset", mlayout.data_off,
	       (uint64_t)(kbuffer_curr_offset(kb) - kbuffer_curr_index(kb)));

	/*
	 * kbuffer_missed_events() answers only while the first data record is
	 * at the start of the data: -1 = missed, count not stored; N > 0 = N
	 * stored; 0 = none (or a stored count of 0).
	 */
	if (info.missed) {
		t->m_missed_pages++;
		if (info.missed_stored)
			t->m_lost += info.lost;
		else
			t->m_missed_unknown++;
	}
	if (kbuffer_curr_index(kb) == 0) {
		int want = !info.missed ? 0 : !info.missed_stored ? -1 : (int)info.lost;

		missed = kbuffer_missed_events(kb);
		if (missed != want)
			mismatch("%s: missed events: memtrace %s (lost %" PRIu64 "), "
				 "libtraceevent kbuffer_missed_events %d", where,
				 !info.missed ? "none" : info.missed_stored ? "flagged, count stored" :
				 "flagged, no count", info.lost, missed);
	} else if (info.missed) {
		/* libtraceevent's API cannot say: counted, never silently "equal" */
		t->missed_hidden++;
	}

	/* padding and time stamp records, as kbuffer_raw_get() walks them */
	raw_types(rpage, &ext, &stamps, &pads, &nulls);
	t->null_paddings += nulls;

	kd = kbuffer_read_event(kb, &kts);
	mres = rb_next(&c, &r);
	while (kd || mres == RB_RECORD) {
		struct tep_record rec;
		struct mt_event mev, rev;
		uint32_t moff, roff;
		uint16_t mid;
		int rd, md, rtype, ksize;

		if (!kd || mres != RB_RECORD) {
			/* count what is left on either side */
			while (mres == RB_RECORD) {
				mcount++;
				mres = rb_next(&c, &r);
			}
			while (kd && kcount < rsubbuf) {
				kcount++;
				kd = kbuffer_next_event(kb, &kts);
			}
			break;
		}
		mcount++;
		kcount++;
		nrec++;
		t->records++;
		moff = (uint32_t)(r.data - mpage);
		roff = (uint32_t)((uint8_t *)kd - rpage);
		ksize = kbuffer_event_size(kb);
		snprintf(where, sizeof(where), "cpu%d sub-buffer %" PRIu64 " (file offset 0x%"
			 PRIx64 ") record %u (payload at page offset 0x%x)", cpu, idx, fileoff,
			 nrec - 1, roff);
		diff_u("payload offset", moff, roff);
		diff_u("payload length", r.len, (uint64_t)ksize);
		diff_u("time stamp", r.ts, kts);

		memset(&rec, 0, sizeof(rec));
		rec.ts = kts;
		rec.cpu = cpu;
		rec.data = kd;
		rec.size = ksize < 0 ? 0 : ksize;
		if ((uint32_t)rec.size > rn - roff)	/* stay inside the page */
			rec.size = (int)(rn - roff);
		rec.record_size = rec.size;
		rtype = rec.size >= 2 ? tep_data_type(tep, &rec) : -1;
		mid = 0;
		if (r.len >= 2)
			mid = rb_ld16(r.data, r.big_endian);
		diff_s("event type id", r.len >= 2 ? mid : -1, rtype);

		md = decoder_decode(&mdec, &r, (uint32_t)cpu, &mev);
		rd = ref_decode(&rec, (uint32_t)cpu, &rev);
		if (md != rd) {
			static const char *const res[] = { "malformed", "not decoded", "decoded" };

			mismatch("%s: type %d: memtrace %s, libtraceevent %s", where, rtype,
				 res[md + 1], res[rd + 1]);
		} else if (md == DEC_OK) {
			compare_events(&mev, &rev);
		}
		if (rd == DEC_OK) {
			t->kind[rev.kind]++;
			t->hash[rev.kind] += ev_hash(&rev);
		} else if (rd == DEC_UNKNOWN) {
			t->unknown++;
		} else {
			t->bad++;
		}

		kd = kbuffer_next_event(kb, &kts);
		mres = rb_next(&c, &r);
		if (kcount >= rsubbuf)	/* a kbuffer loop on a broken page */
			break;
	}
	snprintf(where, sizeof(where), "cpu%d sub-buffer %" PRIu64 " (file offset 0x%" PRIx64
		 ")", cpu, idx, fileoff);
	diff_u("records", mcount, kcount);
	diff_u("malformed records (memtrace)", c.corrupt, 0);
	diff_u("time extends", c.time_extends, ext);
	diff_u("absolute time stamps", c.time_stamps, stamps);
	diff_u("discarded-event paddings", c.paddings, pads);
	t->extends += ext;
	t->stamps += stamps;
	t->paddings += pads;
}

static int cpu_list(const char *dir, int *cpus)
{
	char path[PATH_MAX];
	int n, *ids;

	snprintf(path, sizeof(path), "%s/per_cpu", dir);
	/* memtrace's own listing: sorted, and a readdir() error is an error */
	n = cpu_dirs(path, &ids);
	if (n < 0) {
		error("%s: %s", path, strerror(-n));
		return -1;
	}
	if (n > MAX_CPUS)
		n = MAX_CPUS;
	if (n)
		memcpy(cpus, ids, (size_t)n * sizeof(*cpus));
	free(ids);
	return n;
}

static int walk_cpu(int cpu)
{
	char rpath[PATH_MAX], mpath[PATH_MAX];
	struct totals before = tot;
	uint8_t *rpage = NULL, *mpage = NULL;
	struct stat rs, ms;
	int rfd, mfd = -1, ret = -1;
	uint64_t idx;

	snprintf(rpath, sizeof(rpath), "%s/per_cpu/cpu%d/trace_pipe_raw", opt.dir, cpu);
	snprintf(mpath, sizeof(mpath), "%s/per_cpu/cpu%d/trace_pipe_raw", opt.mdir, cpu);
	rfd = open(rpath, O_RDONLY | O_CLOEXEC);
	if (rfd < 0 || fstat(rfd, &rs) || !S_ISREG(rs.st_mode)) {
		error("%s: %s", rpath, rfd < 0 ? strerror(errno) : "not a regular file");
		goto out;
	}
	mfd = open(mpath, O_RDONLY | O_CLOEXEC);
	if (mfd < 0 || fstat(mfd, &ms) || !S_ISREG(ms.st_mode)) {
		error("%s: %s", mpath, mfd < 0 ? strerror(errno) : "not a regular file");
		goto out;
	}
	if (rs.st_size != ms.st_size) {
		error("%s and %s differ in size", rpath, mpath);
		goto out;
	}
	/* room behind the page: kbuffer may read a stored lost count at its very end */
	rpage = calloc(1, rsubbuf + 16);
	mpage = calloc(1, rsubbuf);
	if (!rpage || !mpage) {
		error("out of memory");
		goto out;
	}
	for (idx = 0;; idx++) {
		ssize_t rn = read_full(rfd, rpage, rsubbuf);
		ssize_t mn = read_full(mfd, mpage, rsubbuf);

		if (rn < 0 || mn < 0) {
			error("%s: read: %s", rpath, strerror(errno));
			goto out;
		}
		if (rn == 0)
			break;
		memset(rpage + rn, 0, rsubbuf + 16 - (size_t)rn);
		if ((size_t)rn < rsubbuf)
			tot.short_tail++;
		compare_page(cpu, idx, mpage, (size_t)mn, rpage, (size_t)rn, &tot);
	}
	printf("cpu%d: %" PRIu64 " sub-buffers, %" PRIu64 " records, %" PRIu64
	       " time extends, %" PRIu64 " time stamps, %" PRIu64 " paddings, %" PRIu64
	       " pages with missed events (%" PRIu64 " lost)\n", cpu,
	       tot.subbufs - before.subbufs, tot.records - before.records,
	       tot.extends - before.extends, tot.stamps - before.stamps,
	       tot.paddings - before.paddings, tot.m_missed_pages - before.m_missed_pages,
	       tot.m_lost - before.m_lost);
	ret = 0;
out:
	free(rpage);
	free(mpage);
	if (rfd >= 0)
		close(rfd);
	if (mfd >= 0)
		close(mfd);
	return ret;
}

/* ----------------------------------------------------- memtrace's reader.c -- */

static struct {
	uint64_t kind[EV__COUNT];
	uint64_t hash[EV__COUNT];
} rsink;

static void reader_sink_fn(void *ctx, const struct mt_event *ev)
{
	(void)ctx;
	if ((unsigned)ev->kind < EV__COUNT) {
		rsink.kind[ev->kind]++;
		rsink.hash[ev->kind] += ev_hash(ev);
	}
}

/* Replay the files through reader.c as memtrace --replay does; compare with the reference. */
static int check_reader(const int *cpus, int n)
{
	static struct reader rd;
	char path[PATH_MAX];
	uint64_t lost = 0, missed = 0, unknown = 0, corrupt = 0;
	int *fds = calloc((size_t)n, sizeof(int)), i, k, ret = -1;

	if (!fds) {
		error("out of memory");
		return -1;
	}
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/per_cpu/cpu%d/trace_pipe_raw", opt.mdir, cpus[i]);
		fds[i] = open(path, O_RDONLY | O_CLOEXEC);
		if (fds[i] < 0) {
			error("%s: %s", path, strerror(errno));
			n = i;
			goto out;
		}
	}
	if (reader_init(&rd, &mlayout, &mdec, n, cpus, fds, false, true, reader_sink_fn, NULL)) {
		error("reader_init failed");
		goto out;
	}
	reader_run(&rd, true, 0);
	snprintf(where, sizeof(where), "reader.c replay");
	diff_u("records", rd.records, tot.records);
	diff_u("malformed records", rd.bad_records, tot.bad);
	diff_u("records not decoded", rd.unknown_ids, tot.unknown);
	for (i = 0; i < rd.ncpus; i++) {
		lost += rd.cpus[i].lost_stored;
		missed += rd.cpus[i].missed_pages;
		unknown += rd.cpus[i].missed_unknown;
		corrupt += rd.cpus[i].corrupt_pages;
		if (rd.cpus[i].read_errors)
			error("reader.c: cpu%d: read errors", rd.cpus[i].cpu);
	}
	diff_u("pages with missed events", missed, tot.m_missed_pages);
	diff_u("stored lost counts", lost, tot.m_lost);
	diff_u("missed pages without count", unknown, tot.m_missed_unknown);
	diff_u("unusable pages", corrupt, tot.rejected);
	for (k = 1; k < EV__COUNT; k++) {
		snprintf(where, sizeof(where), "reader.c replay, %s events", mt_kind_name(k));
		diff_u("count", rsink.kind[k], tot.kind[k]);
		diff_u("content hash", rsink.hash[k], tot.hash[k]);
	}
	printf("reader.c: %" PRIu64 " records, %" PRIu64 " events delivered (%" PRIu64
	       " out of time order across CPUs)\n", rd.records, rd.decoded, rd.out_of_order);
	reader_free(&rd);
	ret = 0;
out:
	for (i = 0; i < n; i++)
		close(fds[i]);
	free(fds);
	return ret;
}

/* ------------------------------------------------------------------ locate -- */

/* First record of SYS:EVENT, per libtraceevent: print "FILE OFFSET SIZE" of FIELD. */
static int locate(const int *cpus, int n)
{
	char sys[64], name[128], field[64], path[PATH_MAX];
	struct tep_format_field *f;
	struct tep_event *ev;
	uint8_t *page;
	int i;

	if (sscanf(opt.locate, "%63[^:]:%127[^:]:%63s", sys, name, field) != 3) {
		error("--locate wants SYS:EVENT:FIELD");
		return EXIT_ERR;
	}
	ev = tep_find_event_by_name(tep, sys, name);
	f = ev ? tep_find_any_field(ev, field) : NULL;
	if (!f) {
		error("%s: no such event or field in the recording", opt.locate);
		return EXIT_ERR;
	}
	page = calloc(1, rsubbuf + 16);
	if (!page)
		return EXIT_ERR;
	for (i = 0; i < n; i++) {
		uint64_t idx;
		int fd;

		snprintf(path, sizeof(path), "%s/per_cpu/cpu%d/trace_pipe_raw", opt.dir, cpus[i]);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		for (idx = 0; read_full(fd, page, rsubbuf) == (ssize_t)rsubbuf; idx++) {
			unsigned long long ts;
			uint32_t guard = 0;
			void *d;

			if (((uint32_t)read_commit(page) & KB_COMMIT_MASK) > rsubbuf - rstart ||
			    kbuffer_load_subbuffer(kb, page))
				continue;
			for (d = kbuffer_read_event(kb, &ts); d && guard++ < rsubbuf;
			     d = kbuffer_next_event(kb, &ts)) {
				struct tep_record rec = { .data = d, .size = kbuffer_event_size(kb) };

				if (rec.size >= f->offset + f->size &&
				    tep_data_type(tep, &rec) == ev->id) {
					printf("per_cpu/cpu%d/trace_pipe_raw %" PRIu64 " %d\n",
					       cpus[i], idx * rsubbuf +
					       (uint64_t)((uint8_t *)d - page) + (uint64_t)f->offset,
					       f->size);
					close(fd);
					free(page);
					return 0;
				}
			}
		}
		close(fd);
	}
	free(page);
	printf("no %s:%s record found\n", sys, name);
	return EXIT_MISMATCH;
}

/* -------------------------------------------------------------------- main -- */

static void usage(FILE *f)
{
	fprintf(f,
		"usage: crosscheck [OPTIONS] DIR\n"
		"Decode the sub-buffers of a memtrace recording (memtrace --record DIR) with\n"
		"memtrace's decoder and with libtraceevent and compare them record by record.\n"
		"  --max-print N         mismatch lines to print (default 20)\n"
		"  --formats-only        compare header_page and the format files only\n"
		"  --live-formats[=DIR]  also compare the recording's formats with those libtracefs\n"
		"                        loads from the running kernel (tracefs DIR)\n"
		"  --no-reader           skip the replay through memtrace's reader.c\n"
		"  --big-endian, --little-endian  the recording's byte order (default: this\n"
		"                        machine's), told to libtraceevent and to memtrace's decoder\n"
		"  --memtrace-dir COPY   memtrace decodes COPY (same layout and sizes), libtraceevent\n"
		"                        decodes DIR (for negative controls)\n"
		"  --locate SYS:EVENT:FIELD  print FILE OFFSET SIZE of FIELD in the first record of\n"
		"                        that event (found by libtraceevent) and exit\n"
		"  --have-tracefs        exit 0 if built with libtracefs (--live-formats), else 1\n"
		"Exit: 0 equal (and at least one event compared), 1 mismatch, 2 usage or I/O error.\n");
}

int main(int argc, char **argv)
{
	static int cpus[MAX_CPUS];
	uint64_t events = 0, page_events;
	int i, n, k, code;

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(a, "--have-tracefs")) {
#ifdef CROSSCHECK_NO_TRACEFS
			return 1;
#else
			return 0;
#endif
		} else if (!strcmp(a, "--max-print") && i + 1 < argc) {
			opt.max_print = strtoul(argv[++i], NULL, 10);
		} else if (!strcmp(a, "--formats-only")) {
			opt.formats_only = true;
		} else if (!strcmp(a, "--no-reader")) {
			opt.no_reader = true;
		} else if (!strcmp(a, "--big-endian") || !strcmp(a, "--little-endian")) {
			opt.big_endian = a[2] == 'b';
		} else if (!strcmp(a, "--live-formats")) {
			opt.live = true;
		} else if (!strncmp(a, "--live-formats=", 15)) {
			opt.live = true;
			opt.live_dir = a + 15;
		} else if (!strcmp(a, "--memtrace-dir") && i + 1 < argc) {
			opt.mdir = argv[++i];
		} else if (!strcmp(a, "--locate") && i + 1 < argc) {
			opt.locate = argv[++i];
		} else if (a[0] == '-' || opt.dir) {
			usage(stderr);
			return EXIT_ERR;
		} else {
			opt.dir = a;
		}
	}
	if (!opt.dir) {
		usage(stderr);
		return EXIT_ERR;
	}
#ifdef CROSSCHECK_NO_TRACEFS
	if (opt.live) {
		error("--live-formats: built without libtracefs");
		return EXIT_ERR;
	}
#endif
	if (!opt.mdir)
		opt.mdir = opt.dir;
	tep_set_loglevel(TEP_LOG_NONE);

	if (ref_load(opt.dir))
		return EXIT_ERR;
	n = opt.formats_only ? 0 : cpu_list(opt.dir, cpus);
	if (n < 0)
		return EXIT_ERR;
	if (opt.locate)
		return locate(cpus, n);
	printf("crosscheck: %s%s%s\n", opt.dir, opt.mdir != opt.dir ? ", memtrace decodes " : "",
	       opt.mdir != opt.dir ? opt.mdir : "");
	if (memtrace_load(opt.mdir))
		return EXIT_ERR;

	compare_formats();
	printf("layout: sub-buffer %u bytes (memtrace %u), commit word %u bytes, data at %u\n",
	       rsubbuf, rb_subbuf_size(&mlayout), rcommit, mlayout.data_off);
	printf("formats: %" PRIu64 " events, %" PRIu64 " fields compared\n", formats_compared,
	       fields_compared);
#ifndef CROSSCHECK_NO_TRACEFS
	if (opt.live) {
		formats_compared = 0;
		if (compare_live_formats())
			return EXIT_ERR;
	}
#endif
	if (opt.formats_only) {
		printf("mismatches: %" PRIu64 "\n", mismatches);
		if (errors)
			return EXIT_ERR;
		if (mismatches || !formats_compared) {
			printf("result: %s\n", mismatches ? "MISMATCH" : "nothing compared");
			return EXIT_MISMATCH;
		}
		printf("result: ok\n");
		return 0;
	}
	if (n == 0) {
		error("%s/per_cpu: no cpuN directories", opt.dir);
		return EXIT_ERR;
	}
	/* the data is walked only with equal page sizes (else reported above) */
	if (rb_subbuf_size(&mlayout) == rsubbuf) {
		for (i = 0; i < n; i++)
			if (walk_cpu(cpus[i]))
				return EXIT_ERR;
		if (!opt.no_reader && check_reader(cpus, n))
			return EXIT_ERR;
	}

	printf("total: %" PRIu64 " sub-buffers, %" PRIu64 " records, %" PRIu64
	       " time extends, %" PRIu64 " time stamps, %" PRIu64 " paddings\n", tot.subbufs,
	       tot.records, tot.extends, tot.stamps, tot.paddings);
	printf("missed events: %" PRIu64 " pages (%" PRIu64 " without count), %" PRIu64
	       " lost; pages whose flag libtraceevent cannot show: %" PRIu64 "\n",
	       tot.m_missed_pages, tot.m_missed_unknown, tot.m_lost, tot.missed_hidden);
	if (tot.rejected || tot.short_tail || tot.null_paddings)
		printf("note: %" PRIu64 " unusable sub-buffers, %" PRIu64
		       " short trailing reads, %" PRIu64 " null paddings inside data\n",
		       tot.rejected, tot.short_tail, tot.null_paddings);
	printf("events compared:\n");
	for (k = 1; k < EV__COUNT; k++) {
		events += tot.kind[k];
		if (tot.kind[k])
			printf("  %-22s %" PRIu64 "\n", mt_kind_name(k), tot.kind[k]);
	}
	printf("  %-22s %" PRIu64 "\n", "(total)", events);
	printf("records memtrace does not decode (compared: position, time stamp, type): %"
	       PRIu64 "\n", tot.unknown);
	if (tot.bad)
		printf("malformed records (both agree): %" PRIu64 "\n", tot.bad);
	page_events = tot.kind[EV_PAGE_ALLOC] + tot.kind[EV_PAGE_FREE];
	printf("page events compared: %" PRIu64 "\n", page_events);
	printf("mismatches: %" PRIu64 "%s\n", mismatches,
	       mismatches > opt.max_print ? " (not all printed)" : "");
	code = errors ? EXIT_ERR : mismatches || !events ? EXIT_MISMATCH : 0;
	printf("result: %s\n", code == 0 ? "ok" : code == EXIT_ERR ? "ERROR" :
	       mismatches ? "MISMATCH" : "no event compared");
	kbuffer_free(kb);
	tep_free(tep);
	return code;
}
