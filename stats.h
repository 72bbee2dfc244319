/* SPDX-License-Identifier: GPL-2.0-only */
/* stats.h - page accounting: the pfn->owner map, current and peak pages, the event dispatch */
#ifndef MEMTRACE_STATS_H
#define MEMTRACE_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel/event.h"
#include "model/stacks.h"
#include "model/table.h"
#include "model/tidset.h"

#define MAX_ORDER_SEEN	20	/* orders above this are treated as bad records */
_Static_assert(MAX_ORDER_SEEN < 32, "a block's page count is a uint32_t");

/* One exiting process, queued where cfg.exit_ring asks (taken by stats_exit_pop()). */
struct mt_exit {
	int32_t pid, ppid;
	uint8_t comm_len;
	char comm[COMM_LEN];
	int64_t peak;		/* process peak: threads summed */
	uint64_t start_ts, exit_ts;
};

struct stats_config {
	uint32_t max_tasks;	/* task slots (pseudo tasks included) */
	uint32_t max_modules;
	uint64_t max_pfn;	/* pfn map covers [0, max_pfn) */
	uint64_t ram_pfn;	/* ... or [0, ram_pfn) if that much cannot be reserved (0: fail) */
	uint64_t initmod_start;	/* do_init_module address range, 0 if unknown */
	uint64_t initmod_end;
	bool rename_events;	/* task_rename is enabled: exec does not set comm */
	uint32_t exit_ring;	/* room for this many queued process exits (0: none) */
	bool tree_first_sight;	/* no fork/newtask events: root the tree at first sight */
	int32_t self_pid;	/* memtrace's own pid: its page allocations are not counted */
	uint32_t serial_limit;	/* task serials stay below it (0: the most the map holds) */
	uint32_t max_stacks;	/* --stacks: distinct stacks kept (0: no stacks) */
	uint32_t cpu_ids;	/* --stacks: CPU numbers are below this */
	bool classes;		/* crashkernel=: each tracked page's page cache told apart */
};

/* kdump's dump writer: its exit is a capture's last step before a reboot that may signal nobody */
#define DUMP_WRITER	"makedumpfile"

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
	uint64_t task_overflow_pages;	/* pages allocated by tasks without a slot (<overflow>) */
	uint64_t seed_freed_pages;	/* untracked frees taken off a process's seed */
	uint64_t seed_dropped_pages;	/* seed left when its process ended */
	uint64_t seed_stale_events;	/* events older than a task's seed, not applied to it */
	uint64_t collapses;		/* huge pages given to the process whose pages they replaced */
	uint64_t collapse_pages;	/* ... their pages */
	uint64_t migrated_pages;	/* tracked pages freed inside a migration (compaction): moved */
	uint64_t migrations;		/* migration runs seen (mm_migrate_pages_start) */
	uint64_t tree_overflow_tasks;	/* command tree tasks without a slot: <tree-overflow> */
	uint64_t tree_overflow_pages;	/* their allocated pages */
	uint64_t tree_lost_tasks;	/* ... and those the tree-overflow set had no room for */
	uint64_t dump_writer_exits;	/* processes named makedumpfile that ended (--switch-root) */
};

struct stats {
	struct stats_config cfg;
	struct table tb;		/* tasks and modules */
	uint32_t *pfn_owner;		/* cfg.max_pfn entries, mapped lazily */
	size_t pfn_map_bytes;
	uint64_t pfn_hi;		/* page frames at and above this were never seen */
	bool map_short;			/* reserved for cfg.ram_pfn only (the address space) */
	struct stats_counters c;
	struct mt_task *last;		/* the task task_for() found last (the <irq> slot: none) */
	uint64_t first_ts, last_ts;	/* of applied events */
	/* the system: every page in the pfn map, each once (tasks, <irq>, modules' own) */
	int64_t sys_cur, sys_peak;
	uint64_t sys_peak_ts;
	/*
	 * cfg.classes: of those pages, the page cache (filemap events): on a
	 * block device's filesystem (clean, reclaim takes it back) and on tmpfs,
	 * ramfs (it stays); now and at the system peak. A byte a page frame.
	 */
	uint8_t *pfn_class;
	int64_t file_blk_cur, file_mem_cur;
	int64_t file_blk_at_peak, file_mem_at_peak;
	uint32_t sys_epoch;		/* bumped at every new system peak */
	/* the process tree of a command memtrace runs (stats_tree_root()) */
	int64_t tree_cur, tree_peak;
	uint64_t tree_peak_ts;
	uint64_t tree_processes;	/* processes (not threads) that joined the tree */
	uint64_t tree_threads;		/* threads that joined it */
	int32_t tree_root_pid;		/* the command, created by ... */
	int32_t tree_parent_pid;	/* ... memtrace */
	bool tree_rooted;
	/* tids of tree tasks without a slot: their pages are <tree-overflow>'s */
	struct tidset tree_lost;
	/* a ring of cfg.exit_ring process exits, filled here, emptied by the caller */
	struct mt_exit *exits;
	uint32_t exit_head, exit_count;
	uint64_t exits_dropped;		/* the caller was too slow: ring full */
	/* tasks between mm_migrate_pages_start and mm_migrate_pages (a few at once) */
	int32_t migrating[8];
	uint32_t nmigrating;
	/* --stacks: the stack tables; a module was loaded (its code is not known yet) */
	bool stacks_on;
	struct stacks sk;
	bool want_ranges;
	uint64_t want_ranges_ts;
	/* set by an oom:mark_victim event; cleared by the caller after reporting */
	bool oom_pending;
	int32_t oom_pid;
	char oom_comm[COMM_LEN + 1];
	uint64_t oom_ts;
	uint64_t oom_count;
	/*
	 * A live run's reader stops after each event while the caller has
	 * something to do first: a module's code to read (want_ranges), an OOM
	 * kill to report where stop_oom (the mode reports it). The reader's stop
	 * flag, set by stats_apply(); NULL: never (a replay reads on). The caller
	 * wires it (setup_pick_sink()).
	 */
	bool *stop;
	bool stop_oom;
	/* every event the general way, none the fast way (stats.c; the tests compare the two) */
	bool general_only;
};

/**
 * stats_init() - allocate every table once, sized from @cfg
 *
 * The pfn map is reserved as 4 bytes per page frame up to @cfg->max_pfn (or
 * @cfg->ram_pfn when that much address space cannot be had: map_short), with
 * MAP_NORESERVE: only the parts that tracked pages touch become resident.
 * Return: 0 or -errno.
 */
int stats_init(struct stats *s, const struct stats_config *cfg);
void stats_free(struct stats *s);

/** stats_apply() - account one event; never allocates */
void stats_apply(struct stats *s, const struct mt_event *ev);

/*
 * The reader's sink with the stats as its context: every event to
 * stats_apply(). For a run where nothing else takes each event
 * (setup_pick_sink()): one call less an event than through the run's sink.
 */
void stats_sink(void *ctx, const struct mt_event *ev);

/**
 * stats_apply_run() - stats_apply() of @n events, each @stride bytes after the one before
 *
 * As n calls of stats_apply(), in one: where an event sets the reader's stop
 * flag (@s->stop), the ones after it are left. Return: how many were applied
 * (fewer than @n only after the stop flag was set).
 */
uint32_t stats_apply_run(struct stats *s, const struct mt_event *ev, uint32_t n, size_t stride);

/* The reader's run sink (reader_sink_run) with the stats as its context: stats_apply_run(). */
uint32_t stats_sink_run(void *ctx, const struct mt_event *ev, uint32_t n, size_t stride);

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
static inline struct mt_task *stats_find_task(const struct stats *s, int32_t tid)
{
	return table_find_task(&s->tb, tid);
}

/*
 * The task of @tid as the accounting keeps it, made at first sight (command
 * mode's root included); <overflow> when no slot is left. For a consumer of
 * events the accounting does not apply (a stream's syscalls and faults).
 */
struct mt_task *stats_task(struct stats *s, int32_t tid, uint64_t ts);

/* The task that owns page frame @pfn now (its allocation was seen), or NULL. */
struct mt_task *stats_page_owner(const struct stats *s, uint64_t pfn);

/* Task by owner serial, or NULL if the slot was recycled since. */
static inline struct mt_task *stats_task_by_serial(const struct stats *s, uint32_t serial)
{
	return table_task_by_serial(&s->tb, serial);
}

/* The process a task belongs to: its leader if known and not recycled, else itself. */
static inline struct mt_task *stats_process_of(const struct stats *s, const struct mt_task *t)
{
	return table_process_of(&s->tb, t);
}

/*
 * A command memtrace runs: @tid, created by @parent (memtrace), roots the tree
 * when the event of that creation is read; everything it forks or clones joins. Tree
 * pages are the sum of the current pages of its tasks; tree_peak is the
 * largest that sum reached.
 */
void stats_tree_root(struct stats *s, int32_t tid, int32_t parent);

/* A tree task's pages at the moment of the tree's peak (0 if it had none). */
int64_t stats_tree_pages_at_peak(const struct stats *s, const struct mt_task *t);

/*
 * The pages a task or module held at the system's peak (the most pages the
 * pfn map held at once since the start): what kdump's crashkernel= must fit.
 */
int64_t stats_sys_pages_at_peak(const struct stats *s, const struct mt_task *t);

/*
 * The system's level starts again at 0 (and its peak): the pfn map is emptied,
 * so that the pages held now are no page of the map's any more (the boot
 * buffer's, which become the tasks' seeds: input/boot.c).
 */
void stats_restart_level(struct stats *s);
int64_t stats_sys_module_at_peak(const struct stats *s, const struct mt_module *m);

/* Link seeded threads to their leaders (after seeding from /proc). */
void stats_link_threads(struct stats *s);

/* KiB of the pfn map that are resident (mincore); -1 if unknown. Not for the event path. */
long stats_map_resident_kib(const struct stats *s);

/* Take the oldest queued process exit; false when none. */
bool stats_exit_pop(struct stats *s, struct mt_exit *out);

#endif
