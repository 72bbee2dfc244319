// SPDX-License-Identifier: GPL-2.0-only
/*
 * diff.c - libFuzzer target: --diff's two reports through the parse, the
 * comparison, both outputs and the gate, as modes/diff.c runs them. The input is
 * OLD, a NUL byte, NEW, and optionally a NUL byte and a --fail-over value
 * (without a NUL: the input against itself). What comes out is checked: the
 * JSON parses back and is UTF-8, the text holds no control byte but newlines,
 * every delta is the exact difference of its two runs' figures.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "diff/diff.h"
#include "diff/diffout.h"
#include "lib/json.h"
#include "lib/out.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* One row's figures against its two runs' own (no wrap, no saturation at these sizes). */
static void check_row(const struct diff_row *r, uint32_t ops, uint32_t nps)
{
	__int128 bytes = (__int128)r->new_sum * nps - (__int128)r->old_sum * ops;

	if (r->delta_pages != r->new_sum - r->old_sum || r->delta_bytes != bytes ||
	    r->old_max > r->old_sum || r->new_max > r->new_sum || (!r->old_n && r->old_sum) ||
	    (!r->new_n && r->new_sum) || !r->name)
		__builtin_trap();
}

static void check_rows(const struct diff_row *rows, uint32_t n, uint32_t ops, uint32_t nps)
{
	uint32_t i;

	for (i = 0; i < n; i++) {
		check_row(&rows[i], ops, nps);
		if (i && rows[i - 1].delta_bytes < rows[i].delta_bytes)	/* by growth */
			__builtin_trap();
		check_rows(rows[i].stacks, rows[i].nstacks, ops, nps);
	}
}

enum what { TEXT, JSON, GATE };

/* What @d renders as, checked: JSON that parses and is UTF-8, or text without control bytes. */
static void render(const struct diff_result *d, const struct diff_view *v, enum what w)
{
	struct out_mem m = { 0 };
	struct out *o = malloc(sizeof(*o));	/* 16 KiB: not on libFuzzer's stack */
	struct json_val root;
	size_t i;

	if (!o)
		return;
	out_init_mem(o, &m);
	if (w == JSON)
		diffout_json(o, d, v);
	else if (w == TEXT)
		diffout_text(o, d, v);
	else
		diffout_gate(o, d, v);
	if (!out_flush(o) && m.data) {
		if (w == JSON && (!json_parse(m.data, m.len, &root) ||
				  json_utf8_check(m.data, m.len) != m.len))
			__builtin_trap();
		for (i = 0; w != JSON && i < m.len; i++)
			if ((unsigned char)m.data[i] < 0x20 && m.data[i] != '\n')
				__builtin_trap();
	}
	free(m.data);
	free(o);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *t = (const char *)data, *nul = memchr(t, '\0', size), *gate = NULL;
	size_t olen = nul ? (size_t)(nul - t) : size, nlen = nul ? size - olen - 1 : size;
	const char *nt = nul ? nul + 1 : t, *g;
	struct diff_side a, b;
	struct diff_result d;
	struct diff_threshold th;
	struct diff_view v = { "old", "new", (uint32_t)(size % 3), NULL };
	char err[512], gbuf[32];

	if (nul && (g = memchr(nt, '\0', nlen))) {	/* a --fail-over value after NEW */
		size_t gl = nlen - (size_t)(g - nt) - 1;

		nlen = (size_t)(g - nt);
		if (gl < sizeof(gbuf)) {
			memcpy(gbuf, g + 1, gl);
			gbuf[gl] = '\0';
			gate = gbuf;
		}
	}
	if (gate && !diff_threshold_parse(gate, &th, err, sizeof(err)))
		v.gate = &th;
	if (diff_side_parse(&a, t, olen, err, sizeof(err)) < 0) {
		if (!*err)
			__builtin_trap();	/* a refusal says why */
		return 0;
	}
	if (diff_side_parse(&b, nt, nlen, err, sizeof(err)) < 0) {
		if (!*err)
			__builtin_trap();
		diff_side_free(&a);
		return 0;
	}
	if (diff_compute(&d, &a, &b)) {
		check_row(&d.sys, a.page_size, b.page_size);
		check_rows(d.mods, d.nmods, a.page_size, b.page_size);
		check_rows(d.procs, d.nprocs, a.page_size, b.page_size);
		render(&d, &v, TEXT);
		render(&d, &v, JSON);
		render(&d, &v, GATE);
		diff_result_free(&d);
	}
	diff_side_free(&a);
	diff_side_free(&b);
	return 0;
}
