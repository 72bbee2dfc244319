/* SPDX-License-Identifier: GPL-2.0-only */
/* ksymrange.h - a kernel function's address range from /proc/kallsyms (do_init_module's) */
#ifndef MEMTRACE_KSYMRANGE_H
#define MEMTRACE_KSYMRANGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Incremental kallsyms scan: feed lines "addr type name [module]"; the result
 * is the range [start, end) of symbol @name (end = next higher address).
 */
struct ksym_range {
	const char *name;
	uint64_t start, end;
	bool found;
	bool zero_addrs;	/* kptr_restrict hid the addresses */
};
void ksym_range_init(struct ksym_range *r, const char *name);
void ksym_range_line(struct ksym_range *r, const char *line, size_t len);

/* do_init_module's address range from /proc/kallsyms; 0 or -errno */
int proc_initmod_range(const char *proc_root, uint64_t *start, uint64_t *end);

#endif
