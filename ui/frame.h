/* SPDX-License-Identifier: GPL-2.0-only */
/* ui/frame.h - the live view's frame: header, rows, keys help into a buffer; escaped, cut, addressed */
#ifndef MEMTRACE_UI_FRAME_H
#define MEMTRACE_UI_FRAME_H

#include "ui/view.h"

/**
 * frame_render() - the frame of @v into v->frame (v->frame_len bytes; pure)
 *
 * Interactive: every line of the screen addressed (nothing scrolls), cut to
 * the width, cleared to its end, attributes and colours as the terminal has
 * them; without ANSI (TERM=dumb) plain lines, one screen less one. Batch: the
 * header and every row (or batch_rows), plain text, an empty line after.
 * Names are escaped as the reports escape them: no byte of a task or module
 * name reaches the terminal raw.
 */
void frame_render(struct view *v, const struct stats *st, const struct view_facts *f);

#endif
