// SPDX-License-Identifier: GPL-2.0-only
/* model/table.c - the task and module tables: slots, tid hash, lookups by tid, serial and name, recycling */
#include "model/table.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static uint32_t hash_tid(int32_t tid)
{
	return (uint32_t)tid * 2654435761u;
}

static uint32_t *hash_slot_of(const struct table *tb, int32_t tid)
{
	uint32_t i = hash_tid(tid) & tb->hash_mask;

	for (;;) {
		uint32_t v = tb->hash[i];

		if (!v || tb->tasks[v - 1].tid == tid)
			return &tb->hash[i];
		i = (i + 1) & tb->hash_mask;
	}
}

static void hash_insert(struct table *tb, struct mt_task *t)
{
	uint32_t *h = hash_slot_of(tb, t->tid);

	if (*h)
		tb->tasks[*h - 1].hashed = 0;
	*h = (uint32_t)(t - tb->tasks) + 1;
	t->hashed = 1;
}

/* Remove tid from the hash, keeping probe chains intact (backward shift). */
static void hash_remove(struct table *tb, int32_t tid)
{
	uint32_t i = (uint32_t)(hash_slot_of(tb, tid) - tb->hash), j, k;

	if (!tb->hash[i])
		return;
	tb->tasks[tb->hash[i] - 1].hashed = 0;
	tb->hash[i] = 0;
	for (j = (i + 1) & tb->hash_mask; tb->hash[j]; j = (j + 1) & tb->hash_mask) {
		k = hash_tid(tb->tasks[tb->hash[j] - 1].tid) & tb->hash_mask;
		/* move j to the hole at i unless its home k lies cyclically in (i, j] */
		if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
			continue;
		tb->hash[i] = tb->hash[j];
		tb->hash[j] = 0;
		i = j;
	}
}

int table_init(struct table *tb, uint32_t max_tasks, uint32_t max_modules,
	       uint32_t serial_limit)
{
	static const char *const pseudo[SLOT_FIRST] = { "<irq>", "<overflow>", "<tree-overflow>" };
	uint32_t hsize = 1;
	int i;

	memset(tb, 0, sizeof(*tb));
	if (!serial_limit || serial_limit > OWNER_STALE)
		serial_limit = OWNER_STALE;
	if (max_tasks < SLOT_FIRST + 1 || max_tasks > (1u << 24) || max_modules < 1 ||
	    max_modules > (1u << 20) || serial_limit / 8 < max_tasks)
		return -EINVAL;
	tb->max_tasks = max_tasks;
	tb->max_modules = max_modules;
	tb->serial_limit = serial_limit;
	tb->tree_epoch = 1;
	while (hsize < 2 * max_tasks)
		hsize <<= 1;
	tb->hash_mask = hsize - 1;
	tb->tasks = calloc(max_tasks, sizeof(*tb->tasks));
	tb->hash = calloc(hsize, sizeof(*tb->hash));
	tb->victims = calloc(max_tasks, sizeof(*tb->victims));
	tb->pin = calloc(max_tasks, sizeof(*tb->pin));
	tb->mods = calloc(max_modules, sizeof(*tb->mods));
	if (!tb->tasks || !tb->hash || !tb->victims || !tb->pin || !tb->mods) {
		table_free(tb);
		return -ENOMEM;
	}
	tb->victims_dirty = true;
	for (i = 0; i < SLOT_FIRST; i++) {
		struct mt_task *t = &tb->tasks[i];

		t->tid = -1 - i;
		t->serial = (uint32_t)i + 1;
		t->state = TASK_ALIVE;
		t->flags = TF_PSEUDO | TF_COMM_KNOWN | (i == SLOT_TREE_OVERFLOW ? TF_TREE : 0);
		table_set_comm(t, pseudo[i], strlen(pseudo[i]));
	}
	tb->ntasks_used = SLOT_FIRST;
	return 0;
}

void table_free(struct table *tb)
{
	free(tb->tasks);
	free(tb->hash);
	free(tb->victims);
	free(tb->pin);
	free(tb->mods);
	memset(tb, 0, sizeof(*tb));
}

void table_set_comm(struct mt_task *t, const char *comm, size_t len)
{
	if (len > COMM_LEN - 1)
		len = COMM_LEN - 1;
	memset(t->comm, 0, sizeof(t->comm));
	memcpy(t->comm, comm, len);
	t->comm_len = (uint8_t)len;
	t->flags |= TF_COMM_KNOWN;
}

struct mt_task *table_find_task(const struct table *tb, int32_t tid)
{
	uint32_t v = *hash_slot_of(tb, tid);

	return v ? &tb->tasks[v - 1] : NULL;
}

/* Max-heap of victim slots by peak, so the smallest peaks stay in it. */
/* a leader whose threads did the allocating is as big as its process */
static int64_t victim_peak(const struct mt_task *t)
{
	return t->ppeak > t->peak ? t->ppeak : t->peak;
}

static bool victim_less(const struct table *tb, uint32_t a, uint32_t b)
{
	return victim_peak(&tb->tasks[a]) < victim_peak(&tb->tasks[b]);
}

static void victim_sift_down(struct table *tb, uint32_t i, uint32_t n)
{
	for (;;) {
		uint32_t l = 2 * i + 1, r = l + 1, big = i, tmp;

		if (l < n && victim_less(tb, tb->victims[big], tb->victims[l]))
			big = l;
		if (r < n && victim_less(tb, tb->victims[big], tb->victims[r]))
			big = r;
		if (big == i)
			return;
		tmp = tb->victims[i];
		tb->victims[i] = tb->victims[big];
		tb->victims[big] = tmp;
		i = big;
	}
}

static void victim_sift_up(struct table *tb, uint32_t i)
{
	while (i) {
		uint32_t p = (i - 1) / 2, tmp;

		if (!victim_less(tb, tb->victims[p], tb->victims[i]))
			return;
		tmp = tb->victims[i];
		tb->victims[i] = tb->victims[p];
		tb->victims[p] = tmp;
		i = p;
	}
}

/*
 * Collect the exited tasks with the smallest peaks, a sixteenth of the table
 * at a time, so that recycling costs O(16 log n) per task on average.
 */
static uint32_t victims_batch(const struct table *tb)
{
	return tb->max_tasks / 16 ? tb->max_tasks / 16 : 1;
}

/* table.pin: from the last victim search */
#define PIN_LIVE_PROC	0x01	/* the process (leader) of a task that is alive */
#define PIN_KEEP	0x02	/* must keep its slot */

/* A command tree task whose pages still count: now, or in the at-peak list. */
static bool tree_pages_count(const struct table *tb, const struct mt_task *t)
{
	return (t->flags & TF_TREE) && (t->cur || t->pcur || (t->tree_epoch == tb->tree_epoch &&
							     t->cur_at_tree_peak > 0));
}

/* An exited task that may give its slot away (pins as of the last search). */
static bool recyclable(const struct table *tb, uint32_t slot)
{
	const struct mt_task *t = &tb->tasks[slot];

	return t->state == TASK_EXITED && !(tb->pin[slot] & PIN_KEEP) && !tree_pages_count(tb, t);
}

/*
 * Which exited tasks must keep their slots, because the frees of their pages or
 * a report still needs them:
 *  - the leader of a process with a thread alive: the threads sum into it;
 *  - a task whose pages count for a live process: their frees must find it, or
 *    the process's current stays too high;
 *  - a command tree task whose pages count now or at the tree's peak, and its
 *    leader: the tree total and the at-peak list need both.
 */
static void pins_rebuild(struct table *tb)
{
	uint32_t i;

	memset(tb->pin, 0, tb->ntasks_used * sizeof(*tb->pin));
	for (i = SLOT_FIRST; i < tb->ntasks_used; i++) {
		const struct mt_task *t = &tb->tasks[i];

		if (t->state == TASK_ALIVE)
			tb->pin[table_process_of(tb, t) - tb->tasks] |= PIN_LIVE_PROC;
	}
	for (i = SLOT_FIRST; i < tb->ntasks_used; i++) {
		const struct mt_task *t = &tb->tasks[i];
		uint32_t p = (uint32_t)(table_process_of(tb, t) - tb->tasks);

		if (t->state != TASK_EXITED)
			continue;
		if ((tb->pin[i] & PIN_LIVE_PROC) || (t->cur && (tb->pin[p] & PIN_LIVE_PROC)))
			tb->pin[i] |= PIN_KEEP;
		if (tree_pages_count(tb, t)) {
			tb->pin[i] |= PIN_KEEP;
			tb->pin[p] |= PIN_KEEP;
		}
	}
}

static void victims_rebuild(struct table *tb)
{
	uint32_t want = victims_batch(tb), i, n = 0;

	pins_rebuild(tb);
	for (i = SLOT_FIRST; i < tb->ntasks_used; i++) {
		if (!recyclable(tb, i))
			continue;
		if (n < want) {
			tb->victims[n] = i;
			victim_sift_up(tb, n++);
		} else if (victim_less(tb, i, tb->victims[0])) {
			tb->victims[0] = i;
			victim_sift_down(tb, 0, n);
		}
	}
	/*
	 * A heap is not sorted: heap-sort it (ascending), then reverse it, so
	 * that the array is largest peak first and pops give the smallest.
	 */
	for (i = n; i-- > 1; ) {
		uint32_t tmp = tb->victims[0];

		tb->victims[0] = tb->victims[i];
		tb->victims[i] = tmp;
		victim_sift_down(tb, 0, i);
	}
	for (i = 0; i < n / 2; i++) {
		uint32_t tmp = tb->victims[i];

		tb->victims[i] = tb->victims[n - 1 - i];
		tb->victims[n - 1 - i] = tmp;
	}
	tb->nvictims = n;
}

struct mt_task *table_task_new(struct table *tb, int32_t tid, uint64_t ts)
{
	struct mt_task *t = NULL;
	uint32_t slot, gen = 0;

	if (tb->ntasks_used < tb->max_tasks) {
		slot = tb->ntasks_used++;
	} else {
		for (;;) {
			/* a new search only after an exit: a full table stays cheap */
			if (!tb->nvictims && tb->victims_dirty) {
				victims_rebuild(tb);
				/* a full batch: more candidates may be left for the next search */
				tb->victims_dirty = tb->nvictims >= victims_batch(tb);
			}
			if (!tb->nvictims)
				return NULL;
			slot = tb->victims[--tb->nvictims];
			t = &tb->tasks[slot];
			/* still a victim: it may have changed since the list was made */
			if (recyclable(tb, slot))
				break;
		}
		gen = t->gen + 1;
		if ((uint64_t)gen * tb->max_tasks + slot + 1 >= tb->serial_limit)
			return NULL;	/* not reached: renumber_due came first */
		if (gen > tb->max_gen) {
			tb->max_gen = gen;
			/* a few recycles of margin: stats.c renumbers before the next event */
			if ((uint64_t)(gen + 4) * tb->max_tasks >= tb->serial_limit)
				tb->renumber_due = true;
		}
		if (t->hashed)
			hash_remove(tb, t->tid);
		tb->c.tasks_recycled++;
		if (t->peak > tb->c.recycled_max_peak)
			tb->c.recycled_max_peak = t->peak;
	}
	t = &tb->tasks[slot];
	memset(t, 0, sizeof(*t));
	t->gen = gen;
	t->serial = gen * tb->max_tasks + slot + 1;
	t->tid = tid;
	t->state = TASK_ALIVE;
	t->start_ts = ts;
	if (tid == 0)
		table_set_comm(t, "<idle>", 6);
	hash_insert(tb, t);
	tb->c.tasks_seen++;
	return t;
}

struct mt_task *table_task_for(struct table *tb, int32_t tid, uint64_t ts)
{
	struct mt_task *t = table_find_task(tb, tid);

	if (t)
		return t;
	t = table_task_new(tb, tid, ts);
	if (t)
		return t;
	tb->c.task_overflow_events++;
	return &tb->tasks[SLOT_OVERFLOW];
}

struct mt_task *table_task_for_new_tid(struct table *tb, int32_t tid, uint64_t ts)
{
	struct mt_task *t = table_find_task(tb, tid);

	if (t && t->state == TASK_ALIVE)
		return t;
	t = table_task_new(tb, tid, ts);
	if (!t)
		tb->c.task_overflow_events++;
	return t;
}

void table_task_exited(struct table *tb, struct mt_task *t, uint64_t ts)
{
	t->state = TASK_EXITED;
	t->exit_ts = ts;
	tb->victims_dirty = true;
}

void table_unhash(struct table *tb, struct mt_task *t)
{
	if (t->hashed)
		hash_remove(tb, t->tid);
}

struct mt_task *table_task_fresh(struct table *tb, int32_t tid, uint64_t ts)
{
	struct mt_task *old = table_find_task(tb, tid), *t;

	if (old && old->state == TASK_ALIVE)
		table_task_exited(tb, old, ts);
	if (old)
		table_unhash(tb, old);
	t = table_task_new(tb, tid, ts);
	if (!t)
		tb->c.task_overflow_events++;
	return t;
}

uint32_t table_serial_now(const struct table *tb, uint32_t serial)
{
	const struct mt_task *t = table_task_by_serial(tb, serial);

	if (!serial)
		return 0;
	return t ? (uint32_t)(t - tb->tasks) + 1 : OWNER_STALE;
}

void table_renumber(struct table *tb)
{
	uint32_t i;

	for (i = 0; i < tb->ntasks_used; i++) {
		tb->tasks[i].serial = i + 1;
		tb->tasks[i].gen = 0;
	}
	tb->max_gen = 0;
	tb->renumber_due = false;
	tb->c.renumbered++;
}

struct mt_module *table_module_new(struct table *tb)
{
	struct mt_module *m;

	if (tb->nmods >= tb->max_modules) {
		tb->c.module_overflow++;
		return NULL;
	}
	m = &tb->mods[tb->nmods++];
	memset(m, 0, sizeof(*m));
	m->serial = tb->nmods;
	return m;
}

void table_module_drop_last(struct table *tb)
{
	if (tb->nmods)
		memset(&tb->mods[--tb->nmods], 0, sizeof(*tb->mods));
}

struct mt_module *table_module_by_serial(const struct table *tb, uint32_t serial)
{
	if (!serial || serial > tb->nmods)
		return NULL;
	return &tb->mods[serial - 1];
}

struct mt_module *table_find_module(const struct table *tb, const char *name, size_t len)
{
	uint32_t i;

	for (i = tb->nmods; i-- > 0; ) {
		struct mt_module *m = &tb->mods[i];

		if (strlen(m->name) == len && !memcmp(m->name, name, len))
			return m;
	}
	return NULL;
}
