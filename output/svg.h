/* SPDX-License-Identifier: GPL-2.0-only */
/* output/svg.h - --svg FILE: one self-contained SVG of memory over time, the report's rows and peaks */
#ifndef MEMTRACE_OUTPUT_SVG_H
#define MEMTRACE_OUTPUT_SVG_H

#include <stddef.h>

#include "lib/out.h"
#include "core/run.h"
#include "model/series.h"

#define SVG_LINES	8	/* modules and processes drawn, each (fewer with a smaller -n) */
#define SVG_WIDTH	1280

/*
 * Raw name bytes as XML text or attribute value: printable ASCII stays, except
 * & < > " ' as entities; every other byte (controls, anything not ASCII, valid
 * UTF-8 or not) as the text report writes it (\xNN, a backslash doubled).
 */
void svg_escape(struct out *o, const char *s, size_t len);

/* The picture of run @r and its series @se into @o; @title: what the title says after the version. */
void svg_render(struct out *o, const struct run *r, struct report_scratch *rs,
		const struct series *se, const char *title);

/*
 * svg_write() - the final series sample, then the picture into @path, replaced
 * atomically (never through a symlink: logfile_replace()), mode 0644.
 * Return: 0 or -errno (said on stderr).
 */
int svg_write(struct run *r, const char *path);

#endif
