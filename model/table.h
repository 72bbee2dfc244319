/* SPDX-License-Identifier: GPL-2.0-only */
/* model/table.h - the task and module tables: slots, tid hash, lookups by tid, serial and name, recycling */
#ifndef MEMTRACE_MODEL_TABLE_H
#define MEMTRACE_MODEL_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel/event.h"


enum task_state { TASK_UNUSED = 0, TASK_ALIVE, TASK_EXITED };

/* task flags */
#define TF_SEEDED	0x01	/* current pages seeded from /proc/<tid>/statm */
#define TF_COMM_KNOWN	0x02	/* comm came from /proc or an event */
#define TF_PSEUDO	0x04	/* not a real task (irq context, overflow) */
#define TF_KTHREAD	0x08	/* kernel thread (seeded with no mm) */
#define TF_TREE		0x10	/* in the command's process tree (command mode) */

/* module brackets */
enum { BR_NONE = 0, BR_SYSCALL, BR_LOADPUT, BR_BOOT };	/* BR_BOOT: from the boot buffer */

struct mt_task {
	int32_t tid;
	int32_t tgid;		/* process id; 0 if not known */
	int32_t ppid;		/* parent process id; 0 if not known */
	uint32_t serial;	/* owner id in the pfn map; changes when the slot is recycled */
	int64_t cur;		/* pages owned now (seed included) */
	int64_t peak;		/* largest cur seen */
	uint64_t peak_ts;
	uint64_t seed;		/* pages seeded at start (statm resident) */
	uint64_t seed_ts;	/* events before this time are not applied (already in the seed) */
	uint64_t start_ts;	/* fork time, or first sight */
	uint64_t exit_ts;
	uint64_t alloc_pages;	/* pages allocated, cumulative */
	uint64_t freed_pages;	/* pages credited back, cumulative */
	uint32_t mod;		/* module serial of the open load bracket; 0 none */
	uint8_t bracket;	/* BR_* of the open bracket */
	uint8_t state;		/* enum task_state */
	uint8_t flags;		/* TF_* */
	uint8_t comm_len;
	char comm[COMM_LEN];	/* raw bytes, not NUL-terminated when 16 long */
	uint32_t gen;		/* times this slot was recycled */
	uint32_t hashed;	/* 1 while the tid hash points at this slot */
	/* processes: a thread points at its leader; the leader sums its threads */
	uint32_t leader;	/* serial of the thread-group leader; 0: is one (or unknown) */
	int64_t pcur, ppeak;	/* on a leader: pages of all its threads, now and at peak */
	uint64_t ppeak_ts;
	uint64_t pexit_ts;	/* on a leader: when the process ended (its last thread) */
	/* command mode: this task's pages at the tree's peak (see stats_tree_pages_at_peak) */
	int64_t cur_at_tree_peak;
	uint32_t tree_epoch;
	uint64_t seed_left;	/* on a seeded leader: seeded pages not freed yet (stats.c) */
	/* this task's pages at the system's peak (see stats_sys_pages_at_peak) */
	int64_t cur_at_sys_peak;
	uint32_t sys_epoch;
	/*
	 * THP collapse in this task: the latest of its allocations of the highest
	 * order (>= 1) since its last collapse, and whose pages it replaces
	 */
	uint32_t collapse_to;	/* owner serial named by the isolation; 0 none */
	uint64_t big_pfn;
	uint8_t big_order;
};

/*
 * MOD_BEFORE: in /proc/modules just before tracing began (no load event).
 * MOD_UNTRACED: in /proc/modules at report time with no entry: loaded while
 * no event was seen (its events were lost, or it came after tracing stopped);
 * only in the report's extra list, never in the table.
 */
enum mod_state { MOD_UNUSED = 0, MOD_LOADING, MOD_LIVE, MOD_FAILED, MOD_UNLOADED, MOD_BEFORE,
		 MOD_UNTRACED };

struct mt_module {
	char name[MODNAME_LEN];	/* NUL-terminated; "" until module_load names it */
	uint32_t serial;	/* owner id (with OWNER_MODULE) */
	uint32_t loader_serial;	/* task serial of the loader */
	int32_t loader_tid;
	uint8_t state;		/* enum mod_state */
	uint8_t bracket;	/* how it was bracketed: BR_SYSCALL or BR_LOADPUT */
	uint8_t open;		/* bracket still open */
	uint8_t static_known;	/* static_kib is valid */
	int64_t cur;		/* pages owned now */
	int64_t peak;
	uint64_t peak_ts;
	uint64_t start_ts;	/* bracket opened */
	uint64_t load_ts;	/* module_load seen */
	uint64_t end_ts;	/* bracket closed */
	uint64_t free_ts;	/* module_free seen */
	uint64_t alloc_pages;
	uint64_t static_kib;	/* coresize + initsize, from sysfs (filled by the caller) */
	int64_t ret;		/* syscall return value, when seen */
	/*
	 * Every page charged to the module, by its load bracket or by a stack
	 * through its code (--stacks), counted once; without --stacks, what the
	 * bracket charged (cur, peak above, reported as load_peak_pages).
	 */
	int64_t all_cur, all_peak;
	uint64_t all_peak_ts;
	int64_t cur_at_sys_peak;	/* its pages (all_cur) at the system's peak */
	uint32_t sys_epoch;
};

/*
 * Owner ids in the pfn map: 0 = not tracked, else a task serial, or a module
 * serial | OWNER_MODULE, or OWNER_STALE: a task whose slot was recycled (the
 * serials were renumbered since; see stats.c).
 */
#define OWNER_MODULE	0x80000000u
#define OWNER_STALE	0x7fffffffu

/*
 * Pseudo tasks: allocations in interrupt context, tasks without a slot, and
 * (command mode) children of the command's tree without a slot, so that the
 * tree's total stays right.
 */
#define SLOT_IRQ		0
#define SLOT_OVERFLOW		1
#define SLOT_TREE_OVERFLOW	2
#define SLOT_FIRST		3

struct table_counters {
	uint64_t tasks_seen;		/* distinct tasks given a slot */
	uint64_t tasks_recycled;	/* exited tasks dropped to make room */
	int64_t recycled_max_peak;	/* largest peak among dropped tasks */
	uint64_t task_overflow_events;	/* events of tasks that found no slot */
	uint64_t module_overflow;	/* module loads that found no slot */
	uint64_t modules_seen;
	uint64_t module_pseudo;		/* module loads by a task without a slot: no bracket */
	uint64_t renumbered;		/* times the task serials were renumbered (wrap) */
};

struct table {
	uint32_t max_tasks;		/* task slots, pseudo tasks included */
	uint32_t max_modules;
	struct mt_task *tasks;		/* max_tasks slots; 0 and 1 are pseudo tasks */
	uint32_t ntasks_used;		/* slots ever handed out (high-water) */
	uint32_t *hash;			/* tid -> slot+1, open addressing */
	uint32_t hash_mask;
	uint32_t *victims;		/* exited slots, largest peak first (popped from the end) */
	uint32_t nvictims;
	bool victims_dirty;		/* an exit since the last victim search */
	uint8_t *pin;			/* per slot, from the last victim search: PIN_* */
	uint32_t tree_epoch;		/* the command tree's last peak (stats.c bumps it) */
	uint32_t serial_limit;		/* task serials stay below this (at most OWNER_STALE) */
	uint32_t max_gen;		/* the largest slot generation handed out */
	bool renumber_due;		/* serials near the limit: stats.c renumbers them */
	struct mt_module *mods;
	uint32_t nmods;
	struct table_counters c;
};

/**
 * table_init() - allocate the task and module tables once
 * @max_tasks: task slots, the pseudo tasks included
 * @serial_limit: task serials stay below it (0: OWNER_STALE); a test makes it small
 * Return: 0 or -errno (-EINVAL for sizes out of range, -ENOMEM).
 */
int table_init(struct table *tb, uint32_t max_tasks, uint32_t max_modules,
	       uint32_t serial_limit);
void table_free(struct table *tb);

/* Set a task's comm from raw bytes (at most COMM_LEN-1 kept, like the kernel). */
void table_set_comm(struct mt_task *t, const char *comm, size_t len);

/* Task by tid (the current holder of that tid), or NULL. */
struct mt_task *table_find_task(const struct table *tb, int32_t tid);

/* Task by owner serial, or NULL if the slot was recycled since. Every page free asks. */
static inline struct mt_task *table_task_by_serial(const struct table *tb, uint32_t serial)
{
	struct mt_task *t;
	uint32_t slot = serial - 1;

	if (!serial || serial >= OWNER_MODULE)
		return NULL;
	if (slot >= tb->max_tasks)	/* a recycled slot's: a division, rarely */
		slot %= tb->max_tasks;
	t = &tb->tasks[slot];
	return t->serial == serial ? t : NULL;
}

/* The process a task belongs to: its leader if known and not recycled, else itself. */
static inline struct mt_task *table_process_of(const struct table *tb, const struct mt_task *t)
{
	struct mt_task *p = t->leader ? table_task_by_serial(tb, t->leader) : NULL;

	/* the table is the caller's; const only says this does not change it */
	return p ? p : (struct mt_task *)t;
}

/*
 * A new task under @tid in a free slot or, when the table is full, in the slot
 * of the exited task with the smallest peak. NULL if there is none: the caller
 * decides what that means (table_task_for() charges <overflow>).
 */
struct mt_task *table_task_new(struct table *tb, int32_t tid, uint64_t ts);

/* The task of @tid, made at first sight; <overflow> (counted) if no slot is left. */
struct mt_task *table_task_for(struct table *tb, int32_t tid, uint64_t ts);

/* The alive task of @tid, or a new one; NULL (counted) if no slot is left. */
struct mt_task *table_task_for_new_tid(struct table *tb, int32_t tid, uint64_t ts);

/*
 * A new task under @tid: an alive one there is stale (its exit was not seen)
 * and is marked exited. NULL (counted) if no slot is left.
 */
struct mt_task *table_task_fresh(struct table *tb, int32_t tid, uint64_t ts);

/* The task exited at @ts (its slot may be recycled once it no longer matters). */
void table_task_exited(struct table *tb, struct mt_task *t, uint64_t ts);

/* Forget the tid of @t (it is gone, e.g. a thread that took over its leader's pid). */
void table_unhash(struct table *tb, struct mt_task *t);

/*
 * A new module entry, zeroed but for its serial; NULL when the table is full
 * (counted in module_overflow). The one way to claim a module slot.
 */
struct mt_module *table_module_new(struct table *tb);

/* Module by serial (without OWNER_MODULE), or NULL. */
struct mt_module *table_module_by_serial(const struct table *tb, uint32_t serial);

/* The last module's slot given back: nothing may hold its serial (no page, no bracket). */
void table_module_drop_last(struct table *tb);

/*
 * Serials from scratch: every slot's serial becomes its first one (slot + 1)
 * and its generation 0. The caller has rewritten every stored serial already
 * (table_serial_now() tells the new one of an old serial).
 */
void table_renumber(struct table *tb);

/* What an owner serial becomes in table_renumber(): the slot's first serial, or OWNER_STALE. */
uint32_t table_serial_now(const struct table *tb, uint32_t serial);

/* Module by name (@len bytes, not terminated), the most recent one; NULL if none. */
struct mt_module *table_find_module(const struct table *tb, const char *name, size_t len);

#endif
