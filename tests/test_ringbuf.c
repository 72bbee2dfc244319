// SPDX-License-Identifier: GPL-2.0-only
/* test_ringbuf.c - unit tests of the sub-buffer decoder on hand-built and random pages */
#include <stdlib.h>
#include <string.h>

#include "kernel/ringbuf.h"
#include "testutil.h"

#define PG		4096
#define T_PADDING	29
#define T_EXTEND	30
#define T_STAMP		31

/* ck_assert() records its location on every call; loops check with this instead */
#define CHK(expr)							\
	do {								\
		if (!(expr))						\
			ck_abort_msg("check failed: %s", #expr);	\
	} while (0)

/*
 * The byte order the page builder writes in: each test that builds pages runs
 * twice (a loop test: _i 0 little-endian, as x86-64 and arm64 write them; 1
 * big-endian, as s390x does), whatever the order of the machine running it.
 */
static bool BE;

/* A page under construction: bytes plus the layout header_page would give. */
struct pg {
	uint8_t b[PG];
	struct rb_layout l;
	uint32_t off;		/* page offset of the next record */
};

/* v in the builder's byte order, byte by byte (independent of the decoder's loaders) */
static void put_bytes(uint8_t *d, uint64_t v, int n)
{
	int i;

	for (i = 0; i < n; i++)
		d[BE ? n - 1 - i : i] = (uint8_t)(v >> (8 * i));
}

static void put32(uint8_t *d, uint32_t v)
{
	put_bytes(d, v, 4);
}

static void put64(uint8_t *d, uint64_t v)
{
	put_bytes(d, v, 8);
}

/*
 * The record header, the kernel's bit-field { type_len:5, time_delta:27 }:
 * type_len in the low 5 bits of the u32 on a little-endian kernel, in the top
 * 5 bits on a big-endian one.
 */
static uint32_t hdr(uint32_t type_len, uint32_t delta)
{
	return BE ? (type_len << 27) | delta : (delta << 5) | type_len;
}

/* commit_size 8: 64-bit kernel (data at 16); 4: 32-bit kernel (data at 12) */
static void pg_init(struct pg *p, uint64_t ts, uint32_t commit_size)
{
	memset(p, 0, sizeof(*p));
	p->l.ts_off = 0;
	p->l.commit_off = 8;
	p->l.commit_size = commit_size;
	p->l.data_off = 8 + commit_size;
	p->l.data_size = PG - p->l.data_off;
	p->l.big_endian = BE;
	put64(p->b, ts);
	p->off = p->l.data_off;
}

static void pg_u32(struct pg *p, uint32_t v)
{
	CHK(p->off + 4 <= PG);
	put32(p->b + p->off, v);
	p->off += 4;
}

static void pg_fill(struct pg *p, uint32_t len, uint8_t fill)
{
	uint32_t i;

	CHK(p->off + len <= PG);
	for (i = 0; i < len; i++)
		p->b[p->off + i] = (uint8_t)(fill + i);
	p->off += len;
}

/* data record with the length in type_len (len = 4..112, multiple of 4); returns payload offset */
static uint32_t pg_small(struct pg *p, uint32_t delta, uint32_t len, uint8_t fill)
{
	uint32_t at;

	CHK(len % 4 == 0 && len >= 4 && len <= 112);
	pg_u32(p, hdr(len / 4, delta));
	at = p->off;
	pg_fill(p, len, fill);
	return at;
}

/* data record with type_len 0: array[0] = len + 4 counts itself; returns payload offset */
static uint32_t pg_big(struct pg *p, uint32_t delta, uint32_t len, uint8_t fill)
{
	uint32_t at;

	pg_u32(p, hdr(0, delta));
	pg_u32(p, len + 4);
	at = p->off;
	pg_fill(p, len, fill);
	p->off = (p->off + 3) & ~3u;
	return at;
}

/* padding: 4-byte header + array[0] = skip, then skip - 4 bytes of the discarded event */
static void pg_pad(struct pg *p, uint32_t delta, uint32_t skip)
{
	pg_u32(p, hdr(T_PADDING, delta));
	pg_u32(p, skip);
	pg_fill(p, skip - 4, 0xee);
}

static void pg_ext(struct pg *p, uint32_t type, uint32_t delta, uint32_t array0)
{
	pg_u32(p, hdr(type, delta));
	pg_u32(p, array0);
}

static void pg_commit(struct pg *p, uint64_t word)
{
	if (p->l.commit_size == 8)
		put64(p->b + p->l.commit_off, word);
	else
		put32(p->b + p->l.commit_off, (uint32_t)word);
}

/* commit = bytes of data written so far, no flags */
static void pg_seal(struct pg *p)
{
	pg_commit(p, p->off - p->l.data_off);
}

static int pg_open(struct pg *p, struct rb_cursor *c, struct rb_page_info *in)
{
	return rb_page_open(c, &p->l, p->b, PG, in);
}

static void expect_rec(struct rb_cursor *c, uint64_t ts, const uint8_t *data, uint32_t len)
{
	struct rb_record r;

	ck_assert_int_eq(rb_next(c, &r), RB_RECORD);
	ck_assert_uint_eq(r.ts, ts);
	ck_assert_ptr_eq(r.data, data);
	ck_assert_uint_eq(r.len, len);
}

static void expect_end(struct rb_cursor *c)
{
	struct rb_record r;

	ck_assert_int_eq(rb_next(c, &r), RB_END);
	ck_assert_int_eq(rb_next(c, &r), RB_END);	/* stays at the end */
}

static void expect_corrupt_then_end(struct rb_cursor *c)
{
	struct rb_record r;
	uint32_t before = c->corrupt;

	ck_assert_int_eq(rb_next(c, &r), RB_CORRUPT);
	ck_assert_uint_eq(c->corrupt, before + 1);
	expect_end(c);
	ck_assert_uint_eq(c->corrupt, before + 1);
}

START_TEST(test_empty_page)
{
	struct pg *p = calloc(1, sizeof(*p));
	struct rb_cursor c;
	struct rb_page_info in;

	BE = _i != 0;
	pg_init(p, 12345, 8);
	pg_seal(p);
	ck_assert_int_eq(pg_open(p, &c, &in), 0);
	ck_assert_uint_eq(in.ts, 12345);
	ck_assert_uint_eq(in.size, 0);
	ck_assert(!in.missed);
	ck_assert(!in.missed_stored);
	ck_assert_uint_eq(in.lost, 0);
	expect_end(&c);
	ck_assert_uint_eq(c.corrupt, 0);
	/* info may be NULL */
	ck_assert_int_eq(pg_open(p, &c, NULL), 0);
	expect_end(&c);
	free(p);
}
END_TEST

/* type_len 1..28: payload 4*type_len bytes at header+4, deltas accumulate */
START_TEST(test_type_len_1_to_28)
{
	struct pg *p = calloc(1, sizeof(*p));
	struct rb_cursor c;
	uint32_t at[29], tl;
	uint64_t ts = 1000000, want[29];

	BE = _i != 0;
	pg_init(p, ts, 8);
	for (tl = 1; tl <= 28; tl++) {
		at[tl] = pg_small(p, tl * 1000 + 7, 4 * tl, (uint8_t)tl);
		ts += tl * 1000 + 7;
		want[tl] = ts;
	}
	/* 1624 + 4*28 headers = 1736 bytes, well inside the page */
	ck_assert_uint_eq(p->off - 16, 28 * 4 + 4 * (28 * 29 / 2));
	pg_seal(p);
	ck_assert_int_eq(pg_open(p, &c, NULL), 0);
	for (tl = 1; tl <= 28; tl++) {
		struct rb_record r;

		ck_assert_int_eq(rb_next(&c, &r), RB_RECORD);
		ck_assert_uint_eq(r.ts, want[tl]);
		ck_assert_ptr_eq(r.data, p->b + at[tl]);
		ck_assert_uint_eq(r.len, 4 * tl);
		ck_assert_uint_eq(r.data[0], tl);
		ck_assert_uint_eq(r.data[r.len - 1], (uint8_t)(tl + r.len - 1));
	}
	expect_end(&c);
	ck_assert_uint_eq(c.corrupt, 0);
	ck_assert_uint_eq(c.ts, want[28]);
	free(p);
}
END_TEST

/* the maximal time_delta (27 bits) is taken whole */
START_TEST(test_max_delta)
{
	struct pg *p = calloc(1, sizeof(*p));
	struct rb_cursor c;
	uint32_t a, b;

	BE = _i != 0;
	pg_init(p, 5, 8);
	a = pg_small(p, 0x7ffffff, 8, 1);
	b = pg_small(p, 0x7ffffff, 8, 2);
	pg_seal(p);
	ck_assert_int_eq(pg_open(p, &c, NULL), 0);
	expect_rec(&c, 5 + 134217727ULL, p->b + a, 8);
	expect_rec(&c, 5 + 2 * 134217727ULL, p->b + b, 8);
	expect_end(&c);
	free(p);
}
END_TEST

/* type_len 0: u32 length (counting itself) at +4, payload at +8 */
START_TEST(test_type_len_0)
{
	struct pg *p = calloc(1, sizeof(*p));
	struct rb_cursor c;
	uint32_t a, b, d, e;

	BE = _i != 0;
	pg_init(p, 100, 8);
	a = pg_big(p, 10, 120, 0x10);		/* bigger than type_len can say */
	b = pg_big(p, 20, 8, 0x20);		/* small record in long form */
	d = pg_big(p, 30, 0, 0x30);		/* empty payload: array0 == 4 */
	e = pg_small(p, 40, 12, 0x40);
	pg_seal(p);
	ck_assert_uint_eq(a, 16 + 8);
	ck_assert_uint_eq(b, 16 + 128 + 8);
	ck_assert_int_eq(pg_open(p, &c, NULL), 0);
	expect_rec(&c, 110, p->b + a, 120);
	ck_assert_uint_eq(c.off, 128);
	expect_rec(&c, 130, p->b + b, 8);
	expect_rec(&c, 160, p->b + d, 0);
	expect_rec(&c, 200, p->b + e, 12);
	expect_end(&c);
	ck_assert_uint_eq(c.corrupt, 0);
	free(p);
}
END_TEST

/* a length that is not a multiple of 4: the next record is 4-byte aligned */
START_TEST(test_type_len_0_unaligned_length)
{
	struct pg *p = calloc(1, sizeof(*p));
	struct rb_cursor c;
	uint32_t a, b;

	BE = _i != 0;
	pg_init(p, 0, 8);
	a = pg_big(p, 1, 10, 0x10);	/* 4 + 4 + 10 = 18 -> next at 20 */
	b = pg_small(p, 2, 4, 0x20);
	ck_assert_uint_eq(b, 16 + 20 + 4);
	pg_seal(p);
	ck_assert_int_eq(pg_open(p, &c, NULL), 0);
	expect_rec(&c, 1, p->b + a, 10);
	expect_rec(&c, 3, p->b + b, 4);
	expect_end(&c);
	free(p);
}
END_TEST

/* type_len 0 with a length word that cannot be right */
START_TEST(test_type_len_0_bad_length)
{
	static const uint32_t bad[] = { 0, 1, 3, 4096, 0xffffffff, 0x80000000 };
	struct pg *p = calloc(1, sizeof(*p));
	struct rb_cursor c;
	unsigned int i;

	BE = _i != 0;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		uint32_t a;

		pg_init(p, 0, 8);
		a = pg_small(p, 5, 8, 1);
		pg_u32(p, hdr(0, 7));
		pg_u32(p, bad[i]);
		pg_fill(p, 16, 0);
		pg_seal(p);
		ck_assert_int_eq(pg_open(p, &c, NULL), 0);
		expect_rec(&c, 5, p->b + a, 8);
		expect_corrupt_then_end(&c);
	}
	/* length word exactly reaching the end of the data is fine */
	pg_init(p, 0, 8);
	pg_u32(p, hdr(0, 7));
	pg_u32(p, 4 + 24);
	pg_fill(p, 24, 3);
	pg_seal(p);
	ck_assert_int_eq(pg_open(p, &c, NULL), 0);
	expect_rec(&c, 7, p->b + 24, 24);
	expect_end(&c);
	/* ... one byte more is not */
	put32(p->b + 20, 4 + 25);
	ck_assert_int_eq(pg_open(p, &c, NULL), 0);
	expect_corrupt_then_end(&c);
	free(p);
}
END_TEST

/* padding with time_delta 0: the rest of the page is unused */
START_TEST(test_padding_stop)
{
	struct pg *p = calloc(1, sizeof(*p));
	struct rb_cursor c;
	uint32_t a;

	BE = _i != 0;
	pg_init(p, 50, 8);
	a = pg_small(p, 5, 8, 1);
	pg_pad(p, 0, 16);
	pg_small(p, 5, 8, 2);		/* never seen */
	pg_seal(p);
	ck_assert_int_eq(pg_open(p, &c, NULL), 0);
	expect_rec(&c, 55, p->b + a, 8);
	expect_end(&c);
	ck_assert_uint_eq(c.paddings, 0);
	ck_assert_uint_eq(c.corrupt, 0);
	ck_assert_uint_eq(c.ts, 55);

	/* null padding as the very first record, with a garbage length word */
	pg_init(p, 50, 8);
	pg_u32(p, hdr(T_PADDING, 0));
	pg_u32(p, 0xffffffff);
	pg_small(p, 5, 8, 2);
	pg_seal(p);
	ck_assert_int_eq(pg_open(p, &c, NULL), 0);
	expect_end(&c);
	ck_assert_uint_eq(c.corrupt, 0);
	free(p);
}
END_TEST

/* padding with time_delta != 0: a discarded event, skipped, its delta counts */
START_TEST(test_padding_discarded)
{
	struct pg *p = calloc(1, sizeof(*p));
	struct rb_cursor c;
	uint32_t a, b, d;

	BE = _i != 0;
	pg_init(p, 1000, 8);
	a = pg_small(p, 10, 8, 1);
	pg_pad(p, 100, 28);		/* a discarded 32-byte record */
	b = pg_small(p, 5, 16, 2);
	pg_pad(p, 7, 4);		/* the smallest: header + length word */
	pg_pad(p, 9, 120);
	d = pg_big(p, 1, 200, 3);
	pg_seal(p);
	ck_assert_uint_eq(b, 16 + 12 + 32 + 4);
	ck_assert_int_eq(pg_open(p, &c, NULL), 0);
	expect_rec(&c, 1010, p->b + a, 8);
	expect_rec(&c, 1115, p->b + b, 16);
	expect_rec(&c, 1132, p->b + d, 200);
	expect_end(&c);
	ck_assert_uint_eq(c.paddings, 3);
	ck_assert_uint_eq(c.corrupt, 0);
	free(p);
}
END_TEST

START_TEST(test_padding_past_end)
{
	struct pg *p = calloc(1, sizeof(*p));
	struct rb_cursor c;
	uint32_t a;

	BE = _i != 0;
	pg_init(p, 0, 8);
	a = pg_small(p, 3, 4, 1);
	pg_u32(p, hdr(T_PADDING, 9));
	pg_u32(p, 64);			/* claims 68 bytes, only 8 left */
	pg_seal(p);
	ck_assert_int_eq(pg_open(p, &c, NULL), 0);
	expect_rec(&c, 3, p->b + a, 4);
	expect_corrupt_then_end(&c);
	free(p);
}
END_TEST

/* TIME_EXTEND: ts += (array0 << 27) + time_delta; the fact sheet's example */
START_TEST(test_time_extend)
{
	struct pg *p = calloc(1, sizeof(*p));
	struct rb_cursor c;
	uint32_t a, b, d;

	BE = _i != 0;
	pg_init(p, 677225627000ULL, 8);
	a = pg_small(p, 1000, 8, 1);
	/* the fact sheet's 0xfce1a9fe: type_len 30, time_delta 0x7e70d4f */
	pg_ext(p, T_EXTEND, 0x7e70d4f, 2);
	if (!BE)
		ck_assert_uint_eq(rb_ld32(p->b + p->off - 8, false), 0xfce1a9fe);
	b = pg_small(p, 0, 36, 2);
	pg_ext(p, T_EXTEND, 0, 0);	/* an extend of 0 (first record of a page) */
	pg_ext(p, T_EXTEND, 1, 0xffffffff);
	d = pg_small(p, 3, 4, 3);
	pg_seal(p);
	ck_assert_int_eq(pg_open(p, &c, NULL), 0);
	expect_rec(&c, 677225628000ULL, p->b + a, 8);
	expect_rec(&c, 677225628000ULL + 401018191ULL, p->b + b, 36);
	expect_rec(&c, 677225628000ULL + 401018191ULL + (0xffffffffULL << 27) + 1 + 3,
		   p->b + d, 4);
	expect_end(&c);
	ck_assert_uint_eq(c.time_extends, 3);
	ck_assert_uint_eq(c.corrupt, 0);
	free(p);
}
END_TEST

START_TEST(test_time_extend_truncated)
{
	struct pg *p = calloc(1, sizeof(*p));
	struct rb_cursor c;
	uint32_t a;

	BE = _i != 0;
	pg_init(p, 0, 8);
	a = pg_small(p, 3, 4, 1);
	pg_u32(p, hdr(T_EXTEND, 5));	/* array0 missing: data ends here */
	pg_seal(p);
	ck_assert_int_eq(pg_open(p, &c, NULL), 0);
	expect_rec(&c, 3, p->b + a, 4);
	expect_corrupt_then_end(&c);

	/* an extend that ends the data exactly is fine */
	pg_init(p, 0, 8);
	pg_ext(p, T_EXTEND, 5, 1);
	pg_seal(p);
	ck_assert_int_eq(pg_open(p, &c, NULL), 0);
	expect_end(&c);
	ck_assert_uint_eq(c.ts, (1ULL << 27) + 5);
	ck_assert_uint_eq(c.corrupt, 0);
	free(p);
}
END_TEST

/* TIME_STAMP: absolute 59-bit value, bits 59..63 from the running ts, wrap adds 2^59 */
START_TEST(test_time_stamp)
{
	struct pg *p = calloc(1, sizeof(*p));
	struct rb_cursor c;
	uint32_t a, b;
	const uint64_t hi3 = 3ULL << 59;

	BE = _i != 0;
	/* plain: page ts small, bits 59..63 zero */
	pg_init(p, 1000, 8);
	pg_ext(p, T_STAMP, 7, 5);
	a = pg_small(p, 11, 8, 1);
	pg_seal(p);
	ck_assert_int_eq(pg_open(p, &c, NULL), 0);
	expect_rec(&c, (5ULL << 27) + 7 + 11, p->b + a, 8);
	expect_end(&c);
	ck_assert_uint_eq(c.time_stamps, 1);

	/* absolute stamp lower than the running ts with zero high bits: taken as is */
	pg_init(p, 1ULL << 40, 8);
	pg_ext(p, T_STAMP, 2, 0);
	a = pg_small(p, 0, 4, 1);
	pg_seal(p);
	ck_assert_int_eq(pg_open(p, &c, NULL), 0);
	expect_rec(&c, 2, p->b + a, 4);
	expect_end(&c);

	/* high bits copied from the running ts */
	pg_init(p, hi3 + 1000, 8);
	pg_ext(p, T_STAMP, 7, 5);
	a = pg_small(p, 1, 8, 1);
	pg_seal(p);
	ck_assert_int_eq(pg_open(p, &c, NULL), 0);
	expect_rec(&c, hi3 + (5ULL << 27) + 7 + 1, p->b + a, 8);
	expect_end(&c);

	/* smaller than the running ts with high bits set: the 59-bit value wrapped */
	pg_init(p, hi3 + (100ULL << 27), 8);
	pg_ext(p, T_STAMP, 9, 3);
	a = pg_small(p, 0, 8, 1);
	pg_ext(p, T_STAMP, 0, 0xffffffff);	/* the largest 59-bit value, same epoch */
	b = pg_small(p, 0, 8, 2);
	pg_seal(p);
	ck_assert_int_eq(pg_open(p, &c, NULL), 0);
	expect_rec(&c, (4ULL << 59) + (3ULL << 27) + 9, p->b + a, 8);
	expect_rec(&c, (4ULL << 59) + (0xffffffffULL << 27), p->b + b, 8);
	expect_end(&c);
	ck_assert_uint_eq(c.time_stamps, 2);
	ck_assert_uint_eq(c.corrupt, 0);

	/* truncated stamp */
	pg_init(p, 0, 8);
	pg_u32(p, hdr(T_STAMP, 1));
	pg_seal(p);
	ck_assert_int_eq(pg_open(p, &c, NULL), 0);
	expect_corrupt_then_end(&c);
	free(p);
}
END_TEST

/* the commit word with flags has its upper 32 bits set (sign-extended int) */
START_TEST(test_commit_flags_stored)
{
	struct pg *p = calloc(1, sizeof(*p));
	struct rb_cursor c;
	struct rb_page_info in;
	struct rb_record r;
	uint32_t i, n = 0;

	BE = _i != 0;
	pg_init(p, 0x0000009f5d22a801ULL, 8);
	/* 4048 bytes of data: 506 records of type_len 1 */
	for (i = 0; i < 506; i++)
		pg_small(p, 1, 4, (uint8_t)i);
	ck_assert_uint_eq(p->off, 16 + 4048);
	/* the fact sheet's bytes: d0 0f 00 c0 ff ff ff ff (little-endian) */
	if (BE)
		memcpy(p->b + 8, "\xff\xff\xff\xff\xc0\x00\x0f\xd0", 8);
	else
		memcpy(p->b + 8, "\xd0\x0f\x00\xc0\xff\xff\xff\xff", 8);
	put64(p->b + 16 + 4048, 368);
	ck_assert_int_eq(pg_open(p, &c, &in), 0);
	ck_assert_uint_eq(in.ts, 0x0000009f5d22a801ULL);
	ck_assert_uint_eq(in.size, 4048);
	ck_assert(in.missed);
	ck_assert(in.missed_stored);
	ck_assert_uint_eq(in.lost, 368);
	while (rb_next(&c, &r) == RB_RECORD) {
		n++;
		ck_assert_uint_eq(r.len, 4);
		ck_assert_uint_eq(r.ts, 0x0000009f5d22a801ULL + n);
	}
	ck_assert_uint_eq(n, 506);
	ck_assert_uint_eq(c.corrupt, 0);

	/* only MISSED_EVENTS: count unknown */
	pg_commit(p, 0xffffffff80000fd0ULL);
	ck_assert_int_eq(pg_open(p, &c, &in), 0);
	ck_assert_uint_eq(in.size, 4048);
	ck_assert(in.missed);
	ck_assert(!in.missed_stored);
	ck_assert_uint_eq(in.lost, 0);

	/* 32-bit view of the same flags without sign extension */
	pg_commit(p, 0xc0000fd0ULL);
	ck_assert_int_eq(pg_open(p, &c, &in), 0);
	ck_assert_uint_eq(in.size, 4048);
	ck_assert(in.missed && in.missed_stored);
	ck_assert_uint_eq(in.lost, 368);

	/* no flags, junk in the upper word and in bits 27..29: masked away */
	pg_commit(p, 0x1234567838000fd0ULL);
	ck_assert_int_eq(pg_open(p, &c, &in), 0);
	ck_assert_uint_eq(in.size, 4048);
	ck_assert(!in.missed && !in.missed_stored);
	ck_assert_uint_eq(in.lost, 0);

	/* MISSED_STORED alone is not a loss */
	pg_commit(p, 0x40000fd0ULL);
	ck_assert_int_eq(pg_open(p, &c, &in), 0);
	ck_assert(!in.missed);
	ck_assert(!in.missed_stored);
	free(p);
}
END_TEST

/* MISSED_STORED but no room for the count after the data */
START_TEST(test_commit_stored_no_room)
{
	struct pg *p = calloc(1, sizeof(*p));
	struct rb_cursor c;
	struct rb_page_info in;

	BE = _i != 0;
	pg_init(p, 0, 8);
	pg_commit(p, 0xffffffffc0000000ULL | 4076);	/* 4 bytes left of 4080 */
	ck_assert_int_eq(pg_open(p, &c, &in), 0);
	ck_assert_uint_eq(in.size, 4076);
	ck_assert(in.missed);
	ck_assert(!in.missed_stored);
	ck_assert_uint_eq(in.lost, 0);

	/* exactly 8 bytes left: stored */
	pg_commit(p, 0xffffffffc0000000ULL | 4072);
	put64(p->b + 16 + 4072, 0x0102030405060708ULL);
	ck_assert_int_eq(pg_open(p, &c, &in), 0);
	ck_assert(in.missed_stored);
	ck_assert_uint_eq(in.lost, 0x0102030405060708ULL);

	/* partial page: the read returned only header + data, the count is cut off */
	pg_commit(p, 0xffffffffc0000000ULL | 32);
	put64(p->b + 16 + 32, 77);
	ck_assert_int_eq(rb_page_open(&c, &p->l, p->b, 16 + 32, &in), 0);
	ck_assert(in.missed);
	ck_assert(!in.missed_stored);
	ck_assert_uint_eq(in.lost, 0);
	ck_assert_int_eq(rb_page_open(&c, &p->l, p->b, 16 + 32 + 8, &in), 0);
	ck_assert(in.missed_stored);
	ck_assert_uint_eq(in.lost, 77);
	free(p);
}
END_TEST

/* 32-bit kernel: 4-byte commit, data at offset 12, 4-byte lost count */
START_TEST(test_commit_4byte)
{
	struct pg *p = calloc(1, sizeof(*p));
	struct rb_cursor c;
	struct rb_page_info in;
	uint32_t a, b;

	BE = _i != 0;
	pg_init(p, 0x1122334455667788ULL, 4);
	ck_assert_uint_eq(p->l.data_off, 12);
	a = pg_small(p, 2, 8, 1);
	pg_ext(p, T_EXTEND, 1, 1);
	b = pg_big(p, 3, 40, 2);
	ck_assert_uint_eq(a, 16);
	pg_seal(p);
	ck_assert_uint_eq(rb_subbuf_size(&p->l), PG);
	ck_assert_int_eq(pg_open(p, &c, &in), 0);
	ck_assert_uint_eq(in.ts, 0x1122334455667788ULL);
	ck_assert_uint_eq(in.size, 12 + 8 + 48);
	ck_assert(!in.missed);
	expect_rec(&c, 0x1122334455667788ULL + 2, p->b + a, 8);
	expect_rec(&c, 0x1122334455667788ULL + 2 + (1ULL << 27) + 1 + 3, p->b + b, 40);
	expect_end(&c);

	/* flags in a 32-bit long, count is a 32-bit long after the data */
	pg_commit(p, 0xc0000000u | (p->off - 12));
	put32(p->b + p->off, 4242);
	put32(p->b + p->off + 4, 0xffffffff);	/* must not be read */
	ck_assert_int_eq(pg_open(p, &c, &in), 0);
	ck_assert(in.missed && in.missed_stored);
	ck_assert_uint_eq(in.lost, 4242);
	expect_rec(&c, 0x1122334455667788ULL + 2, p->b + a, 8);

	/* size may use all 4084 bytes */
	pg_commit(p, 4084);
	ck_assert_int_eq(pg_open(p, &c, &in), 0);
	pg_commit(p, 4085);
	ck_assert_int_eq(pg_open(p, &c, &in), -1);
	free(p);
}
END_TEST

/* read() returned fewer bytes than the commit says */
START_TEST(test_truncated_page)
{
	struct pg *p = calloc(1, sizeof(*p));
	struct rb_cursor c;
	struct rb_page_info in;
	struct rb_record r;
	uint32_t a;

	BE = _i != 0;
	pg_init(p, 777, 8);
	a = pg_small(p, 1, 40, 1);
	pg_small(p, 1, 40, 2);
	pg_seal(p);	/* 88 bytes */
	/* one byte short */
	ck_assert_int_eq(rb_page_open(&c, &p->l, p->b, 16 + 87, &in), -1);
	ck_assert_uint_eq(in.ts, 777);
	ck_assert_uint_eq(in.size, 88);
	ck_assert_int_eq(rb_next(&c, &r), RB_END);
	/* exactly enough */
	ck_assert_int_eq(rb_page_open(&c, &p->l, p->b, 16 + 88, &in), 0);
	expect_rec(&c, 778, p->b + a, 40);
	/* shorter than the header */
	ck_assert_int_eq(rb_page_open(&c, &p->l, p->b, 15, &in), -1);
	ck_assert_int_eq(rb_next(&c, &r), RB_END);
	ck_assert_int_eq(rb_page_open(&c, &p->l, p->b, 0, NULL), -1);
	ck_assert_int_eq(rb_next(&c, &r), RB_END);
	/* just the header of an empty page */
	pg_commit(p, 0);
	ck_assert_int_eq(rb_page_open(&c, &p->l, p->b, 16, &in), 0);
	expect_end(&c);
	free(p);
}
END_TEST

START_TEST(test_commit_too_large)
{
	struct pg *p = calloc(1, sizeof(*p));
	struct rb_cursor c;
	struct rb_page_info in;
	struct rb_record r;
	uint8_t *two = calloc(2, PG);

	BE = _i != 0;
	pg_init(p, 1, 8);
	pg_commit(p, 4080);
	ck_assert_int_eq(pg_open(p, &c, &in), 0);	/* all zero: type_len 0, len 0 */
	pg_commit(p, 4081);
	ck_assert_int_eq(pg_open(p, &c, &in), -1);
	ck_assert_uint_eq(in.size, 4081);
	ck_assert_int_eq(rb_next(&c, &r), RB_END);
	pg_commit(p, 0x07ffffff);
	ck_assert_int_eq(pg_open(p, &c, &in), -1);
	pg_commit(p, 0xffffffffc7ffffffULL);
	ck_assert_int_eq(pg_open(p, &c, &in), -1);
	ck_assert_int_eq(rb_next(&c, &r), RB_END);
	/* a longer buffer does not stretch the sub-buffer */
	memcpy(two, p->b, PG);
	put64(two + 8, 4100);
	ck_assert_int_eq(rb_page_open(&c, &p->l, two, 2 * PG, &in), -1);
	free(two);
	free(p);
}
END_TEST

/* layouts that cannot be right */
START_TEST(test_bad_layout)
{
	struct pg *p = calloc(1, sizeof(*p));
	struct rb_cursor c;
	struct rb_layout l;

	BE = _i != 0;
	pg_init(p, 1, 8);
	pg_seal(p);
	l = p->l;
	l.data_off = 12;		/* overlaps the 8-byte commit */
	ck_assert_int_eq(rb_page_open(&c, &l, p->b, PG, NULL), -1);
	l = p->l;
	l.ts_off = 12;			/* timestamp runs into the data */
	ck_assert_int_eq(rb_page_open(&c, &l, p->b, PG, NULL), -1);
	free(p);
}
END_TEST

/* a record longer than what is left of the data */
START_TEST(test_record_past_end)
{
	struct pg *p = calloc(1, sizeof(*p));
	struct rb_cursor c;
	uint32_t a;

	BE = _i != 0;
	/* the only record is too long */
	pg_init(p, 0, 8);
	pg_small(p, 1, 40, 1);
	pg_commit(p, 20);
	ck_assert_int_eq(pg_open(p, &c, NULL), 0);
	expect_corrupt_then_end(&c);

	/* the second one */
	pg_init(p, 0, 8);
	a = pg_small(p, 1, 8, 1);
	pg_small(p, 1, 112, 2);
	pg_commit(p, 12 + 100);
	ck_assert_int_eq(pg_open(p, &c, NULL), 0);
	expect_rec(&c, 1, p->b + a, 8);
	expect_corrupt_then_end(&c);

	/* 2 trailing bytes, too short for a header */
	pg_init(p, 0, 8);
	a = pg_small(p, 1, 8, 1);
	pg_commit(p, 14);
	ck_assert_int_eq(pg_open(p, &c, NULL), 0);
	expect_rec(&c, 1, p->b + a, 8);
	expect_corrupt_then_end(&c);

	/* type_len 0 header with no room for its length word */
	pg_init(p, 0, 8);
	a = pg_small(p, 1, 8, 1);
	pg_u32(p, hdr(0, 1));
	pg_seal(p);
	ck_assert_int_eq(pg_open(p, &c, NULL), 0);
	expect_rec(&c, 1, p->b + a, 8);
	expect_corrupt_then_end(&c);
	free(p);
}
END_TEST

/* the fact sheet's worked example, byte for byte */
START_TEST(test_factsheet_page)
{
	static const uint8_t ev1[44] = {
		0x0a, 0x00, 0x00, 0x00, 0x8d, 0x02, 0x00, 0x00, 0x80, 0x3c, 0x00, 0x00,
		0x7b, 0x46, 0x16, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x00, 0xca, 0x0d, 0x14, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	};
	static const uint8_t ev2[16] = {
		0x4a, 0xe3, 0x7c, 0x00, 0x8d, 0x02, 0x00, 0x00, 0x80, 0x3c, 0x00, 0x00,
		0x7c, 0x46, 0x16, 0x00,
	};
	static const uint8_t free_hdr[12] = {
		0xc6, 0x84, 0x14, 0x00, 0x8f, 0x02, 0x00, 0x00, 0xe0, 0x3c, 0x00, 0x00,
	};
	struct pg *p = calloc(1, sizeof(*p));
	struct rb_cursor c;
	struct rb_page_info in;
	struct rb_record r;
	uint64_t pfn;
	uint16_t type;
	int32_t pid;

	BE = false;	/* bytes seen on x86-64 */
	memcpy(p->b, "\xe6\xb7\xc4\x1e\x20\x01\x00\x00\xc8\x0f\x00\x00\x00\x00\x00\x00", 16);
	memcpy(p->b + 0x10, ev1, sizeof(ev1));
	memcpy(p->b + 0x3c, ev2, sizeof(ev2));
	/* ev2 is 44 bytes too (type_len 10); the free record follows at 0x68 */
	memcpy(p->b + 0x68, free_hdr, sizeof(free_hdr));
	put64(p->b + 0x68 + 12, 0x113bd1);
	put64(p->b + 8, 0x68 + 28 - 16);
	p->l = (struct rb_layout){ 0, 8, 8, 16, 4080, false };
	ck_assert_int_eq(rb_detect_order(&p->l, p->b, PG), RB_ORDER_LE);

	ck_assert_int_eq(rb_page_open(&c, &p->l, p->b, PG, &in), 0);
	ck_assert_uint_eq(in.ts, 1237466789862ULL);
	ck_assert_int_eq(rb_next(&c, &r), RB_RECORD);
	ck_assert_uint_eq(r.ts, 1237466789862ULL);
	ck_assert_uint_eq(r.len, 40);
	ck_assert_ptr_eq(r.data, p->b + 0x14);
	type = rb_ld16(r.data, false);
	pid = (int32_t)rb_ld32(r.data + 4, false);
	pfn = rb_ld64(r.data + 8, false);
	ck_assert_uint_eq(type, 653);
	ck_assert_int_eq(pid, 15488);
	ck_assert_uint_eq(pfn, 0x16467b);
	ck_assert_int_eq(rb_next(&c, &r), RB_RECORD);
	ck_assert_uint_eq(r.ts, 1237467045632ULL);
	pfn = rb_ld64(r.data + 8, false);
	ck_assert_uint_eq(pfn, 0x16467c);
	ck_assert_int_eq(rb_next(&c, &r), RB_RECORD);
	ck_assert_uint_eq(r.ts, 1237467045632ULL + 42022);
	ck_assert_uint_eq(r.len, 24);
	type = rb_ld16(r.data, false);
	pid = (int32_t)rb_ld32(r.data + 4, false);
	pfn = rb_ld64(r.data + 8, false);
	ck_assert_uint_eq(type, 655);
	ck_assert_int_eq(pid, 15584);
	ck_assert_uint_eq(pfn, 0x113bd1);
	expect_end(&c);
	free(p);
}
END_TEST

/* the page at odd addresses: 8-byte fields are read without alignment */
START_TEST(test_unaligned)
{
	struct pg *p = calloc(1, sizeof(*p));
	uint8_t *buf = malloc(PG + 16);
	uint32_t a, b, shift;

	BE = _i != 0;
	pg_init(p, 0x0123456789abcdefULL, 8);
	a = pg_small(p, 3, 12, 1);
	pg_ext(p, T_EXTEND, 2, 1);
	pg_ext(p, T_STAMP, 5, 0x40);
	b = pg_big(p, 4, 30, 2);
	pg_commit(p, 0xffffffffc0000000ULL | (p->off - 16));
	put64(p->b + p->off, 0xfedcba9876543210ULL);

	for (shift = 1; shift < 8; shift++) {
		struct rb_cursor c;
		struct rb_page_info in;
		uint8_t *pp = buf + shift;

		memcpy(pp, p->b, PG);
		ck_assert_int_eq(rb_page_open(&c, &p->l, pp, PG, &in), 0);
		ck_assert_uint_eq(in.ts, 0x0123456789abcdefULL);
		ck_assert_uint_eq(in.size, 16 + 8 + 8 + 8 + 32);
		ck_assert(in.missed && in.missed_stored);
		ck_assert_uint_eq(in.lost, 0xfedcba9876543210ULL);
		expect_rec(&c, 0x0123456789abcdefULL + 3, pp + a, 12);
		expect_rec(&c, (0x40ULL << 27) + 5 + 4, pp + b, 30);
		expect_end(&c);
		ck_assert_uint_eq(c.time_extends, 1);
		ck_assert_uint_eq(c.time_stamps, 1);
	}
	free(buf);
	free(p);
}
END_TEST

static uint64_t rng_state;

static uint64_t rnd(void)
{
	/* xorshift64* */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dULL;
}

/* Iterate one page and check termination and bounds; returns records seen. */
static uint32_t walk_checked(const struct rb_layout *l, const uint8_t *page, size_t len)
{
	struct rb_cursor c;
	struct rb_record r;
	uint32_t calls = 0, recs = 0, max_calls;
	int ret;

	if (rb_page_open(&c, l, page, len, NULL)) {
		CHK(rb_next(&c, &r) == RB_END);
		return 0;
	}
	CHK(c.data == page + l->data_off);
	CHK(c.end <= l->data_size);
	CHK(l->data_off + c.end <= len);
	/* every record takes 8 bytes at least; then at most one CORRUPT, then END */
	max_calls = c.end / 8 + 2;
	for (;;) {
		ret = rb_next(&c, &r);
		calls++;
		CHK(calls <= max_calls);
		CHK(c.off <= c.end);
		if (ret == RB_END)
			break;
		if (ret == RB_CORRUPT) {
			CHK(rb_next(&c, &r) == RB_END);
			break;
		}
		CHK(ret == RB_RECORD);
		recs++;
		CHK(r.data >= c.data + 4);
		CHK(r.data + r.len <= c.data + c.end);
	}
	CHK(rb_next(&c, &r) == RB_END);
	return recs;
}

/* a page of random bytes, 8 at a time */
static void fill_random(uint8_t *buf)
{
	uint32_t j;

	for (j = 0; j < PG; j += 8) {
		uint64_t v = rnd();

		memcpy(buf + j, &v, 8);
	}
}

/*
 * Plausible record headers of every type with random time deltas (1 in 8 of
 * them 0), data records of their length, the others a random array length
 * (1 in 16 of any size), up to 128 bytes before the page's end.
 */
static void fill_records(struct pg *p)
{
	while (p->off + 8 <= PG - 128) {
		uint32_t t = (uint32_t)(rnd() % 32);
		uint32_t delta = (uint32_t)rnd() & 0x7ffffff;
		uint32_t arr = (uint32_t)(rnd() % 140);

		if (rnd() % 16 == 0)
			arr = (uint32_t)rnd();
		pg_u32(p, hdr(t, rnd() % 8 == 0 ? 0 : delta));
		if (t >= 1 && t <= 28)
			pg_fill(p, 4 * t, (uint8_t)t);
		else
			pg_u32(p, arr);
	}
}

/* random garbage: must never crash, loop or step outside the page */
START_TEST(test_random_pages)
{
	uint8_t *buf = malloc(PG);
	struct rb_layout l64 = { 0, 8, 8, 16, 4080, _i != 0 }, l32 = { 0, 8, 4, 12, 4084, _i != 0 };
	uint64_t recs = 0;
	int i;

	BE = _i != 0;
	rng_state = 0x9e3779b97f4a7c15ULL;
	for (i = 0; i < 10000; i++) {
		const struct rb_layout *l = (i & 1) ? &l32 : &l64;
		size_t len = PG;

		fill_random(buf);
		/* mostly a plausible commit so that records get walked */
		if (i % 10 != 0) {
			uint64_t commit = rnd() % (l->data_size + 1);

			if (i % 7 == 0)
				commit |= 0xffffffffc0000000ULL;
			put_bytes(buf + 8, commit, (int)l->commit_size);
		}
		if (i % 5 == 0)
			len = (size_t)(rnd() % (PG + 1));
		recs += walk_checked(l, buf, len);
	}
	ck_assert_uint_gt(recs, 0);
	free(buf);
}
END_TEST

/* random but structured: plausible headers with random lengths and types */
START_TEST(test_random_structured)
{
	struct pg *p = calloc(1, sizeof(*p));
	uint64_t recs = 0;
	int i;

	BE = _i != 0;
	rng_state = 0x243f6a8885a308d3ULL;
	for (i = 0; i < 10000; i++) {
		uint64_t commit;

		pg_init(p, rnd(), (i & 1) ? 4 : 8);
		fill_records(p);
		commit = rnd() % (p->l.data_size + 1);
		if (i % 3 == 0)
			commit = p->off - p->l.data_off;
		pg_commit(p, commit);
		recs += walk_checked(&p->l, p->b, PG);
	}
	ck_assert_uint_gt(recs, 0);
	free(p);
}
END_TEST

/* rb_take_data() in the cursor's own byte order, else rb_next(): the reader's walk */
static int take_or_next(struct rb_cursor *c, struct rb_record *r)
{
	if (rb_take_data(c->data, c->end, &c->off, &c->ts, r, c->big_endian))
		return RB_RECORD;
	return rb_next(c, r);
}

/*
 * take_or_next() and rb_next() walk the same page in step: every answer,
 * record and cursor the same, on random structured pages and on garbage
 * (records past the end, every type, short tails).
 */
static void walk_both(const struct rb_layout *l, const uint8_t *page, size_t len)
{
	struct rb_cursor a, b;
	struct rb_record ra, rq;
	uint32_t calls = 0;
	int x, y;

	if (rb_page_open(&a, l, page, len, NULL))
		return;
	b = a;
	do {
		memset(&ra, 0, sizeof(ra));
		memset(&rq, 0, sizeof(rq));
		x = rb_next(&a, &ra);
		y = take_or_next(&b, &rq);
		CHK(x == y);
		CHK(a.off == b.off && a.end == b.end && a.ts == b.ts && a.corrupt == b.corrupt);
		CHK(a.time_extends == b.time_extends && a.time_stamps == b.time_stamps);
		CHK(a.paddings == b.paddings);
		if (x == RB_RECORD)
			CHK(ra.ts == rq.ts && ra.data == rq.data && ra.len == rq.len &&
			    ra.big_endian == rq.big_endian);
		CHK(++calls <= PG);
	} while (x != RB_END);
}

START_TEST(test_quick_same)
{
	struct pg *p = calloc(1, sizeof(*p));
	struct rb_layout l64 = { 0, 8, 8, 16, 4080, _i != 0 };
	uint8_t *buf = malloc(PG);
	int i;

	BE = _i != 0;
	rng_state = 0x13198a2e03707344ULL;
	for (i = 0; i < 4000; i++) {
		pg_init(p, rnd(), (i & 1) ? 4 : 8);
		fill_records(p);
		/* the commit anywhere: records cut at the end, tails under 4 bytes */
		pg_commit(p, i % 3 ? rnd() % (p->l.data_size + 1) : p->off - p->l.data_off);
		walk_both(&p->l, p->b, PG);
		fill_random(buf);
		put_bytes(buf + 8, rnd() % (l64.data_size + 1), 8);
		walk_both(&l64, buf, PG);
	}
	free(buf);
	free(p);
}
END_TEST

/* the loaders read the bytes in the order asked, on any machine */
START_TEST(test_loaders)
{
	static const uint8_t b[8] = { 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08 };

	ck_assert_uint_eq(rb_ld16(b, false), 0x0201);
	ck_assert_uint_eq(rb_ld16(b, true), 0x0102);
	ck_assert_uint_eq(rb_ld32(b, false), 0x04030201);
	ck_assert_uint_eq(rb_ld32(b, true), 0x01020304);
	ck_assert_uint_eq(rb_ld64(b, false), 0x0807060504030201ULL);
	ck_assert_uint_eq(rb_ld64(b, true), 0x0102030405060708ULL);
	ck_assert_uint_eq(rb_ldword(b, 4, true), 0x01020304);
	ck_assert_uint_eq(rb_ldword(b, 8, false), 0x0807060504030201ULL);
	/* unaligned */
	ck_assert_uint_eq(rb_ld32(b + 1, true), 0x02030405);
	ck_assert_uint_eq(rb_ld64(b, RB_HOST_BE), *(const uint64_t *)(const void *)b);
}
END_TEST

/*
 * The order is taken from a page with data: sizes of every kind (below 256
 * with a multiple of 8, which swaps to 0; above; with the flags; 32- and
 * 64-bit kernels), the page built in the loop's order.
 */
START_TEST(test_detect_order)
{
	static const uint32_t sizes[] = { 8, 16, 24, 40, 56, 248, 256, 1000, 2048, 4040 };
	struct pg *p = calloc(1, sizeof(*p));
	int want = _i ? RB_ORDER_BE : RB_ORDER_LE;
	uint32_t k, cs;

	BE = _i != 0;
	for (cs = 4; cs <= 8; cs += 4) {
		for (k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
			pg_init(p, 0x123456789ULL + k, cs);
			while (p->off - p->l.data_off < sizes[k])
				pg_small(p, 3, 4, (uint8_t)k);
			ck_assert_uint_eq(p->off - p->l.data_off, sizes[k]);
			pg_seal(p);
			ck_assert_int_eq(rb_detect_order(&p->l, p->b, PG), want);
			/* the layout's own guess does not matter */
			p->l.big_endian = !p->l.big_endian;
			ck_assert_int_eq(rb_detect_order(&p->l, p->b, PG), want);
			/* with lost events flagged and stored */
			pg_commit(p, (cs == 8 ? 0xffffffffc0000000ULL : 0xc0000000ULL) | sizes[k]);
			put_bytes(p->b + p->off, 7, (int)cs);
			ck_assert_int_eq(rb_detect_order(&p->l, p->b, PG), want);
		}
		/* an empty page says nothing */
		pg_init(p, 5, cs);
		pg_seal(p);
		ck_assert_int_eq(rb_detect_order(&p->l, p->b, PG), RB_ORDER_UNKNOWN);
		/* nor does a page too short for its header */
		ck_assert_int_eq(rb_detect_order(&p->l, p->b, 4), RB_ORDER_UNKNOWN);
	}
	free(p);
}
END_TEST

/*
 * What memtrace did before it knew the order: a page of one order read in
 * the other gives no record at all (an empty or an unusable page), never
 * records of garbage; and in its own order every record.
 */
START_TEST(test_other_order_decodes_nothing)
{
	struct pg *p = calloc(1, sizeof(*p));
	struct rb_cursor c;
	struct rb_record r;
	struct rb_layout other;
	uint32_t i, n = 0;

	BE = _i != 0;
	pg_init(p, 1000, 8);
	for (i = 0; i < 90; i++)
		pg_small(p, 10, 40, (uint8_t)i);
	pg_seal(p);
	other = p->l;
	other.big_endian = !BE;
	if (!rb_page_open(&c, &other, p->b, PG, NULL))
		ck_assert_int_eq(rb_next(&c, &r), RB_END);
	ck_assert_int_eq(rb_page_open(&c, &p->l, p->b, PG, NULL), 0);
	while (rb_next(&c, &r) == RB_RECORD) {
		ck_assert(r.big_endian == BE);
		n++;
	}
	ck_assert_uint_eq(n, 90);
	free(p);
}
END_TEST

Suite *suite_ringbuf(void)
{
	Suite *s = suite_create("ringbuf");
	TCase *tc = tcase_create("records");
	TCase *th = tcase_create("header");
	TCase *tr = tcase_create("random");

	tcase_add_loop_test(tc, test_empty_page, 0, 2);
	tcase_add_loop_test(tc, test_type_len_1_to_28, 0, 2);
	tcase_add_loop_test(tc, test_max_delta, 0, 2);
	tcase_add_loop_test(tc, test_type_len_0, 0, 2);
	tcase_add_loop_test(tc, test_type_len_0_unaligned_length, 0, 2);
	tcase_add_loop_test(tc, test_type_len_0_bad_length, 0, 2);
	tcase_add_loop_test(tc, test_padding_stop, 0, 2);
	tcase_add_loop_test(tc, test_padding_discarded, 0, 2);
	tcase_add_loop_test(tc, test_padding_past_end, 0, 2);
	tcase_add_loop_test(tc, test_time_extend, 0, 2);
	tcase_add_loop_test(tc, test_time_extend_truncated, 0, 2);
	tcase_add_loop_test(tc, test_time_stamp, 0, 2);
	tcase_add_loop_test(tc, test_record_past_end, 0, 2);
	tcase_add_test(tc, test_factsheet_page);
	tcase_add_loop_test(tc, test_unaligned, 0, 2);
	suite_add_tcase(s, tc);

	tcase_add_loop_test(th, test_commit_flags_stored, 0, 2);
	tcase_add_loop_test(th, test_commit_stored_no_room, 0, 2);
	tcase_add_loop_test(th, test_commit_4byte, 0, 2);
	tcase_add_loop_test(th, test_truncated_page, 0, 2);
	tcase_add_loop_test(th, test_commit_too_large, 0, 2);
	tcase_add_loop_test(th, test_bad_layout, 0, 2);
	tcase_add_test(th, test_loaders);
	tcase_add_loop_test(th, test_detect_order, 0, 2);
	tcase_add_loop_test(th, test_other_order_decodes_nothing, 0, 2);
	suite_add_tcase(s, th);

	tcase_set_timeout(tr, 120);
	tcase_add_loop_test(tr, test_random_pages, 0, 2);
	tcase_add_loop_test(tr, test_random_structured, 0, 2);
	tcase_add_loop_test(tr, test_quick_same, 0, 2);
	suite_add_tcase(s, tr);
	return s;
}
