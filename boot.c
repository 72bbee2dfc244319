// SPDX-License-Identifier: GPL-2.0-only
/* boot.c - module events the kernel recorded at boot (trace_event=), read once at start */
#include "boot.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

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

void boot_page(struct boot_buffer *b, const struct rb_layout *l, const struct mt_decoder *d,
	       const void *page, size_t len, uint32_t cpu)
{
	struct rb_page_info info;
	struct rb_cursor c;
	struct rb_record r;
	int res;

	if (rb_page_open(&c, l, page, len, &info)) {
		b->bad++;
		return;
	}
	b->pages++;
	if (info.missed) {
		if (info.missed_stored)
			b->lost = b->lost > UINT64_MAX - info.lost ? UINT64_MAX : b->lost + info.lost;
		else
			b->lost_unknown++;
	}
	while ((res = rb_next(&c, &r)) == RB_RECORD) {
		struct mt_event ev;
		struct boot_mod_event *be;
		size_t n;

		res = decoder_decode(d, &r, cpu, &ev);
		if (res == DEC_BAD)
			b->bad++;
		if (res != DEC_OK)
			continue;
		b->records++;
		if (ev.kind != EV_MOD_LOAD && ev.kind != EV_MOD_FREE)
			continue;
		if (b->n >= b->cap) {
			b->dropped++;
			continue;
		}
		be = &b->ev[b->n++];
		be->ts = ev.ts;
		be->tid = ev.tid;
		be->kind = (uint8_t)ev.kind;
		n = ev.u.module.name.len < MODNAME_LEN - 1 ? ev.u.module.name.len : MODNAME_LEN - 1;
		memcpy(be->name, ev.u.module.name.s, n);
		be->name[n] = '\0';
	}
	if (res == RB_CORRUPT)
		b->bad++;
}

static int by_ts(const void *a, const void *b)
{
	const struct boot_mod_event *x = a, *y = b;

	return (x->ts > y->ts) - (x->ts < y->ts);
}

uint32_t boot_apply(struct boot_buffer *b, struct stats *s)
{
	uint32_t i;

	/* stable enough: records of one CPU come in time order, ties are rare */
	qsort(b->ev, b->n, sizeof(*b->ev), by_ts);
	for (i = 0; i < b->n; i++) {
		const struct boot_mod_event *be = &b->ev[i];
		size_t len = strlen(be->name);

		if (!len)
			continue;
		if (be->kind == EV_MOD_LOAD) {
			if (stats_module_booted(s, be->name, len, be->tid, be->ts))
				b->applied++;
		} else if (stats_module_gone(s, be->name, len, be->ts)) {
			b->applied++;
		}
	}
	return b->applied;
}
