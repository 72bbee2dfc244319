// SPDX-License-Identifier: GPL-2.0-only
/* model/stacks.c - kernel stacks of page allocations: the stack table, pages per stack, module trees, task stacks */
#include "model/stacks.h"

#include "module.h"
#include "model/pfnmap.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define FRAMES_PER_STACK	24	/* the frame pool holds this many per stack on average */
#define NODES_PER_STACK		8	/* module-tree nodes per stack, on average */
#define PAIRS_PER_STACK		4	/* task-and-stack entries per stack */

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	return h * 0xff51afd7ed558ccdull;
}

static uint32_t pow2_above(uint32_t n)
{
	uint32_t p = 16;

	while (p < n)
		p <<= 1;
	return p;
}

int stacks_init(struct stacks *sk, uint32_t max, uint64_t max_pfn, uint32_t ncpu)
{
	memset(sk, 0, sizeof(*sk));
	if (max < 16 || max > (1u << 22) || !ncpu || max_pfn > (SIZE_MAX / 4))
		return -EINVAL;
	sk->max = max + 1;
	sk->hmask = pow2_above(2 * sk->max) - 1;
	sk->pool_cap = max * FRAMES_PER_STACK;
	sk->max_nodes = max * NODES_PER_STACK + 1;
	sk->nhmask = pow2_above(2 * sk->max_nodes) - 1;
	sk->max_pairs = max * PAIRS_PER_STACK + 1;
	sk->phmask = pow2_above(2 * sk->max_pairs) - 1;
	sk->ncpu = ncpu;
	sk->st = calloc(sk->max, sizeof(*sk->st));
	sk->hash = calloc(sk->hmask + 1, sizeof(*sk->hash));
	sk->pool = calloc(sk->pool_cap, sizeof(*sk->pool));
	sk->nodes = calloc(sk->max_nodes, sizeof(*sk->nodes));
	sk->nhash = calloc(sk->nhmask + 1, sizeof(*sk->nhash));
	sk->pairs = calloc(sk->max_pairs, sizeof(*sk->pairs));
	sk->phash = calloc(sk->phmask + 1, sizeof(*sk->phash));
	sk->pend = calloc((size_t)ncpu * STACK_PENDING, sizeof(*sk->pend));
	sk->npend = calloc(ncpu, sizeof(*sk->npend));
	if (!sk->st || !sk->hash || !sk->pool || !sk->nodes || !sk->nhash || !sk->pairs ||
	    !sk->phash || !sk->pend || !sk->npend)
		goto nomem;
	sk->n = sk->nnodes = sk->npairs = 1;
	sk->pool_used = 0;
	sk->max_pfn = max_pfn;
	if (max_pfn) {
		sk->map_bytes = (size_t)max_pfn * sizeof(*sk->pfn_stack);
		sk->pfn_stack = pfnmap_reserve(sk->map_bytes);
		if (!sk->pfn_stack)
			goto nomem;
	}
	return 0;
nomem:
	stacks_free(sk);
	return -ENOMEM;
}

void stacks_free(struct stacks *sk)
{
	free(sk->st);
	free(sk->hash);
	free(sk->pool);
	free(sk->nodes);
	free(sk->nhash);
	free(sk->pairs);
	free(sk->phash);
	free(sk->pend);
	free(sk->npend);
	free(sk->ranges);
	pfnmap_release(sk->pfn_stack, sk->map_bytes);
	memset(sk, 0, sizeof(*sk));
}

void stacks_push(struct stacks *sk, uint32_t cpu, uint64_t pfn, uint32_t n, uint32_t owner,
		 uint32_t task, uint64_t ts, bool use)
{
	struct stack_pending *p;

	if (cpu >= sk->ncpu)
		return;
	p = sk->pend + (size_t)cpu * STACK_PENDING;
	if (sk->npend[cpu] == STACK_PENDING) {
		/* the oldest never got its stack */
		sk->c.unpaired_allocs++;
		memmove(p, p + 1, (STACK_PENDING - 1) * sizeof(*p));
		sk->npend[cpu]--;
	}
	p += sk->npend[cpu]++;
	p->pfn = pfn;
	p->n = n;
	p->owner = owner;
	p->task = task;
	p->ts = ts;
	p->use = use;
}

/* Last in, first out: an allocation in an interrupt between one and its stack comes first. */
bool stacks_pop(struct stacks *sk, uint32_t cpu, struct stack_pending *out)
{
	if (cpu >= sk->ncpu || !sk->npend[cpu]) {
		sk->c.unpaired_stacks++;
		return false;
	}
	*out = sk->pend[(size_t)cpu * STACK_PENDING + --sk->npend[cpu]];
	sk->c.paired++;
	return true;
}

/* frame @i of a stack record */
static uint64_t ev_frame(const struct mt_event *ev, uint32_t i)
{
	const uint8_t *p = ev->u.stack.frames + (size_t)i * ev->u.stack.elem;

	return rb_ldword(p, ev->u.stack.elem, ev->u.stack.big_endian);
}

const struct mod_range *stacks_range_of(const struct stacks *sk, uint64_t addr, uint64_t ts)
{
	uint32_t lo = 0, hi = sk->nranges;

	/* the last range that starts at or below addr */
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (sk->ranges[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	lo--;
	if (addr >= sk->ranges[lo].end || ts < sk->ranges[lo].from_ts)
		return NULL;
	return &sk->ranges[lo];
}

/* The node of @frame after @parent in @module's tree; made if new, 0 if the pool is full. */
static uint32_t node_of(struct stacks *sk, uint32_t parent, uint64_t frame, uint32_t module)
{
	uint32_t i = (uint32_t)mix(mix(frame, parent), module) & sk->nhmask;

	for (;;) {
		uint32_t v = sk->nhash[i];
		struct stack_node *nd;

		if (!v)
			break;
		nd = &sk->nodes[v];
		if (nd->frame == frame && nd->parent == parent && nd->module == module)
			return v;
		i = (i + 1) & sk->nhmask;
	}
	if (sk->nnodes >= sk->max_nodes) {
		sk->c.nodes_full++;
		return 0;
	}
	sk->nhash[i] = sk->nnodes;
	sk->nodes[sk->nnodes] = (struct stack_node){ .frame = frame, .parent = parent,
						    .module = module };
	return sk->nnodes++;
}

/* A new stack's place in its module's tree: from the outermost frame in. */
static uint32_t tree_leaf(struct stacks *sk, const struct mt_stack *s)
{
	const uint64_t *f = sk->pool + s->frames;
	uint32_t parent = 0, i;

	for (i = s->nframes; i-- > 0; ) {
		uint32_t nd = node_of(sk, parent, f[i], s->module);

		if (!nd)
			break;	/* the tree stops here; the pages still count above */
		parent = nd;
	}
	return parent;
}

uint32_t stacks_find(struct stacks *sk, const struct table *tb, const struct mt_event *ev,
		     uint64_t ts)
{
	uint32_t n = ev->u.stack.n < STACK_MAX_FRAMES ? ev->u.stack.n : STACK_MAX_FRAMES;
	uint64_t h = 0x5bd1e995u, f[STACK_MAX_FRAMES];
	struct mt_stack *s;
	uint32_t i, slot;

	if (!n) {
		sk->c.empty++;	/* a record without frames: its pages go without a stack */
		return 0;
	}

	for (i = 0; i < n; i++) {
		f[i] = ev_frame(ev, i);
		h = mix(h, f[i]);
	}
	h = mix(h, n);
	for (slot = (uint32_t)h & sk->hmask;; slot = (slot + 1) & sk->hmask) {
		uint32_t v = sk->hash[slot];

		if (!v)
			break;
		s = &sk->st[v];
		if (s->hash != h || s->nframes != n)
			continue;
		/* f[0..n) is set above, n > 0 */
		// cppcheck-suppress uninitvar
		if (!memcmp(sk->pool + s->frames, f, n * sizeof(*f)))
			return v;
	}
	if (sk->n >= sk->max || sk->pool_cap - sk->pool_used < n) {
		sk->c.table_full++;
		return 0;
	}
	s = &sk->st[sk->n];
	memset(s, 0, sizeof(*s));
	s->hash = h;
	s->frames = sk->pool_used;
	s->nframes = (uint16_t)n;
	s->truncated = ev->u.stack.n > n;
	sk->c.truncated += s->truncated;
	memcpy(sk->pool + sk->pool_used, f, n * sizeof(*f));
	sk->pool_used += n;
	/* the module nearest the allocator: the innermost frame in a module's code */
	for (i = 0; i < n && !s->module; i++) {
		const struct mod_range *mr = stacks_range_of(sk, f[i], ts);
		const struct mt_module *m;

		if (!mr)
			continue;
		m = module_live(tb, mr->name, strlen(mr->name));
		if (m)
			s->module = m->serial;
		else
			sk->c.unresolved++;	/* its code, but no entry for it */
	}
	if (s->module)
		s->leaf = tree_leaf(sk, s);
	sk->hash[slot] = sk->n;
	return sk->n++;
}

/* The hash of the task-and-stack entries made anew (their keys or places changed). */
static void rehash_pairs(struct stacks *sk)
{
	uint32_t i, h;

	memset(sk->phash, 0, (sk->phmask + 1) * sizeof(*sk->phash));
	for (i = 1; i < sk->npairs; i++) {
		for (h = (uint32_t)mix(sk->pairs[i].task, sk->pairs[i].stack) & sk->phmask;
		     sk->phash[h]; h = (h + 1) & sk->phmask)
			;
		sk->phash[h] = i;
	}
}

/*
 * The entries are full: those of tasks whose slot was recycled (nothing can
 * show them, nor free through them) are given back. Once per batch of
 * recycled tasks: a full table of live tasks is not swept again and again.
 * No allocation. Return: whether room was made.
 */
static bool compact_pairs(struct stacks *sk)
{
	uint32_t i, keep = 1;

	if (!sk->tb || sk->tb->c.tasks_recycled == sk->compacted_at)
		return false;
	sk->compacted_at = sk->tb->c.tasks_recycled;
	for (i = 1; i < sk->npairs; i++) {
		const struct task_stack *p = &sk->pairs[i];

		if (p->cur || table_task_by_serial(sk->tb, p->task))
			sk->pairs[keep++] = *p;
	}
	sk->c.pairs_freed += sk->npairs - keep;
	if (keep == sk->npairs)
		return false;
	sk->npairs = keep;
	rehash_pairs(sk);
	return true;
}

/* The entry of (task, stack); made if @make and new; 0 if none (or no room). */
static uint32_t pair_of(struct stacks *sk, uint32_t task, uint32_t sid, bool make)
{
	uint32_t i = (uint32_t)mix(task, sid) & sk->phmask;

	for (;;) {
		uint32_t v = sk->phash[i];

		if (!v)
			break;
		if (sk->pairs[v].task == task && sk->pairs[v].stack == sid)
			return v;
		i = (i + 1) & sk->phmask;
	}
	if (!make)
		return 0;
	if (sk->npairs >= sk->max_pairs && compact_pairs(sk))
		return pair_of(sk, task, sid, make);
	if (sk->npairs >= sk->max_pairs) {
		sk->c.pairs_full++;
		return 0;
	}
	sk->phash[i] = sk->npairs;
	sk->pairs[sk->npairs] = (struct task_stack){ .task = task, .stack = sid };
	return sk->npairs++;
}

const struct task_stack *stacks_task_pair(const struct stacks *sk, uint32_t task, uint32_t sid)
{
	uint32_t v = pair_of((struct stacks *)sk, task, sid, false);

	return v ? &sk->pairs[v] : NULL;
}

void stacks_pages(struct stacks *sk, uint32_t sid, uint32_t task, int64_t n, uint64_t ts)
{
	struct mt_stack *s = &sk->st[sid];
	uint32_t nd, p;

	s->cur += n;
	if (n > 0)
		s->pages += (uint64_t)n;
	if (s->cur > s->peak) {
		s->peak = s->cur;
		s->peak_ts = ts;
	}
	for (nd = s->leaf; nd; nd = sk->nodes[nd].parent) {
		struct stack_node *x = &sk->nodes[nd];

		x->cur += n;
		if (x->cur > x->peak)
			x->peak = x->cur;
	}
	if (!task)
		return;
	p = pair_of(sk, task, sid, n > 0);
	if (!p)
		return;
	sk->pairs[p].cur += n;
	if (sk->pairs[p].cur > sk->pairs[p].peak)
		sk->pairs[p].peak = sk->pairs[p].cur;
}

static int by_start(const void *a, const void *b)
{
	const struct mod_range *x = a, *y = b;

	return (x->start > y->start) - (x->start < y->start);
}

static bool overlap(const struct mod_range *a, const struct mod_range *b)
{
	return a->start < b->end && b->start < a->end;
}

/* Not for the event path: the table grows here when there are more modules than before. */
int stacks_set_ranges(struct stacks *sk, const struct mod_range *r, uint32_t n)
{
	uint32_t i, j, keep = 0, total;
	struct mod_range *nr;
	uint64_t *from = calloc(n ? n : 1, sizeof(*from));

	if (!from)
		return -ENOMEM;
	/* a module already known keeps the time its code became its own */
	for (j = 0; j < n; j++) {
		from[j] = r[j].from_ts;
		for (i = 0; i < sk->nranges; i++)
			if (sk->ranges[i].start == r[j].start && !strcmp(sk->ranges[i].name, r[j].name))
				from[j] = sk->ranges[i].from_ts;
	}
	/* the old ones no new one replaces */
	for (i = 0; i < sk->nranges; i++) {
		for (j = 0; j < n && !overlap(&sk->ranges[i], &r[j]); j++)
			;
		if (j == n)
			sk->ranges[keep++] = sk->ranges[i];
	}
	total = keep + n;
	if (total > sk->max_ranges) {
		nr = realloc(sk->ranges, total * sizeof(*nr));
		if (!nr) {
			sk->nranges = keep;
			free(from);
			return -ENOMEM;
		}
		sk->ranges = nr;
		sk->max_ranges = total;
	}
	for (j = 0; j < n; j++) {
		sk->ranges[keep + j] = r[j];
		sk->ranges[keep + j].from_ts = from[j];
	}
	free(from);
	sk->nranges = total;
	qsort(sk->ranges, total, sizeof(*sk->ranges), by_start);
	return 0;
}

void stacks_renumber(struct stacks *sk, uint32_t (*now)(const struct table *, uint32_t),
		     const struct table *tb)
{
	uint32_t i;

	/* the keys change: the table is made anew from the entries */
	for (i = 1; i < sk->npairs; i++)
		sk->pairs[i].task = now(tb, sk->pairs[i].task);
	rehash_pairs(sk);
	for (i = 0; i < sk->ncpu * STACK_PENDING; i++) {
		sk->pend[i].task = now(tb, sk->pend[i].task);
		if (!(sk->pend[i].owner & OWNER_MODULE))
			sk->pend[i].owner = now(tb, sk->pend[i].owner);
	}
}
