// SPDX-License-Identifier: GPL-2.0-only
/* ringbuf.c - pure decoder for ftrace binary sub-buffers: bytes in, records out, no I/O */
#include "ringbuf.h"

#include <string.h>

#define RB_COMMIT_MASK		0x07ffffffu
#define RB_MISSED_EVENTS	(1u << 31)
#define RB_MISSED_STORED	(1u << 30)

#define TYPE_PADDING		29
#define TYPE_TIME_EXTEND	30
#define TYPE_TIME_STAMP		31
#define TS_SHIFT		27
#define TS_MSB_SHIFT		59

static uint32_t get_u32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* Read a native-endian unsigned word of 4 or 8 bytes. */
static uint64_t get_word(const uint8_t *p, uint32_t size)
{
	uint64_t v8;

	if (size == 8) {
		memcpy(&v8, p, 8);
		return v8;
	}
	return get_u32(p);
}

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
	c->ts = get_word(p + l->ts_off, 8);
	commit = (uint32_t)get_word(p + l->commit_off, l->commit_size);
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
			info->lost = get_word(p + l->data_off + size, l->commit_size);
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
		uint32_t h = get_u32(ev);
		uint32_t type_len = h & 31;
		uint32_t delta = h >> 5;
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
			c->off += len;
			return RB_RECORD;
		}
		if (left < 8)
			return corrupt(c);
		array0 = get_u32(ev + 4);
		switch (type_len) {
		case 0:
			/* array0 counts itself; the payload follows it */
			if (array0 < 4 || array0 > left - 4)
				return corrupt(c);
			c->ts += delta;
			r->ts = c->ts;
			r->data = ev + 8;
			r->len = array0 - 4;
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
