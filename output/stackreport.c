// SPDX-License-Identifier: GPL-2.0-only
/* output/stackreport.c - the stacks in a report: each module's top stacks as a tree, each task's top stacks */
#include "output/stackreport.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/escape.h"
#include "output/rows.h"
#include "lib/util.h"

#define TOP_MAX		1000	/* --stack-top's bound */

/* One stack chosen for a report, with the pages of its owner (module or task) through it. */
struct pick {
	uint32_t sid;
	int64_t cur, peak;
};

/* Keep @p among the @k largest peaks in @top (sorted, largest first). */
static void consider(struct pick *top, uint32_t *n, uint32_t k, struct pick p)
{
	uint32_t i;

	if (p.peak <= 0 || !k)
		return;
	if (*n == k && top[k - 1].peak >= p.peak)
		return;
	i = *n < k ? (*n)++ : k - 1;
	while (i > 0 && top[i - 1].peak < p.peak) {
		top[i] = top[i - 1];
		i--;
	}
	top[i] = p;
}

/* The top stacks of module @m (by the stack's own peak); the number of its stacks in *all. */
static uint32_t module_top(const struct run *r, const struct mt_module *m, struct pick *top,
			   uint32_t k, uint32_t *all)
{
	const struct stacks *sk = &r->st.sk;
	uint32_t i, n = 0;

	*all = 0;
	if (!m->serial)		/* untraced (report-time only): serial 0 is no module's */
		return 0;
	for (i = 1; i < sk->n; i++) {
		const struct mt_stack *s = &sk->st[i];

		if (s->module != m->serial || s->peak <= 0)
			continue;
		(*all)++;
		consider(top, &n, k, (struct pick){ i, s->cur, s->peak });
	}
	return n;
}

/*
 * The task-and-stack entries sorted by task, for one report: a report that
 * lists thousands of tasks would otherwise scan every entry for each task.
 * Report scratch, like the pick arrays: built by stackreport_begin(), freed
 * by stackreport_end().
 */
struct bytask {
	const struct stacks *sk;
	uint32_t *id;
	uint32_t n;
};

static struct bytask *bytask_scratch(void)
{
	static struct bytask b;

	return &b;
}

/*
 * By task, then by entry: a task's entries keep the table's order, which
 * task_top() takes equal peaks in. Without the second key their order was
 * the sort's: glibc's (stable) and musl's (not) listed a task's stacks of
 * equal peaks in other orders, and the static binaries' reports differed.
 */
static int by_task(const void *a, const void *b, void *ctx)
{
	const struct stacks *sk = ctx;
	uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
	uint32_t x = sk->pairs[i].task, y = sk->pairs[j].task;

	if (x != y)
		return x < y ? -1 : 1;
	return (i > j) - (i < j);
}

static void bytask_build(const struct stacks *sk)
{
	struct bytask *b = bytask_scratch();
	uint32_t i;

	free(b->id);
	b->sk = NULL;
	b->n = sk->npairs > 1 ? sk->npairs - 1 : 0;
	b->id = b->n ? malloc(b->n * sizeof(*b->id)) : NULL;
	if (!b->id)
		return;		/* without it: the scan */
	for (i = 0; i < b->n; i++)
		b->id[i] = i + 1;
	qsort_r(b->id, b->n, sizeof(*b->id), by_task, (void *)sk);
	b->sk = sk;
}

void stackreport_end(struct ksyms *k)
{
	struct bytask *b = bytask_scratch();

	ksyms_free(k);
	free(b->id);
	b->id = NULL;
	b->sk = NULL;
	b->n = 0;
}

/* The top stacks of task @t (by its own pages through each). */
static uint32_t task_top(const struct run *r, const struct mt_task *t, struct pick *top,
			 uint32_t k, uint32_t *all)
{
	const struct stacks *sk = &r->st.sk;
	const struct bytask *b = bytask_scratch();
	uint32_t i = 1, end = sk->npairs, n = 0, lo, hi;
	const uint32_t *id = NULL;

	*all = 0;
	if (b->sk == sk && b->n + 1 == sk->npairs) {
		/* the first entry of the task, then its run */
		for (lo = 0, hi = b->n; lo < hi; ) {
			uint32_t mid = lo + (hi - lo) / 2;

			if (sk->pairs[b->id[mid]].task < t->serial)
				lo = mid + 1;
			else
				hi = mid;
		}
		id = b->id;
		i = lo;
		end = b->n;
	}
	for (; i < end; i++) {
		const struct task_stack *p = &sk->pairs[id ? id[i] : i];

		if (p->task != t->serial) {
			if (id)
				break;
			continue;
		}
		if (p->peak <= 0)
			continue;
		(*all)++;
		consider(top, &n, k, (struct pick){ p->stack, p->cur, p->peak });
	}
	return n;
}

static uint32_t top_k(const struct run *r)
{
	/* --json's whole report: every stack, to --stack-top's bound (as --diff's replays) */
	return r->opt.stack_top < TOP_MAX && !r->whole_report ? r->opt.stack_top : TOP_MAX;
}

static bool stacks_shown(const struct run *r)
{
	return r->st.stacks_on && top_k(r);
}

/*
 * A row's stacks as a report shows them: the model of a module's or a task's
 * stack report, built once by set_of_module() or set_of_task() and written by
 * the text or the JSON writer (and read for the names its frames need). One
 * at a time: report-time scratch, kept off the stack.
 */
struct stack_set {
	uint32_t n, all;		/* the stacks chosen, and all the row has */
	struct pick top[TOP_MAX];	/* largest peak first */
};

static struct stack_set *set_scratch(void)
{
	static struct stack_set set;

	return &set;
}

/* Module @m's top @k stacks (by the stack's own peak). */
static const struct stack_set *set_of_module(const struct run *r, const struct mt_module *m,
					     uint32_t k)
{
	struct stack_set *set = set_scratch();

	set->n = module_top(r, m, set->top, k, &set->all);
	return set;
}

/* Task @t's top @k stacks (by its own pages through each). */
static const struct stack_set *set_of_task(const struct run *r, const struct mt_task *t,
					   uint32_t k)
{
	struct stack_set *set = set_scratch();

	set->n = task_top(r, t, set->top, k, &set->all);
	return set;
}

static void want_stack(struct ksyms *k, const struct stacks *sk, uint32_t sid)
{
	const uint64_t *f = stacks_frames(sk, sid);
	uint32_t i;

	for (i = 0; i < sk->st[sid].nframes; i++)
		ksyms_want(k, f[i]);
}

void stackreport_begin(const struct run *r, struct ksyms *k)
{
	ksyms_init(k);
	if (!stacks_shown(r))
		return;
	bytask_build(&r->st.sk);
}

static void want_set(struct ksyms *k, const struct stacks *sk, const struct stack_set *set)
{
	uint32_t j;

	for (j = 0; j < set->n; j++)
		want_stack(k, sk, set->top[j].sid);
}

void stackreport_want_module(const struct run *r, struct ksyms *k, const struct mt_module *m)
{
	if (stacks_shown(r))
		want_set(k, &r->st.sk, set_of_module(r, m, top_k(r)));
}

void stackreport_want_task(const struct run *r, struct ksyms *k, const struct mt_task *t)
{
	if (stacks_shown(r))
		want_set(k, &r->st.sk, set_of_task(r, t, top_k(r)));
}

/* The threads of the process in slot @leader (itself included), one by one. */
static const struct mt_task *next_thread(const struct run *r, uint32_t leader, uint32_t *i)
{
	const struct table *tb = &r->st.tb;

	for (; *i < tb->ntasks_used; (*i)++) {
		const struct mt_task *t = &tb->tasks[*i];

		if (t->serial && stats_process_of(&r->st, t) == &tb->tasks[leader]) {
			(*i)++;
			return t;
		}
	}
	return NULL;
}

void stackreport_want_process(const struct run *r, struct ksyms *k, uint32_t leader)
{
	const struct mt_task *t;
	uint32_t i = 0;

	while (stacks_shown(r) && (t = next_thread(r, leader, &i)))
		stackreport_want_task(r, k, t);
}

void stackreport_resolve(const struct run *r, struct ksyms *k)
{
	char path[PATH_MAX];

	if (!k->n)
		return;
	if (r->opt.replay_dir)
		path_fmt(path, sizeof(path), "%s/memtrace.kallsyms", r->opt.replay_dir);
	else
		strcpy(path, "/proc/kallsyms");
	ksyms_resolve(k, path);
}

/* "function+0xoff [module]", or the address. */
static void text_frame(struct out *o, const struct ksyms *k, uint64_t a)
{
	const char *name = ksyms_name(k, a, &(uint64_t){ 0 });
	uint64_t off = 0;
	const char *mod;

	if (!name) {
		out_printf(o, "0x%" PRIx64, a);
		return;
	}
	ksyms_name(k, a, &off);
	mod = strchr(name, ' ');
	if (mod) {
		escape_text(o, name, (size_t)(mod - name));
		out_printf(o, "+0x%" PRIx64, off);
		escape_text(o, mod, strlen(mod));
	} else {
		escape_text(o, name, strlen(name));
		out_printf(o, "+0x%" PRIx64, off);
	}
}

/* The tracing machinery's own frame (innermost): never worth a line. */
static bool tracing_frame(const struct ksyms *k, uint64_t a)
{
	uint64_t off;
	const char *name = ksyms_name(k, a, &off);

	return name && (!strncmp(name, "trace_event_raw_event_", 22) ||
			!strncmp(name, "__traceiter_", 12) || !strncmp(name, "perf_trace_", 11));
}

/* A path of a stack in its module's tree: node ids, outermost first. */
struct path {
	uint32_t node[STACK_MAX_FRAMES];
	uint32_t len;
};

static void path_of(const struct stacks *sk, uint32_t sid, struct path *p)
{
	uint32_t nd, i;

	p->len = 0;
	for (nd = sk->st[sid].leaf; nd && p->len < STACK_MAX_FRAMES; nd = sk->nodes[nd].parent)
		p->node[p->len++] = nd;
	for (i = 0; i < p->len / 2; i++) {
		uint32_t t = p->node[i];

		p->node[i] = p->node[p->len - 1 - i];
		p->node[p->len - 1 - i] = t;
	}
}

/* The tree of paths @set (a bitmask of @paths) at @depth: each node once, largest peak first. */
static void print_level(struct out *o, const struct stacks *sk, const struct ksyms *k,
			const struct path *paths, uint32_t npaths, uint64_t set, uint32_t depth)
{
	uint64_t done = 0;

	for (;;) {
		uint32_t i, best = UINT32_MAX;
		uint64_t sub = 0;
		const struct stack_node *nd;

		for (i = 0; i < npaths; i++) {
			uint32_t id;

			if (!(set & (1ull << i)) || (done & (1ull << i)) || paths[i].len <= depth)
				continue;
			id = paths[i].node[depth];
			if (best == UINT32_MAX || sk->nodes[id].peak > sk->nodes[best].peak)
				best = id;
		}
		if (best == UINT32_MAX)
			return;
		for (i = 0; i < npaths; i++)
			if ((set & (1ull << i)) && paths[i].len > depth && paths[i].node[depth] == best)
				sub |= 1ull << i;
		done |= sub;
		nd = &sk->nodes[best];
		if (!tracing_frame(k, nd->frame)) {
			out_printf(o, "%10lld %10lld  %*s", (long long)nd->cur, (long long)nd->peak,
				   (int)(2 * (depth < 40 ? depth : 40)), "");
			text_frame(o, k, nd->frame);
			out_puts(o, "\n");
		}
		print_level(o, sk, k, paths, npaths, sub, depth + 1);
	}
}

void stackreport_modules_text(struct out *o, const struct run *r, const struct ksyms *k,
			      const uint32_t *idx, uint32_t nidx)
{
	static struct path paths[64];
	uint32_t i, j;

	if (!stacks_shown(r))
		return;
	for (i = 0; i < nidx; i++) {
		const struct mt_module *m = rows_mod_at(r, idx[i]);
		const struct stack_set *set = set_of_module(r, m, top_k(r) < 64 ? top_k(r) : 64);

		if (!set->n)
			continue;
		out_printf(o, "\nSTACKS OF MODULE %s: %lld pages now, peak %lld; its top %u of %u "
			   "stacks by peak, as a tree (pages now, peak, frame)\n", m->name,
			   (long long)m->all_cur, (long long)m->all_peak, set->n, set->all);
		for (j = 0; j < set->n; j++)
			path_of(&r->st.sk, set->top[j].sid, &paths[j]);
		print_level(o, &r->st.sk, k, paths, set->n, set->n < 64 ? (1ull << set->n) - 1 :
			    ~0ull, 0);
	}
}

/* A stack's frames from the outermost in, one per line under its numbers. */
static void text_stack(struct out *o, const struct stacks *sk, const struct ksyms *k,
		       const struct pick *p)
{
	const uint64_t *f = stacks_frames(sk, p->sid);
	uint32_t i, n = sk->st[p->sid].nframes, line = 0, lo = 0;

	/* the innermost frames are the tracing machinery's own */
	while (lo + 1 < n && tracing_frame(k, f[lo]))
		lo++;
	for (i = n; i-- > lo; ) {
		if (!line++)
			out_printf(o, "%10lld %10lld  ", (long long)p->cur, (long long)p->peak);
		else
			out_printf(o, "%23s", "");
		text_frame(o, k, f[i]);
		out_puts(o, "\n");
	}
	if (sk->st[p->sid].truncated)
		out_printf(o, "%23s(more frames not kept)\n", "");
}

void stackreport_task_text(struct out *o, const struct run *r, const struct ksyms *k,
			   const struct mt_task *t)
{
	const struct stack_set *set;
	uint32_t j;

	if (!stacks_shown(r))
		return;
	set = set_of_task(r, t, top_k(r));
	if (!set->n)
		return;
	out_printf(o, "\nSTACKS OF TASK %d (", t->tid);
	rows_text_comm(o, t);
	out_printf(o, "): its top %u of %u stacks by its own pages through each (pages now, "
		   "peak, frames from the outermost)\n", set->n, set->all);
	for (j = 0; j < set->n; j++)
		text_stack(o, &r->st.sk, k, &set->top[j]);
}

void stackreport_process_text(struct out *o, const struct run *r, const struct ksyms *k,
			      uint32_t leader)
{
	const struct mt_task *t;
	uint32_t i = 0;

	while (stacks_shown(r) && (t = next_thread(r, leader, &i)))
		stackreport_task_text(o, r, k, t);
}

static void json_stack(struct out *o, const struct stacks *sk, const struct ksyms *k,
		       const struct pick *p)
{
	const uint64_t *f = stacks_frames(sk, p->sid);
	uint32_t i, n = sk->st[p->sid].nframes, lo = 0;

	/* the innermost frames are the tracing machinery's own: left out, as in the text */
	while (lo + 1 < n && tracing_frame(k, f[lo]))
		lo++;
	out_puts(o, "{\"frames\":[");
	for (i = lo; i < n; i++) {
		uint64_t off = 0;
		const char *name = ksyms_name(k, f[i], &off), *mod = name ? strchr(name, ' ') : NULL;

		out_puts(o, i > lo ? ",{\"symbol\":" : "{\"symbol\":");
		if (name) {
			out_puts(o, "\"");
			escape_json(o, name, mod ? (size_t)(mod - name) : strlen(name));
			out_puts(o, "\"");
		} else {
			out_printf(o, "\"0x%" PRIx64 "\"", f[i]);
		}
		out_puts(o, ",\"module\":");
		if (mod && mod[1] == '[' && strchr(mod, ']')) {
			out_puts(o, "\"");
			escape_json(o, mod + 2, (size_t)(strchr(mod, ']') - mod - 2));
			out_puts(o, "\"");
		} else {
			out_puts(o, "null");
		}
		out_printf(o, ",\"offset\":%" PRIu64 "}", name ? off : 0);
	}
	out_printf(o, "],\"tracing_frames_left_out\":%u,\"truncated\":%s,\"current_pages\":%lld,"
		   "\"peak_pages\":%lld}", lo, sk->st[p->sid].truncated ? "true" : "false", (long long)p->cur,
		   (long long)p->peak);
}

/* ,"stacks":[...] of a set */
static void json_set(struct out *o, const struct stacks *sk, const struct ksyms *k,
		     const struct stack_set *set)
{
	uint32_t j;

	out_puts(o, ",\"stacks\":[");
	for (j = 0; j < set->n; j++) {
		out_puts(o, j ? "," : "");
		json_stack(o, sk, k, &set->top[j]);
	}
	out_puts(o, "]");
}

void stackreport_module_json(struct out *o, const struct run *r, const struct ksyms *k,
			     const struct mt_module *m)
{
	const struct stack_set *set;

	if (!r->st.stacks_on)
		return;
	set = set_of_module(r, m, top_k(r));
	out_printf(o, ",\"stacks_total\":%u", set->all);
	json_set(o, &r->st.sk, k, set);
}

void stackreport_task_json(struct out *o, const struct run *r, const struct ksyms *k,
			   const struct mt_task *t)
{
	if (r->st.stacks_on)
		json_set(o, &r->st.sk, k, set_of_task(r, t, top_k(r)));
}

void stackreport_process_json(struct out *o, const struct run *r, const struct ksyms *k,
			      uint32_t leader)
{
	const struct mt_task *t;
	uint32_t i = 0, n = 0;

	if (!r->st.stacks_on)
		return;
	out_puts(o, ",\"thread_stacks\":[");
	while ((t = next_thread(r, leader, &i))) {
		out_printf(o, "%s{\"tid\":%d", n++ ? "," : "", t->tid);
		stackreport_task_json(o, r, k, t);
		out_puts(o, "}");
	}
	out_puts(o, "]");
}

void stackreport_counters_json(struct out *o, const struct run *r, const char *before,
			       const char *after)
{
	const struct stacks *sk = &r->st.sk;

	if (!r->st.stacks_on)
		return;
	out_puts(o, before);
	out_printf(o, "\"stacks_info\":{\"stacks\":%u,\"max_stacks\":%u,\"paired\":%llu,"
		   "\"unpaired_allocs\":%llu,\"unpaired_stacks\":%llu,\"not_kept\":%llu,"
		   "\"not_kept_pages\":%llu,\"truncated\":%llu,\"tree_nodes_full\":%llu,"
		   "\"task_stacks_full\":%llu,\"task_stacks_freed\":%llu,"
		   "\"module_without_entry\":%llu,\"empty\":%llu,"
		   "\"addresses_hidden\":%s}",
		   sk->n - 1, sk->max - 1, (unsigned long long)sk->c.paired,
		   (unsigned long long)sk->c.unpaired_allocs,
		   (unsigned long long)sk->c.unpaired_stacks, (unsigned long long)sk->c.table_full,
		   (unsigned long long)sk->c.table_full_pages, (unsigned long long)sk->c.truncated,
		   (unsigned long long)sk->c.nodes_full, (unsigned long long)sk->c.pairs_full,
		   (unsigned long long)sk->c.pairs_freed,
		   (unsigned long long)sk->c.unresolved, (unsigned long long)sk->c.empty,
		   sk->hidden ? "true" : "false");
	out_puts(o, after);
}

void stackreport_counters_text(struct out *o, const struct run *r)
{
	const struct stacks *sk = &r->st.sk;

	if (!r->st.stacks_on)
		return;
	out_printf(o, "stacks: %u distinct of %u kept, %llu paired with their allocation; not "
		   "paired: %llu allocations, %llu stacks; not kept (--max-stacks): %llu stacks of "
		   "%llu pages%s\n", sk->n - 1, sk->max - 1, (unsigned long long)sk->c.paired,
		   (unsigned long long)sk->c.unpaired_allocs,
		   (unsigned long long)sk->c.unpaired_stacks, (unsigned long long)sk->c.table_full,
		   (unsigned long long)sk->c.table_full_pages,
		   sk->hidden ? "; module addresses hidden (kptr_restrict): modules by load "
		   "brackets only" : "");
}

/* The page allocator's own entry points (alloc_pages, __alloc_frozen_pages_noprof, ...). */
static bool allocator_frame(const struct ksyms *k, uint64_t a)
{
	uint64_t off;
	const char *name = ksyms_name(k, a, &off);

	return name && (strstr(name, "alloc_pages") || strstr(name, "alloc_frozen_pages"));
}

/* "name+0xoff [module]" or "0xaddr" into @buf. */
static int frame_str(char *buf, size_t size, const struct ksyms *k, uint64_t a)
{
	uint64_t off = 0;
	const char *name = ksyms_name(k, a, &off), *mod;

	if (!name)
		return snprintf(buf, size, "0x%" PRIx64, a);
	mod = strchr(name, ' ');
	if (mod)
		return snprintf(buf, size, "%.*s+0x%" PRIx64 "%s", (int)(mod - name), name, off, mod);
	return snprintf(buf, size, "%s+0x%" PRIx64, name, off);
}

void stackreport_cache_free(struct stackreport_cache *c)
{
	if (c->valid)
		ksyms_free(&c->k);
	c->valid = false;
	c->n = 0;
}

int stackreport_row_stacks(const struct run *r, bool module, uint32_t idx, struct stack_lines *out,
			   int max, struct stackreport_cache *c)
{
	const struct stack_set *set = NULL;
	const struct pick *top = NULL;
	const struct stacks *sk = &r->st.sk;
	const struct table *tb = &r->st.tb;
	uint32_t k = top_k(r) ? top_k(r) : 5, n = 0, i, j;
	bool same;

	if (!r->st.stacks_on)
		return -1;
	if (k > 32)
		k = 32;
	if ((int)k > max)
		k = (uint32_t)max;
	/* a row that is gone has no stacks (no empty set kept for it: 24 KiB of the binary) */
	if (module ? idx < tb->nmods : idx < tb->ntasks_used)
		set = module ? set_of_module(r, &tb->mods[idx], k) : set_of_task(r, &tb->tasks[idx], k);
	if (set) {
		n = set->n;
		top = set->top;
	}
	/* the names again only when the stacks shown change */
	same = c->valid && c->n == n;
	for (i = 0; same && i < n; i++)
		same = c->sid[i] == top[i].sid;
	if (!same) {
		stackreport_cache_free(c);
		ksyms_init(&c->k);
		for (i = 0; i < n; i++) {
			want_stack(&c->k, sk, top[i].sid);
			c->sid[i] = top[i].sid;
		}
		c->n = n;
		stackreport_resolve(r, &c->k);
		c->valid = true;
	}
	for (i = 0; i < n; i++) {
		const uint64_t *f = stacks_frames(sk, top[i].sid);
		uint32_t nf = sk->st[top[i].sid].nframes;
		struct stack_lines *o = &out[i];
		bool first = true;
		int w;

		o->id = top[i].sid;
		o->cur = top[i].cur;
		o->peak = top[i].peak;
		o->nframes = 0;
		for (j = 0; j < nf && o->nframes < STACK_LINES_FRAMES; j++) {
			/* from the allocator's caller on, as the reports */
			if (first && j + 1 < nf &&
			    (tracing_frame(&c->k, f[j]) || allocator_frame(&c->k, f[j])))
				continue;
			first = false;
			w = frame_str(o->frame[o->nframes], STACK_LINE_LEN, &c->k, f[j]);
			if (w < 0)
				o->frame[o->nframes][0] = '\0';
			o->nframes++;
		}
	}
	return (int)n;
}

int stackreport_save_symbols(const struct run *r, const char *dir)
{
	const struct stacks *sk = &r->st.sk;
	struct ksyms k;
	char path[PATH_MAX];
	uint32_t i;
	int fd, e = 0;
	uint64_t last = 0;

	if (!r->st.stacks_on)
		return 0;
	ksyms_init(&k);
	for (i = 1; i < sk->n; i++)
		want_stack(&k, sk, i);
	e = ksyms_resolve(&k, "/proc/kallsyms");
	if (e) {
		ksyms_free(&k);
		return e;
	}
	if (path_fmt(path, sizeof(path), "%s/memtrace.kallsyms", dir)) {
		ksyms_free(&k);
		return -ENAMETOOLONG;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0) {
		e = -errno;
		ksyms_free(&k);
		return e;
	}
	/* each symbol once, as kallsyms has it ("ADDR t NAME\t[MODULE]") */
	for (i = 0; i < k.n && !e; i++) {
		char line[512];
		const char *name, *mod;
		uint64_t off;

		name = ksyms_name(&k, k.addr[i], &off);
		if (!name || k.sym[i] == last)
			continue;
		last = k.sym[i];
		mod = strchr(name, ' ');
		if (mod)
			snprintf(line, sizeof(line), "%016" PRIx64 " t %.*s\t%s\n", last,
				 (int)(mod - name), name, mod + 1);
		else
			snprintf(line, sizeof(line), "%016" PRIx64 " t %s\n", last, name);
		e = write_all(fd, line, strlen(line));
	}
	if (close(fd) && !e)
		e = -errno;
	ksyms_free(&k);
	return e;
}
