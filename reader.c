// SPDX-License-Identifier: GPL-2.0-only
/* reader.c - read per-CPU sub-buffers, merge the CPUs by time stamp, decode, hand events on */
#include "reader.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

/* Counts from hostile pages must not wrap around to small numbers. */
static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}


#define DEFAULT_SLACK_NS	2000000ull	/* 2 ms */

int reader_init(struct reader *r, const struct rb_layout *l, const struct mt_decoder *dec,
		int ncpus, const int *cpu_ids, const int *fds, bool live, bool mono,
		reader_sink sink, void *ctx)
{
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
	r->cpus = calloc((size_t)ncpus, sizeof(*r->cpus));
	if (!r->cpus)
		return -ENOMEM;
	r->ncpus = ncpus;
	for (i = 0; i < ncpus; i++) {
		struct reader_cpu *c = &r->cpus[i];

		c->cpu = cpu_ids[i];
		c->fd = fds[i];
		c->rec_fd = -1;
		c->offline = live && c->fd < 0;
		c->was_offline = c->offline;
		c->page = malloc(r->subbuf);
		if (!c->page) {
			reader_free(r);
			return -ENOMEM;
		}
		memset(c->page, 0, r->subbuf);	/* fault it in now, not in the loop */
	}
	return 0;
}

void reader_free(struct reader *r)
{
	int i;

	for (i = 0; r->cpus && i < r->ncpus; i++)
		free(r->cpus[i].page);
	free(r->cpus);
	r->cpus = NULL;
	r->ncpus = 0;
}

/* Read the next sub-buffer of a CPU into its page; false if none came. */
static bool next_page(struct reader *r, struct reader_cpu *c, bool final)
{
	struct rb_page_info info;
	uint64_t t0;
	ssize_t n;

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
		n = r->read_fn(c->fd, c->page, r->subbuf);
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
				return false;
			}
			c->eof = true;
			return false;
		}
		if (c->rec_fd >= 0 && write_all(c->rec_fd, c->page, (size_t)n)) {
			c->record_errors++;
			c->last_errno = errno;
		}
		c->pages++;
		c->bytes += (uint64_t)n;
		if (rb_page_open(&c->cur, &r->layout, c->page, (size_t)n, &info)) {
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
		return true;
	}
}

/* Make c->rec the next record of this CPU, reading pages as needed. */
static void fill(struct reader *r, struct reader_cpu *c, bool final)
{
	for (;;) {
		if (c->in_page) {
			int res = rb_next(&c->cur, &c->rec);

			if (res == RB_RECORD) {
				c->have_rec = true;
				return;
			}
			if (res == RB_CORRUPT) {
				c->corrupt_records++;
				continue;
			}
			c->in_page = false;
		}
		if (c->eof || !next_page(r, c, final))
			return;
	}
}

/*
 * out_of_order counts events applied after one with a later time stamp. last_ts
 * is the latest applied; a time stamp from the future (forced out, already
 * counted) does not move it, or every event after it would count too.
 */
static void deliver(struct reader *r, struct reader_cpu *c, bool future)
{
	struct mt_event ev;
	int res;

	c->have_rec = false;
	r->records++;
	if (c->rec.ts < r->last_ts)
		r->out_of_order++;
	else if (!future)
		r->last_ts = c->rec.ts;
	res = decoder_decode(r->dec, &c->rec, (uint32_t)c->cpu, &ev);
	if (res == DEC_OK) {
		r->decoded++;
		r->sink(r->ctx, &ev);
	} else if (res == DEC_UNKNOWN) {
		r->unknown_ids++;
	} else {
		r->bad_records++;
	}
}

uint64_t reader_run(struct reader *r, bool final, uint64_t max_events)
{
	uint64_t done = 0;
	int i;

	/* a CPU found empty in an earlier call may have data by now */
	for (i = 0; i < r->ncpus; i++)
		r->cpus[i].blocked = false;
	while (!max_events || done < max_events) {
		struct reader_cpu *best = NULL;
		bool wait = false, future = false;

		for (i = 0; i < r->ncpus; i++) {
			struct reader_cpu *c = &r->cpus[i];

			if (!c->have_rec && !c->eof && !c->blocked)
				fill(r, c, final);
			if (c->have_rec && (!best || c->rec.ts < best->rec.ts))
				best = c;
		}
		if (!best)
			break;
		/* an empty CPU may still produce something older than best: ask it again */
		for (i = 0; i < r->ncpus; i++) {
			struct reader_cpu *c = &r->cpus[i];

			if (!c->blocked || c->have_rec || c->eof || c->bound >= best->rec.ts)
				continue;
			c->blocked = false;
			fill(r, c, final);
			if (c->have_rec && c->rec.ts < best->rec.ts)
				best = c;
			else if (c->blocked && c->bound < best->rec.ts)
				wait = true;
		}
		/* a time stamp from the future (corrupt page) must not stall the merge */
		if (wait && best->rec.ts > r->now() + 1000000000ull) {
			r->out_of_order++;
			wait = false;
			future = true;
		}
		if (wait)
			break;
		deliver(r, best, future);
		done++;
		if (r->stop) {
			r->stop = false;
			break;
		}
	}
	return done;
}

void reader_cpu_online(struct reader *r, int i, int fd)
{
	struct reader_cpu *c = &r->cpus[i];

	c->fd = fd;
	c->offline = false;
	c->eof = false;
	c->blocked = false;
}

int reader_cpus_offline(const struct reader *r)
{
	int i, n = 0;

	for (i = 0; i < r->ncpus; i++)
		n += r->cpus[i].offline;
	return n;
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

uint64_t reader_missed_unknown(const struct reader *r)
{
	uint64_t total = 0;
	int i;

	for (i = 0; i < r->ncpus; i++)
		total += r->cpus[i].missed_unknown;
	return total;
}
