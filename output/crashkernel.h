/* SPDX-License-Identifier: GPL-2.0-only */
/* output/crashkernel.h - the crashkernel= answer of a capture kernel's report: its line, its JSON */
#ifndef MEMTRACE_OUTPUT_CRASHKERNEL_H
#define MEMTRACE_OUTPUT_CRASHKERNEL_H

#include <stddef.h>

#include "core/run.h"
#include "lib/out.h"

/*
 * "crashkernel: at least N MiB for this kernel, initramfs and dump target
 * (kernel K + before memtrace B + ...)" and a newline: the report's last line
 * in a capture kernel (r->sz.on); nothing otherwise.
 */
void crashkernel_text(struct out *o, const struct run *r);

/* ,"crashkernel":{...} (null members where not measured); nothing when not on. */
void crashkernel_json(struct out *o, const struct run *r);

/* The line without its newline into @buf (the kmsg summary's last); false when not on. */
bool crashkernel_line(char *buf, size_t size, const struct run *r);
/* the /proc/meminfo sample that set its peak that cannot be reclaimed, said before it */
bool crashkernel_sample_line(char *buf, size_t size, const struct run *r);

#endif
