// SPDX-License-Identifier: GPL-2.0-only
/* input/boot.c - module events the kernel recorded at boot (trace_event=), read once at start */
#include "input/boot.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "module.h"
#include "kernel/reader.h"

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

/* The reader's sink: every decoded record counts, module events are kept. */
static void boot_event(void *ctx, const struct mt_event *ev)
{
	struct boot_buffer *b = ctx;
	struct boot_mod_event *be;
	size_t n;

	b->records++;
	if (ev->kind != EV_MOD_LOAD && ev->kind != EV_MOD_FREE)
		return;
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

	if (reader_init(&rd, l, d, ncpus, cpu_ids, fds, false, true, boot_event, b))
		return -ENOMEM;
	rd.deadline_ns = deadline_ns;
	for (i = 0; i < ncpus; i++)
		rd.cpus[i].max_pages = max_pages ? max_pages[i] : 0;
	reader_run(&rd, true, 0);
	for (i = 0; i < ncpus; i++) {
		const struct reader_cpu *c = &rd.cpus[i];

		b->pages += c->pages - c->corrupt_pages;
		b->bad += c->corrupt_pages + c->corrupt_records;
		b->lost = b->lost > UINT64_MAX - c->lost_stored ? UINT64_MAX :
			  b->lost + c->lost_stored;
		b->lost_unknown += c->missed_unknown;
		b->truncated += c->truncated;
	}
	b->bad += rd.bad_records;
	reader_free(&rd);
	return 0;
}

static int by_ts(const void *a, const void *b)
{
	const struct boot_mod_event *x = a, *y = b;

	return (x->ts > y->ts) - (x->ts < y->ts);
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
