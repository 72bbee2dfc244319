// SPDX-License-Identifier: GPL-2.0-only
/* output/rows.c - what every report shares: rows sorted by peak, the process view, names, common lines */
#include "output/rows.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/escape.h"

const char *task_state_name(const struct mt_task *t)
{
	if (t->flags & TF_PSEUDO)
		return "pseudo";
	return t->state == TASK_EXITED ? "exited" : "alive";
}

const char *module_state_name(const struct mt_module *m)
{
	switch (m->state) {
	case MOD_LOADING:
		return "loading";
	case MOD_LIVE:
		return "live";
	case MOD_FAILED:
		return "failed";
	case MOD_UNLOADED:
		return "unloaded";
	case MOD_BEFORE:
		return "before";
	case MOD_UNTRACED:
		return "untraced";
	default:
		return "unknown";
	}
}

/* What the rows are sorted by: a task's own peak, or its process's (threads summed). */
enum sort_key { BY_TASK_PEAK, BY_PROCESS_PEAK, BY_TASK_NOW };

struct sort_ctx {
	const struct table *tb;
	enum sort_key key;
};

struct select_ctx {
	int64_t (*key)(const void *ctx, uint32_t i);
	const void *ctx;
};

/* larger key first, then the lower index */
static int by_key(const void *a, const void *b, void *p)
{
	const struct select_ctx *c = p;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	int64_t kx = c->key(c->ctx, x), ky = c->key(c->ctx, y);

	if (kx != ky)
		return kx < ky ? 1 : -1;
	return x < y ? -1 : 1;
}

uint32_t rows_select(uint32_t n, int64_t (*key)(const void *ctx, uint32_t i), const void *ctx,
		     uint32_t k, uint32_t *out)
{
	struct select_ctx c = { key, ctx };
	uint32_t i, m = 0, j;

	if (!k || k > n)
		k = n;
	/* few wanted: kept sorted as they come (a report's 5, an OOM summary's) */
	for (i = 0; k <= SELECT_SMALL && i < n; i++) {
		int64_t v = key(ctx, i);

		if (v <= 0 || (m == k && v <= key(ctx, out[m - 1])))
			continue;
		for (j = m < k ? m++ : m - 1; j > 0 && key(ctx, out[j - 1]) < v; j--)
			out[j] = out[j - 1];
		out[j] = i;
	}
	if (k <= SELECT_SMALL)
		return m;
	/* many: every one with a key, sorted, the first k kept */
	for (i = 0; i < n; i++)
		if (key(ctx, i) > 0)
			out[m++] = i;
	qsort_r(out, m, sizeof(*out), by_key, &c);
	return m < k ? m : k;
}

/* Largest peak first, then pid, then slot serial: the order of every report. */
static int by_peak(const void *a, const void *b, void *p)
{
	const struct sort_ctx *c = p;
	const struct mt_task *x = &c->tb->tasks[*(const uint32_t *)a];
	const struct mt_task *y = &c->tb->tasks[*(const uint32_t *)b];
	int64_t px = c->key == BY_TASK_PEAK ? x->peak : c->key == BY_TASK_NOW ? x->cur : x->ppeak;
	int64_t py = c->key == BY_TASK_PEAK ? y->peak : c->key == BY_TASK_NOW ? y->cur : y->ppeak;

	if (px != py)
		return px < py ? 1 : -1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->serial < y->serial ? -1 : 1;
}

/* The one sort of task slots (rs->order) by peak. */
static void sort_slots(const struct run *r, struct report_scratch *rs, uint32_t n,
		       enum sort_key key)
{
	struct sort_ctx c = { &r->st.tb, key };

	qsort_r(rs->order, n, sizeof(*rs->order), by_peak, &c);
}

/* Tasks with a non-zero peak, sorted by peak; returns their number. */
uint32_t rows_tasks(const struct run *r, struct report_scratch *rs)
{
	const struct table *tb = &r->st.tb;
	uint32_t i, n = 0;

	for (i = 0; i < tb->ntasks_used; i++)
		if (tb->tasks[i].state != TASK_UNUSED && tb->tasks[i].peak > 0)
			rs->order[n++] = i;
	sort_slots(r, rs, n, BY_TASK_PEAK);
	return n;
}

uint32_t rows_tasks_now(const struct run *r, struct report_scratch *rs)
{
	const struct table *tb = &r->st.tb;
	uint32_t i, n = 0;

	for (i = 0; i < tb->ntasks_used; i++)
		if (tb->tasks[i].state != TASK_UNUSED && tb->tasks[i].cur > 0)
			rs->order[n++] = i;
	sort_slots(r, rs, n, BY_TASK_NOW);
	return n;
}

uint32_t rows_nmods(const struct run *r)
{
	return r->st.tb.nmods + r->meta.nextra;
}

const struct mt_module *rows_mod_at(const struct run *r, uint32_t i)
{
	return i < r->st.tb.nmods ? &r->st.tb.mods[i] : &r->meta.extra[i - r->st.tb.nmods];
}

/*
 * Largest peak first; then the larger static size (what a module costs
 * besides its pages: among the many that took none, the ones that matter);
 * then the table's order, the order of their loads.
 */
static int by_module_peak(const void *a, const void *b, void *p)
{
	const struct run *r = *(const struct run *const *)p;
	uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
	const struct mt_module *x = rows_mod_at(r, i), *y = rows_mod_at(r, j);
	uint64_t sx = x->static_known ? x->static_kib : 0, sy = y->static_known ? y->static_kib : 0;

	if (x->all_peak != y->all_peak)
		return x->all_peak < y->all_peak ? 1 : -1;
	if (sx != sy)
		return sx < sy ? 1 : -1;
	return i < j ? -1 : i > j;
}

void rows_sort_modules(const struct run *r, uint32_t *idx, uint32_t n)
{
	qsort_r(idx, n, sizeof(*idx), by_module_peak, &r);
}

uint32_t rows_modules(const struct run *r, struct report_scratch *rs)
{
	uint32_t i, n = rows_nmods(r);

	for (i = 0; i < n; i++)
		rs->mod_order[i] = i;
	rows_sort_modules(r, rs->mod_order, n);
	return n;
}

uint32_t rows_threads(const struct report_scratch *rs, uint32_t slot)
{
	return rs->threads[slot] & ~PROC_ALIVE;
}

/* A process is alive while one of its threads is, whatever its leader did. */
const char *rows_state(const struct run *r, const struct report_scratch *rs, uint32_t slot)
{
	const struct mt_task *t = &r->st.tb.tasks[slot];

	if (t->flags & TF_PSEUDO)
		return "pseudo";
	return rs->threads[slot] & PROC_ALIVE ? "alive" : "exited";
}

/* Slot of task @t in the table. */
uint32_t rows_slot(const struct stats *st, const struct mt_task *t)
{
	return (uint32_t)(t - st->tb.tasks);
}

/*
 * Processes (a leader, or a task whose leader is unknown) with a non-zero
 * peak, sorted by peak; rs->threads[slot] gets each one's thread count.
 * With @tree_only, only processes of the command's tree.
 */
uint32_t rows_processes(const struct run *r, struct report_scratch *rs, bool tree_only)
{
	const struct stats *st = &r->st;
	uint32_t i, n = 0;

	memset(rs->threads, 0, st->tb.ntasks_used * sizeof(*rs->threads));
	for (i = SLOT_FIRST; i < st->tb.ntasks_used; i++) {
		const struct mt_task *t = &st->tb.tasks[i];
		uint32_t p;

		if (t->state == TASK_UNUSED)
			continue;
		p = rows_slot(st, stats_process_of(st, t));
		rs->threads[p]++;
		if (t->state == TASK_ALIVE)
			rs->threads[p] |= PROC_ALIVE;
	}
	for (i = 0; i < st->tb.ntasks_used; i++) {
		const struct mt_task *t = &st->tb.tasks[i];

		if (t->state == TASK_UNUSED || t->ppeak <= 0 || stats_process_of(st, t) != t)
			continue;
		if (tree_only && !(t->flags & TF_TREE))
			continue;
		rs->order[n++] = i;
	}
	sort_slots(r, rs, n, BY_PROCESS_PEAK);
	return n;
}

uint64_t rows_events(const struct stats *st)
{
	uint64_t n = 0;
	int k;

	for (k = 1; k < EV__COUNT; k++)
		n += st->c.events[k];
	return n;
}

bool rows_module_events_missing(const struct run *r)
{
	int k;

	for (k = 0; k < r->nmissing; k++)
		if (!strcmp(r->missing[k], "module:module_load"))
			return true;
	return false;
}

uint64_t rows_lost(const struct run *r)
{
	return reader_lost(&r->rd);
}

void rows_text_comm(struct out *o, const struct mt_task *t)
{
	if (t->flags & TF_COMM_KNOWN)
		escape_text(o, t->comm, t->comm_len);
	else
		out_puts(o, "?");
}

void rows_json_comm(struct out *o, const struct mt_task *t)
{
	out_puts(o, "\"");
	if (t->flags & TF_COMM_KNOWN)
		escape_json(o, t->comm, t->comm_len);
	out_puts(o, "\"");
}

void rows_json_str(struct out *o, const char *s)
{
	out_puts(o, "\"");
	escape_json(o, s, strlen(s));
	out_puts(o, "\"");
}

/* Only when there are any: events applied after one with a later time stamp. */
void rows_out_of_order_line(struct out *o, const struct run *r)
{
	if (r->rd.out_of_order)
		out_printf(o, "events out of time order: %llu (applied as they came: a CPU's "
			   "events arrived late, or a time stamp was wrong)\n",
			   (unsigned long long)r->rd.out_of_order);
}

/* The lost-events line of every text report. */
void rows_lost_line(struct out *o, const struct run *r)
{
	uint64_t unknown = reader_missed_unknown(&r->rd);

	out_printf(o, "lost events: %llu", (unsigned long long)rows_lost(r));
	if (unknown)
		out_printf(o, " (at least; %llu sub-buffers flagged lost without a count)",
			   (unsigned long long)unknown);
	if (rows_lost(r) || unknown)
		out_puts(o, " -- peaks may be underestimated");
	out_puts(o, "\n");
}

/* The OOM line of every text report, when there were OOM kills: "@what: N, last victim ...". */
void rows_oom_line(struct out *o, const struct stats *st, const char *what)
{
	if (!st->oom_count)
		return;
	/* the victim's comm is raw kernel bytes like any task name */
	out_printf(o, "%s: %llu, last victim pid %d (", what, (unsigned long long)st->oom_count,
		   st->oom_pid);
	escape_text(o, st->oom_comm, strlen(st->oom_comm));
	out_puts(o, ")\n");
}

/* The lost-events keys of every JSON report. */
void rows_json_lost(struct out *o, const struct run *r)
{
	out_printf(o, "\"lost_events\":%llu,\"lost_unknown_subbuffers\":%llu,",
		   (unsigned long long)rows_lost(r),
		   (unsigned long long)reader_missed_unknown(&r->rd));
}


/* Live: CPU @i got no fd for want of fds (RLIMIT_NOFILE), never opened. */
static bool rows_cpu_no_fd(const struct run *r, int i)
{
	return r->ops && r->ops->live && r->tf.no_fd_from >= 0 && i >= r->tf.no_fd_from &&
	       r->rd.cpus[i].offline;
}

/* CPUs that could not be read now, and those that could not for a while. */
void rows_cpus_line(struct out *o, const struct run *r)
{
	int i, now = 0, was = 0, nofd = 0;

	for (i = 0; i < r->rd.ncpus; i++) {
		nofd += rows_cpu_no_fd(r, i);
		now += r->rd.cpus[i].offline;
		was += r->rd.cpus[i].was_offline && !r->rd.cpus[i].offline;
	}
	if (!now && !was)
		return;
	out_puts(o, "CPUs not read:");
	for (i = 0; i < r->rd.ncpus; i++)
		if (r->rd.cpus[i].offline && !rows_cpu_no_fd(r, i))
			out_printf(o, " cpu%d", r->rd.cpus[i].cpu);
	if (now > nofd)
		out_puts(o, " (offline: their events are not seen)");
	/* left without an fd for want of RLIMIT_NOFILE: not offline, said as such */
	for (i = 0; i < r->rd.ncpus; i++)
		if (rows_cpu_no_fd(r, i))
			out_printf(o, "%s cpu%d", i == r->tf.no_fd_from && now > nofd ? ";" : "",
				   r->rd.cpus[i].cpu);
	if (nofd)
		out_puts(o, " (out of file descriptors, RLIMIT_NOFILE: their events are not "
			 "seen)");
	if (!now)
		out_puts(o, " none");
	if (was) {
		out_puts(o, "; read only since they came online:");
		for (i = 0; i < r->rd.ncpus; i++)
			if (r->rd.cpus[i].was_offline && !r->rd.cpus[i].offline)
				out_printf(o, " cpu%d", r->rd.cpus[i].cpu);
	}
	out_puts(o, "\n");
}

void rows_json_cpus(struct out *o, const struct run *r)
{
	int i, k = 0;

	out_puts(o, "\"cpus_not_read\":[");
	for (i = 0; i < r->rd.ncpus; i++)
		if (r->rd.cpus[i].offline)
			out_printf(o, "%s%d", k++ ? "," : "", r->rd.cpus[i].cpu);
	out_puts(o, "],\"cpus_read_after_offline\":[");
	for (i = 0, k = 0; i < r->rd.ncpus; i++)
		if (r->rd.cpus[i].was_offline && !r->rd.cpus[i].offline)
			out_printf(o, "%s%d", k++ ? "," : "", r->rd.cpus[i].cpu);
	out_puts(o, "],");
}


/* What task or module @i held at the system peak (no scratch: reports use it around this). */
static int64_t sys_value(const struct run *r, bool module, uint32_t i)
{
	const struct table *tb = &r->st.tb;

	if (module)
		return stats_sys_module_at_peak(&r->st, &tb->mods[i]);
	return tb->tasks[i].state == TASK_UNUSED ? 0 :
	       stats_sys_pages_at_peak(&r->st, &tb->tasks[i]);
}

static int64_t sys_task_key(const void *ctx, uint32_t i)
{
	return sys_value(ctx, false, i);
}

static int64_t sys_module_key(const void *ctx, uint32_t i)
{
	return sys_value(ctx, true, i);
}

void rows_sys_peak_top(const struct run *r, struct sys_top *t)
{
	t->ntasks = rows_select(r->st.tb.ntasks_used, sys_task_key, r, SYS_TOP, t->task);
	t->nmods = rows_select(r->st.tb.nmods, sys_module_key, r, SYS_TOP, t->mod);
}

void rows_sys_peak_line(struct out *o, const struct run *r, const struct sys_top *t)
{
	const struct stats *st = &r->st;
	const struct table *tb = &st->tb;
	const char *sep = "";
	uint32_t k;

	out_printf(o, "system peak: %lld pages (%llu KiB) above the start, at %.6f s",
		   (long long)st->sys_peak, (unsigned long long)kib(r, st->sys_peak),
		   secs(st->sys_peak_ts));
	if (!st->sys_peak) {
		out_puts(o, "\n");
		return;
	}
	out_puts(o, "; then: ");
	for (k = 0; k < t->ntasks; k++) {
		out_printf(o, "%spid %d (", sep, tb->tasks[t->task[k]].tid);
		rows_text_comm(o, &tb->tasks[t->task[k]]);
		out_printf(o, ") %lld", (long long)sys_value(r, false, t->task[k]));
		sep = ", ";
	}
	for (k = 0; k < t->nmods; k++) {
		out_printf(o, "%smodule %s %lld", sep, tb->mods[t->mod[k]].name,
			   (long long)sys_value(r, true, t->mod[k]));
		sep = ", ";
	}
	out_puts(o, "\n");
}

void rows_json_sys_peak(struct out *o, const struct run *r, const struct sys_top *t)
{
	const struct stats *st = &r->st;
	const struct table *tb = &st->tb;
	uint32_t k;

	out_printf(o, "\"system_peak\":{\"pages\":%lld,\"kib\":%llu,\"time_s\":%.6f,\"tasks\":[",
		   (long long)st->sys_peak, (unsigned long long)kib(r, st->sys_peak),
		   secs(st->sys_peak_ts));
	for (k = 0; k < t->ntasks; k++) {
		const struct mt_task *p = &tb->tasks[t->task[k]];

		out_printf(o, "%s{\"pid\":%d,\"tgid\":%d,\"comm\":", k ? "," : "", p->tid, p->tgid);
		rows_json_comm(o, p);
		out_printf(o, ",\"pages\":%lld}", (long long)sys_value(r, false, t->task[k]));
	}
	out_puts(o, "],\"modules\":[");
	for (k = 0; k < t->nmods; k++) {
		out_printf(o, "%s{\"name\":", k ? "," : "");
		rows_json_str(o, tb->mods[t->mod[k]].name);
		out_printf(o, ",\"pages\":%lld}", (long long)sys_value(r, true, t->mod[k]));
	}
	out_puts(o, "]},");
}

static bool have_moves(const struct run *r)
{
	int k;

	for (k = 0; k < r->nenabled; k++)
		if (!strncmp(r->enabled[k], "huge_memory:", 12) ||
		    !strncmp(r->enabled[k], "migrate:", 8))
			return true;
	return false;
}

void rows_moved_line(struct out *o, const struct run *r)
{
	const struct stats_counters *c = &r->st.c;

	if (!have_moves(r))
		return;
	out_printf(o, "moved pages: %llu in %llu THP collapses, given to the process whose pages "
		   "they replaced; %llu freed from their old frames in %llu migrations "
		   "(compaction's new frames are not seen: their owners count that many fewer)\n",
		   (unsigned long long)c->collapse_pages, (unsigned long long)c->collapses,
		   (unsigned long long)c->migrated_pages, (unsigned long long)c->migrations);
}

void rows_json_moved(struct out *o, const struct run *r)
{
	const struct stats_counters *c = &r->st.c;

	out_printf(o, "\"moved\":{\"collapses\":%llu,\"collapse_pages\":%llu,\"migrations\":%llu,"
		   "\"migrated_pages\":%llu},", (unsigned long long)c->collapses,
		   (unsigned long long)c->collapse_pages, (unsigned long long)c->migrations,
		   (unsigned long long)c->migrated_pages);
}
