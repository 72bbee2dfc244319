// SPDX-License-Identifier: GPL-2.0-only
/*
 * swaporder.c - rewrite a recording's per-CPU sub-buffers in the other byte
 * order, as the same events traced on a kernel of that order would have
 * written them: the page header (time stamp, commit word, stored lost count),
 * every record header (the bit-field { type_len:5, time_delta:27 } in that
 * order's bit layout) and array word, and every field of every record as its
 * format file describes it (integers, __data_loc/__rel_loc words, and the
 * words of ftrace's kernel_stack caller[] to the end of the record). Byte
 * arrays (comm) and strings stay as they are.
 *
 * It walks the pages itself, not with ringbuf.c, so that the decoder is tested
 * against an independent reading of the layout (ftrace-raw.md 3.2-3.3).
 *
 * Usage: build/tests/swaporder DIR   (rewrites DIR/per_cpu/cpuN/trace_pipe_raw in place)
 * Prints "N pages, N records converted (FROM -> TO)"; exit 1 on anything it
 * cannot convert (an unknown record type, a record past its page).
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/format.h"
#include "kernel/ringbuf.h"

#define MAX_EVENTS	256

static struct fmt_event events[MAX_EVENTS];
static int nevents;
static int word;		/* the kernel's long: 4 or 8 */
static bool from_be;		/* the recording's order */

static void die(const char *what)
{
	fprintf(stderr, "swaporder: %s\n", what);
	exit(1);
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *b;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
		fclose(f);
		return NULL;
	}
	b = malloc((size_t)n + 1);
	if (!b || fread(b, 1, (size_t)n, f) != (size_t)n) {
		fclose(f);
		free(b);
		return NULL;
	}
	fclose(f);
	b[n] = '\0';
	*len = (size_t)n;
	return b;
}

static void swap_bytes(uint8_t *p, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n / 2; i++) {
		uint8_t t = p[i];

		p[i] = p[n - 1 - i];
		p[n - 1 - i] = t;
	}
}

static uint32_t ld32(const uint8_t *p)
{
	return rb_ld32(p, from_be);
}

/* the record header of the source order, rewritten in the other */
static void swap_header(uint8_t *p)
{
	uint32_t h = ld32(p), type_len, delta, out;
	int i;

	type_len = from_be ? h >> 27 : h & 31;
	delta = from_be ? h & 0x07ffffff : h >> 5;
	out = from_be ? delta << 5 | type_len : type_len << 27 | delta;
	for (i = 0; i < 4; i++)		/* stored in the target order */
		p[from_be ? i : 3 - i] = (uint8_t)(out >> (8 * i));
}

static const struct fmt_event *event_of(uint16_t id)
{
	int i;

	for (i = 0; i < nevents; i++)
		if (events[i].id == id)
			return &events[i];
	return NULL;
}

static void swap_payload(uint8_t *d, uint32_t len)
{
	const struct fmt_event *e;
	uint32_t i;

	if (len < 2)
		die("record shorter than its common_type");
	e = event_of(rb_ld16(d, from_be));
	if (!e)
		die("record of an event without a format file");
	for (i = 0; i < e->nfields; i++) {
		const struct fmt_field *f = &e->fields[i];
		uint32_t off;

		if (f->offset + f->size > len)
			continue;	/* a field the record does not hold (caller[] beyond size) */
		switch (f->kind) {
		case FMT_PLAIN:
			if (f->size == 2 || f->size == 4 || f->size == 8)
				swap_bytes(d + f->offset, f->size);
			break;
		case FMT_DATA_LOC:
		case FMT_REL_LOC:
			swap_bytes(d + f->offset, 4);
			break;
		case FMT_ARRAY:
			/* kernel_stack's caller[]: words, as many as the record holds */
			if (!strcmp(f->name, "caller"))
				for (off = f->offset; off + (uint32_t)word <= len; off += (uint32_t)word)
					swap_bytes(d + off, (uint32_t)word);
			break;
		default:
			break;
		}
	}
}

/* one sub-buffer; returns its records */
static uint32_t swap_page(uint8_t *p, const struct rb_layout *l)
{
	uint32_t commit, size, off = 0, recs = 0;
	uint8_t *data = p + l->data_off;

	commit = (uint32_t)rb_ldword(p + l->commit_off, l->commit_size, from_be);
	size = commit & 0x07ffffff;
	if (size > l->data_size)
		die("commit size past the page");
	swap_bytes(p + l->ts_off, 8);
	swap_bytes(p + l->commit_off, l->commit_size);
	if ((commit & (1u << 31)) && (commit & (1u << 30)) &&
	    size + l->commit_size <= l->data_size)
		swap_bytes(data + size, l->commit_size);
	while (off + 4 <= size) {
		uint8_t *ev = data + off;
		uint32_t h = ld32(ev);
		uint32_t type_len = from_be ? h >> 27 : h & 31;
		uint32_t delta = from_be ? h & 0x07ffffff : h >> 5;
		uint32_t array0 = off + 8 <= size ? ld32(ev + 4) : 0, n;

		swap_header(ev);
		if (type_len >= 1 && type_len <= 28) {
			n = 4 + 4 * type_len;
			if (off + n > size)
				die("record past the page's data");
			swap_payload(ev + 4, 4 * type_len);
			recs++;
		} else if (type_len == 0) {
			if (array0 < 4 || off + 4 + array0 > size)
				die("bad type_len 0 length");
			swap_payload(ev + 8, array0 - 4);
			swap_bytes(ev + 4, 4);
			n = (4 + array0 + 3) & ~3u;
			recs++;
		} else if (type_len == 29 && delta == 0) {
			break;		/* the rest of the page is unused */
		} else if (type_len == 29) {
			swap_bytes(ev + 4, 4);	/* the discarded event's bytes stay */
			n = (4 + array0 + 3) & ~3u;
		} else {		/* 30, 31: extend, absolute stamp */
			swap_bytes(ev + 4, 4);
			n = 8;
		}
		off += n;
	}
	return recs;
}

static void read_formats(const char *dir)
{
	char path[4096], err[256];
	struct dirent *s, *e;
	DIR *ds, *de;

	snprintf(path, sizeof(path), "%s/events", dir);
	if (!(ds = opendir(path)))
		die("no events/ directory");
	while ((s = readdir(ds))) {
		if (s->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/events/%s", dir, s->d_name);
		if (!(de = opendir(path)))
			continue;
		while ((e = readdir(de)) && nevents < MAX_EVENTS) {
			char *text;
			size_t len;

			if (e->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/events/%s/%s/format", dir, s->d_name,
				 e->d_name);
			if (!(text = slurp(path, &len)))
				continue;
			if (!fmt_parse_event(&events[nevents], text, len, err, sizeof(err)))
				nevents++;
			free(text);
		}
		closedir(de);
	}
	closedir(ds);
}

int main(int argc, char **argv)
{
	char path[4096], err[256], *text;
	struct rb_layout l;
	uint64_t pages = 0, recs = 0;
	int order = RB_ORDER_UNKNOWN, pass, cpu;
	size_t len;

	if (argc != 2)
		die("usage: swaporder DIR");
	snprintf(path, sizeof(path), "%s/events/header_page", argv[1]);
	if (!(text = slurp(path, &len)) || fmt_parse_header_page(&l, text, len, err, sizeof(err)))
		die("no usable events/header_page");
	free(text);
	word = (int)l.commit_size;
	read_formats(argv[1]);
	/* pass 0: the recording's order, from its pages; pass 1: rewrite them */
	for (pass = 0; pass < 2; pass++) {
		for (cpu = 0; cpu < 4096; cpu++) {
			uint32_t sub = rb_subbuf_size(&l);
			uint8_t *buf;
			size_t off;
			FILE *f;

			snprintf(path, sizeof(path), "%s/per_cpu/cpu%d/trace_pipe_raw", argv[1], cpu);
			if (!(buf = (uint8_t *)slurp(path, &len)))
				continue;
			for (off = 0; off + sub <= len; off += sub) {
				if (pass == 0) {
					int o = rb_detect_order(&l, buf + off, sub);

					if (o != RB_ORDER_UNKNOWN && order == RB_ORDER_UNKNOWN)
						order = o;
					else if (o != RB_ORDER_UNKNOWN && o != order)
						die("pages of both orders");
					continue;
				}
				recs += swap_page(buf + off, &l);
				pages++;
			}
			if (pass == 1) {
				if (len % sub)
					die("a per-CPU file that is not whole sub-buffers");
				if (!(f = fopen(path, "wb")) || fwrite(buf, 1, len, f) != len ||
				    fclose(f))
					die("cannot write back");
			}
			free(buf);
		}
		if (pass == 0 && order == RB_ORDER_UNKNOWN)
			die("no page with data: the order cannot be told");
		from_be = order == RB_ORDER_BE;
	}
	printf("%llu pages, %llu records converted (%s -> %s)\n", (unsigned long long)pages,
	       (unsigned long long)recs, from_be ? "big" : "little", from_be ? "little" : "big");
	return 0;
}
