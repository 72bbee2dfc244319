/* SPDX-License-Identifier: GPL-2.0-only */
/* kernel/ringbuf.h - pure decoder for ftrace binary sub-buffers (trace_pipe_raw pages) */
#ifndef MEMTRACE_KERNEL_RINGBUF_H
#define MEMTRACE_KERNEL_RINGBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Byte order. The traced kernel's, which need not be this program's: a
 * recording made on s390x (big-endian) is replayed on x86-64, and the reverse.
 * Every multi-byte value of a sub-buffer (its header, record headers, fields,
 * __data_loc words, stack frames) is read through these, never by memcpy into
 * a native integer. The compiler makes each a plain load (and a byte swap for
 * the other order).
 */
#define RB_HOST_BE	(__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__)

static inline uint16_t rb_ld16(const void *p, bool be)
{
	const uint8_t *b = p;

	/* an if, not ?: (gcc's -Wconversion under -fsanitize sees the int inside the casts) */
	if (be)
		return (uint16_t)(b[0] << 8 | b[1]);
	return (uint16_t)(b[1] << 8 | b[0]);
}

static inline uint32_t rb_ld32(const void *p, bool be)
{
	const uint8_t *b = p;

	return be ? (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3] :
		    (uint32_t)b[3] << 24 | (uint32_t)b[2] << 16 | (uint32_t)b[1] << 8 | b[0];
}

static inline uint64_t rb_ld64(const void *p, bool be)
{
	const uint8_t *b = p;
	uint64_t hi = rb_ld32(b + (be ? 0 : 4), be), lo = rb_ld32(b + (be ? 4 : 0), be);

	return hi << 32 | lo;
}

/* An unsigned word of 4 or 8 bytes (the kernel's long). */
static inline uint64_t rb_ldword(const void *p, uint32_t size, bool be)
{
	return size == 8 ? rb_ld64(p, be) : rb_ld32(p, be);
}

/*
 * Layout of one sub-buffer, taken from events/header_page (never hard-coded):
 * timestamp at ts_off (8 bytes), the commit word at commit_off (commit_size
 * bytes: the kernel's long), event data at data_off, data_size bytes long.
 * big_endian: the kernel's byte order (header_page does not say it: the
 * reader takes it from the data, see rb_detect_order()).
 */
struct rb_layout {
	uint32_t ts_off;
	uint32_t commit_off;
	uint32_t commit_size;
	uint32_t data_off;
	uint32_t data_size;
	bool big_endian;
};

/* Sub-buffer size in bytes: what one read() of trace_pipe_raw returns. */
static inline uint32_t rb_subbuf_size(const struct rb_layout *l)
{
	return l->data_off + l->data_size;
}

/* Header facts of one sub-buffer. */
struct rb_page_info {
	uint64_t ts;		/* absolute time stamp of the page */
	uint32_t size;		/* bytes of event data */
	bool missed;		/* RB_MISSED_EVENTS: events lost before this page */
	bool missed_stored;	/* the lost count below is known */
	uint64_t lost;		/* stored lost-event count (0 if not stored) */
};

/* One data record. The payload starts with common_type (u16). */
struct rb_record {
	uint64_t ts;
	const uint8_t *data;
	uint32_t len;
	bool big_endian;	/* the byte order of its page: its fields are in it */
};

/* Iterator over the records of one sub-buffer. Holds no memory of its own. */
struct rb_cursor {
	const uint8_t *data;	/* start of event data */
	uint32_t off;		/* next record, relative to data */
	uint32_t end;		/* bytes of event data (commit size) */
	uint64_t ts;		/* running time stamp */
	uint32_t corrupt;	/* malformed records met (rest of page dropped) */
	uint32_t time_extends;	/* TIME_EXTEND records met */
	uint32_t time_stamps;	/* absolute TIME_STAMP records met */
	uint32_t paddings;	/* discarded-event paddings skipped */
	bool big_endian;	/* the page's byte order (from the layout) */
};

/* Return values of rb_next() */
enum { RB_END = 0, RB_RECORD = 1, RB_CORRUPT = -1 };

/**
 * rb_page_open() - start iterating one sub-buffer
 * @c: cursor to set up
 * @l: layout from header_page
 * @page: the bytes one read() returned
 * @len: how many bytes that read() returned
 * @info: filled with the page header (may be NULL)
 *
 * Return: 0, or -1 if the page is too short or its commit size does not fit
 * in it (the cursor is then empty and info is still filled as far as known).
 */
int rb_page_open(struct rb_cursor *c, const struct rb_layout *l,
		 const void *page, size_t len, struct rb_page_info *info);

/**
 * rb_next() - next data record of a sub-buffer
 *
 * Handles every record type: data (type_len 1..28 and 0), padding (29),
 * TIME_EXTEND (30) and absolute TIME_STAMP (31).
 *
 * Return: RB_RECORD with @r filled, RB_END at the end of the page, or
 * RB_CORRUPT when a record runs past the data (the rest of the page is
 * skipped and c->corrupt incremented; the next call returns RB_END).
 */
int rb_next(struct rb_cursor *c, struct rb_record *r);

/*
 * rb_next()'s answer for a data record of 4 to 112 bytes (type_len 1..28:
 * every page event), read inline, on a cursor's data, end, off and ts given
 * apart (@data, @end, *@off, *@ts): the record into @r, *@off and *@ts moved
 * on: a record read here never comes before the one before it. Return: false,
 * nothing changed, for anything else, which rb_next() reads (the cursor then
 * holds *@off and *@ts), a record whose time stamp would wrap past UINT64_MAX
 * (corrupt data) included. @be is the cursor's byte order, a
 * constant where the caller is compiled once for each order, so that no load
 * asks it again. A caller that keeps the four in locals (the reader's walk)
 * keeps them in registers: a cursor whose address goes to rb_next() is kept in
 * memory.
 */
static inline __attribute__((always_inline)) bool rb_take_data(const uint8_t *data, uint32_t end,
							      uint32_t *off, uint64_t *ts,
							      struct rb_record *r, bool be)
{
	if (*off + 4 <= end) {
		uint32_t h = rb_ld32(data + *off, be);
		uint32_t type_len = be ? h >> 27 : h & 31;
		uint64_t next;

		if (type_len != 0 && type_len <= 28 && 4 + 4 * type_len <= end - *off &&
		    !__builtin_add_overflow(*ts, (uint64_t)(be ? h & 0x07ffffffu : h >> 5), &next)) {
			*ts = next;
			r->ts = *ts;
			r->data = data + *off + 4;
			r->len = 4 * type_len;
			r->big_endian = be;
			*off += 4 + 4 * type_len;
			return true;
		}
	}
	return false;
}

/* Return values of rb_detect_order() */
enum { RB_ORDER_UNKNOWN = -1, RB_ORDER_LE = 0, RB_ORDER_BE = 1 };

/**
 * rb_detect_order() - the byte order of the kernel that wrote a sub-buffer
 * @l: layout from header_page (its big_endian is ignored)
 * @page: the bytes one read() returned
 * @len: how many
 *
 * A page with data tells: read in the other order its commit word gives 0
 * (a 64-bit long's low half is its high half swapped, and that is 0) or a
 * size larger than the page, and its records do not walk to the end. The
 * order in which the size is non-zero and fits and every record walks is the
 * page's. An empty or damaged page, or one that both orders would take
 * (never seen: it would need a size whose byte swap also fits), says nothing.
 * Return: RB_ORDER_LE, RB_ORDER_BE or RB_ORDER_UNKNOWN.
 */
int rb_detect_order(const struct rb_layout *l, const void *page, size_t len);

#endif
