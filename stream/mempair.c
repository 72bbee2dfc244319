// SPDX-License-Identifier: GPL-2.0-only
/* stream/mempair.c - memory syscalls' entries held per thread until their exits (pure, fixed table) */
#include "stream/mempair.h"

#include <string.h>

int mempair_init(struct mempair *m, uint32_t threads)
{
	memset(m, 0, sizeof(*m));
	return tidtab_init(&m->tab, threads < (1u << 23) ? threads : 1u << 23, sizeof(struct mp_entry));
}

void mempair_free(struct mempair *m)
{
	tidtab_free(&m->tab);
}

void mempair_enter(struct mempair *m, int32_t tid, uint8_t call, uint64_t ts, const uint64_t *arg)
{
	struct mp_entry *e;

	if (tid <= 0 || !m->tab.slot)
		return;
	e = tidtab_find(&m->tab, tid);
	if (e->tid == tid) {
		m->no_exit++;
	} else if (tidtab_full(&m->tab)) {
		m->full++;
		return;
	} else {
		tidtab_claim(&m->tab, e, tid);
	}
	e->call = call;
	e->ts = ts;
	memcpy(e->arg, arg, sizeof(e->arg));
}

bool mempair_exit(struct mempair *m, int32_t tid, uint8_t call, struct mp_entry *out)
{
	struct mp_entry *e;

	if (tid <= 0 || !m->tab.slot)
		return false;
	e = tidtab_find(&m->tab, tid);
	if (e->tid != tid) {
		m->no_entry++;
		return false;
	}
	if (e->call != call) {
		m->mismatched++;
		tidtab_del(&m->tab, e);
		return false;
	}
	*out = *e;
	tidtab_del(&m->tab, e);
	m->paired++;
	return true;
}

void mempair_forget(struct mempair *m, int32_t tid)
{
	struct mp_entry *e;

	if (tid <= 0 || !m->tab.slot)
		return;
	e = tidtab_find(&m->tab, tid);
	if (e->tid == tid) {
		m->no_exit++;
		tidtab_del(&m->tab, e);
	}
}
