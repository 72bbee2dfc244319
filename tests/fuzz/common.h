/* SPDX-License-Identifier: GPL-2.0-only */
/* common.h - shared set-up of the libFuzzer targets: the real formats of a fixture */
#ifndef MEMTRACE_FUZZ_COMMON_H
#define MEMTRACE_FUZZ_COMMON_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/event.h"
#include "kernel/format.h"
#include "kernel/ringbuf.h"
#include "stats.h"
#include "lib/util.h"

/* Fixture set whose header_page and format files the targets use (real 6.1 data). */
#ifndef FUZZ_FIXTURE
#define FUZZ_FIXTURE "tests/fixtures/debian-6.1"
#endif

static char fuzz_text[65536];

/* Layout and decoder exactly as memtrace builds them from the fixture; exits on error. */
static void fuzz_load_formats(struct rb_layout *l, struct mt_decoder *d)
{
	const char *root = getenv("MEMTRACE_FUZZ_FIXTURE") ? getenv("MEMTRACE_FUZZ_FIXTURE") :
			   FUZZ_FIXTURE;
	static struct fmt_event fe;
	const struct mt_tracepoint *tp;
	char path[4096], err[256];
	ssize_t n;

	snprintf(path, sizeof(path), "%s/events/header_page", root);
	n = read_file(path, fuzz_text, sizeof(fuzz_text));
	if (n <= 0 || fmt_parse_header_page(l, fuzz_text, (size_t)n, err, sizeof(err))) {
		fprintf(stderr, "fuzz: %s: cannot use it (run from the source tree)\n", path);
		exit(1);
	}
	decoder_init(d);
	for (tp = mt_tracepoints; tp->system; tp++) {
		snprintf(path, sizeof(path), "%s/events/%s/%s/format", root, tp->system, tp->name);
		n = read_file(path, fuzz_text, sizeof(fuzz_text));
		if (n <= 0)
			continue;
		memset(&fe, 0, sizeof(fe));
		snprintf(fe.system, sizeof(fe.system), "%s", tp->system);
		if (fmt_parse_event(&fe, fuzz_text, (size_t)n, err, sizeof(err)) ||
		    decoder_add(d, tp, &fe, err, sizeof(err))) {
			fprintf(stderr, "fuzz: %s: %s\n", path, err);
			exit(1);
		}
	}
}

#endif
