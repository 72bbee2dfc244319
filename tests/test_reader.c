// SPDX-License-Identifier: GPL-2.0-only
/* test_reader.c - per-CPU merge, live hold-back, lost events, corrupt pages, record tee, replay */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testutil.h"
#include "testpage.h"
#include "kernel/event.h"
#include "kernel/format.h"
#include "kernel/reader.h"
#include "signals.h"
#include "stats.h"

/* event ids of the debian-6.1 fixture formats */
#define ID_ALLOC	542
#define ID_FREE		544

#define MISSED_EVENTS	0xffffffff80000000ull	/* bit 31, sign-extended like the kernel */
#define MISSED_STORED	0x40000000ull

static struct mt_decoder D;

/* ---- hand-made sub-buffers ---- */

static void pg_page_ev(struct pg *p, uint16_t id, uint64_t ts, int32_t pid, uint64_t pfn,
		       uint32_t order)
{
	uint8_t pl[40];

	memset(pl, 0, sizeof(pl));
	memcpy(pl, &id, 2);
	memcpy(pl + 4, &pid, 4);
	memcpy(pl + 8, &pfn, 8);
	memcpy(pl + 16, &order, 4);
	pg_event(p, ts, pl, id == ID_ALLOC ? 40 : 24);
}

static void pg_alloc(struct pg *p, uint64_t ts, int32_t pid, uint64_t pfn, uint32_t order)
{
	pg_page_ev(p, ID_ALLOC, ts, pid, pfn, order);
}

static void pg_free(struct pg *p, uint64_t ts, int32_t pid, uint64_t pfn, uint32_t order)
{
	pg_page_ev(p, ID_FREE, ts, pid, pfn, order);
}

/* Flag the page as following lost events and store their count after the data. */
static void pg_lost(struct pg *p, uint64_t lost)
{
	pg_commit(p, MISSED_EVENTS | MISSED_STORED);
	memcpy(p->b + DATA_OFF + p->size, &lost, 8);
}

static int tmp_fd(void)
{
	char path[] = "/tmp/memtrace-test-reader-XXXXXX";
	int fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	unlink(path);
	return fd;
}

/* A file holding the pages back to back, positioned at its start. */
static int file_of(struct pg *pages, int n)
{
	int fd = tmp_fd(), i;

	for (i = 0; i < n; i++)
		ck_assert_int_eq(write(fd, pages[i].b, SUBBUF), SUBBUF);
	ck_assert_int_eq(lseek(fd, 0, SEEK_SET), 0);
	return fd;
}

/* The read end of a pipe holding the pages; the write end is closed (EOF after them). */
static int pipe_of(struct pg *pages, int n)
{
	int p[2], i;

	ck_assert_int_eq(pipe(p), 0);
	for (i = 0; i < n; i++)
		ck_assert_int_eq(write(p[1], pages[i].b, SUBBUF), SUBBUF);
	close(p[1]);
	return p[0];
}

/* ---- the sink ---- */

struct got {
	enum mt_kind kind;
	uint32_t cpu;
	uint64_t ts;
	int32_t tid;
	uint64_t pfn;
};

static struct sinkctx {
	struct got ev[1024];
	uint32_t n;
	struct stats *st;
} K;

static void sink(void *ctx, const struct mt_event *ev)
{
	struct sinkctx *k = ctx;

	ck_assert_ptr_eq(k, &K);
	ck_assert_uint_lt(k->n, sizeof(k->ev) / sizeof(k->ev[0]));
	k->ev[k->n].kind = ev->kind;
	k->ev[k->n].cpu = ev->cpu;
	k->ev[k->n].ts = ev->ts;
	k->ev[k->n].tid = ev->tid;
	k->ev[k->n].pfn = (ev->kind == EV_PAGE_ALLOC || ev->kind == EV_PAGE_FREE) ?
			  ev->u.page.pfn : 0;
	k->n++;
	if (k->st)
		stats_apply(k->st, ev);
}

static void assert_got(uint32_t i, enum mt_kind kind, uint32_t cpu, uint64_t ts, int32_t tid,
		       uint64_t pfn)
{
	ck_assert_uint_lt(i, K.n);
	ck_assert_msg(K.ev[i].kind == kind && K.ev[i].cpu == cpu && K.ev[i].ts == ts &&
		      K.ev[i].tid == tid && K.ev[i].pfn == pfn,
		      "event %u: got kind %d cpu %u ts %llu tid %d pfn %llu", i, K.ev[i].kind,
		      K.ev[i].cpu, (unsigned long long)K.ev[i].ts, K.ev[i].tid,
		      (unsigned long long)K.ev[i].pfn);
}

static void add_format(struct mt_decoder *d, const char *dir, const char *sys, const char *name)
{
	const struct mt_tracepoint *tp = mt_tracepoint_find(sys, name);
	struct fmt_event fe;
	char rel[256], err[256];
	size_t len;
	char *text;

	ck_assert_ptr_nonnull(tp);
	snprintf(rel, sizeof(rel), "%s/events/%s/%s/format", dir, sys, name);
	text = read_fixture(rel, &len);
	memset(&fe, 0, sizeof(fe));
	snprintf(fe.system, sizeof(fe.system), "%s", sys);
	ck_assert_msg(fmt_parse_event(&fe, text, len, err, sizeof(err)) == 0, "%s: %s", rel, err);
	ck_assert_msg(decoder_add(d, tp, &fe, err, sizeof(err)) == 0, "%s: %s", rel, err);
	free(text);
}

static void setup(void)
{
	decoder_init(&D);
	add_format(&D, "debian-6.1", "kmem", "mm_page_alloc");
	add_format(&D, "debian-6.1", "kmem", "mm_page_free");
	memset(&K, 0, sizeof(K));
}

static struct reader R;
static int fds_open[8];
static int nfds_open;

static void start(int n, const int *cpu_ids, const int *fds, bool live, bool mono)
{
	int i;

	ck_assert_int_eq(reader_init(&R, &LAYOUT, &D, n, cpu_ids, fds, live, mono, sink, &K), 0);
	ck_assert_uint_eq(R.subbuf, SUBBUF);
	for (i = 0; i < n; i++)
		fds_open[nfds_open++] = fds[i];
}

static void teardown(void)
{
	int i;

	reader_free(&R);
	for (i = 0; i < nfds_open; i++)
		close(fds_open[i]);
	nfds_open = 0;
	if (K.st) {
		stats_free(K.st);
		K.st = NULL;
	}
}

static struct stats ST;

static void with_stats(void)
{
	struct stats_config cfg = { .max_tasks = 64, .max_modules = 8, .max_pfn = 4096 };

	ck_assert_int_eq(stats_init(&ST, &cfg), 0);
	K.st = &ST;
}

/* ---- merge ---- */

START_TEST(test_merge_by_timestamp)
{
	struct pg c0[2], c1[1];
	int fds[2], ids[2] = { 1, 0 };	/* CPU1 listed first */

	/* CPU0: task 10 allocates pfn 7, later frees pfn 9-10 (task 20's) */
	pg_init(&c0[0], 100);
	pg_alloc(&c0[0], 100, 10, 7, 0);
	pg_free(&c0[0], 300, 10, 9, 1);
	pg_commit(&c0[0], 0);
	pg_init(&c0[1], 500);
	pg_alloc(&c0[1], 500, 10, 11, 0);
	pg_commit(&c0[1], 0);
	/* CPU1: task 20 frees pfn 7 (task 10's), allocates pfn 9-10, then much later pfn 12 */
	pg_init(&c1[0], 200);
	pg_free(&c1[0], 200, 20, 7, 0);
	pg_alloc(&c1[0], 250, 20, 9, 1);
	pg_alloc(&c1[0], 400000000, 20, 12, 0);	/* needs a TIME_EXTEND */
	pg_commit(&c1[0], 0);
	fds[0] = pipe_of(c1, 1);
	fds[1] = file_of(c0, 2);
	with_stats();
	start(2, ids, fds, false, false);

	ck_assert_uint_eq(reader_run(&R, true, 0), 6);
	ck_assert_uint_eq(K.n, 6);
	assert_got(0, EV_PAGE_ALLOC, 0, 100, 10, 7);
	assert_got(1, EV_PAGE_FREE, 1, 200, 20, 7);
	assert_got(2, EV_PAGE_ALLOC, 1, 250, 20, 9);
	assert_got(3, EV_PAGE_FREE, 0, 300, 10, 9);
	assert_got(4, EV_PAGE_ALLOC, 0, 500, 10, 11);
	assert_got(5, EV_PAGE_ALLOC, 1, 400000000, 20, 12);
	ck_assert_uint_eq(R.records, 6);
	ck_assert_uint_eq(R.decoded, 6);
	ck_assert_uint_eq(R.out_of_order, 0);
	ck_assert_uint_eq(R.last_ts, 400000000);
	ck_assert_uint_eq(R.cpus[0].pages, 1);
	ck_assert_uint_eq(R.cpus[1].pages, 2);
	ck_assert(R.cpus[0].eof && R.cpus[1].eof);

	/* applied in order: every free found its page */
	ck_assert_uint_eq(ST.c.untracked_frees, 0);
	ck_assert_uint_eq(ST.c.double_allocs, 0);
	ck_assert_int_eq(stats_find_task(&ST, 10)->cur, 1);
	ck_assert_uint_eq(stats_find_task(&ST, 10)->freed_pages, 1);
	ck_assert_int_eq(stats_find_task(&ST, 20)->cur, 1);
	ck_assert_int_eq(stats_find_task(&ST, 20)->peak, 2);
	ck_assert_uint_eq(stats_find_task(&ST, 20)->peak_ts, 250);

	/* nothing more */
	ck_assert_uint_eq(reader_run(&R, true, 0), 0);
}
END_TEST

START_TEST(test_max_events)
{
	struct pg c0[1];
	int fds[1], ids[1] = { 3 };
	int i;

	/* more than the queue holds ahead: the limit holds inside a run of one CPU too */
	pg_init(&c0[0], 1000);
	for (i = 0; i < 20; i++)
		pg_alloc(&c0[0], 1000 + 10 * (uint64_t)i, 1, (uint64_t)i, 0);
	pg_commit(&c0[0], 0);
	fds[0] = file_of(c0, 1);
	start(1, ids, fds, false, false);
	ck_assert_uint_eq(reader_run(&R, true, 2), 2);
	ck_assert_uint_eq(K.n, 2);
	ck_assert_uint_eq(reader_run(&R, true, 7), 7);
	ck_assert_uint_eq(K.n, 9);
	assert_got(8, EV_PAGE_ALLOC, 3, 1080, 1, 8);
	ck_assert_uint_eq(reader_run(&R, true, 0), 11);
	ck_assert_uint_eq(K.n, 20);
	assert_got(19, EV_PAGE_ALLOC, 3, 1190, 1, 19);
}
END_TEST

/*
 * A CPU whose poll failed (reader_cpu_poll_failed(): done, its queue kept) gives out the
 * record it holds and nothing more, however many it has queued behind it that would go
 * first.
 */
START_TEST(test_poll_failed_holds_queue)
{
	struct pg c0[1], c1[1];
	int fds[2], ids[2] = { 0, 1 };
	int i;

	pg_init(&c0[0], 10);
	for (i = 1; i <= 20; i++)
		pg_alloc(&c0[0], 10 * (uint64_t)i, 1, (uint64_t)i, 0);
	pg_commit(&c0[0], 0);
	pg_init(&c1[0], 5);
	pg_free(&c1[0], 5, 2, 100, 0);
	pg_commit(&c1[0], 0);
	fds[0] = pipe_of(c0, 1);
	fds[1] = pipe_of(c1, 1);
	start(2, ids, fds, false, false);
	ck_assert_uint_eq(reader_run(&R, true, 1), 1);
	assert_got(0, EV_PAGE_FREE, 1, 5, 2, 100);
	reader_cpu_poll_failed(&R, 0, true);
	ck_assert_uint_eq(reader_run(&R, true, 0), 1);
	assert_got(1, EV_PAGE_ALLOC, 0, 10, 1, 1);
	ck_assert_uint_eq(K.n, 2);
}
END_TEST

/*
 * The look ahead: every event is shown to the consumer once, before it is
 * delivered, at most READER_QUEUE records of its CPU before (the one its CPU
 * holds for the merge included); the order of delivery is unchanged. pfn =
 * CPU * 1000 + the record's place.
 */
static struct {
	uint32_t shown[2], delivered[2];
	uint8_t seen[2000];
} A;

static void ahead(void *ctx, const struct mt_event *ev)
{
	uint64_t pfn = ev->u.page.pfn;
	uint32_t cpu;

	ck_assert_ptr_eq(ctx, &K);
	ck_assert(ev->kind == EV_PAGE_ALLOC || ev->kind == EV_PAGE_FREE);
	ck_assert_uint_lt(pfn, 2000);
	cpu = (uint32_t)(pfn / 1000);
	ck_assert_uint_eq(ev->cpu, cpu);
	ck_assert_uint_eq(pfn % 1000, A.shown[cpu]);	/* in its order, each once */
	A.seen[pfn]++;
	A.shown[cpu]++;
	ck_assert_uint_le(A.shown[cpu] - A.delivered[cpu], READER_QUEUE);
}

static void ahead_sink(void *ctx, const struct mt_event *ev)
{
	uint32_t cpu = (uint32_t)(ev->u.page.pfn / 1000);
	uint32_t per_page = cpu ? 5 : 45, end = (A.delivered[cpu] / per_page + 1) * per_page;

	ck_assert_uint_eq(A.seen[ev->u.page.pfn], 1);
	ck_assert_uint_eq(ev->u.page.pfn % 1000, A.delivered[cpu]);
	/* shown at least READER_AHEAD records before, its page allowing */
	ck_assert_uint_ge(A.shown[cpu], A.delivered[cpu] + READER_AHEAD < end ?
			  A.delivered[cpu] + READER_AHEAD : end);
	A.delivered[cpu]++;
	sink(ctx, ev);
}

/* CPU0: two full pages of 45 allocations; CPU1: one page of 5 frees, in between in time */
static void look_ahead_files(int fds[2])
{
	struct pg c0[2], c1[1];
	uint64_t ts = 1000;
	int i;

	for (i = 0; i < 90; i++) {
		if (i % 45 == 0)
			pg_init(&c0[i / 45], ts);
		pg_alloc(&c0[i / 45], ts, 10, (uint64_t)i, 0);
		ts += 10;
		if (i % 45 == 44)
			pg_commit(&c0[i / 45], 0);
	}
	pg_init(&c1[0], 1005);
	for (i = 0; i < 5; i++)
		pg_free(&c1[0], 1005 + 200 * (uint64_t)i, 20, 1000 + (uint64_t)i, 0);
	pg_commit(&c1[0], 0);
	fds[0] = file_of(c0, 2);
	fds[1] = file_of(c1, 1);
	fds_open[nfds_open++] = fds[0];
	fds_open[nfds_open++] = fds[1];
}

START_TEST(test_look_ahead)
{
	int fds[2], ids[2] = { 0, 1 };

	memset(&A, 0, sizeof(A));
	look_ahead_files(fds);
	ck_assert_int_eq(reader_init(&R, &LAYOUT, &D, 2, ids, fds, false, false, ahead_sink, &K),
			 0);
	R.ahead = ahead;
	ck_assert_uint_eq(reader_run(&R, true, 0), 95);
	ck_assert_uint_eq(A.shown[0], 90);
	ck_assert_uint_eq(A.shown[1], 5);
	ck_assert_uint_eq(A.delivered[0], 90);
	ck_assert_uint_eq(A.delivered[1], 5);
	/* by time stamp, as without it */
	assert_got(0, EV_PAGE_ALLOC, 0, 1000, 10, 0);
	assert_got(1, EV_PAGE_FREE, 1, 1005, 20, 1000);
	assert_got(94, EV_PAGE_ALLOC, 0, 1890, 10, 89);
}
END_TEST

/*
 * The consumer's maps prefetched by the reader itself (struct reader_prefetch):
 * in the callback's place (never called then), the maps only read, and what
 * is delivered the same, in the same order. CPU1's page frames (1000 to 1004)
 * are past the maps' end.
 */
START_TEST(test_prefetch_maps)
{
	static const uint32_t zero[1000];
	static uint32_t map[1000], map2[1000];
	int fds[2], ids[2] = { 0, 1 }, pass;
	uint32_t i;

	for (pass = 0; pass < 2; pass++) {	/* the --stacks map too, or not */
		memset(&A, 0, sizeof(A));
		look_ahead_files(fds);
		ck_assert_int_eq(reader_init(&R, &LAYOUT, &D, 2, ids, fds, false, false, sink,
					     &K), 0);
		R.ahead = ahead;
		R.pf.map = map;
		R.pf.map2 = pass ? map2 : NULL;
		R.pf.n = 1000;
		ck_assert_uint_eq(reader_run(&R, true, 0), 95);
		ck_assert_uint_eq(A.shown[0] + A.shown[1], 0);
		ck_assert_uint_eq(K.n, 95);
		ck_assert_uint_eq(R.decoded, 95);
		assert_got(0, EV_PAGE_ALLOC, 0, 1000, 10, 0);
		assert_got(1, EV_PAGE_FREE, 1, 1005, 20, 1000);
		assert_got(94, EV_PAGE_ALLOC, 0, 1890, 10, 89);
		for (i = 1; i < K.n; i++)
			ck_assert_uint_le(K.ev[i - 1].ts, K.ev[i].ts);
		ck_assert_mem_eq(map, zero, sizeof(zero));
		ck_assert_mem_eq(map2, zero, sizeof(zero));
		if (!pass) {	/* the second pass starts again */
			reader_free(&R);
			memset(&R, 0, sizeof(R));
			memset(&K, 0, sizeof(K));
		}
	}
}
END_TEST

/*
 * The run sink (reader_sink_run): what a reader delivers with it is what it
 * delivers one event a call, in the same order, with the same counts, on
 * pages that have all that a run may meet: CPU0's long run (past the queue's
 * end, where it wraps), broken by CPU1's records, an unknown record in it and
 * a jump back in time (out of order, within a span); read and mapped. Each
 * call's events are @stride apart, at least one, and some calls take several.
 * Where the sink stops the run inside a span, the counts are of what it took,
 * and the rest comes next, the same.
 */
static struct {
	uint32_t calls, most;
	uint32_t stop_at;	/* the event after which the sink stops the run (0: never) */
} RS;

static void stop_sink(void *ctx, const struct mt_event *ev)
{
	sink(ctx, ev);
	if (RS.stop_at && K.n == RS.stop_at)
		R.stop = true;
}

static uint32_t run_sink(void *ctx, const struct mt_event *ev, uint32_t n, size_t stride)
{
	uint32_t i;

	ck_assert_ptr_eq(ctx, &K);
	ck_assert_uint_eq(stride, sizeof(struct reader_rec));
	ck_assert_uint_ge(n, 1);
	RS.calls++;
	if (n > RS.most)
		RS.most = n;
	for (i = 0; i < n; i++, ev = mt_event_next(ev, stride)) {
		sink(ctx, ev);
		if (RS.stop_at && K.n == RS.stop_at) {
			R.stop = true;
			return i + 1;
		}
	}
	return n;
}

static void run_sink_files(int fds[2])
{
	struct pg c0[2], c1[1];
	uint64_t ts = 1000, back = 700;
	int i;

	pg_init(&c0[0], 1000);
	for (i = 0; i < 70; i++, ts += 10) {
		if (i == 25) {		/* an id no format has: unknown */
			pg_page_ev(&c0[0], 999, ts, 10, 0, 0);
			continue;
		}
		if (i == 44) {		/* an absolute time stamp, back in time */
			pg_put32(&c0[0], pg_hdr(31, (uint32_t)(back & ((1u << 27) - 1))));
			pg_put32(&c0[0], (uint32_t)(back >> 27));
			c0[0].ts = ts = back;
		}
		pg_alloc(&c0[0], ts, 10, (uint64_t)i, 0);
	}
	pg_commit(&c0[0], 0);
	pg_init(&c0[1], 5000);
	for (i = 0; i < 40; i++)
		pg_free(&c0[1], 5000 + 10 * (uint64_t)i, 10, (uint64_t)i, 0);
	pg_commit(&c0[1], 0);
	pg_init(&c1[0], 1105);
	for (i = 0; i < 4; i++)
		pg_free(&c1[0], 1105 + 100 * (uint64_t)i, 20, 1000 + (uint64_t)i, 0);
	pg_commit(&c1[0], 0);
	fds[0] = file_of(c0, 2);
	fds[1] = file_of(c1, 1);
}

/* One reader over run_sink_files(), with the run sink or not; its runs' counts into @runs. */
/* R over run_sink_files() (@fds), with the run sink or not, stopped after event @stop_at */
static void run_sink_start(bool with_run, bool mapped, uint32_t stop_at, int fds[2])
{
	int ids[2] = { 0, 1 };

	memset(&K, 0, sizeof(K));
	memset(&RS, 0, sizeof(RS));
	RS.stop_at = stop_at;
	run_sink_files(fds);
	ck_assert_int_eq(reader_init(&R, &LAYOUT, &D, 2, ids, fds, false, true, stop_sink, &K),
			 0);
	if (with_run)
		R.sink_run = run_sink;
	if (mapped)
		reader_files(&R, NULL);
}

static void run_sink_pass(bool with_run, bool mapped, uint32_t stop_at, uint64_t runs[3],
			  struct reader *keep)
{
	int fds[2];

	run_sink_start(with_run, mapped, stop_at, fds);
	runs[0] = reader_run(&R, true, 0);
	runs[1] = reader_run(&R, true, 0);
	runs[2] = reader_run(&R, true, 0);
	*keep = R;
	keep->cpus = NULL;	/* its counters only */
	reader_free(&R);
	memset(&R, 0, sizeof(R));
	close(fds[0]);
	close(fds[1]);
}

START_TEST(test_run_sink_as_sink)
{
	static struct sinkctx one;
	struct reader a, b;
	uint64_t ra[3], rb[3];
	int mapped;
	uint32_t stop_at, i;

	for (mapped = 0; mapped < 2; mapped++) {
		for (stop_at = 0; stop_at <= 60; stop_at += 30) {
			run_sink_pass(false, mapped, stop_at, ra, &a);
			one = K;
			run_sink_pass(true, mapped, stop_at, rb, &b);
			ck_assert_uint_eq(K.n, 113);
			ck_assert_uint_eq(one.n, K.n);
			for (i = 0; i < K.n; i++)
				ck_assert_msg(!memcmp(&one.ev[i], &K.ev[i], sizeof(K.ev[i])),
					      "mapped %d stop %u: event %u differs", mapped,
					      stop_at, i);
			for (i = 0; i < 3; i++)
				ck_assert_uint_eq(ra[i], rb[i]);
			ck_assert_uint_eq(a.records, b.records);
			ck_assert_uint_eq(a.decoded, b.decoded);
			ck_assert_uint_eq(a.unknown_ids, b.unknown_ids);
			ck_assert_uint_eq(a.bad_records, b.bad_records);
			ck_assert_uint_eq(a.out_of_order, b.out_of_order);
			ck_assert_uint_eq(a.last_ts, b.last_ts);
			ck_assert_uint_eq(b.records, 114);
			ck_assert_uint_eq(b.unknown_ids, 1);
			ck_assert_uint_gt(b.out_of_order, 0);
			ck_assert_uint_eq(b.last_ts, 5390);
			ck_assert_uint_gt(RS.calls, 0);
			ck_assert_uint_lt(RS.calls, K.n);
			ck_assert_uint_gt(RS.most, READER_AHEAD);
			if (!stop_at) {
				ck_assert_uint_eq(ra[0], 114);
				continue;
			}
			/* stopped after event stop_at, the rest read next */
			ck_assert_uint_eq(ra[0] + ra[1], 114);
			ck_assert_uint_eq(ra[2], 0);
		}
	}
}
END_TEST

/*
 * Where the sink stops the run inside a span, the reader's counts are of the
 * events it took, not of those it was offered: the out-of-order one right
 * after the stop is counted when it is taken, not before.
 */
START_TEST(test_run_sink_stop_counts)
{
	struct reader b;
	uint64_t rb[3];
	int fds[2];

	run_sink_pass(true, false, 0, rb, &b);
	ck_assert_uint_eq(b.out_of_order, 26);	/* every record after the jump back */
	/*
	 * Event 47 (CPU0's 1430; 48 records with the unknown one) is the last
	 * before the jump back to 700, in the middle of CPU0's span: CPU1 is done.
	 */
	run_sink_pass(true, false, 47, rb, &b);
	ck_assert_uint_eq(rb[0], 48);
	ck_assert_uint_eq(rb[0] + rb[1], 114);
	ck_assert_uint_eq(b.out_of_order, 26);
	run_sink_start(true, false, 47, fds);
	fds_open[nfds_open++] = fds[0];
	fds_open[nfds_open++] = fds[1];
	ck_assert_uint_eq(reader_run(&R, true, 0), 48);
	ck_assert_uint_eq(K.n, 47);
	ck_assert_uint_eq(K.ev[46].ts, 1430);
	ck_assert_uint_eq(R.decoded, 47);
	ck_assert_uint_eq(R.out_of_order, 0);
	ck_assert_uint_eq(R.last_ts, 1430);
	ck_assert_uint_eq(reader_run(&R, true, 0), 66);
	ck_assert_uint_eq(K.ev[47].ts, 700);
	ck_assert_uint_eq(R.out_of_order, 26);
	ck_assert_uint_eq(R.last_ts, 5390);
}
END_TEST

/*
 * Corrupt time stamps that run past UINT64_MAX: CPU0's last record, read
 * inline, wraps to 18. Its page's time stamp is near enough to the top, from
 * the page's header (_i 0) or after 32 TIME_EXTENDs read through rb_next()
 * (_i 1, after a first record at 100). rb_take_data() leaves the wrapping one to
 * rb_next(), and the walk marks it (reader_cpu.qbreak): the run sink sends the
 * same events in the same order as one call an event, CPU1's between CPU0's,
 * and the wrapped one is out of order.
 */
START_TEST(test_run_sink_wrapping_ts)
{
	static const uint64_t want_ts[] = { 100, UINT64_MAX - 1000, UINT64_MAX - 990,
					    UINT64_MAX - 700, UINT64_MAX - 490, 18 };
	static const uint32_t want_cpu[] = { 0, 0, 0, 1, 0, 0 };
	int ids[2] = { 0, 1 }, fds[2], with_run, i, k, first = _i ? 0 : 1;
	struct pg c0, c1;

	for (with_run = 0; with_run < 2; with_run++) {
		if (_i) {
			pg_init(&c0, 100);
			pg_alloc(&c0, 100, 10, 9, 0);
			/* 100 + 31 (2^59 - 1) + (2^59 - 1070) = UINT64_MAX - 1000 */
			for (k = 0; k < 31; k++)
				pg_extend(&c0, (1ull << 59) - 1);
			pg_extend(&c0, (1ull << 59) - 1070);
		} else {
			pg_init(&c0, UINT64_MAX - 1000);
		}
		ck_assert_uint_eq(c0.ts, UINT64_MAX - 1000);
		pg_alloc(&c0, UINT64_MAX - 1000, 10, 1, 0);
		pg_alloc(&c0, UINT64_MAX - 990, 10, 2, 0);
		pg_alloc(&c0, UINT64_MAX - 490, 10, 3, 0);
		c0.ts = 0;	/* pg_alloc() writes a delta of 509 (inline): after MAX - 490, 18 */
		pg_alloc(&c0, 509, 10, 4, 0);
		pg_commit(&c0, 0);
		pg_init(&c1, UINT64_MAX - 700);
		pg_alloc(&c1, UINT64_MAX - 700, 20, 5, 0);
		pg_commit(&c1, 0);
		fds[0] = file_of(&c0, 1);
		fds[1] = file_of(&c1, 1);
		memset(&K, 0, sizeof(K));
		memset(&RS, 0, sizeof(RS));
		start(2, ids, fds, false, true);
		if (with_run)
			R.sink_run = run_sink;
		ck_assert_uint_eq(reader_run(&R, true, 0), 6 - first);
		ck_assert_uint_eq(K.n, 6 - first);
		for (i = 0; i < 6 - first; i++)
			ck_assert_msg(K.ev[i].ts == want_ts[first + i] &&
				      K.ev[i].cpu == want_cpu[first + i],
				      "run sink %d, event %d: cpu %u ts %llu", with_run, i,
				      K.ev[i].cpu, (unsigned long long)K.ev[i].ts);
		ck_assert_uint_eq(R.out_of_order, 1);
		ck_assert_uint_eq(R.last_ts, UINT64_MAX - 490);
		if (with_run)
			ck_assert_uint_gt(RS.calls, 0);
		teardown();
		memset(&R, 0, sizeof(R));
	}
}
END_TEST

/* ---- live mode ---- */

static uint64_t fake_clock;

static uint64_t fake_now(void)
{
	return fake_clock;
}

static int live_pipe[2];

/* CPU0: @fd0; CPU1: an empty non-blocking pipe; the clock at 10 ms. */
static void live_start_fd(int fd0)
{
	int fds[2], ids[2] = { 0, 1 };

	fds[0] = fd0;
	ck_assert_int_eq(pipe(live_pipe), 0);
	ck_assert_int_eq(fcntl(live_pipe[0], F_SETFL, O_NONBLOCK), 0);
	fds[1] = live_pipe[0];
	start(2, ids, fds, true, true);
	fds_open[nfds_open++] = live_pipe[1];
	R.now = fake_now;
	R.slack_ns = 2000000;
	fake_clock = 10000000;		/* bound of an empty CPU: 10 ms - 2 ms = 8 ms */
}

/* CPU0: a file of page @c0; CPU1 and the clock as live_start_fd() */
static void live_start_page(struct pg *c0)
{
	live_start_fd(file_of(c0, 1));
}

/* CPU0: a file with events at 1 ms and TS2; CPU1: an empty non-blocking pipe. */
static void live_start_at(uint64_t ts2)
{
	struct pg c0[1];

	pg_init(&c0[0], 1000000);
	pg_alloc(&c0[0], 1000000, 10, 1, 0);
	pg_alloc(&c0[0], ts2, 10, 2, 0);
	pg_commit(&c0[0], 0);
	live_start_page(&c0[0]);
}

static void live_start(void)
{
	live_start_at(9000000);
}

/* page @p committed into CPU1's pipe, as the kernel hands a sub-buffer over */
static void live_cpu1_gets(struct pg *p)
{
	pg_commit(p, 0);
	ck_assert_int_eq(write(live_pipe[1], p->b, SUBBUF), SUBBUF);
}

START_TEST(test_live_holdback)
{
	struct pg p;

	live_start();
	/* 1 ms < 8 ms: delivered; 9 ms > 8 ms: CPU1 might still have something older */
	ck_assert_uint_eq(reader_run(&R, false, 0), 1);
	assert_got(0, EV_PAGE_ALLOC, 0, 1000000, 10, 1);
	ck_assert(R.cpus[1].blocked);
	ck_assert_uint_eq(R.cpus[1].bound, 8000000);
	ck_assert(!R.cpus[1].eof);
	ck_assert_uint_eq(R.cpus[1].read_errors, 0);
	/* same time: still held */
	ck_assert_uint_eq(reader_run(&R, false, 0), 0);
	ck_assert_uint_eq(K.n, 1);

	/* CPU1 now delivers an event older than the held one: it goes first */
	pg_init(&p, 8500000);
	pg_free(&p, 8500000, 20, 1, 0);
	live_cpu1_gets(&p);
	ck_assert_uint_eq(reader_run(&R, false, 0), 1);
	assert_got(1, EV_PAGE_FREE, 1, 8500000, 20, 1);

	/* time passes: CPU1's bound (18 ms) is past 9 ms */
	fake_clock = 20000000;
	ck_assert_uint_eq(reader_run(&R, false, 0), 1);
	assert_got(2, EV_PAGE_ALLOC, 0, 9000000, 10, 2);
	ck_assert_uint_eq(R.out_of_order, 0);

	ck_assert_uint_eq(reader_run(&R, true, 0), 0);
	ck_assert_uint_eq(K.n, 3);
	ck_assert(R.cpus[0].eof && R.cpus[1].eof);
	ck_assert_uint_eq(R.cpus[1].read_errors, 0);
}
END_TEST

/*
 * A live CPU that caught up (its page less than half full) waits bounded by the
 * last record it sent (next_page()), however many went out one after the other
 * in a run of its own (run_on()): here 5, 1.0 to 1.4 us; CPU1 empty, bounded
 * at 8 ms.
 */
static void caught_up_bound(bool with_run)
{
	int cpu0[2], i;
	struct pg p;

	pg_init(&p, 1000);
	for (i = 0; i < 5; i++)
		pg_alloc(&p, 1000 + 100 * (uint64_t)i, 10, (uint64_t)i, 0);
	pg_commit(&p, 0);
	ck_assert_int_eq(pipe(cpu0), 0);
	ck_assert_int_eq(fcntl(cpu0[0], F_SETFL, O_NONBLOCK), 0);
	ck_assert_int_eq(write(cpu0[1], p.b, SUBBUF), SUBBUF);
	live_start_fd(cpu0[0]);		/* its write end kept open: read() says EAGAIN, not the end */
	fds_open[nfds_open++] = cpu0[1];
	memset(&RS, 0, sizeof(RS));
	if (with_run)
		R.sink_run = run_sink;
	ck_assert_uint_eq(reader_run(&R, false, 0), 5);
	assert_got(4, EV_PAGE_ALLOC, 0, 1400, 10, 4);
	ck_assert(R.cpus[0].blocked && !R.cpus[0].eof);
	ck_assert_uint_eq(R.cpus[0].bound, 1400);
	ck_assert_uint_eq(R.records, 5);
	ck_assert_uint_eq(RS.most, with_run ? 4 : 0);	/* the first goes out through the merge */
}

START_TEST(test_live_caught_up_bound_is_last_sent)
{
	caught_up_bound(false);
}
END_TEST

/* the same through the run sink: the CPU holds the last record of the span it sent */
START_TEST(test_live_caught_up_bound_run_sink)
{
	caught_up_bound(true);
}
END_TEST

/*
 * The hold-back inside a run of one CPU's records: CPU0 holds 20 events, 1 to 20 ms,
 * walked ahead into its queue; CPU1 is empty, bounded at 8 ms. The events up to 8 ms go
 * one after the other, and the run stops at 9 ms whatever CPU0 has queued behind it.
 */
START_TEST(test_live_holdback_in_run)
{
	struct pg c0[1], p;
	uint32_t i;

	pg_init(&c0[0], 1000000);
	for (i = 1; i <= 20; i++)
		pg_alloc(&c0[0], i * 1000000ull, 10, i, 0);
	pg_commit(&c0[0], 0);
	live_start_page(&c0[0]);	/* CPU1's bound: 8 ms */
	ck_assert_uint_eq(reader_run(&R, false, 0), 8);
	for (i = 0; i < 8; i++)
		assert_got(i, EV_PAGE_ALLOC, 0, (i + 1) * 1000000ull, 10, i + 1);
	/* CPU1's event at 8.5 ms comes before CPU0's 9 ms; CPU1's bound is 8 ms again */
	pg_init(&p, 8500000);
	pg_free(&p, 8500000, 20, 1, 0);
	live_cpu1_gets(&p);
	ck_assert_uint_eq(reader_run(&R, false, 0), 1);
	assert_got(8, EV_PAGE_FREE, 1, 8500000, 20, 1);
	/* 15.5 ms: CPU1's bound 13.5 ms lets 9 to 13 ms go */
	fake_clock = 15500000;
	ck_assert_uint_eq(reader_run(&R, false, 0), 5);
	for (i = 9; i < 14; i++)
		assert_got(i, EV_PAGE_ALLOC, 0, i * 1000000ull, 10, i);
	ck_assert_uint_eq(reader_run(&R, true, 0), 7);
	assert_got(20, EV_PAGE_ALLOC, 0, 20000000, 10, 20);
	ck_assert_uint_eq(R.out_of_order, 0);
	ck_assert_uint_eq(K.n, 21);
}
END_TEST

/*
 * The run's edge: a record at CPU1's bound goes out, one a nanosecond after it
 * waits (CPU0: 7 ms, 8 ms, 8 ms + 1 ns, 9 ms; CPU1 empty, bounded at 8 ms).
 */
START_TEST(test_live_holdback_in_run_edge)
{
	static const uint64_t ts[] = { 7000000, 8000000, 8000001, 9000000 };
	struct pg c0[1];
	uint32_t i;

	pg_init(&c0[0], ts[0]);
	for (i = 0; i < 4; i++)
		pg_alloc(&c0[0], ts[i], 10, i + 1, 0);
	pg_commit(&c0[0], 0);
	live_start_page(&c0[0]);	/* CPU1's bound: 8 ms */
	ck_assert_uint_eq(reader_run(&R, false, 0), 2);
	assert_got(1, EV_PAGE_ALLOC, 0, 8000000, 10, 2);
	ck_assert_uint_eq(reader_run(&R, false, 0), 0);
	fake_clock = 10000001;		/* CPU1's bound: 8 ms + 1 ns */
	ck_assert_uint_eq(reader_run(&R, false, 0), 1);
	assert_got(2, EV_PAGE_ALLOC, 0, 8000001, 10, 3);
	ck_assert_uint_eq(reader_run(&R, true, 0), 1);
	ck_assert_uint_eq(K.n, 4);
	ck_assert_uint_eq(R.out_of_order, 0);
}
END_TEST

START_TEST(test_live_final)
{
	live_start();
	/* final: an empty CPU is finished, everything goes out */
	ck_assert_uint_eq(reader_run(&R, true, 0), 2);
	assert_got(0, EV_PAGE_ALLOC, 0, 1000000, 10, 1);
	assert_got(1, EV_PAGE_ALLOC, 0, 9000000, 10, 2);
	ck_assert_uint_eq(R.cpus[1].read_errors, 0);
}
END_TEST

/* A read of CPU1 says ENODEV while it is offline (the kernel's own answer then). */
static bool cpu1_offline;

static ssize_t offline_read(int fd, void *buf, size_t len)
{
	if (cpu1_offline && fd == live_pipe[0]) {
		errno = ENODEV;
		return -1;
	}
	return read(fd, buf, len);
}

/*
 * An offline CPU holds nothing back and is not dropped for good: once the
 * loop gives it back (reader_cpu_online()), its events are read; both facts
 * are kept for the reports.
 */
START_TEST(test_live_offline_cpu)
{
	struct pg p;

	live_start();
	R.read_fn = offline_read;
	cpu1_offline = true;
	/* both of CPU0's events go: an offline CPU cannot hold them back */
	ck_assert_uint_eq(reader_run(&R, false, 0), 2);
	ck_assert(R.cpus[1].offline && R.cpus[1].was_offline);
	ck_assert(reader_cpu_offline(&R, 1));
	ck_assert(R.cpus[1].offline && !R.cpus[0].offline);
	ck_assert_uint_eq(R.cpus[1].offline_reads, 1);
	ck_assert_uint_eq(R.cpus[1].read_errors, 0);
	/* still offline at the next try */
	reader_cpu_online(&R, 1, live_pipe[0]);
	ck_assert_uint_eq(reader_run(&R, false, 0), 0);
	ck_assert(R.cpus[1].offline);
	ck_assert_uint_eq(R.cpus[1].offline_reads, 2);
	/* online: its events come */
	cpu1_offline = false;
	pg_init(&p, 30000000);
	pg_free(&p, 30000000, 10, 1, 0);
	live_cpu1_gets(&p);
	reader_cpu_online(&R, 1, live_pipe[0]);
	ck_assert(!reader_cpu_offline(&R, 1));
	fake_clock = 40000000;		/* CPU0, empty, cannot have anything older now */
	ck_assert_uint_eq(reader_run(&R, false, 0), 1);
	assert_got(2, EV_PAGE_FREE, 1, 30000000, 10, 1);
	ck_assert(!R.cpus[0].offline && !R.cpus[1].offline);
	ck_assert(R.cpus[1].was_offline);
}
END_TEST

/*
 * A page less than half full ends a CPU's reading until the next call (the
 * writer was reached: reading on would chase each new event, and a recording
 * would feed itself). But such a page may also be the rest of one read in
 * part before, with full pages after it: the CPU then still holds back what
 * is newer than its last record, so that nothing goes out of order.
 */
START_TEST(test_live_partial_page)
{
	struct pg a, b, c, d;
	int p0[2], p1[2], fds[2], ids[2] = { 0, 1 };

	ck_assert_int_eq(pipe(p0), 0);
	ck_assert_int_eq(pipe(p1), 0);
	ck_assert_int_eq(fcntl(p0[0], F_SETFL, O_NONBLOCK), 0);
	ck_assert_int_eq(fcntl(p1[0], F_SETFL, O_NONBLOCK), 0);
	/* CPU0: a short page (1, 2 ms), then more (3, 5 ms) already there; CPU1: 4 ms */
	pg_init(&a, 1000000);
	pg_alloc(&a, 1000000, 10, 1, 0);
	pg_alloc(&a, 2000000, 10, 2, 0);
	pg_commit(&a, 0);
	pg_init(&b, 3000000);
	pg_alloc(&b, 3000000, 10, 3, 0);
	pg_alloc(&b, 5000000, 10, 5, 0);
	pg_commit(&b, 0);
	pg_init(&c, 4000000);
	pg_alloc(&c, 4000000, 20, 4, 0);
	pg_commit(&c, 0);
	ck_assert_int_eq(write(p0[1], a.b, SUBBUF), SUBBUF);
	ck_assert_int_eq(write(p0[1], b.b, SUBBUF), SUBBUF);
	ck_assert_int_eq(write(p1[1], c.b, SUBBUF), SUBBUF);
	fds[0] = p0[0];
	fds[1] = p1[0];
	start(2, ids, fds, true, true);
	fds_open[nfds_open++] = p0[1];
	fds_open[nfds_open++] = p1[1];
	R.now = fake_now;
	R.slack_ns = 2000000;
	/*
	 * 6 ms: an empty CPU now has nothing older than 4 ms to come. CPU1, caught
	 * up at its short page (4 ms), is asked again before 5 ms may go and says
	 * empty: but a 4.x ms event of its own may still come, so 5 ms is held
	 * back. Exactly four: a fifth here is the hold-back letting go too early.
	 */
	fake_clock = 6000000;
	reader_run(&R, false, 0);
	ck_assert_uint_eq(K.n, 4);
	assert_got(0, EV_PAGE_ALLOC, 0, 1000000, 10, 1);
	assert_got(1, EV_PAGE_ALLOC, 0, 2000000, 10, 2);
	assert_got(2, EV_PAGE_ALLOC, 0, 3000000, 10, 3);
	assert_got(3, EV_PAGE_ALLOC, 1, 4000000, 20, 4);
	ck_assert_uint_eq(R.out_of_order, 0);
	fake_clock = 100000000;		/* an empty CPU: nothing older than 98 ms to come */
	reader_run(&R, false, 0);
	ck_assert_uint_eq(K.n, 5);
	assert_got(4, EV_PAGE_ALLOC, 0, 5000000, 10, 5);
	/* caught up: a page that comes now waits for the next call */
	pg_init(&d, 6000000);
	pg_alloc(&d, 6000000, 10, 6, 0);
	pg_commit(&d, 0);
	ck_assert_int_eq(write(p0[1], d.b, SUBBUF), SUBBUF);
	ck_assert_int_eq(write(p0[1], d.b, SUBBUF), SUBBUF);
	fake_clock = 200000000;
	ck_assert_uint_eq(reader_run(&R, false, 0), 1);	/* one short page per call */
	ck_assert_uint_eq(reader_run(&R, false, 0), 1);
	ck_assert_uint_eq(R.cpus[0].pages, 4);
	ck_assert_uint_eq(R.out_of_order, 0);	/* the second copy of 6 ms: the same time stamp */
}
END_TEST

/* An event older than one already delivered (a CPU's sub-buffer came later than the
 * slack) goes on at once, counted: it is never dropped, nor does it stall the rest. */
START_TEST(test_live_late_event)
{
	struct pg p;

	live_start();
	fake_clock = 20000000;		/* CPU1's bound 18 ms: both of CPU0's go */
	ck_assert_uint_eq(reader_run(&R, false, 0), 2);
	ck_assert_uint_eq(R.out_of_order, 0);
	/* two late ones, both older than the 9 ms applied: each counts */
	pg_init(&p, 5000000);
	pg_free(&p, 5000000, 10, 1, 0);
	pg_free(&p, 7000000, 10, 2, 0);
	pg_alloc(&p, 19000000, 30, 1, 0);
	live_cpu1_gets(&p);
	fake_clock = 30000000;		/* CPU0's bound 28 ms: 19 ms goes too */
	ck_assert_uint_eq(reader_run(&R, false, 0), 3);
	assert_got(2, EV_PAGE_FREE, 1, 5000000, 10, 1);
	assert_got(3, EV_PAGE_FREE, 1, 7000000, 10, 2);
	assert_got(4, EV_PAGE_ALLOC, 1, 19000000, 30, 1);
	ck_assert_uint_eq(R.out_of_order, 2);
	ck_assert_uint_eq(R.last_ts, 19000000);
	ck_assert_uint_eq(R.records, 5);
}
END_TEST

/* A time stamp far in the future (a corrupt page) is forced out and counted once; it
 * does not become the reference, so the normal events after it do not count. */
START_TEST(test_live_future_stamp)
{
	struct pg p;

	live_start_at(5000000000ull);		/* 5 s; the clock says 10 ms */
	ck_assert_uint_eq(reader_run(&R, false, 0), 2);
	assert_got(1, EV_PAGE_ALLOC, 0, 5000000000ull, 10, 2);
	ck_assert_uint_eq(R.out_of_order, 1);
	ck_assert_uint_eq(R.last_ts, 1000000);
	pg_init(&p, 11000000);
	pg_alloc(&p, 11000000, 30, 3, 0);
	pg_alloc(&p, 12000000, 30, 4, 0);
	live_cpu1_gets(&p);
	fake_clock = 30000000;
	ck_assert_uint_eq(reader_run(&R, false, 0), 2);
	assert_got(3, EV_PAGE_ALLOC, 1, 12000000, 30, 4);
	ck_assert_uint_eq(R.out_of_order, 1);
	ck_assert_uint_eq(R.records, 4);
}
END_TEST

START_TEST(test_live_not_mono)
{
	struct pg c0[1];
	int fds[2], ids[2] = { 0, 1 }, p[2];

	/* without a comparable clock an empty CPU cannot hold events back */
	pg_init(&c0[0], 1000000);
	pg_alloc(&c0[0], 1000000, 10, 1, 0);
	pg_alloc(&c0[0], 900000000, 10, 2, 0);
	pg_commit(&c0[0], 0);
	ck_assert_int_eq(pipe(p), 0);
	ck_assert_int_eq(fcntl(p[0], F_SETFL, O_NONBLOCK), 0);
	ck_assert_int_eq(fcntl(p[1], F_SETFL, O_NONBLOCK), 0);
	fds[0] = p[0];
	fds[1] = file_of(c0, 1);
	ids[0] = 1;
	ids[1] = 0;
	start(2, ids, fds, true, false);
	fds_open[nfds_open++] = p[1];
	R.now = fake_now;
	fake_clock = 5000000;
	ck_assert_uint_eq(reader_run(&R, false, 0), 2);
	ck_assert(!R.cpus[0].eof);
}
END_TEST

/* ---- lost events ---- */

START_TEST(test_lost_accounting)
{
	struct pg c0[4], c1[1];
	int fds[2], ids[2] = { 0, 1 };

	pg_init(&c0[0], 100);			/* 368 lost, count stored */
	pg_alloc(&c0[0], 100, 1, 1, 0);
	pg_lost(&c0[0], 368);
	pg_init(&c0[1], 200);			/* lost, count not stored */
	pg_alloc(&c0[1], 200, 1, 2, 0);
	pg_commit(&c0[1], MISSED_EVENTS);
	pg_init(&c0[2], 300);			/* nothing lost */
	pg_alloc(&c0[2], 300, 1, 3, 0);
	pg_commit(&c0[2], 0);
	pg_init(&c0[3], 400);			/* both flags, but no room left for the count */
	pg_alloc(&c0[3], 400, 1, 4, 0);
	pg_put32(&c0[3], 29);			/* null padding: rest unused */
	c0[3].size = DATA_SIZE;
	pg_commit(&c0[3], MISSED_EVENTS | MISSED_STORED);
	pg_init(&c1[0], 150);
	pg_alloc(&c1[0], 150, 2, 5, 0);
	pg_commit(&c1[0], 0);
	fds[0] = file_of(c0, 4);
	fds[1] = file_of(c1, 1);
	start(2, ids, fds, false, false);

	ck_assert_uint_eq(reader_run(&R, true, 0), 5);
	assert_got(0, EV_PAGE_ALLOC, 0, 100, 1, 1);
	assert_got(1, EV_PAGE_ALLOC, 1, 150, 2, 5);
	assert_got(4, EV_PAGE_ALLOC, 0, 400, 1, 4);
	ck_assert_uint_eq(R.cpus[0].missed_pages, 3);
	ck_assert_uint_eq(R.cpus[0].lost_stored, 368);
	ck_assert_uint_eq(R.cpus[0].missed_unknown, 2);
	ck_assert_uint_eq(R.cpus[1].missed_pages, 0);
	ck_assert_uint_eq(R.cpus[0].corrupt_pages, 0);
	/* a page whose count is unknown stands for at least one lost event */
	ck_assert_uint_eq(reader_lost(&R), 368 + 2);
	ck_assert_uint_eq(reader_missed_unknown(&R), 2);

	/* per CPU the larger of the header sum and the stats file */
	R.cpus[0].stats_lost = 500;
	ck_assert_uint_eq(reader_lost(&R), 500);
	R.cpus[1].stats_lost = 7;
	ck_assert_uint_eq(reader_lost(&R), 507);
	R.cpus[0].stats_lost = 100;
	ck_assert_uint_eq(reader_lost(&R), 370 + 7);
	ck_assert_uint_eq(reader_missed_unknown(&R), 2);
}
END_TEST

/* ---- corrupt data and the record tee ---- */

START_TEST(test_corrupt_pages_and_tee)
{
	struct pg c0[4];
	uint8_t want[4 * SUBBUF + 8], got[sizeof(want) + 16];
	/* ids in this machine's order, as the rest of the page (testpage.h) */
	uint8_t unk[8] = { 0, 0, 0, 0, 1, 0, 0, 0 };
	uint8_t shortrec[8] = { 0, 0, 0, 0, 1, 0, 0, 0 };
	int fds[1], ids[1] = { 0 }, rec, fd;
	uint64_t commit = 5000;
	ssize_t n;

	memcpy(unk, &(uint16_t){ 9999 }, 2);
	memcpy(shortrec, &(uint16_t){ ID_ALLOC }, 2);
	pg_init(&c0[0], 10);			/* good: alloc + an unknown event id */
	pg_alloc(&c0[0], 10, 1, 1, 0);
	pg_event(&c0[0], 11, unk, sizeof(unk));
	pg_commit(&c0[0], 0);
	pg_init(&c0[1], 20);			/* commit size larger than the page */
	pg_alloc(&c0[1], 20, 1, 2, 0);
	memcpy(c0[1].b + 8, &commit, 8);
	pg_init(&c0[2], 30);			/* a record running past the data */
	pg_alloc(&c0[2], 30, 1, 3, 0);
	c0[2].size = 20;
	pg_commit(&c0[2], 0);
	pg_init(&c0[3], 40);			/* good: free + a record too short to decode */
	pg_free(&c0[3], 40, 1, 1, 0);
	pg_event(&c0[3], 41, shortrec, sizeof(shortrec));
	pg_commit(&c0[3], 0);

	fd = file_of(c0, 4);
	/* a short read at the end: less than a page header */
	ck_assert_int_eq(lseek(fd, 0, SEEK_END), 4 * SUBBUF);
	ck_assert_int_eq(write(fd, "\x01\x02\x03\x04\x05\x06\x07\x08", 8), 8);
	ck_assert_int_eq(lseek(fd, 0, SEEK_SET), 0);
	ck_assert_int_eq(read(fd, want, sizeof(want)), (ssize_t)sizeof(want));
	ck_assert_int_eq(lseek(fd, 0, SEEK_SET), 0);
	fds[0] = fd;
	rec = tmp_fd();
	with_stats();
	start(1, ids, fds, false, false);
	fds_open[nfds_open++] = rec;
	R.cpus[0].rec_fd = rec;

	/* the count is of records consumed, the unknown and the undecodable one included */
	ck_assert_uint_eq(reader_run(&R, true, 0), 4);
	ck_assert_uint_eq(K.n, 2);
	assert_got(0, EV_PAGE_ALLOC, 0, 10, 1, 1);
	assert_got(1, EV_PAGE_FREE, 0, 40, 1, 1);
	ck_assert_uint_eq(R.cpus[0].pages, 5);
	ck_assert_uint_eq(R.cpus[0].bytes, 4 * SUBBUF + 8);
	ck_assert_uint_eq(R.cpus[0].corrupt_pages, 2);
	ck_assert_uint_eq(R.cpus[0].corrupt_records, 1);
	ck_assert_uint_eq(R.cpus[0].read_errors, 0);
	ck_assert_uint_eq(R.cpus[0].record_errors, 0);
	ck_assert_uint_eq(R.records, 4);
	ck_assert_uint_eq(R.decoded, 2);
	ck_assert_uint_eq(R.unknown_ids, 1);
	ck_assert_uint_eq(R.bad_records, 1);
	ck_assert_int_eq(stats_find_task(&ST, 1)->cur, 0);
	ck_assert_uint_eq(ST.c.untracked_frees, 0);

	/* every read went to the record file unchanged, corrupt ones too */
	ck_assert_int_eq(lseek(rec, 0, SEEK_SET), 0);
	n = read(rec, got, sizeof(got));
	ck_assert_int_eq(n, (ssize_t)sizeof(want));
	ck_assert_mem_eq(got, want, sizeof(want));
}
END_TEST

START_TEST(test_record_write_error)
{
	struct pg c0[1];
	int fds[1], ids[1] = { 0 }, devfull;

	devfull = open("/dev/full", O_WRONLY | O_CLOEXEC);
	if (devfull < 0)
		return;		/* no /dev/full here */
	pg_init(&c0[0], 10);
	pg_alloc(&c0[0], 10, 1, 1, 0);
	pg_commit(&c0[0], 0);
	fds[0] = file_of(c0, 1);
	start(1, ids, fds, false, false);
	fds_open[nfds_open++] = devfull;
	R.cpus[0].rec_fd = devfull;
	/* recording fails, reading goes on */
	ck_assert_uint_eq(reader_run(&R, true, 0), 1);
	ck_assert_uint_eq(R.cpus[0].record_errors, 1);
	ck_assert_int_eq(R.cpus[0].last_errno, ENOSPC);
}
END_TEST

/* ---- replay of the real debian-6.1 capture ---- */

#define FX "debian-6.1"

struct expect {
	char name[MODNAME_LEN];
	int32_t pid;
	uint64_t pages;
	bool open, closed;
	int64_t ret;
};

struct textev {
	enum mt_kind kind;
	int32_t pid;
	uint64_t us;
};

struct oracle {
	struct expect mods[16];
	int nmods;
	struct textev ev[600];
	int nev;
	uint64_t entries;
	uint64_t unknown;	/* events memtrace does not decode (module_get, free_batched) */
};

static struct expect *open_bracket(struct oracle *o, int32_t pid)
{
	int i;

	for (i = 0; i < o->nmods; i++)
		if (o->mods[i].pid == pid && o->mods[i].open)
			return &o->mods[i];
	return NULL;
}

static const struct {
	const char *prefix;
	enum mt_kind kind;
} text_kinds[] = {
	{ "mm_page_alloc: ", EV_PAGE_ALLOC },
	{ "mm_page_free: ", EV_PAGE_FREE },
	{ "sched_process_fork: ", EV_FORK },
	{ "sched_process_exit: ", EV_EXIT },
	{ "sched_process_exec: ", EV_EXEC },
	{ "task_rename: ", EV_RENAME },
	{ "task_newtask: ", EV_NEWTASK },
	{ "module_load: ", EV_MOD_LOAD },
	{ "module_put: ", EV_MOD_PUT },
	{ "module_free: ", EV_MOD_FREE },
	{ "mark_victim: ", EV_OOM_VICTIM },
	{ "sys_finit_module(", EV_MODSYS_ENTER },
	{ "sys_init_module(", EV_MODSYS_ENTER },
	{ "sys_finit_module -> ", EV_MODSYS_EXIT },
	{ "sys_init_module -> ", EV_MODSYS_EXIT },
};

/*
 * Parse the kernel's own text rendering of the trace ("TASK-PID [CPU] FLAGS
 * SECONDS.MICROS: event: ..."): the event sequence and, per finit_module
 * bracket, the pages the loader allocated in task context.
 */
static void parse_trace_txt(struct oracle *o, char *text)
{
	char *line, *save = NULL;

	memset(o, 0, sizeof(*o));
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		const char *br, *e, *d, *rest, *hit;
		char flags[16];
		unsigned long sec, usec;
		enum mt_kind kind = EV_NONE;
		struct expect *x;
		int32_t pid;
		size_t i;
		int n = -1;

		if (line[0] == '#') {
			hit = strstr(line, "entries-in-buffer/entries-written: ");
			if (hit)
				o->entries = strtoull(hit + 35, NULL, 10);
			continue;
		}
		br = strchr(line, '[');
		if (!br)
			continue;
		for (e = br; e > line && e[-1] == ' '; e--)
			;
		for (d = e; d > line && isdigit((unsigned char)d[-1]); d--)
			;
		ck_assert_msg(d < e && d > line && d[-1] == '-', "no pid in: %s", line);
		pid = (int32_t)strtol(d, NULL, 10);
		br = strchr(br, ']');
		ck_assert_ptr_nonnull(br);
		ck_assert_msg(sscanf(br + 1, " %15s %lu.%lu: %n", flags, &sec, &usec, &n) == 3 &&
			      n > 0 && strlen(flags) == 5, "bad line: %s", line);
		rest = br + 1 + n;
		if (strstr(rest, "module_get: ") == rest ||
		    strstr(rest, "mm_page_free_batched: ") == rest) {
			o->unknown++;
			continue;
		}
		for (i = 0; i < sizeof(text_kinds) / sizeof(text_kinds[0]); i++)
			if (!strncmp(rest, text_kinds[i].prefix, strlen(text_kinds[i].prefix)))
				kind = text_kinds[i].kind;
		ck_assert_msg(kind != EV_NONE, "unknown event in: %s", line);
		ck_assert_int_lt(o->nev, (int)(sizeof(o->ev) / sizeof(o->ev[0])));
		o->ev[o->nev].kind = kind;
		o->ev[o->nev].pid = pid;
		o->ev[o->nev].us = sec * 1000000 + usec;
		o->nev++;

		x = open_bracket(o, pid);
		switch (kind) {
		case EV_MODSYS_ENTER:
			ck_assert_ptr_null(x);
			ck_assert_int_lt(o->nmods, 16);
			x = &o->mods[o->nmods++];
			x->pid = pid;
			x->open = true;
			break;
		case EV_MODSYS_EXIT:
			ck_assert_ptr_nonnull(x);
			x->open = false;
			x->closed = true;
			x->ret = strtoll(strstr(rest, "-> ") + 3, NULL, 16);
			break;
		case EV_MOD_LOAD:
			ck_assert_ptr_nonnull(x);
			ck_assert_int_eq(sscanf(rest, "module_load: %55s", x->name), 1);
			break;
		case EV_PAGE_ALLOC:
			/* flags[2] is the hardirq/softirq column: '.' = task context */
			if (x && flags[2] == '.') {
				hit = strstr(rest, " order=");
				ck_assert_ptr_nonnull(hit);
				x->pages += 1ull << strtoul(hit + 7, NULL, 10);
			}
			break;
		default:
			break;
		}
	}
}

static bool fixture_exists(const char *rel)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", fixtures_dir, rel);
	return access(path, R_OK) == 0;
}

static int open_fixture(const char *rel)
{
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", fixtures_dir, rel);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	ck_assert_msg(fd >= 0, "%s: %s", path, strerror(errno));
	return fd;
}

static uint64_t stats_overrun(const char *rel)
{
	size_t len;
	char *text = read_fixture(rel, &len), *p = strstr(text, "overrun: ");
	uint64_t v;

	ck_assert_ptr_nonnull(p);
	v = strtoull(p + 9, NULL, 10);
	free(text);
	return v;
}

/*
 * _i: 0 the files read, 1 mapped (reader_files(), fstat()), 2 cpu0's mapped at
 * the size its opener found, as a replay does, cpu1's said not to be (read)
 */
START_TEST(test_replay_debian61)
{
	static struct oracle o;
	static struct mt_decoder dec;
	const struct mt_tracepoint *tp;
	struct stats_config cfg = { .max_tasks = 1024, .max_modules = 64, .max_pfn = 1u << 20 };
	struct rb_layout l;
	char rel[256], err[256], name[MODNAME_LEN], *text, *p, *save = NULL;
	unsigned long long a0, a1;
	uint32_t nformats = 0;
	int fds[2], ids[2] = { 0, 1 }, i, nnames = 0;
	uint64_t sum = 0;
	size_t len;

	/* layout and decoder from the capture's own files */
	text = read_fixture(FX "/events/header_page", &len);
	ck_assert_msg(fmt_parse_header_page(&l, text, len, err, sizeof(err)) == 0, "%s", err);
	free(text);
	ck_assert_uint_eq(rb_subbuf_size(&l), SUBBUF);
	decoder_init(&dec);
	for (tp = mt_tracepoints; tp->system; tp++) {
		struct fmt_event fe;

		snprintf(rel, sizeof(rel), FX "/events/%s/%s/format", tp->system, tp->name);
		if (!fixture_exists(rel))
			continue;
		text = read_fixture(rel, &len);
		memset(&fe, 0, sizeof(fe));
		snprintf(fe.system, sizeof(fe.system), "%s", tp->system);
		ck_assert_msg(fmt_parse_event(&fe, text, len, err, sizeof(err)) == 0, "%s: %s",
			      rel, err);
		ck_assert_msg(decoder_add(&dec, tp, &fe, err, sizeof(err)) == 0, "%s: %s", rel,
			      err);
		nformats++;
		free(text);
	}
	ck_assert_uint_eq(nformats, 15);	/* every tracepoint existed on 6.1 */

	/* do_init_module and the next symbol, by hand from kallsyms */
	text = read_fixture(FX "/kallsyms.txt", &len);
	ck_assert_int_eq(sscanf(text, "%llx %*s do_init_module\n%llx", &a0, &a1), 2);
	ck_assert(a0 < a1);
	free(text);
	cfg.initmod_start = a0;
	cfg.initmod_end = a1;
	cfg.rename_events = true;
	ck_assert_int_eq(stats_init(&ST, &cfg), 0);
	K.st = &ST;

	/* the kernel's text rendering: the independent oracle */
	text = read_fixture(FX "/trace.txt", &len);
	parse_trace_txt(&o, text);
	free(text);
	ck_assert_uint_gt(o.entries, 0);
	ck_assert_uint_eq(o.entries, (uint64_t)o.nev + o.unknown);

	fds[0] = open_fixture(FX "/per_cpu/cpu0/trace_pipe_raw");
	fds[1] = open_fixture(FX "/per_cpu/cpu1/trace_pipe_raw");
	ck_assert_int_eq(reader_init(&R, &l, &dec, 2, ids, fds, false, true, sink, &K), 0);
	fds_open[nfds_open++] = fds[0];
	fds_open[nfds_open++] = fds[1];
	R.cpus[0].stats_lost = stats_overrun(FX "/per_cpu/cpu0/stats");
	R.cpus[1].stats_lost = stats_overrun(FX "/per_cpu/cpu1/stats");
	if (_i == 1) {
		reader_files(&R, NULL);
		ck_assert(R.cpus[0].map && R.cpus[1].map);
	} else if (_i == 2) {
		struct stat st;
		int64_t sizes[2] = { 0, -1 };

		ck_assert_int_eq(fstat(fds[0], &st), 0);
		sizes[0] = st.st_size;
		reader_files(&R, sizes);
		ck_assert(R.cpus[0].map && !R.cpus[1].map);
		ck_assert_uint_eq(R.cpus[0].map_len, (size_t)st.st_size);
	}

	ck_assert_uint_eq(reader_run(&R, true, 0), o.entries);
	ck_assert_uint_eq(R.records, o.entries);
	ck_assert_uint_eq(R.decoded, (uint64_t)o.nev);
	ck_assert_uint_eq(R.unknown_ids, o.unknown);
	ck_assert_uint_eq(R.bad_records, 0);
	ck_assert_uint_eq(R.out_of_order, 0);
	ck_assert_uint_eq(R.cpus[0].corrupt_pages + R.cpus[1].corrupt_pages, 0);
	ck_assert_uint_eq(R.cpus[0].corrupt_records + R.cpus[1].corrupt_records, 0);
	ck_assert_uint_eq(R.cpus[0].pages, 2);
	ck_assert_uint_eq(R.cpus[1].pages, 3);
	ck_assert_uint_eq(reader_lost(&R), 0);

	/* the same events in the same order as the kernel's text (µs rounding aside) */
	ck_assert_uint_eq(K.n, (uint32_t)o.nev);
	for (i = 0; i < o.nev; i++) {
		uint64_t us = K.ev[i].ts / 1000;

		ck_assert_msg(K.ev[i].kind == o.ev[i].kind && K.ev[i].tid == o.ev[i].pid &&
			      us + 1 >= o.ev[i].us && us <= o.ev[i].us + 1,
			      "event %d: binary kind %d pid %d ts %llu, text kind %d pid %d us %llu",
			      i, K.ev[i].kind, K.ev[i].tid, (unsigned long long)K.ev[i].ts,
			      o.ev[i].kind, o.ev[i].pid, (unsigned long long)o.ev[i].us);
	}

	/* every module named in modules.txt, bracketed by its finit_module syscall */
	text = read_fixture(FX "/modules.txt", &len);
	for (p = strtok_r(text, "\n", &save); p; p = strtok_r(NULL, "\n", &save)) {
		struct expect *x = NULL;
		struct mt_module *m;
		int k;

		ck_assert_int_eq(sscanf(p, "%55s", name), 1);
		nnames++;
		for (k = 0; k < o.nmods; k++)
			if (!strcmp(o.mods[k].name, name))
				x = &o.mods[k];
		ck_assert_msg(x != NULL, "%s: no bracket in trace.txt", name);
		ck_assert(x->closed);
		ck_assert_int_eq(x->ret, 0);
		ck_assert_uint_gt(x->pages, 0);
		sum += x->pages;
		m = table_find_module(&ST.tb, name, strlen(name));
		ck_assert_msg(m != NULL, "%s not in the module table", name);
		ck_assert_int_eq(m->bracket, BR_SYSCALL);
		ck_assert_int_eq(m->open, 0);
		ck_assert_int_eq(m->ret, 0);
		ck_assert_int_eq(m->loader_tid, x->pid);
		ck_assert_msg(m->alloc_pages == x->pages, "%s: %llu pages, trace.txt says %llu",
			      name, (unsigned long long)m->alloc_pages,
			      (unsigned long long)x->pages);
		ck_assert_int_eq(m->state, strcmp(name, "crc32_pclmul") ? MOD_LIVE : MOD_UNLOADED);
		ck_assert_int_le(m->cur, (int64_t)m->alloc_pages);
		ck_assert_int_ge(m->peak, 1);
		ck_assert_int_le(m->peak, (int64_t)m->alloc_pages);
	}
	free(text);
	ck_assert_int_eq(nnames, 6);
	ck_assert_int_eq(o.nmods, 6);
	ck_assert_uint_eq(ST.tb.nmods, 6);
	ck_assert_uint_eq(ST.tb.c.modules_seen, 6);
	/* self-check of the text parser: 3 + 2 + 3 + 6 + 4 + 3, counted by eye */
	ck_assert_uint_eq(sum, 21);

	/* names from task_rename, exits from sched_process_exit */
	ck_assert_uint_eq(stats_find_task(&ST, 96)->comm_len, 5);
	ck_assert_mem_eq(stats_find_task(&ST, 96)->comm, "rmmod", 5);
	ck_assert_int_eq(stats_find_task(&ST, 93)->state, TASK_EXITED);
	ck_assert_mem_eq(stats_find_task(&ST, 94)->comm, "cryptomgr_test", 14);
	ck_assert_uint_eq(ST.c.events[EV_MODSYS_ENTER], 6);
	ck_assert_uint_eq(ST.c.events[EV_MODSYS_EXIT], 6);
	ck_assert_uint_eq(ST.c.pfn_out_of_range, 0);
}
END_TEST

/*
 * reader_files(): the same events in the same order, and the same counters,
 * as the files read. CPU0's second page starts after all of CPU1's first page:
 * mapped, it is walked when the merge comes to it (after 250 is delivered),
 * read, as soon as the page before is done (after 150). Its first record is
 * an absolute time stamp older than its header's, and CPU1's second page is
 * empty with a header far in the future: neither time keeps a CPU's place, its
 * first record's does, as when read. A pipe stays read; a short page at a
 * file's end and a corrupt page are met as read.
 */
static struct {
	uint64_t ts[64];
	uint32_t at[64];	/* events delivered when it was walked */
	size_t q[64];		/* the queue it was walked into (of R.queues) */
	uint32_t n;
} W;

static void walk_log(void *ctx, const struct mt_event *ev)
{
	size_t off = (size_t)((const char *)ev - (const char *)R.queues);

	ck_assert_ptr_eq(ctx, &K);
	ck_assert_uint_lt(W.n, 64);
	ck_assert_uint_lt(off, (size_t)R.ncpus * READER_QUEUE * sizeof(struct reader_rec));
	W.ts[W.n] = ev->ts;
	W.q[W.n] = off / (READER_QUEUE * sizeof(struct reader_rec));
	W.at[W.n++] = K.n;
}

static uint32_t walked(uint64_t ts)
{
	uint32_t i;

	for (i = 0; i < W.n; i++)
		if (W.ts[i] == ts)
			return i;
	ck_abort_msg("%llu never walked", (unsigned long long)ts);
	return 0;
}

static uint32_t walked_at(uint64_t ts)
{
	return W.at[walked(ts)];
}

static size_t walked_into(uint64_t ts)
{
	return W.q[walked(ts)];
}

static void files_run(bool mapped, struct sinkctx *out, struct reader *keep)
{
	struct pg c0[3], c1[3], c2[1];
	int fds[3], ids[3] = { 0, 1, 2 }, fd;
	uint64_t commit = 5000, abs = 260;

	pg_init(&c0[0], 100);
	pg_alloc(&c0[0], 100, 10, 1, 0);
	pg_alloc(&c0[0], 150, 10, 2, 0);
	pg_commit(&c0[0], 0);
	pg_init(&c0[1], 5000);			/* its first record: an absolute 260 */
	pg_put32(&c0[1], pg_hdr(31, (uint32_t)(abs & ((1u << 27) - 1))));
	pg_put32(&c0[1], (uint32_t)(abs >> 27));
	c0[1].ts = abs;
	pg_free(&c0[1], 260, 10, 1, 0);
	pg_alloc(&c0[1], 900, 10, 3, 2);
	pg_commit(&c0[1], 0);
	pg_init(&c0[2], 950);			/* commit size larger than the page */
	pg_alloc(&c0[2], 950, 10, 9, 0);
	memcpy(c0[2].b + 8, &commit, 8);
	pg_init(&c1[0], 200);
	pg_alloc(&c1[0], 200, 20, 4, 0);
	pg_alloc(&c1[0], 250, 20, 5, 0);
	pg_commit(&c1[0], 0);
	pg_init(&c1[1], 1000000000000ull);	/* empty, far in the future */
	pg_commit(&c1[1], 0);
	pg_init(&c1[2], 300);
	pg_free(&c1[2], 300, 20, 4, 0);
	pg_alloc(&c1[2], 300, 20, 6, 0);	/* the same time as CPU2's: index order */
	pg_commit(&c1[2], 0);
	pg_init(&c2[0], 300);
	pg_alloc(&c2[0], 300, 30, 7, 0);
	pg_commit(&c2[0], 0);
	fds[0] = file_of(c0, 3);
	fd = fds[0];
	ck_assert_int_eq(lseek(fd, 0, SEEK_END), 3 * SUBBUF);
	ck_assert_int_eq(write(fd, "\x01\x02\x03", 3), 3);	/* less than a page header */
	ck_assert_int_eq(lseek(fd, 0, SEEK_SET), 0);
	fds[1] = file_of(c1, 3);
	fds[2] = pipe_of(c2, 1);
	memset(&K, 0, sizeof(K));
	memset(&W, 0, sizeof(W));
	start(3, ids, fds, false, true);
	R.ahead = walk_log;
	if (mapped) {
		reader_files(&R, NULL);
		ck_assert(R.cpus[0].map && R.cpus[1].map && !R.cpus[2].map);
	}
	ck_assert_uint_eq(reader_run(&R, true, 0), 9);
	*out = K;
	*keep = R;
	keep->cpus = NULL;	/* its counters only: R keeps its memory, for teardown() */
}

START_TEST(test_files_as_read)
{
	static struct sinkctx rd, mp;
	static struct reader a, b;
	static const uint64_t want_ts[] = { 100, 150, 200, 250, 260, 300, 300, 300, 900 };
	static const uint32_t want_cpu[] = { 0, 0, 1, 1, 0, 1, 1, 2, 0 };
	struct reader_cpu ca[3], cb[3];
	uint32_t i;

	files_run(false, &rd, &a);
	memcpy(ca, R.cpus, sizeof(ca));
	ck_assert_uint_eq(walked_at(260), 2);	/* read: when 150, the page before, went out */
	ck_assert_uint_eq(walked_at(200), 0);	/* ... and every CPU's first page at the start */
	ck_assert_uint_eq(walked_into(100), 0);	/* ... each CPU into its own queue */
	ck_assert_uint_eq(walked_into(200), 1);
	teardown();
	files_run(true, &mp, &b);
	memcpy(cb, R.cpus, sizeof(cb));
	ck_assert_uint_eq(walked_at(260), 4);	/* mapped: when its turn came, after 250 */
	ck_assert_uint_eq(walked_at(100), 0);
	ck_assert_uint_eq(walked_at(200), 2);	/* ... a first page too */
	/*
	 * ... into the queue the page walked before it gave back (CPU 1's, the
	 * last the mapping gave), whichever CPU's; the pipe's CPU keeps its own;
	 * at the end every mapped CPU's queue is back
	 */
	ck_assert_uint_eq(walked_into(100), 1);
	ck_assert_uint_eq(walked_into(200), 1);
	ck_assert_uint_eq(walked_into(260), 1);
	ck_assert_uint_eq(walked_into(900), 1);
	ck_assert_int_eq(R.nqfree, 2);
	ck_assert_ptr_null(R.cpus[0].q);
	ck_assert_ptr_eq(R.cpus[2].q, R.queues + 2 * READER_QUEUE);

	/* in time order (the oracle: the pages above), and the same both ways */
	ck_assert_uint_eq(rd.n, 9);
	ck_assert_uint_eq(mp.n, rd.n);
	for (i = 0; i < rd.n; i++) {
		ck_assert_uint_eq(rd.ev[i].ts, want_ts[i]);
		ck_assert_uint_eq(rd.ev[i].cpu, want_cpu[i]);
		ck_assert_mem_eq(&mp.ev[i], &rd.ev[i], sizeof(rd.ev[i]));
	}
	ck_assert_uint_eq(b.records, a.records);
	ck_assert_uint_eq(b.decoded, a.decoded);
	ck_assert_uint_eq(b.out_of_order, 0);
	ck_assert_uint_eq(a.out_of_order, 0);
	for (i = 0; i < 3; i++) {
		ck_assert_uint_eq(cb[i].pages, ca[i].pages);
		ck_assert_uint_eq(cb[i].bytes, ca[i].bytes);
		ck_assert_uint_eq(cb[i].corrupt_pages, ca[i].corrupt_pages);
		ck_assert_uint_eq(cb[i].corrupt_records, ca[i].corrupt_records);
		ck_assert_uint_eq(cb[i].read_errors, 0);
		ck_assert(cb[i].eof && ca[i].eof);
	}
	ck_assert_uint_eq(ca[0].pages, 4);
	ck_assert_uint_eq(ca[0].corrupt_pages, 2);	/* the commit size, the short end */
	ck_assert_uint_eq(ca[0].bytes, 3 * SUBBUF + 3);
	ck_assert_uint_eq(ca[1].pages, 3);
}
END_TEST

/*
 * Mapped, the pages wait as lazy CPUs, apart from the walked ones: the next
 * record is the first of both, ties in index order. CPU1's first page (15)
 * comes between two records of CPU0 while CPU0 is the only CPU walked (its
 * record must not stay first by its own heap alone); at 60, CPU1's second page
 * waits (lazy) between CPU0 (walked, before it) and CPU2 (walked, after it).
 * _i: 1 one event a call (the CPU taken last kept across calls).
 */
START_TEST(test_files_lazy_order)
{
	static const uint64_t want_ts[] = { 10, 15, 20, 25, 30, 60, 60, 60, 70 };
	static const uint32_t want_cpu[] = { 0, 1, 0, 2, 0, 0, 1, 2, 1 };
	struct pg c0[1], c1[2], c2[1];
	int fds[3], ids[3] = { 0, 1, 2 };
	uint64_t n = 0, got;
	uint32_t i;

	pg_init(&c0[0], 10);
	pg_alloc(&c0[0], 10, 10, 1, 0);
	pg_alloc(&c0[0], 20, 10, 2, 0);
	pg_alloc(&c0[0], 30, 10, 3, 0);
	pg_alloc(&c0[0], 60, 10, 4, 0);
	pg_commit(&c0[0], 0);
	pg_init(&c1[0], 15);
	pg_alloc(&c1[0], 15, 20, 5, 0);
	pg_commit(&c1[0], 0);
	pg_init(&c1[1], 60);
	pg_alloc(&c1[1], 60, 20, 6, 0);
	pg_alloc(&c1[1], 70, 20, 7, 0);
	pg_commit(&c1[1], 0);
	pg_init(&c2[0], 25);
	pg_alloc(&c2[0], 25, 30, 8, 0);
	pg_alloc(&c2[0], 60, 30, 9, 0);
	pg_commit(&c2[0], 0);
	fds[0] = file_of(c0, 1);
	fds[1] = file_of(c1, 2);
	fds[2] = file_of(c2, 1);
	start(3, ids, fds, false, true);
	reader_files(&R, NULL);
	ck_assert(R.cpus[0].map && R.cpus[1].map && R.cpus[2].map);
	if (_i) {
		while ((got = reader_run(&R, true, 1)))
			n += got;
	} else {
		n = reader_run(&R, true, 0);
	}
	ck_assert_uint_eq(n, 9);
	ck_assert_uint_eq(K.n, 9);
	for (i = 0; i < K.n; i++)
		ck_assert_msg(K.ev[i].ts == want_ts[i] && K.ev[i].cpu == want_cpu[i],
			      "event %u: cpu %u ts %llu, want cpu %u ts %llu", i, K.ev[i].cpu,
			      (unsigned long long)K.ev[i].ts, want_cpu[i],
			      (unsigned long long)want_ts[i]);
	ck_assert_uint_eq(R.out_of_order, 0);
	ck_assert_int_eq(R.nnext, 0);
	ck_assert_int_eq(R.nlazies, 0);
}
END_TEST

static int cut_fault(void *ctx)
{
	return reader_map_fault(ctx);
}

/* A CPU's file of @n pages, page k holding one allocation at @base + 10 k. */
static int cut_file(int n, uint64_t base)
{
	struct pg *p = calloc((size_t)n, sizeof(*p));
	int i, fd;

	ck_assert_ptr_nonnull(p);
	for (i = 0; i < n; i++) {
		pg_init(&p[i], base + 10 * (uint64_t)i);
		pg_alloc(&p[i], base + 10 * (uint64_t)i, 10, (uint64_t)i + 1, 0);
		pg_commit(&p[i], 0);
	}
	fd = file_of(p, n);
	free(p);
	return fd;
}

/*
 * reader_free() takes the files' mappings down; after reader_leave_maps() they
 * stay, for the exit (_i: 1), while the reader's own memory is freed either
 * way. mincore() says whether a page is mapped: the first and the last of each.
 */
START_TEST(test_files_left_mapped)
{
	uintptr_t psz = (uintptr_t)sysconf(_SC_PAGESIZE);
	int fds[2], ids[2] = { 0, 1 }, i, k;
	const uint8_t *maps[2];
	size_t lens[2];
	unsigned char in_core;

	fds[0] = cut_file(2, 1000);
	fds[1] = cut_file(3, 1005);
	start(2, ids, fds, false, true);
	reader_files(&R, NULL);
	for (i = 0; i < 2; i++) {
		maps[i] = R.cpus[i].map;
		lens[i] = R.cpus[i].map_len;
		ck_assert_ptr_nonnull(maps[i]);
	}
	ck_assert_uint_eq(reader_run(&R, true, 0), 5);
	if (_i)
		reader_leave_maps(&R);
	reader_free(&R);
	ck_assert_ptr_null(R.cpus);
	for (i = 0; i < 2; i++) {
		for (k = 0; k < 2; k++) {
			uintptr_t at = (uintptr_t)maps[i] + (k ? lens[i] - 1 : 0);
			int rc = mincore((void *)(at - at % psz), 1, &in_core);

			if (_i) {
				ck_assert_int_eq(rc, 0);
			} else {
				ck_assert_int_eq(rc, -1);
				ck_assert_int_eq(errno, ENOMEM);
			}
		}
		if (_i)
			ck_assert_int_eq(munmap((void *)maps[i], lens[i]), 0);
	}
}
END_TEST

/* test_files_cut_short: the second file is cut once the first one's cut was met */
static int cut_second = -1;
static off_t cut_second_at;

static void cut_second_sink(void *ctx, const struct mt_event *ev)
{
	sink(ctx, ev);
	if (cut_second >= 0 && R.cpus[0].map_cut < R.cpus[0].map_len) {
		ck_assert_int_eq(ftruncate(cut_second, cut_second_at), 0);
		cut_second = -1;
	}
}

/*
 * Mapped files truncated under the replay, to whole pages of this machine's:
 * what is gone reads as zeros through memtrace's own SIGBUS handler
 * (signals_setup()); the second file is cut after the first fault, so that its
 * own fault needs the handler armed again. What follows a cut is a read error
 * (EIO) and that CPU's end, not a page; what came before it is all delivered,
 * in order.
 */
START_TEST(test_files_cut_short)
{
	long psz = sysconf(_SC_PAGESIZE);
	int per = psz > SUBBUF ? (int)(psz / SUBBUF) : 1;
	int fds[2], ids[2] = { 0, 1 }, i;
	struct signals sg;

	fds[0] = cut_file(3 * per, 1000);
	fds[1] = cut_file(3 * per, 1005);
	start(2, ids, fds, false, true);
	R.sink = cut_second_sink;
	reader_files(&R, NULL);
	ck_assert(R.cpus[0].map && R.cpus[1].map);
	ck_assert_int_eq(signals_setup(&sg, &signals_default), 0);
	signals_fault_mapped(cut_fault, &R);
	ck_assert_int_eq(ftruncate(fds[0], (off_t)per * SUBBUF), 0);
	cut_second = fds[1];
	cut_second_at = 2 * (off_t)per * SUBBUF;

	reader_run(&R, true, 0);
	signals_fault_mapped(NULL, NULL);
	ck_assert_int_eq(cut_second, -1);
	ck_assert_uint_eq(K.n, 3 * (uint32_t)per);
	for (i = 1; i < (int)K.n; i++)
		ck_assert_uint_lt(K.ev[i - 1].ts, K.ev[i].ts);
	for (i = 0; i < 2; i++) {
		ck_assert_uint_eq(R.cpus[i].map_cut, (size_t)(i + 1) * (size_t)per * SUBBUF);
		ck_assert_uint_eq(R.cpus[i].pages, (uint64_t)(i + 1) * (uint64_t)per);
		ck_assert_uint_eq(R.cpus[i].read_errors, 1);
		ck_assert_int_eq(R.cpus[i].last_errno, EIO);
		ck_assert(R.cpus[i].eof);
	}
	signals_close(&sg);
	sigprocmask(SIG_SETMASK, &sg.orig, NULL);
}
END_TEST

/* The file cut to nothing while its first page is walked (by the sink, at the 3rd event). */
static int cut_fd = -1;

static void cut_sink(void *ctx, const struct mt_event *ev)
{
	sink(ctx, ev);
	if (K.n == 3 && cut_fd >= 0) {
		ck_assert_int_eq(ftruncate(cut_fd, 0), 0);
		cut_fd = -1;
	}
}

START_TEST(test_files_cut_while_walked)
{
	struct pg p[2];
	struct signals sg;
	int fds[1], ids[1] = { 0 }, i, j;

	for (i = 0; i < 2; i++) {
		pg_init(&p[i], 1000 * (uint64_t)(i + 1));
		for (j = 0; j < 40; j++)
			pg_alloc(&p[i], 1000 * (uint64_t)(i + 1) + (uint64_t)j, 10,
				 (uint64_t)(100 * i + j), 0);
		pg_commit(&p[i], 0);
	}
	fds[0] = file_of(p, 2);
	start(1, ids, fds, false, true);
	R.sink = cut_sink;
	reader_files(&R, NULL);
	ck_assert_int_eq(signals_setup(&sg, &signals_default), 0);
	signals_fault_mapped(cut_fault, &R);
	cut_fd = fds[0];

	reader_run(&R, true, 0);
	signals_fault_mapped(NULL, NULL);
	/* what was walked before the cut goes out; the rest of the page is zeros, no event */
	ck_assert_uint_ge(K.n, 3);
	ck_assert_uint_lt(K.n, 40);
	for (i = 0; i < (int)K.n; i++)
		ck_assert_uint_eq(K.ev[i].ts, 1000 + (uint64_t)i);
	ck_assert_uint_eq(R.cpus[0].map_cut, 0);
	ck_assert_uint_eq(R.cpus[0].read_errors, 1);
	ck_assert_int_eq(R.cpus[0].last_errno, EIO);
	ck_assert(R.cpus[0].eof);
	signals_close(&sg);
	sigprocmask(SIG_SETMASK, &sg.orig, NULL);
}
END_TEST

Suite *suite_reader(void)
{
	Suite *s = suite_create("reader");
	TCase *tc = tcase_create("merge");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_merge_by_timestamp);
	tcase_add_test(tc, test_max_events);
	tcase_add_test(tc, test_poll_failed_holds_queue);
	tcase_add_test(tc, test_look_ahead);
	tcase_add_test(tc, test_prefetch_maps);
	tcase_add_test(tc, test_run_sink_as_sink);
	tcase_add_test(tc, test_run_sink_stop_counts);
	tcase_add_loop_test(tc, test_run_sink_wrapping_ts, 0, 2);
	suite_add_tcase(s, tc);

	tc = tcase_create("live");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_live_holdback);
	tcase_add_test(tc, test_live_caught_up_bound_is_last_sent);
	tcase_add_test(tc, test_live_caught_up_bound_run_sink);
	tcase_add_test(tc, test_live_holdback_in_run);
	tcase_add_test(tc, test_live_holdback_in_run_edge);
	tcase_add_test(tc, test_live_final);
	tcase_add_test(tc, test_live_offline_cpu);
	tcase_add_test(tc, test_live_late_event);
	tcase_add_test(tc, test_live_partial_page);
	tcase_add_test(tc, test_live_future_stamp);
	tcase_add_test(tc, test_live_not_mono);
	suite_add_tcase(s, tc);

	tc = tcase_create("pages");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_lost_accounting);
	tcase_add_test(tc, test_corrupt_pages_and_tee);
	tcase_add_test(tc, test_record_write_error);
	suite_add_tcase(s, tc);

	tc = tcase_create("replay");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_loop_test(tc, test_replay_debian61, 0, 3);
	tcase_add_test(tc, test_files_as_read);
	tcase_add_loop_test(tc, test_files_lazy_order, 0, 2);
	tcase_add_loop_test(tc, test_files_left_mapped, 0, 2);
	tcase_add_test(tc, test_files_cut_short);
	tcase_add_test(tc, test_files_cut_while_walked);
	suite_add_tcase(s, tc);
	return s;
}
