/* SPDX-License-Identifier: GPL-2.0-only */
/* core/cond.h - --stream conditions: KEY:VALUE terms, AND, OR, NOT, parentheses, * globs (pure) */
#ifndef MEMTRACE_CORE_COND_H
#define MEMTRACE_CORE_COND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The keys, as the fleet tracer names them (cond_key_name()). */
enum cond_key {
	CK_PID = 0,		/* process.pid: the process id (every thread of it) */
	CK_NAME,		/* process.name: the process's (its leader's) name (comm) */
	CK_TNAME,		/* thread.name: the task's own name (comm), as the kernel filters it */
	CK_CMD,			/* process.cmd: the command line, arguments joined by spaces */
	CK_EXE,			/* process.exe: the executable's path */
	CK_CAPINH, CK_CAPPRM, CK_CAPEFF, CK_CAPBND, CK_CAPAMB,	/* capability sets */
	CK_CONT_ID,		/* container.id: a prefix of the 64-digit id (or a glob) */
	CK_CONT_NAME,		/* container.name */
	CK_CONT_LABEL,		/* container.label: VALUE (any label's) or KEY=VALUE */
	CK_POD_ID, CK_POD_NAME, CK_POD_NS,
	CK_POD_LABEL,		/* pod.label: as container.label */
	CK__COUNT
};

#define CK_BIT(k)	(1u << (k))
#define CK_CAPS		(CK_BIT(CK_CAPINH) | CK_BIT(CK_CAPPRM) | CK_BIT(CK_CAPEFF) | \
			 CK_BIT(CK_CAPBND) | CK_BIT(CK_CAPAMB))
#define CK_CONTAINER	(CK_BIT(CK_CONT_ID) | CK_BIT(CK_CONT_NAME) | CK_BIT(CK_CONT_LABEL) | \
			 CK_BIT(CK_POD_ID) | CK_BIT(CK_POD_NAME) | CK_BIT(CK_POD_NS) | \
			 CK_BIT(CK_POD_LABEL))

#define COND_MAX_NODES	256	/* terms and operators of all -c together */
#define COND_TEXT	8192	/* bytes of their values */
#define COND_MAX_DEPTH	64	/* parentheses and NOTs nested */
#define COND_MAX_PIDS	64	/* pids a kernel pid filter takes */

enum cond_op { CN_TERM = 0, CN_NOT, CN_AND, CN_OR };

struct cond_node {
	uint8_t op;		/* enum cond_op */
	uint8_t key;		/* CN_TERM: enum cond_key */
	uint8_t glob;		/* the value holds a '*' */
	uint16_t a, b;		/* operands: CN_NOT a; CN_AND/CN_OR a and b */
	uint32_t val, len;	/* the value (for labels: after "KEY="), in text[] */
	uint32_t lkey, lkey_len;/* labels: KEY of KEY=VALUE (lkey_len 0: any label) */
	uint64_t num;		/* process.pid: the pid; capabilities: the mask */
};

/* Every -c, ANDed; cond_add() compiles one more. */
struct cond {
	struct cond_node n[COND_MAX_NODES];
	uint32_t nn;
	int root;		/* -1: no condition (everything passes) */
	char text[COND_TEXT];
	uint32_t ntext;
	uint32_t keys;		/* CK_BIT of every key used */
};

/* A string that need not be NUL-terminated. */
struct cond_str {
	const char *s;
	size_t len;
};

struct cond_label {
	struct cond_str key, value;
};

/*
 * What a condition is evaluated on: one task and its process. A key whose
 * bit is not in @known cannot be answered (its runtime keeps it where memtrace
 * cannot read it, or the process was gone before it could be read): its terms
 * are unknown, and cond_value() says which were met. A process outside any
 * container answers container.* and pod.* (with no).
 */
struct cond_subject {
	int32_t pid;
	struct cond_str name, tname, cmd, exe;	/* name: the process's; tname: the task's */
	uint64_t cap[5];		/* inheritable, permitted, effective, bounding, ambient */
	bool in_container;
	struct cond_str cont_id, cont_name;
	const struct cond_label *cont_labels;
	uint32_t ncont_labels;
	bool in_pod;
	struct cond_str pod_id, pod_name, pod_ns;
	const struct cond_label *pod_labels;
	uint32_t npod_labels;
	uint32_t known;			/* CK_BIT of the keys answered */
};

/* "process.pid", ...; NULL for a bad key. */
const char *cond_key_name(enum cond_key k);

/* Empty: no condition. */
void cond_init(struct cond *c);

/**
 * cond_add() - compile one condition and AND it with those before
 * @text: the condition (need not be NUL-terminated)
 * @err: on failure one line naming the position (1 = the first byte) and,
 *       for an unknown key, listing the keys
 *
 * Grammar: expr = and {OR and}; and = unary {AND unary}; unary = NOT unary |
 * ( expr ) | KEY:VALUE. Operators in any case. VALUE is a run of bytes up to
 * a blank or a parenthesis, or "quoted" (\" and \\ inside); '*' matches any
 * run of bytes. process.pid takes a number; the capability keys a name
 * (cap_sys_admin or sys_admin, several joined by ',') or a hex mask: all of
 * them must be in the set.
 * Return: 0, or -1 with @err set (@c is then as before).
 */
int cond_add(struct cond *c, const char *text, size_t len, char *err, size_t errlen);

/* Three-valued: a term on a key the subject cannot answer is unknown. */
enum cond_truth { COND_FALSE = 0, COND_TRUE = 1, COND_UNKNOWN = 2 };

/**
 * cond_value() - the value of every condition (ANDed) for @s, in Kleene's
 * three-valued logic: NOT unknown is unknown, false AND unknown is false,
 * true OR unknown is true; otherwise unknown stays unknown
 * @unknown: if not NULL, ORed with CK_BIT of the keys met that @s cannot answer
 *           (a side that could not change the value may not be evaluated)
 * Return: COND_TRUE with no condition.
 */
enum cond_truth cond_value(const struct cond *c, const struct cond_subject *s, uint32_t *unknown);

/* '*' matches any run of bytes (also none); every other byte itself. */
bool cond_glob(const char *pat, size_t plen, const char *s, size_t slen);

/**
 * cond_comm_filter() - a kernel event filter on comm that every task the
 * conditions pick passes (thread.name terms, the kernel's comm being the task's;
 * process.name and other terms let everything by)
 * Return: its length, written to @buf; 0 if it would let everything by (or
 * does not fit), so that no filter is worth setting.
 */
size_t cond_comm_filter(const struct cond *c, char *buf, size_t size);

/**
 * cond_pid_set() - pids such that every process the conditions pick is one
 * of them (process.pid terms)
 * Return: how many (at most @max, in @pids), or -1 when no such set exists
 * (a term on another key could pick any process) or it would be empty.
 */
int cond_pid_set(const struct cond *c, int32_t *pids, int max);

#endif
