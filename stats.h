/* SPDX-License-Identifier: GPL-2.0-only */
/* stats.h - fixed tables of tasks and modules, the pfn->owner map, current and peak pages */
#ifndef MEMTRACE_STATS_H
#define MEMTRACE_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "event.h"

#define COMM_LEN	16
#define MODNAME_LEN	56
#define MAX_ORDER_SEEN	20	/* orders above this are treated as bad records */

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
};

/* One exiting process, queued for the --exits monitor (read by the main loop). */
struct mt_exit {
	int32_t pid, ppid;
	uint8_t comm_len;
	char comm[COMM_LEN];
	int64_t peak;		/* process peak: threads summed */
	uint64_t start_ts, exit_ts;
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
};

/* Owner ids in the pfn map: 0 = not tracked, else a task serial, or a module serial | OWNER_MODULE. */
#define OWNER_MODULE	0x80000000u

struct stats_config {
	uint32_t max_tasks;	/* task slots (pseudo tasks included) */
	uint32_t max_modules;
	uint64_t max_pfn;	/* pfn map covers [0, max_pfn) */
	uint64_t initmod_start;	/* do_init_module address range, 0 if unknown */
	uint64_t initmod_end;
	bool rename_events;	/* task_rename is enabled: exec does not set comm */
	uint32_t exit_ring;	/* --exits: room for this many queued process exits (0: none) */
	bool tree_first_sight;	/* no fork/newtask events: root the tree at first sight */
	int32_t self_pid;	/* memtrace's own pid: its page allocations are not counted */
};

struct stats_counters {
	uint64_t events[EV__COUNT];	/* applied events by kind */
	uint64_t failed_allocs;		/* mm_page_alloc with pfn all ones */
	uint64_t self_allocs;		/* memtrace's own mm_page_alloc events, not applied */
	uint64_t bad_order;		/* page events with an absurd order, skipped */
	uint64_t untracked_frees;	/* free events with at least one never-seen page */
	uint64_t untracked_free_pages;
	uint64_t double_allocs;		/* pages allocated again without a free seen */
	uint64_t pfn_out_of_range;	/* page events beyond the map, skipped */
	uint64_t pre_seed_skipped;	/* allocations older than the task's seed */
	uint64_t recycled_frees;	/* pages freed whose owner's slot was recycled */
	uint64_t irq_pages;		/* pages allocated in irq/softirq/nmi context */
	uint64_t tasks_seen;		/* distinct tasks given a slot */
	uint64_t tasks_recycled;	/* exited tasks dropped to make room */
	int64_t recycled_max_peak;	/* largest peak among dropped tasks */
	uint64_t task_overflow_events;	/* events of tasks that found no slot */
	uint64_t task_overflow_pages;	/* their allocated pages (charged to <overflow>) */
	uint64_t module_overflow;	/* module loads that found no slot */
	uint64_t modules_seen;
};

struct stats {
	struct stats_config cfg;
	struct mt_task *tasks;		/* cfg.max_tasks slots; 0 and 1 are pseudo tasks */
	uint32_t ntasks_used;		/* slots ever handed out (high-water) */
	uint32_t *hash;			/* tid -> slot+1, open addressing */
	uint32_t hash_mask;
	uint32_t *victims;		/* exited slots, largest peak first (popped from the end) */
	uint32_t nvictims;
	struct mt_module *mods;
	uint32_t nmods;
	uint32_t *pfn_owner;		/* cfg.max_pfn entries, mapped lazily */
	size_t pfn_map_bytes;
	struct stats_counters c;
	uint64_t first_ts, last_ts;	/* of applied events */
	/* command mode: the process tree of the command */
	int64_t tree_cur, tree_peak;
	uint64_t tree_peak_ts;
	uint32_t tree_epoch;		/* bumped at every new tree peak */
	uint64_t tree_processes;	/* processes (not threads) that joined the tree */
	uint64_t tree_threads;		/* threads that joined it */
	int32_t tree_root_pid;		/* the command, created by ... */
	int32_t tree_parent_pid;	/* ... memtrace */
	bool tree_rooted;
	bool victims_dirty;		/* an exit since the last victim search */
	/* --exits: a ring of process exits, filled here, emptied by the caller */
	struct mt_exit *exits;
	uint32_t exit_head, exit_count;
	uint64_t exits_dropped;		/* the caller was too slow: ring full */
	/* set by an oom:mark_victim event; cleared by the caller after reporting */
	bool oom_pending;
	int32_t oom_pid;
	char oom_comm[COMM_LEN + 1];
	uint64_t oom_ts;
	uint64_t oom_count;
};

#define SLOT_IRQ	0
#define SLOT_OVERFLOW	1
#define SLOT_FIRST	2

/**
 * stats_init() - allocate every table once, sized from @cfg
 *
 * The pfn map is reserved as 4 bytes per page frame (MAP_NORESERVE) and only
 * the parts that tracked pages touch become resident.
 * Return: 0 or -errno.
 */
int stats_init(struct stats *s, const struct stats_config *cfg);
void stats_free(struct stats *s);

/** stats_apply() - account one event; never allocates */
void stats_apply(struct stats *s, const struct mt_event *ev);

/**
 * stats_seed_task() - add a task alive at start
 * @pages: resident pages from statm (0 for kernel threads and other threads)
 * @ts: trace-clock time of the seed; older allocations of this task are skipped
 * Return: the task, or NULL if the table is full.
 */
struct mt_task *stats_seed_task(struct stats *s, int32_t tid, int32_t tgid, int32_t ppid,
				const char *comm, size_t comm_len, uint64_t pages,
				uint64_t ts, bool kthread);

/* Task by tid (the current holder of that tid), or NULL. */
struct mt_task *stats_find_task(struct stats *s, int32_t tid);

/* Task by owner serial, or NULL if the slot was recycled since. */
struct mt_task *stats_task_by_serial(const struct stats *s, uint32_t serial);

/* Module by serial (without OWNER_MODULE), or NULL. */
struct mt_module *stats_module_by_serial(struct stats *s, uint32_t serial);

/* Module by name, the most recent one; NULL if none. */
struct mt_module *stats_find_module(struct stats *s, const char *name, size_t len);

/**
 * stats_module_present() - make sure a module the kernel lists has an entry
 *
 * For the modules in /proc/modules just before tracing begins. A module that
 * has a live entry already (from the boot buffer) is returned as is; any other
 * gets a new entry in state MOD_BEFORE: loaded before tracing began, no pages
 * counted. Not for the event path. Return: the entry, or NULL when the table
 * is full (counted in module_overflow).
 */
struct mt_module *stats_module_present(struct stats *s, const char *name, size_t len);

/*
 * From the kernel's boot buffer (boot.c): a module loaded by @tid at @ts
 * (state live, bracket BR_BOOT, no pages), and a module removed at @ts (the
 * latest entry of that name becomes unloaded). Not for the event path.
 * Return: the entry, or NULL (table full, or no such module).
 */
struct mt_module *stats_module_booted(struct stats *s, const char *name, size_t len,
				      int32_t tid, uint64_t ts);
struct mt_module *stats_module_gone(struct stats *s, const char *name, size_t len, uint64_t ts);

/* The live entry (not unloaded or failed) of module @name, or NULL. */
struct mt_module *stats_module_live(struct stats *s, const char *name, size_t len);

/* true while a traced load has an open bracket and no name yet */
bool stats_module_unnamed_open(const struct stats *s);

/*
 * Command mode: @tid, created by @parent (memtrace), roots the tree when the
 * event of that creation is read; everything it forks or clones joins. Tree
 * pages are the sum of the current pages of its tasks; tree_peak is the
 * largest that sum reached.
 */
void stats_tree_root(struct stats *s, int32_t tid, int32_t parent);

/* A tree task's pages at the moment of the tree's peak (0 if it had none). */
int64_t stats_tree_pages_at_peak(const struct stats *s, const struct mt_task *t);

/* The process a task belongs to: its leader if known and not recycled, else itself. */
struct mt_task *stats_process_of(const struct stats *s, const struct mt_task *t);

/* Link seeded threads to their leaders (after seeding from /proc). */
void stats_link_threads(struct stats *s);

/* KiB of the pfn map that are resident (mincore); -1 if unknown. Not for the event path. */
long stats_map_resident_kib(const struct stats *s);

/* Take the oldest queued process exit; false when none. */
bool stats_exit_pop(struct stats *s, struct mt_exit *out);

/* Set a task's comm from raw bytes (at most COMM_LEN-1 kept, like the kernel). */
void stats_set_comm(struct mt_task *t, const char *comm, size_t len);

/* internal, shared with module.c */
struct mt_task *stats_task_for(struct stats *s, int32_t tid, uint64_t ts);
void module_event(struct stats *s, const struct mt_event *ev);
void module_task_exit(struct stats *s, struct mt_task *t, uint64_t ts);

#endif
