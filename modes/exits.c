// SPDX-License-Identifier: GPL-2.0-only
/* modes/exits.c - the --exits monitor: a line on stdout per exiting process, until TERM/INT */
#include "modes/exits.h"

#include <errno.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>

#include "run/loop.h"
#include "lib/out.h"
#include "run/oom.h"
#include "output/report.h"
#include "run/setup.h"
#include "lib/util.h"

/* What --exits has said on stdout so far: the mode's state (r->mode). */
struct exits_state {
	bool closed;		/* stdout is gone: memtrace stops */
	uint64_t dropped_shown, lost_shown;
};

#define EXIT_RING	4096	/* process exits queued per batch (stats.c fills them) */
#define EXIT_BATCH	4096	/* events per batch: no more exits than the queue holds */

/* Does the user want this process? */
static bool wanted(const struct options *o, const struct mt_exit *e)
{
	int i;

	if (!o->npids && !o->ncomms)
		return true;
	for (i = 0; i < o->npids; i++)
		if (o->pids[i] == e->pid)
			return true;
	for (i = 0; i < o->ncomms; i++)
		if (strlen(o->comms[i]) == e->comm_len && !memcmp(o->comms[i], e->comm, e->comm_len))
			return true;
	return false;
}

/* A "# ..." note (text) or a one-key object (JSON), flushed; false once stdout is gone. */
static void note(struct run *r, struct out *o, const char *key, const char *text,
		 unsigned long long n)
{
	struct exits_state *x = r->mode;

	if (r->opt.format == FMT_JSON)
		out_printf(o, "{\"%s\":%llu}\n", key, n);
	else
		out_printf(o, "# %llu %s\n", n, text);
	if (out_flush(o))
		x->closed = true;
}

/* The queued process exits on stdout, a line each, flushed per line. */
static enum loop_next print_exits(struct run *r)
{
	static struct out o;
	struct exits_state *x = r->mode;
	struct mt_exit e;

	out_init(&o, STDOUT_FILENO);
	for (;;) {
		struct pollfd pfd = { STDOUT_FILENO, POLLOUT, 0 };

		/* a reader that does not keep up must not stall the loop: lines wait in the ring */
		if (x->closed || poll(&pfd, 1, 0) != 1)
			break;
		if (pfd.revents & (POLLERR | POLLHUP | POLLNVAL)) {
			x->closed = true;	/* the reader is gone */
			break;
		}
		if (!(pfd.revents & POLLOUT))
			break;
		if (!stats_exit_pop(&r->st, &e))
			break;
		if (!wanted(&r->opt, &e))
			continue;
		report_exit_line(&o, r->opt.format, &e, r->meta.page_size);
		if (out_flush(&o))
			x->closed = true;	/* stdout is gone (EPIPE): stop */
	}
	if (reader_lost(&r->rd) != x->lost_shown && !x->closed) {
		x->lost_shown = reader_lost(&r->rd);
		note(r, &o, "lost_events", "events lost so far: peaks may be low, exits missing",
		     x->lost_shown);
	}
	if (r->st.exits_dropped != x->dropped_shown && !x->closed) {
		note(r, &o, "exits_not_shown", "process exits not shown: queue full",
		     r->st.exits_dropped - x->dropped_shown);
		x->dropped_shown = r->st.exits_dropped;
	}
	return x->closed ? LOOP_STOP : LOOP_GO_ON;
}

static int exits_start(struct run *r)
{
	struct out o;

	setup_banner(r);
	out_init(&o, STDOUT_FILENO);
	report_exits_header(&o, r->opt.format);
	if (out_flush(&o))
		mt_warn("stdout: %s", strerror(-o.err));
	return 0;
}

/* The lines only, unless a log file was asked for too. */
static int exits_finish(struct run *r)
{
	return run_report_final(r, r->opt.output_set);
}

const struct mode_ops exits_ops = {
	.name = "exits",
	.state_size = sizeof(struct exits_state),
	.live = true,
	.batch = EXIT_BATCH,
	.exit_ring = EXIT_RING,
	.log_without_o = "none (--exits)",	/* the lines only, unless -o (exits_finish()) */
	.final_to_log = true,
	.start = exits_start,
	.after_batch = print_exits,
	.on_oom = oom_report,
	.finish = exits_finish,
};
