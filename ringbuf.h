/* SPDX-License-Identifier: GPL-2.0-only */
/* ringbuf.h - pure decoder for ftrace binary sub-buffers (trace_pipe_raw pages) */
#ifndef MEMTRACE_RINGBUF_H
#define MEMTRACE_RINGBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Layout of one sub-buffer, taken from events/header_page (never hard-coded):
 * timestamp at ts_off (8 bytes), the commit word at commit_off (commit_size
 * bytes: the kernel's long), event data at data_off, data_size bytes long.
 */
struct rb_layout {
	uint32_t ts_off;
	uint32_t commit_off;
	uint32_t commit_size;
	uint32_t data_off;
	uint32_t data_size;
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

#endif
