/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * streamproc.h - --stream's state, shared by stream.c (the mode: output, events,
 * summaries) and streamproc.c (the processes: facts taken at fork, exec and
 * rename, the verdict on each task, the picked processes' entries). Private to
 * those two files.
 */
#ifndef MEMTRACE_STREAM_STREAMPROC_H
#define MEMTRACE_STREAM_STREAMPROC_H

#include <stdbool.h>
#include <stdint.h>

#include "core/cond.h"
#include "stream/jsonl.h"
#include "stream/mempair.h"
#include "stream/outq.h"
#include "stream/procinfo.h"
#include "core/run.h"

#define UNANSWERED	8		/* containers named in the end's warning */
/* taken at a fork or exec besides what the conditions need: what a line says */
#define PI_FACTS	(PI_STATUS | PI_CMDLINE | PI_EXEPATH | PI_CGROUP)
/* what an exec changes: a fork child has its parent's until its exec */
#define PI_PROGRAM	(PI_STATUS | PI_CMDLINE | PI_EXEPATH)

enum { V_UNKNOWN = 0, V_NO, V_YES };

/* Per task slot: the verdict on it, and (on a process's leader) its process's entries. */
struct st_task {
	uint32_t serial;	/* the task it is about: its slot's serial then */
	uint8_t verdict;
	bool unsure;		/* on a leader: its process left out on unknown facts (counted) */
	bool was_picked;	/* on a leader: its process was picked once (never counted) */
	bool pre_exec;		/* on a leader: its fork was seen, its exec not yet */
	uint16_t fentry;	/* on a leader: its process's facts + 1 (0: none) */
	uint16_t gen;		/* on a leader: its process's renames and execs (process.name) */
	uint16_t pgen;		/* its leader's gen when it was decided */
	uint32_t pentry;	/* its process's entry + 1 (0: none) */
};

/*
 * What /proc (or the event itself) told of a process at its fork or exec, as
 * soon as the batch reached the event: a short-lived process is gone by the
 * time its first memory event is decided on. A ring: the oldest is reused.
 */
struct st_facts {
	uint32_t leader_serial;	/* the process's leader's serial; 0: free */
	uint32_t held;		/* PI_* withheld since a rename that may be an exec's */
	struct procinfo pi;
};

/* A picked process: what its lines say of it, and its counts since the last summary. */
struct st_proc {
	uint32_t leader_serial;	/* its leader's (or first seen task's) serial; 0: free */
	int32_t pid;
	bool exited, stale, final_done;
	uint64_t last_ts;	/* its last event: the oldest exited one is replaced first */
	uint64_t brk;		/* the break after its last brk (0: not known yet) */
	int64_t cur, peak;	/* pages at the last summary (its leader may be recycled) */
	bool active;		/* events since the last summary */
	uint64_t count[JL__COUNT], bytes[JL__COUNT];
	struct procinfo pi;
	uint16_t frag_len;
	char frag[JL_PROC_MAX];
};

struct stream {
	bool up;			/* prepared: stream_free() undoes it (once) */
	struct cond cond;
	bool all, tree;
	uint8_t events;			/* MT_EVT_* asked for */
	struct outq q;
	struct jl_clock clk;
	char src[JL_SRC_MAX];
	size_t src_len;
	struct pi_ctx pi;
	struct mempair pair;
	struct st_task *tasks;
	uint32_t ntasks;
	struct st_proc *procs;
	uint32_t nprocs;
	struct st_facts *facts;
	uint32_t nfacts, next_facts;
	uint64_t facts_exec, facts_fork;	/* facts taken at an exec, at a fork */
	uint64_t exe_from_exec;		/* exe from the exec event's filename (/proc was gone) */
	uint32_t nheld;			/* facts withheld after a rename (held != 0) */
	struct procinfo scratch;	/* the facts of the last verdict made without an entry */
	uint32_t scratch_want;		/* the PI_* its conditions read of them */
	int32_t self;
	uint32_t page_size;
	uint64_t interval_ns, next_summary, next_loss;
	uint64_t lines, meta_lines;	/* lines queued: events and summaries; lost lines */
	uint64_t lost_queue, lost_queue_shown, lost_kernel_shown;
	uint64_t lost_error;		/* lines made while the output failed */
	uint64_t lost_output_shown;	/* lines a file's write errors cost, said in-band */
	bool said_failing;		/* the file's write errors said on stderr */
	uint64_t proc_overflow, picked_procs;
	uint64_t unsure_procs;		/* processes left out on unknown facts, not picked since */
	uint32_t warned_keys;
	uint32_t unanswered_keys;	/* keys some container could not answer */
	uint32_t nunanswered;		/* such containers (the first UNANSWERED named) */
	bool unanswered_more;		/* ... and more than that */
	char unanswered[UNANSWERED][13];
	bool gone;			/* the reader of the output is gone */
};

/* The task slot's verdict entry of @t (reset when the slot's task changed). */
struct st_task *stream_slot_of(struct run *r, struct stream *s, const struct mt_task *t);
/* The facts of a process, taken as soon as the batch reaches its exec, fork or rename. */
void stream_exec_facts(struct run *r, struct stream *s, const struct mt_event *ev);
void stream_fork_facts(struct run *r, struct stream *s, const struct mt_event *ev);
void stream_rename_facts(struct run *r, struct stream *s, const struct mt_event *ev);
/* Task @tid is back in user space: facts withheld since a rename are its own again. */
void stream_resume_facts(struct run *r, struct stream *s, int32_t tid);
/* The entry of a picked task's process, or NULL when @tid is not picked. */
struct st_proc *stream_picked(struct run *r, struct stream *s, int32_t tid, uint64_t ts);
/* exec or rename: the task is decided again, its process described again. */
void stream_changed(struct run *r, struct stream *s, int32_t tid);
/* A task's exit: its process's entry ended with its leader. */
void stream_exited(struct run *r, struct stream *s, const struct mt_event *ev);
/* Whether @sp's process has ended. */
bool stream_ended(struct run *r, struct st_proc *sp);
/* At the end: the containers whose keys could not be answered, in one line. */
void stream_say_unanswered(const struct stream *s);

#endif
