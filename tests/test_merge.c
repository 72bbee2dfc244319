// SPDX-License-Identifier: GPL-2.0-only
/* test_merge.c - the merge of many CPUs: ties, empty and late CPUs, the hold-back, 256 CPUs */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"
#include "testpage.h"
#include "kernel/event.h"
#include "kernel/format.h"
#include "kernel/reader.h"

/* the event id of mm_page_alloc in the debian-6.1 formats */
#define ID_ALLOC	542
#define MAXCPU		256
#define MAXPAGES	4
#define FD0		1000	/* the reader's fds: FD0 + CPU index, served by fake_read() */
#define MS		1000000ull

/* ---- hand-made sub-buffers of mm_page_alloc events ---- */

/* An allocation of pfn @pfn by @pid at @ts, committed. */
static void pg_alloc(struct pg *p, uint64_t ts, int32_t pid, uint64_t pfn)
{
	uint8_t pl[40];
	uint16_t id = ID_ALLOC;

	memset(pl, 0, sizeof(pl));
	memcpy(pl, &id, 2);
	memcpy(pl + 4, &pid, 4);
	memcpy(pl + 8, &pfn, 8);
	pg_event(p, ts, pl, sizeof(pl));
	pg_commit(p, 0);
}

/* ---- a fake kernel: per CPU a queue of pages; read() takes the next one ---- */

static struct fake {
	struct pg pages[MAXPAGES];
	int n, next;
	uint64_t reads;
} F[MAXCPU];
static bool fake_live;		/* an empty queue says EAGAIN (live) or end of file */
static uint64_t fake_reads, fake_clock;

static ssize_t fake_read(int fd, void *buf, size_t len)
{
	struct fake *f;

	ck_assert_int_ge(fd, FD0);
	ck_assert_int_lt(fd, FD0 + MAXCPU);
	ck_assert_uint_ge(len, SUBBUF);
	f = &F[fd - FD0];
	f->reads++;
	fake_reads++;
	if (f->next >= f->n) {
		if (!fake_live)
			return 0;
		errno = EAGAIN;
		return -1;
	}
	memcpy(buf, f->pages[f->next++].b, SUBBUF);
	return SUBBUF;
}

static uint64_t fake_now(void)
{
	return fake_clock;
}

/* A new page for CPU index @i, starting at @ts; filled with pg_alloc(). */
static struct pg *page_for(int i, uint64_t ts)
{
	struct fake *f = &F[i];

	ck_assert_int_lt(f->n, MAXPAGES);
	pg_init(&f->pages[f->n], ts);
	return &f->pages[f->n++];
}

/* ---- the sink ---- */

struct got {
	uint32_t cpu;
	uint64_t ts;
	uint64_t pfn;
};

static struct {
	struct got ev[4096];
	uint32_t n;
	uint32_t stop_at;	/* ask the reader to stop after this many (0: never) */
} K;

static struct reader R;
static struct mt_decoder D;

static void sink(void *ctx, const struct mt_event *ev)
{
	ck_assert_ptr_eq(ctx, &K);
	ck_assert_int_eq(ev->kind, EV_PAGE_ALLOC);
	ck_assert_uint_lt(K.n, sizeof(K.ev) / sizeof(K.ev[0]));
	K.ev[K.n].cpu = ev->cpu;
	K.ev[K.n].ts = ev->ts;
	K.ev[K.n].pfn = ev->u.page.pfn;
	K.n++;
	if (K.stop_at && K.n % K.stop_at == 0)
		R.stop = true;
}

static void setup(void)
{
	const struct mt_tracepoint *tp = mt_tracepoint_find("kmem", "mm_page_alloc");
	struct fmt_event fe;
	char err[256];
	size_t len;
	char *text;

	decoder_init(&D);
	ck_assert_ptr_nonnull(tp);
	text = read_fixture("debian-6.1/events/kmem/mm_page_alloc/format", &len);
	memset(&fe, 0, sizeof(fe));
	snprintf(fe.system, sizeof(fe.system), "kmem");
	ck_assert_msg(fmt_parse_event(&fe, text, len, err, sizeof(err)) == 0, "%s", err);
	ck_assert_msg(decoder_add(&D, tp, &fe, err, sizeof(err)) == 0, "%s", err);
	free(text);
	memset(&K, 0, sizeof(K));
	memset(F, 0, sizeof(F));
	fake_live = false;
	fake_reads = 0;
	fake_clock = 0;
}

static void teardown(void)
{
	reader_free(&R);
}

/* A reader over @n CPUs served by the fake kernel; CPU numbers are @ids (or the index). */
static void start(int n, const int *ids, bool live)
{
	int fds[MAXCPU], cpu[MAXCPU], i;

	for (i = 0; i < n; i++) {
		fds[i] = FD0 + i;
		cpu[i] = ids ? ids[i] : i;
	}
	fake_live = live;
	ck_assert_int_eq(reader_init(&R, &LAYOUT, &D, n, cpu, fds, live, true, sink, &K), 0);
	R.read_fn = fake_read;
	R.now = fake_now;
	R.slack_ns = 2 * MS;
}

static void assert_got(uint32_t k, uint32_t cpu, uint64_t ts, uint64_t pfn)
{
	ck_assert_uint_lt(k, K.n);
	ck_assert_msg(K.ev[k].cpu == cpu && K.ev[k].ts == ts && K.ev[k].pfn == pfn,
		      "event %u: got cpu %u ts %llu pfn %llu, want cpu %u ts %llu pfn %llu", k,
		      K.ev[k].cpu, (unsigned long long)K.ev[k].ts, (unsigned long long)K.ev[k].pfn,
		      cpu, (unsigned long long)ts, (unsigned long long)pfn);
}

/*
 * Equal time stamps on several CPUs go out in the order of the CPUs' indexes
 * (the order the reader was given them, not their numbers), whichever was read
 * first, and none counts as out of order. The same input gives the same order.
 */
START_TEST(test_ties)
{
	static const int ids[4] = { 3, 1, 2, 0 };
	struct got first[16];
	int i, round;

	for (round = 0; round < 2; round++) {
		memset(&K, 0, sizeof(K));
		memset(F, 0, sizeof(F));
		for (i = 0; i < 4; i++) {
			struct pg *p = page_for(i, 100);

			pg_alloc(p, 100, 10 + i, (uint64_t)i * 10 + 1);
			pg_alloc(p, 200, 10 + i, (uint64_t)i * 10 + 2);
			pg_alloc(p, 200, 10 + i, (uint64_t)i * 10 + 3);
			pg_alloc(p, 300, 10 + i, (uint64_t)i * 10 + 4);
		}
		start(4, ids, false);
		ck_assert_uint_eq(reader_run(&R, true, 0), 16);
		for (i = 0; i < 4; i++) {
			assert_got((uint32_t)i, (uint32_t)ids[i], 100, (uint64_t)i * 10 + 1);
			assert_got((uint32_t)(4 + 2 * i), (uint32_t)ids[i], 200, (uint64_t)i * 10 + 2);
			assert_got((uint32_t)(5 + 2 * i), (uint32_t)ids[i], 200, (uint64_t)i * 10 + 3);
			assert_got((uint32_t)(12 + i), (uint32_t)ids[i], 300, (uint64_t)i * 10 + 4);
		}
		ck_assert_uint_eq(R.out_of_order, 0);
		if (!round)
			memcpy(first, K.ev, sizeof(first));
		else
			ck_assert_mem_eq(first, K.ev, sizeof(first));
		reader_free(&R);
	}
}
END_TEST

/*
 * Live: a tie with what already went out. CPU index 0 is empty while the
 * others' events at 1 ms go; then it brings one at 1 ms too: it goes at once,
 * not counted as out of order (an equal time stamp is not older).
 */
START_TEST(test_tie_live_late)
{
	int i;

	for (i = 1; i < 3; i++)
		pg_alloc(page_for(i, MS), MS, 10 + i, (uint64_t)i);
	start(3, NULL, true);
	fake_clock = 10 * MS;
	ck_assert_uint_eq(reader_run(&R, false, 0), 2);
	assert_got(0, 1, MS, 1);
	assert_got(1, 2, MS, 2);
	pg_alloc(page_for(0, MS), MS, 10, 100);
	ck_assert_uint_eq(reader_run(&R, false, 0), 1);
	assert_got(2, 0, MS, 100);
	ck_assert_uint_eq(R.out_of_order, 0);
}
END_TEST

/*
 * CPUs without a page, with an empty page, with a page that starts much later
 * than the others, and one whose second page is far later: each event in time
 * order, every CPU read to its end.
 */
START_TEST(test_empty_and_late)
{
	struct pg *p;

	/* index 0: nothing at all; index 1: a page without events */
	page_for(1, 5);
	/* index 2: 10, 20, 30 */
	p = page_for(2, 10);
	pg_alloc(p, 10, 2, 210);
	pg_alloc(p, 20, 2, 220);
	pg_alloc(p, 30, 2, 230);
	/* index 3: starts at 1 s */
	pg_alloc(page_for(3, 1000 * MS), 1000 * MS, 3, 310);
	/* index 4: 15, 25, then a page at 2 s */
	p = page_for(4, 15);
	pg_alloc(p, 15, 4, 410);
	pg_alloc(p, 25, 4, 420);
	pg_alloc(page_for(4, 2000 * MS), 2000 * MS, 4, 430);
	start(5, NULL, false);
	ck_assert_uint_eq(reader_run(&R, true, 0), 7);
	assert_got(0, 2, 10, 210);
	assert_got(1, 4, 15, 410);
	assert_got(2, 2, 20, 220);
	assert_got(3, 4, 25, 420);
	assert_got(4, 2, 30, 230);
	assert_got(5, 3, 1000 * MS, 310);
	assert_got(6, 4, 2000 * MS, 430);
	ck_assert_uint_eq(R.out_of_order, 0);
	ck_assert_uint_eq(R.cpus[0].pages, 0);
	ck_assert_uint_eq(R.cpus[1].pages, 1);
	ck_assert_uint_eq(R.cpus[4].pages, 2);
	ck_assert(R.cpus[0].eof && R.cpus[1].eof && R.cpus[4].eof);
	ck_assert_uint_eq(reader_run(&R, true, 0), 0);
}
END_TEST

/*
 * The hold-back among 256 CPUs: one CPU has events, 255 are empty (bound: now
 * minus 2 ms). What is older than every bound goes; the rest waits until a
 * later read of the empty ones (or time) says nothing older can come. A late
 * event of the last CPU, older than the held one, goes first.
 */
START_TEST(test_holdback_256)
{
	struct pg *p;

	p = page_for(100, MS);
	pg_alloc(p, MS, 100, 1);
	pg_alloc(p, 5 * MS, 100, 2);
	pg_alloc(p, 9 * MS, 100, 3);
	start(MAXCPU, NULL, true);
	fake_clock = 10 * MS;		/* the empty CPUs: nothing older than 8 ms to come */
	ck_assert_uint_eq(reader_run(&R, false, 0), 2);
	assert_got(0, 100, MS, 1);
	assert_got(1, 100, 5 * MS, 2);
	ck_assert(R.cpus[255].blocked);
	ck_assert_uint_eq(R.cpus[255].bound, 8 * MS);
	/* 9 ms is held; asked again at 10 ms, the empty CPUs could only say 8 ms again: not asked */
	ck_assert_uint_eq(R.asks, 0);
	ck_assert_uint_eq(fake_reads, MAXCPU);		/* each CPU once, none again */
	ck_assert_uint_eq(reader_run(&R, false, 0), 0);

	/* the last CPU brings one older than the held one, but newer than the bounds: held too */
	pg_alloc(page_for(255, 8500000), 8500000, 255, 4);
	ck_assert_uint_eq(reader_run(&R, false, 0), 0);
	/* the first CPU brings one older than the bounds: it goes, the others wait */
	pg_alloc(page_for(0, 7 * MS), 7 * MS, 0, 5);
	ck_assert_uint_eq(reader_run(&R, false, 0), 1);
	assert_got(2, 0, 7 * MS, 5);
	/* time passes: 8.5 ms and 9 ms may go, in their order */
	fake_clock = 20 * MS;
	ck_assert_uint_eq(reader_run(&R, false, 0), 2);
	assert_got(3, 255, 8500000, 4);
	assert_got(4, 100, 9 * MS, 3);
	ck_assert_uint_eq(R.out_of_order, 0);
	ck_assert_uint_eq(K.n, 5);
}
END_TEST


/*
 * The hold-back asks a CPU caught up at its last record (a short page: it has
 * not said it is empty), and it brings an older event that goes; a CPU that
 * said it was empty is not asked while the clock cannot have moved its bound
 * past the next event: the rest waits for the next call, which reads all.
 */
START_TEST(test_holdback_asks)
{
	struct pg *p;

	p = page_for(0, MS);			/* CPU 0: a short page, then another one */
	pg_alloc(p, MS, 10, 1);
	pg_alloc(p, 2 * MS, 10, 2);
	pg_alloc(page_for(0, 3 * MS), 3 * MS, 10, 3);
	pg_alloc(page_for(1, 4 * MS), 4 * MS, 11, 4);	/* CPU 1: 4 ms; CPU 2: empty */
	start(3, NULL, true);
	fake_clock = 4500000;			/* CPU 2: nothing older than 2.5 ms to come */
	ck_assert_uint_eq(reader_run(&R, false, 0), 2);
	assert_got(0, 0, MS, 1);
	assert_got(1, 0, 2 * MS, 2);
	/* CPU 0 was asked and read (its 3 ms came), CPU 2 was not: 3 ms waits for it */
	ck_assert_uint_eq(R.asks, 1);
	ck_assert_uint_eq(F[0].reads, 2);
	ck_assert_uint_eq(F[2].reads, 1);
	ck_assert(R.cpus[0].have_rec && R.cpus[2].blocked && R.cpus[2].said_empty);
	/* later: every CPU read again, CPU 2's bound 8 ms, the rest goes in order */
	fake_clock = 10 * MS;
	ck_assert_uint_eq(reader_run(&R, false, 0), 2);
	assert_got(2, 0, 3 * MS, 3);
	assert_got(3, 1, 4 * MS, 4);
	ck_assert_uint_eq(R.out_of_order, 0);
}
END_TEST

/*
 * Nothing pending on any CPU (the loop's one poll of trace_pipe says so):
 * reader_run_idle() bounds every CPU without reading any, and what was held
 * back goes once the bounds allow.
 */
START_TEST(test_idle_no_reads)
{
	uint64_t reads;

	pg_alloc(page_for(7, 25 * MS), 25 * MS, 7, 1);
	start(MAXCPU, NULL, true);
	fake_clock = 26 * MS;			/* bounds 24 ms: 25 ms is held */
	ck_assert_uint_eq(reader_run(&R, false, 0), 0);
	ck_assert_uint_ge(fake_reads, MAXCPU);
	reads = fake_reads;
	/* still nothing anywhere at 26 ms: no read, still held */
	ck_assert_uint_eq(reader_run_idle(&R, 26 * MS, 0), 0);
	ck_assert_uint_eq(fake_reads, reads);
	/* nothing anywhere at 30 ms: the bounds are 28 ms, it goes, without a read() */
	ck_assert_uint_eq(reader_run_idle(&R, 30 * MS, 0), 1);
	assert_got(0, 7, 25 * MS, 1);
	/* CPU 7 is read to its end when its page is done: that one read is its own */
	ck_assert_uint_le(fake_reads, reads + 1);
	ck_assert_uint_eq(R.out_of_order, 0);
	/* an idle call again: nothing, no read */
	reads = fake_reads;
	ck_assert_uint_eq(reader_run_idle(&R, 40 * MS, 0), 0);
	ck_assert_uint_eq(fake_reads, reads);
	/* an ordinary call reads every CPU again */
	ck_assert_uint_eq(reader_run(&R, false, 0), 0);
	ck_assert_uint_ge(fake_reads, reads + MAXCPU);
}
END_TEST

/* ---- 256 CPUs against an independent order: qsort of every (ts, index, seq) ---- */

struct want {
	uint64_t ts;
	int idx, seq;
};

static int want_cmp(const void *a, const void *b)
{
	const struct want *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (x->idx != y->idx)
		return x->idx - y->idx;
	return x->seq - y->seq;
}

static struct want W[MAXCPU * 8];
static int nw;

/*
 * 256 CPUs, up to 2 pages of up to 4 events each, time stamps from a fixed
 * pseudo-random sequence (many equal ones across CPUs, some CPUs empty),
 * @unit ns apart from @base on: the merge must give exactly the sorted order.
 */
static void make_256(uint64_t unit, uint64_t base)
{
	uint32_t x = 12345;
	int i, k;

	nw = 0;
	for (i = 0; i < MAXCPU; i++) {
		uint64_t ts = base;
		int npages;

		x = x * 1103515245u + 12345u;
		npages = (int)(x >> 16) % 3;		/* 0, 1 or 2 pages */
		for (k = 0; k < npages; k++) {
			struct pg *p = NULL;
			int e, nev;

			x = x * 1103515245u + 12345u;
			nev = 1 + (int)(x >> 16) % 4;
			for (e = 0; e < nev; e++) {
				x = x * 1103515245u + 12345u;
				ts += (x >> 16) % 4 * unit;	/* steps of 0..3 units: ties */
				if (!p)
					p = page_for(i, ts);
				W[nw].ts = ts;
				W[nw].idx = i;
				W[nw].seq = nw;
				pg_alloc(p, ts, i, (uint64_t)nw);
				nw++;
			}
		}
	}
	qsort(W, (size_t)nw, sizeof(W[0]), want_cmp);
}

static void check_256(const int *ids)
{
	int k;

	ck_assert_uint_eq(K.n, (uint32_t)nw);
	for (k = 0; k < nw; k++)
		assert_got((uint32_t)k, (uint32_t)ids[W[k].idx], W[k].ts, (uint64_t)W[k].seq);
	ck_assert_uint_eq(R.out_of_order, 0);
}

/*
 * Live, equal time stamps may also go in the order the CPUs could say they
 * have them (a CPU caught up at 12 ms holds back nothing older, and an equal
 * one is not older): time order, each event once, each CPU's in its order.
 */
static void check_256_live(void)
{
	static bool seen[MAXCPU * 8];
	int k, last_seq[MAXCPU];

	ck_assert_uint_eq(K.n, (uint32_t)nw);
	memset(seen, 0, sizeof(seen));
	for (k = 0; k < MAXCPU; k++)
		last_seq[k] = -1;
	for (k = 0; k < nw; k++) {
		const struct got *g = &K.ev[k];

		ck_assert_uint_eq(g->ts, W[k].ts);	/* the sorted time stamps */
		ck_assert_uint_lt(g->pfn, (uint64_t)nw);
		ck_assert(!seen[g->pfn]);
		seen[g->pfn] = true;
		ck_assert_int_lt(last_seq[g->cpu], (int)g->pfn);
		last_seq[g->cpu] = (int)g->pfn;
	}
	ck_assert_uint_eq(R.out_of_order, 0);
}

/* CPU numbers in reverse of the indexes: ties go by index, not by number. */
START_TEST(test_order_256)
{
	int ids[MAXCPU], i;

	for (i = 0; i < MAXCPU; i++)
		ids[i] = MAXCPU - 1 - i;
	make_256(1, 0);
	ck_assert_int_gt(nw, 400);
	start(MAXCPU, ids, false);
	ck_assert_uint_eq(reader_run(&R, true, 0), (uint64_t)nw);
	check_256(ids);
}
END_TEST

/* The same, taken in pieces: max_events and the sink's stop keep the order across calls. */
START_TEST(test_order_256_pieces)
{
	int ids[MAXCPU], i, calls = 0;
	uint64_t got, total = 0;

	for (i = 0; i < MAXCPU; i++)
		ids[i] = i;
	make_256(1, 0);
	start(MAXCPU, ids, false);
	K.stop_at = 5;
	do {
		got = reader_run(&R, true, 7);
		ck_assert_uint_le(got, 5);
		total += got;
		calls++;
	} while (got);
	ck_assert_uint_eq(total, (uint64_t)nw);
	ck_assert_int_gt(calls, nw / 5);
	check_256(ids);
}
END_TEST

/*
 * Live with 256 CPUs, time stamps 1 ms apart: a page can be read once the
 * clock has reached its first event (before, the CPU says EAGAIN); the clock
 * goes on 1 ms per call; each call gives out what no empty CPU can precede,
 * some calls are idle ones (nothing readable anywhere): the whole is in time
 * order, nothing out of order.
 */
START_TEST(test_order_256_live)
{
	static struct fake all[MAXCPU];
	uint64_t end, first;
	int ids[MAXCPU], i, idle = 0;

	for (i = 0; i < MAXCPU; i++)
		ids[i] = i;
	make_256(MS, 10 * MS);
	end = W[nw - 1].ts;
	memcpy(all, F, sizeof(all));
	start(MAXCPU, ids, true);
	for (fake_clock = 0; fake_clock <= end + 10 * MS; fake_clock += MS) {
		bool pending = false;

		for (i = 0; i < MAXCPU; i++) {
			int k;

			F[i].n = 0;
			for (k = 0; k < all[i].n; k++) {
				memcpy(&first, all[i].pages[k].b, 8);
				if (first <= fake_clock)
					F[i].n = k + 1;
			}
			pending |= F[i].next < F[i].n;
		}
		if (pending) {
			reader_run(&R, false, 0);
		} else {
			reader_run_idle(&R, fake_clock, 0);
			idle++;
		}
	}
	reader_run(&R, true, 0);
	check_256_live();
	ck_assert_int_gt(idle, 0);
}
END_TEST

Suite *suite_merge(void)
{
	Suite *s = suite_create("merge");
	TCase *tc = tcase_create("merge");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_ties);
	tcase_add_test(tc, test_tie_live_late);
	tcase_add_test(tc, test_empty_and_late);
	tcase_add_test(tc, test_holdback_256);
	tcase_add_test(tc, test_holdback_asks);
	tcase_add_test(tc, test_idle_no_reads);
	tcase_add_test(tc, test_order_256);
	tcase_add_test(tc, test_order_256_pieces);
	tcase_add_test(tc, test_order_256_live);
	suite_add_tcase(s, tc);
	return s;
}
