// SPDX-License-Identifier: GPL-2.0-only
/* kernel/ringbuf.c - pure decoder for ftrace binary sub-buffers: bytes in, records out, no I/O */
#include "kernel/ringbuf.h"

#include <string.h>

#define RB_COMMIT_MASK		0x07ffffffu
#define RB_MISSED_EVENTS	(1u << 31)
#define RB_MISSED_STORED	(1u << 30)

#define TYPE_PADDING		29
#define TYPE_TIME_EXTEND	30
#define TYPE_TIME_STAMP		31
#define TS_SHIFT		27
#define TS_MSB_SHIFT		59

int rb_page_open(struct rb_cursor *c, const struct rb_layout *l,
		 const void *page, size_t len, struct rb_page_info *info)
{
	const uint8_t *p = page;
	uint32_t commit, size;
	size_t avail;

	memset(c, 0, sizeof(*c));
	if (info)
		memset(info, 0, sizeof(*info));
	if (l->data_off < l->commit_off + l->commit_size ||
	    l->data_off < l->ts_off + 8 || len < l->data_off)
		return -1;
	c->big_endian = l->big_endian;
	c->ts = rb_ld64(p + l->ts_off, l->big_endian);
	/* the size and the flags are in the low 32 bits of the long */
	commit = (uint32_t)rb_ldword(p + l->commit_off, l->commit_size, l->big_endian);
	size = commit & RB_COMMIT_MASK;
	if (info) {
		info->ts = c->ts;
		info->size = size;
		info->missed = (commit & RB_MISSED_EVENTS) != 0;
		info->missed_stored = info->missed && (commit & RB_MISSED_STORED);
	}
	avail = len - l->data_off;
	if (avail > l->data_size)
		avail = l->data_size;
	if (size > avail)
		return -1;
	if (info && info->missed_stored) {
		if (size + (size_t)l->commit_size <= avail)
			info->lost = rb_ldword(p + l->data_off + size, l->commit_size,
					       l->big_endian);
		else
			info->missed_stored = false;
	}
	c->data = p + l->data_off;
	c->end = size;
	return 0;
}

static int corrupt(struct rb_cursor *c)
{
	c->corrupt++;
	c->off = c->end;
	return RB_CORRUPT;
}

int rb_next(struct rb_cursor *c, struct rb_record *r)
{
	while (c->off + 4 <= c->end) {
		const uint8_t *ev = c->data + c->off;
		/*
		 * The header is the C bit-field { type_len:5, time_delta:27 }: the
		 * low 5 bits on a little-endian kernel, the top 5 on a big-endian one.
		 */
		uint32_t h = rb_ld32(ev, c->big_endian);
		uint32_t type_len = c->big_endian ? h >> 27 : h & 31;
		uint32_t delta = c->big_endian ? h & 0x07ffffffu : h >> 5;
		uint32_t left = c->end - c->off;
		uint32_t array0 = 0, len;
		uint64_t abs;

		if (type_len != 0 && type_len <= 28) {
			len = 4 + 4 * type_len;
			if (len > left)
				return corrupt(c);
			c->ts += delta;
			r->ts = c->ts;
			r->data = ev + 4;
			r->len = 4 * type_len;
			r->big_endian = c->big_endian;
			c->off += len;
			return RB_RECORD;
		}
		if (left < 8)
			return corrupt(c);
		array0 = rb_ld32(ev + 4, c->big_endian);
		switch (type_len) {
		case 0:
			/* array0 counts itself; the payload follows it */
			if (array0 < 4 || array0 > left - 4)
				return corrupt(c);
			c->ts += delta;
			r->ts = c->ts;
			r->data = ev + 8;
			r->len = array0 - 4;
			r->big_endian = c->big_endian;
			c->off += (4 + array0 + 3) & ~3u;
			if (c->off > c->end)
				c->off = c->end;
			return RB_RECORD;
		case TYPE_PADDING:
			if (delta == 0) {
				/* null padding: the rest of the page is unused */
				c->off = c->end;
				return RB_END;
			}
			/* a discarded event: skip it, keep its delta */
			if (array0 > left - 4)
				return corrupt(c);
			c->paddings++;
			c->ts += delta;
			c->off += (4 + array0 + 3) & ~3u;
			if (c->off > c->end)
				c->off = c->end;
			break;
		case TYPE_TIME_EXTEND:
			c->time_extends++;
			c->ts += ((uint64_t)array0 << TS_SHIFT) + delta;
			c->off += 8;
			break;
		case TYPE_TIME_STAMP:
			c->time_stamps++;
			abs = ((uint64_t)array0 << TS_SHIFT) | delta;
			abs |= c->ts & (0x1fULL << TS_MSB_SHIFT);
			if (abs < c->ts && (c->ts >> TS_MSB_SHIFT))
				abs += 1ULL << TS_MSB_SHIFT;
			c->ts = abs;
			c->off += 8;
			break;
		default:
			return corrupt(c);
		}
	}
	if (c->off < c->end)
		return corrupt(c);	/* trailing bytes too short for a header */
	return RB_END;
}

/* The page read in one byte order: data there, and every record walks to its end. */
static bool page_walks(const struct rb_layout *l, const void *page, size_t len, bool be)
{
	struct rb_layout o = *l;
	struct rb_page_info info;
	struct rb_cursor c;
	struct rb_record r;
	int res;

	o.big_endian = be;
	if (rb_page_open(&c, &o, page, len, &info) || !info.size)
		return false;
	while ((res = rb_next(&c, &r)) == RB_RECORD)
		;
	return res == RB_END && !c.corrupt;
}

int rb_detect_order(const struct rb_layout *l, const void *page, size_t len)
{
	bool le = page_walks(l, page, len, false), be = page_walks(l, page, len, true);

	if (le == be)
		return RB_ORDER_UNKNOWN;
	return be ? RB_ORDER_BE : RB_ORDER_LE;
}
