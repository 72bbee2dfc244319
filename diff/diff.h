/* SPDX-License-Identifier: GPL-2.0-only */
/* diff/diff.h - --diff: two runs' reports read, matched by name and compared; the gate (pure) */
#ifndef MEMTRACE_DIFF_DIFF_H
#define MEMTRACE_DIFF_DIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DIFF_PEAK_MAX	(1ll << 50)	/* pages: more is not a report of this world */
/*
 * A run's total in bytes (a name's summed peaks, a stack's, the system peak,
 * times the run's page size): a report with more is refused, so that every
 * delta (a difference of two of them) and every product fits in 64 bits.
 */
#define DIFF_BYTES_MAX	(1ll << 62)

/*
 * A module, a process name with its instances, or a stack of a module (its
 * frames' symbol names alone, no offsets, no addresses). Names are exact: the
 * report's JSON string decoded, NUL bytes and all (NUL-terminated as well).
 */
struct diff_item {
	char *name;		/* module; comm (+ " " + cmdline where the report has it); a
				   stack's key "sym [mod] < sym < ...", innermost first */
	uint32_t len;		/* of name, in bytes */
	uint32_t count;		/* instances in the report (a key: stacks of that key) */
	int64_t max_peak;	/* the largest instance's peak pages */
	int64_t sum_peak;	/* the instances' peaks summed */
	struct diff_item *stacks;	/* a module's stacks, sorted by key */
	uint32_t nstacks;
};

/* A string of the report's header, exact (NUL bytes and all), cut to the buffer. */
struct diff_text {
	char s[128];
	uint32_t len;
};

/* One run, as its JSON report says; its items sorted by name (bytes, shorter first). */
struct diff_side {
	/* a COMMAND's report (its "command" member): its tree, not the machine, is the run */
	bool command;
	struct diff_text cmd;		/* the command's words, spaces between */
	int64_t tree_peak;		/* pages: the tree's peak (tree_peak_pages) */
	int exit_status;		/* -1: not known (a signal, or not said) */
	int signal;			/* 0: none */
	double wall_s;
	struct diff_text kernel;	/* "" when the report does not say */
	struct diff_text host;		/* "" when the report does not say */
	struct diff_text started;	/* started_at, ISO 8601 UTC; "" when not said */
	struct diff_text trigger;
	double uptime_s, first_s, last_s;
	uint32_t page_size;		/* bytes */
	int64_t sys_peak;		/* pages */
	uint64_t lost;			/* lost_events */
	bool mods_partial, procs_partial;	/* the report listed fewer than it had (-n) */
	struct diff_item *mods, *procs;
	uint32_t nmods, nprocs;
};

enum diff_state { DIFF_BOTH = 0, DIFF_NEW, DIFF_GONE };

/* One name in both runs (or one of them): the measure is the summed peak. */
struct diff_row {
	const char *name;
	uint32_t name_len;
	enum diff_state state;
	uint32_t old_n, new_n;
	int64_t old_max, new_max, old_sum, new_sum;	/* pages, each run's own page size */
	const struct diff_item *old_item, *new_item;	/* NULL where a run has none */
	int64_t delta_pages;				/* new_sum - old_sum */
	int64_t delta_bytes;				/* in bytes of each run's page size */
	double pct;					/* of the old bytes; 0 when new */
	struct diff_row *stacks;			/* a module that grew: its stacks */
	uint32_t nstacks;
};

struct diff_result {
	const struct diff_side *old, *new;
	/* both are a COMMAND's reports: the tree peak is the run's, the system peak the machine's */
	bool commands;
	struct diff_row tree;				/* the tree peak (commands only) */
	struct diff_row sys;				/* the system peak */
	struct diff_row *mods, *procs;			/* by delta_bytes, largest first */
	uint32_t nmods, nprocs;
};

/* Parse a JSON report (@text, @len: one object; a JSON-lines file: its last line). */
int diff_side_parse(struct diff_side *s, const char *text, size_t len, char *err, size_t errlen);
void diff_side_free(struct diff_side *s);

/* Match @o and @n by name (a merge of the two sorted lists); false (memory) on failure. */
bool diff_compute(struct diff_result *d, const struct diff_side *o, const struct diff_side *n);
void diff_result_free(struct diff_result *d);

/* --fail-over [system:]N[%|KiB|MiB|GiB|pages] (a bare N: bytes) */
enum diff_unit { DIFF_BYTES = 0, DIFF_PERCENT, DIFF_PAGES };
struct diff_threshold {
	bool set;
	/* "system:N": the machine's system peak gated too when both runs are COMMANDs */
	bool system;
	enum diff_unit unit;
	double value;		/* bytes, percent or pages */
	const char *text;	/* as given */
};

/* 0, or -1 with the reason in @err. */
int diff_threshold_parse(const char *s, struct diff_threshold *t, char *err, size_t errlen);

/*
 * Whether @row grew by more than @t (@new_page_size: the unit of pages).
 * A name only in the new run has no percentage: it is judged by bytes only.
 */
bool diff_over(const struct diff_row *row, const struct diff_threshold *t,
	       uint32_t new_page_size);

#endif
