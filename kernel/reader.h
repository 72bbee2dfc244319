/* SPDX-License-Identifier: GPL-2.0-only */
/* kernel/reader.h - read per-CPU sub-buffers, merge the CPUs by time stamp, decode, hand events on */
#ifndef MEMTRACE_KERNEL_READER_H
#define MEMTRACE_KERNEL_READER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "kernel/event.h"
#include "kernel/ringbuf.h"

typedef void (*reader_sink)(void *ctx, const struct mt_event *ev);

/*
 * A sink that takes a run of events in one call (optional, set after
 * reader_init(); the sink's ctx): @n decoded events, each @stride bytes after
 * the one before (mt_event_next(): the queue's entries), taken in order as n
 * calls of the sink would take them. It returns how many it took: fewer than
 * @n only when it set the reader's stop flag after the last one it took. A
 * CPU's run of records (a storm: nearly every event) goes to it a queue's worth
 * at a time, a call each.
 */
typedef uint32_t (*reader_sink_run)(void *ctx, const struct mt_event *ev, uint32_t n,
				    size_t stride);

/*
 * Each CPU's records are walked and decoded ahead of the merge into a queue of
 * READER_QUEUE (of its page; the record the CPU holds for the merge included):
 * when READER_AHEAD or fewer are left, the queue is filled to one short of
 * full, so each record is walked 8 to 31 records before it is delivered: what
 * the consumer will touch for it can start coming into the cache then (the
 * accounting: the pfn map entry of a page event, a cache and TLB miss
 * otherwise, paid one after the other; bench/hotpath.py). A record is walked
 * and decoded once. A CPU's run goes to a run sink the records queued up to
 * the next walk at a time (up to 23; the queue's end splits them): 32 and
 * not 16, so that a call carries more of them (bench/hotpath.py).
 *
 * The consumer's maps of 32-bit entries by page frame (one or two: the
 * accounting's pfn maps), set after reader_init(): the reader prefetches a
 * page event's entries as it walks it; an entry at or past n is never fetched.
 * Without maps, each decoded event is shown to reader_ahead_fn as it is walked
 * (the tests watch the walk so); it reads, it changes nothing.
 */
typedef void (*reader_ahead_fn)(void *ctx, const struct mt_event *ev);

struct reader_prefetch {
	const uint32_t *map;
	const uint32_t *map2;	/* a second map of as many, or NULL */
	uint64_t n;
};
#define READER_AHEAD	8
#define READER_QUEUE	32	/* a power of two, > 2 * READER_AHEAD - 1 */

/*
 * A record walked ahead, and what decoding it gave (DEC_*). 128 bytes, two
 * cache lines: the queue's entries are found by a shift, not a multiply.
 */
struct reader_rec {
	struct rb_record rec;
	struct mt_event ev;
	int res;
} __attribute__((aligned(128)));

struct reader_cpu {
	int cpu;		/* cpu number */
	int fd;			/* trace_pipe_raw (live) or a recorded file (replay) */
	int rec_fd;		/* record mode: raw pages are copied here; -1 if not */
	uint8_t *page;		/* one sub-buffer (of reader.pages) */
	struct rb_cursor cur;
	/*
	 * The page's records walked ahead (READER_QUEUE, of reader.queues):
	 * q[qhead] is the next, qn of them; qend what the cursor said
	 * after the last (RB_END or RB_CORRUPT; RB_RECORD: it has more).
	 */
	struct reader_rec *q;	/* NULL: a mapped CPU between pages (reader.qfree) */
	uint32_t qhead, qn;
	int qend;
	/*
	 * The page's records counted from 1 as walked: qtaken of them have left
	 * the queue (q[qhead] is number qtaken + 1); qbreak is the last that was
	 * not decoded or came before the record walked before it (0: none).
	 * Where qbreak is at or before a record's number, the queue from that
	 * record on is decoded and in time order: deliver_span() need not ask
	 * each record.
	 */
	uint32_t qtaken, qbreak;
	struct rb_record rec;	/* next record of this CPU, when have_rec */
	const struct reader_rec *held;	/* ... and its place in q */
	bool have_rec;
	bool lazy;		/* reader_files(): rec.ts is its page's first record's, not walked yet */
	const uint8_t *map;	/* reader_files(): its file, mapped (NULL: read) */
	size_t map_len, off;	/* ... its length, where its next page is */
	volatile size_t map_cut;/* ... where reader_map_fault() found it ends now (map_len: not cut) */
	bool in_page;		/* cur iterates a page */
	bool blocked;		/* live: read() said EAGAIN at time 'bound' */
	bool caught_up;		/* live: the last page read was less than half full */
	bool said_empty;	/* live: its bound is from a read that found it empty */
	bool eof;		/* no more data will come */
	bool truncated;		/* stopped at max_pages or the deadline, not at the end */
	bool offline;		/* live: not readable now (ENODEV: an offline CPU, or no fd) */
	bool was_offline;	/* it was not readable for a while (came online later) */
	bool todo;		/* to be read before the merge chooses again */
	int bpos;		/* its place in the heap of blocked CPUs, -1: not there */
	uint64_t max_pages;	/* read at most this many sub-buffers (0: no limit) */
	uint64_t bound;		/* events still to come on this CPU are newer than this */
	/* counters */
	uint64_t pages;
	uint64_t bytes;
	uint64_t lost_stored;	/* lost counts stored in page headers */
	uint64_t missed_pages;	/* pages flagged MISSED_EVENTS */
	uint64_t missed_unknown;/* ... whose count was not stored */
	uint64_t stats_lost;	/* from per_cpu/cpuN/stats (set by the caller) */
	uint64_t corrupt_pages;
	uint64_t corrupt_records;
	uint64_t read_errors;
	uint64_t record_errors;
	int record_err;		/* the first error saving a page (errno), for memtrace.meta */
	uint64_t offline_reads;	/* reads that said ENODEV */
	bool offline_said;	/* reader_cpu_first_offline() said true */
	int last_errno;
};

/* An entry of the merge's heap: a CPU and the time stamp of its next record. */
struct reader_next {
	uint64_t ts;
	int cpu;
};

struct reader {
	/*
	 * layout.big_endian starts as the caller's guess and is set by the
	 * first page with data (rb_detect_order()): order_known from then on,
	 * order_switched when the data said otherwise than the guess.
	 */
	struct rb_layout layout;
	bool order_known;
	bool order_switched;
	uint32_t subbuf;	/* sub-buffer size */
	const struct mt_decoder *dec;
	int ncpus;
	struct reader_cpu *cpus;
	uint8_t *pages;		/* the CPUs' sub-buffers, one block (live: touched at start) */
	struct reader_rec *queues;	/* ... their queues, READER_QUEUE each */
	/*
	 * reader_files(): a mapped CPU has a queue only while a page of its is
	 * walked, taken from here and given back at the page's end, the last
	 * given the first taken: the few CPUs whose pages are walked at a time
	 * write to queues still in the cache (of 256, each written once a page)
	 */
	struct reader_rec **qfree;
	int nqfree;
	bool live;		/* fds are non-blocking trace_pipe_raw */
	uintptr_t map_page;	/* reader_files(): the page size */
	bool mono;		/* trace clock is CLOCK_MONOTONIC: EAGAIN times bound a CPU */
	uint64_t slack_ns;	/* margin for events still being committed */
	reader_sink sink;
	reader_sink_run sink_run;	/* NULL: the sink, one event a call */
	reader_ahead_fn ahead;	/* NULL: none; set after reader_init() */
	struct reader_prefetch pf;	/* map NULL: none (ahead instead) */
	void *ctx;
	uint64_t (*now)(void);
	uint64_t deadline_ns;	/* now() past this: every CPU stops reading (0: never) */
	ssize_t (*read_fn)(int fd, void *buf, size_t len);	/* read(); tests replace it */
	bool stop;		/* the sink asks reader_run() to return after this event */
	/*
	 * The merge: the CPUs holding a next record, a min-heap by (time stamp,
	 * index), the lazy ones apart (the two: one allocation; an empty heap of
	 * lazy CPUs has a key at its top that is before none); the blocked CPUs
	 * without one, a min-heap by (bound, index);
	 * the CPUs to read before the next choice; scratch for one choice's
	 * hold-back (the last three: one allocation).
	 */
	struct reader_next *next;
	struct reader_next *lazies;
	int *bheap, *todo, *asked;
	int nnext, nlazies, nbheap, ntodo;
	int taken;		/* delivered, still at its place in the heap; -1: none */
	/* counters */
	uint64_t records;
	uint64_t decoded;
	uint64_t unknown_ids;
	uint64_t bad_records;
	uint64_t out_of_order;
	uint64_t last_ts;
	uint64_t asks;		/* live: blocked CPUs read again because of the hold-back */
};

/**
 * reader_init() - set up a reader over @ncpus sources
 * @cpu_ids: cpu numbers; @fds: their fds (owned by the caller)
 * Return: 0 or -ENOMEM.
 */
int reader_init(struct reader *r, const struct rb_layout *l, const struct mt_decoder *dec,
		int ncpus, const int *cpu_ids, const int *fds, bool live, bool mono,
		reader_sink sink, void *ctx);
void reader_free(struct reader *r);

/*
 * reader_leave_maps() - before reader_free() in a process that exits next: the
 * files reader_files() mapped stay mapped, for the exit to take down with the
 * rest at once. A munmap() of each costs more than that the more files there
 * are (a replay of 256 CPUs: 256 mappings).
 */
void reader_leave_maps(struct reader *r);

/**
 * reader_run() - read, merge and deliver events
 * @final: tracing is off (or replay): an empty CPU is finished
 * @max_events: stop after this many records (0: no limit)
 *
 * Delivers events in time-stamp order across CPUs. In live mode an event is
 * held back while another CPU could still deliver an older one.
 * Return: records consumed (decoded, unknown and malformed alike).
 */
uint64_t reader_run(struct reader *r, bool final, uint64_t max_events);

/**
 * reader_run_idle() - reader_run(@r, false, @max_events) without a read()
 * @t0: mono time at which every CPU's buffer was found empty (live: one poll
 *	of the instance's trace_pipe, which says whether any CPU has data)
 *
 * Each CPU without a record is bounded as a read() saying EAGAIN at @t0 would
 * have bounded it, without the read(): an idle machine costs no per-CPU system
 * call, and what was held back for a quiet CPU goes out once the bounds allow.
 * Return: records consumed.
 */
uint64_t reader_run_idle(struct reader *r, uint64_t t0, uint64_t max_events);

/*
 * reader_files() - the fds are a recording's files (replay), not tracefs:
 * each is mapped (read-only, private) and its pages are walked where they are,
 * without a read() or a copy, and only when the merge needs them (a page read
 * long before its records are taken is out of the cache by then: the cost of
 * an event grew with the CPUs). A file that cannot be mapped (not a regular
 * file, empty, past what is mapped at most) is read as before. Each fd is at
 * its file's start when reader_init() takes it (replay opens them for it).
 * @sizes: each CPU's file's size as its opener found it regular (< 0: not a
 * file to map), or NULL: each fd's fstat() says.
 */
void reader_files(struct reader *r, const int64_t *sizes);

/*
 * reader_map_fault() - from the SIGBUS handler (async-signal-safe): a mapped
 * file may have become shorter after reader_files() (truncated while it is
 * replayed). Each that did is mapped over with zero pages from its new end's
 * page on, so that the access that faulted reads zeros (a record or page
 * found malformed, or empty), and the pages from its new end on are a read
 * error (EIO) and its CPU's end. The fault's address is not asked (qemu-user
 * reports it wrong); the files' sizes are.
 * Return: 1 if a file was found cut short (the faulting access may go on),
 * else 0 (a fault of another kind).
 */
int reader_map_fault(struct reader *r);

/* Sum of lost events over CPUs: per CPU the larger of page-header and stats counts. */
uint64_t reader_lost(const struct reader *r);

/*
 * Live: CPU @i could not be read (no fd, or ENODEV): it is offline, and kept
 * out of the merge until reader_cpu_online() says otherwise.
 */
static inline bool reader_cpu_offline(const struct reader *r, int i)
{
	return r->cpus[i].offline;
}

/* Live: CPU @i has (again) an fd that may be read: back in the merge. */
void reader_cpu_online(struct reader *r, int i, int fd);

/*
 * Live: poll() says CPU @i's fd failed. @offline (POLLERR: the kernel has no
 * buffer for it): offline, as reader_cpu_offline() says; else (POLLNVAL) its
 * fd is gone. Either way nothing more is read from it (reader_cpu_done()).
 */
void reader_cpu_poll_failed(struct reader *r, int i, bool offline);

/* Nothing more is read from CPU @i: its end, an error, or offline (until it is back). */
static inline bool reader_cpu_done(const struct reader *r, int i)
{
	return r->cpus[i].eof;
}

/* True the first time it is asked for CPU @i only: the caller says it is offline once. */
bool reader_cpu_first_offline(struct reader *r, int i);

/*
 * Data was read but not one record of it could be decoded (every id unknown,
 * every record or page malformed): the report would be empty for no reason a
 * user can see. Callers say so and exit non-zero.
 */
bool reader_undecodable(const struct reader *r);

/* Pages flagged as missed whose count is unknown (adds uncertainty). */
uint64_t reader_missed_unknown(const struct reader *r);

#endif
