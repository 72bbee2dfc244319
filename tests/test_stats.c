// SPDX-License-Identifier: GPL-2.0-only
/* test_stats.c - per-task accounting: pfn ownership, peaks, seeds, task table and recycling */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "testutil.h"
#include "stats.h"

#define MAX_PFN	4096

static struct stats S;

static void init_with(uint32_t max_tasks, bool rename_events)
{
	struct stats_config cfg = {
		.max_tasks = max_tasks,
		.max_modules = 8,
		.max_pfn = MAX_PFN,
		.rename_events = rename_events,
	};

	ck_assert_int_eq(stats_init(&S, &cfg), 0);
}

static void setup(void)
{
	init_with(64, false);
}

static void teardown(void)
{
	stats_free(&S);
}

static struct mt_str str(const char *s)
{
	struct mt_str r = { s, strlen(s) };

	return r;
}

static void page_ev(enum mt_kind kind, uint64_t ts, int32_t tid, uint8_t flags,
		    uint64_t pfn, uint32_t order)
{
	test_page_event(&S, kind, ts, tid, flags, pfn, order);
}

static void alloc(uint64_t ts, int32_t tid, uint64_t pfn, uint32_t order)
{
	page_ev(EV_PAGE_ALLOC, ts, tid, 0, pfn, order);
}

static void irq_alloc(uint64_t ts, int32_t tid, uint64_t pfn, uint32_t order);

static void pfree(uint64_t ts, int32_t tid, uint64_t pfn, uint32_t order)
{
	page_ev(EV_PAGE_FREE, ts, tid, 0, pfn, order);
}

static void newtask(uint64_t ts, int32_t parent, int32_t pid, uint64_t clone_flags,
		    const char *comm)
{
	struct mt_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.kind = EV_NEWTASK;
	ev.ts = ts;
	ev.tid = parent;
	ev.u.newtask.pid = pid;
	ev.u.newtask.clone_flags = clone_flags;
	ev.u.newtask.comm = str(comm);
	stats_apply(&S, &ev);
}

static void fork_ev(uint64_t ts, int32_t parent, int32_t child, const char *comm)
{
	struct mt_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.kind = EV_FORK;
	ev.ts = ts;
	ev.tid = parent;
	ev.u.fork.parent = parent;
	ev.u.fork.child = child;
	ev.u.fork.comm = str(comm);
	stats_apply(&S, &ev);
}

static void exit_ev(uint64_t ts, int32_t pid)
{
	struct mt_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.kind = EV_EXIT;
	ev.ts = ts;
	ev.tid = pid;
	ev.u.exit.pid = pid;
	ev.u.exit.group_dead = 1;
	stats_apply(&S, &ev);
}

static void exec_ev(uint64_t ts, int32_t pid, int32_t old_pid, const char *filename)
{
	struct mt_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.kind = EV_EXEC;
	ev.ts = ts;
	ev.tid = pid;
	ev.u.exec.pid = pid;
	ev.u.exec.old_pid = old_pid;
	ev.u.exec.filename = str(filename);
	stats_apply(&S, &ev);
}

static void rename_ev(uint64_t ts, int32_t pid, const char *comm)
{
	struct mt_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.kind = EV_RENAME;
	ev.ts = ts;
	ev.tid = pid;
	ev.u.rename.pid = pid;
	ev.u.rename.comm = str(comm);
	stats_apply(&S, &ev);
}

static struct mt_task *task(int32_t tid)
{
	struct mt_task *t = stats_find_task(&S, tid);

	ck_assert_msg(t != NULL, "task %d not found", tid);
	return t;
}

static void assert_comm(const struct mt_task *t, const char *want)
{
	ck_assert_uint_eq(t->comm_len, strlen(want));
	ck_assert_mem_eq(t->comm, want, strlen(want));
}

/* ---- pages ---- */

START_TEST(test_order_and_peak)
{
	struct mt_task *t;

	alloc(1000, 100, 10, 0);	/* 1 page:  cur 1 */
	alloc(2000, 100, 16, 3);	/* 8 pages: cur 9, peak 9 @2000 */
	t = task(100);
	ck_assert_int_eq(t->cur, 9);
	ck_assert_int_eq(t->peak, 9);
	ck_assert_uint_eq(t->peak_ts, 2000);
	pfree(3000, 100, 16, 3);	/* cur 1 */
	ck_assert_int_eq(t->cur, 1);
	ck_assert_int_eq(t->peak, 9);
	ck_assert_uint_eq(t->peak_ts, 2000);
	alloc(4000, 100, 32, 2);	/* cur 5, below the peak */
	ck_assert_int_eq(t->cur, 5);
	ck_assert_int_eq(t->peak, 9);
	ck_assert_uint_eq(t->peak_ts, 2000);
	alloc(5000, 100, 64, 4);	/* 16 pages: cur 21, new peak @5000 */
	ck_assert_int_eq(t->cur, 21);
	ck_assert_int_eq(t->peak, 21);
	ck_assert_uint_eq(t->peak_ts, 5000);
	ck_assert_uint_eq(t->alloc_pages, 1 + 8 + 4 + 16);
	ck_assert_uint_eq(t->freed_pages, 8);
	ck_assert_uint_eq(S.c.events[EV_PAGE_ALLOC], 4);
	ck_assert_uint_eq(S.c.events[EV_PAGE_FREE], 1);
	ck_assert_uint_eq(S.c.untracked_frees, 0);
	ck_assert_uint_eq(S.c.double_allocs, 0);
	ck_assert_uint_eq(S.first_ts, 1000);
	ck_assert_uint_eq(S.last_ts, 5000);
	ck_assert_int_eq(t->state, TASK_ALIVE);
	ck_assert_uint_eq(t->start_ts, 1000);
}
END_TEST

START_TEST(test_bad_order_skipped)
{
	alloc(10, 100, 0, 1);
	alloc(20, 100, 8, MAX_ORDER_SEEN + 1);
	pfree(30, 100, 8, 31);
	ck_assert_uint_eq(S.c.bad_order, 2);
	ck_assert_int_eq(task(100)->cur, 2);
}
END_TEST

START_TEST(test_failed_alloc)
{
	alloc(10, 100, UINT64_MAX, 0);
	ck_assert_uint_eq(S.c.failed_allocs, 1);
	/* nothing was charged: the task did not even need a slot */
	ck_assert_ptr_null(stats_find_task(&S, 100));
	alloc(20, 100, 5, 0);
	alloc(30, 100, UINT64_MAX, 3);
	ck_assert_uint_eq(S.c.failed_allocs, 2);
	ck_assert_int_eq(task(100)->cur, 1);
	ck_assert_int_eq(task(100)->peak, 1);
	ck_assert_uint_eq(task(100)->alloc_pages, 1);
	ck_assert_uint_eq(S.c.pfn_out_of_range, 0);
}
END_TEST

/* memtrace's own allocations are skipped in stats (no in-kernel filter), its frees count */
START_TEST(test_self_allocs_skipped)
{
	struct stats_config cfg = S.cfg;

	stats_free(&S);
	cfg.self_pid = 777;
	ck_assert_int_eq(stats_init(&S, &cfg), 0);
	alloc(10, 100, 100, 1);		/* another task: pfn 100-101 */
	alloc(20, 777, 300, 2);		/* memtrace: 4 pages, not counted */
	ck_assert_uint_eq(S.c.self_allocs, 1);
	ck_assert_uint_eq(S.c.events[EV_PAGE_ALLOC], 1);
	ck_assert_ptr_null(stats_find_task(&S, 777));
	irq_alloc(25, 777, 400, 0);	/* an interrupt while memtrace ran: the irq's page */
	ck_assert_uint_eq(S.c.self_allocs, 1);
	ck_assert_uint_eq(S.c.irq_pages, 1);
	pfree(30, 777, 100, 1);		/* memtrace frees the other task's block (reclaim) */
	ck_assert_int_eq(task(100)->cur, 0);
	ck_assert_uint_eq(task(100)->freed_pages, 2);
	pfree(40, 777, 300, 2);		/* its own pages: never owned, untracked */
	ck_assert_uint_eq(S.c.untracked_frees, 1);
	ck_assert_uint_eq(S.c.untracked_free_pages, 4);
	alloc(50, 778, 500, 0);		/* not its pid */
	ck_assert_int_eq(task(778)->cur, 1);
	ck_assert_uint_eq(S.c.self_allocs, 1);
}
END_TEST

START_TEST(test_free_credits_owner)
{
	struct mt_task *a, *b;

	alloc(10, 100, 100, 1);		/* A: pfn 100-101 */
	alloc(20, 100, 200, 0);		/* A: pfn 200 -> A cur 3 */
	alloc(30, 200, 300, 0);		/* B: pfn 300 -> B cur 1 */
	a = task(100);
	b = task(200);
	pfree(40, 200, 100, 1);		/* B frees A's block */
	ck_assert_int_eq(a->cur, 1);
	ck_assert_uint_eq(a->freed_pages, 2);
	ck_assert_int_eq(b->cur, 1);
	ck_assert_uint_eq(b->freed_pages, 0);
	pfree(50, 100, 300, 0);		/* A frees B's page */
	ck_assert_int_eq(b->cur, 0);
	ck_assert_uint_eq(b->freed_pages, 1);
	ck_assert_int_eq(a->cur, 1);
	ck_assert_int_eq(a->peak, 3);
	ck_assert_int_eq(b->peak, 1);
	ck_assert_uint_eq(S.c.untracked_frees, 0);
	ck_assert_uint_eq(S.c.untracked_free_pages, 0);
}
END_TEST

START_TEST(test_untracked_free)
{
	pfree(10, 100, 500, 2);		/* 4 pages never seen */
	ck_assert_uint_eq(S.c.untracked_frees, 1);
	ck_assert_uint_eq(S.c.untracked_free_pages, 4);
	pfree(20, 100, 900, 0);
	ck_assert_uint_eq(S.c.untracked_frees, 2);
	ck_assert_uint_eq(S.c.untracked_free_pages, 5);
	/* the freeing task is not credited with anything */
	if (stats_find_task(&S, 100)) {
		ck_assert_int_eq(task(100)->cur, 0);
		ck_assert_uint_eq(task(100)->freed_pages, 0);
	}
	ck_assert_uint_eq(S.c.events[EV_PAGE_FREE], 2);
}
END_TEST

START_TEST(test_partial_and_oversized_free)
{
	struct mt_task *t;

	alloc(10, 100, 40, 2);		/* pfn 40-43 */
	t = task(100);
	ck_assert_int_eq(t->cur, 4);
	pfree(20, 200, 41, 0);		/* one page out of the block */
	ck_assert_int_eq(t->cur, 3);
	ck_assert_uint_eq(S.c.untracked_frees, 0);
	pfree(30, 200, 41, 0);		/* the same page again: no longer tracked */
	ck_assert_int_eq(t->cur, 3);
	ck_assert_uint_eq(S.c.untracked_frees, 1);
	ck_assert_uint_eq(S.c.untracked_free_pages, 1);
	pfree(40, 200, 40, 2);		/* whole block: 40, 42, 43 credited, 41 untracked */
	ck_assert_int_eq(t->cur, 0);
	ck_assert_uint_eq(t->freed_pages, 4);
	ck_assert_uint_eq(S.c.untracked_frees, 2);
	ck_assert_uint_eq(S.c.untracked_free_pages, 2);

	/* free larger than the allocation: 1 page credited, 1 untracked */
	alloc(50, 100, 80, 0);
	ck_assert_int_eq(t->cur, 1);
	pfree(60, 100, 80, 1);
	ck_assert_int_eq(t->cur, 0);
	ck_assert_uint_eq(t->freed_pages, 5);
	ck_assert_uint_eq(S.c.untracked_frees, 3);
	ck_assert_uint_eq(S.c.untracked_free_pages, 3);

	/* an order-2 free spanning pages of two owners credits both */
	alloc(70, 100, 96, 1);		/* 96-97: task 100 */
	alloc(80, 300, 98, 0);		/* 98: task 300 */
	pfree(90, 400, 96, 2);		/* 96-99: 2 + 1 credited, 99 untracked */
	ck_assert_int_eq(t->cur, 0);
	ck_assert_int_eq(task(300)->cur, 0);
	ck_assert_uint_eq(S.c.untracked_frees, 4);
	ck_assert_uint_eq(S.c.untracked_free_pages, 4);
}
END_TEST

START_TEST(test_double_alloc)
{
	struct mt_task *a, *b;

	alloc(10, 100, 60, 0);
	alloc(20, 200, 60, 0);		/* pfn 60 again, no free seen */
	a = task(100);
	b = task(200);
	ck_assert_uint_eq(S.c.double_allocs, 1);
	ck_assert_int_eq(a->cur, 0);
	ck_assert_uint_eq(a->freed_pages, 1);
	ck_assert_int_eq(b->cur, 1);
	pfree(30, 100, 60, 0);		/* now B's page */
	ck_assert_int_eq(b->cur, 0);
	ck_assert_int_eq(a->cur, 0);

	alloc(40, 100, 62, 0);		/* A: 62 */
	alloc(50, 200, 62, 1);		/* B: 62-63, 62 was A's */
	ck_assert_uint_eq(S.c.double_allocs, 2);
	ck_assert_int_eq(a->cur, 0);
	ck_assert_int_eq(b->cur, 2);
	ck_assert_int_eq(b->peak, 2);
	ck_assert_uint_eq(S.c.untracked_frees, 0);
}
END_TEST

START_TEST(test_irq_context)
{
	struct mt_task *irq = &S.tb.tasks[SLOT_IRQ];

	ck_assert_uint_eq(irq->comm_len, 5);
	ck_assert_mem_eq(irq->comm, "<irq>", 5);
	ck_assert(irq->flags & TF_PSEUDO);
	page_ev(EV_PAGE_ALLOC, 10, 100, MT_FLAG_HARDIRQ, 1, 1);
	ck_assert_int_eq(irq->cur, 2);
	/* the interrupted task is not charged */
	if (stats_find_task(&S, 100))
		ck_assert_int_eq(task(100)->cur, 0);
	page_ev(EV_PAGE_ALLOC, 20, 100, MT_FLAG_SOFTIRQ, 4, 0);
	page_ev(EV_PAGE_ALLOC, 30, 0, MT_FLAG_NMI, 5, 0);
	page_ev(EV_PAGE_ALLOC, 40, 100, 0x01 /* irqs-off only */, 6, 0);
	ck_assert_int_eq(irq->cur, 4);
	ck_assert_int_eq(irq->peak, 4);
	ck_assert_uint_eq(irq->peak_ts, 30);
	ck_assert_uint_eq(S.c.irq_pages, 4);
	ck_assert_int_eq(task(100)->cur, 1);
	/* a free in task context of an irq page credits <irq> */
	pfree(50, 100, 1, 1);
	ck_assert_int_eq(irq->cur, 2);
	ck_assert_int_eq(task(100)->cur, 1);
}
END_TEST

START_TEST(test_seeded_task)
{
	struct mt_task *t;

	t = stats_seed_task(&S, 300, 300, 1, "bash", 4, 50, 1000, false);
	ck_assert_ptr_nonnull(t);
	ck_assert_ptr_eq(stats_find_task(&S, 300), t);
	ck_assert_int_eq(t->cur, 50);
	ck_assert_int_eq(t->peak, 50);
	ck_assert_uint_eq(t->peak_ts, 1000);
	ck_assert_uint_eq(t->seed, 50);
	ck_assert_uint_eq(t->seed_ts, 1000);
	ck_assert_int_eq(t->tgid, 300);
	ck_assert_int_eq(t->ppid, 1);
	ck_assert(t->flags & TF_SEEDED);
	ck_assert(t->flags & TF_COMM_KNOWN);
	ck_assert(!(t->flags & TF_KTHREAD));
	assert_comm(t, "bash");

	alloc(999, 300, 10, 2);		/* older than the seed: already in it */
	ck_assert_uint_eq(S.c.pre_seed_skipped, 1);
	ck_assert_int_eq(t->cur, 50);
	alloc(1000, 300, 20, 0);	/* same time: applied */
	ck_assert_int_eq(t->cur, 51);
	ck_assert_int_eq(t->peak, 51);
	ck_assert_uint_eq(t->peak_ts, 1000);
	alloc(1001, 300, 22, 1);
	ck_assert_int_eq(t->cur, 53);
	ck_assert_int_eq(t->peak, 53);
	ck_assert_uint_eq(t->peak_ts, 1001);
	ck_assert_uint_eq(S.c.pre_seed_skipped, 1);
	/*
	 * The skipped block was never mapped: its free is untracked, and as the
	 * seeded process frees it, it comes off what is left of the seed.
	 */
	pfree(1002, 300, 10, 2);
	ck_assert_int_eq(t->cur, 49);
	ck_assert_uint_eq(t->seed_left, 46);
	ck_assert_uint_eq(S.c.untracked_free_pages, 4);
	ck_assert_uint_eq(S.c.seed_freed_pages, 4);
	pfree(1003, 300, 22, 1);
	ck_assert_int_eq(t->cur, 47);

	/* another task is not affected by this task's seed time */
	alloc(500, 301, 30, 0);
	ck_assert_int_eq(task(301)->cur, 1);
	ck_assert_uint_eq(S.c.pre_seed_skipped, 1);

	t = stats_seed_task(&S, 2, 0, 0, "kthreadd", 8, 0, 1000, true);
	ck_assert_ptr_nonnull(t);
	ck_assert(t->flags & TF_KTHREAD);
	ck_assert_int_eq(t->cur, 0);
	ck_assert_int_eq(t->peak, 0);
}
END_TEST

/*
 * A seeded process's pages at the system peak are what it held then, less its
 * seed (seeds are before the start): its frees of seeded pages after the peak
 * change nothing of them. And what is left of its seed when it ends counts as
 * given back: cur = seed + allocated - freed.
 */
START_TEST(test_seed_freed_after_peak)
{
	struct mt_task *t = stats_seed_task(&S, 50, 50, 1, "daemon", 6, 100, 1000, false);

	ck_assert_ptr_nonnull(t);
	alloc(1001, 50, 0, 3);			/* 8 */
	alloc(1002, 60, 100, 2);		/* 4: the system peak, 12 */
	ck_assert_int_eq(S.sys_peak, 12);
	pfree(1003, 50, 512, 4);		/* 16 seeded pages (never seen allocated) */
	ck_assert_uint_eq(t->seed_left, 84);
	ck_assert_int_eq(stats_sys_pages_at_peak(&S, t), 8);
	ck_assert_int_eq(stats_sys_pages_at_peak(&S, task(60)), 4);
	ck_assert_int_eq(t->cur, 100 + 8 - 16);
	ck_assert_int_eq(t->cur, (int64_t)(t->seed + t->alloc_pages - t->freed_pages));
	/* its end: the 84 left of the seed dropped, and counted as given back */
	exit_ev(1004, 50);
	ck_assert_uint_eq(S.c.seed_dropped_pages, 84);
	ck_assert_int_eq(t->cur, 8);
	ck_assert_int_eq(t->cur, (int64_t)(t->seed + t->alloc_pages - t->freed_pages));
	ck_assert_int_eq(stats_sys_pages_at_peak(&S, t), 8);
}
END_TEST

START_TEST(test_pfn_out_of_range)
{
	alloc(10, 100, MAX_PFN, 0);
	ck_assert_uint_eq(S.c.pfn_out_of_range, 1);
	alloc(20, 100, MAX_PFN - 2, 2);	/* 4094..4097 crosses the end */
	ck_assert_uint_eq(S.c.pfn_out_of_range, 2);
	pfree(30, 100, 100000, 0);
	ck_assert_uint_eq(S.c.pfn_out_of_range, 3);
	ck_assert_uint_eq(S.c.untracked_frees, 0);
	alloc(40, 100, MAX_PFN - 4, 2);	/* the last 4 pages: fine */
	ck_assert_uint_eq(S.c.pfn_out_of_range, 3);
	ck_assert_int_eq(task(100)->cur, 4);
	pfree(50, 100, MAX_PFN - 4, 2);
	ck_assert_int_eq(task(100)->cur, 0);
	ck_assert_uint_eq(S.c.untracked_frees, 0);
}
END_TEST

/* Stats without a map (max_pfn 0): every page event is out of it, counted, and taken as nothing. */
START_TEST(test_no_map_all_out_of_range)
{
	struct stats_config cfg = { .max_tasks = 16, .max_modules = 4 };

	stats_free(&S);
	ck_assert_int_eq(stats_init(&S, &cfg), 0);
	ck_assert_ptr_null(S.pfn_owner);
	ck_assert_uint_eq(S.cfg.max_pfn, 0);
	alloc(10, 100, 0, 0);
	alloc(20, 100, 7, 3);
	pfree(30, 100, 0, 0);
	ck_assert_uint_eq(S.c.pfn_out_of_range, 3);
	ck_assert_int_eq(task(100)->cur, 0);
	ck_assert_int_eq(S.sys_cur, 0);
	ck_assert_uint_eq(S.c.untracked_frees, 0);
}
END_TEST

/* ---- task lifecycle ---- */

START_TEST(test_newtask_and_fork)
{
	struct mt_task *p, *c;

	p = stats_seed_task(&S, 500, 500, 1, "bash", 4, 0, 0, false);
	ck_assert_ptr_nonnull(p);

	/* a thread: same tgid, same parent as the creator */
	newtask(10, 500, 501, MT_CLONE_THREAD | 0x3d0f00, "bash");
	c = task(501);
	ck_assert_int_eq(c->tgid, 500);
	ck_assert_int_eq(c->ppid, 1);
	ck_assert_uint_eq(c->start_ts, 10);
	assert_comm(c, "bash");

	/* a process: its own tgid, parent = the creating process */
	newtask(20, 500, 502, 0x1200000, "bash");
	c = task(502);
	ck_assert_int_eq(c->tgid, 502);
	ck_assert_int_eq(c->ppid, 500);

	/* a process created by a thread: parent is the thread's process */
	newtask(30, 501, 503, 0x1200000, "worker");
	c = task(503);
	ck_assert_int_eq(c->tgid, 503);
	ck_assert_int_eq(c->ppid, 500);
	assert_comm(c, "worker");

	/* CLONE_PARENT: the creator's parent becomes the parent */
	newtask(40, 500, 504, MT_CLONE_PARENT, "bash");
	ck_assert_int_eq(task(504)->ppid, 1);
	ck_assert_int_eq(task(504)->tgid, 504);

	/* sched_process_fork alone (no task_newtask) */
	fork_ev(50, 500, 505, "bash");
	c = task(505);
	ck_assert_int_eq(c->tgid, 505);
	ck_assert_int_eq(c->ppid, 500);
	assert_comm(c, "bash");

	/* fork after newtask of a thread keeps the thread's tgid */
	newtask(60, 500, 506, MT_CLONE_THREAD, "bash");
	fork_ev(61, 500, 506, "bash");
	ck_assert_int_eq(task(506)->tgid, 500);
	ck_assert_int_eq(task(506)->ppid, 1);

	ck_assert_uint_eq(S.c.events[EV_NEWTASK], 5);
	ck_assert_uint_eq(S.c.events[EV_FORK], 2);
	/* bash + 501..506 */
	ck_assert_uint_eq(S.tb.c.tasks_seen, 7);
}
END_TEST

START_TEST(test_exec_comm)
{
	struct mt_task *t;

	newtask(10, 1, 600, 0x1200000, "sh");
	exec_ev(20, 600, 600, "/usr/bin/python3");
	t = task(600);
	assert_comm(t, "python3");
	exec_ev(30, 600, 600, "true");		/* no slash */
	assert_comm(t, "true");
	/* a non-leader thread that execs takes over the leader's pid (pid 600, old 601) */
	newtask(40, 600, 601, MT_CLONE_THREAD, "true");
	exec_ev(50, 600, 601, "/bin/ls");
	ck_assert_int_eq(task(600)->tgid, 600);
	assert_comm(task(600), "ls");
	ck_assert_ptr_null(stats_find_task(&S, 601));
	rename_ev(60, 600, "renamed");
	assert_comm(t, "renamed");
	/* the kernel keeps 15 bytes */
	rename_ev(70, 600, "a-very-long-thread-name");
	assert_comm(t, "a-very-long-thr");
	ck_assert_uint_eq(S.c.events[EV_EXEC], 3);
	ck_assert_uint_eq(S.c.events[EV_RENAME], 2);
}
END_TEST

START_TEST(test_exec_with_rename_events)
{
	struct mt_task *t;

	stats_free(&S);
	init_with(64, true);
	newtask(10, 1, 600, 0x1200000, "sh");
	rename_ev(19, 600, "python3");
	exec_ev(20, 600, 600, "/usr/bin/python3.11");
	t = task(600);
	/* task_rename is authoritative; exec's filename is ignored */
	assert_comm(t, "python3");
	exec_ev(30, 600, 600, "/bin/ls");
	assert_comm(t, "python3");
	rename_ev(40, 600, "ls");
	assert_comm(t, "ls");
}
END_TEST

START_TEST(test_exit)
{
	struct mt_task *t;

	alloc(10, 700, 1, 0);
	exit_ev(20, 700);
	t = task(700);
	ck_assert_int_eq(t->state, TASK_EXITED);
	ck_assert_uint_eq(t->exit_ts, 20);
	ck_assert_int_eq(t->cur, 1);
	/* frees after the exit still credit it */
	pfree(30, 0, 1, 0);
	ck_assert_int_eq(t->cur, 0);
	ck_assert_int_eq(t->peak, 1);
	/* exit of a task never seen creates nothing */
	exit_ev(40, 777);
	ck_assert_ptr_null(stats_find_task(&S, 777));
	ck_assert_uint_eq(S.c.events[EV_EXIT], 2);
}
END_TEST

START_TEST(test_tid_reuse)
{
	struct mt_task *old, *neu;
	uint32_t old_serial;

	alloc(10, 800, 1, 1);		/* old 800: pfn 1-2 */
	alloc(11, 800, 3, 0);		/* pfn 3: cur 3 */
	old = task(800);
	old_serial = old->serial;
	exit_ev(20, 800);
	newtask(30, 1, 800, 0x1200000, "newproc");
	neu = task(800);
	ck_assert_ptr_ne(neu, old);
	ck_assert_uint_ne(neu->serial, old_serial);
	ck_assert_int_eq(neu->state, TASK_ALIVE);
	ck_assert_int_eq(neu->cur, 0);
	ck_assert_int_eq(neu->peak, 0);
	ck_assert_uint_eq(neu->start_ts, 30);
	assert_comm(neu, "newproc");
	/* the old entry keeps its numbers */
	ck_assert_ptr_eq(stats_task_by_serial(&S, old_serial), old);
	ck_assert_int_eq(old->state, TASK_EXITED);
	ck_assert_int_eq(old->cur, 3);
	ck_assert_int_eq(old->peak, 3);
	ck_assert_int_eq(old->tid, 800);
	/* new allocations go to the new task, frees of old pages to the old one */
	alloc(40, 800, 10, 2);
	ck_assert_int_eq(neu->cur, 4);
	ck_assert_int_eq(old->cur, 3);
	pfree(50, 800, 1, 1);
	ck_assert_int_eq(old->cur, 1);
	ck_assert_int_eq(neu->cur, 4);
	ck_assert_uint_eq(S.tb.c.tasks_seen, 3);	/* 800, 1, 800 again */
	ck_assert_uint_eq(S.tb.c.tasks_recycled, 0);
}
END_TEST

/*
 * The task found last is tried first (task_for(), task_of_serial()): only while
 * the table still gives it for that tid, and a free goes to its page's owner.
 */
START_TEST(test_last_task_cache)
{
	struct mt_task *a, *b;

	alloc(10, 800, 1, 0);
	alloc(11, 800, 2, 0);
	a = task(800);
	ck_assert_int_eq(a->cur, 2);
	ck_assert_uint_eq(S.tb.c.tasks_seen, 1);
	/* the table forgets 800 (a thread that took over its leader's pid does so) */
	table_unhash(&S.tb, a);
	alloc(12, 800, 3, 0);
	b = task(800);
	ck_assert_ptr_ne(b, a);
	ck_assert_uint_eq(S.tb.c.tasks_seen, 2);
	ck_assert_int_eq(a->cur, 2);
	ck_assert_int_eq(b->cur, 1);
	/* b is the one found last: a's pages still go back to a */
	pfree(13, 800, 1, 0);
	ck_assert_int_eq(a->cur, 1);
	ck_assert_int_eq(b->cur, 1);
	pfree(14, 800, 3, 0);
	ck_assert_int_eq(b->cur, 0);
	ck_assert_int_eq(a->cur, 1);
}
END_TEST

START_TEST(test_oom_victim)
{
	struct mt_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.kind = EV_OOM_VICTIM;
	ev.ts = 1234;
	ev.tid = 55;
	ev.u.oom.pid = 900;
	ev.u.oom.comm = str("stress");
	ck_assert(!S.oom_pending);
	stats_apply(&S, &ev);
	ck_assert(S.oom_pending);
	ck_assert_int_eq(S.oom_pid, 900);
	ck_assert_str_eq(S.oom_comm, "stress");
	ck_assert_uint_eq(S.oom_ts, 1234);
	ck_assert_uint_eq(S.oom_count, 1);

	/* older kernels have no comm: take it from the task table */
	S.oom_pending = false;
	stats_seed_task(&S, 901, 901, 1, "hog", 3, 10, 0, false);
	ev.ts = 2000;
	ev.u.oom.pid = 901;
	ev.u.oom.comm.s = "";
	ev.u.oom.comm.len = 0;
	stats_apply(&S, &ev);
	ck_assert(S.oom_pending);
	ck_assert_int_eq(S.oom_pid, 901);
	ck_assert_str_eq(S.oom_comm, "hog");
	ck_assert_uint_eq(S.oom_count, 2);
	ck_assert_uint_eq(S.c.events[EV_OOM_VICTIM], 2);
}
END_TEST

/* an oom:mark_victim event at @ts, of @pid */
static void oom_victim(uint64_t ts, int32_t pid)
{
	struct mt_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.kind = EV_OOM_VICTIM;
	ev.ts = ts;
	ev.u.oom.pid = pid;
	ev.u.oom.comm = str("hog");
	stats_apply(&S, &ev);
}

/*
 * An OOM kill ends a live reader's batch where the mode reports it (stop_oom):
 * the stats set the stop flag wired to them, after each event until the kill
 * is reported (oom_pending cleared: a kill in the boot buffer, read before the
 * flag was wired, stops the first live batch after its first event). A module
 * load without stacks, or a kill where the mode does not report it, leaves the
 * flag.
 */
START_TEST(test_oom_stops_the_batch)
{
	struct mt_event ev;
	bool stop = false;

	S.stop = &stop;
	memset(&ev, 0, sizeof(ev));
	ev.kind = EV_MOD_LOAD;
	ev.ts = 100;
	ev.tid = 55;
	ev.u.module.name = str("m");
	ev.u.module.refcnt = 1;
	stats_apply(&S, &ev);
	ck_assert(!S.want_ranges);
	oom_victim(200, 900);
	ck_assert(S.oom_pending);
	ck_assert(!stop);
	S.oom_pending = false;
	S.stop_oom = true;
	oom_victim(300, 900);
	ck_assert(S.oom_pending);
	ck_assert(stop);
	ck_assert_uint_eq(S.oom_count, 2);
	/* not reported yet: the next event stops the batch again */
	stop = false;
	alloc(310, 55, 7, 0);
	ck_assert(stop);
	S.oom_pending = false;	/* reported */
	stop = false;
	alloc(320, 55, 8, 0);
	ck_assert(!stop);
	/* a kill marked before the flag was wired (the boot buffer's) */
	S.stop = NULL;
	oom_victim(330, 900);
	ck_assert(!stop);
	S.stop = &stop;
	alloc(340, 55, 9, 0);
	ck_assert(stop);
	S.oom_pending = false;
	S.stop = NULL;
	stop = false;
	oom_victim(400, 900);
	ck_assert(!stop);
	ck_assert_uint_eq(S.oom_count, 4);
}
END_TEST

/*
 * stats_apply_run(): a run of events, @stride apart, applied as one
 * stats_apply() each, in order; where an event sets the stop flag (an OOM kill
 * the mode reports), the ones after it are left and the count says where.
 */
START_TEST(test_apply_run_stops_at_the_kill)
{
	struct { struct mt_event ev; char gap[24]; } run[5];	/* a stride of its own */
	bool stop = false;
	int i;

	memset(run, 0, sizeof(run));
	for (i = 0; i < 5; i++) {
		run[i].ev.kind = EV_PAGE_ALLOC;
		run[i].ev.ts = 100 + 10 * (uint64_t)i;
		run[i].ev.tid = 55;
		run[i].ev.u.page.pfn = 10 + (uint64_t)i;
	}
	/* all five, no flag wired */
	ck_assert_uint_eq(stats_apply_run(&S, &run[0].ev, 5, sizeof(run[0])), 5);
	ck_assert_int_eq(stats_find_task(&S, 55)->cur, 5);
	ck_assert_uint_eq(S.c.events[EV_PAGE_ALLOC], 5);
	ck_assert_uint_eq(S.last_ts, 140);
	/* the third a kill: the first three applied, the two after it left */
	for (i = 0; i < 5; i++) {
		run[i].ev.kind = EV_PAGE_FREE;
		run[i].ev.ts = 200 + 10 * (uint64_t)i;
	}
	run[2].ev.kind = EV_OOM_VICTIM;
	run[2].ev.u.oom.pid = 900;
	run[2].ev.u.oom.comm = str("hog");
	S.stop = &stop;
	S.stop_oom = true;
	ck_assert_uint_eq(stats_apply_run(&S, &run[0].ev, 5, sizeof(run[0])), 3);
	ck_assert(stop);
	ck_assert(S.oom_pending);
	ck_assert_int_eq(S.oom_pid, 900);
	ck_assert_uint_eq(S.c.events[EV_PAGE_FREE], 2);
	ck_assert_int_eq(stats_find_task(&S, 55)->cur, 3);
	ck_assert_uint_eq(S.last_ts, 220);
	/* until it is reported, each run stops after its first event */
	stop = false;
	ck_assert_uint_eq(stats_apply_run(&S, &run[3].ev, 2, sizeof(run[0])), 1);
	ck_assert(stop);
	ck_assert_int_eq(stats_find_task(&S, 55)->cur, 2);
	S.oom_pending = false;	/* reported */
	stop = false;
	ck_assert_uint_eq(stats_apply_run(&S, &run[4].ev, 1, sizeof(run[0])), 1);
	ck_assert(!stop);
	ck_assert_int_eq(stats_find_task(&S, 55)->cur, 1);
	ck_assert_uint_eq(S.c.events[EV_PAGE_FREE], 4);
	/* none */
	ck_assert_uint_eq(stats_apply_run(&S, &run[0].ev, 0, sizeof(run[0])), 0);
	ck_assert_uint_eq(S.c.events[EV_PAGE_FREE], 4);
}
END_TEST

/*
 * The fast way (stats.c: alloc_fast(), free_fast()) against the general one:
 * random runs of events, each applied to two stats, one of them general_only,
 * in spans of random length through stats_apply_run(), and after each span
 * the two compared whole: counters, system and tree figures, the pfn and class
 * maps, every task and module slot, the task found last. The runs mix what
 * the fast way must leave to apply(): storms of one task (the fast way) and
 * tasks taking turns, doubles and untracked frees, blocks of 2 and 4 pages,
 * irq context, memtrace's own allocations, page frames past the map, a seed's
 * older events, module brackets, migrations, the page cache's classes, forks
 * and exits in a small table (slots recycled, serials renumbered), a command's
 * tree, OOM kills that stop a run (the caller reports each, both stats alike).
 */
#define FAST_PFNS	48
#define FAST_EVENTS	3000

static uint64_t fast_rng;

static uint32_t fast_rand(uint32_t n)
{
	fast_rng ^= fast_rng << 13;
	fast_rng ^= fast_rng >> 7;
	fast_rng ^= fast_rng << 17;
	return (uint32_t)(fast_rng % n);
}

static void fast_init(struct stats *s, bool general_only, bool tree)
{
	struct stats_config cfg = {
		.max_tasks = 12, .max_modules = 4, .max_pfn = FAST_PFNS, .self_pid = 99,
		.serial_limit = 12 * 8, .classes = true,
	};

	ck_assert_int_eq(stats_init(s, &cfg), 0);
	s->general_only = general_only;
	ck_assert_ptr_nonnull(stats_seed_task(s, 101, 101, 1, "seeded", 6, 5, 4000, false));
	if (tree)
		stats_tree_root(s, 100, 1);
}

static void fast_same(const struct stats *a, const struct stats *b, uint32_t seed, uint32_t at)
{
	ck_assert_msg(!memcmp(&a->c, &b->c, sizeof(a->c)), "seed %u event %u: counters", seed, at);
	ck_assert_msg(!memcmp(&a->tb.c, &b->tb.c, sizeof(a->tb.c)), "seed %u event %u: table",
		      seed, at);
	ck_assert_msg(!memcmp(a->tb.tasks, b->tb.tasks, a->tb.max_tasks * sizeof(*a->tb.tasks)),
		      "seed %u event %u: tasks", seed, at);
	ck_assert_msg(!memcmp(a->tb.mods, b->tb.mods, a->tb.max_modules * sizeof(*a->tb.mods)),
		      "seed %u event %u: modules", seed, at);
	ck_assert_msg(!memcmp(a->pfn_owner, b->pfn_owner, FAST_PFNS * sizeof(*a->pfn_owner)),
		      "seed %u event %u: pfn map", seed, at);
	ck_assert_msg(!memcmp(a->pfn_class, b->pfn_class, FAST_PFNS), "seed %u event %u: classes",
		      seed, at);
	ck_assert_int_eq(a->last - a->tb.tasks, b->last - b->tb.tasks);
	ck_assert_msg(a->sys_cur == b->sys_cur && a->sys_peak == b->sys_peak &&
		      a->sys_peak_ts == b->sys_peak_ts && a->sys_epoch == b->sys_epoch,
		      "seed %u event %u: system %lld %lld", seed, at, (long long)a->sys_cur,
		      (long long)b->sys_cur);
	ck_assert(a->first_ts == b->first_ts && a->last_ts == b->last_ts && a->pfn_hi == b->pfn_hi);
	ck_assert(a->file_blk_cur == b->file_blk_cur && a->file_mem_cur == b->file_mem_cur &&
		  a->file_blk_at_peak == b->file_blk_at_peak &&
		  a->file_mem_at_peak == b->file_mem_at_peak);
	ck_assert(a->tree_cur == b->tree_cur && a->tree_peak == b->tree_peak &&
		  a->tree_peak_ts == b->tree_peak_ts && a->tb.tree_epoch == b->tb.tree_epoch);
	ck_assert(a->nmigrating == b->nmigrating && a->oom_pending == b->oom_pending &&
		  a->tb.renumber_due == b->tb.renumber_due && a->exit_count == b->exit_count);
}

/* one random event at @ts; @cur: the task of the storm going on */
static void fast_event(struct mt_event *ev, uint64_t ts, int32_t *cur, int32_t *next_pid)
{
	static const int32_t pool[] = { 100, 101, 102, 103, 99, 0 };
	uint32_t r = fast_rand(100);
	int32_t tid = fast_rand(10) < 7 ? *cur : pool[fast_rand(6)];

	memset(ev, 0, sizeof(*ev));
	ev->ts = ts;
	ev->tid = tid;
	if (r < 86) {
		ev->kind = r < 44 ? EV_PAGE_ALLOC : EV_PAGE_FREE;
		ev->u.page.pfn = fast_rand(FAST_PFNS + 3);
		ev->u.page.order = fast_rand(10) ? 0 : fast_rand(3);
		ev->flags = fast_rand(20) ? 0 : MT_FLAG_SOFTIRQ;
		if (!fast_rand(50))
			*cur = pool[fast_rand(6)];	/* another task's storm */
	} else if (r < 89) {
		ev->kind = EV_FORK;
		ev->u.fork.parent = tid;
		ev->u.fork.child = (*next_pid)++;
		ev->u.fork.comm = str("child");
		if (fast_rand(2))
			*cur = ev->u.fork.child;
	} else if (r < 91) {
		ev->kind = EV_EXIT;
		ev->u.exit.pid = tid;
		ev->u.exit.group_dead = 1;
	} else if (r < 93) {
		ev->kind = EV_MOD_LOAD;
		ev->u.module.name = str(fast_rand(2) ? "m1" : "m2");
		ev->u.module.refcnt = 1;
	} else if (r < 94) {
		ev->kind = EV_MOD_PUT;
		ev->u.module.name = str("m1");
		ev->u.module.refcnt = 0;
	} else if (r < 96) {
		ev->kind = fast_rand(2) ? EV_MIGRATE_START : EV_MIGRATE_END;
	} else if (r < 99) {
		ev->kind = fast_rand(3) ? EV_FILE_ADD : EV_FILE_DEL;
		ev->u.file.pfn = fast_rand(FAST_PFNS);
		ev->u.file.dev = fast_rand(2) ? 8ull << 20 : 0;
	} else {
		ev->kind = EV_OOM_VICTIM;
		ev->u.oom.pid = tid;
		ev->u.oom.comm = str("hog");
	}
}

START_TEST(test_fast_as_apply)
{
	static struct mt_event evs[FAST_EVENTS];
	struct stats fast, gen;
	uint32_t seed, i, n, k1, k2, stops = 0;
	uint64_t renumbered = 0, recycled = 0, page_events = 0;
	int32_t cur, next_pid;
	bool stop1, stop2;

	for (seed = 1; seed <= 60; seed++) {
		fast_rng = 0x9e3779b97f4a7c15ull * seed;
		fast_init(&fast, false, seed % 3 == 0);
		fast_init(&gen, true, seed % 3 == 0);
		fast.stop = &stop1;
		gen.stop = &stop2;
		fast.stop_oom = gen.stop_oom = seed % 2 == 0;
		cur = 100;
		next_pid = 200;
		for (i = 0; i < FAST_EVENTS; i++)
			fast_event(&evs[i], 1000 + 3 * (uint64_t)i, &cur, &next_pid);
		for (i = 0; i < FAST_EVENTS; i += k1) {
			n = 1 + fast_rand(24);
			if (n > FAST_EVENTS - i)
				n = FAST_EVENTS - i;
			stop1 = stop2 = false;
			k1 = stats_apply_run(&fast, &evs[i], n, sizeof(evs[0]));
			k2 = stats_apply_run(&gen, &evs[i], n, sizeof(evs[0]));
			ck_assert_uint_eq(k1, k2);
			ck_assert(stop1 == stop2);
			ck_assert(k1 == n || stop1);
			fast_same(&fast, &gen, seed, i + k1);
			if (stop1) {	/* the caller reports the kill */
				stops++;
				fast.oom_pending = gen.oom_pending = false;
			}
		}
		renumbered += gen.tb.c.renumbered;
		recycled += gen.tb.c.tasks_recycled;
		page_events += fast.c.events[EV_PAGE_ALLOC] + fast.c.events[EV_PAGE_FREE];
		stats_free(&fast);
		stats_free(&gen);
	}
	/* what the runs met: kills that stopped a run, recycled slots, serials renumbered */
	ck_assert_uint_gt(stops, 0);
	ck_assert_uint_gt(recycled, 0);
	ck_assert_uint_gt(renumbered, 0);
	ck_assert_uint_gt(page_events, 60 * FAST_EVENTS / 2);
}
END_TEST

/* ---- the table: recycling and overflow ---- */

START_TEST(test_recycle_smallest_peak)
{
	struct mt_task *t;
	uint64_t pfn = 0;
	int i;

	stats_free(&S);
	init_with(SLOT_FIRST + 4, false);	/* 4 task slots */
	/* peaks: 10 -> 5, 11 -> 2, 12 -> 7, 13 -> 1 (alive) */
	for (i = 0; i < 5; i++)
		alloc(10, 10, pfn++, 0);
	for (i = 0; i < 2; i++)
		alloc(11, 11, pfn++, 0);
	for (i = 0; i < 7; i++)
		alloc(12, 12, pfn++, 0);
	alloc(13, 13, pfn++, 0);
	exit_ev(20, 10);
	exit_ev(21, 11);
	exit_ev(22, 12);
	ck_assert_uint_eq(S.tb.c.tasks_seen, 4);

	alloc(30, 14, 100, 0);		/* full: 11 (peak 2) goes, not 13 (alive) */
	ck_assert_ptr_null(stats_find_task(&S, 11));
	ck_assert_int_eq(task(10)->peak, 5);
	ck_assert_int_eq(task(12)->peak, 7);
	ck_assert_int_eq(task(13)->peak, 1);
	t = task(14);
	ck_assert_int_eq(t->cur, 1);
	ck_assert_uint_eq(t->gen, 1);
	ck_assert_uint_eq(S.tb.c.tasks_recycled, 1);
	ck_assert_int_eq(S.tb.c.recycled_max_peak, 2);

	alloc(40, 15, 101, 0);		/* next: 10 (peak 5) */
	ck_assert_ptr_null(stats_find_task(&S, 10));
	ck_assert_int_eq(task(12)->peak, 7);
	ck_assert_uint_eq(S.tb.c.tasks_recycled, 2);
	ck_assert_int_eq(S.tb.c.recycled_max_peak, 5);

	exit_ev(50, 13);
	alloc(60, 16, 102, 0);		/* 13 (peak 1) before 12 (peak 7) */
	ck_assert_ptr_null(stats_find_task(&S, 13));
	ck_assert_int_eq(task(12)->peak, 7);
	ck_assert_int_eq(S.tb.c.recycled_max_peak, 5);
	ck_assert_uint_eq(S.tb.c.tasks_seen, 7);
	ck_assert_uint_eq(S.tb.c.tasks_recycled, 3);
}
END_TEST

/* A full table of exited tasks, peaks a permutation: recycled strictly by increasing peak. */
START_TEST(test_recycle_order_large_table)
{
	uint64_t pfn = 0;
	int i, k, n = 64 - SLOT_FIRST;

	for (i = 0; i < n; i++) {
		int peak = (i * 37) % n + 1;

		for (k = 0; k < peak; k++)
			alloc((uint64_t)i, 1000 + i, pfn++, 0);
		exit_ev(100 + (uint64_t)i, 1000 + i);
	}
	ck_assert_uint_eq(S.tb.ntasks_used, 64);
	for (k = 1; k <= 12; k++) {
		/* the task whose peak is k: (i*37) % n == k-1 (37 is prime to n) */
		int victim = 0;

		while ((victim * 37) % n != k - 1)
			victim++;
		ck_assert_int_eq(task(1000 + victim)->peak, k);
		alloc(1000 + (uint64_t)k, 5000 + k, pfn++, 0);
		ck_assert_msg(stats_find_task(&S, 1000 + victim) == NULL,
			      "recycle %d: task with peak %d should have gone", k, k);
		ck_assert_int_eq(S.tb.c.recycled_max_peak, k);
	}
	ck_assert_uint_eq(S.tb.c.tasks_recycled, 12);
	/* everything with a larger peak is still there */
	for (i = 0; i < n; i++)
		if ((i * 37) % n + 1 > 12)
			ck_assert_ptr_nonnull(stats_find_task(&S, 1000 + i));
}
END_TEST

START_TEST(test_recycled_frees)
{
	struct mt_task *old, *neu;
	uint32_t old_serial;

	stats_free(&S);
	init_with(SLOT_FIRST + 1, false);	/* a single task slot */
	alloc(10, 10, 1, 0);
	alloc(11, 10, 2, 1);			/* pfn 1-3 owned by 10 */
	old = task(10);
	old_serial = old->serial;
	ck_assert_int_eq(old->cur, 3);
	exit_ev(20, 10);
	alloc(30, 11, 10, 0);			/* recycles 10's slot */
	neu = task(11);
	ck_assert_ptr_eq(neu, old);		/* same slot ... */
	ck_assert_uint_eq(neu->serial, old_serial + S.cfg.max_tasks);	/* ... new serial */
	ck_assert_uint_eq(neu->gen, 1);
	ck_assert_ptr_null(stats_task_by_serial(&S, old_serial));
	ck_assert_ptr_eq(stats_task_by_serial(&S, neu->serial), neu);
	ck_assert_int_eq(neu->cur, 1);
	ck_assert_uint_eq(S.tb.c.tasks_recycled, 1);
	ck_assert_int_eq(S.tb.c.recycled_max_peak, 3);

	pfree(40, 11, 1, 0);			/* old occupant's page */
	ck_assert_uint_eq(S.c.recycled_frees, 1);
	ck_assert_int_eq(neu->cur, 1);
	ck_assert_uint_eq(neu->freed_pages, 0);
	pfree(50, 11, 2, 1);
	ck_assert_uint_eq(S.c.recycled_frees, 3);
	ck_assert_int_eq(neu->cur, 1);
	ck_assert_uint_eq(S.c.untracked_frees, 0);
	pfree(60, 11, 10, 0);			/* its own page */
	ck_assert_int_eq(neu->cur, 0);
	ck_assert_uint_eq(S.c.recycled_frees, 3);
}
END_TEST

START_TEST(test_overflow)
{
	struct mt_task *ov;

	stats_free(&S);
	init_with(SLOT_FIRST + 2, false);	/* two task slots */
	ov = &S.tb.tasks[SLOT_OVERFLOW];
	ck_assert_mem_eq(ov->comm, "<overflow>", 10);
	alloc(10, 10, 1, 0);
	alloc(11, 11, 2, 0);
	alloc(12, 12, 4, 1);			/* no exited task: <overflow> */
	ck_assert_ptr_null(stats_find_task(&S, 12));
	ck_assert_int_eq(ov->cur, 2);
	ck_assert_uint_eq(S.tb.c.task_overflow_events, 1);
	ck_assert_uint_eq(S.c.task_overflow_pages, 2);
	alloc(13, 12, 6, 0);
	ck_assert_int_eq(ov->cur, 3);
	ck_assert_int_eq(ov->peak, 3);
	ck_assert_uint_eq(S.tb.c.task_overflow_events, 2);
	ck_assert_uint_eq(S.c.task_overflow_pages, 3);
	ck_assert_int_eq(task(10)->cur, 1);
	ck_assert_int_eq(task(11)->cur, 1);
	/* a new task without a slot */
	newtask(14, 10, 13, 0x1200000, "x");
	ck_assert_ptr_null(stats_find_task(&S, 13));
	ck_assert_uint_eq(S.tb.c.task_overflow_events, 3);
	/* freeing overflow pages credits <overflow> */
	pfree(15, 11, 4, 1);
	ck_assert_int_eq(ov->cur, 1);
	ck_assert_int_eq(task(11)->cur, 1);
	/* once a task exits, 12 gets a slot of its own */
	exit_ev(16, 10);
	alloc(17, 12, 8, 0);
	ck_assert_int_eq(task(12)->cur, 1);
	ck_assert_int_eq(ov->cur, 1);
	ck_assert_uint_eq(S.tb.c.task_overflow_events, 3);
	ck_assert_uint_eq(S.c.task_overflow_pages, 3);
	ck_assert_uint_eq(S.tb.c.tasks_recycled, 1);
	ck_assert_uint_eq(S.tb.c.tasks_seen, 3);
}
END_TEST

START_TEST(test_many_short_tasks)
{
	const int n = 100000;
	struct mt_task *parent;
	uint64_t ts = 1;
	int i;

	parent = stats_seed_task(&S, 1, 1, 0, "init", 4, 0, 0, false);
	ck_assert_ptr_nonnull(parent);
	for (i = 0; i < n; i++) {
		int32_t tid = 1000 + i;
		uint64_t pfn = (uint64_t)(i % 1000) * 4;

		newtask(ts++, 1, tid, 0x1200000, "short");
		alloc(ts++, tid, pfn, 0);
		alloc(ts++, tid, pfn + 2, 1);
		pfree(ts++, tid, pfn + 2, 1);
		pfree(ts++, 1, pfn, 0);
		exit_ev(ts++, tid);
	}
	/* init + n children; 64 - SLOT_FIRST slots, init keeps one: the rest was dropped */
	ck_assert_uint_eq(S.tb.c.tasks_seen, (uint64_t)n + 1);
	ck_assert_uint_eq(S.tb.c.tasks_recycled, (uint64_t)n + 1 - (64 - SLOT_FIRST));
	ck_assert_int_eq(S.tb.c.recycled_max_peak, 3);
	ck_assert_uint_eq(S.c.events[EV_PAGE_ALLOC], 2 * (uint64_t)n);
	ck_assert_uint_eq(S.c.events[EV_PAGE_FREE], 2 * (uint64_t)n);
	ck_assert_uint_eq(S.c.events[EV_NEWTASK], (uint64_t)n);
	ck_assert_uint_eq(S.c.events[EV_EXIT], (uint64_t)n);
	ck_assert_uint_eq(S.c.untracked_frees, 0);
	ck_assert_uint_eq(S.c.recycled_frees, 0);
	ck_assert_uint_eq(S.c.double_allocs, 0);
	ck_assert_uint_eq(S.tb.c.task_overflow_events, 0);
	ck_assert_ptr_eq(task(1), parent);
	ck_assert_int_eq(parent->cur, 0);
	ck_assert_uint_eq(parent->freed_pages, 0);
	/* the last child is still in the table with its own numbers */
	ck_assert_int_eq(task(1000 + n - 1)->peak, 3);
	ck_assert_int_eq(task(1000 + n - 1)->cur, 0);
	ck_assert_int_eq(task(1000 + n - 1)->state, TASK_EXITED);
	ck_assert_ptr_null(stats_find_task(&S, 1000));
	ck_assert_uint_eq(S.tb.ntasks_used, 64);
}
END_TEST

/* ---- processes: threads linked to their leader, summed there ---- */

#define PROC_FLAGS	0x1200000ull	/* CLONE_CHILD_SETTID | CLONE_CHILD_CLEARTID: a fork */

static void init_cfg(uint32_t max_tasks, uint32_t exit_ring)
{
	struct stats_config cfg = {
		.max_tasks = max_tasks,
		.max_modules = 8,
		.max_pfn = MAX_PFN,
		.exit_ring = exit_ring,
	};

	ck_assert_int_eq(stats_init(&S, &cfg), 0);
}

static void exit_gd(uint64_t ts, int32_t pid, int group_dead, const char *comm)
{
	struct mt_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.kind = EV_EXIT;
	ev.ts = ts;
	ev.tid = pid;
	ev.u.exit.pid = pid;
	ev.u.exit.group_dead = group_dead;
	ev.u.exit.comm = str(comm);
	stats_apply(&S, &ev);
}

static void irq_alloc(uint64_t ts, int32_t tid, uint64_t pfn, uint32_t order)
{
	page_ev(EV_PAGE_ALLOC, ts, tid, MT_FLAG_HARDIRQ, pfn, order);
}

START_TEST(test_process_threads_summed)
{
	struct mt_task *p, *t1, *t2, *other;

	newtask(10, 1, 100, PROC_FLAGS, "app");
	newtask(20, 100, 101, MT_CLONE_THREAD, "app");
	newtask(30, 101, 102, MT_CLONE_THREAD, "app");	/* a thread made by a thread */
	newtask(35, 101, 200, PROC_FLAGS, "child");	/* a process made by a thread */
	p = task(100);
	t1 = task(101);
	t2 = task(102);
	other = task(200);
	ck_assert_uint_eq(p->leader, 0);
	ck_assert_uint_eq(t1->leader, p->serial);
	ck_assert_uint_eq(t2->leader, p->serial);
	ck_assert_uint_eq(other->leader, 0);
	ck_assert_int_eq(t2->tgid, 100);
	ck_assert_int_eq(other->tgid, 200);
	ck_assert_int_eq(other->ppid, 100);
	ck_assert_ptr_eq(stats_process_of(&S, p), p);
	ck_assert_ptr_eq(stats_process_of(&S, t1), p);
	ck_assert_ptr_eq(stats_process_of(&S, t2), p);
	ck_assert_ptr_eq(stats_process_of(&S, other), other);

	alloc(40, 100, 0, 1);		/* leader: 2 -> process 2 */
	ck_assert_int_eq(p->pcur, 2);
	ck_assert_int_eq(p->ppeak, 2);
	ck_assert_uint_eq(p->ppeak_ts, 40);
	alloc(50, 101, 8, 2);		/* t1: 4 -> process 6 */
	ck_assert_int_eq(p->pcur, 6);
	ck_assert_int_eq(p->ppeak, 6);
	ck_assert_uint_eq(p->ppeak_ts, 50);
	alloc(60, 102, 16, 0);		/* t2: 1 -> process 7 */
	ck_assert_int_eq(p->pcur, 7);
	ck_assert_int_eq(p->ppeak, 7);
	ck_assert_uint_eq(p->ppeak_ts, 60);
	alloc(65, 200, 32, 3);		/* another process: not summed here */
	ck_assert_int_eq(p->pcur, 7);
	ck_assert_int_eq(other->pcur, 8);
	ck_assert_int_eq(other->ppeak, 8);
	/* a task outside the process frees t1's block: t1 and the process go down */
	pfree(70, 999, 8, 2);
	ck_assert_int_eq(t1->cur, 0);
	ck_assert_int_eq(t1->peak, 4);
	ck_assert_int_eq(p->pcur, 3);
	ck_assert_int_eq(p->ppeak, 7);
	ck_assert_uint_eq(p->ppeak_ts, 60);
	ck_assert_ptr_null(stats_find_task(&S, 999));	/* a free charges nobody new */
	alloc(80, 102, 17, 1);		/* t2: 1 + 2 = 3; process 5 */
	ck_assert_int_eq(t2->cur, 3);
	ck_assert_int_eq(p->pcur, 5);
	ck_assert_int_eq(p->ppeak, 7);
	/* the leader frees a page of the other process: that process goes down */
	pfree(90, 100, 32, 1);
	ck_assert_int_eq(other->pcur, 6);
	ck_assert_int_eq(p->pcur, 5);
	/* threads keep no process sums of their own */
	ck_assert_int_eq(t1->pcur, 0);
	ck_assert_int_eq(t1->ppeak, 0);
	ck_assert_int_eq(t2->pcur, 0);
	ck_assert_int_eq(t2->ppeak, 0);
	/* the leader's own numbers are its own pages only */
	ck_assert_int_eq(p->cur, 2);
	ck_assert_int_eq(p->peak, 2);
}
END_TEST

/* A thread whose leader's slot went to another task is its own process again. */
/*
 * A leader that exits while a thread of its process lives on keeps its slot:
 * the thread sums into it. (Recycling it made the thread's frees drive the
 * process's current below zero.) A newcomer then finds no slot.
 */
START_TEST(test_process_of_recycled_leader)
{
	struct mt_task *t, *lead;

	stats_free(&S);
	init_with(SLOT_FIRST + 3, false);	/* 1, 100 and 101 fill it */
	newtask(10, 1, 100, PROC_FLAGS, "app");
	newtask(20, 100, 101, MT_CLONE_THREAD, "app");
	t = task(101);
	lead = task(100);
	ck_assert_uint_eq(t->leader, lead->serial);
	alloc(30, 101, 0, 1);			/* 2 pages, summed on 100 */
	ck_assert_int_eq(lead->pcur, 2);
	exit_gd(40, 100, 0, "app");		/* the leader goes first */
	alloc(50, 300, 8, 0);			/* table full, but 100 must stay */
	ck_assert_ptr_eq(task(100), lead);
	ck_assert_ptr_null(stats_find_task(&S, 300));
	ck_assert_uint_eq(S.tb.c.task_overflow_events, 1);
	ck_assert_uint_eq(S.tb.c.tasks_recycled, 0);
	ck_assert_ptr_eq(stats_process_of(&S, t), lead);
	alloc(60, 101, 16, 2);			/* 4 pages, still summed on the leader */
	ck_assert_int_eq(lead->pcur, 6);
	ck_assert_int_eq(lead->ppeak, 6);
	pfree(70, 101, 0, 1);
	pfree(71, 101, 16, 2);
	ck_assert_int_eq(lead->pcur, 0);	/* never below zero */
	ck_assert_int_eq(t->cur, 0);
	ck_assert_uint_eq(S.c.recycled_frees, 0);
	/* the process ends: now the leader may go */
	exit_gd(80, 101, 1, "app");
	alloc(90, 300, 24, 0);
	ck_assert_ptr_nonnull(stats_find_task(&S, 300));
	ck_assert_uint_eq(S.tb.c.tasks_recycled, 1);
}
END_TEST

/*
 * Recycling drops the smallest peaks first. A leader whose threads did the
 * allocating has a task peak of 0 but its process peaked high: dropping it
 * loses that process from --by process and the command report.
 */
START_TEST(test_recycle_keeps_large_process_peak)
{
	struct mt_task *lead;

	stats_free(&S);
	init_with(SLOT_FIRST + 4, false);
	newtask(10, 1, 100, PROC_FLAGS, "big");
	newtask(11, 100, 101, MT_CLONE_THREAD, "big");
	alloc(20, 101, 0, 6);			/* 64 pages by the thread */
	pfree(30, 101, 0, 6);
	exit_gd(40, 101, 0, "big");
	exit_gd(41, 100, 1, "big");
	lead = task(100);
	ck_assert_int_eq(lead->peak, 0);
	ck_assert_int_eq(lead->ppeak, 64);
	alloc(50, 200, 64, 2);			/* a small process: peak 5 */
	alloc(51, 200, 68, 0);
	pfree(52, 200, 64, 2);
	pfree(53, 200, 68, 0);
	exit_gd(54, 200, 1, "small");
	ck_assert_uint_eq(S.tb.ntasks_used, SLOT_FIRST + 4);	/* 1, 100, 101, 200 */
	alloc(60, 300, 80, 0);			/* one slot needed */
	ck_assert_uint_eq(S.tb.c.tasks_recycled, 1);
	ck_assert_msg(stats_find_task(&S, 100) == lead,
		      "the leader of a 64-page process went before a 5-page task");
	ck_assert_ptr_null(stats_find_task(&S, 200));
	ck_assert_int_eq(S.tb.c.recycled_max_peak, 5);
}
END_TEST

START_TEST(test_link_threads)
{
	struct mt_task *l, *a, *b, *orphan, *k, *l2, *t2;

	l = stats_seed_task(&S, 100, 100, 1, "app", 3, 50, 10, false);
	a = stats_seed_task(&S, 101, 100, 1, "app", 3, 0, 10, false);
	b = stats_seed_task(&S, 102, 100, 1, "app-io", 6, 0, 10, false);
	stats_seed_task(&S, 200, 200, 1, "db", 2, 7, 10, false);
	orphan = stats_seed_task(&S, 301, 300, 1, "lost", 4, 0, 10, false);	/* 300 not seen */
	k = stats_seed_task(&S, 2, 2, 0, "kthreadd", 8, 0, 10, true);
	/* a thread seen before its leader, with pages of its own by then */
	t2 = stats_seed_task(&S, 401, 400, 1, "w", 1, 0, 10, false);
	alloc(15, 401, 32, 1);
	ck_assert_int_eq(t2->pcur, 2);
	l2 = stats_seed_task(&S, 400, 400, 1, "w", 1, 10, 16, false);
	ck_assert_ptr_nonnull(l);
	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_nonnull(b);
	ck_assert_ptr_nonnull(orphan);
	ck_assert_ptr_nonnull(k);
	ck_assert_ptr_nonnull(t2);
	ck_assert_ptr_nonnull(l2);
	/* seeding alone links nothing */
	ck_assert_uint_eq(a->leader, 0);
	ck_assert_uint_eq(b->leader, 0);

	stats_link_threads(&S);
	ck_assert_uint_eq(a->leader, l->serial);
	ck_assert_uint_eq(b->leader, l->serial);
	ck_assert_uint_eq(l->leader, 0);
	ck_assert_uint_eq(task(200)->leader, 0);
	ck_assert_uint_eq(orphan->leader, 0);
	ck_assert_uint_eq(k->leader, 0);
	ck_assert_ptr_eq(stats_process_of(&S, orphan), orphan);
	ck_assert_ptr_eq(stats_process_of(&S, b), l);
	ck_assert_int_eq(l->pcur, 50);
	ck_assert_int_eq(l->ppeak, 50);
	/* the early thread's pages moved to its leader: 10 + 2 */
	ck_assert_uint_eq(t2->leader, l2->serial);
	ck_assert_int_eq(t2->pcur, 0);
	ck_assert_int_eq(l2->pcur, 12);
	ck_assert_int_eq(l2->ppeak, 12);
	ck_assert_int_eq(t2->cur, 2);

	/* linking twice changes nothing */
	stats_link_threads(&S);
	ck_assert_int_eq(l->pcur, 50);
	ck_assert_int_eq(l2->pcur, 12);

	alloc(20, 101, 0, 2);		/* 4 pages of a thread: process 54 */
	ck_assert_int_eq(l->pcur, 54);
	ck_assert_int_eq(l->ppeak, 54);
	ck_assert_uint_eq(l->ppeak_ts, 20);
	ck_assert_int_eq(a->cur, 4);
	ck_assert_int_eq(a->pcur, 0);
	alloc(21, 102, 8, 0);
	ck_assert_int_eq(l->pcur, 55);
	pfree(22, 200, 0, 2);		/* another process frees the thread's pages */
	ck_assert_int_eq(l->pcur, 51);
	ck_assert_int_eq(l->ppeak, 55);
	ck_assert_uint_eq(l->ppeak_ts, 21);
	ck_assert_int_eq(task(200)->pcur, 7);
	pfree(23, 401, 32, 1);		/* the early thread's own pages: off its leader */
	ck_assert_int_eq(l2->pcur, 10);
	ck_assert_int_eq(t2->cur, 0);
}
END_TEST

/* ---- command mode: the process tree ---- */

#define ROOT	1000

/* The command, as memtrace starts it: announced, then its task_newtask from memtrace (pid 1). */
static struct mt_task *start_tree(uint64_t ts, const char *comm)
{
	struct mt_task *r;

	stats_tree_root(&S, ROOT, 1);
	newtask(ts, 1, ROOT, PROC_FLAGS, comm);
	r = task(ROOT);
	ck_assert(r->flags & TF_TREE);
	return r;
}

static int64_t at_peak(int32_t tid)
{
	return stats_tree_pages_at_peak(&S, task(tid));
}

START_TEST(test_tree_root)
{
	struct mt_task *r;

	/* announced: nothing yet, until the event of its creation is read */
	stats_tree_root(&S, ROOT, 1);
	ck_assert_ptr_null(stats_find_task(&S, ROOT));
	ck_assert_uint_eq(S.tree_processes, 0);
	/* memtrace's own task_newtask for it roots the tree */
	newtask(500, 1, ROOT, PROC_FLAGS, "make");
	r = task(ROOT);
	ck_assert(r->flags & TF_TREE);
	ck_assert_int_eq(r->tgid, ROOT);
	ck_assert_int_eq(r->state, TASK_ALIVE);
	ck_assert_uint_eq(r->start_ts, 500);
	assert_comm(r, "make");
	ck_assert_int_eq(r->ppid, 1);
	ck_assert_uint_eq(S.tree_processes, 1);
	ck_assert_uint_eq(S.tree_threads, 0);
	ck_assert_int_eq(S.tree_cur, 0);
	ck_assert_int_eq(S.tree_peak, 0);
	/* memtrace itself is not in the tree */
	ck_assert(!(task(1)->flags & TF_TREE));
	ck_assert_int_eq(stats_tree_pages_at_peak(&S, task(1)), 0);
	/* its sched_process_fork after the newtask: the same task, counted once */
	fork_ev(501, 1, ROOT, "make");
	ck_assert_ptr_eq(task(ROOT), r);
	ck_assert_uint_eq(S.tree_processes, 1);
	alloc(510, ROOT, 0, 2);
	ck_assert_int_eq(S.tree_cur, 4);
	ck_assert_int_eq(S.tree_peak, 4);
	ck_assert_uint_eq(S.tree_peak_ts, 510);
	ck_assert_int_eq(at_peak(ROOT), 4);
}
END_TEST

/* No slot for the command: no tree (the caller goes on without one). */
START_TEST(test_tree_root_table_full)
{
	stats_free(&S);
	init_with(SLOT_FIRST + 1, false);
	alloc(10, 50, 0, 0);			/* the only slot, alive */
	stats_tree_root(&S, ROOT, 50);
	newtask(20, 50, ROOT, PROC_FLAGS, "cmd");	/* no slot for it */
	ck_assert(!S.tree_rooted);
	ck_assert_uint_eq(S.tree_processes, 0);
	ck_assert_ptr_null(stats_find_task(&S, ROOT));
	ck_assert(!(S.tb.tasks[SLOT_OVERFLOW].flags & TF_TREE));
	alloc(30, ROOT, 1, 0);			/* its pages go to <overflow>, not a tree */
	ck_assert_int_eq(S.tree_cur, 0);
	ck_assert_int_eq(S.tree_peak, 0);
}
END_TEST

/* Four children one after another, 8 pages each: the peak is one child plus the root. */
START_TEST(test_tree_children_in_turn)
{
	uint64_t ts = 1000;
	int i;

	start_tree(100, "sh");
	alloc(110, ROOT, 0, 0);
	alloc(111, ROOT, 1, 1);		/* the root holds 3 */
	ck_assert_int_eq(S.tree_cur, 3);
	ck_assert_int_eq(S.tree_peak, 3);
	for (i = 0; i < 4; i++) {
		int32_t c = 2000 + i;

		newtask(ts, ROOT, c, PROC_FLAGS, "step");
		alloc(ts + 1, c, 64, 2);
		alloc(ts + 2, c, 68, 2);	/* 8 pages */
		ck_assert_int_eq(S.tree_cur, 11);
		pfree(ts + 3, c, 64, 3);
		ck_assert_int_eq(S.tree_cur, 3);
		exit_ev(ts + 4, c);
		ts += 1000;
	}
	ck_assert_int_eq(S.tree_peak, 11);
	ck_assert_uint_eq(S.tree_peak_ts, 1002);	/* the first child's second block */
	ck_assert_int_eq(S.tree_cur, 3);
	ck_assert_uint_eq(S.tree_processes, 5);
	ck_assert_uint_eq(S.tree_threads, 0);
	ck_assert_int_eq(at_peak(ROOT), 3);
	ck_assert_int_eq(at_peak(2000), 8);
	for (i = 1; i < 4; i++)
		ck_assert_int_eq(at_peak(2000 + i), 0);
	for (i = 0; i < 4; i++) {
		ck_assert(task(2000 + i)->flags & TF_TREE);
		ck_assert_int_eq(task(2000 + i)->peak, 8);
		ck_assert_int_eq(task(2000 + i)->cur, 0);
	}
}
END_TEST

/* The same four at once: the peak holds all of them. */
START_TEST(test_tree_children_at_once)
{
	int i;

	start_tree(100, "sh");
	alloc(110, ROOT, 0, 0);
	alloc(111, ROOT, 1, 1);		/* 3 */
	for (i = 0; i < 4; i++)
		newtask(200 + (uint64_t)i, ROOT, 2000 + i, PROC_FLAGS, "par");
	for (i = 0; i < 4; i++) {
		alloc(300 + 10 * (uint64_t)i, 2000 + i, 64 + 8 * (uint64_t)i, 2);
		alloc(301 + 10 * (uint64_t)i, 2000 + i, 68 + 8 * (uint64_t)i, 2);
	}
	ck_assert_int_eq(S.tree_cur, 35);
	ck_assert_int_eq(S.tree_peak, 35);
	ck_assert_uint_eq(S.tree_peak_ts, 331);
	for (i = 0; i < 4; i++)
		pfree(400 + (uint64_t)i, 2000 + i, 64 + 8 * (uint64_t)i, 3);
	ck_assert_int_eq(S.tree_cur, 3);
	/* one more after the peak, smaller than it: 0 at the peak */
	newtask(500, ROOT, 2004, PROC_FLAGS, "late");
	alloc(510, 2004, 200, 2);
	ck_assert_int_eq(S.tree_cur, 7);
	ck_assert_int_eq(S.tree_peak, 35);
	ck_assert_uint_eq(S.tree_peak_ts, 331);
	ck_assert_int_eq(at_peak(ROOT), 3);
	for (i = 0; i < 4; i++)
		ck_assert_int_eq(at_peak(2000 + i), 8);
	ck_assert_int_eq(at_peak(2004), 0);
	ck_assert_uint_eq(S.tree_processes, 6);
}
END_TEST

/* Tasks that changed after the peak report what they had at it, not now. */
START_TEST(test_tree_pages_at_peak_after_changes)
{
	start_tree(100, "sh");
	newtask(110, ROOT, 2001, PROC_FLAGS, "a");
	newtask(111, ROOT, 2002, PROC_FLAGS, "b");
	alloc(120, 2001, 0, 3);		/* A: pfn 0-7 */
	alloc(121, 2001, 8, 1);		/* A: pfn 8-9 -> 10 */
	alloc(122, 2002, 16, 2);	/* B: 16-19 */
	alloc(123, 2002, 20, 0);	/* B: 20 -> 5; tree 15, peak */
	ck_assert_int_eq(S.tree_peak, 15);
	ck_assert_uint_eq(S.tree_peak_ts, 123);
	pfree(130, 2001, 8, 1);
	pfree(131, 2001, 0, 2);		/* A: 4 (pfn 4-7) */
	alloc(132, 2002, 24, 1);
	alloc(133, 2002, 26, 0);	/* B: 8 */
	newtask(140, ROOT, 2003, PROC_FLAGS, "c");
	alloc(141, 2003, 40, 1);	/* C: 2; tree 14 */
	ck_assert_int_eq(S.tree_cur, 14);
	ck_assert_int_eq(S.tree_peak, 15);
	ck_assert_int_eq(at_peak(2001), 10);
	ck_assert_int_eq(at_peak(2002), 5);
	ck_assert_int_eq(at_peak(2003), 0);
	ck_assert_int_eq(at_peak(ROOT), 0);
	ck_assert_int_eq(task(2001)->cur, 4);
	ck_assert_int_eq(task(2002)->cur, 8);
	/* B grows the tree past the old peak: a new peak, taken as things are now */
	alloc(150, 2002, 28, 2);	/* B: 12; tree 18 */
	ck_assert_int_eq(S.tree_peak, 18);
	ck_assert_uint_eq(S.tree_peak_ts, 150);
	ck_assert_int_eq(at_peak(2001), 4);
	ck_assert_int_eq(at_peak(2002), 12);
	ck_assert_int_eq(at_peak(2003), 2);
	/* and changes after that one do not move it */
	pfree(160, 2001, 4, 2);		/* A: 0 */
	alloc(161, 2003, 42, 0);	/* C: 3 */
	pfree(162, 2002, 16, 2);	/* B: 8 */
	ck_assert_int_eq(S.tree_cur, 11);
	ck_assert_int_eq(at_peak(2001), 4);
	ck_assert_int_eq(at_peak(2002), 12);
	ck_assert_int_eq(at_peak(2003), 2);
	/* a task of the tree that changed twice since the peak: still its value at it */
	alloc(163, 2003, 43, 0);
	ck_assert_int_eq(task(2003)->cur, 4);
	ck_assert_int_eq(at_peak(2003), 2);
	ck_assert_int_eq(S.tree_peak, 18);
}
END_TEST

/* Grandchildren stay in the tree when their parent exits; threads are counted apart. */
START_TEST(test_tree_descendants_and_threads)
{
	struct mt_task *r;

	r = start_tree(100, "sh");
	newtask(110, ROOT, 2000, PROC_FLAGS, "c");
	newtask(111, 2000, 3000, PROC_FLAGS, "g");
	exit_ev(112, 2000);				/* the parent goes; 3000 is reparented */
	alloc(120, 3000, 0, 2);				/* 4 */
	ck_assert(task(3000)->flags & TF_TREE);
	ck_assert_int_eq(S.tree_cur, 4);
	fork_ev(130, 3000, 4000, "gg");			/* sched_process_fork only */
	ck_assert(task(4000)->flags & TF_TREE);
	alloc(131, 4000, 8, 1);				/* 2 */
	ck_assert_int_eq(S.tree_cur, 6);
	/* threads: of the root, of the grandchild, and a thread's thread */
	newtask(140, ROOT, 1001, MT_CLONE_THREAD, "sh");
	newtask(141, 3000, 3001, MT_CLONE_THREAD, "g");
	newtask(142, 3001, 3002, MT_CLONE_THREAD, "g");
	fork_ev(143, 3001, 3002, "g");			/* the fork after newtask: no double count */
	ck_assert(task(1001)->flags & TF_TREE);
	ck_assert(task(3002)->flags & TF_TREE);
	ck_assert_uint_eq(S.tree_processes, 4);		/* ROOT, 2000, 3000, 4000 */
	ck_assert_uint_eq(S.tree_threads, 3);
	alloc(150, 1001, 16, 2);			/* 4 on the root's process */
	alloc(151, 3002, 24, 0);			/* 1 on 3000's process */
	ck_assert_int_eq(S.tree_cur, 11);
	ck_assert_int_eq(S.tree_peak, 11);
	ck_assert_int_eq(r->pcur, 4);
	ck_assert_int_eq(task(3000)->pcur, 5);
	ck_assert_int_eq(task(4000)->pcur, 2);
	/* outside the tree: memtrace (1) and a process it starts */
	newtask(160, 1, 5000, PROC_FLAGS, "other");
	alloc(161, 5000, 32, 3);
	ck_assert(!(task(5000)->flags & TF_TREE));
	ck_assert_int_eq(S.tree_cur, 11);
	ck_assert_uint_eq(S.tree_processes, 4);
	/* pages at the peak by task */
	ck_assert_int_eq(at_peak(ROOT), 0);
	ck_assert_int_eq(at_peak(1001), 4);
	ck_assert_int_eq(at_peak(2000), 0);
	ck_assert_int_eq(at_peak(3000), 4);
	ck_assert_int_eq(at_peak(3002), 1);
	ck_assert_int_eq(at_peak(4000), 2);
	ck_assert_int_eq(at_peak(5000), 0);
}
END_TEST

/* Who frees decides nothing: the owner's tree membership does. irq pages are not the tree's. */
START_TEST(test_tree_frees_and_irq)
{
	struct mt_task *irq = &S.tb.tasks[SLOT_IRQ];

	start_tree(100, "sh");
	alloc(110, ROOT, 0, 2);			/* 4 */
	alloc(111, 5000, 8, 2);			/* an outsider's 4 */
	ck_assert_int_eq(S.tree_cur, 4);
	pfree(120, 5000, 0, 1);			/* the outsider frees 2 of the tree's */
	ck_assert_int_eq(S.tree_cur, 2);
	ck_assert_int_eq(task(ROOT)->cur, 2);
	ck_assert_int_eq(task(5000)->cur, 4);
	pfree(121, ROOT, 8, 0);			/* the tree frees one of the outsider's */
	ck_assert_int_eq(S.tree_cur, 2);
	ck_assert_int_eq(task(5000)->cur, 3);
	irq_alloc(130, ROOT, 16, 3);		/* interrupting the root: 8 to <irq> */
	ck_assert_int_eq(irq->cur, 8);
	ck_assert_int_eq(S.tree_cur, 2);
	ck_assert_int_eq(S.tree_peak, 4);
	ck_assert_int_eq(task(ROOT)->cur, 2);
	pfree(131, ROOT, 16, 3);
	ck_assert_int_eq(irq->cur, 0);
	ck_assert_int_eq(S.tree_cur, 2);
	pfree(132, ROOT, 2, 1);
	ck_assert_int_eq(S.tree_cur, 0);
	ck_assert_int_eq(S.tree_peak, 4);
	ck_assert_uint_eq(S.tree_peak_ts, 110);
	ck_assert_int_eq(at_peak(ROOT), 4);
}
END_TEST

/* An exited tree task that owns pages (or whose threads do) is never dropped. */
START_TEST(test_tree_exited_with_pages_kept)
{
	stats_free(&S);
	init_with(SLOT_FIRST + 6, false);
	start_tree(100, "sh");				/* slots: ROOT, 1 */
	newtask(110, ROOT, 2000, PROC_FLAGS, "keep");	/* 1 page, exits with it */
	alloc(111, 2000, 0, 0);
	exit_ev(112, 2000);
	alloc(120, 3000, 8, 2);				/* outsider, peak 4, exits with none */
	pfree(121, 3000, 8, 2);
	exit_ev(122, 3000);
	newtask(130, ROOT, 2100, PROC_FLAGS, "lead");	/* leader exits, its thread holds pages */
	newtask(131, 2100, 2101, MT_CLONE_THREAD, "lead");
	alloc(132, 2101, 16, 1);
	exit_gd(133, 2100, 0, "lead");
	ck_assert_int_eq(task(2100)->cur, 0);
	ck_assert_int_eq(task(2100)->pcur, 2);
	ck_assert_uint_eq(S.tb.ntasks_used, SLOT_FIRST + 6);
	/* full: 3000 goes though its peak (4) is larger than 2000's (1) or 2100's (0) */
	alloc(140, 6000, 24, 0);
	ck_assert_ptr_null(stats_find_task(&S, 3000));
	ck_assert_ptr_nonnull(stats_find_task(&S, 2000));
	ck_assert_ptr_nonnull(stats_find_task(&S, 2100));
	ck_assert_uint_eq(S.tb.c.tasks_recycled, 1);
	/* nothing else may go: overflow */
	alloc(141, 6001, 25, 0);
	ck_assert_ptr_null(stats_find_task(&S, 6001));
	ck_assert_uint_eq(S.tb.c.task_overflow_events, 1);
	ck_assert_uint_eq(S.tb.c.tasks_recycled, 1);
	/* the kept tasks' frees find them */
	pfree(150, 6000, 0, 0);
	ck_assert_int_eq(task(2000)->cur, 0);
	ck_assert_int_eq(S.tree_cur, 2);
	ck_assert_uint_eq(S.c.recycled_frees, 0);
	/*
	 * 2000 holds no pages now, but 1 of the tree's peak (3 pages at 132):
	 * the at-peak list needs it, so it stays
	 */
	ck_assert_int_eq(S.tree_peak, 3);
	ck_assert_int_eq(stats_tree_pages_at_peak(&S, task(2000)), 1);
	alloc(160, 6002, 26, 0);
	ck_assert_ptr_nonnull(stats_find_task(&S, 2000));
	ck_assert_ptr_null(stats_find_task(&S, 6002));
	ck_assert_ptr_nonnull(stats_find_task(&S, 2100));
	ck_assert_uint_eq(S.tb.c.tasks_recycled, 1);
	/* the thread's pages come back through its leader */
	pfree(170, 6002, 16, 1);
	ck_assert_int_eq(task(2100)->pcur, 0);
	ck_assert_int_eq(S.tree_cur, 0);
	ck_assert_uint_eq(S.c.recycled_frees, 0);
}
END_TEST

/*
 * The victim list is built a sixteenth of the table at a time. An exited tree
 * leader taken into it with no pages can get pages afterwards (its threads
 * allocate); it must still not be dropped while they are held.
 */
START_TEST(test_tree_victim_gains_pages_kept)
{
	struct mt_task *lead;
	uint64_t pfn = 100;
	int i;

	start_tree(100, "sh");				/* slots: ROOT, 1 */
	newtask(110, ROOT, 2000, PROC_FLAGS, "lead");
	newtask(111, 2000, 2001, MT_CLONE_THREAD, "lead");
	alloc(112, 2000, 0, 3);
	pfree(113, 2000, 0, 3);				/* peak 8, none left */
	exit_gd(114, 2000, 0, "lead");			/* the leader leaves, the thread runs */
	lead = task(2000);
	for (i = 0; i < 3; i++) {			/* exited, peaks 1, 2, 4: below 8 */
		alloc(120, 3000 + i, 8, (uint32_t)i);
		pfree(121, 3000 + i, 8, (uint32_t)i);
		exit_ev(122, 3000 + i);
	}
	ck_assert_int_eq(task(3002)->peak, 4);		/* order 2 */
	/* fill the table with live tasks */
	for (i = 0; S.tb.ntasks_used < S.cfg.max_tasks; i++)
		alloc(130, 4000 + i, pfn++, 0);
	/* four victims are collected (64 / 16); the first recycle takes one of 3000-3002 */
	alloc(140, 5000, pfn++, 0);
	ck_assert_uint_eq(S.tb.c.tasks_recycled, 1);
	ck_assert_ptr_eq(task(2000), lead);
	/* now the thread allocates: the exited leader holds its process's pages */
	alloc(150, 2001, 40, 1);
	ck_assert_int_eq(lead->pcur, 2);
	ck_assert_int_eq(S.tree_cur, 2);
	/* three more new tasks: the two other exited outsiders go, the leader must not */
	alloc(160, 5001, pfn++, 0);
	alloc(161, 5002, pfn++, 0);
	alloc(162, 5003, pfn++, 0);
	ck_assert_msg(stats_find_task(&S, 2000) == lead && lead->tid == 2000,
		      "exited tree leader with pages held by its thread was recycled");
	ck_assert_ptr_eq(stats_process_of(&S, task(2001)), lead);
	ck_assert_uint_eq(S.tb.c.tasks_recycled, 3);
	ck_assert_uint_eq(S.tb.c.task_overflow_events, 1);	/* 5003 found no slot */
	pfree(170, 2001, 40, 1);
	ck_assert_int_eq(lead->pcur, 0);
	ck_assert_int_eq(S.tree_cur, 0);
}
END_TEST

/* The command's pid was used before by a task that exited: the root is a new task. */
START_TEST(test_tree_root_reused_pid)
{
	struct mt_task *old, *r;

	alloc(10, ROOT, 0, 1);			/* an earlier holder of the pid: 2 pages */
	exit_ev(20, ROOT);
	old = task(ROOT);
	ck_assert_int_eq(old->state, TASK_EXITED);
	stats_tree_root(&S, ROOT, 1);
	/* events of the earlier holder still in the buffer come first: not the tree's */
	alloc(30, ROOT, 4, 0);
	ck_assert(!(task(ROOT)->flags & TF_TREE));
	ck_assert_int_eq(S.tree_cur, 0);
	newtask(100, 1, ROOT, PROC_FLAGS, "cmd");
	r = task(ROOT);
	ck_assert_msg(r != old && r->state == TASK_ALIVE,
		      "tree rooted on the exited earlier holder of the pid");
	ck_assert(r->flags & TF_TREE);
	ck_assert_int_eq(r->cur, 0);
	ck_assert(!(old->flags & TF_TREE));
	newtask(110, ROOT, 2000, PROC_FLAGS, "child");
	ck_assert(task(2000)->flags & TF_TREE);
	alloc(120, 2000, 8, 2);
	ck_assert_int_eq(S.tree_cur, 4);
	pfree(130, 2000, 0, 1);			/* the old holder's pages: not the tree's */
	pfree(131, 2000, 4, 0);
	ck_assert_int_eq(old->cur, 0);
	ck_assert_int_eq(S.tree_cur, 4);
	ck_assert_int_eq(S.tree_peak, 4);
	ck_assert_uint_eq(S.tree_processes, 2);
}
END_TEST

/*
 * A thread that is not the leader execs (de_thread): the kernel fires the
 * leader's exit, then sched_process_exec with pid = the leader's pid and
 * old_pid = the thread's tid. The process lives on under the leader's pid.
 */
START_TEST(test_exec_by_thread)
{
	struct mt_task *l, *th;

	start_tree(10, "prog");
	newtask(20, ROOT, ROOT + 1, MT_CLONE_THREAD, "prog");
	alloc(30, ROOT, 0, 1);			/* 2 pages, the leader's */
	alloc(40, ROOT + 1, 8, 0);		/* 1 page, the thread's */
	l = task(ROOT);
	th = task(ROOT + 1);
	exit_gd(50, ROOT, 0, "prog");		/* de_thread: the old leader goes */
	ck_assert_int_eq(l->state, TASK_EXITED);
	exec_ev(60, ROOT, ROOT + 1, "/usr/bin/new");
	/* the pid's record is the process again; the thread's tid is gone */
	ck_assert_ptr_eq(stats_find_task(&S, ROOT), l);
	ck_assert_int_eq(l->state, TASK_ALIVE);
	ck_assert_int_eq(l->leader, 0);
	ck_assert(l->flags & TF_TREE);
	ck_assert_int_eq(th->state, TASK_EXITED);
	ck_assert_ptr_null(stats_find_task(&S, ROOT + 1));
	assert_comm(l, "new");
	/* the new program's pages go to the process; its exit ends it */
	alloc(70, ROOT, 16, 2);
	ck_assert_int_eq(l->pcur, 3 + 4);
	ck_assert_int_eq(S.tree_cur, 7);
	exit_gd(80, ROOT, 1, "new");
	ck_assert_int_eq(l->state, TASK_EXITED);
	ck_assert_uint_eq(l->pexit_ts, 80);
	/* the page the thread held is still credited to the process when freed */
	pfree(90, 5, 8, 0);
	ck_assert_int_eq(l->pcur, 6);
	ck_assert_int_eq(S.tree_cur, 6);
}
END_TEST

/* A task_newtask for a tid whose record is still alive (its exit was lost): a fresh record. */
START_TEST(test_newtask_replaces_stale)
{
	struct mt_task *stale, *t;

	start_tree(10, "make");
	newtask(20, ROOT, 700, PROC_FLAGS, "cc");
	alloc(30, 700, 0, 1);
	stale = task(700);
	ck_assert(stale->flags & TF_TREE);
	/* its exit event was lost; later an outsider gets pid 700 */
	newtask(40, 5, 700, PROC_FLAGS, "outsider");
	t = task(700);
	ck_assert_ptr_ne(t, stale);
	ck_assert_int_eq(stale->state, TASK_EXITED);
	ck_assert(!(t->flags & TF_TREE));
	ck_assert_int_eq(t->leader, 0);
	ck_assert_int_eq(t->cur, 0);
	/* the outsider's pages are not the tree's */
	alloc(50, 700, 8, 2);
	ck_assert_int_eq(S.tree_cur, 2);
	/* the stale task's pages are still the tree's until freed */
	pfree(60, 700, 0, 1);
	ck_assert_int_eq(S.tree_cur, 0);
	ck_assert_int_eq(stale->cur, 0);
}
END_TEST

/* Pages a child owned before its creation event was read join the tree with it. */
START_TEST(test_tree_join_counts_earlier_pages)
{
	start_tree(10, "make");
	alloc(20, 800, 0, 1);			/* 800's page events read before its fork */
	ck_assert_int_eq(S.tree_cur, 0);
	fork_ev(25, ROOT, 800, "cc");		/* no task_newtask: fork alone joins it */
	ck_assert(task(800)->flags & TF_TREE);
	ck_assert_int_eq(S.tree_cur, 2);
	ck_assert_int_eq(S.tree_peak, 2);
	ck_assert_int_eq(at_peak(800), 2);
	pfree(30, 800, 0, 1);
	ck_assert_int_eq(S.tree_cur, 0);	/* never below zero */
	ck_assert_int_eq(S.tree_peak, 2);
}
END_TEST

/*
 * Random allocations and frees by tree tasks (processes and threads), an
 * outsider and irq context, against a model: tree pages, the peak, each task's
 * pages at the peak, each process's sum.
 */
START_TEST(test_tree_model)
{
	enum { NT = 8, NB = 512 };
	/* tasks: 0 ROOT, 1 thread of ROOT, 2..4 processes, 5 thread of 2, 6 outsider, 7 irq */
	static const int32_t tids[NT] = { ROOT, 1001, 2000, 2100, 2200, 2001, 9000, -1 };
	static const int proc_of[NT] = { 0, 0, 2, 3, 4, 2, 6, 7 };
	static const bool in_tree[NT] = { true, true, true, true, true, true, false, false };
	int64_t cur[NT] = { 0 }, snap[NT] = { 0 }, pcur[NT] = { 0 }, ppeak[NT] = { 0 };
	int64_t tree = 0, peak = 0;
	int owner[NB];
	uint32_t rng = 12345;
	uint64_t ts = 1000;
	int step, i;

	for (i = 0; i < NB; i++)
		owner[i] = -1;
	start_tree(100, "sh");
	newtask(101, ROOT, 1001, MT_CLONE_THREAD, "sh");
	newtask(102, ROOT, 2000, PROC_FLAGS, "p2");
	newtask(103, ROOT, 2100, PROC_FLAGS, "p3");
	newtask(104, 2000, 2200, PROC_FLAGS, "p4");
	newtask(105, 2000, 2001, MT_CLONE_THREAD, "p2");
	for (step = 0; step < 4000; step++) {
		int who, blk, k;
		uint32_t order;

		rng = rng * 1103515245u + 12345u;
		who = (int)((rng >> 16) % NT);
		blk = (int)((rng >> 8) % (NB / 4)) * 4;
		order = (rng >> 4) % 3;
		if (owner[blk] < 0 && ((rng >> 24) & 3) != 0) {
			for (k = 0; k < (1 << order); k++)
				if (owner[blk + k] >= 0)
					break;
			if (k < (1 << order))
				continue;
			if (who == 7)
				irq_alloc(ts++, ROOT, (uint64_t)blk, order);
			else
				alloc(ts++, tids[who], (uint64_t)blk, order);
			for (k = 0; k < (1 << order); k++)
				owner[blk + k] = who;
			cur[who] += 1 << order;
			pcur[proc_of[who]] += 1 << order;
			if (pcur[proc_of[who]] > ppeak[proc_of[who]])
				ppeak[proc_of[who]] = pcur[proc_of[who]];
			if (in_tree[who]) {
				tree += 1 << order;
				if (tree > peak) {
					peak = tree;
					memcpy(snap, cur, sizeof(snap));
				}
			}
		} else if (owner[blk] >= 0) {
			/* free the 4-page group by anybody: every owned page is credited */
			pfree(ts++, tids[who == 7 ? 6 : who], (uint64_t)blk, 2);
			for (k = 0; k < 4; k++) {
				int o = owner[blk + k];

				if (o < 0)
					continue;
				cur[o]--;
				pcur[proc_of[o]]--;
				if (in_tree[o])
					tree--;
				owner[blk + k] = -1;
			}
		}
		ck_assert_int_eq(S.tree_cur, tree);
		ck_assert_int_eq(S.tree_peak, peak);
	}
	ck_assert_int_gt(peak, 20);
	for (i = 0; i < 6; i++) {
		ck_assert_int_eq(task(tids[i])->cur, cur[i]);
		ck_assert_msg(at_peak(tids[i]) == snap[i], "task %d: %lld at the peak, want %lld",
			      tids[i], (long long)at_peak(tids[i]), (long long)snap[i]);
	}
	ck_assert_int_eq(at_peak(9000), 0);
	for (i = 0; i < 7; i++) {
		if (proc_of[i] != i)
			continue;
		ck_assert_int_eq(task(tids[i])->pcur, pcur[i]);
		ck_assert_int_eq(task(tids[i])->ppeak, ppeak[i]);
	}
	ck_assert_int_eq(S.tb.tasks[SLOT_IRQ].cur, cur[7]);
}
END_TEST

/* ---- the exit ring (--exits) ---- */

static void ring_setup(void)
{
	init_cfg(64, 4);
}

static void assert_exit(const struct mt_exit *e, int32_t pid, int32_t ppid, const char *comm,
			int64_t peak, uint64_t start, uint64_t end)
{
	ck_assert_int_eq(e->pid, pid);
	ck_assert_int_eq(e->ppid, ppid);
	ck_assert_uint_eq(e->comm_len, strlen(comm));
	ck_assert_mem_eq(e->comm, comm, strlen(comm));
	ck_assert_int_eq(e->peak, peak);
	ck_assert_uint_eq(e->start_ts, start);
	ck_assert_uint_eq(e->exit_ts, end);
}

START_TEST(test_exit_ring_processes)
{
	struct mt_exit e;

	/* a process with a thread: the thread's exit is not the process's */
	newtask(100, 1, 200, PROC_FLAGS, "worker");
	newtask(110, 200, 201, MT_CLONE_THREAD, "worker");
	alloc(120, 200, 0, 1);
	alloc(130, 201, 8, 2);				/* process peak 6 */
	pfree(140, 201, 8, 2);
	exit_gd(150, 201, 0, "worker");
	ck_assert(!stats_exit_pop(&S, &e));
	ck_assert_uint_eq(S.exit_count, 0);
	exit_gd(160, 200, 1, "worker");
	ck_assert_uint_eq(S.exit_count, 1);
	ck_assert(stats_exit_pop(&S, &e));
	assert_exit(&e, 200, 1, "worker", 6, 100, 160);
	ck_assert(!stats_exit_pop(&S, &e));

	/* the leader first, the last thread ends the process: tgid and leader's name */
	newtask(200, 1, 300, PROC_FLAGS, "lead");
	newtask(210, 300, 301, MT_CLONE_THREAD, "lead-io");
	alloc(215, 301, 16, 0);
	exit_gd(220, 300, 0, "lead");
	ck_assert(!stats_exit_pop(&S, &e));
	exit_gd(230, 301, 1, "lead-io");
	ck_assert(stats_exit_pop(&S, &e));
	assert_exit(&e, 300, 1, "lead", 1, 200, 230);

	/* group_dead unknown: a thread's exit is none, the leader's is the process's */
	newtask(300, 1, 400, PROC_FLAGS, "u");
	newtask(310, 400, 401, MT_CLONE_THREAD, "u");
	exit_gd(320, 401, -1, "u");
	ck_assert(!stats_exit_pop(&S, &e));
	exit_gd(330, 400, -1, "u");
	ck_assert(stats_exit_pop(&S, &e));
	assert_exit(&e, 400, 1, "u", 0, 300, 330);

	/* a task only seen allocating: no name, no parent; the exit's name is taken */
	alloc(400, 500, 24, 0);
	exit_gd(410, 500, 1, "");
	ck_assert(stats_exit_pop(&S, &e));
	assert_exit(&e, 500, 0, "", 1, 400, 410);
	alloc(420, 501, 25, 1);
	exit_gd(430, 501, 1, "renamed");
	ck_assert(stats_exit_pop(&S, &e));
	assert_exit(&e, 501, 0, "renamed", 2, 420, 430);

	/* a second exit of the same task, and one of a task never seen: nothing */
	exit_gd(440, 501, 1, "renamed");
	exit_gd(450, 777, 1, "ghost");
	ck_assert(!stats_exit_pop(&S, &e));
	ck_assert_uint_eq(S.exits_dropped, 0);
}
END_TEST

START_TEST(test_exit_ring_full_fifo)
{
	struct mt_exit e;
	char name[16];
	int i;

	stats_free(&S);
	init_cfg(64, 3);
	for (i = 0; i < 6; i++) {
		snprintf(name, sizeof(name), "p%d", i);
		newtask(10 + (uint64_t)i, 1, 600 + i, PROC_FLAGS, name);
	}
	for (i = 0; i < 4; i++)
		exit_gd(100 + (uint64_t)i, 600 + i, 1, "");
	/* three queued, the fourth dropped: the oldest are not overwritten */
	ck_assert_uint_eq(S.exit_count, 3);
	ck_assert_uint_eq(S.exits_dropped, 1);
	ck_assert(stats_exit_pop(&S, &e));
	assert_exit(&e, 600, 1, "p0", 0, 10, 100);
	exit_gd(104, 604, 1, "");			/* room for one: it wraps around */
	exit_gd(105, 605, 1, "");			/* full again */
	ck_assert_uint_eq(S.exits_dropped, 2);
	ck_assert(stats_exit_pop(&S, &e));
	assert_exit(&e, 601, 1, "p1", 0, 11, 101);
	ck_assert(stats_exit_pop(&S, &e));
	assert_exit(&e, 602, 1, "p2", 0, 12, 102);
	ck_assert(stats_exit_pop(&S, &e));
	assert_exit(&e, 604, 1, "p4", 0, 14, 104);
	ck_assert(!stats_exit_pop(&S, &e));
	ck_assert_uint_eq(S.exit_count, 0);
	ck_assert_uint_eq(S.exits_dropped, 2);
}
END_TEST

START_TEST(test_exit_ring_off)
{
	struct mt_exit e;

	/* the default config has no ring */
	ck_assert_uint_eq(S.cfg.exit_ring, 0);
	newtask(10, 1, 200, PROC_FLAGS, "a");
	alloc(20, 200, 0, 0);
	exit_gd(30, 200, 1, "a");
	exit_gd(40, 1, -1, "init");
	ck_assert(!stats_exit_pop(&S, &e));
	ck_assert_uint_eq(S.exit_count, 0);
	ck_assert_uint_eq(S.exits_dropped, 0);
	ck_assert_int_eq(task(200)->state, TASK_EXITED);
}
END_TEST

/* ---- accuracy (issue 13) ---- */

/*
 * A process seeded with 100 pages frees 100 of them (untracked: allocated
 * before tracing) and maps 100 new: it holds 100, not 200. What is left of
 * the seed goes when the process ends.
 */
START_TEST(test_seed_churn)
{
	struct mt_task *t;
	uint64_t i;

	t = stats_seed_task(&S, 300, 300, 1, "svc", 3, 100, 1000, false);
	ck_assert_ptr_nonnull(t);
	for (i = 0; i < 100; i++)
		pfree(1100 + i, 300, 2000 + i, 0);	/* never seen allocated */
	ck_assert_int_eq(t->cur, 0);
	ck_assert_uint_eq(t->seed_left, 0);
	for (i = 0; i < 100; i++)
		alloc(1300 + i, 300, 100 + i, 0);
	ck_assert_int_eq(t->cur, 100);
	ck_assert_int_eq(t->peak, 100);
	ck_assert_int_eq(t->ppeak, 100);
	/* more untracked frees than the seed held: never below what it allocated */
	pfree(1500, 300, 3000, 4);
	ck_assert_int_eq(t->cur, 100);
	ck_assert_uint_eq(S.c.seed_freed_pages, 100);
	/* a thread's free counts for its process's seed; irq frees and older ones do not */
	t = stats_seed_task(&S, 400, 400, 1, "db", 2, 50, 1000, false);
	ck_assert_ptr_nonnull(stats_seed_task(&S, 401, 400, 1, "db", 2, 0, 1000, false));
	stats_link_threads(&S);
	pfree(1600, 401, 3100, 1);
	ck_assert_int_eq(t->cur, 48);
	page_ev(EV_PAGE_FREE, 1601, 400, MT_FLAG_SOFTIRQ, 3200, 0);
	pfree(999, 400, 3300, 0);		/* before the seed: not in it */
	ck_assert_int_eq(t->cur, 48);
	ck_assert_uint_eq(t->seed_left, 48);
	/* the process ends: its seed is dropped */
	exit_ev(1700, 400);
	ck_assert_int_eq(t->cur, 0);
	ck_assert_uint_eq(t->seed_left, 0);
	ck_assert_uint_eq(S.c.seed_dropped_pages, 48);
	ck_assert_int_eq(t->peak, 50);
}
END_TEST

/*
 * A task forked while /proc is scanned: its fork event is older than its seed
 * but read after it. It must not replace the seeded task (two rows, the seed's
 * allocations counted again), nor may an older exit, exec or rename end or
 * rename it.
 */
START_TEST(test_fork_older_than_seed)
{
	struct mt_task *t;
	uint32_t i, alive = 0;

	t = stats_seed_task(&S, 500, 500, 10, "worker", 6, 20, 1000, false);
	newtask(900, 10, 500, PROC_FLAGS, "sh");
	fork_ev(901, 10, 500, "sh");
	ck_assert_ptr_eq(task(500), t);
	ck_assert_int_eq(t->state, TASK_ALIVE);
	assert_comm(t, "worker");
	ck_assert_int_eq(t->cur, 20);
	alloc(950, 500, 0, 2);			/* in the seed already */
	ck_assert_int_eq(t->cur, 20);
	alloc(1100, 500, 8, 0);
	ck_assert_int_eq(t->cur, 21);
	exec_ev(920, 500, 500, "/bin/old");
	rename_ev(921, 500, "old");
	exit_ev(922, 500);			/* an earlier task with this pid */
	ck_assert_int_eq(t->state, TASK_ALIVE);
	assert_comm(t, "worker");
	ck_assert_uint_eq(S.c.seed_stale_events, 5);
	for (i = SLOT_FIRST; i < S.tb.ntasks_used; i++)
		alive += S.tb.tasks[i].tid == 500 && S.tb.tasks[i].state == TASK_ALIVE;
	ck_assert_uint_eq(alive, 1);
	/* a newer fork of the pid is a new task, as before */
	exit_ev(1200, 500);
	newtask(1300, 10, 500, PROC_FLAGS, "new");
	ck_assert_ptr_ne(task(500), t);
	ck_assert_int_eq(task(500)->cur, 0);
}
END_TEST

/*
 * An exited thread whose pages still count for its live process keeps its
 * slot: recycling it left the process's current too high (a free of its
 * pages found no owner), so freeing 64 and mapping 64 again read 128.
 */
START_TEST(test_recycle_keeps_pages_of_live_process)
{
	struct mt_task *lead;
	uint64_t i;

	stats_free(&S);
	init_with(SLOT_FIRST + 4, false);
	newtask(10, 1, 100, PROC_FLAGS, "app");
	newtask(11, 100, 101, MT_CLONE_THREAD, "app");
	lead = task(100);
	alloc(20, 101, 0, 6);			/* the thread maps 64 pages */
	exit_gd(30, 101, 0, "app");		/* and exits; the process lives on */
	alloc(40, 200, 100, 0);			/* 1, 100, 101, 200: full */
	alloc(41, 201, 101, 0);			/* no room but 101's: it must stay */
	ck_assert_ptr_nonnull(stats_find_task(&S, 101));
	ck_assert_ptr_null(stats_find_task(&S, 201));
	pfree(50, 100, 0, 6);			/* the process frees the thread's pages */
	ck_assert_int_eq(lead->pcur, 0);
	for (i = 0; i < 64; i++)
		alloc(60 + i, 100, 200 + i, 0);	/* and maps 64 again */
	ck_assert_int_eq(lead->pcur, 64);
	ck_assert_int_eq(lead->ppeak, 64);
	ck_assert_uint_eq(S.c.recycled_frees, 0);
	/* with no pages left the thread may go */
	exit_ev(130, 200);
	alloc(140, 202, 300, 0);
	ck_assert_ptr_nonnull(stats_find_task(&S, 202));
}
END_TEST

/*
 * Children of the command's tree that find no slot still count for the tree
 * peak, in <tree-overflow>; their frees come back from it.
 */
START_TEST(test_tree_overflow_slot)
{
	struct mt_task *r, *tov;

	stats_free(&S);
	init_with(SLOT_FIRST + 2, false);
	r = start_tree(100, "sh");			/* slots: 1 (memtrace), ROOT */
	newtask(110, ROOT, 2000, PROC_FLAGS, "cc");	/* no slot */
	ck_assert_ptr_null(stats_find_task(&S, 2000));
	ck_assert_uint_eq(S.c.tree_overflow_tasks, 1);
	alloc(111, 2000, 0, 3);				/* 8 pages */
	tov = &S.tb.tasks[SLOT_TREE_OVERFLOW];
	ck_assert_int_eq(tov->cur, 8);
	ck_assert_int_eq(S.tree_cur, 8);
	ck_assert_int_eq(S.tree_peak, 8);
	ck_assert_uint_eq(S.c.tree_overflow_pages, 8);
	newtask(112, 2000, 2001, PROC_FLAGS, "as");	/* its child: in the tree too */
	alloc(113, 2001, 8, 1);
	ck_assert_int_eq(S.tree_peak, 10);
	alloc(114, 3000, 16, 0);			/* an outsider: <overflow> */
	ck_assert_int_eq(S.tree_cur, 10);
	ck_assert_int_eq(S.tb.tasks[SLOT_OVERFLOW].cur, 1);
	pfree(120, 2000, 0, 3);
	ck_assert_int_eq(S.tree_cur, 2);
	exit_ev(121, 2000);
	alloc(122, 2000, 24, 0);			/* the tid again, not the tree's */
	ck_assert_int_eq(S.tree_cur, 2);
	ck_assert_int_eq(r->cur, 0);
}
END_TEST

/*
 * Task serials wrap after 2^31 creations (with the default table): the
 * serials are renumbered, pages keep their owners, stale owners stay stale,
 * and no task goes to <overflow>. A small limit forces the wrap.
 */
START_TEST(test_serial_wrap)
{
	struct stats_config cfg = { .max_tasks = SLOT_FIRST + 8, .max_modules = 8,
				    .max_pfn = MAX_PFN, .serial_limit = 200 };
	struct mt_task *keep;
	uint64_t ts = 10;
	int i;

	stats_free(&S);
	ck_assert_int_eq(stats_init(&S, &cfg), 0);
	keep = stats_seed_task(&S, 100, 100, 1, "keep", 4, 0, 1, false);
	alloc(ts++, 100, 0, 4);				/* 16 pages held throughout */
	alloc(ts++, 101, 16, 0);			/* 101 exits with a page */
	exit_ev(ts++, 101);
	for (i = 0; i < 2000; i++) {
		int32_t tid = 1000 + i;

		alloc(ts++, tid, 100 + (uint64_t)(i % 50), 0);
		pfree(ts++, tid, 100 + (uint64_t)(i % 50), 0);
		exit_ev(ts++, tid);
	}
	ck_assert_uint_ge(S.tb.c.renumbered, 2);
	ck_assert_uint_eq(S.tb.c.task_overflow_events, 0);
	ck_assert_ptr_eq(task(100), keep);
	ck_assert_uint_lt(keep->serial, 200);
	pfree(ts++, 100, 0, 4);
	ck_assert_int_eq(keep->cur, 0);
	ck_assert_int_eq(keep->peak, 16);
	/* 101 was recycled long ago: its page's free finds no owner */
	pfree(ts++, 1, 16, 0);
	ck_assert_uint_eq(S.c.recycled_frees, 1);
	ck_assert_uint_eq(S.c.untracked_free_pages, 0);
}
END_TEST

/*
 * The system peak: the most pages the pfn map held at once (each page once:
 * a module's pages are its loader's too, seeds are before the start), when,
 * and what each task held then, also after it changed or exited.
 */
static void thp_ev(enum mt_kind kind, uint64_t ts, int32_t tid, uint64_t pfn, int32_t status)
{
	struct mt_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.kind = kind;
	ev.ts = ts;
	ev.tid = tid;
	ev.u.collapse.pfn = pfn;
	ev.u.collapse.status = status;
	stats_apply(&S, &ev);
}

/*
 * khugepaged (tid 50) collapses process 100's 512 pages (pfn 0..511) into a
 * huge page at pfn 1024: alloc, isolate (scan_pfn: the range's last old
 * frame), 512 frees, success. The huge page is 100's; khugepaged held it only
 * for the moment between (its peak says so), and nothing was double counted.
 */
START_TEST(test_thp_collapse_follows)
{
	uint32_t i;

	for (i = 0; i < 512; i++)
		alloc(10 + i, 100, i, 0);
	alloc(1000, 50, 1024, 9);
	thp_ev(EV_COLLAPSE_ISOLATE, 1001, 50, 511, 1);
	for (i = 0; i < 512; i++)
		pfree(1002 + i, 50, i, 0);
	ck_assert_int_eq(task(100)->cur, 0);	/* the old pages, credited to their owner */
	ck_assert_int_eq(task(50)->cur, 512);
	thp_ev(EV_COLLAPSE, 2000, 50, 0, 1);
	ck_assert_int_eq(task(100)->cur, 512);
	ck_assert_int_eq(task(100)->peak, 512);
	ck_assert_int_eq(task(50)->cur, 0);
	ck_assert_int_eq(task(50)->peak, 512);
	ck_assert_int_eq(S.sys_cur, 512);
	ck_assert_int_eq(S.sys_peak, 1024);	/* both held at once, a moment */
	ck_assert_uint_eq(S.c.collapses, 1);
	ck_assert_uint_eq(S.c.collapse_pages, 512);
	/* cur = seed + allocated - freed, for both */
	ck_assert_int_eq(task(100)->cur, (int64_t)(task(100)->alloc_pages - task(100)->freed_pages));
	ck_assert_int_eq(task(50)->cur, (int64_t)(task(50)->alloc_pages - task(50)->freed_pages));
	/* the process unmaps it: its pages, credited to it */
	pfree(3000, 100, 1024, 9);
	ck_assert_int_eq(task(100)->cur, 0);
	ck_assert_int_eq(task(50)->cur, 0);
	ck_assert_uint_eq(S.c.untracked_frees, 0);
}
END_TEST

START_TEST(test_thp_collapse_failed_or_own)
{
	uint32_t i;

	for (i = 0; i < 512; i++)
		alloc(10 + i, 100, i, 0);
	/* failed (status 24: alloc_huge_page_failed ... any but 1): khugepaged keeps and frees */
	alloc(1000, 50, 1024, 9);
	thp_ev(EV_COLLAPSE_ISOLATE, 1001, 50, 511, 1);
	thp_ev(EV_COLLAPSE, 1002, 50, 0, 3);
	ck_assert_int_eq(task(50)->cur, 512);
	ck_assert_int_eq(task(100)->cur, 512);
	pfree(1003, 50, 1024, 9);
	ck_assert_int_eq(task(50)->cur, 0);
	/* an isolation that failed names nobody */
	alloc(1100, 50, 2048, 9);
	thp_ev(EV_COLLAPSE_ISOLATE, 1101, 50, 511, 5);
	thp_ev(EV_COLLAPSE, 1102, 50, 0, 1);
	ck_assert_int_eq(task(50)->cur, 512);
	pfree(1103, 50, 2048, 9);
	/* MADV_COLLAPSE in the owner itself: nothing moves */
	alloc(1200, 100, 3072, 9);
	thp_ev(EV_COLLAPSE_ISOLATE, 1201, 100, 511, 1);
	for (i = 0; i < 512; i++)
		pfree(1202 + i, 100, i, 0);
	thp_ev(EV_COLLAPSE, 2000, 100, 0, 1);
	ck_assert_int_eq(task(100)->cur, 512);
	ck_assert_int_eq(task(100)->peak, 1024);	/* both, a moment */
	ck_assert_uint_eq(S.c.collapses, 0);
}
END_TEST

/*
 * A collapse that swaps the range's pages in first (collapse_huge_page():
 * the huge page, then __collapse_huge_page_swapin()): khugepaged allocates the
 * huge page, then order-0 pages and a slab page of order 1, then isolates and
 * collapses. The huge page is still the one given away.
 */
START_TEST(test_thp_collapse_after_swapin)
{
	uint32_t i;

	for (i = 0; i < 511; i++)
		alloc(10 + i, 100, i, 0);
	alloc(1000, 50, 1024, 9);
	alloc(1001, 50, 511, 0);		/* the range's last page, swapped in */
	alloc(1002, 50, 2048, 1);		/* slab, on the way */
	thp_ev(EV_COLLAPSE_ISOLATE, 1003, 50, 510, 1);
	for (i = 0; i < 512; i++)
		pfree(1004 + i, 50, i, 0);
	thp_ev(EV_COLLAPSE, 2000, 50, 0, 1);
	ck_assert_uint_eq(S.c.collapses, 1);
	ck_assert_uint_eq(S.c.collapse_pages, 512);
	ck_assert_int_eq(task(100)->cur, 512);
	ck_assert_int_eq(task(50)->cur, 2);	/* its slab page */
	/* cur = seed + allocated - freed, for both */
	ck_assert_int_eq(task(100)->cur, (int64_t)(task(100)->alloc_pages - task(100)->freed_pages));
	ck_assert_int_eq(task(50)->cur, (int64_t)(task(50)->alloc_pages - task(50)->freed_pages));
}
END_TEST

/* Pages freed inside a migration (compaction) are counted as moved; outside, not. */
START_TEST(test_migration_counted)
{
	struct mt_event ev;
	uint32_t i;

	for (i = 0; i < 10; i++)
		alloc(10 + i, 100, i, 0);
	memset(&ev, 0, sizeof(ev));
	ev.kind = EV_MIGRATE_START;
	ev.ts = 100;
	ev.tid = 60;	/* kcompactd */
	stats_apply(&S, &ev);
	pfree(101, 60, 0, 0);
	pfree(102, 60, 1, 0);
	pfree(103, 61, 2, 0);	/* another task, not migrating */
	pfree(104, 60, 900, 0);	/* never seen: not a tracked page */
	ev.kind = EV_MIGRATE_END;
	ev.ts = 105;
	stats_apply(&S, &ev);
	pfree(106, 60, 3, 0);
	ck_assert_uint_eq(S.c.migrations, 1);
	ck_assert_uint_eq(S.c.migrated_pages, 2);
	ck_assert_int_eq(task(100)->cur, 6);
	ck_assert_uint_eq(S.nmigrating, 0);
}
END_TEST

START_TEST(test_system_peak)
{
	struct mt_task *a, *b, *c, *sd;

	sd = stats_seed_task(&S, 50, 50, 1, "old", 3, 1000, 1, false);
	alloc(10, 100, 0, 3);			/* A 8 */
	alloc(11, 200, 8, 2);			/* B 4: 12 */
	a = task(100);
	b = task(200);
	ck_assert_int_eq(S.sys_cur, 12);
	ck_assert_int_eq(S.sys_peak, 12);
	ck_assert_uint_eq(S.sys_peak_ts, 11);
	pfree(12, 200, 8, 2);			/* 8 */
	alloc(13, 100, 16, 1);			/* 10: not a new peak */
	ck_assert_int_eq(S.sys_peak, 12);
	ck_assert_int_eq(stats_sys_pages_at_peak(&S, a), 8);
	ck_assert_int_eq(stats_sys_pages_at_peak(&S, b), 4);
	ck_assert_int_eq(stats_sys_pages_at_peak(&S, sd), 0);	/* its seed is before the start */
	alloc(14, 50, 32, 0);			/* the seeded one allocates: 11 */
	ck_assert_int_eq(stats_sys_pages_at_peak(&S, sd), 0);
	alloc(15, 300, 40, 2);			/* C, new: 15, a new peak */
	c = task(300);
	ck_assert_int_eq(S.sys_peak, 15);
	ck_assert_uint_eq(S.sys_peak_ts, 15);
	ck_assert_int_eq(stats_sys_pages_at_peak(&S, a), 10);
	ck_assert_int_eq(stats_sys_pages_at_peak(&S, b), 0);
	ck_assert_int_eq(stats_sys_pages_at_peak(&S, c), 4);
	ck_assert_int_eq(stats_sys_pages_at_peak(&S, sd), 1);
	/* what happens after the peak does not change what they held at it */
	pfree(16, 100, 0, 3);
	exit_ev(17, 100);
	alloc(18, 400, 48, 1);			/* D comes after the peak */
	ck_assert_int_eq(stats_sys_pages_at_peak(&S, a), 10);
	ck_assert_int_eq(stats_sys_pages_at_peak(&S, task(400)), 0);
	ck_assert_int_eq(S.sys_cur, 9);
	/* untracked frees (seeded pages) leave the system's count alone */
	pfree(19, 50, 2000, 4);
	ck_assert_int_eq(S.sys_cur, 9);
	ck_assert_int_eq(a->peak, 10);
}
END_TEST

static void file_ev(enum mt_kind kind, uint64_t pfn, uint32_t order, uint64_t dev)
{
	struct mt_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.kind = kind;
	ev.ts = 1;
	ev.tid = 5;
	ev.u.file.pfn = pfn;
	ev.u.file.order = order;
	ev.u.file.dev = dev;
	stats_apply(&S, &ev);
}

/* crashkernel=: tracked pages into the page cache, of a block device's file or a memory one */
START_TEST(test_page_cache_classes)
{
	struct stats_config cfg = { .max_tasks = 8, .max_modules = 2, .max_pfn = MAX_PFN,
				    .classes = true };
	const uint64_t sda1 = (8ull << 20) | 1;	/* the kernel's dev_t: major << 20 | minor */

	stats_free(&S);
	ck_assert_int_eq(stats_init(&S, &cfg), 0);
	alloc(1, 5, 16, 2);				/* pfn 16..19 */
	file_ev(EV_FILE_ADD, 16, 0, sda1);
	file_ev(EV_FILE_ADD, 17, 0, 0);			/* major 0: tmpfs, ramfs */
	file_ev(EV_FILE_ADD, 16, 0, sda1);		/* again: counted once */
	file_ev(EV_FILE_ADD, 100, 0, sda1);		/* not a tracked page */
	file_ev(EV_FILE_ADD, MAX_PFN - 1, 3, sda1);	/* past the map: skipped */
	ck_assert_int_eq(S.file_blk_cur, 1);
	ck_assert_int_eq(S.file_mem_cur, 1);
	/* they were not page cache at the peak (4 pages), they are at the next one */
	ck_assert_int_eq(S.sys_peak, 4);
	ck_assert_int_eq(S.file_blk_at_peak, 0);
	alloc(2, 5, 32, 0);
	ck_assert_int_eq(S.sys_peak, 5);
	ck_assert_int_eq(S.file_blk_at_peak, 1);
	ck_assert_int_eq(S.file_mem_at_peak, 1);
	/* a large folio: order 1 at 18..19 */
	file_ev(EV_FILE_ADD, 18, 1, sda1);
	ck_assert_int_eq(S.file_blk_cur, 3);
	/* out of the page cache, or freed: counted down; the peak's split stays */
	file_ev(EV_FILE_DEL, 16, 0, sda1);
	ck_assert_int_eq(S.file_blk_cur, 2);
	pfree(3, 5, 17, 0);
	ck_assert_int_eq(S.file_mem_cur, 0);
	pfree(4, 5, 18, 1);
	ck_assert_int_eq(S.file_blk_cur, 0);
	ck_assert_int_eq(S.file_blk_at_peak, 1);
	/* a page freed and taken again is not page cache until it is added */
	alloc(5, 5, 17, 0);
	ck_assert_int_eq(S.file_mem_cur, 0);
	file_ev(EV_FILE_ADD, 17, 0, 0);
	ck_assert_int_eq(S.file_mem_cur, 1);
	/* the level restarts: no page held, no page cache, no peak */
	stats_restart_level(&S);
	ck_assert_int_eq(S.sys_cur, 0);
	ck_assert_int_eq(S.sys_peak, 0);
	ck_assert_int_eq(S.file_mem_cur + S.file_blk_cur + S.file_mem_at_peak + S.file_blk_at_peak, 0);
	pfree(6, 5, 17, 0);				/* no page of the map any more */
	ck_assert_int_eq(S.sys_cur, 0);
	ck_assert_int_eq(S.file_mem_cur, 0);
}
END_TEST

/* without classes (the default) filemap events change nothing */
START_TEST(test_page_cache_off)
{
	alloc(1, 5, 16, 0);
	file_ev(EV_FILE_ADD, 16, 0, 8ull << 20);
	ck_assert_int_eq(S.file_blk_cur, 0);
	ck_assert_int_eq(S.sys_cur, 1);
}
END_TEST

Suite *suite_stats(void)
{
	Suite *s = suite_create("stats");
	TCase *tc = tcase_create("pages");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_order_and_peak);
	tcase_add_test(tc, test_page_cache_classes);
	tcase_add_test(tc, test_page_cache_off);
	tcase_add_test(tc, test_bad_order_skipped);
	tcase_add_test(tc, test_failed_alloc);
	tcase_add_test(tc, test_self_allocs_skipped);
	tcase_add_test(tc, test_free_credits_owner);
	tcase_add_test(tc, test_untracked_free);
	tcase_add_test(tc, test_partial_and_oversized_free);
	tcase_add_test(tc, test_double_alloc);
	tcase_add_test(tc, test_irq_context);
	tcase_add_test(tc, test_seeded_task);
	tcase_add_test(tc, test_seed_freed_after_peak);
	tcase_add_test(tc, test_pfn_out_of_range);
	tcase_add_test(tc, test_no_map_all_out_of_range);
	suite_add_tcase(s, tc);

	tc = tcase_create("tasks");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_newtask_and_fork);
	tcase_add_test(tc, test_exec_comm);
	tcase_add_test(tc, test_exec_with_rename_events);
	tcase_add_test(tc, test_exit);
	tcase_add_test(tc, test_tid_reuse);
	tcase_add_test(tc, test_last_task_cache);
	tcase_add_test(tc, test_oom_victim);
	tcase_add_test(tc, test_oom_stops_the_batch);
	tcase_add_test(tc, test_apply_run_stops_at_the_kill);
	tcase_add_test(tc, test_fast_as_apply);
	suite_add_tcase(s, tc);

	tc = tcase_create("table");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_recycle_smallest_peak);
	tcase_add_test(tc, test_recycle_order_large_table);
	tcase_add_test(tc, test_recycled_frees);
	tcase_add_test(tc, test_overflow);
	tcase_add_test(tc, test_many_short_tasks);
	tcase_set_timeout(tc, 20);
	suite_add_tcase(s, tc);

	tc = tcase_create("process");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_process_threads_summed);
	tcase_add_test(tc, test_process_of_recycled_leader);
	tcase_add_test(tc, test_link_threads);
	tcase_add_test(tc, test_recycle_keeps_large_process_peak);
	suite_add_tcase(s, tc);

	tc = tcase_create("tree");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_tree_root);
	tcase_add_test(tc, test_tree_root_table_full);
	tcase_add_test(tc, test_tree_children_in_turn);
	tcase_add_test(tc, test_tree_children_at_once);
	tcase_add_test(tc, test_tree_pages_at_peak_after_changes);
	tcase_add_test(tc, test_tree_descendants_and_threads);
	tcase_add_test(tc, test_tree_frees_and_irq);
	tcase_add_test(tc, test_tree_exited_with_pages_kept);
	tcase_add_test(tc, test_tree_victim_gains_pages_kept);
	tcase_add_test(tc, test_tree_root_reused_pid);
	tcase_add_test(tc, test_exec_by_thread);
	tcase_add_test(tc, test_newtask_replaces_stale);
	tcase_add_test(tc, test_tree_join_counts_earlier_pages);
	tcase_add_test(tc, test_tree_model);
	suite_add_tcase(s, tc);

	tc = tcase_create("accuracy");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_seed_churn);
	tcase_add_test(tc, test_fork_older_than_seed);
	tcase_add_test(tc, test_recycle_keeps_pages_of_live_process);
	tcase_add_test(tc, test_tree_overflow_slot);
	tcase_add_test(tc, test_serial_wrap);
	tcase_add_test(tc, test_system_peak);
	tcase_add_test(tc, test_thp_collapse_follows);
	tcase_add_test(tc, test_thp_collapse_failed_or_own);
	tcase_add_test(tc, test_thp_collapse_after_swapin);
	tcase_add_test(tc, test_migration_counted);
	suite_add_tcase(s, tc);

	tc = tcase_create("exits");
	tcase_add_checked_fixture(tc, ring_setup, teardown);
	tcase_add_test(tc, test_exit_ring_processes);
	tcase_add_test(tc, test_exit_ring_full_fifo);
	suite_add_tcase(s, tc);
	tc = tcase_create("exits_off");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_exit_ring_off);
	suite_add_tcase(s, tc);
	return s;
}
