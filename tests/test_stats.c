// SPDX-License-Identifier: GPL-2.0-only
/* test_stats.c - per-task accounting: pfn ownership, peaks, seeds, task table and recycling */
#include <stdint.h>
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
	struct mt_task *irq = &S.tasks[SLOT_IRQ];

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
	/* the skipped block was never mapped: its free is untracked */
	pfree(1002, 300, 10, 2);
	ck_assert_int_eq(t->cur, 53);
	ck_assert_uint_eq(S.c.untracked_free_pages, 4);
	pfree(1003, 300, 22, 1);
	ck_assert_int_eq(t->cur, 51);

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
	ck_assert_uint_eq(S.c.tasks_seen, 7);
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
	/* a non-leader thread that execs takes over the leader's pid */
	newtask(40, 600, 601, MT_CLONE_THREAD, "true");
	exec_ev(50, 601, 602, "/bin/ls");
	ck_assert_int_eq(task(601)->tgid, 601);
	assert_comm(task(601), "ls");
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
	ck_assert_uint_eq(S.c.tasks_seen, 3);	/* 800, 1, 800 again */
	ck_assert_uint_eq(S.c.tasks_recycled, 0);
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
	ck_assert_uint_eq(S.c.tasks_seen, 4);

	alloc(30, 14, 100, 0);		/* full: 11 (peak 2) goes, not 13 (alive) */
	ck_assert_ptr_null(stats_find_task(&S, 11));
	ck_assert_int_eq(task(10)->peak, 5);
	ck_assert_int_eq(task(12)->peak, 7);
	ck_assert_int_eq(task(13)->peak, 1);
	t = task(14);
	ck_assert_int_eq(t->cur, 1);
	ck_assert_uint_eq(t->gen, 1);
	ck_assert_uint_eq(S.c.tasks_recycled, 1);
	ck_assert_int_eq(S.c.recycled_max_peak, 2);

	alloc(40, 15, 101, 0);		/* next: 10 (peak 5) */
	ck_assert_ptr_null(stats_find_task(&S, 10));
	ck_assert_int_eq(task(12)->peak, 7);
	ck_assert_uint_eq(S.c.tasks_recycled, 2);
	ck_assert_int_eq(S.c.recycled_max_peak, 5);

	exit_ev(50, 13);
	alloc(60, 16, 102, 0);		/* 13 (peak 1) before 12 (peak 7) */
	ck_assert_ptr_null(stats_find_task(&S, 13));
	ck_assert_int_eq(task(12)->peak, 7);
	ck_assert_int_eq(S.c.recycled_max_peak, 5);
	ck_assert_uint_eq(S.c.tasks_seen, 7);
	ck_assert_uint_eq(S.c.tasks_recycled, 3);
}
END_TEST

/* 62 exited tasks, peaks a permutation of 1..62: recycled strictly by increasing peak. */
START_TEST(test_recycle_order_large_table)
{
	uint64_t pfn = 0;
	int i, k, n = 62;

	for (i = 0; i < n; i++) {
		int peak = (i * 37) % n + 1;

		for (k = 0; k < peak; k++)
			alloc((uint64_t)i, 1000 + i, pfn++, 0);
		exit_ev(100 + (uint64_t)i, 1000 + i);
	}
	ck_assert_uint_eq(S.ntasks_used, 64);
	for (k = 1; k <= 12; k++) {
		/* the task whose peak is k: (i*37) % 62 == k-1; 37^-1 mod 62 = 57 */
		int victim = (int)(((k - 1) * 57) % n);

		ck_assert_int_eq(task(1000 + victim)->peak, k);
		alloc(1000 + (uint64_t)k, 5000 + k, pfn++, 0);
		ck_assert_msg(stats_find_task(&S, 1000 + victim) == NULL,
			      "recycle %d: task with peak %d should have gone", k, k);
		ck_assert_int_eq(S.c.recycled_max_peak, k);
	}
	ck_assert_uint_eq(S.c.tasks_recycled, 12);
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
	ck_assert_uint_eq(S.c.tasks_recycled, 1);
	ck_assert_int_eq(S.c.recycled_max_peak, 3);

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
	ov = &S.tasks[SLOT_OVERFLOW];
	ck_assert_mem_eq(ov->comm, "<overflow>", 10);
	alloc(10, 10, 1, 0);
	alloc(11, 11, 2, 0);
	alloc(12, 12, 4, 1);			/* no exited task: <overflow> */
	ck_assert_ptr_null(stats_find_task(&S, 12));
	ck_assert_int_eq(ov->cur, 2);
	ck_assert_uint_eq(S.c.task_overflow_events, 1);
	ck_assert_uint_eq(S.c.task_overflow_pages, 2);
	alloc(13, 12, 6, 0);
	ck_assert_int_eq(ov->cur, 3);
	ck_assert_int_eq(ov->peak, 3);
	ck_assert_uint_eq(S.c.task_overflow_events, 2);
	ck_assert_uint_eq(S.c.task_overflow_pages, 3);
	ck_assert_int_eq(task(10)->cur, 1);
	ck_assert_int_eq(task(11)->cur, 1);
	/* a new task without a slot */
	newtask(14, 10, 13, 0x1200000, "x");
	ck_assert_ptr_null(stats_find_task(&S, 13));
	ck_assert_uint_eq(S.c.task_overflow_events, 3);
	/* freeing overflow pages credits <overflow> */
	pfree(15, 11, 4, 1);
	ck_assert_int_eq(ov->cur, 1);
	ck_assert_int_eq(task(11)->cur, 1);
	/* once a task exits, 12 gets a slot of its own */
	exit_ev(16, 10);
	alloc(17, 12, 8, 0);
	ck_assert_int_eq(task(12)->cur, 1);
	ck_assert_int_eq(ov->cur, 1);
	ck_assert_uint_eq(S.c.task_overflow_events, 3);
	ck_assert_uint_eq(S.c.task_overflow_pages, 3);
	ck_assert_uint_eq(S.c.tasks_recycled, 1);
	ck_assert_uint_eq(S.c.tasks_seen, 3);
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
	/* init + n children; 62 slots, init keeps one, so all but 61 children were dropped */
	ck_assert_uint_eq(S.c.tasks_seen, (uint64_t)n + 1);
	ck_assert_uint_eq(S.c.tasks_recycled, (uint64_t)n + 1 - 62);
	ck_assert_int_eq(S.c.recycled_max_peak, 3);
	ck_assert_uint_eq(S.c.events[EV_PAGE_ALLOC], 2 * (uint64_t)n);
	ck_assert_uint_eq(S.c.events[EV_PAGE_FREE], 2 * (uint64_t)n);
	ck_assert_uint_eq(S.c.events[EV_NEWTASK], (uint64_t)n);
	ck_assert_uint_eq(S.c.events[EV_EXIT], (uint64_t)n);
	ck_assert_uint_eq(S.c.untracked_frees, 0);
	ck_assert_uint_eq(S.c.recycled_frees, 0);
	ck_assert_uint_eq(S.c.double_allocs, 0);
	ck_assert_uint_eq(S.c.task_overflow_events, 0);
	ck_assert_ptr_eq(task(1), parent);
	ck_assert_int_eq(parent->cur, 0);
	ck_assert_uint_eq(parent->freed_pages, 0);
	/* the last child is still in the table with its own numbers */
	ck_assert_int_eq(task(1000 + n - 1)->peak, 3);
	ck_assert_int_eq(task(1000 + n - 1)->cur, 0);
	ck_assert_int_eq(task(1000 + n - 1)->state, TASK_EXITED);
	ck_assert_ptr_null(stats_find_task(&S, 1000));
	ck_assert_uint_eq(S.ntasks_used, 64);
}
END_TEST

Suite *suite_stats(void)
{
	Suite *s = suite_create("stats");
	TCase *tc = tcase_create("pages");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_order_and_peak);
	tcase_add_test(tc, test_bad_order_skipped);
	tcase_add_test(tc, test_failed_alloc);
	tcase_add_test(tc, test_free_credits_owner);
	tcase_add_test(tc, test_untracked_free);
	tcase_add_test(tc, test_partial_and_oversized_free);
	tcase_add_test(tc, test_double_alloc);
	tcase_add_test(tc, test_irq_context);
	tcase_add_test(tc, test_seeded_task);
	tcase_add_test(tc, test_pfn_out_of_range);
	suite_add_tcase(s, tc);

	tc = tcase_create("tasks");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_newtask_and_fork);
	tcase_add_test(tc, test_exec_comm);
	tcase_add_test(tc, test_exec_with_rename_events);
	tcase_add_test(tc, test_exit);
	tcase_add_test(tc, test_tid_reuse);
	tcase_add_test(tc, test_oom_victim);
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
	return s;
}
