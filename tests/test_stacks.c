// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_stacks.c - --stacks: kernel_stack records (crafted on both kernels'
 * layouts, and real ones named as the kernel named them), pairing with the
 * allocation, module attribution by the innermost module frame, true running
 * peaks, the table's bounds, kallsyms lookups, hidden addresses.
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/event.h"
#include "kernel/format.h"
#include "kernel/ksyms.h"
#include "kernel/ringbuf.h"
#include "model/stacks.h"
#include "stats.h"

#define MAX_PFN		4096
#define TS		1000000000ull	/* after the ranges' from_ts */

static struct stats S;

static void init_stacks(uint32_t max_stacks, uint32_t cpus)
{
	struct stats_config cfg = {
		.max_tasks = 64,
		.max_modules = 8,
		.max_pfn = MAX_PFN,
		.max_stacks = max_stacks,
		.cpu_ids = cpus,
	};

	ck_assert_int_eq(stats_init(&S, &cfg), 0);
	ck_assert(S.stacks_on);
}

static void teardown(void)
{
	stats_free(&S);
}

static void alloc_on(uint32_t cpu, uint64_t ts, int32_t tid, uint64_t pfn, uint32_t order)
{
	struct mt_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.kind = EV_PAGE_ALLOC;
	ev.cpu = cpu;
	ev.ts = ts;
	ev.tid = tid;
	ev.u.page.pfn = pfn;
	ev.u.page.order = order;
	stats_apply(&S, &ev);
}

static void free_on(uint32_t cpu, uint64_t ts, int32_t tid, uint64_t pfn, uint32_t order)
{
	struct mt_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.kind = EV_PAGE_FREE;
	ev.cpu = cpu;
	ev.ts = ts;
	ev.tid = tid;
	ev.u.page.pfn = pfn;
	ev.u.page.order = order;
	stats_apply(&S, &ev);
}

/* A stack record on @cpu: frames innermost first (8-byte words). */
static void stack_on(uint32_t cpu, uint64_t ts, int32_t tid, const uint64_t *frames, uint32_t n)
{
	struct mt_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.kind = EV_STACK;
	ev.cpu = cpu;
	ev.ts = ts;
	ev.tid = tid;
	ev.u.stack.frames = (const uint8_t *)frames;
	ev.u.stack.n = n;
	ev.u.stack.elem = 8;
	ev.u.stack.big_endian = RB_HOST_BE;	/* frames of this machine's order */
	stats_apply(&S, &ev);
}

static void mod_load(uint64_t ts, int32_t tid, const char *name)
{
	struct mt_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.kind = EV_MOD_LOAD;
	ev.ts = ts;
	ev.tid = tid;
	ev.u.module.name.s = name;
	ev.u.module.name.len = strlen(name);
	ev.u.module.refcnt = 1;
	stats_apply(&S, &ev);
}

static void set_range(const char *name, uint64_t start, uint64_t end)
{
	struct mod_range r;

	memset(&r, 0, sizeof(r));
	snprintf(r.name, sizeof(r.name), "%s", name);
	r.start = start;
	r.end = end;
	ck_assert_int_eq(stacks_set_ranges(&S.sk, &r, 1), 0);
}

static const struct mt_module *mod(const char *name)
{
	const struct mt_module *m = table_find_module(&S.tb, name, strlen(name));

	ck_assert_msg(m != NULL, "no module %s", name);
	return m;
}

static uint32_t stack_of_pfn(uint64_t pfn)
{
	return S.sk.pfn_stack[pfn];
}

/* --------------------------------------------------------- decoding -- */

struct rec {
	uint8_t b[1024];
	struct rb_record r;
};

static void rec_stack(struct rec *x, uint16_t id, int32_t size, uint32_t words,
		      uint32_t caller_off)
{
	uint32_t i;

	memset(x, 0, sizeof(*x));
	memcpy(x->b, &id, 2);
	memcpy(x->b + 4, &(int32_t){ 77 }, 4);
	memcpy(x->b + 8, &size, 4);
	for (i = 0; i < words; i++) {
		uint64_t a = 0xffffffff81000000ull + 0x10 * i;

		memcpy(x->b + caller_off + 8 * i, &a, 8);
	}
	x->r.data = x->b;
	x->r.len = caller_off + 8 * words;
	x->r.big_endian = RB_HOST_BE;	/* built with memcpy: this machine's order */
	x->r.ts = 5;
}

static void decoder_with_stack(struct mt_decoder *d, const char *set)
{
	char rel[256], err[256] = "";
	struct fmt_event fe;
	size_t len;
	char *text;

	snprintf(rel, sizeof(rel), "%s/events/ftrace/kernel_stack/format", set);
	text = read_fixture(rel, &len);
	memset(&fe, 0, sizeof(fe));
	snprintf(fe.system, sizeof(fe.system), "ftrace");
	ck_assert_int_eq(fmt_parse_event(&fe, text, len, err, sizeof(err)), 0);
	free(text);
	decoder_init(d);
	ck_assert_msg(decoder_add(d, mt_tracepoint_find("ftrace", "kernel_stack"), &fe, err,
				  sizeof(err)) == 0, "%s: %s", set, err);
}

/* The format says caller[8]; a record holds @size words, more or fewer. */
static void check_layout(const char *set)
{
	static struct mt_decoder d;
	struct mt_event ev;
	struct rec x;
	uint64_t a;

	decoder_with_stack(&d, set);
	/* 3 frames: a record shorter than caller[8] */
	rec_stack(&x, 4, 3, 3, 16);
	ck_assert_int_eq(decoder_decode(&d, &x.r, 1, &ev), DEC_OK);
	ck_assert_int_eq(ev.kind, EV_STACK);
	ck_assert_uint_eq(ev.u.stack.n, 3);
	ck_assert_uint_eq(ev.u.stack.elem, 8);
	a = rb_ld64(ev.u.stack.frames + 16, ev.u.stack.big_endian);
	ck_assert_uint_eq(a, 0xffffffff81000020ull);
	/* 20 frames: past caller[8], as the kernel writes them */
	rec_stack(&x, 4, 20, 20, 16);
	ck_assert_int_eq(decoder_decode(&d, &x.r, 1, &ev), DEC_OK);
	ck_assert_uint_eq(ev.u.stack.n, 20);
	a = rb_ld64(ev.u.stack.frames + 19 * 8, ev.u.stack.big_endian);
	ck_assert_uint_eq(a, 0xffffffff81000130ull);
	/* size says 20, the record holds 5: what it holds */
	rec_stack(&x, 4, 20, 5, 16);
	ck_assert_int_eq(decoder_decode(&d, &x.r, 1, &ev), DEC_OK);
	ck_assert_uint_eq(ev.u.stack.n, 5);
	/* a negative size, a record cut before its size */
	rec_stack(&x, 4, -1, 2, 16);
	ck_assert_int_eq(decoder_decode(&d, &x.r, 1, &ev), DEC_BAD);
	rec_stack(&x, 4, 2, 0, 16);
	x.r.len = 10;
	ck_assert_int_eq(decoder_decode(&d, &x.r, 1, &ev), DEC_BAD);
}

START_TEST(test_decode_6_18_layout)
{
	check_layout("linux-6.18-stacks");
}
END_TEST

START_TEST(test_decode_6_1_layout)
{
	check_layout("debian-6.1-zram");
}
END_TEST

/* One "<stack trace>" block of the kernel's text: its CPU and its "name+0xoff" lines. */
struct tblock {
	uint32_t cpu;
	uint32_t n;
	char f[64][96];
};

static uint32_t read_blocks(const char *text, struct tblock *b, uint32_t max)
{
	const char *p = text;
	uint32_t nb = 0;

	while (p && *p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		char line[512];
		unsigned cpu;

		snprintf(line, sizeof(line), "%.*s", (int)(len < 511 ? len : 511), p);
		if (strstr(line, "<stack trace>") && nb < max) {
			const char *c = strchr(line, '[');

			ck_assert_ptr_nonnull(c);
			ck_assert_int_eq(sscanf(c, "[%u]", &cpu), 1);
			b[nb].cpu = cpu;
			b[nb++].n = 0;
		} else if (!strncmp(line, " => ", 4) && nb) {
			struct tblock *t = &b[nb - 1];
			char *slash = strchr(line, '/');

			if (slash)
				*slash = '\0';	/* "name+0xoff/0xsize": the size is not ours */
			ck_assert_uint_lt(t->n, 64);
			snprintf(t->f[t->n++], sizeof(t->f[0]), "%.95s", line + 4);
		}
		p = nl ? nl + 1 : NULL;
	}
	return nb;
}

/*
 * Real records of this kernel (tests/fixtures/capture-stacks.sh): each
 * mm_page_alloc is followed by its stack on the same CPU, and every frame,
 * named through the kallsyms lines, is what the kernel printed for it.
 */
START_TEST(test_real_stacks_named_as_the_kernel_did)
{
	static const char *set = "linux-6.18-stacks";
	static struct mt_decoder d;
	static struct tblock blocks[400];
	static struct ksyms k;
	struct rb_layout l;
	struct fmt_event fe;
	char rel[256], err[256] = "", *text, *trace;
	const char *evs[][2] = { { "kmem", "mm_page_alloc" }, { "ftrace", "kernel_stack" } };
	uint32_t nb, cpu, i, seen[2] = { 0, 0 }, frames = 0, deeper = 0;
	size_t len, tlen;

	snprintf(rel, sizeof(rel), "%s/events/header_page", set);
	text = read_fixture(rel, &len);
	ck_assert_int_eq(fmt_parse_header_page(&l, text, len, err, sizeof(err)), 0);
	l.big_endian = false;	/* recorded on x86-64, read directly (no reader to tell) */
	free(text);
	decoder_init(&d);
	for (i = 0; i < 2; i++) {
		snprintf(rel, sizeof(rel), "%s/events/%s/%s/format", set, evs[i][0], evs[i][1]);
		text = read_fixture(rel, &len);
		memset(&fe, 0, sizeof(fe));
		snprintf(fe.system, sizeof(fe.system), "%s", evs[i][0]);
		ck_assert_int_eq(fmt_parse_event(&fe, text, len, err, sizeof(err)), 0);
		free(text);
		ck_assert_int_eq(decoder_add(&d, mt_tracepoint_find(evs[i][0], evs[i][1]), &fe, err,
					     sizeof(err)), 0);
	}
	snprintf(rel, sizeof(rel), "%s/trace.txt", set);
	trace = read_fixture(rel, &tlen);
	nb = read_blocks(trace, blocks, 400);
	free(trace);
	ck_assert_uint_gt(nb, 20);

	/* pass 1: the addresses; then the names, as a report does */
	for (int pass = 0; pass < 2; pass++) {
		if (pass == 1) {
			snprintf(rel, sizeof(rel), "%s/%s/kallsyms.txt", fixtures_dir, set);
			ck_assert_int_eq(ksyms_resolve(&k, rel), 0);
			ck_assert(!k.hidden);
		} else {
			ksyms_init(&k);
		}
		for (cpu = 0; cpu < 2; cpu++) {
			uint32_t b = 0, off;
			bool alloc_before = false;
			char *raw;

			snprintf(rel, sizeof(rel), "%s/per_cpu/cpu%u/trace_pipe_raw", set, cpu);
			raw = read_fixture(rel, &len);
			for (off = 0; off + rb_subbuf_size(&l) <= len; off += rb_subbuf_size(&l)) {
				struct rb_cursor c;
				struct rb_record r;

				ck_assert_int_eq(rb_page_open(&c, &l, raw + off, rb_subbuf_size(&l), NULL), 0);
				while (rb_next(&c, &r) == RB_RECORD) {
					struct mt_event ev;

					if (decoder_decode(&d, &r, cpu, &ev) != DEC_OK)
						continue;
					if (ev.kind == EV_PAGE_ALLOC) {
						alloc_before = true;
						continue;
					}
					ck_assert_int_eq(ev.kind, EV_STACK);
					ck_assert_msg(alloc_before, "cpu%u: a stack without its allocation", cpu);
					alloc_before = false;
					/* the kernel's blocks of this CPU, in order */
					while (b < nb && blocks[b].cpu != cpu)
						b++;
					ck_assert_uint_lt(b, nb);
					ck_assert_uint_eq(ev.u.stack.n, blocks[b].n);
					for (i = 0; i < ev.u.stack.n; i++) {
						uint64_t a, o = 0;
						char got[128];
						const char *name;

						a = rb_ld64(ev.u.stack.frames + 8 * i,
							    ev.u.stack.big_endian);
						if (!pass) {
							ck_assert_int_eq(ksyms_want(&k, a), 0);
							continue;
						}
						name = ksyms_name(&k, a, &o);
						ck_assert_msg(name != NULL, "0x%llx unnamed",
							      (unsigned long long)a);
						snprintf(got, sizeof(got), "%s+0x%llx", name,
							 (unsigned long long)o);
						ck_assert_str_eq(got, blocks[b].f[i]);
						frames++;
					}
					deeper += pass && ev.u.stack.n > 8;
					seen[cpu] += pass;
					b++;
				}
			}
			free(raw);
		}
	}
	ck_assert_uint_eq(seen[0] + seen[1], nb);	/* every block of the kernel's text */
	ck_assert_uint_gt(frames, 200);
	ck_assert_uint_gt(deeper, 0);	/* stacks beyond the format's caller[8] */
	ksyms_free(&k);
}
END_TEST

/* --------------------------------------------------------- pairing -- */

static const uint64_t F1[] = { 0xffffffff81001000ull, 0xffffffff81002000ull, 0xffffffff81003000ull };
static const uint64_t F2[] = { 0xffffffff81001000ull, 0xffffffff81002100ull, 0xffffffff81003000ull };

START_TEST(test_pairing_cpus_interleaved)
{
	init_stacks(64, 4);
	/* cpu0 and cpu2 allocate, their stacks come in the other order */
	alloc_on(0, TS + 1, 100, 10, 0);
	alloc_on(2, TS + 2, 200, 20, 1);
	stack_on(2, TS + 3, 200, F2, 3);
	stack_on(0, TS + 4, 100, F1, 3);
	ck_assert_uint_ne(stack_of_pfn(10), 0);
	ck_assert_uint_eq(S.sk.st[stack_of_pfn(10)].nframes, 3);
	ck_assert_uint_eq(stacks_frames(&S.sk, stack_of_pfn(10))[1], F1[1]);
	ck_assert_uint_eq(stacks_frames(&S.sk, stack_of_pfn(20))[1], F2[1]);
	ck_assert_uint_eq(stack_of_pfn(21), stack_of_pfn(20));	/* both pages of order 1 */
	ck_assert_int_eq(S.sk.st[stack_of_pfn(20)].cur, 2);
	/* an interrupt's allocation between an allocation and its stack: last in, first out */
	alloc_on(1, TS + 5, 100, 30, 0);
	alloc_on(1, TS + 6, 0, 31, 0);
	stack_on(1, TS + 7, 0, F2, 3);
	stack_on(1, TS + 8, 100, F1, 3);
	ck_assert_uint_eq(stacks_frames(&S.sk, stack_of_pfn(31))[1], F2[1]);
	ck_assert_uint_eq(stacks_frames(&S.sk, stack_of_pfn(30))[1], F1[1]);
	ck_assert_uint_eq(S.sk.c.paired, 4);
	/* a stack with nothing before it, a CPU beyond the bound: counted, nothing paired */
	stack_on(3, TS + 9, 1, F1, 3);
	stack_on(9, TS + 10, 1, F1, 3);
	ck_assert_uint_eq(S.sk.c.unpaired_stacks, 2);
	/* a page freed and taken again before its stack: the stack does not claim it */
	alloc_on(0, TS + 11, 100, 40, 0);
	free_on(0, TS + 12, 100, 40, 0);
	stack_on(0, TS + 13, 100, F1, 3);
	ck_assert_uint_eq(stack_of_pfn(40), 0);
	/* the free gives the pages back to the stack they came through */
	free_on(2, TS + 14, 200, 20, 1);
	ck_assert_uint_eq(stack_of_pfn(20), 0);
	ck_assert_int_eq(S.sk.st[stack_of_pfn(10)].cur, 2);	/* F1: pfn 10 and 30 */
	teardown();
}
END_TEST

START_TEST(test_allocations_without_stacks)
{
	uint32_t i;

	init_stacks(64, 1);
	/* more allocations in a row than wait for a stack: the oldest are counted */
	for (i = 0; i < STACK_PENDING + 3; i++)
		alloc_on(0, TS + i, 100, 100 + i, 0);
	ck_assert_uint_eq(S.sk.c.unpaired_allocs, 3);
	stack_on(0, TS + 50, 100, F1, 3);
	/* the newest got it */
	ck_assert_uint_ne(stack_of_pfn(100 + STACK_PENDING + 2), 0);
	ck_assert_uint_eq(stack_of_pfn(100), 0);
	teardown();
}
END_TEST

/* --------------------------------------------------------- modules -- */

/*
 * A module's pages at the system peak, counted through its code: held then,
 * and unchanged since, they are what it holds (all its pages, not only its
 * load bracket's).
 */
START_TEST(test_module_at_peak_through_code)
{
	const uint64_t f[] = { 0xffffffff81000100ull, 0xffffffffc0003100ull,
			       0xffffffff81000900ull };
	const uint64_t g[] = { 0xffffffff81000100ull, 0xffffffff81000900ull };
	const struct mt_module *b;

	init_stacks(64, 1);
	mod_load(TS, 51, "modb");
	set_range("modb", 0xffffffffc0003000ull, 0xffffffffc0004000ull);
	b = mod("modb");
	alloc_on(0, TS + 10, 300, 64, 3);	/* 8 pages through modb's code */
	stack_on(0, TS + 11, 300, f, 3);
	alloc_on(0, TS + 12, 400, 128, 1);	/* 2 in core code: the peak, 10 */
	stack_on(0, TS + 13, 400, g, 2);
	ck_assert_int_eq(S.sys_peak, 10);
	ck_assert_int_eq(b->all_cur, 8);
	ck_assert_int_eq(stats_sys_module_at_peak(&S, b), 8);
	ck_assert_int_eq(stats_sys_pages_at_peak(&S, stats_find_task(&S, 300)), 8);
	/* it gives them back after the peak: what it held then stays */
	free_on(0, TS + 14, 300, 64, 3);
	ck_assert_int_eq(b->all_cur, 0);
	ck_assert_int_eq(stats_sys_module_at_peak(&S, b), 8);
	teardown();
}
END_TEST

START_TEST(test_innermost_module_frame)
{
	/* allocator (core) <- modB code <- modA code <- syscall (core) */
	const uint64_t f[] = { 0xffffffff81000100ull, 0xffffffffc0003100ull,
			       0xffffffffc0001100ull, 0xffffffff81000900ull };
	const uint64_t g[] = { 0xffffffff81000100ull, 0xffffffffc0001200ull,
			       0xffffffff81000900ull };
	const struct mt_module *a, *b;

	init_stacks(64, 1);
	mod_load(TS, 50, "moda");
	mod_load(TS, 51, "modb");
	set_range("moda", 0xffffffffc0001000ull, 0xffffffffc0002000ull);
	set_range("modb", 0xffffffffc0003000ull, 0xffffffffc0004000ull);
	a = mod("moda");
	b = mod("modb");
	/* task 300 (no bracket) allocates 4 pages through both modules' code */
	alloc_on(0, TS + 10, 300, 64, 2);
	stack_on(0, TS + 11, 300, f, 4);
	ck_assert_int_eq(b->all_cur, 4);
	ck_assert_int_eq(b->all_peak, 4);
	ck_assert_int_eq(a->all_cur, 0);
	ck_assert_int_eq(b->cur, 0);	/* no bracket: LOAD figures untouched */
	ck_assert_int_eq(b->peak, 0);
	ck_assert_uint_eq(S.sk.st[stack_of_pfn(64)].module, b->serial);
	/* the task holds them too */
	ck_assert_int_eq(stats_find_task(&S, 300)->cur, 4);
	/* through moda only */
	alloc_on(0, TS + 12, 300, 80, 0);
	stack_on(0, TS + 13, 300, g, 3);
	ck_assert_int_eq(a->all_cur, 1);
	/* freed: back from the module of the stack */
	free_on(0, TS + 14, 300, 64, 2);
	ck_assert_int_eq(b->all_cur, 0);
	ck_assert_int_eq(b->all_peak, 4);
	ck_assert_int_eq(S.sys_cur, 1);
	/* a frame in no module's code: core only, no module */
	alloc_on(0, TS + 15, 300, 90, 0);
	stack_on(0, TS + 16, 300, F1, 3);
	ck_assert_uint_eq(S.sk.st[stack_of_pfn(90)].module, 0);
	teardown();
}
END_TEST

/* A module's code is its own from its load on: a frame there before it belongs to no module. */
START_TEST(test_range_from_load_time)
{
	const uint64_t f[] = { 0xffffffff81000100ull, 0xffffffffc0001100ull };
	struct mod_range r;

	init_stacks(64, 1);
	mod_load(TS, 50, "moda");
	memset(&r, 0, sizeof(r));
	snprintf(r.name, sizeof(r.name), "moda");
	r.start = 0xffffffffc0001000ull;
	r.end = 0xffffffffc0002000ull;
	r.from_ts = TS + 100;
	ck_assert_int_eq(stacks_set_ranges(&S.sk, &r, 1), 0);
	ck_assert_ptr_null(stacks_range_of(&S.sk, f[1], TS + 99));
	ck_assert_ptr_nonnull(stacks_range_of(&S.sk, f[1], TS + 100));
	ck_assert_ptr_null(stacks_range_of(&S.sk, 0xffffffffc0002000ull, TS + 100));
	/* the same module again keeps its time; another in its place replaces it */
	r.from_ts = TS + 500;
	ck_assert_int_eq(stacks_set_ranges(&S.sk, &r, 1), 0);
	ck_assert_uint_eq(stacks_range_of(&S.sk, f[1], TS + 100)->from_ts, TS + 100);
	snprintf(r.name, sizeof(r.name), "modz");
	ck_assert_int_eq(stacks_set_ranges(&S.sk, &r, 1), 0);
	ck_assert_uint_eq(S.sk.nranges, 1);
	ck_assert_str_eq(stacks_range_of(&S.sk, f[1], TS + 500)->name, "modz");
	teardown();
}
END_TEST

/* Loaded in a bracket and asked for by a stack in another module: counted once, the stack's. */
START_TEST(test_bracket_and_stack_counted_once)
{
	const uint64_t f[] = { 0xffffffff81000100ull, 0xffffffffc0003100ull };
	const struct mt_module *a, *b;
	struct mt_event ev;

	init_stacks(64, 1);
	mod_load(TS, 50, "modb");
	set_range("modb", 0xffffffffc0003000ull, 0xffffffffc0004000ull);
	/* task 60 loads moda (its bracket: finit_module) and, in it, modb's code allocates */
	memset(&ev, 0, sizeof(ev));
	ev.kind = EV_MODSYS_ENTER;
	ev.ts = TS + 1;
	ev.tid = 60;
	ev.u.modsys.finit = true;
	stats_apply(&S, &ev);
	mod_load(TS + 2, 60, "moda");
	a = mod("moda");
	b = mod("modb");
	alloc_on(0, TS + 3, 60, 200, 1);
	ck_assert_int_eq(a->cur, 2);	/* the bracket's figure */
	ck_assert_int_eq(a->all_cur, 2);	/* until its stack says otherwise */
	stack_on(0, TS + 4, 60, f, 2);
	ck_assert_int_eq(a->cur, 2);
	ck_assert_int_eq(a->peak, 2);
	ck_assert_int_eq(a->all_cur, 0);
	ck_assert_int_eq(b->all_cur, 2);
	ck_assert_int_eq(S.sys_cur, 2);
	/* freed: each figure once */
	free_on(0, TS + 5, 60, 200, 1);
	ck_assert_int_eq(a->cur, 0);
	ck_assert_int_eq(a->all_cur, 0);
	ck_assert_int_eq(b->all_cur, 0);
	ck_assert_int_eq(b->all_peak, 2);
	teardown();
}
END_TEST

/* --------------------------------------------------------- peaks -- */

/*
 * Two paths, one after the other: each stack's peak is 10, the module's and
 * the task's is 10, not 20 (memstrack sums per-stack peaks: 1.98x here).
 */
START_TEST(test_two_paths_not_summed)
{
	const uint64_t p1[] = { 0xffffffff81000100ull, 0xffffffffc0001100ull, 0xffffffff81000900ull };
	const uint64_t p2[] = { 0xffffffff81000100ull, 0xffffffffc0001200ull, 0xffffffff81000900ull };
	const struct mt_module *a;
	const struct task_stack *ts1, *ts2;
	uint32_t s1, s2, i, node;
	int round;

	init_stacks(64, 1);
	mod_load(TS, 50, "moda");
	set_range("moda", 0xffffffffc0001000ull, 0xffffffffc0002000ull);
	a = mod("moda");
	for (round = 0; round < 3; round++) {
		const uint64_t *p = round & 1 ? p2 : p1;

		for (i = 0; i < 10; i++) {
			alloc_on(0, TS + 100 * round + i, 300, 1000 + i, 0);
			stack_on(0, TS + 100 * round + i, 300, p, 3);
		}
		for (i = 0; i < 10; i++)
			free_on(0, TS + 100 * round + 50 + i, 300, 1000 + i, 0);
	}
	s1 = stacks_find(&S.sk, &S.tb, &(struct mt_event){ .kind = EV_STACK,
		.u.stack = { (const uint8_t *)p1, 3, 8, RB_HOST_BE } }, TS);
	s2 = stacks_find(&S.sk, &S.tb, &(struct mt_event){ .kind = EV_STACK,
		.u.stack = { (const uint8_t *)p2, 3, 8, RB_HOST_BE } }, TS);
	ck_assert_uint_ne(s1, s2);
	ck_assert_int_eq(S.sk.st[s1].peak, 10);
	ck_assert_int_eq(S.sk.st[s2].peak, 10);
	ck_assert_uint_eq(S.sk.st[s1].pages, 20);	/* p1 twice */
	ck_assert_int_eq(a->all_peak, 10);
	ck_assert_int_eq(stats_find_task(&S, 300)->peak, 10);
	ts1 = stacks_task_pair(&S.sk, stats_find_task(&S, 300)->serial, s1);
	ts2 = stacks_task_pair(&S.sk, stats_find_task(&S, 300)->serial, s2);
	ck_assert_ptr_nonnull(ts1);
	ck_assert_ptr_nonnull(ts2);
	ck_assert_int_eq(ts1->peak, 10);
	ck_assert_int_eq(ts1->cur, 0);
	ck_assert_int_eq(ts2->peak, 10);
	/* the shared outermost frame's node: the sum's running peak, 10 */
	node = S.sk.st[s1].leaf;
	while (S.sk.nodes[node].parent)
		node = S.sk.nodes[node].parent;
	ck_assert_uint_eq(S.sk.nodes[node].frame, 0xffffffff81000900ull);
	ck_assert_int_eq(S.sk.nodes[node].peak, 10);
	/* both at once: now the sum is the peak */
	for (i = 0; i < 4; i++) {
		alloc_on(0, TS + 900 + i, 300, 2000 + i, 0);
		stack_on(0, TS + 900 + i, 300, i & 1 ? p2 : p1, 3);
	}
	ck_assert_int_eq(S.sk.nodes[node].peak, 10);
	ck_assert_int_eq(S.sk.nodes[node].cur, 4);
	teardown();
}
END_TEST

/* --------------------------------------------------------- bounds -- */

START_TEST(test_table_overflow)
{
	uint64_t f[3] = { 0xffffffff81000100ull, 0, 0xffffffff81000900ull };
	uint32_t i;

	init_stacks(16, 1);
	for (i = 0; i < 20; i++) {
		f[1] = 0xffffffff81100000ull + i;
		alloc_on(0, TS + i, 300, 100 + 2 * i, 1);
		stack_on(0, TS + i, 300, f, 3);
	}
	ck_assert_uint_eq(S.sk.n - 1, 16);
	ck_assert_uint_eq(S.sk.c.table_full, 4);
	ck_assert_uint_eq(S.sk.c.table_full_pages, 8);
	/* the pages are still the task's, and a known stack still counts */
	ck_assert_int_eq(stats_find_task(&S, 300)->cur, 40);
	f[1] = 0xffffffff81100000ull;
	alloc_on(0, TS + 30, 300, 500, 0);
	stack_on(0, TS + 30, 300, f, 3);
	ck_assert_uint_eq(stack_of_pfn(500), 1);
	ck_assert_int_eq(S.sk.st[1].cur, 3);
	/* more frames than kept: truncated and counted */
	{
		static uint64_t deep[STACK_MAX_FRAMES + 6];

		for (i = 0; i < STACK_MAX_FRAMES + 6; i++)
			deep[i] = 0xffffffff81200000ull + i;
		stats_free(&S);
		init_stacks(16, 1);
		alloc_on(0, TS, 300, 600, 0);
		stack_on(0, TS, 300, deep, STACK_MAX_FRAMES + 6);
		ck_assert_uint_eq(S.sk.st[stack_of_pfn(600)].nframes, STACK_MAX_FRAMES);
		ck_assert(S.sk.st[stack_of_pfn(600)].truncated);
		ck_assert_uint_eq(S.sk.c.truncated, 1);
	}
	teardown();
}
END_TEST

/* Serials renumbered (the wrap): a task's pages per stack stay its own. */
static void churn_tasks(uint64_t *t, int32_t first, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		struct mt_event ev;

		alloc_on(0, (*t)++, first + i, 100 + (uint64_t)(i % 50), 0);
		stack_on(0, (*t)++, first + i, F2, 3);
		free_on(0, (*t)++, first + i, 100 + (uint64_t)(i % 50), 0);
		memset(&ev, 0, sizeof(ev));
		ev.kind = EV_EXIT;
		ev.ts = (*t)++;
		ev.tid = first + i;
		ev.u.exit.pid = first + i;
		ev.u.exit.group_dead = 1;
		stats_apply(&S, &ev);
	}
}

START_TEST(test_serial_wrap_keeps_task_stacks)
{
	struct stats_config cfg = { .max_tasks = SLOT_FIRST + 8, .max_modules = 8,
				    .max_pfn = MAX_PFN, .serial_limit = 200, .max_stacks = 64,
				    .cpu_ids = 1 };
	const struct task_stack *ts;
	struct mt_task *keep;
	uint64_t t = TS, before;
	uint32_t sid, old;

	ck_assert_int_eq(stats_init(&S, &cfg), 0);
	churn_tasks(&t, 1000, 30);	/* slots recycled: the next task gets a serial past its slot */
	alloc_on(0, t++, 100, 0, 2);
	stack_on(0, t++, 100, F1, 3);
	keep = stats_find_task(&S, 100);
	old = keep->serial;
	sid = stack_of_pfn(0);
	ck_assert_ptr_nonnull(stacks_task_pair(&S.sk, old, sid));
	before = S.tb.c.renumbered;
	churn_tasks(&t, 5000, 2000);
	ck_assert_uint_gt(S.tb.c.renumbered, before);
	ck_assert_ptr_eq(stats_find_task(&S, 100), keep);
	ck_assert_uint_ne(keep->serial, old);	/* renumbered */
	ts = stacks_task_pair(&S.sk, keep->serial, sid);
	ck_assert_ptr_nonnull(ts);
	ck_assert_int_eq(ts->cur, 4);
	free_on(0, t++, 100, 0, 2);
	ck_assert_int_eq(ts->cur, 0);
	ck_assert_int_eq(ts->peak, 4);
	ck_assert_int_eq(keep->cur, 0);
	teardown();
}
END_TEST

/* The task-and-stack entries full of recycled tasks: given back, a live task's kept. */
START_TEST(test_task_stacks_of_recycled_tasks_given_back)
{
	struct stats_config cfg = { .max_tasks = SLOT_FIRST + 8, .max_modules = 8,
				    .max_pfn = MAX_PFN, .max_stacks = 16, .cpu_ids = 1 };
	uint64_t t = TS;
	uint32_t sid;

	ck_assert_int_eq(stats_init(&S, &cfg), 0);
	alloc_on(0, t++, 100, 0, 1);
	stack_on(0, t++, 100, F1, 3);
	sid = stack_of_pfn(0);
	churn_tasks(&t, 1000, 500);	/* 500 tasks, each an entry, 8 slots */
	ck_assert_uint_gt(S.sk.c.pairs_freed, 0);
	ck_assert_uint_eq(S.sk.c.pairs_full, 0);
	ck_assert_uint_le(S.sk.npairs, S.sk.max_pairs);
	ck_assert_ptr_nonnull(stacks_task_pair(&S.sk, stats_find_task(&S, 100)->serial, sid));
	ck_assert_int_eq(stacks_task_pair(&S.sk, stats_find_task(&S, 100)->serial, sid)->cur, 2);
	teardown();
}
END_TEST

/* --------------------------------------------------------- kallsyms -- */

static const char KALLSYMS[] =
	"ffffffff81000000 T _text\n"
	"ffffffff81000100 T __alloc_pages\n"
	"ffffffff81000180 t alloc_helper\n"
	"ffffffff81000200 D some_data\n"
	"ffffffff81000300 W weak_fn\n"
	"ffffffffc0001000 t zs_malloc\t[zsmalloc]\n"
	"ffffffffc0001400 t zram_write_page\t[zram]\n";

static void feed_all(struct ksyms *k, const char *text)
{
	size_t len = strlen(text), half = 0;

	ksyms_prepare(k);
	/* in two pieces of whole lines, as a file is read */
	while (half < len / 2)
		half = (size_t)(strchr(text + half, '\n') - text) + 1;
	ksyms_feed(k, 1, text, half);
	ksyms_feed(k, 1, text + half, len - half);
	ksyms_between(k);
	ksyms_feed(k, 2, text, half);
	ksyms_feed(k, 2, text + half, len - half);
}

START_TEST(test_kallsyms_excerpt)
{
	static struct ksyms k;
	uint64_t off = 99;
	const char *n;

	ksyms_init(&k);
	ck_assert_int_eq(ksyms_want(&k, 0xffffffff81000110ull), 0);
	ck_assert_int_eq(ksyms_want(&k, 0xffffffff81000250ull), 0);	/* past D: still alloc_helper */
	ck_assert_int_eq(ksyms_want(&k, 0xffffffffc0001010ull), 0);
	ck_assert_int_eq(ksyms_want(&k, 0xffffffffc0001400ull), 0);
	ck_assert_int_eq(ksyms_want(&k, 0xffffffff80000000ull), 0);	/* below every symbol */
	ck_assert_int_eq(ksyms_want(&k, 0xffffffff81000110ull), 0);	/* twice */
	ck_assert_uint_eq(k.n, 5);	/* kept once: a report's frames repeat a lot */
	{
		static struct ksyms k2;

		ksyms_init(&k2);
		for (uint64_t a = 0; a < 5000; a++)	/* the set grows */
			ck_assert_int_eq(ksyms_want(&k2, 0xffffffffa0000000ull + 16 * (a % 2500)), 0);
		ck_assert_uint_eq(k2.n, 2500);
		ksyms_free(&k2);
	}
	feed_all(&k, KALLSYMS);
	n = ksyms_name(&k, 0xffffffff81000110ull, &off);
	ck_assert_str_eq(n, "__alloc_pages");
	ck_assert_uint_eq(off, 0x10);
	ck_assert_str_eq(ksyms_name(&k, 0xffffffff81000250ull, &off), "alloc_helper");
	ck_assert_uint_eq(off, 0xd0);
	ck_assert_str_eq(ksyms_name(&k, 0xffffffffc0001010ull, &off), "zs_malloc [zsmalloc]");
	ck_assert_uint_eq(off, 0x10);
	ck_assert_str_eq(ksyms_name(&k, 0xffffffffc0001400ull, &off), "zram_write_page [zram]");
	ck_assert_uint_eq(off, 0);
	ck_assert_ptr_null(ksyms_name(&k, 0xffffffff80000000ull, &off));
	ck_assert_ptr_null(ksyms_name(&k, 0x1234, &off));	/* never wanted */
	ck_assert(!k.hidden);
	/* only what was wanted is kept: 4 names, not the whole file */
	ck_assert_uint_le(k.names_len, strlen("__alloc_pages alloc_helper zs_malloc [zsmalloc] "
					      "zram_write_page [zram] "));
	ksyms_free(&k);
}
END_TEST

START_TEST(test_kallsyms_hidden)
{
	static struct ksyms k;
	uint64_t off;

	ksyms_init(&k);
	ck_assert_int_eq(ksyms_want(&k, 0xffffffff81000110ull), 0);
	feed_all(&k, "0000000000000000 T _text\n0000000000000000 t zs_malloc\t[zsmalloc]\n");
	ck_assert(k.hidden);
	ck_assert_ptr_null(ksyms_name(&k, 0xffffffff81000110ull, &off));
	ksyms_free(&k);
}
END_TEST

/* kptr_restrict: the modules' addresses are zeros, so no ranges: brackets only. */
START_TEST(test_hidden_ranges_brackets_only)
{
	const uint64_t f[] = { 0xffffffff81000100ull, 0xffffffffc0003100ull };
	struct mt_event ev;
	const struct mt_module *a;

	init_stacks(64, 1);
	S.sk.hidden = true;	/* what enrich_module_ranges() sets on zero addresses */
	memset(&ev, 0, sizeof(ev));
	ev.kind = EV_MODSYS_ENTER;
	ev.ts = TS + 1;
	ev.tid = 60;
	ev.u.modsys.finit = true;
	stats_apply(&S, &ev);
	mod_load(TS + 2, 60, "moda");
	a = mod("moda");
	alloc_on(0, TS + 3, 60, 200, 0);
	stack_on(0, TS + 4, 60, f, 2);
	ck_assert_int_eq(a->cur, 1);
	ck_assert_int_eq(a->all_cur, 1);
	ck_assert_uint_eq(S.sk.st[stack_of_pfn(200)].module, 0);
	teardown();
}
END_TEST

/*
 * A module load with stacks on ends a live reader's batch: the stats set the
 * stop flag wired to them, so that the module's code is read before the
 * stacks after it, and set it again after each event until the caller has
 * read it (want_ranges cleared: a catch-up that the load ended leaves it to
 * the loop). Other events leave it; without a flag (a replay) the load is only
 * marked.
 */
START_TEST(test_module_load_stops_the_batch)
{
	bool stop = false;

	init_stacks(64, 1);
	S.stop = &stop;
	alloc_on(0, TS, 300, 64, 0);
	free_on(0, TS + 1, 300, 64, 0);
	ck_assert(!stop);
	mod_load(TS + 2, 50, "moda");
	ck_assert(stop);
	ck_assert(S.want_ranges);
	ck_assert_uint_eq(S.want_ranges_ts, TS + 2);
	stop = false;	/* the reader returned; the code not read yet */
	alloc_on(0, TS + 3, 300, 65, 0);
	ck_assert(stop);
	S.want_ranges = false;	/* read */
	stop = false;
	alloc_on(0, TS + 4, 300, 66, 0);
	ck_assert(!stop);
	S.stop = NULL;
	mod_load(TS + 5, 51, "modb");
	ck_assert(!stop);
	ck_assert(S.want_ranges);
	ck_assert_uint_eq(S.want_ranges_ts, TS + 5);
	teardown();
}
END_TEST

Suite *suite_stacks(void)
{
	Suite *s = suite_create("stacks");
	TCase *tc = tcase_create("decode");

	tcase_add_test(tc, test_decode_6_18_layout);
	tcase_add_test(tc, test_decode_6_1_layout);
	tcase_add_test(tc, test_real_stacks_named_as_the_kernel_did);
	suite_add_tcase(s, tc);
	tc = tcase_create("accounting");
	tcase_add_test(tc, test_pairing_cpus_interleaved);
	tcase_add_test(tc, test_allocations_without_stacks);
	tcase_add_test(tc, test_innermost_module_frame);
	tcase_add_test(tc, test_module_at_peak_through_code);
	tcase_add_test(tc, test_range_from_load_time);
	tcase_add_test(tc, test_bracket_and_stack_counted_once);
	tcase_add_test(tc, test_two_paths_not_summed);
	tcase_add_test(tc, test_table_overflow);
	tcase_add_test(tc, test_serial_wrap_keeps_task_stacks);
	tcase_add_test(tc, test_task_stacks_of_recycled_tasks_given_back);
	tcase_add_test(tc, test_hidden_ranges_brackets_only);
	tcase_add_test(tc, test_module_load_stops_the_batch);
	suite_add_tcase(s, tc);
	tc = tcase_create("kallsyms");
	tcase_add_test(tc, test_kallsyms_excerpt);
	tcase_add_test(tc, test_kallsyms_hidden);
	suite_add_tcase(s, tc);
	return s;
}
