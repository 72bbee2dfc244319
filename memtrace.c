// SPDX-License-Identifier: GPL-2.0-only
/* memtrace.c - main: the options, the table of modes, a run through its mode, one cleanup path */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "core/build.h"
#include "modes/command.h"
#include "modes/daemon.h"
#include "run/daemonize.h"
#include "modes/diff.h"
#include "modes/exits.h"
#include "output/logfile.h"
#include "run/loop.h"
#include "run/oom.h"
#include "core/options.h"
#include "modes/replay.h"
#include "output/reportto.h"
#include "core/run.h"
#include "run/setup.h"
#include "signals.h"
#include "modes/top.h"
#include "modes/stream.h"
#include "lib/util.h"

/*
 * The mode the options ask for, a line each: a new mode is a new file and a
 * line here. options_parse() has ruled out the options that exclude each
 * other; --stream may run a COMMAND too. BUILD_FULL marks the modes the boot
 * build leaves out (core/build.h): their files are not linked there, and
 * their options never get this far.
 */
static const struct mode_ops *mode_of(const struct options *o)
{
	if (BUILD_FULL && o->diff)
		return &diff_ops;
	if (BUILD_FULL && o->stream)
		return &stream_ops;
	if (BUILD_FULL && o->top)
		return &top_ops;
	if (o->command)
		return &command_ops;
	if (o->replay_dir)
		return &replay_ops;
	if (BUILD_FULL && o->exits)
		return &exits_ops;
	return &daemon_ops;
}

/* What the signals mean: a command memtrace runs gets its meanings in every mode. */
static const struct sig_table *signal_table(const struct run *r)
{
	if (r->opt.command)
		return &signals_command;
	if (r->opt.switch_root)
		return &signals_switch_root;
	return r->ops->signals ? r->ops->signals : &signals_default;
}

static int replay_json(const char *dir, int fd);

/* A fresh run's fields that are not 0, its mode, its signals. */
static int run_init(struct run *r)
{
	r->ready_fd = -1;
	r->swroot_fd = -1;
	r->rec = (struct recorder)RECORDER_NONE;
	r->sig.fd = -1;
	r->ops = mode_of(&r->opt);
	if (r->ops->state_size && !(r->mode = calloc(1, r->ops->state_size)))
		return mt_fail(EXIT_RUNTIME, "out of memory");
	r->stacks = r->opt.stacks;	/* as asked, until the setup finds otherwise */
	r->seed = !r->opt.no_seed;	/* ... or a mode's prepare() */
	r->replay_json = BUILD_FULL ? replay_json : NULL;	/* --diff's */
	TEST_HOOKS_READ(r, READY_TIMEOUT_MS);
	return signals_setup(&r->sig, signal_table(r));
}

/*
 * --diff's recordings: DIR replayed in this process (a child of --diff's, with
 * a run of its own), as --replay DIR -f json --by process --stacks -n 0 does,
 * the report to @fd.
 */
static int replay_json(const char *dir, int fd)
{
	static struct run child;
	static char words[] = "memtrace\0--replay\0-f\0json\0--by\0process\0--stacks\0"
			      "--stack-top\0" "1000\0-n\0" "0";
	char *argv[13], *w = words, err[512];
	int code, argc = 0;

	while (argc < 12 && w < words + sizeof(words)) {
		argv[argc++] = w;
		if (argc == 2)
			argv[argc++] = (char *)dir;	/* getopt reads it, never writes it */
		w += strlen(w) + 1;
	}
	argv[argc] = NULL;

	memset(&child, 0, sizeof(child));
	if (options_parse(&child.opt_set, argc, argv, err, sizeof(err)) !=
	    OPT_RUN) {
		fprintf(stderr, "memtrace: --diff: %s: %s\n", dir, err);
		return EXIT_USAGE;
	}
	if (dup2(fd, STDOUT_FILENO) < 0)
		return EXIT_RUNTIME;
	code = run_init(&child);
	if (!code)
		code = run_lifecycle(&child);
	run_cleanup_exit(&child);
	fflush(stdout);
	return code;
}

int main(int argc, char **argv)
{
	static struct run run;	/* static: the decoder's table of event ids is 512 KiB */
	struct run *r = &run;
	char err[512];
	int code;

	setvbuf(stderr, NULL, _IOLBF, 0);
	switch (options_parse(&r->opt_set, argc, argv, err, sizeof(err))) {
	case OPT_HELP:
		options_usage(stdout);
		return EXIT_OK;
	case OPT_VERSION:
		/* memtrace-dracut.sh tells the boot build by its " (the boot build)" */
		printf("memtrace %s%s\n", MEMTRACE_VERSION, BUILD_FULL ? "" : " (the boot build)");
		return EXIT_OK;
	case OPT_ERROR:
		fprintf(stderr, "memtrace: %s\nTry 'memtrace --help' for more information.\n", err);
		return EXIT_USAGE;
	default:
		break;
	}
	code = run_init(r);
	if (code)
		goto out;
	/* --daemon: the parent waits for the child's word and returns it */
	if (r->opt.daemon && (code = daemonize_fork(r)) >= 0)
		goto out;
	code = run_lifecycle(r);
out:
	run_cleanup_exit(r);
	daemonize_ready(r, code);	/* a setup error reaches the parent after tracefs is restored */
	return code;
}
