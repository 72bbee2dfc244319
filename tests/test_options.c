// SPDX-License-Identifier: GPL-2.0-only
/* test_options.c - the command line: every option, every bad value, modes that exclude each other */
#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/event.h"
#include "core/options.h"
#include "model/table.h"
#include "testutil.h"
#include "lib/util.h"

static struct options O;
static char E[512];
static char *argv_store[64];

/* options_parse() of "memtrace" and the NULL-terminated words after it */
static int parse(const char *first, ...)
{
	const char *w = first;
	va_list ap;
	int n = 0;

	argv_store[n++] = (char *)"memtrace";
	va_start(ap, first);
	while (w) {
		ck_assert_int_lt(n, 63);
		argv_store[n++] = (char *)w;
		w = va_arg(ap, const char *);
	}
	va_end(ap);
	argv_store[n] = NULL;
	return options_parse(&O, n, argv_store, E, sizeof(E));
}

/* no mode asked for: the daemon (main's choice, memtrace.c) */
static bool daemon_asked(void)
{
	return !O.stream && !O.top && !O.command && !O.replay_dir && !O.exits;
}

/* a usage error whose message holds @what */
#define BAD(what, ...)								\
	do {									\
		ck_assert_int_eq(parse(__VA_ARGS__, NULL), OPT_ERROR);		\
		ck_assert_msg(strstr(E, what), "'%s' not in '%s'", what, E);	\
	} while (0)

START_TEST(test_defaults)
{
	ck_assert_int_eq(parse(NULL), OPT_RUN);
	ck_assert(daemon_asked());
	ck_assert_str_eq(O.log_path, DEFAULT_LOG);
	ck_assert_str_eq(O.instance, DEFAULT_INSTANCE);
	ck_assert_uint_eq(O.buffer_kb, DEFAULT_BUFFER_KB);
	ck_assert_uint_eq(O.rows, DEFAULT_TOP);
	ck_assert_uint_eq(O.max_tasks, DEFAULT_MAX_TASKS);
	ck_assert_uint_eq(O.max_modules, DEFAULT_MAX_MODULES);
	ck_assert_int_eq(O.format, FMT_TEXT);
	ck_assert(!O.daemon && !O.no_seed && !O.kmsg && !O.boot_buffer && !O.output_set &&
		  !O.by_process && !O.no_wait);
	ck_assert_ptr_null(O.tracefs_dir);
	ck_assert_ptr_null(O.pidfile);
	ck_assert_ptr_null(O.record_dir);
	ck_assert_ptr_null(O.replay_dir);
	ck_assert_ptr_null(O.command);
	ck_assert_ptr_null(O.prom_path);
	ck_assert_uint_eq(O.interval_s, 0);
	ck_assert(!O.json_lines);
	ck_assert_str_eq(E, "");
}
END_TEST

START_TEST(test_every_option)
{
	ck_assert_int_eq(parse("-o", "/tmp/x.log", "-b", "4096", "-f", "json", "-n", "0",
			       "--max-tasks", "100", "--max-modules", "7", "--instance", "a.b_c-1",
			       "--daemon", "--pidfile", "/run/m.pid", "--record", "/tmp/rec",
			       "--no-seed", "--kmsg", "--boot-buffer", "--by", "process",
			       "/mnt/tfs", "/tmp/y.log", NULL), OPT_RUN);
	ck_assert(daemon_asked());
	ck_assert_str_eq(O.log_path, "/tmp/y.log");	/* the positional one comes last */
	ck_assert(O.output_set);
	ck_assert_uint_eq(O.buffer_kb, 4096);
	ck_assert_int_eq(O.format, FMT_JSON);
	ck_assert_uint_eq(O.rows, 0);
	ck_assert_uint_eq(O.max_tasks, 100 + SLOT_FIRST);	/* the pseudo tasks come on top */
	ck_assert_uint_eq(O.max_modules, 7);
	ck_assert_str_eq(O.instance, "a.b_c-1");
	ck_assert(O.daemon && O.no_seed && O.kmsg && O.boot_buffer && O.by_process);
	ck_assert_uint_eq(O.kmsg_level, 6);	/* info, unless asked otherwise */
	ck_assert_str_eq(O.pidfile, "/run/m.pid");
	ck_assert_str_eq(O.record_dir, "/tmp/rec");
	ck_assert_str_eq(O.tracefs_dir, "/mnt/tfs");
	/* long forms of the short ones, and --by task back */
	ck_assert_int_eq(parse("--output", "o", "--buffer-size", "16", "--format", "text", "--rows",
			       "5", "--by", "process", "--by", "task", NULL), OPT_RUN);
	ck_assert_str_eq(O.log_path, "o");
	ck_assert_uint_eq(O.buffer_kb, 16);
	ck_assert_int_eq(O.format, FMT_TEXT);
	ck_assert_uint_eq(O.rows, 5);
	ck_assert(!O.by_process);
	/* the kmsg summary's level: 4 shows on a console booted with quiet */
	ck_assert_int_eq(parse("--kmsg=4", NULL), OPT_RUN);
	ck_assert(O.kmsg);
	ck_assert_uint_eq(O.kmsg_level, 4);
	ck_assert_int_eq(parse("--kmsg=0", "--kmsg", NULL), OPT_RUN);
	ck_assert_uint_eq(O.kmsg_level, 0);	/* a bare --kmsg after keeps the level */
	/* --stacks and its bounds */
	ck_assert_int_eq(parse("--stacks", "--max-stacks", "100", "--stack-top", "0", NULL),
			 OPT_RUN);
	ck_assert(O.stacks);
	ck_assert_uint_eq(O.max_stacks, 100);
	ck_assert_uint_eq(O.stack_top, 0);
	ck_assert_uint_eq(O.buffer_kb, DEFAULT_STACKS_BUFFER_KB);	/* a stack per allocation */
	ck_assert_int_eq(parse("-b", "2048", "--stacks", NULL), OPT_RUN);
	ck_assert_uint_eq(O.buffer_kb, 2048);	/* -b given: as given */
	/* a second parse starts from the defaults again */
	ck_assert_int_eq(parse(NULL), OPT_RUN);
	ck_assert(!O.output_set);
	ck_assert_uint_eq(O.buffer_kb, DEFAULT_BUFFER_KB);
}
END_TEST

START_TEST(test_modes)
{
	ck_assert_int_eq(parse("--replay", "/tmp/rec", "-f", "json", NULL), OPT_RUN);
	ck_assert(!O.exits && !O.top && !O.stream);
	ck_assert_str_eq(O.replay_dir, "/tmp/rec");
	ck_assert_int_eq(parse("--exits", "--pid", "12", "--pid", "7", "--comm", "cc1", NULL),
			 OPT_RUN);
	ck_assert(O.exits);
	ck_assert_int_eq(O.npids, 2);
	ck_assert_int_eq(O.pids[0], 12);
	ck_assert_int_eq(O.pids[1], 7);
	ck_assert_int_eq(O.ncomms, 1);
	ck_assert_str_eq(O.comms[0], "cc1");
	ck_assert_int_eq(parse("-n", "3", "--no-wait", "--", "make", "-j2", "--", "x", NULL),
			 OPT_RUN);
	ck_assert(!O.stream && !O.exits && O.command);
	ck_assert(O.no_wait);
	ck_assert_str_eq(O.command[0], "make");
	ck_assert_str_eq(O.command[1], "-j2");
	ck_assert_str_eq(O.command[2], "--");	/* the command's own words are its own */
	ck_assert_str_eq(O.command[3], "x");
	ck_assert_ptr_null(O.command[4]);
	/* options anywhere before "--" (GNU style), after TRACEFS_DIR and LOG_PATH too */
	BAD("option -n requires a value", "/mnt/tfs", "-n");
	ck_assert_int_eq(parse("/mnt/tfs", "-o", "x", NULL), OPT_RUN);
	ck_assert_str_eq(O.tracefs_dir, "/mnt/tfs");
	ck_assert_str_eq(O.log_path, "x");
	ck_assert(O.output_set);
	ck_assert_int_eq(parse("/mnt/tfs", "--no-seed", "log", "-n", "4", "--by", "process", NULL),
			 OPT_RUN);
	ck_assert(daemon_asked());
	ck_assert_str_eq(O.tracefs_dir, "/mnt/tfs");
	ck_assert_str_eq(O.log_path, "log");
	ck_assert(O.no_seed && O.by_process);
	ck_assert_uint_eq(O.rows, 4);
	ck_assert_int_eq(parse("/mnt/tfs", "--top", NULL), OPT_RUN);
	ck_assert(O.top);
	ck_assert_str_eq(O.tracefs_dir, "/mnt/tfs");
	/* argv as given: not permuted (main and the tests keep pointers into it) */
	ck_assert_str_eq(argv_store[1], "/mnt/tfs");
	ck_assert_str_eq(argv_store[2], "--top");
	/* after "--" everything is the COMMAND's, its options too */
	ck_assert_int_eq(parse("-n", "2", "--", "cmd", "-o", "x", "--top", NULL), OPT_RUN);
	ck_assert_str_eq(O.command[0], "cmd");
	ck_assert_str_eq(O.command[1], "-o");
	ck_assert_str_eq(O.command[3], "--top");
	ck_assert_str_eq(O.log_path, DEFAULT_LOG);
	ck_assert(!O.output_set && !O.top);
	/* "--" as an option's value is no separator */
	ck_assert_int_eq(parse("-o", "--", NULL), OPT_RUN);
	ck_assert_str_eq(O.log_path, "--");
	ck_assert_ptr_null(O.command);
	BAD("a COMMAND takes no TRACEFS_DIR or LOG_PATH ('/mnt/tfs')", "/mnt/tfs", "--", "ls");
	BAD("too many arguments: 'c'", "a", "-n", "1", "b", "c");
}
END_TEST

START_TEST(test_stream)
{
	ck_assert_int_eq(parse("--stream", "-c", "process.name:nginx", "--cond", "process.pid:1",
			       "--events", "pageFault,memoryMap", "--interval", "5",
			       "--queue-size", "64", "-o", "/tmp/lines", NULL), OPT_RUN);
	ck_assert(O.stream);
	ck_assert_int_eq(O.nconds, 2);
	ck_assert_str_eq(O.conds[1], "process.pid:1");
	ck_assert_uint_eq(O.stream_events, MT_EVT_FAULT | MT_EVT_MAP);
	ck_assert_uint_eq(O.interval_s, 5);
	ck_assert_uint_eq(O.queue_kb, 64);
	ck_assert_str_eq(O.stream_path, "/tmp/lines");
	ck_assert_str_eq(O.log_path, DEFAULT_LOG);	/* -o is the lines' file */
	ck_assert_int_eq(parse("--stream", "--all", "/mnt/tfs", "/tmp/log", NULL), OPT_RUN);
	ck_assert(O.stream_all);
	ck_assert_ptr_null(O.stream_path);
	ck_assert_uint_eq(O.stream_events, MT_EVT_ALL);	/* failed calls off by default */
	ck_assert_uint_eq(O.queue_kb, DEFAULT_QUEUE_KB);
	ck_assert_str_eq(O.log_path, "/tmp/log");
	/* failed memory calls asked for: with the evt_types named, or alone with every one */
	ck_assert_int_eq(parse("--stream", "--all", "--events", "memoryMap,failed", NULL), OPT_RUN);
	ck_assert_uint_eq(O.stream_events, MT_EVT_MAP | MT_EVT_FAILED);
	ck_assert_int_eq(parse("--stream", "--all", "--events", "failed", NULL), OPT_RUN);
	ck_assert_uint_eq(O.stream_events, MT_EVT_ALL | MT_EVT_FAILED);
	ck_assert_int_eq(parse("--stream", "-c", "container.id:780f15", "--", "make", "-j8", NULL),
			 OPT_RUN);
	ck_assert(O.stream);
	ck_assert_str_eq(O.command[0], "make");
	ck_assert_int_eq(parse("--stream", "--no-wait", "--", "make", NULL), OPT_RUN);
	ck_assert(O.stream);
	/* nothing picked: a one-line hint */
	BAD("--stream needs -c COND, --all or a COMMAND", "--stream");
	BAD("--all takes no -c", "--stream", "--all", "-c", "process.pid:1");
	BAD("--all takes no -c and no COMMAND", "--stream", "--all", "--", "ls");
	BAD("need --stream", "-c", "process.pid:1");
	BAD("need --stream", "--all");
	BAD("--interval needs --prometheus FILE, -f json or --stream", "--interval", "1");
	BAD("need --stream", "--events", "pageFree");
	BAD("need --stream", "--queue-size", "128");
	BAD("--stream takes no --exits", "--stream", "--all", "--exits");
	BAD("--stream takes no --exits, --replay", "--stream", "--all", "--replay", "/x");
	BAD("--record", "--stream", "--all", "--record", "/x");
	BAD("--boot-buffer", "--stream", "--all", "--boot-buffer");
	BAD("--boot-buffer or --stacks", "--stream", "--all", "--stacks");
	BAD("--prometheus is for the daemon (not with --stream)", "--stream", "--all",
	    "--prometheus", "m.prom");
	BAD("--top takes no COMMAND, --exits, --replay, --daemon or --stream", "--top", "--stream",
	    "--all");
	BAD("--delay and --count need --top", "--stream", "--all", "-d", "1");
	BAD("a COMMAND takes no --daemon", "--stream", "--daemon", "--", "ls");
	BAD("--no-wait needs a COMMAND", "--stream", "--all", "--no-wait");
	BAD("--pid and --comm need --exits", "--stream", "--all", "--pid", "3");
	/* conditions are checked here: the position, and the keys */
	BAD("-c 'process.nme:x': unknown key 'process.nme' at position 1; keys: process.pid, ",
	    "--stream", "-c", "process.nme:x");
	BAD("pod.label", "--stream", "-c", "process.nme:x");
	BAD("-c '(process.pid:1': '(' without its ')' at position 1", "--stream", "-c",
	    "(process.pid:1");
	BAD("...': expected AND, OR or the end at position 58", "--stream", "-c",
	    "process.name:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa process.pid:1");
	BAD("invalid value 'pageAlloc' for --events: use pageAllocate, pageFree, memoryMap, "
	    "memoryUnmap, pageFault, failed", "--stream", "--all", "--events", "pageAlloc");
	BAD("empty value for --events", "--stream", "--all", "--events", "");
	BAD("must be 1..86400", "--stream", "--all", "--interval", "0");
	BAD("must be 64..1048576", "--stream", "--all", "--queue-size", "63");
	BAD("option -c requires a value", "--stream", "-c");
}
END_TEST

START_TEST(test_help_version)
{
	ck_assert_int_eq(parse("--help", NULL), OPT_HELP);
	ck_assert_int_eq(parse("-h", NULL), OPT_HELP);
	ck_assert_int_eq(parse("--version", NULL), OPT_VERSION);
	ck_assert_int_eq(parse("-V", NULL), OPT_VERSION);
	/* the first of them wins, whatever follows */
	ck_assert_int_eq(parse("-V", "--bogus", NULL), OPT_VERSION);
	ck_assert_int_eq(parse("-n", "1", "--help", "-n", "x", NULL), OPT_HELP);
}
END_TEST

START_TEST(test_bad_values)
{
	BAD("invalid value 'x' for --buffer-size: not a number", "-b", "x");
	BAD("invalid value '15' for --buffer-size: must be 16..4194304", "-b", "15");
	BAD("must be 16..4194304", "-b", "4194305");
	BAD("not a number", "-b", "-16");
	BAD("not a number", "-b", "16k");
	BAD("not a number", "-b", " 16");
	BAD("not a number", "-n", "99999999999999999999999");
	BAD("must be 0..4294967295", "-n", "4294967296");
	BAD("invalid value 'yaml' for --format: use text or json", "-f", "yaml");
	BAD("must be 8..4194304", "--max-tasks", "7");
	BAD("must be 8..4194304", "--max-tasks", "4194305");
	BAD("must be 1..65536", "--max-modules", "0");
	BAD("must be 1..65536", "--max-modules", "65537");
	BAD("for --instance", "--instance", "");
	BAD("for --instance", "--instance", ".hidden");
	BAD("for --instance", "--instance", "a/b");
	BAD("for --instance", "--instance", "a b");
	BAD("for --instance", "--instance",
	    "0123456789012345678901234567890123456789012345678901234567890");
	BAD("empty value for --output", "-o", "");
	BAD("empty value for --pidfile", "--daemon", "--pidfile", "");
	BAD("empty value for --record", "--record", "");
	BAD("empty value for --replay", "--replay", "");
	BAD("must be 1..2147483647", "--exits", "--pid", "0");
	BAD("must be 1..2147483647", "--exits", "--pid", "2147483648");
	BAD("invalid value '' for --comm: 1 to 15 bytes", "--exits", "--comm", "");
	BAD("for --comm: 1 to 15 bytes", "--exits", "--comm", "0123456789abcdef");
	BAD("invalid value 'thread' for --by: use task or process", "--by", "thread");
	BAD("empty LOG_PATH", "/sys/kernel/tracing", "");
	BAD("too many arguments: 'c'", "a", "b", "c");
}
END_TEST

START_TEST(test_unknown_and_missing)
{
	/* which it is: unknown, a value not wanted, a value missing */
	BAD("unknown option '--bogus'", "--bogus");
	BAD("unknown option '--bogus'", "--bogus=1");
	BAD("--no-seed takes no value", "--no-seed=1");
	BAD("--output needs a value", "--output");
	BAD("--output needs a value", "--outp");	/* a prefix, as getopt takes it */
	BAD("--instance needs a value", "-n", "1", "--instance");
	BAD("ambiguous option '--max'", "--max", "1");
	BAD("invalid value '8' for --kmsg: must be 0..7", "--kmsg=8");
	BAD("invalid value 'warn' for --kmsg: not a number", "--kmsg=warn");
	BAD("option -x is unknown", "-x");
	BAD("option -o requires a value", "-o");
	BAD("option -n requires a value", "-n");
	BAD("'--' must be followed by a COMMAND", "--");
}
END_TEST

/* @opt once more than @max times (values @prefix 1, 2, ...): said; @max times: fine */
static void at_most(const char *mode, const char *opt, const char *prefix, int max, int *count,
		    const char *said)
{
	char *words[2 * (MAX_FILTERS + 1) + 3];
	static char val[MAX_FILTERS + 1][24];	/* O keeps pointers into it */
	int i, n = 0;

	ck_assert_int_le(max, MAX_FILTERS);
	words[n++] = (char *)"memtrace";
	words[n++] = (char *)mode;
	for (i = 0; i <= max; i++) {
		snprintf(val[i], sizeof(val[i]), "%s%d", prefix, i + 1);
		words[n++] = (char *)opt;
		words[n++] = val[i];
	}
	words[n] = NULL;
	ck_assert_int_eq(options_parse(&O, n, words, E, sizeof(E)), OPT_ERROR);
	ck_assert_msg(strstr(E, said), "'%s' not in '%s'", said, E);
	/* exactly @max is fine */
	words[n - 2] = NULL;
	ck_assert_int_eq(options_parse(&O, n - 2, words, E, sizeof(E)), OPT_RUN);
	ck_assert_int_eq(*count, max);
}

START_TEST(test_at_most_filters)
{
	at_most("--exits", "--pid", "", MAX_FILTERS, &O.npids, "at most 64 --pid");
	at_most("--exits", "--comm", "c", MAX_FILTERS, &O.ncomms, "at most 64 --comm");
	ck_assert_str_eq(O.comms[MAX_FILTERS - 1], "c64");
	at_most("--stream", "-c", "process.pid:", MAX_CONDS, &O.nconds, "at most 64 -c");
	ck_assert_str_eq(O.conds[0], "process.pid:1");
}
END_TEST

/*
 * Every option that takes a number: its bounds, the message beyond them, and
 * the field the value goes to (with the words it needs beside it).
 */
START_TEST(test_number_bounds)
{
	static const struct {
		const char *opt;
		unsigned long min, max;
		const uint32_t *field;
		uint32_t plus;		/* stored as value + plus */
		const char *with[3];
	} b[] = {
		{ "--rows", 0, UINT32_MAX, &O.rows, 0, { NULL } },
		{ "--buffer-size", 16, 4u << 20, &O.buffer_kb, 0, { NULL } },
		{ "--max-tasks", 8, 1u << 22, &O.max_tasks, SLOT_FIRST, { NULL } },
		{ "--max-modules", 1, 1u << 16, &O.max_modules, 0, { NULL } },
		{ "--max-stacks", 16, 1u << 22, &O.max_stacks, 0, { NULL } },
		{ "--stack-top", 0, 1000, &O.stack_top, 0, { NULL } },
		{ "--keep-oom", 0, 1000, &O.keep_oom, 0, { NULL } },
		{ "--count", 1, UINT32_MAX, &O.count, 0, { "--top", NULL } },
		{ "--interval", 1, MAX_INTERVAL_S, &O.interval_s, 0, { "-f", "json", NULL } },
		{ "--queue-size", 64, 1u << 20, &O.queue_kb, 0, { "--stream", "--all", NULL } },
	};
	size_t i, k;

	for (i = 0; i < ARRAY_SIZE(b); i++) {
		/* 64-bit: max + 1 of a 32-bit field must not wrap to 0 on a 32-bit build */
		unsigned long long v[4] = { b[i].min, b[i].max, b[i].min - 1ull, b[i].max + 1ull };
		char arg[24], said[128];

		for (k = 0; k < 4; k++) {
			bool ok = k < 2;
			int n = 0;

			if (k == 2 && !b[i].min)
				continue;	/* nothing below 0 */
			argv_store[n++] = (char *)"memtrace";
			while (n - 1 < 3 && b[i].with[n - 1])
				argv_store[n] = (char *)b[i].with[n - 1], n++;
			snprintf(arg, sizeof(arg), "%llu", v[k]);
			argv_store[n++] = (char *)b[i].opt;
			argv_store[n++] = arg;
			argv_store[n] = NULL;
			ck_assert_int_eq(options_parse(&O, n, argv_store, E, sizeof(E)),
					 ok ? OPT_RUN : OPT_ERROR);
			if (ok) {
				ck_assert_uint_eq(*b[i].field, v[k] + b[i].plus);
				continue;
			}
			snprintf(said, sizeof(said), "invalid value '%llu' for %s: must be %lu..%lu",
				 v[k], b[i].opt, b[i].min, b[i].max);
			ck_assert_str_eq(E, said);
		}
	}
}
END_TEST

START_TEST(test_conflicts)
{
	BAD("a COMMAND takes no --replay", "--replay", "d", "--", "true");
	BAD("a COMMAND takes no", "--daemon", "--", "true");
	BAD("a COMMAND takes no", "--exits", "--", "true");
	BAD("a COMMAND takes no", "--record", "d", "--", "true");
	BAD("a COMMAND takes no", "--boot-buffer", "--", "true");
	BAD("--no-wait needs a COMMAND", "--no-wait");
	BAD("--pid and --comm need --exits", "--pid", "1");
	BAD("--pid and --comm need --exits", "--comm", "sh");
	BAD("--exits takes no --replay or --daemon", "--exits", "--replay", "d");
	BAD("--exits takes no --replay or --daemon", "--exits", "--daemon");
	BAD("--replay takes no --record", "--replay", "d", "--record", "e");
	BAD("--replay takes no", "--replay", "d", "--daemon");
	BAD("--replay takes no", "--replay", "d", "--boot-buffer");
	BAD("--replay takes no", "--replay", "d", "/sys/kernel/tracing");
	BAD("--pidfile needs --daemon", "--pidfile", "/run/p");
}
END_TEST

/*
 * --top is the live view and takes no value: --top N (the rows, once) is an
 * error that points to -n, never the daemon run silently.
 */
START_TEST(test_top)
{
	ck_assert_int_eq(parse("--top", NULL), OPT_RUN);
	ck_assert(O.top);
	ck_assert_uint_eq(O.delay_ms, DEFAULT_DELAY_MS);
	ck_assert_uint_eq(O.count, 0);
	ck_assert_uint_eq(O.rows, DEFAULT_TOP);
	ck_assert_int_eq(parse("--top", "-d", "0.2", "--count", "5", "--by", "process", "-n", "0",
			       "--record", "/tmp/r", "/sys/kernel/tracing", "/tmp/log", NULL), OPT_RUN);
	ck_assert(O.top);
	ck_assert_uint_eq(O.delay_ms, 200);
	ck_assert_uint_eq(O.count, 5);
	ck_assert(O.by_process);
	ck_assert_uint_eq(O.rows, 0);
	ck_assert_str_eq(O.tracefs_dir, "/sys/kernel/tracing");
	ck_assert_str_eq(O.log_path, "/tmp/log");
	ck_assert_int_eq(parse("--delay", "2", "--top", NULL), OPT_RUN);
	ck_assert_uint_eq(O.delay_ms, 2000);
	ck_assert_int_eq(parse("--top", "-d", "86400", NULL), OPT_RUN);
	ck_assert_uint_eq(O.delay_ms, 86400000);
	ck_assert_int_eq(parse("--top", "-d", "0.125", NULL), OPT_RUN);
	ck_assert_uint_eq(O.delay_ms, 125);
	/* the old meaning is gone: an error that says where rows are */
	BAD("--top takes no number: rows are -n 7", "--top", "7");
	BAD("--top takes no number: rows are -n 5", "--top", "5", "/tmp/log");
	BAD("--top takes no number: rows are -n 0", "--top=0");
	BAD("--top takes no number: rows are -n 12", "-n", "3", "--top", "12");
	/* only right after --top: a log file named --top, a directory named 5 */
	ck_assert_int_eq(parse("-o", "--top", "5", NULL), OPT_RUN);
	ck_assert_str_eq(O.tracefs_dir, "5");
	ck_assert_int_eq(parse("--top", "/mnt/tfs", "5", NULL), OPT_RUN);
	ck_assert_str_eq(O.log_path, "5");
	/* a directory after --top is TRACEFS_DIR still */
	ck_assert_int_eq(parse("--top", "/mnt/tfs", NULL), OPT_RUN);
	ck_assert(O.top);
	ck_assert_str_eq(O.tracefs_dir, "/mnt/tfs");
	ck_assert_int_eq(parse("--rows", "3", "--top", NULL), OPT_RUN);
	ck_assert(O.top);
	ck_assert_uint_eq(O.rows, 3);
	BAD("--top takes no value: 'abc'", "--top=abc");
	ck_assert_msg(!strstr(E, "rows"), "'%s' talks of rows", E);
	BAD("must be 0.1..86400 seconds", "--top", "-d", "0.09");
	BAD("must be 0.1..86400 seconds", "--top", "-d", "0");
	BAD("must be 0.1..86400 seconds", "--top", "-d", "86400.001");
	BAD("must be 0.1..86400 seconds", "--top", "-d", "99999999999999999999");
	BAD("seconds, like 0.5 or 2", "--top", "-d", "1e3");
	BAD("seconds, like 0.5 or 2", "--top", "-d", ".5");
	BAD("seconds, like 0.5 or 2", "--top", "-d", "0.0001");
	BAD("seconds, like 0.5 or 2", "--top", "-d", "-1");
	BAD("seconds, like 0.5 or 2", "--top", "-d", "1s");
	BAD("option -d requires a value", "--top", "-d");
	BAD("must be 1..4294967295", "--top", "--count", "0");
	BAD("--delay and --count need --top", "-d", "1");
	BAD("--delay and --count need --top", "--count", "3");
	BAD("--top takes no COMMAND", "--top", "--", "true");
	BAD("--top takes no COMMAND, --exits", "--top", "--exits");
	BAD("--top takes no", "--top", "--replay", "d");
	BAD("--top takes no", "--top", "--daemon");
}
END_TEST

/* --prometheus and --interval: the daemon's outputs every interval */
START_TEST(test_intervals)
{
	/* --prometheus alone: every 15 s, the log file as before */
	ck_assert_int_eq(parse("--prometheus", "/var/lib/prometheus/node-exporter/m.prom", NULL),
			 OPT_RUN);
	ck_assert_str_eq(O.prom_path, "/var/lib/prometheus/node-exporter/m.prom");
	ck_assert_uint_eq(O.interval_s, DEFAULT_INTERVAL_S);
	ck_assert_uint_eq(O.interval_s, 15);
	ck_assert(!O.json_lines);
	/* with -f json but no --interval: the log file stays one atomic report */
	ck_assert_int_eq(parse("--prometheus", "m.prom", "-f", "json", NULL), OPT_RUN);
	ck_assert(!O.json_lines);
	ck_assert_uint_eq(O.interval_s, 15);
	/* --interval sets it; with -f json the log file is JSON lines */
	ck_assert_int_eq(parse("--prometheus", "m.prom", "--interval", "60", NULL), OPT_RUN);
	ck_assert_uint_eq(O.interval_s, 60);
	ck_assert(!O.json_lines);
	ck_assert_int_eq(parse("--interval", "5", "-f", "json", "-o", "/tmp/m.jsonl", NULL),
			 OPT_RUN);
	ck_assert_uint_eq(O.interval_s, 5);
	ck_assert(O.json_lines);
	ck_assert_ptr_null(O.prom_path);
	ck_assert_int_eq(parse("-f", "json", "--interval", "1", "--prometheus", "m.prom",
			       "--daemon", "--record", "/tmp/rec", NULL), OPT_RUN);
	ck_assert(O.json_lines && O.daemon && O.prom_path && O.interval_s == 1);
	ck_assert_int_eq(parse("--interval", "86400", "-f", "json", NULL), OPT_RUN);
	/* the bounds and bad values */
	BAD("invalid value '0' for --interval: must be 1..86400", "--interval", "0", "-f", "json");
	BAD("must be 1..86400", "--interval", "86401", "-f", "json");
	BAD("not a number", "--interval", "1.5", "-f", "json");
	BAD("not a number", "--interval", "15s", "-f", "json");
	BAD("empty value for --prometheus", "--prometheus", "");
	/* what it needs, and where it does not belong */
	BAD("--interval needs --prometheus FILE, -f json or --stream", "--interval", "5");
	BAD("--interval needs --prometheus FILE, -f json or --stream", "--interval", "5", "-f",
	    "text");
	BAD("--prometheus is for the daemon", "--prometheus", "m", "--", "true");
	BAD("--prometheus is for the daemon", "--prometheus", "m", "--exits");
	BAD("--prometheus is for the daemon", "--prometheus", "m", "--replay", "d");
	BAD("--prometheus is for the daemon (not with a COMMAND, --exits, --replay or --top)",
	    "--top", "--prometheus", "m");
	BAD("--interval is for the daemon (not with a COMMAND, --exits, --replay or --top)",
	    "--top", "--interval", "5", "-f", "json");
	BAD("--interval is for the daemon", "--interval", "5", "-f", "json", "--", "true");
	BAD("--interval is for the daemon", "--interval", "5", "-f", "json", "--exits");
	BAD("--interval is for the daemon", "--interval", "5", "-f", "json", "--replay", "d");
	BAD("--prometheus FILE must not be the log file", "--prometheus", "/tmp/x", "-o",
	    "/tmp/x");
	BAD("must not be the log file", "--prometheus", DEFAULT_LOG);
	BAD("must not be the log file", "--prometheus", "/tmp/l", "/sys/kernel/tracing",
	    "/tmp/l");
}
END_TEST

/* the help names every option the parser takes */
START_TEST(test_usage_lists_options)
{
	/* each with a value it takes, and what else it needs */
	static const char *const opts[][5] = {
		{ "--output", "x" }, { "--buffer-size", "16" }, { "--format", "json" },
		{ "--rows", "1" }, { "--top" }, { "--delay", "1", "--top" },
		{ "--count", "1", "--top" }, { "--max-tasks", "8" }, { "--max-modules", "1" },
		{ "--instance", "i" }, { "--daemon" }, { "--pidfile", "p", "--daemon" },
		{ "--record", "d" }, { "--replay", "d" }, { "--no-seed" }, { "--kmsg" },
		{ "--boot-buffer" }, { "--by", "task" }, { "--no-wait", "--", "true" },
		{ "--exits" }, { "--pid", "1", "--exits" }, { "--comm", "c", "--exits" },
		{ "--prometheus", "m.prom" }, { "--interval", "5", "-f", "json" },
		{ "--stacks" }, { "--max-stacks", "16" }, { "--stack-top", "1" },
		{ "--svg", "m.svg" }, { "--json", "m.json" }, { "--help" }, { "--version" },
	};
	char buf[8192];
	FILE *f = fmemopen(buf, sizeof(buf), "w");
	size_t i;

	ck_assert_ptr_nonnull(f);
	options_usage(f);
	fclose(f);
	for (i = 0; i < sizeof(opts) / sizeof(opts[0]); i++) {
		ck_assert_msg(strstr(buf, opts[i][0]), "%s not in --help", opts[i][0]);
		/* and the parser takes it */
		ck_assert_msg(parse(opts[i][0], opts[i][1], opts[i][2], opts[i][3], NULL) != OPT_ERROR,
			      "%s: %s", opts[i][0], E);
	}
}
END_TEST

/* --svg FILE: the daemon, a COMMAND, --replay; refused with the modes it cannot draw */
START_TEST(test_svg)
{
	ck_assert_int_eq(parse("--svg", "/tmp/m.svg", NULL), OPT_RUN);
	ck_assert_str_eq(O.svg_path, "/tmp/m.svg");
	ck_assert_int_eq(parse("--svg", "m.svg", "--replay", "/x", NULL), OPT_RUN);
	ck_assert_int_eq(parse("--svg", "m.svg", "--", "ls", NULL), OPT_RUN);
	ck_assert_int_eq(parse("--svg", "m.svg", "--daemon", "--record", "/x", NULL), OPT_RUN);
	BAD("--svg is for the daemon, a COMMAND and --replay", "--svg", "m.svg", "--stream", "--all");
	BAD("--svg is for the daemon, a COMMAND and --replay", "--svg", "m.svg", "--top");
	BAD("--svg is for the daemon, a COMMAND and --replay", "--svg", "m.svg", "--exits");
	BAD("--svg is for the daemon, a COMMAND and --replay", "--svg", "m.svg", "--prometheus",
	    "m.prom");
	BAD("--svg FILE must not be the log file", "--svg", "/tmp/l", "-o", "/tmp/l");
	BAD("empty value for --svg", "--svg", "");
}
END_TEST

/*
 * --json FILE: the final report of the daemon, a COMMAND, --replay again as
 * JSON; refused where there is no report of rows to keep, and on the other files
 */
START_TEST(test_json)
{
	ck_assert_int_eq(parse(NULL), OPT_RUN);
	ck_assert_ptr_null(O.json_path);
	ck_assert_int_eq(parse("--json", "/tmp/m.json", NULL), OPT_RUN);
	ck_assert_str_eq(O.json_path, "/tmp/m.json");
	ck_assert_int_eq(O.format, FMT_TEXT);	/* the log's own format is untouched */
	ck_assert_int_eq(parse("--json", "m.json", "--replay", "/x", "-n", "3", NULL), OPT_RUN);
	ck_assert_uint_eq(O.rows, 3);
	ck_assert_int_eq(parse("--json", "m.json", "--", "ls", NULL), OPT_RUN);
	ck_assert_int_eq(parse("--json", "m.json", "--daemon", "--record", "/x", "--svg", "m.svg",
			       NULL), OPT_RUN);
	/* the final report of a run whose log is JSON lines: one whole report beside them */
	ck_assert_int_eq(parse("--json", "m.json", "--interval", "5", "-f", "json", NULL), OPT_RUN);
	ck_assert(O.json_lines);
	BAD("--json is the final report of the daemon, a COMMAND or --replay", "--json", "m.json",
	    "--stream", "--all");
	BAD("--top and --prometheus are for watching a run", "--json", "m.json", "--top");
	BAD("--stream and --exits write no report of rows", "--json", "m.json", "--exits");
	BAD("--json is the final report", "--json", "m.json", "--prometheus", "m.prom");
	BAD("--json FILE must be neither the log file nor the --svg file", "--json", "/tmp/l",
	    "-o", "/tmp/l");
	BAD("--json FILE must be neither the log file nor the --svg file", "--json", DEFAULT_LOG);
	BAD("--json FILE must be neither the log file nor the --svg file", "--json", "p",
	    "--svg", "p");
	BAD("--diff takes only OLD NEW", "--diff", "a", "b", "--json", "c");
	BAD("--diff takes only OLD NEW", "--diff", "a", "b", "--svg", "c");
	BAD("empty value for --json", "--json", "");
	BAD("--json needs a value", "--json");
}
END_TEST

Suite *suite_options(void)
{
	Suite *s = suite_create("options");
	TCase *tc = tcase_create("options");

	tcase_add_test(tc, test_defaults);
	tcase_add_test(tc, test_every_option);
	tcase_add_test(tc, test_modes);
	tcase_add_test(tc, test_stream);
	tcase_add_test(tc, test_help_version);
	tcase_add_test(tc, test_bad_values);
	tcase_add_test(tc, test_unknown_and_missing);
	tcase_add_test(tc, test_at_most_filters);
	tcase_add_test(tc, test_number_bounds);
	tcase_add_test(tc, test_conflicts);
	tcase_add_test(tc, test_intervals);
	tcase_add_test(tc, test_usage_lists_options);
	tcase_add_test(tc, test_top);
	tcase_add_test(tc, test_svg);
	tcase_add_test(tc, test_json);
	suite_add_tcase(s, tc);
	return s;
}
