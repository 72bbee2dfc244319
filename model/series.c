// SPDX-License-Identifier: GPL-2.0-only
/*
 * series.c - memory over time for --svg (pure: no I/O)
 *
 * A fixed number of samples, allocated at the start: each one the system's
 * traced pages and the SERIES_K processes and modules that held the most
 * pages at that moment. A sample is taken at the first event at or after the
 * next due time, so the tables are scanned at most once per interval, never per
 * event. When the samples are all used, neighbours merge two by two keeping
 * each value's maximum, so that peaks survive, and the interval doubles: the
 * memory never grows. Markers (OOM kills, module loads, lost events) are
 * bounded lists with a count of those that found no room.
 */
#include "model/series.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int series_init(struct series *se, uint32_t cap, uint32_t marks)
{
	size_t samples, one_kind;
	char *block;

	memset(se, 0, sizeof(*se));
	if (cap < 2)
		cap = 2;
	samples = (size_t)cap * sizeof(*se->s);
	one_kind = (size_t)marks * sizeof(struct series_mark);
	/*
	 * One block for the samples and the three kinds of markers: large enough that
	 * malloc maps it apart from the heap, resident as it is used and never more
	 * (the markers as separate small blocks sat in the heap, below the buffers that
	 * come and go there, and the heap stayed 200 KiB larger with them).
	 */
	block = calloc(1, samples + 3 * one_kind);
	if (!block)
		return -ENOMEM;
	se->s = (struct series_sample *)(void *)block;
	se->oom.m = (struct series_mark *)(void *)(block + samples);
	se->mods.m = (struct series_mark *)(void *)(block + samples + one_kind);
	se->lost.m = (struct series_mark *)(void *)(block + samples + 2 * one_kind);
	se->cap = cap;
	se->oom.cap = se->mods.cap = se->lost.cap = marks;
	se->interval = SERIES_FIRST_NS;
	se->bytes = samples + 3 * one_kind;
	return 0;
}

void series_free(struct series *se)
{
	free(se->s);	/* the block: the markers are in it */
	memset(se, 0, sizeof(*se));
}

/* @e into @x's top list (largest first) if it is among the SERIES_K largest. */
static void top_insert(struct series_sample *x, const struct series_ent *e)
{
	uint32_t i;

	if (x->n == SERIES_K && e->pages <= x->top[SERIES_K - 1].pages)
		return;
	i = x->n < SERIES_K ? x->n++ : SERIES_K - 1;
	while (i > 0 && x->top[i - 1].pages < e->pages) {
		x->top[i] = x->top[i - 1];
		i--;
	}
	x->top[i] = *e;
}

void series_take(struct series_sample *x, const struct stats *st, uint64_t ts)
{
	const struct table *tb = &st->tb;
	struct series_ent e;
	uint32_t i;

	x->ts = ts;
	x->sys = st->sys_cur;
	x->n = 0;
	/* processes as the report's rows are: a leader, or a task whose leader is unknown */
	for (i = 0; i < tb->ntasks_used; i++) {
		const struct mt_task *t = &tb->tasks[i];

		if (t->state == TASK_UNUSED || t->pcur <= 0 || table_process_of(tb, t) != t)
			continue;
		e.id = i;
		e.gen = t->gen;
		e.pages = t->pcur;
		top_insert(x, &e);
	}
	for (i = 0; i < tb->nmods; i++) {
		if (tb->mods[i].all_cur <= 0)
			continue;
		e.id = SERIES_MOD | i;
		e.gen = 0;
		e.pages = tb->mods[i].all_cur;
		top_insert(x, &e);
	}
}

int64_t series_pages(const struct series_sample *x, uint32_t id, uint32_t gen)
{
	uint32_t i;

	for (i = 0; i < x->n; i++)
		if (x->top[i].id == id && x->top[i].gen == gen)
			return x->top[i].pages;
	return -1;
}

/* @a and @b (the next one) as one sample: @a's time, every value's maximum. */
static void merge(struct series_sample *out, const struct series_sample *a,
		  const struct series_sample *b)
{
	struct series_sample m;
	uint32_t i;

	m.ts = a->ts;
	m.sys = a->sys > b->sys ? a->sys : b->sys;
	m.n = 0;
	for (i = 0; i < a->n; i++) {
		struct series_ent e = a->top[i];
		int64_t pb = series_pages(b, e.id, e.gen);

		if (pb > e.pages)
			e.pages = pb;
		top_insert(&m, &e);
	}
	for (i = 0; i < b->n; i++)
		if (series_pages(a, b->top[i].id, b->top[i].gen) < 0)
			top_insert(&m, &b->top[i]);
	*out = m;
}

void series_add(struct series *se, const struct series_sample *x)
{
	uint32_t i;

	if (se->n == se->cap) {
		for (i = 0; 2 * i + 1 < se->n; i++)
			merge(&se->s[i], &se->s[2 * i], &se->s[2 * i + 1]);
		if (se->n % 2)
			se->s[i++] = se->s[se->n - 1];
		se->n = i;
		if (se->interval < UINT64_MAX / 2)	/* many halvings: never wraps to 0 */
			se->interval *= 2;
		se->halvings++;
	}
	se->s[se->n++] = *x;
	se->next_ts = x->ts + se->interval;
}

void series_mark(struct series_marks *ms, uint64_t ts, uint64_t n, int32_t pid,
		 const char *name, size_t len)
{
	struct series_mark *m;

	if (ms->n >= ms->cap) {
		ms->overflow++;
		return;
	}
	m = &ms->m[ms->n++];
	m->ts = ts;
	m->n = n;
	m->pid = pid;
	if (len > sizeof(m->name))
		len = sizeof(m->name);
	m->len = (uint8_t)len;
	if (len)
		memcpy(m->name, name, len);
}

static void sample_now(struct series *se, const struct stats *st, uint64_t ts, uint64_t lost)
{
	struct series_sample x;

	if (lost > se->lost_seen) {
		series_mark(&se->lost, ts, lost - se->lost_seen, 0, NULL, 0);
		se->lost_seen = lost;
	}
	series_take(&x, st, ts);
	series_add(se, &x);
}

void series_event(struct series *se, const struct stats *st, const struct mt_event *ev,
		  uint64_t lost)
{
	if (ev->kind == EV_OOM_VICTIM)
		series_mark(&se->oom, ev->ts, 0, ev->u.oom.pid, st->oom_comm,
			    strnlen(st->oom_comm, sizeof(st->oom_comm)));
	else if (ev->kind == EV_MOD_LOAD)
		series_mark(&se->mods, ev->ts, 0, ev->tid, ev->u.module.name.s,
			    ev->u.module.name.len);
	if (ev->ts >= se->next_ts)
		sample_now(se, st, ev->ts, lost);
}

void series_final(struct series *se, const struct stats *st, uint64_t ts, uint64_t lost)
{
	if (se->n && se->s[se->n - 1].ts >= ts) {
		/* the last sample is this very moment: the loss still gets its marker */
		if (lost > se->lost_seen)
			series_mark(&se->lost, ts, lost - se->lost_seen, 0, NULL, 0);
		se->lost_seen = lost;
		return;
	}
	sample_now(se, st, ts, lost);
}
