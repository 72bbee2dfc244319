/* SPDX-License-Identifier: GPL-2.0-only */
/* core/options.h - the command line: getopt_long, validation, usage text, the mode it asks for */
#ifndef MEMTRACE_CORE_OPTIONS_H
#define MEMTRACE_CORE_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define DEFAULT_LOG		"/tmp/mem_debug_log"
#define DEFAULT_INSTANCE	"memtrace"
#define DEFAULT_BUFFER_KB	2048
#define DEFAULT_STACKS_BUFFER_KB 4096	/* --stacks: a stack record for each allocation */
#define DEFAULT_TOP		30
#define DEFAULT_MAX_TASKS	16384
#define DEFAULT_MAX_MODULES	1024
#define MAX_FILTERS		64
#define DEFAULT_KEEP_OOM	8
#define DEFAULT_MAX_STACKS	8192
#define DEFAULT_STACK_TOP	5
#define DEFAULT_DELAY_MS	1000	/* --top: a frame a second */
#define DEFAULT_INTERVAL_S	15	/* --prometheus without --interval */
#define MAX_INTERVAL_S		86400
#define DEFAULT_QUEUE_KB	4096	/* --stream: the output queue */
#define MAX_CONDS		64

enum report_format { FMT_TEXT = 0, FMT_JSON };

/*
 * The command line as the user gave it (with the defaults filled in). Which
 * mode it asks for is main's to say (memtrace.c, from --stream, --top,
 * COMMAND, --replay, --exits, else the daemon): options_parse() has ruled out
 * the combinations that exclude each other.
 */
struct options {
	const char *tracefs_dir;
	const char *log_path;
	const char *pidfile;
	const char *replay_dir;
	const char *record_dir;
	const char *instance;		/* --instance; NULL: the mode's default (setup.c) */
	unsigned buffer_kb;
	bool buffer_set;		/* -b given */
	enum report_format format;
	uint32_t rows;			/* -n: task and module rows in a report, 0 = all */
	uint32_t max_tasks;		/* slots, the pseudo tasks included */
	bool tables_set;		/* --max-tasks or --max-stacks given (a capture kernel's
					 * smaller defaults give way: setup.c) */
	uint32_t max_modules;
	uint32_t keep_oom;		/* OOM snapshots kept as LOG.oom.N */
	bool stacks;			/* --stacks: a kernel stack with every page allocation */
	uint32_t max_stacks;		/* distinct stacks kept */
	uint32_t stack_top;		/* stacks printed per module and task (0: none) */
	const char *svg_path;		/* --svg FILE: memory over time as a picture, at the final report */
	const char *json_path;		/* --json FILE: the final report again, whole, as JSON */
	const char *prom_path;		/* --prometheus FILE: the daemon's textfile for node_exporter */
	uint32_t interval_s;		/* --interval S (0: none); DEFAULT_INTERVAL_S with --prometheus;
				   --stream: a summary per process instead of events */
	bool json_lines;		/* daemon, --interval and -f json: reports appended as JSON lines */
	bool daemon;
	bool no_seed;
	bool kmsg;
	uint32_t kmsg_level;		/* of the summary lines (--kmsg=LEVEL; default 6) */
	bool boot_buffer;
	bool crashkernel;		/* the crashkernel= answer, as in a capture kernel */
	const char *switch_root;	/* at SIGHUP, follow the switch to the root mounted here */
	bool output_set;		/* -o given */
	bool by_process;		/* --by process */
	bool exits;			/* --exits: a line per exiting process */
	bool top;			/* --top alone: the live view (--top N: the rows) */
	char **command;			/* -- COMMAND [ARGS...] */
	bool no_wait;
	int32_t pids[MAX_FILTERS];	/* --exits --pid */
	int npids;
	const char *comms[MAX_FILTERS];	/* --exits --comm */
	int ncomms;
	uint32_t delay_ms;		/* --top: between frames (-d SECONDS) */
	uint32_t count;			/* --top: stop after this many frames (0: never) */
	/* --stream */
	bool stream;
	const char *conds[MAX_CONDS];	/* -c, ANDed (checked here, compiled by stream.c) */
	int nconds;
	bool stream_all;		/* --all */
	uint8_t stream_events;		/* --events: MT_EVT_* */
	uint32_t queue_kb;		/* --queue-size */
	const char *stream_path;	/* -o: the lines go there (appended); NULL: stdout */
	/* --diff OLD NEW */
	bool diff;
	const char *diff_old, *diff_new;	/* JSON reports or recordings */
	const char *fail_over;		/* --fail-over N[%|KiB|MiB|GiB|pages], checked */
};

/* What options_parse() found. */
enum opt_result {
	OPT_RUN = 0,		/* run the mode the options ask for */
	OPT_HELP,		/* --help: print options_usage() to stdout, exit 0 */
	OPT_VERSION,		/* --version: print the version, exit 0 */
	OPT_ERROR,		/* a usage error, said in @err: exit EXIT_USAGE */
};

/**
 * options_parse() - fill @o from the command line
 * @err: one line (without "memtrace: ") when the result is OPT_ERROR
 *
 * Never exits and prints nothing: main() does, so that every option and every
 * bad value can be tested. getopt's state is reset, so it may be called again.
 * Return: an enum opt_result.
 */
int options_parse(struct options *o, int argc, char **argv, char *err, size_t errlen);

/* The --help text. */
void options_usage(FILE *f);

#endif
