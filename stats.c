// SPDX-License-Identifier: GPL-2.0-only
/* stats.c - page accounting: the pfn->owner map, current and peak pages, the event dispatch */
#include "stats.h"

#include "module.h"
#include "model/pfnmap.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static void tree_root_mark(struct stats *s, struct mt_task *t);
/*
 * Task serials near their limit (2^31 task creations with the default table):
 * every stored serial becomes its slot's first one, the pfn map's included
 * (only its resident pages can hold owners), owners whose slot was recycled
 * become OWNER_STALE. Rare, and no allocation.
 */
static void renumber_owner(void *ctx, uint32_t *e)
{
	if (*e && !(*e & OWNER_MODULE) && *e != OWNER_STALE)
		*e = table_serial_now(ctx, *e);
}

static void serials_renumber(struct table *tb, uint32_t *map, uint64_t n, struct stacks *sk)
{
	uint32_t j;

	if (map)
		pfnmap_each_resident(map, n, renumber_owner, tb);
	for (j = 0; j < tb->ntasks_used; j++) {
		struct mt_task *t = &tb->tasks[j];

		if (t->leader)
			t->leader = table_serial_now(tb, t->leader);
		if (t->collapse_to)
			t->collapse_to = table_serial_now(tb, t->collapse_to);
	}
	for (j = 0; j < tb->nmods; j++)
		if (tb->mods[j].loader_serial)
			tb->mods[j].loader_serial = table_serial_now(tb, tb->mods[j].loader_serial);
	if (sk)
		stacks_renumber(sk, table_serial_now, tb);
	table_renumber(tb);
}

static void renumber(struct stats *s);

/* The pfn map (and the stacks' one) for @npfn page frames; 0 or -errno. */
static int maps_init(struct stats *s, uint64_t npfn)
{
	int e;

	if (npfn > SIZE_MAX / sizeof(*s->pfn_owner))
		return -ENOMEM;
	s->pfn_map_bytes = (size_t)npfn * sizeof(*s->pfn_owner);
	s->pfn_owner = pfnmap_reserve(s->pfn_map_bytes);
	if (!s->pfn_owner)
		return -ENOMEM;
	if (s->cfg.classes && !(s->pfn_class = pfnmap_reserve((size_t)npfn))) {
		pfnmap_release(s->pfn_owner, s->pfn_map_bytes);
		s->pfn_owner = NULL;
		return -ENOMEM;
	}
	if (s->cfg.max_stacks) {
		e = stacks_init(&s->sk, s->cfg.max_stacks, npfn, s->cfg.cpu_ids ? s->cfg.cpu_ids : 1);
		if (e) {
			pfnmap_release(s->pfn_owner, s->pfn_map_bytes);
			pfnmap_release(s->pfn_class, (size_t)npfn);
			s->pfn_owner = NULL;
			s->pfn_class = NULL;
			return e;
		}
		s->sk.tb = &s->tb;
		s->stacks_on = true;
	}
	s->cfg.max_pfn = npfn;
	return 0;
}

int stats_init(struct stats *s, const struct stats_config *cfg)
{
	int e;

	memset(s, 0, sizeof(*s));
	s->cfg = *cfg;
	e = table_init(&s->tb, cfg->max_tasks, cfg->max_modules, cfg->serial_limit);
	if (e)
		return e;
	s->last = &s->tb.tasks[SLOT_IRQ];
	if (cfg->exit_ring && !(s->exits = calloc(cfg->exit_ring, sizeof(*s->exits))))
		goto nomem;
	/* tree tasks without a slot: room for a quarter of the table's tids */
	if (tidset_init(&s->tree_lost, cfg->max_tasks / 4))
		goto nomem;
	/* as far as memory added later may reach; else as far as there is memory now */
	e = cfg->max_pfn || cfg->max_stacks ? maps_init(s, cfg->max_pfn) : 0;
	if (e && cfg->ram_pfn && cfg->ram_pfn < cfg->max_pfn) {
		s->map_short = true;
		e = maps_init(s, cfg->ram_pfn);
	}
	if (!e) {
		if (!s->pfn_owner)	/* no map: every page frame out of it (range_ok()) */
			s->cfg.max_pfn = 0;
		return 0;
	}
	stats_free(s);
	return e;
nomem:
	stats_free(s);
	return -ENOMEM;
}

void stats_free(struct stats *s)
{
	table_free(&s->tb);
	if (s->stacks_on)
		stacks_free(&s->sk);
	free(s->exits);
	tidset_free(&s->tree_lost);
	pfnmap_release(s->pfn_owner, s->pfn_map_bytes);
	pfnmap_release(s->pfn_class, s->pfn_map_bytes / sizeof(*s->pfn_owner));
	memset(s, 0, sizeof(*s));
}

/*
 * Every task made by the accounting: the table's slot, and without fork
 * events (cfg.tree_first_sight) a command's tree rooted at its first sight.
 */
static void task_made(struct stats *s, struct mt_task *t)
{
	if (t && s->cfg.tree_first_sight && t->tid == s->tree_root_pid && t->tid)
		tree_root_mark(s, t);
}

/* task_for() through the table; out of line, the storm's events seldom come here */
static __attribute__((noinline)) struct mt_task *task_lookup(struct stats *s, int32_t tid,
								uint64_t ts)
{
	uint64_t seen = s->tb.c.tasks_seen;
	struct mt_task *t = table_task_for(&s->tb, tid, ts);

	if (s->tb.c.tasks_seen != seen)
		task_made(s, t);
	if (t == &s->tb.tasks[SLOT_OVERFLOW] && tidset_has(&s->tree_lost, tid))
		t = &s->tb.tasks[SLOT_TREE_OVERFLOW];
	if (!(t->flags & TF_PSEUDO))
		s->last = t;
	return t;
}

/*
 * The task of @tid, made at first sight; without a slot <overflow>, or
 * <tree-overflow> for a task of the command's tree. A storm is one task's
 * events one after the other: the task found last is tried first. It is the
 * one the hash would give while it holds @tid and the hash points at it
 * (hashed): the table sets both whenever a slot changes hands.
 */
static inline struct mt_task *task_for(struct stats *s, int32_t tid, uint64_t ts)
{
	struct mt_task *t = s->last;	/* the <irq> slot, never hashed: none */

	if (t->tid == tid && t->hashed)
		return t;
	return task_lookup(s, tid, ts);
}

/*
 * The task of owner serial @serial (0 and module owners: none), or NULL if its
 * slot was recycled: the task found last is tried first, the owner of most
 * pages a storm frees.
 */
static struct mt_task *task_of_serial(const struct stats *s, uint32_t serial)
{
	struct mt_task *t = s->last;

	if (serial && t->serial == serial)
		return t;
	return table_task_by_serial(&s->tb, serial);
}

struct mt_task *stats_task(struct stats *s, int32_t tid, uint64_t ts)
{
	if (s->tb.renumber_due)
		renumber(s);
	return task_for(s, tid, ts);
}

struct mt_task *stats_page_owner(const struct stats *s, uint64_t pfn)
{
	uint32_t owner;

	if (!s->pfn_owner || pfn >= s->cfg.max_pfn)
		return NULL;
	owner = s->pfn_owner[pfn];
	if (!owner || owner == OWNER_STALE)
		return NULL;
	if (owner & OWNER_MODULE) {
		const struct mt_module *m = table_module_by_serial(&s->tb, owner & ~OWNER_MODULE);

		if (!m)
			return NULL;
		owner = m->loader_serial;
	}
	return stats_task_by_serial(s, owner);
}

/* A child of a tree task found no slot: its pages go to <tree-overflow>. */
static void tree_child_lost(struct stats *s, const struct mt_task *parent, int32_t tid)
{
	if (!(parent->flags & TF_TREE))
		return;
	if (tidset_add(&s->tree_lost, tid))
		s->c.tree_overflow_tasks++;
	else
		s->c.tree_lost_tasks++;
}

/*
 * Every change of a task's pages: the task, its process and, for a command's
 * tree, the tree. A tree task keeps its pages as they were at the tree's last peak
 * (taken before its first change after that peak), so the tasks alive at the
 * peak can be listed without a scan at each new peak.
 */
static inline __attribute__((always_inline)) void task_pages(struct stats *s, struct mt_task *t,
						       int64_t n, uint64_t ts)
{
	struct mt_task *p;

	if (t->sys_epoch != s->sys_epoch) {
		t->cur_at_sys_peak = stats_sys_pages_at_peak(s, t);
		t->sys_epoch = s->sys_epoch;
	}
	if ((t->flags & TF_TREE) && t->tree_epoch != s->tb.tree_epoch) {
		t->cur_at_tree_peak = t->cur;
		t->tree_epoch = s->tb.tree_epoch;
	}
	t->cur += n;
	if (t->cur > t->peak) {
		t->peak = t->cur;
		t->peak_ts = ts;
	}
	p = stats_process_of(s, t);
	p->pcur += n;
	if (p->pcur > p->ppeak) {
		p->ppeak = p->pcur;
		p->ppeak_ts = ts;
	}
	if (t->state == TASK_EXITED && !t->cur)
		s->tb.victims_dirty = true;	/* it may be recycled now */
	if (t->flags & TF_TREE) {
		s->tree_cur += n;
		if (s->tree_cur > s->tree_peak) {
			s->tree_peak = s->tree_cur;
			s->tree_peak_ts = ts;
			s->tb.tree_epoch++;
			t->cur_at_tree_peak = t->cur;
			t->tree_epoch = s->tb.tree_epoch;
		}
	}
}

void stats_restart_level(struct stats *s)
{
	pfnmap_clear(s->pfn_owner, s->pfn_map_bytes);
	pfnmap_clear(s->pfn_class, s->pfn_map_bytes / sizeof(*s->pfn_owner));
	s->pfn_hi = 0;
	s->file_blk_cur = s->file_mem_cur = s->file_blk_at_peak = s->file_mem_at_peak = 0;
	s->sys_cur = s->sys_peak = 0;
	s->sys_peak_ts = 0;
	s->sys_epoch++;
}

int64_t stats_tree_pages_at_peak(const struct stats *s, const struct mt_task *t)
{
	if (!(t->flags & TF_TREE))
		return 0;
	return t->tree_epoch == s->tb.tree_epoch ? t->cur_at_tree_peak : t->cur;
}

int64_t stats_sys_pages_at_peak(const struct stats *s, const struct mt_task *t)
{
	if (t->sys_epoch == s->sys_epoch)
		return t->cur_at_sys_peak;
	/* unchanged since the peak: what it holds now, if it was there then */
	return t->start_ts > s->sys_peak_ts ? 0 : t->cur - (int64_t)t->seed_left;
}

int64_t stats_sys_module_at_peak(const struct stats *s, const struct mt_module *m)
{
	if (m->sys_epoch == s->sys_epoch)
		return m->cur_at_sys_peak;
	/* all its pages (all_cur), as sys_rose() and module_all() keep them */
	return m->start_ts > s->sys_peak_ts ? 0 : m->all_cur;
}

void stats_tree_root(struct stats *s, int32_t tid, int32_t parent)
{
	s->tree_root_pid = tid;
	s->tree_parent_pid = parent;
}

/* The command's own creation event (or, without such events, its first sight). */
static void tree_root_mark(struct stats *s, struct mt_task *t)
{
	if (s->tree_rooted || (t->flags & TF_PSEUDO))
		return;
	s->tree_rooted = true;
	t->flags |= TF_TREE;
	s->tree_processes++;
	/* pages it holds already (none, normally) are the tree's from now on */
	t->cur_at_tree_peak = 0;
	t->tree_epoch = s->tb.tree_epoch;
	s->tree_cur += t->cur;
}

void stats_link_threads(struct stats *s)
{
	uint32_t i;

	for (i = SLOT_FIRST; i < s->tb.ntasks_used; i++) {
		struct mt_task *t = &s->tb.tasks[i], *l;

		if (t->leader || !t->tgid || t->tgid == t->tid || t->state == TASK_UNUSED)
			continue;
		l = stats_find_task(s, t->tgid);
		if (!l || l == t)
			continue;
		t->leader = l->serial;
		l->pcur += t->pcur;	/* what it counted as its own process so far */
		t->pcur = 0;
		if (l->pcur > l->ppeak) {
			l->ppeak = l->pcur;
			l->ppeak_ts = t->ppeak_ts;
		}
	}
}

long stats_map_resident_kib(const struct stats *s)
{
	/* nothing past the highest page frame seen was touched */
	return pfnmap_resident_kib(s->pfn_owner, (size_t)s->pfn_hi * sizeof(*s->pfn_owner));
}

bool stats_exit_pop(struct stats *s, struct mt_exit *out)
{
	uint32_t cap = s->cfg.exit_ring;

	if (!s->exit_count || !cap)
		return false;
	*out = s->exits[(s->exit_head + cap - s->exit_count) % cap];
	s->exit_count--;
	return true;
}

static void exit_push(struct stats *s, struct mt_task *p, uint64_t ts)
{
	uint32_t cap = s->cfg.exit_ring;
	struct mt_exit *e;

	if (!cap)
		return;
	if (s->exit_count == cap) {
		s->exits_dropped++;
		return;
	}
	e = &s->exits[s->exit_head];
	s->exit_head = (s->exit_head + 1) % cap;
	s->exit_count++;
	e->pid = p->tgid ? p->tgid : p->tid;
	e->ppid = p->ppid;
	e->comm_len = (p->flags & TF_COMM_KNOWN) ? p->comm_len : 0;
	memcpy(e->comm, p->comm, COMM_LEN);
	e->peak = p->ppeak;
	e->start_ts = p->start_ts;
	e->exit_ts = ts;
}

/*
 * Seeded pages are not in the pfn map: their frees are untracked. An untracked
 * free by a seeded process (not in interrupt context, not older than the seed)
 * is taken off what is left of its seed; what is left when the process ends
 * is dropped. Without this a process that frees and maps its memory again
 * counts it twice.
 */
static void seed_release(struct stats *s, const struct mt_event *ev, uint64_t untracked)
{
	struct mt_task *t = stats_find_task(s, ev->tid), *p;
	uint64_t k;

	if (!t || (t->flags & TF_PSEUDO))
		return;
	p = stats_process_of(s, t);
	if (!p->seed_left || ev->ts < p->seed_ts)
		return;
	k = untracked < p->seed_left ? untracked : p->seed_left;
	/* first: its pages at the system peak are taken as they were (cur less seed_left) */
	task_pages(s, p, -(int64_t)k, ev->ts);
	p->seed_left -= k;
	p->freed_pages += k;
	s->c.seed_freed_pages += k;
}

/* The process ended (its last thread, or its leader when that is unknown). */
static void process_end(struct stats *s, struct mt_task *p, uint64_t ts)
{
	p->pexit_ts = ts;
	if (p->seed_left) {
		s->c.seed_dropped_pages += p->seed_left;
		task_pages(s, p, -(int64_t)p->seed_left, ts);
		p->freed_pages += p->seed_left;	/* given back: cur = seed + allocated - freed */
		p->seed_left = 0;
	}
	exit_push(s, p, ts);
}

static void renumber(struct stats *s)
{
	serials_renumber(&s->tb, s->pfn_owner, s->pfn_hi, s->stacks_on ? &s->sk : NULL);
}

struct mt_task *stats_seed_task(struct stats *s, int32_t tid, int32_t tgid, int32_t ppid,
				const char *comm, size_t comm_len, uint64_t pages,
				uint64_t ts, bool kthread)
{
	struct mt_task *t = stats_find_task(s, tid);

	if (s->tb.renumber_due)
		renumber(s);
	if (!t) {
		t = table_task_new(&s->tb, tid, ts);
		task_made(s, t);
	}
	if (!t)
		return NULL;
	t->tgid = tgid;
	t->ppid = ppid;
	table_set_comm(t, comm, comm_len);
	t->flags |= TF_SEEDED | (kthread ? TF_KTHREAD : 0);
	t->seed = pages;
	t->seed_left = pages;
	t->seed_ts = ts;
	task_pages(s, t, (int64_t)pages, ts);
	return t;
}

/* A module's pages (all of them, counted once) change: keep what it held at the system peak. */
static void module_all(struct stats *s, struct mt_module *m, int64_t n, uint64_t ts)
{
	if (m->sys_epoch != s->sys_epoch) {
		m->cur_at_sys_peak = stats_sys_module_at_peak(s, m);
		m->sys_epoch = s->sys_epoch;
	}
	m->all_cur += n;
	if (m->all_cur > m->all_peak) {
		m->all_peak = m->all_cur;
		m->all_peak_ts = ts;
	}
}

/* Pages taken in a module's load bracket. */
static void charge_module(struct stats *s, struct mt_module *m, int64_t n, uint64_t ts)
{
	m->cur += n;
	m->alloc_pages += (uint64_t)n;
	if (m->cur > m->peak) {
		m->peak = m->cur;
		m->peak_ts = ts;
	}
	module_all(s, m, n, ts);
}

/* The module of a stack's pages, or NULL. */
static struct mt_module *stack_module(struct stats *s, uint32_t sid)
{
	return sid ? table_module_by_serial(&s->tb, s->sk.st[sid].module) : NULL;
}

/*
 * Give k pages back to the owner recorded in the map: its task (a module's
 * pages are its loader's too), the module of its bracket, and the module the
 * pages counted for (the stack's, else the bracket's) and the stack @sid.
 */
static inline __attribute__((always_inline)) void credit(struct stats *s, uint32_t owner,
							   uint32_t sid, int64_t k)
{
	struct mt_module *bm = NULL, *um;
	struct mt_task *t;

	if (owner & OWNER_MODULE) {
		bm = table_module_by_serial(&s->tb, owner & ~OWNER_MODULE);
		if (bm) {
			bm->cur -= k;
			owner = bm->loader_serial;
		}
	}
	um = stack_module(s, sid);
	if (!um)
		um = bm;
	if (um)
		module_all(s, um, -k, 0);
	if (sid)
		stacks_pages(&s->sk, sid, bm || !(owner & OWNER_MODULE) ? owner : 0, -k, 0);
	if (bm == NULL && (owner & OWNER_MODULE))
		return;		/* a module no longer in the table */
	t = task_of_serial(s, owner);
	if (!t) {
		s->c.recycled_frees += (uint64_t)k;
		return;
	}
	t->freed_pages += (uint64_t)k;
	task_pages(s, t, -k, 0);
}

enum { PAGE_NOT_FILE = 0, PAGE_FILE_BLOCK, PAGE_FILE_MEMORY };

/* A tracked page leaves the page cache (its free, or its removal): its class counted down. */
static void unclass(struct stats *s, uint64_t pfn)
{
	uint8_t c = s->pfn_class[pfn];

	if (c == PAGE_FILE_BLOCK)
		s->file_blk_cur--;
	else if (c == PAGE_FILE_MEMORY)
		s->file_mem_cur--;
	s->pfn_class[pfn] = PAGE_NOT_FILE;
}

/*
 * A page into (or out of) the page cache: of a tracked page, whether it is a
 * block device's file (a device with a major number: reclaim may write or
 * drop it) or a tmpfs, ramfs, rootfs one (major 0: it stays), counted. Pages
 * not in the map (taken before tracing) are not the system's level's.
 */
static void on_file(struct stats *s, const struct mt_event *ev)
{
	uint64_t pfn = ev->u.file.pfn, i, n;
	bool block = (ev->u.file.dev >> 20) != 0;	/* the kernel's dev_t: major << 20 */

	if (!s->pfn_class || ev->u.file.order > MAX_ORDER_SEEN)
		return;
	n = 1ull << ev->u.file.order;
	if (pfn >= s->cfg.max_pfn || n > s->cfg.max_pfn - pfn)
		return;
	for (i = pfn; i < pfn + n; i++) {
		if (ev->kind == EV_FILE_DEL || !s->pfn_owner[i]) {
			unclass(s, i);
			continue;
		}
		if (s->pfn_class[i] != PAGE_NOT_FILE)
			continue;
		s->pfn_class[i] = block ? PAGE_FILE_BLOCK : PAGE_FILE_MEMORY;
		if (block)
			s->file_blk_cur++;
		else
			s->file_mem_cur++;
	}
}

/* Clear [pfn, pfn+n) in the maps, crediting owners run by run; returns untracked pages. */
/*
 * One block of at most 1 << MAX_ORDER_SEEN pages (so 32 bits, on any machine),
 * inside the map (range_ok()). Out of line: a single page's free, nearly every
 * one, takes release_pages()'s way.
 */
static __attribute__((noinline)) uint32_t release_range(struct stats *s, uint64_t pfn,
							 uint32_t n)
{
	uint32_t *map = s->pfn_owner + pfn, *smap = s->stacks_on ? s->sk.pfn_stack + pfn : NULL;
	uint32_t i = 0, untracked = 0;

	while (i < n) {
		uint32_t owner = map[i], sid = smap ? smap[i] : 0;
		uint32_t j = i + 1;

		while (j < n && map[j] == owner && (!smap || smap[j] == sid))
			j++;
		if (owner) {
			uint32_t k;

			s->sys_cur -= (int64_t)(j - i);
			credit(s, owner, sid, (int64_t)(j - i));
			memset(map + i, 0, (j - i) * sizeof(*map));
			for (k = i; s->pfn_class && k < j; k++)
				if (s->pfn_class[pfn + k])
					unclass(s, pfn + k);
			if (smap)
				memset(smap + i, 0, (j - i) * sizeof(*smap));
		} else {
			untracked += j - i;
		}
		i = j;
	}
	return untracked;
}

/*
 * release_range(): one page without --stacks, nearly every free, inline (the
 * loop's answer for n = 1); any other block through the loop.
 */
static inline __attribute__((always_inline)) uint32_t release_pages(struct stats *s,
								   uint64_t pfn, uint32_t n)
{
	uint32_t owner;

	if (n != 1 || s->stacks_on)
		return release_range(s, pfn, n);
	owner = s->pfn_owner[pfn];
	if (!owner)
		return 1;
	s->sys_cur--;
	credit(s, owner, 0, 1);
	s->pfn_owner[pfn] = 0;
	if (s->pfn_class && s->pfn_class[pfn])
		unclass(s, pfn);
	return 0;
}

/* [pfn, pfn+n), inside the map, seen: pfn_hi bounds the map's scans (renumber(), its size) */
static inline __attribute__((always_inline)) void seen(struct stats *s, uint64_t pfn, uint64_t n)
{
	if (pfn + n > s->pfn_hi)
		s->pfn_hi = pfn + n;
}

static bool range_ok(struct stats *s, uint64_t pfn, uint64_t n)
{
	/* n is at least 1; without a map max_pfn is 0 (stats_init()) */
	if (n > s->cfg.max_pfn || pfn > s->cfg.max_pfn - n) {
		s->c.pfn_out_of_range++;
		return false;
	}
	seen(s, pfn, n);
	return true;
}

/*
 * The system's pages rose, by @t's allocation (and @m's, if not NULL): where
 * past the peak, a new peak, and the others hold now what they held then.
 */
static inline __attribute__((always_inline)) void sys_rose(struct stats *s, struct mt_task *t,
							   struct mt_module *m, uint64_t ts)
{
	if (s->sys_cur <= s->sys_peak)
		return;
	s->sys_peak = s->sys_cur;
	s->sys_peak_ts = ts;
	s->sys_epoch++;
	s->file_blk_at_peak = s->file_blk_cur;
	s->file_mem_at_peak = s->file_mem_cur;
	t->cur_at_sys_peak = t->cur - (int64_t)t->seed_left;
	t->sys_epoch = s->sys_epoch;
	if (m) {
		m->cur_at_sys_peak = m->all_cur;
		m->sys_epoch = s->sys_epoch;
	}
}

static void page_alloc(struct stats *s, const struct mt_event *ev)
{
	uint64_t pfn = ev->u.page.pfn, i, doubles;
	uint32_t n = 0;
	struct mt_module *m = NULL;
	struct mt_task *t = NULL;
	uint32_t owner = 0;
	bool irq;

	if (pfn == UINT64_MAX) {
		s->c.failed_allocs++;
		goto out;
	}
	if (ev->u.page.order > MAX_ORDER_SEEN) {
		s->c.bad_order++;
		goto out;
	}
	n = 1u << ev->u.page.order;
	irq = mt_event_in_irq(ev);
	t = irq ? &s->tb.tasks[SLOT_IRQ] : task_for(s, ev->tid, ev->ts);
	if (ev->ts < t->seed_ts) {
		s->c.pre_seed_skipped++;
		t = NULL;
		goto out;
	}
	if (!range_ok(s, pfn, n)) {
		t = NULL;
		goto out;
	}
	owner = t->serial;
	if (!irq && t->mod) {
		m = table_module_by_serial(&s->tb, t->mod);
		if (m)
			owner = m->serial | OWNER_MODULE;
	}
	/* pages we believe allocated already: their free was not seen */
	if (n == 1)	/* nearly every allocation: no loop */
		doubles = s->pfn_owner[pfn] != 0;
	else
		for (i = 0, doubles = 0; i < n; i++)
			doubles += s->pfn_owner[pfn + i] != 0;
	if (doubles) {
		s->c.double_allocs += doubles;
		release_range(s, pfn, n);
	}
	if (n == 1)
		s->pfn_owner[pfn] = owner;
	else
		for (i = 0; i < n; i++)
			s->pfn_owner[pfn + i] = owner;
	/*
	 * A huge page a THP collapse may give away (see on_collapse()): the latest
	 * of the highest order since the last collapse. Pages of lower orders
	 * come between its allocation and the collapse (the swap-in of the range's
	 * pages, slab).
	 */
	if (ev->u.page.order && ev->u.page.order >= t->big_order) {
		t->big_pfn = pfn;
		t->big_order = (uint8_t)ev->u.page.order;
	}
	t->alloc_pages += n;
	task_pages(s, t, (int64_t)n, ev->ts);
	if (m)
		charge_module(s, m, (int64_t)n, ev->ts);
	s->sys_cur += (int64_t)n;
	sys_rose(s, t, m, ev->ts);
	if (t->flags & TF_PSEUDO) {	/* irq context, or a task without a slot */
		if (irq)
			s->c.irq_pages += n;
		else if (t == &s->tb.tasks[SLOT_OVERFLOW])
			s->c.task_overflow_pages += n;
		else if (t == &s->tb.tasks[SLOT_TREE_OVERFLOW])
			s->c.tree_overflow_pages += n;
	}
out:
	/* every allocation has its stack record next on its CPU: counted or not */
	if (s->stacks_on)
		stacks_push(&s->sk, ev->cpu, pfn, n, owner, t ? t->serial : 0, ev->ts,
			    t != NULL);
}

/*
 * A stack record: its allocation's pages (those still held as they were) go
 * through the stack, and count for the module in it (the bracket's module,
 * if there was one, gives them up: a page counts once).
 */
static void on_stack(struct stats *s, const struct mt_event *ev)
{
	struct mt_module *bm = NULL, *sm;
	struct stack_pending p;
	uint32_t sid, *smap;
	uint64_t i;
	int64_t k = 0;

	if (!stacks_pop(&s->sk, ev->cpu, &p) || !p.use)
		return;
	sid = stacks_find(&s->sk, &s->tb, ev, ev->ts);
	if (!sid) {
		if (ev->u.stack.n)
			s->sk.c.table_full_pages += p.n;
		return;
	}
	smap = s->sk.pfn_stack + p.pfn;
	for (i = 0; i < p.n; i++) {
		if (s->pfn_owner[p.pfn + i] != p.owner || smap[i])
			continue;	/* freed (and taken again) since */
		smap[i] = sid;
		k++;
	}
	if (!k)
		return;
	stacks_pages(&s->sk, sid, p.task, k, ev->ts);
	sm = stack_module(s, sid);
	if (p.owner & OWNER_MODULE)
		bm = table_module_by_serial(&s->tb, p.owner & ~OWNER_MODULE);
	if (sm && sm != bm) {
		if (bm)
			module_all(s, bm, -k, ev->ts);
		module_all(s, sm, k, ev->ts);
		/* the system peak was this very allocation: the pages were the stack's module's then */
		if (p.ts == s->sys_peak_ts) {
			if (bm)
				bm->cur_at_sys_peak -= k;
			sm->cur_at_sys_peak += k;
		}
	}
}

/* Whether @tid is between its mm_migrate_pages_start and mm_migrate_pages. */
static bool migrating(const struct stats *s, int32_t tid)
{
	uint32_t i;

	for (i = 0; i < s->nmigrating; i++)
		if (s->migrating[i] == tid)
			return true;
	return false;
}

static uint64_t tracked_in(const struct stats *s, uint64_t pfn, uint64_t n)
{
	uint64_t i, k = 0;

	for (i = 0; i < n; i++)
		k += s->pfn_owner[pfn + i] != 0;
	return k;
}

/*
 * Migration (compaction, NUMA balancing, ...): the frees of the old frames
 * come inside these brackets of the migrating task. Compaction takes the new
 * frames without mm_page_alloc, so their owners lose them here: counted.
 */
static void on_migrate(struct stats *s, const struct mt_event *ev)
{
	uint32_t i;

	if (ev->kind == EV_MIGRATE_START) {
		s->c.migrations++;
		if (!migrating(s, ev->tid) && s->nmigrating < sizeof(s->migrating) / sizeof(s->migrating[0]))
			s->migrating[s->nmigrating++] = ev->tid;
		return;
	}
	for (i = 0; i < s->nmigrating; i++)
		if (s->migrating[i] == ev->tid)
			s->migrating[i] = s->migrating[--s->nmigrating];
}

/*
 * THP collapse (khugepaged, or process_madvise(MADV_COLLAPSE) of another
 * process): the collapsing task allocates the huge page, isolates the range
 * (scan_pfn is the old frame of its last pte: its owner is the process), frees
 * the old pages (credited to the process) and, on success, the huge page is
 * the process's: ownership follows it. A collapse in the owner itself moves
 * nothing.
 */
static void on_collapse(struct stats *s, const struct mt_event *ev)
{
	struct mt_task *t = stats_find_task(s, ev->tid), *to;
	uint64_t pfn, n, i, k = 0;
	uint32_t from, *smap;
	uint8_t big;

	if (!t)
		return;
	if (ev->kind == EV_COLLAPSE_ISOLATE) {
		uint32_t o = ev->u.collapse.pfn < s->pfn_hi && s->pfn_owner ?
			     s->pfn_owner[ev->u.collapse.pfn] : 0;

		t->collapse_to = ev->u.collapse.status == 1 && o && !(o & OWNER_MODULE) &&
				 o != t->serial ? o : 0;
		return;
	}
	to = t->collapse_to ? stats_task_by_serial(s, t->collapse_to) : NULL;
	t->collapse_to = 0;
	pfn = t->big_pfn;
	n = 1ULL << t->big_order;
	big = t->big_order;
	t->big_order = 0;	/* the next collapse's huge page is allocated after this one */
	if (ev->u.collapse.status != 1 || !to || !big)
		return;
	if (pfn >= s->cfg.max_pfn || n > s->cfg.max_pfn - pfn)
		return;
	from = t->serial;
	smap = s->stacks_on ? s->sk.pfn_stack : NULL;
	for (i = 0; i < n; i++) {
		if (s->pfn_owner[pfn + i] != from)
			continue;
		s->pfn_owner[pfn + i] = to->serial;
		if (smap && smap[pfn + i]) {
			stacks_pages(&s->sk, smap[pfn + i], from, -1, ev->ts);
			stacks_pages(&s->sk, smap[pfn + i], to->serial, 1, ev->ts);
		}
		k++;
	}
	if (!k)
		return;
	/* given away counts as freed, received as allocated: cur = seed + allocated - freed */
	t->freed_pages += k;
	task_pages(s, t, -(int64_t)k, ev->ts);
	to->alloc_pages += k;
	task_pages(s, to, (int64_t)k, ev->ts);
	s->c.collapses++;
	s->c.collapse_pages += k;
}

static void page_free(struct stats *s, const struct mt_event *ev)
{
	uint32_t n, untracked;

	if (ev->u.page.order > MAX_ORDER_SEEN) {
		s->c.bad_order++;
		return;
	}
	n = 1u << ev->u.page.order;
	if (!range_ok(s, ev->u.page.pfn, n))
		return;
	if (s->nmigrating && migrating(s, ev->tid))
		s->c.migrated_pages += tracked_in(s, ev->u.page.pfn, n);
	untracked = release_pages(s, ev->u.page.pfn, n);
	if (untracked) {
		s->c.untracked_frees++;
		s->c.untracked_free_pages += untracked;
		if (!mt_event_in_irq(ev))
			seed_release(s, ev, untracked);
	}
}

/* A child of a tree task is in the tree (reparenting later does not matter). */
static void tree_join(struct stats *s, const struct mt_task *parent, struct mt_task *child)
{
	if (!(parent->flags & TF_TREE) || (child->flags & TF_TREE) ||
	    (child->flags & TF_PSEUDO))
		return;
	child->flags |= TF_TREE;
	if (child->leader)
		s->tree_threads++;
	else
		s->tree_processes++;
	/* pages it owned before its fork event was read are the tree's now */
	child->cur_at_tree_peak = 0;
	child->tree_epoch = s->tb.tree_epoch;
	s->tree_cur += child->cur;
	if (s->tree_cur > s->tree_peak) {
		s->tree_peak = s->tree_cur;
		s->tree_peak_ts = child->start_ts;
		s->tb.tree_epoch++;
		child->cur_at_tree_peak = child->cur;
		child->tree_epoch = s->tb.tree_epoch;
	}
}

/* A new task under @tid (an alive one there is stale), or NULL. */
static struct mt_task *task_fresh(struct stats *s, int32_t tid, uint64_t ts)
{
	struct mt_task *t = table_task_fresh(&s->tb, tid, ts);

	task_made(s, t);
	return t;
}

/*
 * An event older than a task's seed (the snapshot of /proc taken after tracing
 * began; its events are read later) says nothing the seed does not know: it
 * must not replace, rename or end the seeded task.
 */
static bool before_seed(struct stats *s, const struct mt_task *t, const struct mt_event *ev)
{
	if (!t || ev->ts >= t->seed_ts)
		return false;
	s->c.seed_stale_events++;
	return true;
}

static void on_newtask(struct stats *s, const struct mt_event *ev)
{
	struct mt_task *parent = task_for(s, ev->tid, ev->ts);
	struct mt_task *child = stats_find_task(s, ev->u.newtask.pid);
	uint64_t fl = ev->u.newtask.clone_flags;

	if (child && child->state == TASK_ALIVE && before_seed(s, child, ev))
		return;
	child = task_fresh(s, ev->u.newtask.pid, ev->ts);
	if (!child) {
		tree_child_lost(s, parent, ev->u.newtask.pid);
		return;
	}
	if (parent->flags & TF_PSEUDO) {
		/* a parent without a slot: its process and parent are not known */
		child->tgid = (fl & MT_CLONE_THREAD) ? 0 : child->tid;
	} else if (fl & MT_CLONE_THREAD) {
		child->tgid = parent->tgid ? parent->tgid : parent->tid;
		child->ppid = parent->ppid;
		child->leader = parent->leader ? parent->leader : parent->serial;
	} else {
		child->tgid = child->tid;
		child->ppid = (fl & MT_CLONE_PARENT) ? parent->ppid :
			      (parent->tgid ? parent->tgid : parent->tid);
	}
	if (ev->u.newtask.comm.len)
		table_set_comm(child, ev->u.newtask.comm.s, ev->u.newtask.comm.len);
	else if ((parent->flags & TF_COMM_KNOWN) && !(parent->flags & TF_PSEUDO))
		table_set_comm(child, parent->comm, parent->comm_len);
	if (child->tid == s->tree_root_pid && parent->tid == s->tree_parent_pid)
		tree_root_mark(s, child);
	tree_join(s, parent, child);
}

static void on_fork(struct stats *s, const struct mt_event *ev)
{
	struct mt_task *parent = task_for(s, ev->u.fork.parent, ev->ts);
	struct mt_task *child = stats_find_task(s, ev->u.fork.child);

	if (child && child->state == TASK_ALIVE && before_seed(s, child, ev))
		return;
	/* with task_newtask the child exists already and knows its tgid */
	if (!child || child->state != TASK_ALIVE || !child->tgid) {
		uint64_t seen = s->tb.c.tasks_seen;

		child = table_task_for_new_tid(&s->tb, ev->u.fork.child, ev->ts);
		if (!child) {
			tree_child_lost(s, parent, ev->u.fork.child);
			return;
		}
		if (s->tb.c.tasks_seen != seen)
			task_made(s, child);
		child->tgid = child->tid;
		if (!(parent->flags & TF_PSEUDO))
			child->ppid = parent->tgid ? parent->tgid : parent->tid;
	}
	if (ev->u.fork.comm.len)
		table_set_comm(child, ev->u.fork.comm.s, ev->u.fork.comm.len);
	else if (!(child->flags & TF_COMM_KNOWN) && (parent->flags & TF_COMM_KNOWN) &&
		 !(parent->flags & TF_PSEUDO))
		table_set_comm(child, parent->comm, parent->comm_len);
	if (child->tid == s->tree_root_pid && parent->tid == s->tree_parent_pid)
		tree_root_mark(s, child);
	tree_join(s, parent, child);
}

static void on_exit_event(struct stats *s, const struct mt_event *ev)
{
	struct mt_task *t = stats_find_task(s, ev->u.exit.pid);

	if (!t) {
		tidset_del(&s->tree_lost, ev->u.exit.pid);	/* its tid may come again, unrelated */
		return;
	}
	if (before_seed(s, t, ev))
		return;
	if (ev->u.exit.comm.len)
		table_set_comm(t, ev->u.exit.comm.s, ev->u.exit.comm.len);
	if (t->state == TASK_ALIVE) {
		table_task_exited(&s->tb, t, ev->ts);
		module_task_exit(&s->tb, t, ev->ts);
		/* the process ends with its last thread (group_dead), else with its leader */
		if (ev->u.exit.group_dead == 1 || (ev->u.exit.group_dead < 0 && !t->leader)) {
			process_end(s, stats_process_of(s, t), ev->ts);
			if (!strncmp(t->comm, DUMP_WRITER, sizeof(t->comm)))
				s->c.dump_writer_exits++;
		}
	}
}

static void on_exec(struct stats *s, const struct mt_event *ev)
{
	struct mt_task *t = task_for(s, ev->u.exec.pid, ev->ts);
	const char *f = ev->u.exec.filename.s, *base;
	size_t len = ev->u.exec.filename.len;

	if (before_seed(s, t, ev) || (t->flags & TF_PSEUDO))
		return;
	/*
	 * A non-leader thread that execs takes over the leader's pid (de_thread):
	 * the leader's record, which its exit event closed, lives on as the
	 * process; the thread's own tid is gone.
	 */
	if (ev->u.exec.old_pid != ev->u.exec.pid) {
		struct mt_task *th = stats_find_task(s, ev->u.exec.old_pid);

		if (th && th != t) {
			if ((th->flags & TF_TREE) && !(t->flags & TF_TREE))
				t->flags |= TF_TREE;
			if (th->state == TASK_ALIVE)
				table_task_exited(&s->tb, th, ev->ts);
			table_unhash(&s->tb, th);
		}
		t->state = TASK_ALIVE;
		t->exit_ts = 0;
		t->pexit_ts = 0;
		t->leader = 0;
		t->tgid = ev->u.exec.pid;
	}
	/* task_rename (fired just before) is authoritative; else use the basename */
	if (s->cfg.rename_events || !len)
		return;
	base = f + len;
	while (base > f && base[-1] != '/')
		base--;
	table_set_comm(t, base, (size_t)(f + len - base));
}

static void on_rename(struct stats *s, const struct mt_event *ev)
{
	struct mt_task *t = task_for(s, ev->u.rename.pid, ev->ts);

	if (before_seed(s, t, ev) || (t->flags & TF_PSEUDO))
		return;
	table_set_comm(t, ev->u.rename.comm.s, ev->u.rename.comm.len);
}

static void on_oom(struct stats *s, const struct mt_event *ev)
{
	struct mt_task *t = stats_find_task(s, ev->u.oom.pid);
	size_t len = ev->u.oom.comm.len;

	s->oom_pending = true;
	s->oom_count++;
	s->oom_pid = ev->u.oom.pid;
	s->oom_ts = ev->ts;
	if (!len && t) {
		memcpy(s->oom_comm, t->comm, t->comm_len);
		s->oom_comm[t->comm_len] = '\0';
		return;
	}
	if (len > COMM_LEN - 1)
		len = COMM_LEN - 1;
	memcpy(s->oom_comm, ev->u.oom.comm.s, len);
	s->oom_comm[len] = '\0';
}

/* An event applied, counted (every kind). */
static inline __attribute__((always_inline)) void applied(struct stats *s,
							   const struct mt_event *ev)
{
	s->c.events[ev->kind]++;
	if (!s->first_ts)
		s->first_ts = ev->ts;
	s->last_ts = ev->ts;
}

/*
 * A storm's page events, nearly all of them: one page, of the task found last
 * (task_for()'s and task_of_serial()'s first try), inside the map, with
 * nothing else to do for it. The fast way applies such an event as apply()
 * would, step for step, through the same helpers, without asking what cannot
 * be so: where anything else may be (the event, its task or the stats' state),
 * it says no and apply() takes it. fast_ok(): the stats' state, asked once a
 * run and again after each event apply() took (an event on the fast way
 * changes none of it). test_stats' test_fast_as_apply applies random runs
 * both ways (general_only) and compares the stats.
 */
static inline __attribute__((always_inline)) bool fast_ok(const struct stats *s)
{
	return !(s->tb.renumber_due | s->want_ranges | s->oom_pending | s->stacks_on |
		 s->general_only);
}

/* page_alloc() of one page by the task found last, in its context, to a page the map has free */
static inline __attribute__((always_inline)) bool alloc_fast(struct stats *s,
							      const struct mt_event *ev)
{
	struct mt_task *t = s->last;	/* never a pseudo task: no TF_PSEUDO counts */
	uint64_t pfn = ev->u.page.pfn;

	if (ev->u.page.order || mt_event_in_irq(ev) || t->tid != ev->tid || !t->hashed ||
	    ev->tid == s->cfg.self_pid || pfn >= s->cfg.max_pfn || ev->ts < t->seed_ts ||
	    t->mod || s->pfn_owner[pfn])
		return false;
	applied(s, ev);
	seen(s, pfn, 1);	/* range_ok(): pfn < max_pfn, asked above */
	s->pfn_owner[pfn] = t->serial;
	t->alloc_pages++;
	task_pages(s, t, 1, ev->ts);
	s->sys_cur++;
	sys_rose(s, t, NULL, ev->ts);
	return true;
}

/* page_free() of one page the task found last holds, outside a migration */
static inline __attribute__((always_inline)) bool free_fast(struct stats *s,
							     const struct mt_event *ev)
{
	struct mt_task *t = s->last;
	uint64_t pfn = ev->u.page.pfn;

	/* a task's serial is never 0 nor a module's: the owner is t, found as credit() finds it */
	if (ev->u.page.order || pfn >= s->cfg.max_pfn || s->nmigrating ||
	    s->pfn_owner[pfn] != t->serial)
		return false;
	applied(s, ev);
	seen(s, pfn, 1);	/* range_ok(): pfn < max_pfn, asked above */
	s->sys_cur--;
	t->freed_pages++;
	task_pages(s, t, -1, 0);
	s->pfn_owner[pfn] = 0;
	if (s->pfn_class && s->pfn_class[pfn])
		unclass(s, pfn);
	return true;
}

static inline __attribute__((always_inline)) void apply(struct stats *s,
							 const struct mt_event *ev)
{
	if (s->tb.renumber_due)
		renumber(s);
	if ((unsigned)ev->kind >= EV__COUNT)
		return;
	/*
	 * memtrace's own allocations (reading would otherwise feed itself):
	 * left out here, not by an in-kernel filter that every allocation of
	 * every task would pay for. Its frees are applied: they may return
	 * other tasks' pages (reclaim in its context).
	 */
	if (ev->kind == EV_PAGE_ALLOC && s->cfg.self_pid && ev->tid == s->cfg.self_pid &&
	    !mt_event_in_irq(ev)) {
		s->c.self_allocs++;
		if (s->stacks_on)	/* its stack record follows: it must not pair with another */
			stacks_push(&s->sk, ev->cpu, 0, 0, 0, 0, ev->ts, false);
		return;
	}
	applied(s, ev);
	/* nearly every event: a branch each, not the switch's table */
	if (ev->kind == EV_PAGE_ALLOC) {
		page_alloc(s, ev);
		return;
	}
	if (ev->kind == EV_PAGE_FREE) {
		page_free(s, ev);
		return;
	}
	switch (ev->kind) {
	case EV_NEWTASK:
		on_newtask(s, ev);
		break;
	case EV_FORK:
		on_fork(s, ev);
		break;
	case EV_EXIT:
		on_exit_event(s, ev);
		break;
	case EV_EXEC:
		on_exec(s, ev);
		break;
	case EV_RENAME:
		on_rename(s, ev);
		break;
	case EV_OOM_VICTIM:
		on_oom(s, ev);
		break;
	case EV_FILE_ADD:
	case EV_FILE_DEL:
		on_file(s, ev);
		break;
	case EV_STACK:
		if (s->stacks_on)
			on_stack(s, ev);
		break;
	case EV_COLLAPSE_ISOLATE:
	case EV_COLLAPSE:
		on_collapse(s, ev);
		break;
	case EV_MIGRATE_START:
	case EV_MIGRATE_END:
		on_migrate(s, ev);
		break;
	case EV_MODSYS_ENTER:
	case EV_MOD_LOAD:
		module_event(&s->tb, ev, task_for(s, ev->tid, ev->ts), s->cfg.initmod_start,
			     s->cfg.initmod_end);
		if (ev->kind == EV_MOD_LOAD && s->stacks_on) {
			/* its code comes into the stacks' module ranges (the caller reads them) */
			s->want_ranges = true;
			s->want_ranges_ts = ev->ts;
		}
		break;
	case EV_MOD_PUT:
	case EV_MODSYS_EXIT:
		module_event(&s->tb, ev, stats_find_task(s, ev->tid), s->cfg.initmod_start,
			     s->cfg.initmod_end);
		break;
	case EV_MOD_FREE:
		module_event(&s->tb, ev, NULL, s->cfg.initmod_start, s->cfg.initmod_end);
		break;
	default:
		break;
	}
}

/*
 * While the caller has a module's code to read or an OOM kill to report (it
 * clears the mark once done), a live reader stops after each event: also after
 * the first one read after the boot buffer's kill, or after a catch-up that a
 * module load ended.
 */
static inline __attribute__((always_inline)) bool stop_due(const struct stats *s)
{
	return __builtin_expect(s->want_ranges || s->oom_pending, 0) && s->stop &&
	       (s->want_ranges || s->stop_oom);
}

/*
 * The one copy of apply() (always inline): a run of events in one call, a
 * single event a run of one. The loop's registers are set up once a run, not
 * once an event (bench/hotpath.py).
 */
uint32_t stats_apply_run(struct stats *s, const struct mt_event *ev, uint32_t n, size_t stride)
{
	bool fast = fast_ok(s);
	uint32_t i;

	for (i = 0; i < n; i++, ev = mt_event_next(ev, stride)) {
		if (fast && ((ev->kind == EV_PAGE_FREE && free_fast(s, ev)) ||
			     (ev->kind == EV_PAGE_ALLOC && alloc_fast(s, ev))))
			continue;	/* no stop: fast_ok() said nothing waits */
		apply(s, ev);
		if (stop_due(s)) {
			*s->stop = true;
			return i + 1;
		}
		fast = fast_ok(s);
	}
	return n;
}

void stats_apply(struct stats *s, const struct mt_event *ev)
{
	stats_apply_run(s, ev, 1, 0);
}

void stats_sink(void *ctx, const struct mt_event *ev)
{
	stats_apply(ctx, ev);
}

uint32_t stats_sink_run(void *ctx, const struct mt_event *ev, uint32_t n, size_t stride)
{
	return stats_apply_run(ctx, ev, n, stride);
}
