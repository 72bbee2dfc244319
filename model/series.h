/* SPDX-License-Identifier: GPL-2.0-only */
/* model/series.h - memory over time for --svg: fixed samples, halved when full, and bounded markers (pure) */
#ifndef MEMTRACE_MODEL_SERIES_H
#define MEMTRACE_MODEL_SERIES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel/event.h"
#include "stats.h"

#define SERIES_K		24		/* entities kept per sample: the most pages now */
#define SERIES_LIVE_CAP		1024		/* samples of a live run */
#define SERIES_REPLAY_CAP	4096		/* samples of a replay */
#define SERIES_FIRST_NS		10000000ull	/* the first interval: 10 ms */
#define SERIES_MARKS		256		/* markers kept per kind */
#define SERIES_MOD		0x80000000u	/* an entity id with it: a module's index */

/* One entity at a sample: a process (its leader's slot and generation) or a module. */
struct series_ent {
	uint32_t id;		/* task slot, or SERIES_MOD | index in the module table */
	uint32_t gen;		/* the slot's generation (tasks; 0 for modules) */
	int64_t pages;
};

struct series_sample {
	uint64_t ts;		/* trace clock, ns (merged samples: the first one's) */
	int64_t sys;		/* the system's traced pages (stats sys_cur) */
	uint32_t n;		/* entities in top[] */
	struct series_ent top[SERIES_K];	/* largest first */
};

/* A marker on the time axis: an OOM kill (pid, comm), a module load (name), events lost (n). */
struct series_mark {
	uint64_t ts;
	uint64_t n;		/* lost events: how many */
	int32_t pid;
	uint8_t len;
	char name[MODNAME_LEN];	/* raw bytes, @len of them */
};

struct series_marks {
	struct series_mark *m;
	uint32_t cap, n;
	uint64_t overflow;	/* markers that found no room */
};

struct series {
	struct series_sample *s;
	uint32_t cap, n;
	uint64_t interval;	/* ns between samples now (doubles at each halving) */
	uint64_t next_ts;	/* the next sample is due at an event this late */
	uint32_t halvings;
	struct series_marks oom, mods, lost;
	uint64_t lost_seen;	/* lost events already marked */
	size_t bytes;		/* what series_init() allocated */
};

/* Every table once, @cap samples (at least 2) and @marks markers per kind. Return: 0 or -ENOMEM. */
int series_init(struct series *se, uint32_t cap, uint32_t marks);
void series_free(struct series *se);

/* Whether event @ev needs series_event(): a sample is due, or it is a marker's. One compare. */
static inline bool series_due(const struct series *se, const struct mt_event *ev)
{
	return ev->ts >= se->next_ts || ev->kind == EV_OOM_VICTIM || ev->kind == EV_MOD_LOAD;
}

/*
 * series_event() - after stats_apply(@ev): its marker, and a sample when one is
 * due (a scan of the task and module tables, at most once per interval);
 * @lost: the events lost so far (a rise is a marker at this time). Never allocates.
 */
void series_event(struct series *se, const struct stats *st, const struct mt_event *ev,
		  uint64_t lost);

/* The last sample at the end (@ts: the last event's time stamp), and any loss not marked yet. */
void series_final(struct series *se, const struct stats *st, uint64_t ts, uint64_t lost);

/* A sample of @st now at @ts: the system's pages and the SERIES_K largest entities. */
void series_take(struct series_sample *x, const struct stats *st, uint64_t ts);

/*
 * series_add() - append @x; when full, halve first: neighbours merge into one
 * sample keeping each value's maximum (peaks survive), the interval doubles.
 */
void series_add(struct series *se, const struct series_sample *x);

/* A marker; counted in overflow when the list is full. */
void series_mark(struct series_marks *ms, uint64_t ts, uint64_t n, int32_t pid,
		 const char *name, size_t len);

/* The pages of entity (@id, @gen) at sample @x, or -1 when it was not among those kept. */
int64_t series_pages(const struct series_sample *x, uint32_t id, uint32_t gen);

#endif
