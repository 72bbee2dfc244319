// SPDX-License-Identifier: GPL-2.0-only
/* kernel/reader.c - read per-CPU sub-buffers, merge the CPUs by time stamp, decode, hand events on */
#include "kernel/reader.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/util.h"


#define DEFAULT_SLACK_NS	2000000ull	/* 2 ms */

static void todo_add(struct reader *r, int i);

/* The top of an empty heap of lazy CPUs: a key that is before none (lazy_first()). */
static const struct reader_next no_lazy = { UINT64_MAX, INT_MAX };

/*
 * The first page with data says the kernel's byte order (rb_detect_order());
 * the guess the reader was given (the host's, or the recording's) until then.
 */
static void take_order(struct reader *r, const uint8_t *page, size_t n)
{
	int o = rb_detect_order(&r->layout, page, n);

	if (o == RB_ORDER_UNKNOWN)
		return;
	r->order_known = true;
	if ((o == RB_ORDER_BE) != r->layout.big_endian) {
		r->layout.big_endian = o == RB_ORDER_BE;
		r->order_switched = true;
	}
}

#define READER_PAGE_PAD	64	/* between two CPUs' sub-buffers: a cache line */

int reader_init(struct reader *r, const struct rb_layout *l, const struct mt_decoder *dec,
		int ncpus, const int *cpu_ids, const int *fds, bool live, bool mono,
		reader_sink sink, void *ctx)
{
	size_t pages_len, queues_len;
	int i;

	memset(r, 0, sizeof(*r));
	r->layout = *l;
	r->subbuf = rb_subbuf_size(l);
	r->dec = dec;
	r->live = live;
	r->mono = mono;
	r->slack_ns = DEFAULT_SLACK_NS;
	r->sink = sink;
	r->ctx = ctx;
	r->now = mono_ns;
	r->read_fn = read;
	r->taken = -1;
	r->cpus = calloc((size_t)ncpus, sizeof(*r->cpus));
	r->next = calloc(((size_t)ncpus + 1) * 2, sizeof(*r->next));
	r->bheap = calloc((size_t)ncpus * 3 + 3, sizeof(*r->bheap));
	if (!r->cpus || !r->next || !r->bheap) {
		free(r->cpus);
		free(r->next);
		free(r->bheap);
		r->cpus = NULL;
		r->next = NULL;
		r->bheap = NULL;
		return -ENOMEM;
	}
	r->lazies = r->next + ncpus + 1;
	r->lazies[0] = no_lazy;
	r->todo = r->bheap + ncpus + 1;
	r->asked = r->todo + ncpus + 1;
	r->ncpus = ncpus;
	/*
	 * The CPUs' sub-buffers and queues, each in one block: live, faulted in
	 * now, not in the loop; a replay's are touched when used (a mapped file's
	 * CPU never reads into its sub-buffer: at 256 CPUs, 1 MiB and 256 page
	 * faults saved). The sub-buffers a cache line apart more than their size:
	 * at a multiple of 4 KiB from each other, the same offset of every CPU's
	 * fell in the same cache sets (bench/scale.sh's live reader at 256 CPUs,
	 * best of 11: 52.3 ns an event, against 38.4 with each malloc()ed alone
	 * and 39.1 with the line between them).
	 */
	if ((size_t)ncpus > SIZE_MAX / (r->subbuf + READER_PAGE_PAD) ||
	    (size_t)ncpus > SIZE_MAX / (READER_QUEUE * sizeof(*r->queues))) {
		reader_free(r);		/* a recording's header_page says the size */
		return -ENOMEM;
	}
	pages_len = (size_t)ncpus * (r->subbuf + READER_PAGE_PAD);
	queues_len = (size_t)ncpus * READER_QUEUE * sizeof(*r->queues);
	r->qfree = malloc((size_t)ncpus * sizeof(struct reader_rec *));
	r->pages = malloc(pages_len);
	r->queues = aligned_alloc(_Alignof(struct reader_rec), queues_len);
	if (!r->qfree || !r->pages || !r->queues) {
		reader_free(r);
		return -ENOMEM;
	}
	if (live) {
		memset(r->pages, 0, pages_len);
		memset(r->queues, 0, queues_len);
	}
	for (i = 0; i < ncpus; i++) {
		struct reader_cpu *c = &r->cpus[i];

		c->cpu = cpu_ids[i];
		c->fd = fds[i];
		c->rec_fd = -1;
		c->bpos = -1;
		c->offline = live && c->fd < 0;
		c->was_offline = c->offline;
		c->page = r->pages + (size_t)i * (r->subbuf + READER_PAGE_PAD);
		c->q = r->queues + (size_t)i * READER_QUEUE;
		todo_add(r, i);			/* every CPU is read at the first call */
	}
	return 0;
}

void reader_leave_maps(struct reader *r)
{
	int i;

	for (i = 0; r->cpus && i < r->ncpus; i++)
		r->cpus[i].map = NULL;
}

void reader_free(struct reader *r)
{
	int i;

	for (i = 0; r->cpus && i < r->ncpus; i++) {
		if (r->cpus[i].map)
			munmap((void *)r->cpus[i].map, r->cpus[i].map_len);
		r->cpus[i].map = NULL;
	}
	free(r->qfree);
	free(r->pages);
	free(r->queues);
	free(r->cpus);
	free(r->next);
	free(r->bheap);
	r->qfree = NULL;
	r->pages = NULL;
	r->queues = NULL;
	r->nqfree = 0;
	r->cpus = NULL;
	r->next = r->lazies = NULL;
	r->bheap = r->todo = r->asked = NULL;
	r->ncpus = r->nnext = r->nlazies = r->nbheap = r->ntodo = 0;
}

/*
 * A page event's map entries start coming into the cache (struct
 * reader_prefetch). A hint: no state changes. Always inlined: gcc 12 takes a
 * function made of prefetches for one without effects (pure) and drops the
 * call, prefetches and all.
 */
static inline __attribute__((always_inline)) void prefetch_event(const struct reader_prefetch *pf,
								 const struct mt_event *ev)
{
	uint64_t pfn;

	if (ev->kind != EV_PAGE_ALLOC && ev->kind != EV_PAGE_FREE)
		return;
	pfn = ev->u.page.pfn;
	if (pfn >= pf->n)
		return;
	__builtin_prefetch(&pf->map[pfn], 1);
	if (pf->map2)
		__builtin_prefetch(&pf->map2[pfn], 1);
}

/*
 * The page's next records walked and decoded into the queue, up to one short of
 * full (the record the CPU holds stays where it is), each event shown to the
 * consumer; the cursor's answer after the last is kept (qend). Compiled once for
 * each byte order (walk_ahead()): the walk and the decoding then ask it nowhere.
 */
static inline __attribute__((always_inline)) void walk_order(struct reader *r,
							     struct reader_cpu *c, bool be)
{
	struct reader_rec *qs = c->q;
	uint32_t qhead = c->qhead, qn = c->qn;
	struct rb_cursor cur = c->cur;
	/* the cursor's moving parts, in registers: rb_take_data(), else rb_next() */
	const uint8_t *data = cur.data;
	uint32_t off = cur.off, end = cur.end;
	uint64_t ts = cur.ts;

	while (qn < READER_QUEUE - 1) {
		struct reader_rec *q = &qs[(qhead + qn) & (READER_QUEUE - 1)];

		/* a data record read inline comes after the one before it (rb_take_data()) */
		if (!rb_take_data(data, end, &off, &ts, &q->rec, be)) {
			uint64_t before = ts;
			int res;

			cur.off = off;
			cur.ts = ts;
			res = rb_next(&cur, &q->rec);
			data = cur.data;
			off = cur.off;
			end = cur.end;
			ts = cur.ts;
			if (res != RB_RECORD) {
				c->qend = res;
				break;
			}
			if (q->rec.ts < before)	/* an absolute time stamp went back, or ts wrapped */
				c->qbreak = c->qtaken + qn + 1;
		}
		q->res = decoder_decode_order(r->dec, &q->rec, (uint32_t)c->cpu, &q->ev, be);
		if (q->res == DEC_OK) {
			if (r->pf.map)
				prefetch_event(&r->pf, &q->ev);
			else if (r->ahead)
				r->ahead(r->ctx, &q->ev);
		} else {
			c->qbreak = c->qtaken + qn + 1;
		}
		qn++;
	}
	cur.off = off;
	cur.ts = ts;
	c->qn = qn;
	c->cur = cur;
}

static void walk_ahead(struct reader *r, struct reader_cpu *c)
{
	if (c->cur.big_endian)
		walk_order(r, c, true);
	else
		walk_order(r, c, false);
}

/* The queue's next record is the one the CPU holds. */
static inline void take_queued(struct reader_cpu *c)
{
	c->held = &c->q[c->qhead];
	c->rec = c->held->rec;
	c->qhead = (c->qhead + 1) & (READER_QUEUE - 1);
	c->qn--;
	c->qtaken++;
}

/*
 * The page's next record into c->rec, as rb_next() would give it (RB_RECORD,
 * RB_CORRUPT once where the page is damaged, RB_END), from the queue; the queue
 * is walked on READER_AHEAD at a time, so that what the consumer fetches for them
 * is fetched together.
 */
static int page_next(struct reader *r, struct reader_cpu *c)
{
	int res;

	if (c->qn <= READER_AHEAD && c->qend == RB_RECORD)
		walk_ahead(r, c);
	if (c->qn) {
		take_queued(c);
		return RB_RECORD;
	}
	res = c->qend;
	c->qend = RB_RECORD;	/* after RB_CORRUPT the cursor says RB_END */
	return res;
}

/* Read the next sub-buffer of a CPU into its page; false if none came. */
static bool next_page(struct reader *r, struct reader_cpu *c, bool final)
{
	struct rb_page_info info;
	const uint8_t *page;
	uint64_t t0;
	ssize_t n;
	int bad;

	for (;;) {
		if (c->fd < 0) {
			c->eof = true;
			return false;
		}
		/*
		 * The page before was less than half full: most likely the
		 * writer was reached, so the CPU waits for the next wakeup.
		 * Reading on at once would chase every new event a page at a
		 * time; with --record each copied page allocates a page, which
		 * makes the next. Only its last record is known to be older
		 * than what is still to come (the page may also be the rest of
		 * one read in part before, with full pages after it): that is
		 * the bound, and the merge asks the CPU again when it must.
		 */
		if (c->caught_up && r->live && !final) {
			c->caught_up = false;
			c->blocked = true;
			c->bound = c->rec.ts;
			c->said_empty = false;
			return false;
		}
		c->caught_up = false;
		if ((c->max_pages && c->pages >= c->max_pages) ||
		    (r->deadline_ns && r->now() > r->deadline_ns)) {
			c->truncated = true;
			c->eof = true;
			return false;
		}
		t0 = r->live ? r->now() : 0;
		if (c->map) {
			n = c->map_len - c->off < r->subbuf ? (ssize_t)(c->map_len - c->off) :
							      (ssize_t)r->subbuf;
			page = c->map + c->off;
			c->off += (size_t)n;
		} else {
			page = c->page;
			n = r->read_fn(c->fd, c->page, r->subbuf);
		}
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == ENODEV && r->live) {
				/* an offline CPU: out of the merge until it is back */
				c->offline_reads++;
				c->offline = c->was_offline = true;
				c->last_errno = errno;
				c->eof = true;
				return false;
			}
			if (errno == EAGAIN && r->live && !final) {
				c->blocked = true;
				c->bound = r->mono ? (t0 > r->slack_ns ? t0 - r->slack_ns : 0) :
					   UINT64_MAX;
				c->said_empty = true;
				return false;
			}
			if (errno != EAGAIN) {
				c->read_errors++;
				c->last_errno = errno;
			}
			c->eof = true;
			return false;
		}
		if (n == 0) {
			/* live: nothing to read now, like EAGAIN */
			if (r->live && !final) {
				c->blocked = true;
				c->bound = r->mono ? (t0 > r->slack_ns ? t0 - r->slack_ns : 0) :
					   UINT64_MAX;
				c->said_empty = true;
				return false;
			}
			c->eof = true;
			return false;
		}
		/* a sub-buffer saved whole or not at all: a part would shift every later one */
		if (c->rec_fd >= 0 && write_whole(c->rec_fd, page, (size_t)n)) {
			c->record_errors++;
			c->last_errno = errno;
			if (!c->record_err)
				c->record_err = errno;
		}
		if (!r->order_known)
			take_order(r, page, (size_t)n);
		bad = rb_page_open(&c->cur, &r->layout, page, (size_t)n, &info);
		/*
		 * The page's header is read: a mapped file cut short under it has
		 * faulted by now (reader_map_fault()). A page that is not all there
		 * any more is a read error and the CPU's end, not a page.
		 */
		if (c->map && c->off > c->map_cut) {
			c->read_errors++;
			c->last_errno = EIO;
			c->eof = true;
			return false;
		}
		c->pages++;
		c->bytes += (uint64_t)n;
		if (bad) {
			c->corrupt_pages++;
			continue;
		}
		c->caught_up = r->live && info.size < r->subbuf / 2;
		if (info.missed) {
			c->missed_pages++;
			if (info.missed_stored)
				c->lost_stored = sat_add(c->lost_stored, info.lost);
			else
				c->missed_unknown++;
		}
		c->in_page = true;
		c->qhead = c->qn = 0;
		c->qtaken = c->qbreak = 0;	/* counted a page at a time: they never wrap */
		c->qend = RB_RECORD;
		return true;
	}
}

/* fill() where the queue must be walked on, or a page read. */
static void fill_more(struct reader *r, struct reader_cpu *c, bool final)
{
	for (;;) {
		if (c->in_page) {
			int res;

			if (!c->q)
				c->q = r->qfree[--r->nqfree];
			res = page_next(r, c);
			if (res == RB_RECORD) {
				c->have_rec = true;
				return;
			}
			if (res == RB_CORRUPT) {
				c->corrupt_records++;
				continue;
			}
			c->in_page = false;
			if (c->map) {
				/* its held record is out: the queue goes back, the next page takes one */
				r->qfree[r->nqfree++] = c->q;
				c->q = NULL;
			}
		}
		if (c->eof || !next_page(r, c, final))
			return;
		/*
		 * A mapped page is walked only when its CPU comes to the top of
		 * the merge: until then its first record's time stamp (read on a
		 * copy of the cursor, from the page's first line) keeps its place,
		 * the key the walk would give it. Walked now, its lines would be
		 * fetched for records the merge may take only after every other
		 * CPU's pages before them (a recording of many CPUs), and be out
		 * of the cache by then. A page without a first record (empty, or
		 * corrupt there) is walked now, as a read one is.
		 */
		if (c->map) {
			struct rb_cursor first = c->cur;
			struct rb_record rec;

			if (rb_next(&first, &rec) == RB_RECORD) {
				c->rec.ts = rec.ts;
				c->lazy = c->have_rec = true;
				return;
			}
		}
	}
}

/*
 * Make c->rec the next record of this CPU, reading pages as needed. Seven
 * records in eight are in the queue already: taken without a call.
 */
static inline void fill(struct reader *r, struct reader_cpu *c, bool final)
{
	if (c->in_page && c->qn > READER_AHEAD) {
		take_queued(c);
		c->have_rec = true;
		return;
	}
	fill_more(r, c, final);
}

/*
 * out_of_order counts events applied after one with a later time stamp. last_ts
 * is the latest applied; a time stamp from the future (forced out, already
 * counted) does not move it, or every event after it would count too.
 */
static inline __attribute__((always_inline)) void order_seen(uint64_t *last_ts,
							       uint64_t *out_of_order, uint64_t ts,
							       bool future)
{
	if (ts < *last_ts)
		(*out_of_order)++;
	else if (!future)
		*last_ts = ts;
}

/*
 * A record goes out (order_seen()). @q is the record's place in its CPU's
 * queue (decoded when walked), @ts its time stamp. Inline in both of its
 * callers, run() (through deliver()) and run_on(): nearly every record comes
 * here. The caller counts it in records.
 */
static inline __attribute__((always_inline)) void deliver_rec(struct reader *r,
								const struct reader_rec *q,
								uint64_t ts, bool future)
{
	int res = q->res;

	order_seen(&r->last_ts, &r->out_of_order, ts, future);
	if (res == DEC_OK) {
		r->decoded++;
		r->sink(r->ctx, &q->ev);
	} else if (res == DEC_UNKNOWN) {
		r->unknown_ids++;
	} else {
		r->bad_records++;
	}
}

/*
 * run_on()'s records from @q on, in its queue's order (at most @max, not past
 * the queue's end), while each stays first (its time stamp before @lim) and is
 * decoded: to the run sink in one call, as deliver_rec() would send each. @q
 * itself is known to be both. The counts are those of what the sink took
 * (when it stops the run early, of those only), by deliver_rec()'s rule
 * (order_seen()). @ordered: the records after @q are decoded and each comes
 * at or after the one before it (reader_cpu.qbreak): then, from @q on or
 * after the last one out, none is out of order and the span ends at the first
 * at or after @lim, a comparison each. Return: how many it took.
 */
static inline __attribute__((always_inline)) uint32_t deliver_span(struct reader *r,
								   const struct reader_rec *q,
								   uint32_t max, uint64_t lim,
								   bool ordered)
{
	uint64_t last_ts = r->last_ts, late = r->out_of_order;
	uint32_t n, got, i;

	if (ordered && q->rec.ts >= last_ts) {
		n = max;
		if (q[max - 1].rec.ts >= lim)
			for (n = 1; q[n].rec.ts < lim; n++)
				;
		last_ts = q[n - 1].rec.ts;
	} else {
		for (n = 0; n < max && q[n].rec.ts < lim && q[n].res == DEC_OK; n++)
			order_seen(&last_ts, &late, q[n].rec.ts, false);
	}
	got = r->sink_run(r->ctx, &q->ev, n, sizeof(*q));
	if (got < n) {		/* the sink stopped the run: the taken ones' counts only */
		last_ts = r->last_ts;
		late = r->out_of_order;
		for (i = 0; i < got; i++)
			order_seen(&last_ts, &late, q[i].rec.ts, false);
	}
	r->last_ts = last_ts;
	r->out_of_order = late;
	r->decoded += got;
	return got;
}

/* The record @c holds goes out. */
static inline __attribute__((always_inline)) void deliver(struct reader *r, struct reader_cpu *c,
							    bool future)
{
	c->have_rec = false;
	r->records++;
	deliver_rec(r, c->held, c->rec.ts, future);
}

/*
 * The merge keeps three binary min-heaps. The CPUs holding a next record, by
 * (time stamp, index), with the key kept in the heap (compact, no pointer
 * chasing), so that equal time stamps go out in index order whichever CPU was
 * read first. The lazy CPUs of a mapped replay, whose pages are not walked yet,
 * by their first records' (time stamp, index), apart: the next record is the
 * first of the two tops. In one heap, at 256 CPUs the 255 waiting pages made
 * every sift of the few CPUs walked at a time a level deeper (bench/scale.sh's
 * storm, dealt: 62 instructions a sift against 31 at 2 CPUs, 0.4 million sifts).
 * The blocked CPUs without a record, by (bound, index), whose top is the first
 * one the hold-back must ask; a CPU knows its place there (bpos) to leave it
 * when poll says it is ready. An event costs O(log CPUs), not a scan of every
 * CPU.
 */
static bool next_before(const struct reader_next *a, const struct reader_next *b)
{
	return a->ts < b->ts || (a->ts == b->ts && a->cpu < b->cpu);
}

/* The key at @k of heap @h of @n changed to a later one: sift it to its place. */
static void heap_sift_down(struct reader_next *h, int n, int k)
{
	struct reader_next e = h[k];

	for (;;) {
		int child = 2 * k + 1;

		if (child >= n)
			break;
		if (child + 1 < n && next_before(&h[child + 1], &h[child]))
			child++;
		if (!next_before(&h[child], &e))
			break;
		h[k] = h[child];
		k = child;
	}
	h[k] = e;
}

/*
 * The top's new key is still before both its children (or it has none), and
 * before the first lazy CPU's: it stays, and is the next record, without the
 * sift's call. A storm is one CPU's records one after the other; with few
 * CPUs holding records, nearly every event ends here.
 */
static inline bool top_stays(const struct reader *r)
{
	const struct reader_next *h = r->next;

	return (r->nnext < 2 || next_before(&h[0], &h[1])) &&
	       (r->nnext < 3 || next_before(&h[0], &h[2])) &&
	       next_before(&h[0], &r->lazies[0]);
}

static void heap_push(struct reader_next *h, int *n, struct reader_next e)
{
	int k = (*n)++;

	while (k > 0 && next_before(&e, &h[(k - 1) / 2])) {
		h[k] = h[(k - 1) / 2];
		k = (k - 1) / 2;
	}
	h[k] = e;
}

static void heap_pop(struct reader_next *h, int *n)
{
	(*n)--;
	if (*n) {
		h[0] = h[*n];
		heap_sift_down(h, *n, 0);
	}
}

/* A CPU that holds a record into its heap: a lazy one's page is not walked yet. */
static void next_push(struct reader *r, int i)
{
	struct reader_next e = { r->cpus[i].rec.ts, i };

	if (r->cpus[i].lazy)
		heap_push(r->lazies, &r->nlazies, e);
	else
		heap_push(r->next, &r->nnext, e);
}

/*
 * A lazy CPU's first record is before the next record of the walked ones (there
 * is one): its page is walked first. An empty heap of lazy CPUs keeps at its
 * top a key that is before none, so that this is one comparison an event.
 */
static inline bool lazy_first(const struct reader *r)
{
	return next_before(&r->lazies[0], &r->next[0]);
}

static bool bound_before(const struct reader *r, int a, int b)
{
	uint64_t ka = r->cpus[a].bound, kb = r->cpus[b].bound;

	return ka < kb || (ka == kb && a < b);
}

static void bound_set(struct reader *r, int k, int i)
{
	r->bheap[k] = i;
	r->cpus[i].bpos = k;
}

/* Move the entry at @k to its place: up if it is before its parent, else down. */
static void bound_fix(struct reader *r, int k)
{
	int *h = r->bheap, n = r->nbheap, i = h[k];

	while (k > 0 && bound_before(r, i, h[(k - 1) / 2])) {
		bound_set(r, k, h[(k - 1) / 2]);
		k = (k - 1) / 2;
	}
	for (;;) {
		int child = 2 * k + 1;

		if (child >= n)
			break;
		if (child + 1 < n && bound_before(r, h[child + 1], h[child]))
			child++;
		if (!bound_before(r, h[child], i))
			break;
		bound_set(r, k, h[child]);
		k = child;
	}
	bound_set(r, k, i);
}

static void bound_remove(struct reader *r, int i)
{
	int k = r->cpus[i].bpos;

	if (k < 0)
		return;
	r->cpus[i].bpos = -1;
	r->nbheap--;
	if (k == r->nbheap)
		return;
	bound_set(r, k, r->bheap[r->nbheap]);
	bound_fix(r, k);
}

/* After a CPU (not in the heap of records) was read: into the heap its state says. */
static void place(struct reader *r, int i)
{
	struct reader_cpu *c = &r->cpus[i];

	if (c->have_rec) {
		bound_remove(r, i);
		next_push(r, i);
	} else if (!c->blocked || c->eof) {
		bound_remove(r, i);
	} else if (c->bpos < 0) {
		bound_set(r, r->nbheap++, i);
		bound_fix(r, r->nbheap - 1);
	} else {
		bound_fix(r, c->bpos);
	}
}

static void todo_add(struct reader *r, int i)
{
	if (r->cpus[i].todo)
		return;
	r->cpus[i].todo = true;
	r->todo[r->ntodo++] = i;
}

/* The CPUs to read before the next choice: read each, place it. */
static void fill_todo(struct reader *r, bool final)
{
	int k;

	for (k = 0; k < r->ntodo; k++) {
		int i = r->todo[k];
		struct reader_cpu *c = &r->cpus[i];

		c->todo = false;
		if (c->have_rec || c->eof || c->blocked)
			continue;
		fill(r, c, final);
		place(r, i);
	}
	r->ntodo = 0;
}

/*
 * The CPU whose record went out last stays at the top of the heap until its
 * next record is known (one sift instead of a pop and a push; nothing else
 * touches that heap in between): its next record, or out of the heap (to the
 * lazy ones when its next page waits). True: its next record stays at the top
 * and is the next of all (top_stays()), which run() then asks nothing more.
 */
static bool refill_taken(struct reader *r, bool final)
{
	int i = r->taken;
	struct reader_cpu *c;

	if (i < 0)
		return false;
	r->taken = -1;
	c = &r->cpus[i];
	if (!c->have_rec && !c->eof)
		fill(r, c, final);
	if (c->have_rec && !c->lazy) {
		r->next[0].ts = c->rec.ts;
		if (top_stays(r))
			return true;
		heap_sift_down(r->next, r->nnext, 0);
		return false;
	}
	heap_pop(r->next, &r->nnext);
	place(r, i);
	return false;
}

/* A CPU found empty in an earlier call may have data by now: every CPU is read again. */
static void sweep(struct reader *r)
{
	int i;

	for (i = 0; i < r->nbheap; i++)
		r->cpus[r->bheap[i]].bpos = -1;
	r->nbheap = 0;
	for (i = 0; i < r->ntodo; i++)
		r->cpus[r->todo[i]].todo = false;
	r->ntodo = 0;
	for (i = 0; i < r->ncpus; i++) {
		struct reader_cpu *c = &r->cpus[i];

		c->blocked = false;
		if (!c->have_rec && !c->eof && i != r->taken)
			todo_add(r, i);
	}
}

/*
 * The hold-back: a blocked CPU whose bound is older than the next record may
 * still produce something older. Such CPUs are asked again, lowest bound first,
 * each once per choice, until the bounds left are not older than the next
 * record (which an answer may have made older still). True when one that was
 * asked still cannot say: delivery waits. Without @ask (the bounds are as
 * fresh as they can be): true when a bound is older, nothing read.
 *
 * A CPU that said it was empty is not asked while the clock has not moved far
 * enough for a new "empty" to let the next record go (now - slack is still
 * older): it waits as if asked. At the end of each batch every quiet CPU would
 * otherwise be read once more for nothing, 256 read()s per wakeup on 256 CPUs;
 * what it may have got meanwhile is read by the next call, which reads every
 * CPU. A CPU caught up at its last record is still asked: it has not said.
 */
static bool hold_back(struct reader *r, bool final, bool ask)
{
	uint64_t reach = UINT64_MAX;
	bool wait = false, clock_read = false;
	int nasked = 0, k;

	if (!ask)
		return r->cpus[r->bheap[0]].bound < r->next[0].ts;
	while (r->nbheap) {
		int i = r->bheap[0];
		struct reader_cpu *c = &r->cpus[i];

		if (c->bound >= r->next[0].ts)
			break;
		bound_remove(r, i);
		if (!c->blocked || c->have_rec || c->eof)
			continue;	/* the loop found it offline meanwhile */
		if (c->said_empty && r->mono) {
			if (!clock_read) {
				uint64_t now = r->now();

				reach = now > r->slack_ns ? now - r->slack_ns : 0;
				clock_read = true;
			}
			if (reach < r->next[0].ts) {
				r->asked[nasked++] = i;
				continue;
			}
		}
		c->blocked = false;
		r->asks++;
		fill(r, c, final);
		if (c->have_rec)
			next_push(r, i);
		else if (c->blocked && !c->eof)
			r->asked[nasked++] = i;
	}
	for (k = 0; k < nasked; k++) {
		if (r->cpus[r->asked[k]].bound < r->next[0].ts)
			wait = true;
		place(r, r->asked[k]);
	}
	return wait;
}

/* The first lazy CPU's page is walked now, and the CPU goes where its first record says. */
static void lazy_walk(struct reader *r, bool final)
{
	int i = r->lazies[0].cpu;
	struct reader_cpu *c = &r->cpus[i];

	heap_pop(r->lazies, &r->nlazies);
	if (!r->nlazies)
		r->lazies[0] = no_lazy;
	c->lazy = c->have_rec = false;
	fill(r, c, final);
	place(r, i);
}

/*
 * The CPU whose record went out last (@c, the merge's top), while its next
 * records wait walked in its queue and each stays first: before the other
 * walked CPUs' next records and the first lazy one's (the top's children and
 * the lazy top: their keys do not change meanwhile), and not after the first
 * blocked CPU's bound (else hold_back() must ask it); the queue walked on as
 * page_next() walks it. A CPU found done meanwhile (reader_cpu_poll_failed():
 * eof, its queue kept) sends nothing more, as refill_taken() would not. Each
 * goes out as run()'s loop would send it, the loop's other steps left out, at
 * most @left of them, until the consumer asks to stop (r->stop, left set for
 * run()). A storm is one CPU's records one after the
 * other: most of its events go out here, a page's worth a call. Each record is
 * held to one limit (lim: the two conditions in one comparison); the records
 * queued up to the next walk go in a loop of their own, the queue's place and
 * what the CPU holds written once for them (the consumer touches neither).
 * Return: how many went out.
 */
static uint64_t run_on(struct reader *r, struct reader_cpu *c, uint64_t left)
{
	struct reader_next k = r->lazies[0];
	uint64_t bound = r->nbheap ? r->cpus[r->bheap[0]].bound : UINT64_MAX, n = 0, lim;
	const struct reader_rec *last = NULL;
	int cpu = r->taken;

	if (r->nnext >= 2 && next_before(&r->next[1], &k))
		k = r->next[1];
	if (r->nnext >= 3 && next_before(&r->next[2], &k))
		k = r->next[2];
	/*
	 * A record stays first while (ts, cpu) is before k and ts not after the
	 * bound: while ts < lim. At the top of the range lim stops short (a
	 * record at UINT64_MAX): that one takes the loop's way, in the same order.
	 */
	lim = k.ts + (cpu < k.cpu && k.ts < UINT64_MAX);
	if (bound < UINT64_MAX && bound + 1 < lim)
		lim = bound + 1;
	while (n < left && c->in_page && !c->eof) {
		uint32_t qhead, qn, m, i;
		bool stop = false;

		/* as page_next() would: the page's end, or a corrupt record, the loop's way */
		if (c->qn <= READER_AHEAD && c->qend == RB_RECORD)
			walk_ahead(r, c);
		qhead = c->qhead;
		qn = c->qn;
		if (!qn)
			break;
		/* the queued records up to the next walk (all of them at the page's end) */
		m = c->qend == RB_RECORD ? qn - READER_AHEAD : qn;
		if (m > left - n)
			m = (uint32_t)(left - n);
		if (!m)		/* never: a walk leaves 15 queued, or the page's end */
			break;
		for (i = 0; i < m;) {
			uint32_t at = (qhead + i) & (READER_QUEUE - 1);
			const struct reader_rec *q = &c->q[at];

			if (q->rec.ts >= lim) {
				stop = true;
				break;
			}
			if (r->sink_run && q->res == DEC_OK) {
				uint32_t span = READER_QUEUE - at < m - i ? READER_QUEUE - at : m - i;
				uint32_t got = deliver_span(r, q, span, lim,
							    c->qbreak <= c->qtaken + i + 1);

				last = q + got - 1;
				i += got;
			} else {
				last = q;
				deliver_rec(r, q, q->rec.ts, false);
				i++;
			}
			if (r->stop) {
				stop = true;
				break;
			}
		}
		/* taken from the queue (take_queued()) */
		c->qhead = (qhead + i) & (READER_QUEUE - 1);
		c->qn = qn - i;
		c->qtaken += i;
		n += i;
		if (stop)
			break;
	}
	if (last) {
		c->held = last;
		c->rec = last->rec;
		r->next[0].ts = last->rec.ts;
		r->records += n;
	}
	return n;
}

static uint64_t run(struct reader *r, bool final, uint64_t max_events, bool idle)
{
	uint64_t done = 0;

	if (!idle)
		sweep(r);
	while (!max_events || done < max_events) {
		struct reader_cpu *best;
		bool wait, first, future = false;

		first = refill_taken(r, final);
		if (r->ntodo) {
			fill_todo(r, final);
			first = false;
		}
		if (!first) {
			if (!r->nnext) {
				if (!r->nlazies)
					break;
				lazy_walk(r, final);
				continue;
			}
			if (lazy_first(r)) {
				lazy_walk(r, final);
				continue;
			}
		}
		/* live only (blocked CPUs), where no CPU is lazy: the top stays first */
		wait = r->nbheap && hold_back(r, final, !idle);
		best = &r->cpus[r->next[0].cpu];
		/* a time stamp from the future (corrupt page) must not stall the merge */
		if (wait && best->rec.ts > r->now() + 1000000000ull) {
			r->out_of_order++;
			wait = false;
			future = true;
		}
		if (wait)
			break;
		r->taken = r->next[0].cpu;
		deliver(r, best, future);
		done++;
		if (!future && !r->stop)
			done += run_on(r, best, max_events ? max_events - done : UINT64_MAX);
		if (r->stop) {
			r->stop = false;
			break;
		}
	}
	return done;
}

uint64_t reader_run(struct reader *r, bool final, uint64_t max_events)
{
	return run(r, final, max_events, false);
}

/*
 * Every CPU's buffer was found empty at @t0: each CPU without a record is
 * bounded as a read() saying EAGAIN at @t0 would have bounded it (its caught-up
 * state included: the buffer is empty), without the read().
 */
static void all_empty(struct reader *r, uint64_t t0)
{
	uint64_t bound = r->mono ? (t0 > r->slack_ns ? t0 - r->slack_ns : 0) : UINT64_MAX;
	int i;

	for (i = 0; i < r->ncpus; i++) {
		struct reader_cpu *c = &r->cpus[i];

		if (c->have_rec || c->eof || c->todo || i == r->taken)
			continue;
		if (!c->blocked || c->bound < bound)
			c->bound = bound;
		c->said_empty = true;
		c->blocked = true;
		c->caught_up = false;
		place(r, i);
	}
}

uint64_t reader_run_idle(struct reader *r, uint64_t t0, uint64_t max_events)
{
	all_empty(r, t0);
	return run(r, false, max_events, true);
}

void reader_cpu_online(struct reader *r, int i, int fd)
{
	struct reader_cpu *c = &r->cpus[i];

	c->fd = fd;
	c->offline = false;
	c->eof = false;
	c->blocked = false;
	bound_remove(r, i);
	if (!c->have_rec && i != r->taken)
		todo_add(r, i);
}

void reader_cpu_poll_failed(struct reader *r, int i, bool offline)
{
	struct reader_cpu *c = &r->cpus[i];

	if (offline)
		c->offline = c->was_offline = true;
	c->eof = true;
}

bool reader_cpu_first_offline(struct reader *r, int i)
{
	struct reader_cpu *c = &r->cpus[i];
	bool first = !c->offline_said;

	c->offline_said = true;
	return first;
}

/* What reader_files() maps at most, all CPUs together: past it, files are read. */
#define MAP_MAX_BYTES	(sizeof(void *) > 4 ? (1ull << 30) : (256ull << 20))

void reader_files(struct reader *r, const int64_t *sizes)
{
	long page = sysconf(_SC_PAGESIZE);
	uint64_t mapped = 0;
	int i;

	if (r->live || page <= 0 || (page & (page - 1)))
		return;
	r->map_page = (uintptr_t)page;
	for (i = 0; i < r->ncpus; i++) {
		struct reader_cpu *c = &r->cpus[i];
		struct stat st;
		off_t off;
		void *m;

		if (sizes)
			st.st_size = (off_t)sizes[i];
		else if (c->fd < 0 || fstat(c->fd, &st) || !S_ISREG(st.st_mode))
			continue;
		if (c->fd < 0 || st.st_size <= 0 || (uint64_t)st.st_size > MAP_MAX_BYTES - mapped)
			continue;
		/* where its next page is: the file's start while nothing was read of it */
		off = c->bytes || c->eof ? lseek(c->fd, 0, SEEK_CUR) : 0;
		if (off < 0 || off >= st.st_size)
			continue;
		/* populated now: a fault a page costs more than the whole mapping does */
		m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, c->fd, 0);
		if (m == MAP_FAILED)
			continue;
		mapped += (uint64_t)st.st_size;
		r->qfree[r->nqfree++] = c->q;
		c->q = NULL;
		c->map_len = (size_t)st.st_size;
		c->off = (size_t)off;
		c->map_cut = c->map_len;
		c->map = m;
	}
}

int reader_map_fault(struct reader *r)
{
	int i, fixed = 0;

	for (i = 0; r->cpus && i < r->ncpus; i++) {
		struct reader_cpu *c = &r->cpus[i];
		uintptr_t from;
		struct stat st;
		size_t len;

		if (!c->map || fstat(c->fd, &st) || st.st_size < 0 ||
		    (uint64_t)st.st_size >= c->map_cut)
			continue;
		len = (size_t)st.st_size;
		/* the file's last page reads on (zeros past its end); from the next one on, zeros */
		from = ((uintptr_t)c->map + len + r->map_page - 1) & ~(r->map_page - 1);
		if (from < (uintptr_t)c->map + c->map_len &&
		    mmap((void *)from, (uintptr_t)c->map + c->map_len - from, PROT_READ,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED)
			continue;
		c->map_cut = len;
		fixed = 1;
	}
	return fixed;
}

uint64_t reader_lost(const struct reader *r)
{
	uint64_t total = 0;
	int i;

	for (i = 0; i < r->ncpus; i++) {
		const struct reader_cpu *c = &r->cpus[i];
		uint64_t hdr = sat_add(c->lost_stored, c->missed_unknown);

		total = sat_add(total, hdr > c->stats_lost ? hdr : c->stats_lost);
	}
	return total;
}

bool reader_undecodable(const struct reader *r)
{
	uint64_t broken = 0;
	int i;

	for (i = 0; i < r->ncpus; i++)
		broken += r->cpus[i].corrupt_pages + r->cpus[i].corrupt_records;
	return !r->decoded && (r->records || broken);
}

uint64_t reader_missed_unknown(const struct reader *r)
{
	uint64_t total = 0;
	int i;

	for (i = 0; i < r->ncpus; i++)
		total += r->cpus[i].missed_unknown;
	return total;
}
