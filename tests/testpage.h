/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * testpage.h - ring-buffer sub-buffers made by hand, for the reader's tests: the
 * layout of 6.18 x86-64 (time stamp 0:8, commit 8:8, data 16:4080), records
 * appended with their time deltas (a TIME_EXTEND where one is needed). Pages and
 * payloads are in this machine's byte order (memcpy), as its kernel would write
 * them: big-endian ones under make check-cross on s390x. (test_ringbuf.c builds
 * both orders on every machine.)
 */
#ifndef MEMTRACE_TESTPAGE_H
#define MEMTRACE_TESTPAGE_H

#include <check.h>
#include <stdint.h>
#include <string.h>

#include "kernel/ringbuf.h"

#define SUBBUF		4096
#define DATA_OFF	16
#define DATA_SIZE	4080

static const struct rb_layout LAYOUT = {
	.ts_off = 0, .commit_off = 8, .commit_size = 8, .data_off = DATA_OFF,
	.data_size = DATA_SIZE, .big_endian = RB_HOST_BE,
};

/* a record header, the bit-field { type_len:5, time_delta:27 } in this machine's layout */
static inline uint32_t pg_hdr(uint32_t type_len, uint32_t delta)
{
	return RB_HOST_BE ? type_len << 27 | delta : delta << 5 | type_len;
}

struct pg {
	uint8_t b[SUBBUF];
	uint32_t size;		/* data bytes used */
	uint64_t ts;		/* running time stamp */
};

static inline void pg_init(struct pg *p, uint64_t ts)
{
	memset(p, 0, sizeof(*p));
	memcpy(p->b, &ts, 8);
	p->ts = ts;
}

static inline void pg_put32(struct pg *p, uint32_t v)
{
	ck_assert_uint_le(p->size + 4, DATA_SIZE);
	memcpy(p->b + DATA_OFF + p->size, &v, 4);
	p->size += 4;
}

/* A TIME_EXTEND of @delta (< 2^59), the page's running time stamp moved on. */
static inline void pg_extend(struct pg *p, uint64_t delta)
{
	pg_put32(p, pg_hdr(30, (uint32_t)(delta & ((1u << 27) - 1))));
	pg_put32(p, (uint32_t)(delta >> 27));
	p->ts += delta;
}

/* One data record (type_len 1..28), with a TIME_EXTEND first if the delta needs one. */
static inline void pg_event(struct pg *p, uint64_t ts, const void *payload, uint32_t len)
{
	uint64_t delta = ts - p->ts;

	ck_assert(ts >= p->ts && len % 4 == 0 && len >= 4 && len <= 112);
	if (delta >= (1u << 27)) {
		pg_extend(p, delta);
		delta = 0;
	}
	pg_put32(p, pg_hdr(len / 4, (uint32_t)delta));
	ck_assert_uint_le(p->size + len, DATA_SIZE);
	memcpy(p->b + DATA_OFF + p->size, payload, len);
	p->size += len;
	p->ts = ts;
}

/* Write the commit word: data size plus the flag bits given. */
static inline void pg_commit(struct pg *p, uint64_t flags)
{
	uint64_t commit = p->size | flags;

	memcpy(p->b + 8, &commit, 8);
}

#endif
