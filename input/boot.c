// SPDX-License-Identifier: GPL-2.0-only
/* input/boot.c - what the kernel recorded at boot (trace_event=): module loads and page events, read once at start */
#include "input/boot.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "module.h"
#include "kernel/reader.h"
#include "lib/util.h"

int boot_init(struct boot_buffer *b, uint32_t cap)
{
	memset(b, 0, sizeof(*b));
	b->ev = calloc(cap ? cap : 1, sizeof(*b->ev));
	if (!b->ev)
		return -ENOMEM;
	b->cap = cap;
	return 0;
}

void boot_free(struct boot_buffer *b)
{
	free(b->ev);
	b->ev = NULL;
	b->n = b->cap = 0;
}

/* A page event through the accounting: the level, and its highest before and after the initrd's free. */
static void boot_pages(struct boot_buffer *b, const struct mt_event *ev)
{
	int64_t level;

	stats_apply(b->st, ev);
	if (ev->kind != EV_PAGE_ALLOC && ev->kind != EV_PAGE_FREE)
		return;
	if (!b->page_events++)
		b->first_ts = ev->ts;
	b->last_ts = ev->ts;
	level = b->st->sys_cur;
	if (level > b->peak_before && level > b->peak_after)
		b->peak_ts = ev->ts;	/* the first time at the highest */
	if (b->initrd_ts && ev->ts < b->initrd_ts) {
		if (level > b->peak_before)
			b->peak_before = level;
	} else if (level > b->peak_after) {
		b->peak_after = level;
	}
	b->end = level;
}

/* The reader's sink: every decoded record counts, module events are kept, the rest applied. */
static void boot_event(void *ctx, const struct mt_event *ev)
{
	struct boot_buffer *b = ctx;
	struct boot_mod_event *be;
	size_t n;

	b->records++;
	if (ev->kind != EV_MOD_LOAD && ev->kind != EV_MOD_FREE) {
		if (b->st)
			boot_pages(b, ev);
		return;
	}
	if (b->n >= b->cap) {
		b->dropped++;
		return;
	}
	be = &b->ev[b->n++];
	be->ts = ev->ts;
	be->tid = ev->tid;
	be->kind = (uint8_t)ev->kind;
	n = ev->u.module.name.len < MODNAME_LEN - 1 ? ev->u.module.name.len : MODNAME_LEN - 1;
	memcpy(be->name, ev->u.module.name.s, n);
	be->name[n] = '\0';
}

int boot_read(struct boot_buffer *b, const struct rb_layout *l, const struct mt_decoder *d,
	      int ncpus, const int *cpu_ids, const int *fds, const uint64_t *max_pages,
	      uint64_t deadline_ns)
{
	struct reader rd;
	int i;

	bool stacks = b->st && b->st->stacks_on;

	if (reader_init(&rd, l, d, ncpus, cpu_ids, fds, false, true, boot_event, b))
		return -ENOMEM;
	/* no stack record follows a boot buffer's allocation: none is waited for */
	if (stacks)
		b->st->stacks_on = false;
	rd.deadline_ns = deadline_ns;
	for (i = 0; i < ncpus; i++)
		rd.cpus[i].max_pages = max_pages ? max_pages[i] : 0;
	reader_run(&rd, true, 0);
	for (i = 0; i < ncpus; i++) {
		const struct reader_cpu *c = &rd.cpus[i];

		b->pages += c->pages - c->corrupt_pages;
		b->bad += c->corrupt_pages + c->corrupt_records;
		b->lost = sat_add(b->lost, c->lost_stored);
		b->lost_unknown += c->missed_unknown;
		b->truncated += c->truncated;
	}
	b->bad += rd.bad_records;
	reader_free(&rd);
	if (stacks)
		b->st->stacks_on = true;
	return 0;
}

static int by_ts(const void *a, const void *b)
{
	const struct boot_mod_event *x = a, *y = b;

	return (x->ts > y->ts) - (x->ts < y->ts);
}

uint32_t boot_seed(struct boot_buffer *b, uint64_t *pages)
{
	struct stats *s = b->st;
	uint32_t i, n = 0;

	*pages = 0;
	if (!s || !b->page_events)
		return 0;
	for (i = 0; i < s->tb.ntasks_used; i++) {
		struct mt_task *t = &s->tb.tasks[i];

		if (t->state == TASK_UNUSED || t->cur <= 0)
			continue;
		t->flags |= TF_SEEDED;
		t->seed = t->seed_left = (uint64_t)t->cur;
		t->seed_ts = 0;
		*pages += (uint64_t)t->cur;
		n++;
	}
	stats_restart_level(s);
	return n;
}

uint32_t boot_apply(struct boot_buffer *b, struct stats *s)
{
	uint32_t i;

	/* the reader merged the CPUs by time already; events from elsewhere may not be */
	qsort(b->ev, b->n, sizeof(*b->ev), by_ts);
	for (i = 0; i < b->n; i++) {
		const struct boot_mod_event *be = &b->ev[i];
		size_t len = strlen(be->name);

		if (!len)
			continue;
		if (be->kind == EV_MOD_LOAD) {
			if (module_booted(&s->tb, be->name, len, be->tid, be->ts))
				b->applied++;
		} else if (module_gone(&s->tb, be->name, len, be->ts)) {
			b->applied++;
		}
	}
	return b->applied;
}
