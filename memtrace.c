// SPDX-License-Identifier: GPL-2.0-only
/* memtrace.c - main: options, the mode table, one cleanup path; the live daemon's mode */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "command.h"
#include "daemon.h"
#include "exits.h"
#include "interval.h"
#include "loop.h"
#include "options.h"
#include "replay.h"
#include "run.h"
#include "setup.h"
#include "signals.h"
#include "top.h"
#include "stream.h"
#include "util.h"

#define BATCH	65536	/* events per read batch: signals are read between batches */

/*
 * The daemon: trace until TERM/INT; USR1 a report on stdout, USR2 one to the
 * log file (the loop does both); an OOM kill a report at once; every
 * --interval the metrics file and JSON lines (interval.c); at the end a final
 * report to the log file.
 */
static int daemon_start(struct run *r)
{
	int code = daemon_write_pidfile(r);

	if (!code && TEST_FAIL_AT(r, "pidfile"))
		code = EXIT_RUNTIME;
	if (!code)
		code = interval_start(r);
	if (code)
		return code;
	setup_banner(r);
	daemon_ready(r, 0);
	return 0;
}

static int daemon_finish(struct run *r)
{
	run_report_final(r, true);
	interval_final(r);
	return EXIT_OK;
}

static const struct mode_ops daemon_ops = {
	.name = "daemon",
	.live = true,
	.batch = BATCH,
	.start = daemon_start,
	.on_oom = run_report_oom,
	.check = interval_check,
	.next_ms = interval_next_ms,
	.finish = daemon_finish,
};

/* One entry per mode: a new mode is a new file and a line here. */
static const struct mode_ops *const modes[] = {
	[MODE_DAEMON] = &daemon_ops,
	[MODE_COMMAND] = &command_ops,
	[MODE_EXITS] = &exits_ops,
	[MODE_REPLAY] = &replay_ops,
	[MODE_TOP] = &top_ops,
	[MODE_STREAM] = &stream_ops,
};

int main(int argc, char **argv)
{
	static struct run run;	/* static: the decoder's table of event ids is 512 KiB */
	struct run *r = &run;
	char err[512];
	int code;

	setvbuf(stderr, NULL, _IOLBF, 0);
	switch (options_parse(&r->opt, argc, argv, err, sizeof(err))) {
	case OPT_HELP:
		options_usage(stdout);
		return EXIT_OK;
	case OPT_VERSION:
		printf("memtrace %s\n", MEMTRACE_VERSION);
		return EXIT_OK;
	case OPT_ERROR:
		fprintf(stderr, "memtrace: %s\nTry 'memtrace --help' for more information.\n", err);
		return EXIT_USAGE;
	default:
		break;
	}
	r->ready_fd = -1;
	r->sig.fd = -1;
	r->ops = modes[r->opt.mode];
	TEST_HOOKS_READ(r, READY_TIMEOUT_MS);
	code = signals_setup(&r->sig, r->opt.mode);
	if (code)
		goto out;
	/* --daemon: the parent waits for the child's word and returns it */
	if (r->opt.daemon && (code = daemon_fork(r)) >= 0)
		goto out;
	code = run_lifecycle(r);
out:
	run_cleanup(r);
	daemon_ready(r, code);	/* a setup error reaches the parent after tracefs is restored */
	return code;
}
