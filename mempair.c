// SPDX-License-Identifier: GPL-2.0-only
/* mempair.c - memory syscalls' entries held per thread until their exits (pure, fixed table) */
#include "mempair.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int mempair_init(struct mempair *m, uint32_t threads)
{
	uint32_t size = 16;

	memset(m, 0, sizeof(*m));
	while (size < threads * 2 && size < (1u << 24))
		size *= 2;
	m->e = calloc(size, sizeof(*m->e));
	if (!m->e)
		return -ENOMEM;
	m->mask = size - 1;
	return 0;
}

void mempair_free(struct mempair *m)
{
	free(m->e);
	m->e = NULL;
}

static uint32_t home(const struct mempair *m, int32_t tid)
{
	return ((uint32_t)tid * 2654435761u) & m->mask;
}

/* The slot of @tid, or the free slot where it would go. */
static uint32_t find(const struct mempair *m, int32_t tid)
{
	uint32_t i = home(m, tid);

	while (m->e[i].tid && m->e[i].tid != tid)
		i = (i + 1) & m->mask;
	return i;
}

/* Free slot @i, keeping every probe chain whole (backward shift). */
static void del(struct mempair *m, uint32_t i)
{
	uint32_t j, k;

	m->e[i].tid = 0;
	m->n--;
	for (j = (i + 1) & m->mask; m->e[j].tid; j = (j + 1) & m->mask) {
		k = home(m, m->e[j].tid);
		if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
			continue;
		m->e[i] = m->e[j];
		m->e[j].tid = 0;
		i = j;
	}
}

void mempair_enter(struct mempair *m, int32_t tid, uint8_t call, uint64_t ts, const uint64_t *arg)
{
	uint32_t i;

	if (tid <= 0 || !m->e)
		return;
	i = find(m, tid);
	if (m->e[i].tid == tid) {
		m->no_exit++;
	} else if (m->n >= (m->mask + 1) / 2) {
		m->full++;
		return;
	} else {
		m->n++;
	}
	m->e[i].tid = tid;
	m->e[i].call = call;
	m->e[i].ts = ts;
	memcpy(m->e[i].arg, arg, sizeof(m->e[i].arg));
}

bool mempair_exit(struct mempair *m, int32_t tid, uint8_t call, struct mp_entry *out)
{
	uint32_t i;

	if (tid <= 0 || !m->e)
		return false;
	i = find(m, tid);
	if (m->e[i].tid != tid) {
		m->no_entry++;
		return false;
	}
	if (m->e[i].call != call) {
		m->mismatched++;
		del(m, i);
		return false;
	}
	*out = m->e[i];
	del(m, i);
	m->paired++;
	return true;
}

void mempair_forget(struct mempair *m, int32_t tid)
{
	uint32_t i;

	if (tid <= 0 || !m->e)
		return;
	i = find(m, tid);
	if (m->e[i].tid == tid) {
		m->no_exit++;
		del(m, i);
	}
}
