// SPDX-License-Identifier: GPL-2.0-only
/* core/options.c - the command line: getopt_long, validation, usage text, the mode it asks for */
#include "core/options.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "core/build.h"
#include "core/cond.h"
#include "diff/diff.h"
#include "kernel/event.h"
#include "model/table.h"
#include "lib/util.h"

enum {
	OPT_MAX_TASKS = 256, OPT_MAX_MODULES, OPT_DAEMON, OPT_PIDFILE, OPT_REPLAY,
	OPT_RECORD, OPT_INSTANCE, OPT_NO_SEED, OPT_KMSG, OPT_BOOT_BUFFER, OPT_EXITS, OPT_PID,
	OPT_COMM, OPT_BY, OPT_NO_WAIT, OPT_KEEP_OOM, OPT_STACKS, OPT_MAX_STACKS, OPT_STACK_TOP,
	OPT_TOP, OPT_COUNT, OPT_PROMETHEUS, OPT_INTERVAL, OPT_STREAM, OPT_ALL, OPT_EVENTS,
	OPT_QUEUE_SIZE, OPT_DIFF, OPT_FAIL_OVER, OPT_SVG, OPT_JSON, OPT_CRASHKERNEL,
	OPT_SWITCH_ROOT,
};

/* the reason into @err; OPT_ERROR */
#define bad(err, errlen, ...) err_fmt(OPT_ERROR, err, errlen, __VA_ARGS__)

/*
 * What the boot build leaves out (core/build.h), as its options: the modes
 * --top, --stream, --diff and --exits with the options only they take, and the
 * daemon's --svg, --prometheus and --interval. The boot build refuses each,
 * naming the full binary, and its --help names them; the full build takes all.
 */
static const int full_only[] = {
	OPT_TOP, 'd', OPT_COUNT, OPT_STREAM, 'c', OPT_ALL, OPT_EVENTS, OPT_QUEUE_SIZE,
	OPT_DIFF, OPT_FAIL_OVER, OPT_EXITS, OPT_PID, OPT_COMM, OPT_SVG, OPT_PROMETHEUS,
	OPT_INTERVAL,
};

/* The long options, for getopt_long() (their values: set_option(), options_usage()). */
static const struct option longopts[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "buffer-size", required_argument, NULL, 'b' },
	{ "format", required_argument, NULL, 'f' },
	{ "rows", required_argument, NULL, 'n' },
	{ "top", optional_argument, NULL, OPT_TOP },
	{ "delay", required_argument, NULL, 'd' },
	{ "count", required_argument, NULL, OPT_COUNT },
	{ "max-tasks", required_argument, NULL, OPT_MAX_TASKS },
	{ "max-modules", required_argument, NULL, OPT_MAX_MODULES },
	{ "instance", required_argument, NULL, OPT_INSTANCE },
	{ "daemon", no_argument, NULL, OPT_DAEMON },
	{ "pidfile", required_argument, NULL, OPT_PIDFILE },
	{ "record", required_argument, NULL, OPT_RECORD },
	{ "replay", required_argument, NULL, OPT_REPLAY },
	{ "no-seed", no_argument, NULL, OPT_NO_SEED },
	{ "kmsg", optional_argument, NULL, OPT_KMSG },
	{ "boot-buffer", no_argument, NULL, OPT_BOOT_BUFFER },
	{ "crashkernel", no_argument, NULL, OPT_CRASHKERNEL },
	{ "switch-root", required_argument, NULL, OPT_SWITCH_ROOT },
	{ "exits", no_argument, NULL, OPT_EXITS },
	{ "pid", required_argument, NULL, OPT_PID },
	{ "comm", required_argument, NULL, OPT_COMM },
	{ "by", required_argument, NULL, OPT_BY },
	{ "no-wait", no_argument, NULL, OPT_NO_WAIT },
	{ "keep-oom", required_argument, NULL, OPT_KEEP_OOM },
	{ "stacks", no_argument, NULL, OPT_STACKS },
	{ "max-stacks", required_argument, NULL, OPT_MAX_STACKS },
	{ "stack-top", required_argument, NULL, OPT_STACK_TOP },
	{ "prometheus", required_argument, NULL, OPT_PROMETHEUS },
	{ "svg", required_argument, NULL, OPT_SVG },
	{ "json", required_argument, NULL, OPT_JSON },
	{ "interval", required_argument, NULL, OPT_INTERVAL },
	{ "stream", no_argument, NULL, OPT_STREAM },
	{ "cond", required_argument, NULL, 'c' },
	{ "all", no_argument, NULL, OPT_ALL },
	{ "events", required_argument, NULL, OPT_EVENTS },
	{ "queue-size", required_argument, NULL, OPT_QUEUE_SIZE },
	{ "diff", no_argument, NULL, OPT_DIFF },
	{ "fail-over", required_argument, NULL, OPT_FAIL_OVER },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

/*
 * The boot build: an option of what it leaves out is a usage error that says
 * which binary has it. The full build: OPT_RUN.
 */
static int left_out(int c, char *err, size_t errlen)
{
	const struct option *l = longopts;
	char name[48];
	size_t i;

	if (BUILD_FULL)
		return OPT_RUN;
	for (i = 0; i < ARRAY_SIZE(full_only); i++) {
		if (full_only[i] != c)
			continue;
		while (l->name && l->val != c)
			l++;
		if (c < 256)
			snprintf(name, sizeof(name), "-%c, --%s", c, l->name ? l->name : "?");
		else
			snprintf(name, sizeof(name), "--%s", l->name ? l->name : "?");
		return bad(err, errlen, "%s is not in this build: this is " BUILD_NAME ", the boot "
			   "binary for initramfs images; use the full memtrace", name);
	}
	return OPT_RUN;
}

/*
 * The --help text. The boot build (core/build.h) lists only what it has: the
 * lines of what it leaves out are compiled out, and its last lines say what
 * the full binary has besides.
 */
void options_usage(FILE *f)
{
	fputs("Usage: memtrace [OPTIONS] [TRACEFS_DIR [LOG_PATH]]\n"
	      "       memtrace [OPTIONS] -- COMMAND [ARGS...]\n", f);
	if (BUILD_FULL)
		fputs("       memtrace --exits [--pid N]... [--comm NAME]... [OPTIONS]\n", f);
	fputs("       memtrace --replay DIR [OPTIONS]\n", f);
	if (BUILD_FULL)
		fputs("       memtrace --stream (-c COND... | --all | -- COMMAND...) [OPTIONS]\n"
		      "       memtrace --top [-d SECONDS] [--count N] [OPTIONS]\n"
		      "       memtrace --diff OLD NEW [--fail-over N] [-f json] [-n N]\n", f);
	fprintf(f, "Trace page allocations and report per-task and per-module peak memory.\n"
		"With a COMMAND: run it, report the peak of its whole process tree (to\n"
		"stderr, or -o FILE) and exit with its status.\n"
		"\n"
		"  -o, --output FILE       log file of the reports (default " DEFAULT_LOG ")\n"
		"  -b, --buffer-size KB    ring buffer per CPU, KiB (default %d, --stacks %d)\n"
		"  -f, --format FMT        report format: text or json (default text)\n"
		"  -n, --rows N            task and module rows, 0 = all (default %d)\n"
		"      --max-tasks N, --max-modules N  table sizes (default %d, %d)\n"
		"      --instance NAME     instance (daemon: " DEFAULT_INSTANCE "; others memtrace-MODE-PID)\n"
		"      --daemon, --pidfile FILE  fork, return once tracing is live; pid to FILE\n"
		"      --record DIR, --replay DIR  save raw buffers in DIR; report on one, exit\n"
		"      --no-seed, --by process  no seed from /proc/PID/statm; rows by process\n"
		"      --kmsg[=LEVEL], --keep-oom N  a summary to /dev/kmsg at the end (level\n"
		"                          6; 4: quiet); OOM reports kept (default %d, 0 none)\n"
		"      --stacks            kernel stacks: pages by module code, top stacks shown\n"
		"      --max-stacks N, --stack-top N  stacks kept (default %d), shown (%d)\n"
		"      --boot-buffer       take the boot's own events (trace_event=) first\n"
		"      --crashkernel       answer how much crashkernel= (a capture: always)\n"
		"      --switch-root DIR   at HUP, go on in the root mounted at DIR once an\n"
		"                          initramfs switched to it (a kdump-tools capture)\n",
		DEFAULT_BUFFER_KB, DEFAULT_STACKS_BUFFER_KB, DEFAULT_TOP, DEFAULT_MAX_TASKS,
		DEFAULT_MAX_MODULES, DEFAULT_KEEP_OOM, DEFAULT_MAX_STACKS, DEFAULT_STACK_TOP);
	if (BUILD_FULL)
		fprintf(f, "      --svg FILE, --json FILE  final report: a memory picture; whole, as JSON\n"
			"      --prometheus FILE   daemon: metrics for node_exporter, every interval\n"
			"      --interval S        seconds between --prometheus writes (default %d); -f\n"
			"                          json: JSON lines to the log; --stream: summaries\n",
			DEFAULT_INTERVAL_S);
	else
		fputs("      --json FILE         the final report again, whole, as JSON\n", f);
	fputs("      --no-wait           COMMAND: stop when it exits, not its descendants\n", f);
	if (BUILD_FULL)
		fprintf(f, "      --exits             print a line per exiting process, until TERM/INT\n"
			"      --top               live view of tasks, processes, modules (h: keys);\n"
			"                          not a terminal: a frame of -n rows every -d s\n"
			"  -d, --delay SECONDS, --count N  --top: a frame every SECONDS (1); N of them\n"
			"      --pid N, --comm NAME  --exits: only these processes (may repeat)\n"
			"      --stream            memory events of picked processes as JSON lines\n"
			"  -c, --cond COND         --stream: pick by KEY:VALUE, AND, OR, NOT, ( )\n"
			"      --all               --stream: every process\n"
			"      --events LIST       --stream: evt_types (default all), failed (calls)\n"
			"      --queue-size KB     --stream: output queue (default %d)\n"
			"      --diff OLD NEW, --fail-over N  compare two runs; exit 3 if one grew past N\n",
			DEFAULT_QUEUE_KB);
	fputs("  -h, --help, -V, --version  show this help, or the version, and exit\n"
	      "\n"
	      "Signals: USR1 report to stdout; USR2 report to the log file;\n"
	      "TERM/INT final report to the log file, clean up, exit.\n", f);
	fputs(BUILD_FULL ?
	      "Exit status: 0 ok, 1 runtime failure, 2 usage, 3 grew (--diff),\n"
	      "4 no privilege, 5 required tracepoint missing. See memtrace(8).\n" :
	      "Exit status: 0 ok, 1 runtime failure, 2 usage, 4 no privilege,\n"
	      "5 required tracepoint missing. See memtrace(8).\n", f);
	if (!BUILD_FULL)
		fputs("\nThis is " BUILD_NAME ", the boot build for initramfs images. The full\n"
		      "memtrace also has a live view, an event stream, a line per exiting\n"
		      "process, the comparison of two runs, a picture of memory over time\n"
		      "and metrics for Prometheus.\n", f);
}

/* A decimal in [min, max]; false (said in @err) otherwise. */
static bool num(const char *opt, const char *s, unsigned long min, unsigned long max,
		uint32_t *v, char *err, size_t errlen)
{
	unsigned long long x;
	char *end;

	errno = 0;
	if (!isdigit((unsigned char)*s)) {
		bad(err, errlen, "invalid value '%s' for %s: not a number", s, opt);
		return false;
	}
	/* unsigned long long: 2^32 is out of range, not "not a number", where long is 32 bits */
	x = strtoull(s, &end, 10);
	if (errno || *end) {
		bad(err, errlen, "invalid value '%s' for %s: not a number", s, opt);
		return false;
	}
	if (x < min || x > max) {
		bad(err, errlen, "invalid value '%s' for %s: must be %lu..%lu", s, opt, min, max);
		return false;
	}
	*v = (uint32_t)x;
	return true;
}

/* Seconds, decimal with up to 3 places, in [0.1, 86400]: milliseconds in @ms. */
static bool seconds(const char *opt, const char *s, uint32_t *ms, char *err, size_t errlen)
{
	unsigned long whole, frac = 0, scale = 100;
	const char *p = s;
	char *end;

	if (!isdigit((unsigned char)*p))
		goto bad_value;
	errno = 0;
	whole = strtoul(p, &end, 10);
	if (errno || whole > 86400)
		goto range;
	p = end;
	if (*p == '.') {
		for (p++; isdigit((unsigned char)*p); p++) {
			if (!scale)
				goto bad_value;	/* finer than a millisecond */
			frac += (unsigned long)(*p - '0') * scale;
			scale /= 10;
		}
	}
	if (*p)
		goto bad_value;
	if (whole * 1000 + frac < 100 || whole * 1000 + frac > 86400000)
		goto range;
	*ms = (uint32_t)(whole * 1000 + frac);
	return true;
bad_value:
	bad(err, errlen, "invalid value '%s' for %s: seconds, like 0.5 or 2", s, opt);
	return false;
range:
	bad(err, errlen, "invalid value '%s' for %s: must be 0.1..86400 seconds", s, opt);
	return false;
}

static bool instance_name_ok(const char *s)
{
	const char *p;

	for (p = s; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("._-", *p))
			return false;
	return *s && strlen(s) <= 60 && s[0] != '.';
}

/* -c: checked now (a usage error names the position), compiled again by the stream. */
static int add_cond(struct options *o, const char *arg, char *err, size_t errlen)
{
	static struct cond c;
	char msg[450];
	int i;

	if (o->nconds >= MAX_CONDS)
		return bad(err, errlen, "at most %d -c", MAX_CONDS);
	o->conds[o->nconds++] = arg;
	cond_init(&c);
	for (i = 0; i < o->nconds; i++) {
		if (cond_add(&c, o->conds[i], strlen(o->conds[i]), msg, sizeof(msg)))
			return bad(err, errlen, "-c '%.40s%s': %s", o->conds[i],
				   strlen(o->conds[i]) > 40 ? "..." : "", msg);
	}
	return OPT_RUN;
}

/*
 * --events pageAllocate,pageFree,memoryMap,memoryUnmap,pageFault,failed;
 * failed (the memory calls that failed, off by default) alone: every evt_type
 */
static int events_list(struct options *o, const char *arg, char *err, size_t errlen)
{
	static const char *const names[] = {
		"pageAllocate", "pageFree", "memoryMap", "memoryUnmap", "pageFault", "failed",
	};
	const char *p = arg;
	uint8_t mask = 0;

	while (*p) {
		size_t n = strcspn(p, ","), i;

		for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if (strlen(names[i]) == n && !strncmp(names[i], p, n))
				break;
		if (i == sizeof(names) / sizeof(names[0]))
			return bad(err, errlen, "invalid value '%.*s' for --events: use pageAllocate, "
				   "pageFree, memoryMap, memoryUnmap, pageFault, failed", (int)n, p);
		mask |= (uint8_t)(1u << i);
		p += n;
		if (*p == ',')
			p++;
	}
	if (!mask)
		return bad(err, errlen, "empty value for --events");
	if (mask == MT_EVT_FAILED)
		mask |= MT_EVT_ALL;
	o->stream_events = mask;
	return OPT_RUN;
}

/*
 * Where an option's value goes: the offset of a field of @type, checked (a
 * field of another type is a "distinct pointer types" diagnostic).
 */
#define FIELD(f, type)	(offsetof(struct options, f) + \
			 0 * sizeof(&((struct options *)0)->f == (type *)0))

static void *field(struct options *o, size_t off)
{
	return (char *)o + off;
}

/* Options that switch something on. */
static const struct flag_opt {
	int c;
	size_t field;		/* a bool */
} flag_opts[] = {
	{ OPT_DAEMON, FIELD(daemon, bool) },
	{ OPT_NO_SEED, FIELD(no_seed, bool) },
	{ OPT_BOOT_BUFFER, FIELD(boot_buffer, bool) },
	{ OPT_CRASHKERNEL, FIELD(crashkernel, bool) },
	{ OPT_EXITS, FIELD(exits, bool) },
	{ OPT_NO_WAIT, FIELD(no_wait, bool) },
	{ OPT_STACKS, FIELD(stacks, bool) },
	{ OPT_STREAM, FIELD(stream, bool) },
	{ OPT_ALL, FIELD(stream_all, bool) },
	{ OPT_DIFF, FIELD(diff, bool) },
};

/* Options that name a file or a directory: anything but empty. */
static const struct path_opt {
	int c;
	const char *name;
	size_t field;		/* a const char * */
} path_opts[] = {
	{ OPT_PIDFILE, "--pidfile", FIELD(pidfile, const char *) },
	{ OPT_RECORD, "--record", FIELD(record_dir, const char *) },
	{ OPT_REPLAY, "--replay", FIELD(replay_dir, const char *) },
	{ OPT_PROMETHEUS, "--prometheus", FIELD(prom_path, const char *) },
	{ OPT_SVG, "--svg", FIELD(svg_path, const char *) },
	{ OPT_JSON, "--json", FIELD(json_path, const char *) },
	{ OPT_SWITCH_ROOT, "--switch-root", FIELD(switch_root, const char *) },
};

/* Options that take a number in [min, max], as given. */
static const struct num_opt {
	int c;
	const char *name;
	unsigned long min, max;
	size_t field;		/* a uint32_t */
} num_opts[] = {
	{ 'n', "--rows", 0, UINT32_MAX, FIELD(rows, uint32_t) },
	{ OPT_MAX_MODULES, "--max-modules", 1, 1u << 16, FIELD(max_modules, uint32_t) },
	{ OPT_STACK_TOP, "--stack-top", 0, 1000, FIELD(stack_top, uint32_t) },
	{ OPT_KEEP_OOM, "--keep-oom", 0, 1000, FIELD(keep_oom, uint32_t) },
	{ OPT_COUNT, "--count", 1, UINT32_MAX, FIELD(count, uint32_t) },
	{ OPT_INTERVAL, "--interval", 1, MAX_INTERVAL_S, FIELD(interval_s, uint32_t) },
	{ OPT_QUEUE_SIZE, "--queue-size", 64, 1u << 20, FIELD(queue_kb, uint32_t) },
};

#define NOT_MINE	(-1)	/* an option the function does not handle */

/* The log file and how the reports look: -o, -f, --by, --kmsg[=LEVEL]. */
static int report_option(struct options *o, int c, const char *arg, char *err, size_t errlen)
{
	switch (c) {
	case 'o':
		if (!*arg)
			return bad(err, errlen, "empty value for --output");
		o->log_path = arg;
		o->output_set = true;
		return OPT_RUN;
	case 'f':
		if (!strcmp(arg, "text"))
			o->format = FMT_TEXT;
		else if (!strcmp(arg, "json"))
			o->format = FMT_JSON;
		else
			return bad(err, errlen, "invalid value '%s' for --format: use text or json",
				   arg);
		return OPT_RUN;
	case OPT_BY:
		if (!strcmp(arg, "process"))
			o->by_process = true;
		else if (!strcmp(arg, "task"))
			o->by_process = false;
		else
			return bad(err, errlen, "invalid value '%s' for --by: use task or process",
				   arg);
		return OPT_RUN;
	case OPT_FAIL_OVER: {
		struct diff_threshold t;

		/* (BUILD_FULL: the boot build refused it in left_out(), and links no diff/) */
		if (!BUILD_FULL || diff_threshold_parse(arg, &t, err, errlen) < 0)
			return OPT_ERROR;
		o->fail_over = arg;
		return OPT_RUN;
	}
	case OPT_KMSG:
		o->kmsg = true;
		if (arg && !num("--kmsg", arg, 0, 7, &o->kmsg_level, err, errlen))
			return OPT_ERROR;
		return OPT_RUN;
	default:
		return NOT_MINE;
	}
}

/* The instance and its tables: -b, --max-tasks, --max-stacks, --instance. */
static int tracing_option(struct options *o, int c, const char *arg, char *err, size_t errlen)
{
	uint32_t v;

	switch (c) {
	case 'b':
		if (!num("--buffer-size", arg, 16, 4u << 20, &v, err, errlen))
			return OPT_ERROR;
		o->buffer_kb = v;
		o->buffer_set = true;
		return OPT_RUN;
	case OPT_MAX_TASKS:
		if (!num("--max-tasks", arg, 8, 1u << 22, &v, err, errlen))
			return OPT_ERROR;
		o->max_tasks = v + SLOT_FIRST;	/* the pseudo tasks' slots besides */
		o->tables_set = true;
		return OPT_RUN;
	case OPT_MAX_STACKS:
		if (!num("--max-stacks", arg, 16, 1u << 22, &v, err, errlen))
			return OPT_ERROR;
		o->max_stacks = v;
		o->tables_set = true;
		return OPT_RUN;
	case OPT_INSTANCE:
		if (!instance_name_ok(arg))
			return bad(err, errlen, "invalid value '%s' for --instance: use letters, "
				   "digits, '.', '_' and '-'", arg);
		o->instance = arg;
		return OPT_RUN;
	default:
		return NOT_MINE;
	}
}

/* What a mode picks and how often: --pid and --comm (--exits), -c, --events, -d. */
static int pick_option(struct options *o, int c, const char *arg, char *err, size_t errlen)
{
	uint32_t v;

	switch (c) {
	case OPT_PID:
		if (o->npids >= MAX_FILTERS)
			return bad(err, errlen, "at most %d --pid", MAX_FILTERS);
		if (!num("--pid", arg, 1, INT32_MAX, &v, err, errlen))
			return OPT_ERROR;
		o->pids[o->npids++] = (int32_t)v;
		return OPT_RUN;
	case OPT_COMM:
		if (o->ncomms >= MAX_FILTERS)
			return bad(err, errlen, "at most %d --comm", MAX_FILTERS);
		if (!*arg || strlen(arg) >= COMM_LEN)
			return bad(err, errlen, "invalid value '%s' for --comm: 1 to %d bytes", arg,
				   COMM_LEN - 1);
		o->comms[o->ncomms++] = arg;
		return OPT_RUN;
	case 'c':	/* (as --fail-over: no core/cond.c in the boot build) */
		return BUILD_FULL ? add_cond(o, arg, err, errlen) : OPT_ERROR;
	case OPT_EVENTS:
		return events_list(o, arg, err, errlen);
	case 'd':
		return seconds("--delay", arg, &o->delay_ms, err, errlen) ? OPT_RUN : OPT_ERROR;
	default:
		return NOT_MINE;
	}
}

/* One option from getopt_long(), its value checked and stored; OPT_RUN to go on. */
static int set_option(struct options *o, int c, const char *arg, char *err, size_t errlen)
{
	size_t i;
	int res;

	for (i = 0; i < ARRAY_SIZE(flag_opts); i++) {
		if (flag_opts[i].c == c) {
			bool *on = field(o, flag_opts[i].field);

			*on = true;
			return OPT_RUN;
		}
	}
	for (i = 0; i < ARRAY_SIZE(path_opts); i++) {
		if (path_opts[i].c == c) {
			const char **path = field(o, path_opts[i].field);

			if (!*arg)
				return bad(err, errlen, "empty value for %s", path_opts[i].name);
			*path = arg;
			return OPT_RUN;
		}
	}
	for (i = 0; i < ARRAY_SIZE(num_opts); i++) {
		const struct num_opt *n = &num_opts[i];

		if (n->c == c)
			return num(n->name, arg, n->min, n->max, field(o, n->field), err, errlen) ?
			       OPT_RUN : OPT_ERROR;
	}
	res = report_option(o, c, arg, err, errlen);
	if (res == NOT_MINE)
		res = tracing_option(o, c, arg, err, errlen);
	if (res == NOT_MINE)
		res = pick_option(o, c, arg, err, errlen);
	if (res == NOT_MINE)
		return bad(err, errlen, "unexpected option");
	return res;
}

/* --stream and its options. */
static int stream_conflicts(struct options *o, char *err, size_t errlen)
{
	if (!o->stream) {
		if (o->nconds || o->stream_all || o->stream_events != MT_EVT_ALL ||
		    o->queue_kb != DEFAULT_QUEUE_KB)
			return bad(err, errlen, "-c, --all, --events and --queue-size need --stream");
		return OPT_RUN;
	}
	if (o->exits || o->replay_dir || o->record_dir || o->boot_buffer || o->stacks)
		return bad(err, errlen, "--stream takes no --exits, --replay, --record, "
			   "--boot-buffer or --stacks");
	if (o->stream_all && (o->nconds || o->command))
		return bad(err, errlen, "--all takes no -c and no COMMAND: it picks everything");
	if (!o->stream_all && !o->nconds && !o->command)
		return bad(err, errlen, "--stream needs -c COND, --all or a COMMAND: it picks no "
			   "process by itself");
	if (o->command && o->daemon)
		return bad(err, errlen, "a COMMAND takes no --daemon");
	if (o->no_wait && !o->command)
		return bad(err, errlen, "--no-wait needs a COMMAND (memtrace -- COMMAND)");
	if (o->npids || o->ncomms)
		return bad(err, errlen, "--pid and --comm need --exits (--stream picks with -c)");
	if (o->output_set)
		o->stream_path = o->log_path;
	o->log_path = DEFAULT_LOG;	/* USR2's reports; LOG_PATH may name it */
	return OPT_RUN;
}

/* Options that exclude each other: at most one mode is asked for. */
static int conflicts(struct options *o, char *err, size_t errlen)
{
	bool exits = o->exits;
	int res = stream_conflicts(o, err, errlen);

	if (res != OPT_RUN)
		return res;
	if (o->top) {
		if (o->command || exits || o->replay_dir || o->daemon || o->stream)
			return bad(err, errlen, "--top takes no COMMAND, --exits, --replay, --daemon "
				   "or --stream");
		if (!o->delay_ms)
			o->delay_ms = DEFAULT_DELAY_MS;
	} else if (o->delay_ms || o->count) {
		return bad(err, errlen, "--delay and --count need --top");
	}
	if ((o->crashkernel || o->switch_root) &&
	    (o->command || exits || o->replay_dir || o->top || o->stream))
		return bad(err, errlen, "%s is the daemon's (a capture kernel's memtrace): not with "
			   "a COMMAND, --exits, --replay, --top or --stream",
			   o->crashkernel ? "--crashkernel" : "--switch-root");
	if (o->switch_root && o->switch_root[0] != '/')
		return bad(err, errlen, "--switch-root %s: not an absolute path", o->switch_root);
	if (o->stream)
		return OPT_RUN;
	if (o->command) {
		if (o->replay_dir || o->daemon || exits || o->record_dir || o->boot_buffer)
			return bad(err, errlen, "a COMMAND takes no --replay, --daemon, --exits, "
				   "--record or --boot-buffer");
	} else if (o->no_wait) {
		return bad(err, errlen, "--no-wait needs a COMMAND (memtrace -- COMMAND)");
	}
	if ((o->npids || o->ncomms) && !exits)
		return bad(err, errlen, "--pid and --comm need --exits");
	if (exits && (o->replay_dir || o->daemon))
		return bad(err, errlen, "--exits takes no --replay or --daemon");
	return OPT_RUN;
}

/*
 * --prometheus and --interval: the daemon's outputs at intervals (the mode is
 * known by now). --interval means, per mode, what is written at each one.
 */
static int intervals(struct options *o, char *err, size_t errlen)
{
	bool daemon_mode = !o->command && !o->exits && !o->replay_dir && !o->top;

	if (o->svg_path && (o->stream || o->top || o->prom_path || o->exits))
		return bad(err, errlen, "--svg is for the daemon, a COMMAND and --replay (not with "
			   "--stream, --top, --exits or --prometheus)");
	if (o->svg_path && !strcmp(o->svg_path, o->log_path))
		return bad(err, errlen, "--svg FILE must not be the log file");
	if (o->json_path && (o->stream || o->top || o->prom_path || o->exits))
		return bad(err, errlen, "--json is the final report of the daemon, a COMMAND or "
			   "--replay, kept for --diff (--stream and --exits write no report of rows; "
			   "--top and --prometheus are for watching a run, not for keeping one)");
	if (o->json_path && (!strcmp(o->json_path, o->log_path) ||
			     (o->svg_path && !strcmp(o->json_path, o->svg_path))))
		return bad(err, errlen, "--json FILE must be neither the log file nor the --svg file");
	if (o->stream) {
		if (o->prom_path)
			return bad(err, errlen, "--prometheus is for the daemon (not with --stream)");
		return OPT_RUN;	/* --interval: a summary per process instead of events */
	}
	if (o->prom_path && !daemon_mode)
		return bad(err, errlen, "--prometheus is for the daemon (not with a COMMAND, "
			   "--exits, --replay or --top)");
	if (o->interval_s && !daemon_mode)
		return bad(err, errlen, "--interval is for the daemon (not with a COMMAND, "
			   "--exits, --replay or --top)");
	if (o->interval_s && !o->prom_path && o->format != FMT_JSON)
		return bad(err, errlen, "--interval needs --prometheus FILE, -f json or --stream");
	if (o->prom_path && !strcmp(o->prom_path, o->log_path))
		return bad(err, errlen, "--prometheus FILE must not be the log file");
	o->json_lines = o->interval_s && o->format == FMT_JSON;
	if (o->prom_path && !o->interval_s)
		o->interval_s = DEFAULT_INTERVAL_S;
	return OPT_RUN;
}

/*
 * A word that is not an option: TRACEFS_DIR, then LOG_PATH (kept in @pos, a
 * third for the message). A number right @after_top is the rows of old
 * (--top N, now -n N), never a directory.
 */
static int positional(const char *w, bool after_top, const char **pos, int *npos, char *err,
		      size_t errlen)
{
	if (after_top && *w && strspn(w, "0123456789") == strlen(w))
		return bad(err, errlen, "--top takes no number: rows are -n %s", w);
	if (*npos < 3)
		pos[(*npos)++] = w;
	return OPT_RUN;
}

/* What getopt_long() refused in @word: an unknown option, or a value missing or not wanted. */
static int unknown(const char *word, char *err, size_t errlen)
{
	const struct option *l, *hit = NULL;
	size_t n;
	int hits = 0;

	if (strncmp(word, "--", 2)) {
		if (optopt && optopt < 256)
			return bad(err, errlen, "option -%c %s", optopt,
				   strchr("obfndc", optopt) ? "requires a value" : "is unknown");
		return bad(err, errlen, "unknown option '%s'", word);
	}
	/* the long option it names: exactly, else a unique prefix, as getopt_long() takes it */
	n = strcspn(word + 2, "=");
	for (l = longopts; l->name; l++) {
		if (strncmp(l->name, word + 2, n))
			continue;
		if (strlen(l->name) == n) {
			hit = l;
			hits = 1;
			break;
		}
		hit = l;
		hits++;
	}
	if (hits > 1)
		return bad(err, errlen, "ambiguous option '%.*s': more than one option begins so",
			   (int)n + 2, word);
	if (!hits)
		return bad(err, errlen, "unknown option '%.*s'", (int)n + 2, word);
	if (hit->has_arg == no_argument)
		return bad(err, errlen, "--%s takes no value", hit->name);
	return bad(err, errlen, "--%s needs a value", hit->name);
}

static void defaults(struct options *o)
{
	memset(o, 0, sizeof(*o));
	o->log_path = DEFAULT_LOG;
	o->buffer_kb = DEFAULT_BUFFER_KB;
	o->rows = DEFAULT_TOP;
	o->kmsg_level = 6;
	o->max_tasks = DEFAULT_MAX_TASKS;
	o->max_modules = DEFAULT_MAX_MODULES;
	o->keep_oom = DEFAULT_KEEP_OOM;
	o->max_stacks = DEFAULT_MAX_STACKS;
	o->stack_top = DEFAULT_STACK_TOP;
	o->stream_events = MT_EVT_ALL;
	o->queue_kb = DEFAULT_QUEUE_KB;
}

/*
 * The words of the command line, GNU style, options anywhere before "--":
 * '+' stops getopt at each word that is not an option, which is taken here as
 * TRACEFS_DIR or LOG_PATH (into @pos, *@npos of them), and the scan goes on
 * after it. argv is never permuted (whatever POSIXLY_CORRECT says), and "--"
 * ends the options: the COMMAND's words after it are its own (memtrace -- cmd
 * -o x passes -o to cmd). OPT_RUN, or what ends the parse.
 */
static int scan(struct options *o, int argc, char **argv, const char **pos, int *npos,
		char *err, size_t errlen)
{
	int c, res, done = 1;	/* done: argv[] before it are taken */
	int last = 0;		/* the option in the word just before */

	opterr = 0;
	optind = 0;	/* glibc: a full new scan, so that tests may parse again */
	for (;;) {
		c = getopt_long(argc, argv, "+o:b:f:n:d:c:hV", longopts, NULL);
		if (c == -1) {
			/* "--" itself, not the value of an option before it (-o --) */
			if (optind > done && !strcmp(argv[optind - 1], "--")) {
				if (optind >= argc)
					return bad(err, errlen, "'--' must be followed by a COMMAND");
				o->command = argv + optind;
				return OPT_RUN;
			}
			if (optind >= argc)
				return OPT_RUN;
			res = positional(argv[optind], last == OPT_TOP && done == optind, pos,
					 npos, err, errlen);
			if (res != OPT_RUN)
				return res;
			done = ++optind;
			last = 0;
			continue;
		}
		done = optind;
		last = c;
		res = left_out(c, err, errlen);
		if (res != OPT_RUN)
			return res;
		switch (c) {
		case 'h':
			return OPT_HELP;
		case 'V':
			return OPT_VERSION;
		case '?':
			return unknown(argv[optind - 1], err, errlen);
		case OPT_TOP:
			/* the rows were --top N once: -n N now, and --top only the live view */
			if (optarg)
				return bad(err, errlen, isdigit((unsigned char)*optarg) ?
					   "--top takes no number: rows are -n %s" :
					   "--top takes no value: '%s'", optarg);
			o->top = true;
			break;
		default:
			res = set_option(o, c, optarg, err, errlen);
			if (res != OPT_RUN)
				return res;
		}
	}
}

/* --diff OLD NEW: the two words, and nothing that is not --diff's. */
static int diff_words(struct options *o, const char **pos, int npos, char *err, size_t errlen)
{
	if (npos != 2)
		return bad(err, errlen, "--diff needs OLD and NEW: two JSON reports or "
			   "recordings");
	if (o->command || o->replay_dir || o->record_dir || o->daemon || o->exits ||
	    o->top || o->stream || o->boot_buffer || o->stacks || o->output_set ||
	    o->prom_path || o->interval_s || o->by_process || o->pidfile || o->kmsg ||
	    o->json_path || o->svg_path)
		return bad(err, errlen, "--diff takes only OLD NEW, -f, -n and --fail-over");
	o->diff_old = pos[0];
	o->diff_new = pos[1];
	return OPT_RUN;
}

int options_parse(struct options *o, int argc, char **argv, char *err, size_t errlen)
{
	const char *pos[3] = { NULL };	/* TRACEFS_DIR, LOG_PATH, one too many */
	int res, npos = 0;

	defaults(o);
	err[0] = '\0';
	res = scan(o, argc, argv, pos, &npos, err, errlen);
	if (res != OPT_RUN)
		return res;
	/*
	 * --stacks: each allocation also writes its stack (about 150 bytes with
	 * the usual 15 frames, to mm_page_alloc's 40): the default buffer holds
	 * twice as much time (bench/stacks.py: 0 lost at 4096 KiB where 2048
	 * lost under a concurrent storm).
	 */
	if (o->stacks && !o->buffer_set)
		o->buffer_kb = DEFAULT_STACKS_BUFFER_KB;
	res = conflicts(o, err, errlen);
	if (res != OPT_RUN)
		return res;
	if (npos > 2)
		return bad(err, errlen, "too many arguments: '%s'", pos[2]);
	if (o->fail_over && !o->diff)
		return bad(err, errlen, "--fail-over needs --diff");
	if (o->diff)
		return diff_words(o, pos, npos, err, errlen);
	if (npos && o->command)
		return bad(err, errlen, "a COMMAND takes no TRACEFS_DIR or LOG_PATH ('%s'): the "
			   "options go before --, the COMMAND after it", pos[0]);
	if (npos > 0)
		o->tracefs_dir = pos[0];
	if (npos > 1) {
		if (!*pos[1])
			return bad(err, errlen, "empty LOG_PATH");
		o->log_path = pos[1];
	}
	if (o->replay_dir && (o->record_dir || o->daemon || o->tracefs_dir || o->boot_buffer))
		return bad(err, errlen, "--replay takes no --record, --daemon, --boot-buffer or "
			   "TRACEFS_DIR");
	if (o->pidfile && !o->daemon)
		return bad(err, errlen, "--pidfile needs --daemon");
	return intervals(o, err, errlen);
}
