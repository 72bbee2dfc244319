// SPDX-License-Identifier: GPL-2.0-only
/* stream/jsonl.c - the stream's JSON lines, with the fleet tracer's field names (pure, no allocation) */
#include "stream/jsonl.h"

#include <string.h>
#include <time.h>

#include "lib/escape.h"
#include "kernel/event.h"

static const char *const evt_names[JL__COUNT] = {
	[JL_ALLOC] = "pageAllocate",
	[JL_FREE] = "pageFree",
	[JL_MAP] = "memoryMap",
	[JL_UNMAP] = "memoryUnmap",
	[JL_FAULT] = "pageFault",
};

static const char *const call_names[CALL__COUNT] = {
	[CALL_NONE] = "",
	[CALL_MMAP] = "mmap",
	[CALL_MUNMAP] = "munmap",
	[CALL_BRK] = "brk",
	[CALL_MREMAP] = "mremap",
};

const char *jl_evt_name(enum jl_evt e)
{
	return (unsigned)e < JL__COUNT ? evt_names[e] : "?";
}

/* A writer into a fixed buffer: ok goes false once something did not fit. */
struct jw {
	char *p, *end;
	bool ok;
};

static void lit(struct jw *w, const char *s, size_t n)
{
	if ((size_t)(w->end - w->p) < n) {
		w->ok = false;
		return;
	}
	memcpy(w->p, s, n);
	w->p += n;
}

#define LIT(w, s)	lit((w), (s), sizeof(s) - 1)

static const char digit_pairs[] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

/* Decimal, two digits at a time (this is most of a line's work). */
static void u64(struct jw *w, uint64_t v)
{
	char t[20];
	size_t n = sizeof(t);

	while (v >= 100) {
		unsigned r = (unsigned)(v % 100);

		v /= 100;
		n -= 2;
		memcpy(t + n, digit_pairs + 2 * r, 2);
	}
	if (v >= 10) {
		n -= 2;
		memcpy(t + n, digit_pairs + 2 * v, 2);
	} else {
		t[--n] = (char)('0' + v);
	}
	lit(w, t + n, sizeof(t) - n);
}

static void i64(struct jw *w, int64_t v)
{
	if (v < 0) {
		LIT(w, "-");
		u64(w, (uint64_t)0 - (uint64_t)v);
	} else {
		u64(w, (uint64_t)v);
	}
}

/* "key": a JSON string, escaped, cut at @max escaped bytes; true if it was cut */
static bool str(struct jw *w, const char *s, size_t n, size_t max)
{
	size_t room;
	bool cut = false;

	LIT(w, "\"");
	room = w->ok ? (size_t)(w->end - w->p) : 0;
	if (!room) {
		w->ok = false;
		return false;
	}
	room--;		/* the closing quote */
	w->p += escape_json_buf(w->p, max < room ? max : room, s, n, &cut);
	LIT(w, "\"");
	return cut;
}

static void two(char *d, unsigned v)
{
	d[0] = (char)('0' + v / 10 % 10);
	d[1] = (char)('0' + v % 10);
}

size_t jl_date_s(int64_t s, char *dst)
{
	struct tm tm;
	time_t t = (time_t)s;
	unsigned y;
	static const char epoch[20] = { '1', '9', '7', '0', '-', '0', '1', '-', '0', '1', 'T',
					'0', '0', ':', '0', '0', ':', '0', '0', 'Z' };

	if (!gmtime_r(&t, &tm)) {
		memcpy(dst, epoch, sizeof(epoch));
		return sizeof(epoch);
	}
	y = (unsigned)(tm.tm_year + 1900) % 10000;
	two(dst, y / 100);
	two(dst + 2, y % 100);
	dst[4] = '-';
	two(dst + 5, (unsigned)tm.tm_mon + 1);
	dst[7] = '-';
	two(dst + 8, (unsigned)tm.tm_mday);
	dst[10] = 'T';
	two(dst + 11, (unsigned)tm.tm_hour);
	dst[13] = ':';
	two(dst + 14, (unsigned)tm.tm_min);
	dst[16] = ':';
	two(dst + 17, (unsigned)tm.tm_sec);
	dst[19] = 'Z';
	return 20;
}

void jl_clock_init(struct jl_clock *k, uint64_t mono_ns, int64_t real_ns)
{
	k->off_ns = real_ns - (int64_t)mono_ns;
	k->sec = -1;
}

size_t jl_time(struct jl_clock *k, uint64_t ts, char *dst)
{
	int64_t utc = (int64_t)ts + k->off_ns, s = utc / 1000000000ll, ns = utc % 1000000000ll;
	int i;

	if (ns < 0) {
		ns += 1000000000ll;
		s--;
	}
	if (s != k->sec) {	/* gmtime once a second, not once an event */
		jl_date_s(s, k->ymdhms);
		k->sec = s;
	}
	memcpy(dst, k->ymdhms, 19);
	dst[19] = '.';
	for (i = 28; i >= 20; i--) {
		dst[i] = (char)('0' + ns % 10);
		ns /= 10;
	}
	dst[29] = 'Z';
	return 30;
}

static void timestamp(struct jw *w, struct jl_clock *k, uint64_t ts)
{
	if ((size_t)(w->end - w->p) < 32) {
		w->ok = false;
		return;
	}
	*w->p++ = '"';
	w->p += jl_time(k, ts, w->p);
	*w->p++ = '"';
}

size_t jl_process(char *dst, size_t size, const struct procinfo *pi, const struct rt_container *c)
{
	struct jw w = { dst, dst + (size < JL_PROC_MAX ? size : JL_PROC_MAX), true };
	char d[20];

	LIT(&w, "\"process\":{\"pid\":");
	i64(&w, pi->pid);
	LIT(&w, ",\"ppid\":");
	i64(&w, pi->ppid);
	LIT(&w, ",\"name\":");
	str(&w, pi->name, pi->name_len, 100);
	/* a fact not known (the process was gone before it was read): null, the field kept */
	LIT(&w, ",\"cmd\":");
	if (!(pi->have & PI_CMDLINE))
		LIT(&w, "null");
	else if (str(&w, pi->cmd, pi->cmd_len, 1024) || pi->cmd_cut)
		LIT(&w, ",\"cmd_truncated\":true");	/* cut as read, or escaped */
	LIT(&w, ",\"exe\":");
	if (!(pi->have & PI_EXEPATH))
		LIT(&w, "null");
	else if (str(&w, pi->exe, pi->exe_len, 512))
		LIT(&w, ",\"exe_truncated\":true");	/* cut at 512 escaped bytes, as cmd is flagged */
	LIT(&w, ",\"ns\":");
	if (pi->have & PI_NS) {
		LIT(&w, "\"");
		u64(&w, pi->ns_dev);
		LIT(&w, "-");
		u64(&w, pi->ns_ino);
		LIT(&w, "\"");
	} else {
		LIT(&w, "null");
	}
	LIT(&w, ",\"startedAt\":");
	if (pi->have & PI_START) {
		LIT(&w, "\"");
		lit(&w, d, jl_date_s(pi->started_s, d));
		LIT(&w, "\"");
	} else {
		LIT(&w, "null");
	}
	/* a fork child before its exec: the facts are its parent's program's */
	if (pi->pre_exec)
		LIT(&w, ",\"pre_exec\":true");
	if (c) {
		LIT(&w, ",\"container\":{\"id\":");
		str(&w, c->id, strlen(c->id), 70);
		if (c->name[0]) {
			LIT(&w, ",\"name\":");
			str(&w, c->name, strlen(c->name), 256);
		}
		LIT(&w, ",\"runtime\":");
		str(&w, rt_kind_name(c->kind), strlen(rt_kind_name(c->kind)), 20);
		if (c->in_pod) {
			LIT(&w, ",\"pod\":{\"id\":");
			str(&w, c->pod_id, strlen(c->pod_id), 80);
			LIT(&w, ",\"name\":");
			str(&w, c->pod_name, strlen(c->pod_name), 256);
			LIT(&w, ",\"namespace\":");
			str(&w, c->pod_ns, strlen(c->pod_ns), 256);
			LIT(&w, "}");
		}
		LIT(&w, "}");
	}
	LIT(&w, "}");
	return w.ok ? (size_t)(w.p - dst) : 0;
}

size_t jl_src(char *dst, size_t size, const char *hostname)
{
	struct jw w = { dst, dst + (size < JL_SRC_MAX ? size : JL_SRC_MAX), true };

	LIT(&w, ",\"src\":{\"hostname\":");
	str(&w, hostname, strlen(hostname), 200);
	LIT(&w, ",\"name\":\"memtrace\"}}\n");
	return w.ok ? (size_t)(w.p - dst) : 0;
}

static void syscall_fields(struct jw *w, const struct jl_event *e)
{
	const char *name = call_names[e->call < CALL__COUNT ? e->call : 0];

	LIT(w, ",\"syscall\":");
	str(w, name, strlen(name), 16);
	LIT(w, ",\"address\":");
	u64(w, e->address);
	if (e->call == CALL_MMAP) {
		LIT(w, ",\"prot\":");
		u64(w, e->prot);
		LIT(w, ",\"flags\":");
		u64(w, e->flags);
		LIT(w, ",\"fd\":");
		i64(w, e->fd);
		LIT(w, ",\"offset\":");
		u64(w, e->offset);
	} else if (e->call == CALL_MREMAP) {
		LIT(w, ",\"old_address\":");
		u64(w, e->old_address);
		LIT(w, ",\"old_size\":");
		u64(w, e->old_size);
		LIT(w, ",\"new_size\":");
		u64(w, e->new_size);
		LIT(w, ",\"flags\":");
		u64(w, e->flags);
	}
	LIT(w, ",\"result\":");
	i64(w, e->result);
	if (e->failed) {
		/* "size" is 0: nothing was mapped or unmapped; always an errno */
		LIT(w, ",\"failed\":true,\"requested_size\":");
		u64(w, e->requested_size);
		LIT(w, ",\"errno\":");
		i64(w, e->err);
	}
	LIT(w, ",\"latency_ns\":");
	u64(w, e->latency_ns);
}

size_t jl_event_line(char *dst, size_t size, struct jl_clock *k, const struct jl_event *e,
		     const char *proc, size_t plen, const char *src, size_t slen)
{
	struct jw w = { dst, dst + size, true };

	LIT(&w, "{\"timestamp\":");
	timestamp(&w, k, e->ts);
	LIT(&w, ",\"type\":\"memtrace\",\"data\":{\"evt_type\":\"");
	lit(&w, jl_evt_name(e->evt), strlen(jl_evt_name(e->evt)));
	LIT(&w, "\",\"size\":");
	u64(&w, e->size);
	LIT(&w, ",\"pid\":");
	i64(&w, e->pid);
	LIT(&w, ",\"tid\":");
	i64(&w, e->tid);
	switch (e->evt) {
	case JL_ALLOC:
	case JL_FREE:
		LIT(&w, ",\"order\":");
		u64(&w, e->order);
		LIT(&w, ",\"pfn\":");
		u64(&w, e->pfn);
		if (e->evt == JL_FREE && e->owner_pid) {
			LIT(&w, ",\"owner\":{\"pid\":");
			i64(&w, e->owner_pid);
			LIT(&w, ",\"tid\":");
			i64(&w, e->owner_tid);
			LIT(&w, "}");
		}
		break;
	case JL_FAULT:
		LIT(&w, ",\"address\":");
		u64(&w, e->address);
		LIT(&w, ",\"ip\":");
		u64(&w, e->ip);
		LIT(&w, ",\"error_code\":");
		u64(&w, e->error_code);
		break;
	default:
		syscall_fields(&w, e);
		break;
	}
	LIT(&w, ",");
	lit(&w, proc, plen);
	LIT(&w, "}");
	lit(&w, src, slen);
	return w.ok ? (size_t)(w.p - dst) : 0;
}

size_t jl_lost_line(char *dst, size_t size, struct jl_clock *k, uint64_t ts, uint64_t count,
		    const char *source, uint64_t total, const char *src, size_t slen)
{
	struct jw w = { dst, dst + size, true };

	LIT(&w, "{\"type\":\"memtrace.lost\",\"count\":");
	u64(&w, count);
	LIT(&w, ",\"source\":");
	str(&w, source, strlen(source), 32);
	LIT(&w, ",\"total\":");
	u64(&w, total);
	LIT(&w, ",\"timestamp\":");
	timestamp(&w, k, ts);
	lit(&w, src, slen);
	return w.ok ? (size_t)(w.p - dst) : 0;
}

size_t jl_summary_line(char *dst, size_t size, struct jl_clock *k, const struct jl_summary *sm,
		       const char *proc, size_t plen, const char *src, size_t slen)
{
	struct jw w = { dst, dst + size, true };
	int i;

	LIT(&w, "{\"timestamp\":");
	timestamp(&w, k, sm->ts);
	LIT(&w, ",\"type\":\"memtrace.summary\",\"data\":{\"pid\":");
	i64(&w, sm->pid);
	LIT(&w, ",\"interval_s\":");
	u64(&w, sm->interval_s);
	LIT(&w, ",\"pages\":{\"current\":");
	i64(&w, sm->cur_pages);
	LIT(&w, ",\"peak\":");
	i64(&w, sm->peak_pages);
	LIT(&w, "},\"page_size\":");
	u64(&w, sm->page_size);
	LIT(&w, ",\"events\":{");
	for (i = 0; i < JL__COUNT; i++) {
		if (i)
			LIT(&w, ",");
		LIT(&w, "\"");
		lit(&w, evt_names[i], strlen(evt_names[i]));
		LIT(&w, "\":{\"count\":");
		u64(&w, sm->count[i]);
		LIT(&w, ",\"bytes\":");
		u64(&w, sm->bytes[i]);
		LIT(&w, "}");
	}
	LIT(&w, "}");
	if (sm->exited)
		LIT(&w, ",\"exited\":true");
	LIT(&w, ",");
	lit(&w, proc, plen);
	LIT(&w, "}");
	lit(&w, src, slen);
	return w.ok ? (size_t)(w.p - dst) : 0;
}
