/* SPDX-License-Identifier: GPL-2.0-only */
/* model/stacks.h - kernel stacks of page allocations: the stack table, pages per stack, module trees, task stacks */
#ifndef MEMTRACE_MODEL_STACKS_H
#define MEMTRACE_MODEL_STACKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel/event.h"
#include "model/table.h"

#define STACK_MAX_FRAMES	64	/* frames kept of a stack, innermost first */
#define STACK_PENDING		4	/* allocations of one CPU waiting for their stack */

/*
 * One distinct kernel stack of mm_page_alloc (frames innermost first, as the
 * kernel writes them): the pages allocated through it that are still held,
 * and the true running peak of that number (never a sum of peaks).
 */
struct mt_stack {
	uint64_t hash;
	uint32_t frames;	/* its first frame in the pool */
	uint16_t nframes;
	uint16_t truncated;	/* the kernel gave more frames than are kept */
	uint32_t module;	/* serial of the module of its innermost module frame; 0 none */
	uint32_t leaf;		/* its innermost node in the module's tree; 0 none */
	int64_t cur, peak;
	uint64_t peak_ts;
	uint64_t pages;		/* allocated through it, cumulative */
};

/*
 * A module's stacks as a tree, from the outermost caller to the allocator: a
 * node is a frame after a given path, with the pages of every stack through
 * it, and the true running peak of that sum.
 */
struct stack_node {
	uint64_t frame;
	uint32_t parent;	/* 0: a first frame (the tree's root is the module) */
	uint32_t module;
	int64_t cur, peak;
};

/* The pages a task holds that came through one stack. */
struct task_stack {
	uint32_t task;		/* task serial */
	uint32_t stack;
	int64_t cur, peak;
};

/* The code of a module: a frame in [start, end) is the module's, once it was loaded at @from_ts. */
struct mod_range {
	uint64_t start, end;
	uint64_t from_ts;
	char name[MODNAME_LEN];
};

/* An allocation waiting for the stack record that follows it on its CPU. */
struct stack_pending {
	uint64_t pfn;
	uint32_t n;		/* pages */
	uint32_t owner;		/* its owner in the pfn map (task serial, or module | OWNER_MODULE) */
	uint32_t task;		/* the allocating task's serial */
	uint64_t ts;		/* of the allocation */
	bool use;		/* counted (not memtrace's own, not failed, not skipped) */
};

struct stacks_counters {
	uint64_t paired;		/* stack records paired with their allocation */
	uint64_t unpaired_allocs;	/* allocations whose stack never came */
	uint64_t unpaired_stacks;	/* stack records without an allocation before them */
	uint64_t table_full;		/* stacks not kept: the table (--max-stacks) or its frames full */
	uint64_t table_full_pages;	/* ... and their pages */
	uint64_t truncated;		/* stacks with more frames than kept */
	uint64_t nodes_full;		/* module-tree nodes not made: the node pool full */
	uint64_t pairs_full;		/* task-and-stack entries not made */
	uint64_t pairs_freed;		/* entries of recycled tasks given back when full */
	uint64_t unresolved;		/* stacks with a frame in no known module's code */
	uint64_t empty;			/* stack records without a frame */
};

struct stacks {
	uint32_t max;			/* stack entries; index 0 is never used */
	uint32_t n;
	struct mt_stack *st;
	uint32_t *hash;
	uint32_t hmask;
	uint64_t *pool;			/* frames of every stack */
	uint32_t pool_cap, pool_used;
	uint32_t *pfn_stack;		/* per pfn: the stack its pages came through (0 none) */
	size_t map_bytes;
	uint64_t max_pfn;
	struct stack_node *nodes;	/* index 0 is never used */
	uint32_t max_nodes, nnodes;
	uint32_t *nhash;
	uint32_t nhmask;
	struct task_stack *pairs;	/* index 0 is never used */
	uint32_t max_pairs, npairs;
	const struct table *tb;		/* the tasks: entries of recycled ones are given back */
	uint64_t compacted_at;		/* tasks recycled when the entries were last compacted */
	uint32_t *phash;
	uint32_t phmask;
	struct mod_range *ranges;	/* by start */
	uint32_t nranges, max_ranges;
	struct stack_pending *pend;	/* STACK_PENDING per CPU number */
	uint8_t *npend;
	uint32_t ncpu;
	bool hidden;			/* kptr_restrict: module addresses read as zero */
	struct stacks_counters c;
};

/**
 * stacks_init() - the tables of --stacks, sized once
 * @max: distinct stacks (frames pool, module-tree nodes and task-and-stack
 *       entries are sized from it)
 * @ncpu: CPU numbers are below this
 * Return: 0 or -ENOMEM. The pfn map is reserved, not committed.
 */
int stacks_init(struct stacks *sk, uint32_t max, uint64_t max_pfn, uint32_t ncpu);
void stacks_free(struct stacks *sk);

/* An allocation on @cpu: it waits for its stack record (use: it counts). */
void stacks_push(struct stacks *sk, uint32_t cpu, uint64_t pfn, uint32_t n, uint32_t owner,
		 uint32_t task, uint64_t ts, bool use);

/**
 * stacks_pop() - the allocation a stack record of @cpu belongs to
 * Return: false (counted) when none waits.
 */
bool stacks_pop(struct stacks *sk, uint32_t cpu, struct stack_pending *out);

/**
 * stacks_find() - the entry of the stack in @ev (made at first sight)
 * @tb: the module table: a new stack's module is the live entry of the name
 *      of the range its innermost module frame is in
 * @ts: when it was seen: module code is the module's from its load on
 * Return: its index, or 0 (counted) when the table or the frame pool is full.
 */
uint32_t stacks_find(struct stacks *sk, const struct table *tb, const struct mt_event *ev,
		     uint64_t ts);

/* @n pages more (or fewer) through stack @sid, held by task @task (serial; 0: none). */
void stacks_pages(struct stacks *sk, uint32_t sid, uint32_t task, int64_t n, uint64_t ts);

/* The frames of stack @sid, innermost first. */
static inline const uint64_t *stacks_frames(const struct stacks *sk, uint32_t sid)
{
	return sk->pool + sk->st[sid].frames;
}

/*
 * The modules' code as /proc/modules says now: @n ranges (any order). A range
 * the table has already keeps its from_ts; one that overlaps none stays (a
 * module unloaded since: its stacks may still come). Stacks already seen keep
 * their module. Not for the event path. Return: 0 or -ENOMEM.
 */
int stacks_set_ranges(struct stacks *sk, const struct mod_range *r, uint32_t n);

/* The range frame @addr is in at @ts, or NULL. */
const struct mod_range *stacks_range_of(const struct stacks *sk, uint64_t addr, uint64_t ts);

/* The task-and-stack entry of (@task, @sid), or NULL. */
const struct task_stack *stacks_task_pair(const struct stacks *sk, uint32_t task, uint32_t sid);

/* Task serials were renumbered (stats.c): @now maps an old serial to its new one. */
void stacks_renumber(struct stacks *sk, uint32_t (*now)(const struct table *, uint32_t),
		     const struct table *tb);

#endif
