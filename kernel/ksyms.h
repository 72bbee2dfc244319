/* SPDX-License-Identifier: GPL-2.0-only */
/* kernel/ksyms.h - names for the frames a report prints: /proc/kallsyms streamed, only what is needed kept */
#ifndef MEMTRACE_KERNEL_KSYMS_H
#define MEMTRACE_KERNEL_KSYMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The addresses a report prints go in (ksyms_want()); one pass over a
 * kallsyms text finds the text symbol each falls in, a second keeps the names
 * of those symbols only. Nothing else of kallsyms (about 20 MB of names on a
 * distribution kernel) is ever held.
 */
struct ksyms {
	uint64_t *addr;		/* wanted, sorted and unique after ksyms_resolve() */
	uint64_t *sym;		/* per address: the start of its symbol, 0 if none */
	uint32_t *name;		/* per address: its symbol's name in names[], UINT32_MAX if none */
	uint32_t n, cap;
	uint64_t *seen;		/* the wanted addresses as a hash set: each is kept once */
	uint32_t seen_mask;
	char *names;		/* "name" or "name [module]", NUL-separated */
	size_t names_len, names_cap;
	uint64_t lines;		/* kallsyms lines read */
	bool hidden;		/* every address read as zero: kptr_restrict */
};

void ksyms_init(struct ksyms *k);
void ksyms_free(struct ksyms *k);

/* An address a report will print (kept once however often it is wanted); 0 or -ENOMEM. */
int ksyms_want(struct ksyms *k, uint64_t addr);

/*
 * ksyms_resolve_text() - resolve from kallsyms text (pure: tests give excerpts)
 * Lines "ADDR TYPE NAME[\t[MODULE]]"; text symbols only (t T w W). Called twice
 * by ksyms_resolve() (@pass 1: symbol starts; @pass 2: their names); may be fed
 * in pieces of whole lines.
 */
void ksyms_feed(struct ksyms *k, int pass, const char *text, size_t len);

/* Sort the wanted addresses, before the first pass. */
void ksyms_prepare(struct ksyms *k);

/* Between the passes: each address's symbol start. */
void ksyms_between(struct ksyms *k);

/* Both passes over the file @path (/proc/kallsyms, or a recording's excerpt); 0 or -errno. */
int ksyms_resolve(struct ksyms *k, const char *path);

/*
 * The name of the symbol @addr falls in ("name" or "name [module]"), and the
 * offset into it; NULL if none (then print the address).
 */
const char *ksyms_name(const struct ksyms *k, uint64_t addr, uint64_t *off);

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
