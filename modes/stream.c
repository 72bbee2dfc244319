// SPDX-License-Identifier: GPL-2.0-only
/* modes/stream.c - --stream: the memory events of the processes picked, as JSON lines */
#include "modes/stream.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "run/child.h"
#include "run/daemonize.h"
#include "stream/jsonl.h"
#include "run/loop.h"
#include "stream/mempair.h"
#include "lib/out.h"
#include "stream/outq.h"
#include "stream/procinfo.h"
#include "output/reportto.h"
#include "run/setup.h"
#include "stream/streamproc.h"
#include "tracefs.h"
#include "lib/util.h"

#define BATCH		2048		/* events per read batch: their lines fit in half the queue */
#define BATCH_BYTES	(BATCH * 512)	/* what a batch's lines take, about (a line is ~450 bytes) */
#define PROCS		1024		/* picked processes described at once */
#define CONTAINERS	64		/* containers described at once */
#define PAIR_THREADS	4096		/* threads inside a memory syscall at once */
#define LOST_ROOM	512		/* kept free for a memtrace.lost line */
#define DRAIN_MS	1000		/* at the end, a slow reader gets this long */
#define RETRY_LINES	64		/* a file that failed is tried again every so many lines */
#define LOSS_POLL_NS	1000000000ull	/* the kernel's loss counters, read every second */
#define FACTS		1024		/* processes' facts taken at their fork or exec, kept at once */

/* ------------------------------------------------------------ output -- */

/*
 * Once lines were dropped, the memtrace.lost line saying how many, as soon as
 * it and @need more bytes fit; false while they do not.
 */
static bool lost_line(struct stream *s, uint64_t ts, size_t need)
{
	char *p;

	if (s->lost_queue == s->lost_queue_shown)
		return true;
	if (s->q.failing)
		return false;	/* said once the file takes lines again */
	p = outq_reserve(&s->q, LOST_ROOM + need);
	if (!p && !outq_flush(&s->q))
		p = outq_reserve(&s->q, LOST_ROOM + need);
	if (!p)
		return false;
	outq_commit(&s->q, jl_lost_line(p, LOST_ROOM, &s->clk, ts,
					s->lost_queue - s->lost_queue_shown, "queue", s->lost_queue,
					s->src, s->src_len));
	s->lost_queue_shown = s->lost_queue;
	s->meta_lines++;
	return true;
}

/* Lines a file's write errors cost: dropped from the queue, or not made while it failed. */
static uint64_t output_lost(const struct stream *s)
{
	return s->q.error_lines + s->lost_error;
}

/*
 * A file that does not take the lines (a full disk): said on stderr when it
 * starts and when it ends. While it fails no line is made (counted); the
 * lost line with source "output", written alone, tries it again.
 */
static void output_state(struct stream *s, uint64_t ts)
{
	struct outq *q = &s->q;
	const char *name = q->path ? q->path : "stdout";
	uint64_t lost = output_lost(s);
	char line[LOST_ROOM];

	if (q->mode != OQ_FILE)
		return;
	if (lost != s->lost_output_shown && !outq_pending(q) &&
	    outq_write_now(q, line, jl_lost_line(line, sizeof(line), &s->clk, ts,
						 lost - s->lost_output_shown, "output", lost,
						 s->src, s->src_len))) {
		s->lost_output_shown = lost;
		s->meta_lines++;
	}
	if (q->failing && !s->said_failing)
		mt_warn("writing the lines to %s: %s (lines are dropped and counted until it "
			"takes them again; still tracing)", name, strerror(-q->werr));
	else if (!q->failing && s->said_failing)
		mt_warn("%s: lines written again (%llu dropped so far)", name,
			(unsigned long long)lost);
	s->said_failing = q->failing;
}

/*
 * Room for a line of @n bytes, or NULL: the line is dropped (counted). A
 * LOST_ROOM always stays free, so that the lost line can be said first.
 */
static char *room(struct stream *s, size_t n, uint64_t ts)
{
	char *p;

	if (s->q.failing && !(s->lost_error % RETRY_LINES))
		output_state(s, ts);	/* the file tried again now and then */
	if (s->q.err || s->q.failing) {
		s->lost_error++;	/* the output failed: counted, never written */
		return NULL;
	}
	if (!lost_line(s, ts, n + LOST_ROOM)) {
		s->lost_queue++;
		return NULL;
	}
	p = outq_reserve(&s->q, n + LOST_ROOM);
	if (!p && !outq_flush(&s->q))
		p = outq_reserve(&s->q, n + LOST_ROOM);
	if (!p)
		s->lost_queue++;
	return p;
}

static void emit_event(struct stream *s, const struct jl_event *e, const struct st_proc *sp)
{
	char *p = room(s, JL_LINE_MAX, e->ts);
	size_t n;

	if (!p)
		return;
	n = jl_event_line(p, JL_LINE_MAX, &s->clk, e, sp->frag, sp->frag_len, s->src, s->src_len);
	if (!n) {
		s->lost_error++;	/* cannot happen: every part is bounded */
		return;
	}
	outq_commit(&s->q, n);
	s->lines++;
}

/* Kernel-side losses since the last look, in-band. */
static void kernel_lost(struct run *r, struct stream *s, uint64_t ts)
{
	uint64_t lost = reader_lost(&r->rd);
	char *p;

	if (lost <= s->lost_kernel_shown || s->q.failing || !(p = room(s, LOST_ROOM, ts)))
		return;
	outq_commit(&s->q, jl_lost_line(p, LOST_ROOM, &s->clk, ts,
					lost - s->lost_kernel_shown, "kernel", lost, s->src,
					s->src_len));
	s->lost_kernel_shown = lost;
	s->meta_lines++;
}

/* -------------------------------------------------------------- events -- */

static void count(struct st_proc *sp, enum jl_evt e, uint64_t bytes)
{
	sp->count[e]++;
	sp->bytes[e] += bytes;
	sp->active = true;
}

/* A line (or, with --interval, a count) for one event of a picked process. */
static void event(struct stream *s, struct st_proc *sp, struct jl_event *e)
{
	if (!(s->events & (1u << e->evt)))
		return;
	e->pid = sp->pid;
	count(sp, e->evt, e->size);
	if (!s->interval_ns)
		emit_event(s, e, sp);
}

static bool mapped_failed(int64_t ret)
{
	return ret < 0 && ret >= -4095;
}

/* A memory syscall's exit, with its entry: memoryMap or memoryUnmap. */
static void syscall_line(struct stream *s, struct st_proc *sp, const struct mt_event *ev,
			 const struct mp_entry *in)
{
	struct jl_event e = { 0 };
	int64_t ret = ev->u.memsys.ret;

	e.ts = ev->ts;
	e.tid = ev->tid;
	e.call = in->call;
	e.result = ret;
	e.latency_ns = ev->ts >= in->ts ? ev->ts - in->ts : 0;
	switch (in->call) {
	case CALL_MMAP:
		e.evt = JL_MAP;
		e.failed = mapped_failed(ret);
		e.size = in->arg[MMAP_LEN];
		e.address = e.failed ? in->arg[MMAP_ADDR] : (uint64_t)ret;
		e.prot = in->arg[MMAP_PROT];
		e.flags = in->arg[MMAP_FLAGS];
		e.fd = (int32_t)in->arg[MMAP_FD];
		e.offset = in->arg[MMAP_OFF];
		break;
	case CALL_MUNMAP:
		e.evt = JL_UNMAP;
		e.failed = ret != 0;
		e.address = in->arg[MUNMAP_ADDR];
		e.size = in->arg[MUNMAP_LEN];
		break;
	case CALL_MREMAP:
		e.failed = mapped_failed(ret);
		e.evt = in->arg[MREMAP_NEW_LEN] >= in->arg[MREMAP_OLD_LEN] ? JL_MAP : JL_UNMAP;
		e.size = e.evt == JL_MAP ? in->arg[MREMAP_NEW_LEN] - in->arg[MREMAP_OLD_LEN]
					 : in->arg[MREMAP_OLD_LEN] - in->arg[MREMAP_NEW_LEN];
		e.address = e.failed ? in->arg[MREMAP_ADDR] : (uint64_t)ret;
		e.old_address = in->arg[MREMAP_ADDR];
		e.old_size = in->arg[MREMAP_OLD_LEN];
		e.new_size = in->arg[MREMAP_NEW_LEN];
		e.flags = in->arg[MREMAP_FLAGS];
		break;
	case CALL_BRK:
		/* brk(0) asks; the first answer only tells where the heap is */
		if (!in->arg[BRK_BRK] || !sp->brk) {
			sp->brk = (uint64_t)ret;
			return;
		}
		e.failed = (uint64_t)ret != in->arg[BRK_BRK];
		e.evt = in->arg[BRK_BRK] >= sp->brk ? JL_MAP : JL_UNMAP;
		e.size = e.evt == JL_MAP ? in->arg[BRK_BRK] - sp->brk : sp->brk - in->arg[BRK_BRK];
		e.address = e.evt == JL_MAP ? sp->brk : in->arg[BRK_BRK];
		if (!e.failed)
			sp->brk = (uint64_t)ret;
		if (!e.size)
			return;
		break;
	default:
		return;
	}
	if (e.failed) {
		/* off by default: a consumer adding up sizes must not count what was not mapped */
		if (!(s->events & MT_EVT_FAILED))
			return;
		e.requested_size = e.size;
		e.size = 0;
		/* brk fails by returning the old break, without an errno: the kernel's is ENOMEM */
		e.err = in->call == CALL_BRK ? ENOMEM : (int32_t)-ret;
	}
	event(s, sp, &e);
}

/* The reader's sink: the accounting first, then the lines of the processes picked. */
static void stream_sink(void *ctx, const struct mt_event *ev)
{
	struct run *r = ctx;
	struct stream *s = r->mode;
	struct jl_event e = { 0 };
	struct mt_task *owner = NULL;
	struct st_proc *sp;
	struct mp_entry in;

	if (ev->kind == EV_PAGE_FREE && (s->events & MT_EVT_FREE) && !mt_event_in_irq(ev))
		owner = stats_page_owner(&r->st, ev->u.page.pfn);
	if (owner) {
		e.owner_tid = owner->tid;
		e.owner_pid = stats_process_of(&r->st, owner)->tgid;
		if (!e.owner_pid)
			e.owner_pid = owner->tid;
	}
	stats_apply(&r->st, ev);
	e.ts = ev->ts;
	e.tid = ev->tid;
	switch (ev->kind) {
	case EV_PAGE_ALLOC:
	case EV_PAGE_FREE:
		if (ev->u.page.pfn == UINT64_MAX || ev->u.page.order > MAX_ORDER_SEEN ||
		    mt_event_in_irq(ev) || !(sp = stream_picked(r, s, ev->tid, ev->ts)))
			return;
		e.evt = ev->kind == EV_PAGE_ALLOC ? JL_ALLOC : JL_FREE;
		e.order = ev->u.page.order;
		e.pfn = ev->u.page.pfn;
		e.size = jl_page_bytes(s->page_size, e.order);
		event(s, sp, &e);
		break;
	case EV_FAULT:
		if (!(sp = stream_picked(r, s, ev->tid, ev->ts)))
			return;
		e.evt = JL_FAULT;
		e.size = jl_page_bytes(s->page_size, 0);
		e.address = ev->u.fault.address;
		e.ip = ev->u.fault.ip;
		e.error_code = ev->u.fault.error_code;
		event(s, sp, &e);
		break;
	case EV_MEMSYS_ENTER:
		stream_resume_facts(r, s, ev->tid);
		if (stream_picked(r, s, ev->tid, ev->ts))
			mempair_enter(&s->pair, ev->tid, ev->u.memsys.call, ev->ts, ev->u.memsys.arg);
		break;
	case EV_MEMSYS_EXIT:
		stream_resume_facts(r, s, ev->tid);
		if ((sp = stream_picked(r, s, ev->tid, ev->ts)) &&
		    mempair_exit(&s->pair, ev->tid, ev->u.memsys.call, &in))
			syscall_line(s, sp, ev, &in);
		break;
	case EV_FORK:
		/* a new process: its parent's program until its exec */
		if ((owner = stats_find_task(&r->st, ev->u.fork.child)) &&
		    !(owner->flags & TF_PSEUDO) && stats_process_of(&r->st, owner) == owner)
			stream_slot_of(r, s, owner)->pre_exec = true;
		stream_fork_facts(r, s, ev);
		break;
	case EV_EXEC:
		if ((owner = stats_find_task(&r->st, ev->u.exec.pid)) && !(owner->flags & TF_PSEUDO))
			stream_slot_of(r, s, stats_process_of(&r->st, owner))->pre_exec = false;
		stream_changed(r, s, ev->u.exec.pid);
		stream_exec_facts(r, s, ev);
		break;
	case EV_RENAME:
		stream_changed(r, s, ev->u.rename.pid);
		stream_rename_facts(r, s, ev);
		break;
	case EV_EXIT:
		stream_exited(r, s, ev);
		break;
	default:
		break;
	}
}

/* ---------------------------------------------------------- summaries -- */

static void summaries(struct run *r, uint64_t now, bool last)
{
	struct stream *s = r->mode;
	struct jl_summary sm;
	uint32_t i;

	for (i = 0; i < s->nprocs; i++) {
		struct st_proc *sp = &s->procs[i];
		const struct mt_task *p;
		char *d;

		if (!sp->leader_serial || sp->final_done || (!sp->active && stream_ended(r, sp) && !last))
			continue;
		p = stats_task_by_serial(&r->st, sp->leader_serial);
		if (p) {
			sp->cur = p->pcur;
			sp->peak = p->ppeak;
		}
		memset(&sm, 0, sizeof(sm));
		sm.ts = now;
		sm.pid = sp->pid;
		sm.interval_s = r->opt.interval_s;
		sm.cur_pages = sp->cur;
		sm.peak_pages = sp->peak;
		sm.page_size = s->page_size;
		sm.exited = sp->exited;
		memcpy(sm.count, sp->count, sizeof(sm.count));
		memcpy(sm.bytes, sp->bytes, sizeof(sm.bytes));
		d = room(s, JL_LINE_MAX, now);
		if (d) {
			outq_commit(&s->q, jl_summary_line(d, JL_LINE_MAX, &s->clk, &sm, sp->frag,
							   sp->frag_len, s->src, s->src_len));
			s->lines++;
		}
		memset(sp->count, 0, sizeof(sp->count));
		memset(sp->bytes, 0, sizeof(sp->bytes));
		sp->active = false;
		if (sp->exited)
			sp->final_done = true;
	}
}

/* ------------------------------------------------ the kernel's filters -- */

#define MAX_PIDS	4096		/* tasks in a kernel pid filter */

/* The events that come in storms: what the kernel's filters are worth setting on. */
static const char *const hot_events[][2] = {
	{ "kmem", "mm_page_alloc" }, { "kmem", "mm_page_free" },
	{ "exceptions", "page_fault_user" },
	{ "syscalls", "sys_enter_mmap" }, { "syscalls", "sys_exit_mmap" },
	{ "syscalls", "sys_enter_munmap" }, { "syscalls", "sys_exit_munmap" },
	{ "syscalls", "sys_enter_brk" }, { "syscalls", "sys_exit_brk" },
	{ "syscalls", "sys_enter_mremap" }, { "syscalls", "sys_exit_mremap" },
};

/* The tasks of process @pid (its threads) into @out; how many were added. */
static int tasks_of(int32_t pid, int32_t *out, int room)
{
	char dir[64];
	struct dirent *de;
	int n = 0, e = 0;
	DIR *d;

	snprintf(dir, sizeof(dir), "/proc/%d/task", (int)pid);
	d = opendir(dir);
	if (!d) {
		if (room > 0)
			out[n++] = pid;	/* not there (yet): its pid, for when it is */
		return n;
	}
	while (n < room && (e = dir_next(d, &de)) > 0) {
		long v = strtol(de->d_name, NULL, 10);

		if (v > 0 && v <= INT32_MAX)
			out[n++] = (int32_t)v;
	}
	if (e < 0)
		mt_warn("warning: %s: %s: some of its threads may not be traced", dir, strerror(-e));
	closedir(d);
	return n;
}

/*
 * kfilter_set() - only tasks that can be picked make events the kernel keeps:
 * the process.name terms of @c become a comm filter on the storm events; the
 * @nroots processes @roots (process.pid terms, or the command's tree) the
 * instance's pid list, with their threads (children follow at fork). The rest
 * is decided once per task, by the stream. Nothing at the top level (not ours
 * to change): said.
 */
static void kfilter_set(struct run *r, const struct cond *c, const int32_t *roots, int nroots)
{
	static int32_t pids[MAX_PIDS];
	static char filter[4096];
	size_t i;
	int n = 0, k, e;
	char name[96];

	if (r->tf.top_level) {
		mt_warn("warning: tracing at the top level: no kernel filters set (not ours to "
			"change); every event is read and decided here");
		return;
	}
	if (cond_comm_filter(c, filter, sizeof(filter))) {
		for (i = 0; i < ARRAY_SIZE(hot_events); i++) {
			snprintf(name, sizeof(name), "%s:%s", hot_events[i][0], hot_events[i][1]);
			if (!setup_have_event(r, name))
				continue;
			e = tracefs_set_filter(&r->tf, hot_events[i][0], hot_events[i][1], filter);
			if (e)
				mt_warn("warning: %s: filter '%s' not taken (%s): decided here instead",
					name, filter, strerror(-e));
		}
	}
	for (k = 0; k < nroots; k++)
		n += tasks_of(roots[k], pids + n, MAX_PIDS - n);
	if (n) {
		e = tracefs_set_event_pids(&r->tf, pids, n, true);
		if (e)
			mt_warn("warning: set_event_pid not taken (%s): every task's events are read",
				strerror(-e));
	}
}

/* ----------------------------------------------------------- the mode -- */

/*
 * A process.name or thread.name value that can never match: longer than the
 * kernel keeps of a name (15 bytes), even with its '*'s matching nothing.
 * Said at start, named; the condition stays as given.
 */
static void warn_long_names(const struct cond *c)
{
	uint32_t i, stars, k;

	for (i = 0; i < c->nn; i++) {
		const struct cond_node *n = &c->n[i];

		if (n->op != CN_TERM || (n->key != CK_NAME && n->key != CK_TNAME))
			continue;
		for (stars = 0, k = 0; k < n->len; k++)
			stars += c->text[n->val + k] == '*';
		if (n->len - stars > PI_COMM - 1)
			mt_warn("warning: %s:%.*s can never match: a name is at most %d bytes "
				"(the kernel's comm), this one %u", cond_key_name((enum cond_key)n->key),
				(int)n->len, c->text + n->val, PI_COMM - 1, n->len - stars);
	}
}

static int stream_prepare(struct run *r)
{
	char err[PATH_MAX + 128];
	struct stream *s;
	int i, code;

	s = r->mode;
	s->up = true;
	cond_init(&s->cond);
	for (i = 0; i < r->opt.nconds; i++)
		if (cond_add(&s->cond, r->opt.conds[i], strlen(r->opt.conds[i]), err, sizeof(err)))
			return mt_fail(EXIT_USAGE, "-c '%s': %s", r->opt.conds[i], err);
	warn_long_names(&s->cond);
	s->all = r->opt.stream_all;
	s->tree = r->opt.command != NULL;
	s->events = r->opt.stream_events;
	s->interval_ns = (uint64_t)r->opt.interval_s * 1000000000ull;
	s->self = (int32_t)getpid();
	if (s->tree) {
		/* only the command's tree counts, and it starts later */
		r->seed = false;
		if (read_file("/proc/self/oom_score_adj", r->cmd.oom_adj,
			      sizeof(r->cmd.oom_adj)) <= 0)
			r->cmd.oom_adj[0] = '\0';
		/* the lines stay clean: the command's own output goes to stderr */
		r->cmd.stdout_to_stderr = !r->opt.stream_path;
	}
	/* the output first: a bad -o FILE changes nothing in tracefs (a new one: made at start) */
	code = outq_open(&s->q, r->opt.stream_path, (size_t)r->opt.queue_kb * 1024, err,
			 sizeof(err));
	if (code)
		return mt_fail(code, "%s", err);
	return 0;
}

static int stream_start(struct run *r)
{
	struct stream *s = r->mode;
	char host[256] = "";
	struct timespec a, b, c;
	int32_t roots[COND_MAX_PIDS];
	char err[PATH_MAX + 128];
	int nroots = 0, code;

	/* a new -o FILE only now that tracing works: a run that cannot trace makes none */
	code = outq_create(&s->q, err, sizeof(err));
	if (code)
		return mt_fail(code, "%s", err);
	s->page_size = r->meta.page_size;	/* setup_tracing()'s, checked there */
	s->ntasks = r->opt.max_tasks;
	s->tasks = calloc(s->ntasks, sizeof(*s->tasks));
	s->nprocs = PROCS;
	s->procs = calloc(s->nprocs, sizeof(*s->procs));
	s->nfacts = FACTS;
	s->facts = calloc(s->nfacts, sizeof(*s->facts));
	if (!s->tasks || !s->procs || !s->facts || mempair_init(&s->pair, PAIR_THREADS) ||
	    pi_init(&s->pi, r->proc_root ? r->proc_root : "/proc", TEST_HOOK(r, runtime_root), CONTAINERS))
		return mt_fail(EXIT_RUNTIME, "out of memory");
	/* the trace clock is CLOCK_MONOTONIC: one pair of readings maps it to UTC */
	clock_gettime(CLOCK_MONOTONIC, &a);
	clock_gettime(CLOCK_REALTIME, &b);
	clock_gettime(CLOCK_MONOTONIC, &c);
	jl_clock_init(&s->clk, ((uint64_t)a.tv_sec * 1000000000ull + (uint64_t)a.tv_nsec +
				(uint64_t)c.tv_sec * 1000000000ull + (uint64_t)c.tv_nsec) / 2,
		      (int64_t)b.tv_sec * 1000000000ll + b.tv_nsec);
	if (!r->tf.clock_mono)
		mt_warn("warning: the trace clock is not mono: timestamps are off by the local "
			"clock's drift");
	gethostname(host, sizeof(host) - 1);
	s->src_len = jl_src(s->src, sizeof(s->src), host);
	if (s->tree) {
		code = child_spawn(r);
		if (code)
			return code;
		roots[nroots++] = r->cmd.pid;
		/* rooted at its first event (the kernel's pid filter keeps our fork out) */
		stats_tree_root(&r->st, r->cmd.pid, s->self);
	} else if (!s->all) {
		nroots = cond_pid_set(&s->cond, roots, COND_MAX_PIDS);
		if (nroots < 0)
			nroots = 0;
	}
	if (!s->all)
		kfilter_set(r, &s->cond, roots, nroots);
	code = pidfile_write(r);
	if (code)
		return code;
	setup_banner(r);
	daemonize_detach(r, !r->opt.stream_path);	/* the lines' stdout stays */
	daemonize_ready(r, 0);
	s->next_loss = mono_ns() + LOSS_POLL_NS;
	s->next_summary = mono_ns() + s->interval_ns;
	if (s->tree)
		return child_go(r);
	return 0;
}

static enum loop_next stream_after_batch(struct run *r)
{
	struct stream *s = r->mode;
	uint64_t now = mono_ns();
	int e;

	kernel_lost(r, s, now);
	e = outq_flush(&s->q);
	output_state(s, now);
	if (e == -EPIPE && !s->gone) {
		s->gone = true;
		mt_warn("the output's reader is gone: stopping");
	}
	return s->gone ? LOOP_STOP : LOOP_GO_ON;
}

static int stream_poll_fds(struct run *r, struct pollfd *pfd, int max)
{
	struct stream *s = r->mode;

	if (max < 1 || !outq_wants_pollout(&s->q))
		return 0;
	pfd[0].fd = s->q.fd;
	pfd[0].events = POLLOUT;
	pfd[0].revents = 0;
	return 1;
}

static enum loop_next stream_on_poll(struct run *r, const struct pollfd *pfd, int n)
{
	(void)pfd;
	(void)n;
	return stream_after_batch(r);
}

/* Events wait in the kernel's buffer while the queue has no room for a batch of lines. */
static bool stream_hold(struct run *r)
{
	struct stream *s = r->mode;
	size_t room = s->q.cap - outq_pending(&s->q);

	return !s->q.err && !s->gone && !s->interval_ns &&
	       (room < BATCH_BYTES || room < s->q.cap / 2);
}

static long stream_next_ms(struct run *r)
{
	struct stream *s = r->mode;
	uint64_t now = mono_ns();

	if (!s->interval_ns)
		return -1;
	return s->next_summary > now ? (long)((s->next_summary - now) / 1000000) : 0;
}

static enum loop_next stream_check(struct run *r)
{
	struct stream *s = r->mode;
	uint64_t now = mono_ns();
	int c;

	if (now >= s->next_loss) {
		for (c = 0; c < r->rd.ncpus; c++) {
			uint64_t lost;

			if (r->tf.fds && !tracefs_cpu_lost(&r->tf, c, &lost))
				r->rd.cpus[c].stats_lost = lost;
		}
		s->next_loss = now + LOSS_POLL_NS;
	}
	if (s->interval_ns && now >= s->next_summary) {
		summaries(r, now, false);
		s->next_summary += s->interval_ns;
		if (s->next_summary <= now)
			s->next_summary = now + s->interval_ns;
		outq_flush(&s->q);
		output_state(s, now);
	}
	if (!s->tree)
		return LOOP_GO_ON;
	if (child_reap(r) || r->stop != STOP_NONE)
		return LOOP_STOP;
	return LOOP_GO_ON;
}

static enum loop_next stream_on_signal(struct run *r, int action,
				       const struct signalfd_siginfo *si)
{
	switch (action) {
	case SIGACT_REPORT_MODE:
	case SIGACT_REPORT_COMMAND:
		if (si->ssi_signo == SIGUSR2) {
			report_to(r, REPORT_LOG, "SIGUSR2");
		} else {
			/* on stderr when the lines go to stdout */
			report_to(r, REPORT_FD(r->opt.stream_path ? STDOUT_FILENO : STDERR_FILENO),
				  "SIGUSR1");
		}
		break;
	default:
		child_signal(r, action, si);
		break;
	}
	return LOOP_GO_ON;
}

static void stream_free(struct run *r)
{
	struct stream *s = r->mode;

	if (!s->up)
		return;
	s->up = false;
	outq_close(&s->q);
	pi_free(&s->pi);
	mempair_free(&s->pair);
	free(s->tasks);
	free(s->procs);
	free(s->facts);
}

static void stream_abort(struct run *r)
{
	if (r->opt.command && r->cmd.pid > 0 && !r->cmd.reaped)
		kill(r->cmd.pid, SIGKILL);
	stream_free(r);
}

/* Everything written that a reader takes within DRAIN_MS; the rest counted; one line said. */
static int stream_finish(struct run *r)
{
	struct stream *s = r->mode;
	uint64_t now = mono_ns(), dropped, errs;
	bool failed;
	int code = EXIT_OK;

	if (s->interval_ns)
		summaries(r, now, true);
	kernel_lost(r, s, now);
	lost_line(s, now, 0);
	outq_flush(&s->q);
	output_state(s, now);	/* the lines a full disk cost, if it takes lines again */
	outq_drain(&s->q, DRAIN_MS);
	output_state(s, now);
	dropped = s->q.dropped_lines;	/* queued, and never taken */
	failed = s->q.err && s->q.err != -EPIPE;
	if (failed)
		mt_warn("writing the lines: %s", strerror(-s->q.err));
	/* lost to write errors: a file's, or everything after an error (not EPIPE) that stopped it */
	errs = failed ? dropped + s->lost_error : s->q.mode == OQ_FILE ? output_lost(s) : 0;
	fprintf(stderr, "memtrace: stream: %llu lines written, %llu lost (%llu with the queue "
		"full, %llu not taken by the end or after an error), %llu events lost in the "
		"kernel; %llu process%s picked; %llu left out, decided on unknown facts; %llu "
		"syscalls paired, %llu exits without their entry\n", (unsigned long long)(s->lines + s->meta_lines - dropped),
		(unsigned long long)(s->lost_queue + dropped + s->lost_error),
		(unsigned long long)s->lost_queue, (unsigned long long)(dropped + s->lost_error),
		(unsigned long long)reader_lost(&r->rd),
		(unsigned long long)s->picked_procs, s->picked_procs == 1 ? "" : "es",
		(unsigned long long)s->unsure_procs,
		(unsigned long long)s->pair.paired,
		(unsigned long long)s->pair.no_entry);
	stream_say_unanswered(s);
	if (s->proc_overflow)
		mt_warn("%llu events of picked processes not shown: more than %u at once",
			(unsigned long long)s->proc_overflow, PROCS);
	if (s->tree)
		code = child_exit_code(r);
	if (errs) {
		mt_warn("error: %llu lines dropped: %s could not be written (%s)%s",
			(unsigned long long)errs, s->q.path ? s->q.path : "stdout",
			strerror(-(failed ? s->q.err : s->q.werr)),
			s->q.mode == OQ_FILE ? "; the file holds whole lines only" : "");
		if (code == EXIT_OK)
			code = EXIT_RUNTIME;
	}
	run_report_final(r, false);
	stream_free(r);
	return code;
}

/* Without a COMMAND (with one: signals_command): USR1's report where stdout may carry lines. */
static const struct sig_table stream_signals = {
	.stop = SIGACT_STOP,
	.usr1 = SIGACT_REPORT_MODE,
	.usr2 = SIGACT_REPORT_LOG,
};

const struct mode_ops stream_ops = {
	.name = "stream",
	.state_size = sizeof(struct stream),
	.live = true,
	.batch = BATCH,
	.signals = &stream_signals,
	.streams = true,
	.tree_first_sight = true,	/* the kernel filter keeps memtrace's own fork out */
	.prepare = stream_prepare,
	.start = stream_start,
	.after_batch = stream_after_batch,
	.on_signal = stream_on_signal,
	.check = stream_check,
	.poll_fds = stream_poll_fds,
	.on_poll = stream_on_poll,
	.next_ms = stream_next_ms,
	.hold = stream_hold,
	.abort = stream_abort,
	.finish = stream_finish,
	.sink = stream_sink,
};
