/* SPDX-License-Identifier: GPL-2.0-only */
/* diff/diffout.h - --diff's output: text for people, JSON for dashboards; the gate's lines */
#ifndef MEMTRACE_DIFF_DIFFOUT_H
#define MEMTRACE_DIFF_DIFFOUT_H

#include "diff/diff.h"
#include "lib/out.h"

/* The runs' names as given (OLD, NEW) and the rows per table (0: all). */
struct diff_view {
	const char *old_name, *new_name;
	uint32_t rows;
	const struct diff_threshold *gate;
};

void diffout_text(struct out *o, const struct diff_result *d, const struct diff_view *v);
void diffout_json(struct out *o, const struct diff_result *d, const struct diff_view *v);

/* A line per row over the gate ("module X grew by ..."); how many. */
uint32_t diffout_gate(struct out *o, const struct diff_result *d, const struct diff_view *v);

#endif
