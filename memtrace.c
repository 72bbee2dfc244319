// SPDX-License-Identifier: GPL-2.0-only
/* memtrace.c - options, setup, the main loop, reports on signals, record and replay */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "boot.h"
#include "event.h"
#include "format.h"
#include "logfile.h"
#include "proc.h"
#include "reader.h"
#include "record.h"
#include "report.h"
#include "stats.h"
#include "tracefs.h"
#include "util.h"

enum {
	EXIT_OK = 0,
	EXIT_RUNTIME = 1,
	EXIT_USAGE = 2,
	EXIT_PRIV = 4,
	EXIT_NOEVENT = 5,
};

#define DEFAULT_LOG		"/tmp/mem_debug_log"
#define DEFAULT_INSTANCE	"memtrace"
#define DEFAULT_BUFFER_KB	2048
#define DEFAULT_TOP		30
#define DEFAULT_MAX_TASKS	16384
#define DEFAULT_MAX_MODULES	1024
#define REPLAY_MAX_PFN		(1ull << 26)	/* 256 GiB of 4 KiB pages when not recorded */
#define BUFFER_PERCENT		50
#define POLL_MS			100
#define BATCH			65536
#define BOOT_MAX_PAGES		16384		/* per CPU, when buffer_size_kb is unreadable */
#define BOOT_MAX_NS		2000000000ull	/* --boot-buffer reads for at most 2 s */
#define READY_TIMEOUT_MS	30000		/* --daemon: the parent gives up after this */
#define MAX_FILTERS		64
#define EXIT_RING		4096		/* --exits: process exits queued per batch */
#define EXIT_EXEC		127		/* command mode: COMMAND could not be run */

enum {
	OPT_MAX_TASKS = 256, OPT_MAX_MODULES, OPT_DAEMON, OPT_PIDFILE, OPT_REPLAY,
	OPT_RECORD, OPT_INSTANCE, OPT_NO_SEED, OPT_KMSG, OPT_BOOT_BUFFER, OPT_EXITS, OPT_PID,
	OPT_COMM, OPT_BY, OPT_NO_WAIT,
};

struct options {
	const char *tracefs_dir;
	const char *log_path;
	const char *pidfile;
	const char *replay_dir;
	const char *record_dir;
	const char *instance;
	unsigned buffer_kb;
	enum report_format format;
	uint32_t top;
	uint32_t max_tasks;
	uint32_t max_modules;
	bool daemon;
	bool no_seed;
	bool kmsg;
	bool boot_buffer;
	bool output_set;		/* -o given */
	bool by_process;		/* --by process */
	char **command;			/* -- COMMAND [ARGS...] */
	bool no_wait;
	bool exits;			/* --exits monitor */
	int32_t pids[MAX_FILTERS];	/* --exits --pid */
	int npids;
	const char *comms[MAX_FILTERS];	/* --exits --comm */
	int ncomms;
};

/* Everything the run needs, allocated once at start. */
struct run {
	struct options opt;
	struct tracefs tf;
	struct mt_decoder dec;
	struct reader rd;
	struct stats st;
	struct meta meta;
	uint32_t *order;
	uint32_t *threads;		/* report scratch, per task slot */
	int64_t *pages;			/* report scratch, per task slot */
	const char *enabled[64];
	const char *missing[64];
	const char *missing_loss[64];
	int nenabled, nmissing;
	uint32_t seed_tasks;
	uint64_t seed_pages;
	int sfd;
	int *rec_fds;
	const char *mode;
	bool tracefs_up;
	long teardown_delay_ms;
	long setup_delay_ms;		/* test hook: a slow setup (MEMTRACE_TEST_SETUP_DELAY_MS) */
	long ready_timeout_ms;		/* --daemon parent's wait; test hook may shorten it */
};

static struct run R;
/* --daemon: the child writes its exit code (0: tracing is live) to the waiting parent */
static int daemon_pipe[2] = { -1, -1 };

__attribute__((noreturn, format(printf, 2, 3)))
static void usage_error(int code, const char *fmt, ...)
{
	va_list ap;

	fputs("memtrace: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\nTry 'memtrace --help' for more information.\n", stderr);
	exit(code);
}

static void usage(void)
{
	printf("Usage: memtrace [OPTIONS] [TRACEFS_DIR [LOG_PATH]]\n"
	       "       memtrace [OPTIONS] -- COMMAND [ARGS...]\n"
	       "       memtrace --exits [--pid N]... [--comm NAME]... [OPTIONS]\n"
	       "       memtrace --replay DIR [OPTIONS]\n"
	       "       memtrace --record DIR [OPTIONS] [TRACEFS_DIR [LOG_PATH]]\n"
	       "Trace page allocations and report per-task and per-module peak memory.\n"
	       "With a COMMAND: run it, report the peak of its whole process tree (to\n"
	       "stderr, or -o FILE) and exit with its status.\n"
	       "\n"
	       "  -o, --output FILE       log file for SIGUSR2/SIGTERM/oom reports\n"
	       "                          (default " DEFAULT_LOG ")\n"
	       "  -b, --buffer-size KB    ring buffer per CPU in KiB (default %d)\n"
	       "  -f, --format FMT        report format: text or json (default text)\n"
	       "  -n, --top N             task rows, 0 = all (default %d); all modules\n"
	       "      --max-tasks N       task table size (default %d)\n"
	       "      --max-modules N     module table size (default %d)\n"
	       "      --instance NAME     tracefs instance name (default " DEFAULT_INSTANCE ")\n"
	       "      --daemon            fork; return once tracing is live\n"
	       "      --pidfile FILE      write the daemon's pid to FILE\n"
	       "      --record DIR        also save raw buffers and format files in DIR\n"
	       "      --replay DIR        report on a recorded trace and exit\n"
	       "      --no-seed           do not seed running tasks from /proc/PID/statm\n"
	       "      --kmsg              also a short summary to /dev/kmsg at the end\n"
	       "      --boot-buffer       first read the module loads the kernel recorded\n"
	       "                          at boot (trace_event=module:...) from the top-level\n"
	       "                          buffer; this empties that buffer\n"
	       "      --by process        reports list processes (threads summed), not tasks\n"
	       "      --no-wait           COMMAND: stop when it exits, not when its\n"
	       "                          descendants are gone too\n"
	       "      --exits             print a line per exiting process, until TERM/INT\n"
	       "      --pid N, --comm NAME  --exits: only these processes (may repeat)\n"
	       "  -h, --help              show this help and exit\n"
	       "  -V, --version           show the version and exit\n"
	       "\n"
	       "Signals: USR1 report to stdout; USR2 report to the log file;\n"
	       "TERM/INT final report to the log file, clean up, exit.\n"
	       "Exit status: 0 ok, 1 runtime failure, 2 usage, 4 no privilege,\n"
	       "5 required tracepoint missing. See memtrace(8).\n",
	       DEFAULT_BUFFER_KB, DEFAULT_TOP, DEFAULT_MAX_TASKS, DEFAULT_MAX_MODULES);
}

static uint32_t parse_num(const char *opt, const char *s, unsigned long min, unsigned long max)
{
	unsigned long v;
	char *end;

	errno = 0;
	if (!isdigit((unsigned char)*s))
		usage_error(EXIT_USAGE, "invalid value '%s' for %s: not a number", s, opt);
	v = strtoul(s, &end, 10);
	if (errno || *end)
		usage_error(EXIT_USAGE, "invalid value '%s' for %s: not a number", s, opt);
	if (v < min || v > max)
		usage_error(EXIT_USAGE, "invalid value '%s' for %s: must be %lu..%lu", s, opt,
			    min, max);
	return (uint32_t)v;
}

static void parse_options(int argc, char **argv, struct options *o)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "buffer-size", required_argument, NULL, 'b' },
		{ "format", required_argument, NULL, 'f' },
		{ "top", required_argument, NULL, 'n' },
		{ "max-tasks", required_argument, NULL, OPT_MAX_TASKS },
		{ "max-modules", required_argument, NULL, OPT_MAX_MODULES },
		{ "instance", required_argument, NULL, OPT_INSTANCE },
		{ "daemon", no_argument, NULL, OPT_DAEMON },
		{ "pidfile", required_argument, NULL, OPT_PIDFILE },
		{ "record", required_argument, NULL, OPT_RECORD },
		{ "replay", required_argument, NULL, OPT_REPLAY },
		{ "no-seed", no_argument, NULL, OPT_NO_SEED },
		{ "kmsg", no_argument, NULL, OPT_KMSG },
		{ "boot-buffer", no_argument, NULL, OPT_BOOT_BUFFER },
		{ "exits", no_argument, NULL, OPT_EXITS },
		{ "pid", required_argument, NULL, OPT_PID },
		{ "comm", required_argument, NULL, OPT_COMM },
		{ "by", required_argument, NULL, OPT_BY },
		{ "no-wait", no_argument, NULL, OPT_NO_WAIT },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	const char *p;
	int c;

	memset(o, 0, sizeof(*o));
	o->log_path = DEFAULT_LOG;
	o->instance = DEFAULT_INSTANCE;
	o->buffer_kb = DEFAULT_BUFFER_KB;
	o->top = DEFAULT_TOP;
	o->max_tasks = DEFAULT_MAX_TASKS;
	o->max_modules = DEFAULT_MAX_MODULES;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+o:b:f:n:hV", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			if (!*optarg)
				usage_error(EXIT_USAGE, "empty value for --output");
			o->log_path = optarg;
			o->output_set = true;
			break;
		case 'b':
			o->buffer_kb = parse_num("--buffer-size", optarg, 16, 4u << 20);
			break;
		case 'f':
			if (!strcmp(optarg, "text"))
				o->format = FMT_TEXT;
			else if (!strcmp(optarg, "json"))
				o->format = FMT_JSON;
			else
				usage_error(EXIT_USAGE, "invalid value '%s' for --format: "
					    "use text or json", optarg);
			break;
		case 'n':
			o->top = parse_num("--top", optarg, 0, UINT32_MAX);
			break;
		case OPT_MAX_TASKS:
			o->max_tasks = parse_num("--max-tasks", optarg, 8, 1u << 22) + SLOT_FIRST;
			break;
		case OPT_MAX_MODULES:
			o->max_modules = parse_num("--max-modules", optarg, 1, 1u << 16);
			break;
		case OPT_INSTANCE:
			for (p = optarg; *p; p++)
				if (!isalnum((unsigned char)*p) && !strchr("._-", *p))
					break;
			if (!*optarg || *p || strlen(optarg) > 60 || optarg[0] == '.')
				usage_error(EXIT_USAGE, "invalid value '%s' for --instance: use "
					    "letters, digits, '.', '_' and '-'", optarg);
			o->instance = optarg;
			break;
		case OPT_DAEMON:
			o->daemon = true;
			break;
		case OPT_PIDFILE:
			if (!*optarg)
				usage_error(EXIT_USAGE, "empty value for --pidfile");
			o->pidfile = optarg;
			break;
		case OPT_RECORD:
			if (!*optarg)
				usage_error(EXIT_USAGE, "empty value for --record");
			o->record_dir = optarg;
			break;
		case OPT_REPLAY:
			if (!*optarg)
				usage_error(EXIT_USAGE, "empty value for --replay");
			o->replay_dir = optarg;
			break;
		case OPT_NO_SEED:
			o->no_seed = true;
			break;
		case OPT_KMSG:
			o->kmsg = true;
			break;
		case OPT_BOOT_BUFFER:
			o->boot_buffer = true;
			break;
		case OPT_EXITS:
			o->exits = true;
			break;
		case OPT_PID:
			if (o->npids >= MAX_FILTERS)
				usage_error(EXIT_USAGE, "at most %d --pid", MAX_FILTERS);
			o->pids[o->npids++] = (int32_t)parse_num("--pid", optarg, 1, INT32_MAX);
			break;
		case OPT_COMM:
			if (o->ncomms >= MAX_FILTERS)
				usage_error(EXIT_USAGE, "at most %d --comm", MAX_FILTERS);
			if (!*optarg || strlen(optarg) >= COMM_LEN)
				usage_error(EXIT_USAGE, "invalid value '%s' for --comm: 1 to %d "
					    "bytes", optarg, COMM_LEN - 1);
			o->comms[o->ncomms++] = optarg;
			break;
		case OPT_BY:
			if (!strcmp(optarg, "process"))
				o->by_process = true;
			else if (!strcmp(optarg, "task"))
				o->by_process = false;
			else
				usage_error(EXIT_USAGE, "invalid value '%s' for --by: use task or "
					    "process", optarg);
			break;
		case OPT_NO_WAIT:
			o->no_wait = true;
			break;
		case 'h':
			usage();
			exit(EXIT_OK);
		case 'V':
			printf("memtrace %s\n", MEMTRACE_VERSION);
			exit(EXIT_OK);
		case '?':
			if (!strncmp(argv[optind - 1], "--", 2))
				usage_error(EXIT_USAGE, "unknown option, or a value where none "
					    "belongs or none where one does: '%s'", argv[optind - 1]);
			if (optopt && optopt < 256)
				usage_error(EXIT_USAGE, "option -%c %s", optopt,
					    strchr("obfn", optopt) ? "requires a value" :
					    "is unknown");
			usage_error(EXIT_USAGE, "unknown option or missing value: '%s'",
				    argv[optind - 1]);
		default:
			usage_error(EXIT_USAGE, "unexpected option");
		}
	}
	/* "--" ends the options: what follows is the command */
	if (optind > 1 && !strcmp(argv[optind - 1], "--")) {
		if (optind >= argc)
			usage_error(EXIT_USAGE, "'--' must be followed by a COMMAND");
		o->command = argv + optind;
		optind = argc;
		if (o->replay_dir || o->daemon || o->exits || o->record_dir || o->boot_buffer)
			usage_error(EXIT_USAGE, "a COMMAND takes no --replay, --daemon, --exits, "
				    "--record or --boot-buffer");
	} else if (o->no_wait) {
		usage_error(EXIT_USAGE, "--no-wait needs a COMMAND (memtrace -- COMMAND)");
	}
	if ((o->npids || o->ncomms) && !o->exits)
		usage_error(EXIT_USAGE, "--pid and --comm need --exits");
	if (o->exits && (o->replay_dir || o->daemon))
		usage_error(EXIT_USAGE, "--exits takes no --replay or --daemon");
	if (optind < argc)
		o->tracefs_dir = argv[optind++];
	if (optind < argc) {
		if (!*argv[optind])
			usage_error(EXIT_USAGE, "empty LOG_PATH");
		o->log_path = argv[optind++];
	}
	if (optind < argc)
		usage_error(EXIT_USAGE, "too many arguments: '%s'", argv[optind]);
	if (o->replay_dir && (o->record_dir || o->daemon || o->tracefs_dir || o->boot_buffer))
		usage_error(EXIT_USAGE, "--replay takes no --record, --daemon, --boot-buffer or "
			    "TRACEFS_DIR");
	if (o->pidfile && !o->daemon)
		usage_error(EXIT_USAGE, "--pidfile needs --daemon");
}

/* ---------------------------------------------------------------- setup -- */

static long status_kib(const char *key)
{
	char buf[4096], *p;
	ssize_t n = read_file("/proc/self/status", buf, sizeof(buf));

	if (n <= 0 || !(p = strstr(buf, key)))
		return -1;
	return strtol(p + strlen(key), NULL, 10);
}

static void fill_report(struct report_input *in, const char *trigger)
{
	struct timespec ts;

	memset(in, 0, sizeof(*in));
	in->trigger = trigger;
	in->mode = R.mode;
	in->format = R.opt.format;
	in->top = R.opt.top;
	if (R.opt.replay_dir) {
		in->uptime_s = R.meta.uptime_s ? R.meta.uptime_s : (double)R.st.last_ts / 1e9;
		in->tracefs = R.opt.replay_dir;
		in->instance = "";
		in->self_rss_kib = in->self_hwm_kib = in->self_map_kib = -1;
	} else {
		clock_gettime(CLOCK_BOOTTIME, &ts);
		in->uptime_s = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
		in->tracefs = R.tf.root;
		in->instance = R.tf.top_level ? "" : R.tf.name;
		in->self_rss_kib = status_kib("VmRSS:");
		in->self_hwm_kib = status_kib("VmHWM:");
		in->self_map_kib = stats_map_resident_kib(&R.st);
	}
	memcpy(in->enabled, R.enabled, sizeof(R.enabled));
	in->nenabled = R.nenabled;
	memcpy(in->missing, R.missing, sizeof(R.missing));
	memcpy(in->missing_loss, R.missing_loss, sizeof(R.missing_loss));
	in->nmissing = R.nmissing;
	in->page_size = R.meta.page_size;
	in->rd = &R.rd;
	in->st = &R.st;
	in->lost_events = reader_lost(&R.rd);
	in->missed_unknown = reader_missed_unknown(&R.rd);
	in->seed_tasks = R.seed_tasks;
	in->seed_pages = R.seed_pages;
	in->threads = R.threads;
	in->pages = R.pages;
	in->by_process = R.opt.by_process;
	in->boot = R.meta.boot_used ? &R.meta.boot : NULL;
	in->extra = R.meta.extra;
	in->nextra = R.meta.nextra;
	in->extra_dropped = R.meta.extra_dropped;
	in->order = R.order;
}

/* Process and parent of a task first seen by its page events, from /proc. */
static void read_ids(struct mt_task *t)
{
	char path[64], buf[2048], *p, *q;

	snprintf(path, sizeof(path), "/proc/%d/status", t->tid);
	if (read_file(path, buf, sizeof(buf)) <= 0)
		return;
	p = strstr(buf, "\nTgid:");
	q = strstr(buf, "\nPPid:");
	if (!p || !q)
		return;
	t->tgid = (int32_t)strtol(p + 6, NULL, 10);
	t->ppid = (int32_t)strtol(q + 6, NULL, 10);
}

/* Just before tracing begins: every module loaded now is "before". */
static void module_before(void *p, const struct proc_module *pm)
{
	struct mt_module *m;

	(void)p;
	if (pm->loading)
		return;	/* its load may still be traced; if not, it shows as untraced */
	m = stats_module_present(&R.st, pm->name, pm->name_len);
	if (m && m->state == MOD_BEFORE && !m->static_known) {
		m->static_kib = (pm->size + 1023) / 1024;	/* /sys may say more later */
		m->static_known = 1;
	}
}

/* At report time: modules the kernel has that the table does not know (untraced). */
static void module_untraced(void *p, const struct proc_module *pm)
{
	bool skip_loading = *(bool *)p;
	struct mt_module *x;

	/* a load in progress whose module_load we have not read yet */
	if (pm->loading && skip_loading)
		return;
	if (stats_module_live(&R.st, pm->name, pm->name_len))
		return;
	if (R.meta.nextra >= R.meta.extra_cap) {
		R.meta.extra_dropped++;
		return;
	}
	x = &R.meta.extra[R.meta.nextra++];
	memset(x, 0, sizeof(*x));
	memcpy(x->name, pm->name, pm->name_len);	/* < MODNAME_LEN: parser checked */
	x->name[pm->name_len] = '\0';
	x->state = MOD_UNTRACED;
	x->static_kib = (pm->size + 1023) / 1024;
	x->static_known = 1;
}

/* Live only: per-CPU loss counters, names of tasks seen only by pid, module sizes. */
static void refresh_live(void)
{
	bool skip_loading = stats_module_unnamed_open(&R.st);
	uint32_t i, bad = 0;
	uint64_t kib;
	int c;

	if (R.opt.replay_dir)
		return;
	/* every module the kernel has now is listed, traced or not */
	R.meta.nextra = R.meta.extra_dropped = 0;
	if (proc_modules("/proc", module_untraced, &skip_loading, &bad) >= 0 && bad)
		fprintf(stderr, "memtrace: %u malformed lines in /proc/modules skipped\n", bad);
	for (i = 0; i < R.meta.nextra; i++)
		if (!sys_module_kib("/sys", R.meta.extra[i].name, &kib))
			R.meta.extra[i].static_kib = kib;
	for (c = 0; c < R.rd.ncpus; c++) {
		uint64_t lost;

		if (R.tf.fds && !tracefs_cpu_lost(&R.tf, c, &lost))
			R.rd.cpus[c].stats_lost = lost;
	}
	for (i = SLOT_FIRST; i < R.st.ntasks_used; i++) {
		struct mt_task *t = &R.st.tasks[i];
		char comm[64];
		size_t len;

		if (t->state != TASK_ALIVE || t->peak <= 0)
			continue;
		if (!(t->flags & TF_COMM_KNOWN) &&
		    !proc_read_comm("/proc", t->tid, comm, sizeof(comm), &len))
			stats_set_comm(t, comm, len);
		if (!t->tgid)
			read_ids(t);
	}
	for (i = 0; i < R.st.nmods; i++) {
		struct mt_module *m = &R.st.mods[i];

		if (m->name[0] && m->state != MOD_UNLOADED &&
		    !sys_module_kib("/sys", m->name, &kib)) {
			m->static_kib = kib;
			m->static_known = 1;
		}
	}
}

struct gen_ctx {
	const char *trigger;
};

static void gen_report(struct out *o, void *p)
{
	struct gen_ctx *g = p;
	static struct report_input in;

	fill_report(&in, g->trigger);
	report_write(o, &in);
}

static void report_stdout(const char *trigger)
{
	static struct out o;
	struct gen_ctx g = { trigger };

	out_init(&o, STDOUT_FILENO);
	gen_report(&o, &g);
	if (out_flush(&o))
		fprintf(stderr, "memtrace: writing the report to stdout: %s\n", strerror(-o.err));
}

static int report_log(const char *trigger)
{
	struct gen_ctx g = { trigger };
	char err[PATH_MAX + 128];
	int e = logfile_write(R.opt.log_path, gen_report, &g, err, sizeof(err));

	if (e)
		fprintf(stderr, "memtrace: %s (report kept in memory; still tracing)\n", err);
	return e;
}

/*
 * A "<level>text\n" line to the kernel log; to stderr (level prefix dropped)
 * when /dev/kmsg cannot be opened (a sandbox, a container), so it is not lost.
 */
static void kmsg_line(const char *line)
{
	/* one open per line: the kernel rate-limits per open file */
	int fd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC | O_NOCTTY);

	if (fd < 0) {
		const char *text = line;

		if (text[0] == '<' && text[1] && text[2] == '>')
			text += 3;
		fputs(text, stderr);
		return;
	}
	if (write_all(fd, line, strlen(line)))
		fprintf(stderr, "memtrace: /dev/kmsg: %s\n", strerror(errno));
	close(fd);
}

static void report_oom(void)
{
	char line[256], name[4 * COMM_LEN + 1];
	size_t i, j = 0;

	R.st.oom_pending = false;
	refresh_live();
	report_log("oom");
	for (i = 0; R.st.oom_comm[i] && j + 4 < sizeof(name); i++) {
		unsigned char ch = (unsigned char)R.st.oom_comm[i];

		name[j++] = (ch >= 0x20 && ch < 0x7f) ? (char)ch : '?';
	}
	name[j] = '\0';
	snprintf(line, sizeof(line), "<4>memtrace: oom kill of pid %d (%s); report in %s\n",
		 R.st.oom_pid, name, R.opt.log_path);
	kmsg_line(line);
}

static void kmsg_emit(void *ctx, const char *line)
{
	char buf[600];

	(void)ctx;
	snprintf(buf, sizeof(buf), "<6>%s\n", line);
	kmsg_line(buf);
}

/* The final report's summary on /dev/kmsg, for consoles and dmesg. */
static void report_kmsg(const char *trigger, bool logged)
{
	static struct report_input in;

	fill_report(&in, trigger);
	report_summary(&in, logged ? R.opt.log_path : "(none: the log file could not be written)",
		       5, kmsg_emit, NULL);
}

static void sink(void *ctx, const struct mt_event *ev)
{
	stats_apply(ctx, ev);
}

/* Register the format of every known tracepoint found under @events_dir's reader. */
typedef ssize_t (*format_reader)(const char *sys, const char *name, char *buf, size_t size);

static const char *replay_dir_for_formats;

static ssize_t replay_format(const char *sys, const char *name, char *buf, size_t size)
{
	char p[PATH_MAX];

	if (path_fmt(p, sizeof(p), "%s/events/%s/%s/format", replay_dir_for_formats, sys, name))
		return -ENAMETOOLONG;
	return read_file(p, buf, size);
}

static ssize_t live_format(const char *sys, const char *name, char *buf, size_t size)
{
	return tracefs_read_format(&R.tf, sys, name, buf, size);
}

/*
 * Parse and register every tracepoint of the table; enable it when live.
 * Return: 0, or an exit code.
 */
static int setup_events(format_reader rdfmt, bool live)
{
	static char text[65536];
	static struct fmt_event fe;
	static char names[64][96];
	const struct mt_tracepoint *tp;
	char err[256];
	int i = 0;

	decoder_init(&R.dec);
	for (tp = mt_tracepoints; tp->system; tp++, i++) {
		ssize_t n = rdfmt(tp->system, tp->name, text, sizeof(text));
		const char *bad_fmt = NULL;
		bool ok = false;
		int e;

		snprintf(names[i], sizeof(names[i]), "%s:%s", tp->system, tp->name);
		if (n > 0) {
			snprintf(fe.system, sizeof(fe.system), "%s", tp->system);
			if (fmt_parse_event(&fe, text, (size_t)n, err, sizeof(err)))
				bad_fmt = "bad format file";
			else if (decoder_add(&R.dec, tp, &fe, err, sizeof(err)))
				bad_fmt = "unusable format";
			else
				ok = true;
		}
		if (ok && live) {
			e = tracefs_enable(&R.tf, tp->system, tp->name);
			if (e) {
				fprintf(stderr, "memtrace: cannot enable %s: %s\n", names[i],
					strerror(-e));
				if (e == -EACCES || e == -EPERM)
					return EXIT_PRIV;
				ok = false;
			}
		}
		if (ok) {
			R.enabled[R.nenabled++] = names[i];
			if (tp->kind == EV_RENAME)
				R.meta.rename_events = true;
			continue;
		}
		if (tp->need == NEED_REQUIRED) {
			if (bad_fmt)	/* err names the event already */
				fprintf(stderr, "memtrace: required tracepoint %s: %s\n",
					bad_fmt, err);
			else if (live)
				fprintf(stderr, "memtrace: required tracepoint %s is missing (kernel "
					"without page-allocator tracepoints?)\n", names[i]);
			else
				fprintf(stderr, "memtrace: required tracepoint %s is missing in the "
					"recording\n", names[i]);
			return EXIT_NOEVENT;
		}
		if (bad_fmt)
			fprintf(stderr, "memtrace: %s: %s\n", bad_fmt, err);
		/* one warning per missing event group is enough; the report lists all */
		if (!R.nmissing || strcmp(R.missing_loss[R.nmissing - 1], tp->loss))
			if (live && !((R.opt.command || R.opt.exits) && tp->kind >= EV_MOD_LOAD &&
				      tp->kind <= EV_MODSYS_EXIT))
				fprintf(stderr, "memtrace: warning: %s not available: no %s\n",
					names[i], tp->loss);
		R.missing[R.nmissing] = names[i];
		R.missing_loss[R.nmissing++] = tp->loss;
	}
	return 0;
}

static bool have_event(const char *name)
{
	int i;

	for (i = 0; i < R.nenabled; i++)
		if (!strcmp(R.enabled[i], name))
			return true;
	return false;
}

static int setup_stats(uint64_t max_pfn)
{
	struct stats_config cfg = {
		.max_tasks = R.opt.max_tasks,
		.max_modules = R.opt.max_modules,
		.max_pfn = max_pfn,
		.initmod_start = R.meta.initmod_start,
		.initmod_end = R.meta.initmod_end,
		.rename_events = R.meta.rename_events,
		.exit_ring = R.opt.exits ? EXIT_RING : 0,
		/* command mode without fork/newtask events: the first sight roots it */
		.tree_first_sight = !have_event("task:task_newtask") &&
				    !have_event("sched:sched_process_fork"),
		.self_pid = R.meta.self_pid,
	};
	int e = stats_init(&R.st, &cfg);

	if (e) {
		fprintf(stderr, "memtrace: cannot allocate tables (%u tasks, %llu page frames): %s\n",
			cfg.max_tasks, (unsigned long long)max_pfn, strerror(-e));
		return EXIT_RUNTIME;
	}
	R.order = calloc(cfg.max_tasks, sizeof(*R.order));
	R.threads = calloc(cfg.max_tasks, sizeof(*R.threads));
	R.pages = calloc(cfg.max_tasks, sizeof(*R.pages));
	R.meta.extra = calloc(cfg.max_modules, sizeof(*R.meta.extra));
	R.meta.extra_cap = cfg.max_modules;
	if (!R.order || !R.threads || !R.pages || !R.meta.extra) {
		fprintf(stderr, "memtrace: out of memory\n");
		return EXIT_RUNTIME;
	}
	return 0;
}

/* ---------------------------------------------------------------- replay -- */

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

static int run_replay(void)
{
	static char text[65536];
	char p[PATH_MAX], err[256];
	int cpu_ids[4096], fds[4096], n = 0, i, code;
	struct rb_layout layout;
	struct dirent *de;
	struct stat sb;
	uint32_t bad = 0, bad_first = 0;
	ssize_t len;
	DIR *d;

	R.mode = "replay";
	replay_dir_for_formats = R.opt.replay_dir;
	R.meta.page_size = 4096;
	R.meta.max_pfn = REPLAY_MAX_PFN;
	if (path_fmt(p, sizeof(p), "%s/events/header_page", R.opt.replay_dir))
		return EXIT_USAGE;
	len = read_file(p, text, sizeof(text));
	if (len < 0) {
		fprintf(stderr, "memtrace: %s: %s\n", p, strerror((int)-len));
		return EXIT_RUNTIME;
	}
	if (fmt_parse_header_page(&layout, text, (size_t)len, err, sizeof(err))) {
		fprintf(stderr, "memtrace: %s: %s\n", p, err);
		return EXIT_RUNTIME;
	}
	if (path_fmt(p, sizeof(p), "%s/" META_FILE, R.opt.replay_dir) == 0 &&
	    (len = read_file(p, text, sizeof(text))) >= 0)
		meta_parse(text, (size_t)len, &R.meta, NULL, NULL, &bad_first);
	code = setup_events(replay_format, false);
	if (code)
		return code;
	code = setup_stats(R.meta.max_pfn);
	if (code)
		return code;
	/* modules from the boot buffer came before every event, as when live */
	if (path_fmt(p, sizeof(p), "%s/" META_FILE, R.opt.replay_dir) == 0 &&
	    (len = read_file(p, text, sizeof(text))) >= 0)
		meta_parse_boot(text, (size_t)len, &R.st, &bad);

	if (path_fmt(p, sizeof(p), "%s/per_cpu", R.opt.replay_dir))
		return EXIT_RUNTIME;
	d = opendir(p);
	if (!d) {
		fprintf(stderr, "memtrace: %s: %s\n", p, strerror(errno));
		return EXIT_RUNTIME;
	}
	while ((de = readdir(d)) && n < 4096) {
		int c = cpu_dir_id(de->d_name);

		if (c >= 0)
			cpu_ids[n++] = c;
	}
	closedir(d);
	qsort(cpu_ids, (size_t)n, sizeof(int), cmp_int);
	for (i = 0; i < n; i++) {
		if (path_fmt(p, sizeof(p), "%s/per_cpu/cpu%d/trace_pipe_raw", R.opt.replay_dir,
			     cpu_ids[i]))
			return EXIT_RUNTIME;
		fds[i] = open(p, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
		if (fds[i] >= 0 && (fstat(fds[i], &sb) || !S_ISREG(sb.st_mode))) {
			close(fds[i]);
			fds[i] = -1;
			errno = EINVAL;	/* a FIFO or a device would never end */
		}
		if (fds[i] < 0) {
			fprintf(stderr, "memtrace: %s: %s (CPU skipped)\n", p,
				errno == EINVAL ? "not a regular file" : strerror(errno));
			fds[i] = open("/dev/null", O_RDONLY | O_CLOEXEC);
		}
	}
	if (reader_init(&R.rd, &layout, &R.dec, n, cpu_ids, fds, false, true, sink, &R.st)) {
		fprintf(stderr, "memtrace: out of memory\n");
		return EXIT_RUNTIME;
	}
	if (path_fmt(p, sizeof(p), "%s/" SEED_FILE, R.opt.replay_dir) == 0) {
		static char seeds[1 << 20];

		len = read_file(p, seeds, sizeof(seeds));
		if (len >= 0)
			R.seed_tasks = seed_parse(seeds, (size_t)len, &R.st, &R.seed_pages, &bad);
		stats_link_threads(&R.st);
	}
	reader_run(&R.rd, true, 0);
	for (i = 0; i < n; i++)
		close(fds[i]);
	/* per-CPU loss and module sizes as recorded at the end */
	if (path_fmt(p, sizeof(p), "%s/" META_FILE, R.opt.replay_dir) == 0 &&
	    (len = read_file(p, text, sizeof(text))) >= 0)
		meta_parse(text, (size_t)len, &R.meta, &R.rd, &R.st, &bad);
	if (bad)
		fprintf(stderr, "memtrace: %u malformed lines in %s/memtrace.{meta,seed} skipped\n",
			bad, R.opt.replay_dir);
	report_stdout("replay");
	return EXIT_OK;
}

/* ------------------------------------------------------------------ live -- */

static int record_setup(struct rb_layout *l)
{
	static char text[65536];
	const char *dir = R.opt.record_dir;
	char p[PATH_MAX], src[PATH_MAX];
	const struct mt_tracepoint *tp;
	ssize_t n;
	int i, fd;

	(void)l;
	if (mkdir(dir, 0755) && errno != EEXIST)
		goto fail;
	if (path_fmt(p, sizeof(p), "%s/events", dir) || (mkdir(p, 0755) && errno != EEXIST))
		goto fail;
	if (path_fmt(p, sizeof(p), "%s/per_cpu", dir) || (mkdir(p, 0755) && errno != EEXIST))
		goto fail;
	for (i = 0; i < 2; i++) {
		const char *f = i ? "events/header_event" : "events/header_page";

		if (tracefs_path(&R.tf, src, sizeof(src), f) || path_fmt(p, sizeof(p), "%s/%s", dir, f))
			goto fail;
		n = read_file(src, text, sizeof(text));
		if (n < 0)
			continue;
		fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (fd < 0 || write_all(fd, text, (size_t)n))
			goto fail;
		close(fd);
	}
	for (tp = mt_tracepoints; tp->system; tp++) {
		char name[96];

		snprintf(name, sizeof(name), "%s:%s", tp->system, tp->name);
		if (!have_event(name))
			continue;
		n = tracefs_read_format(&R.tf, tp->system, tp->name, text, sizeof(text));
		if (n < 0)
			continue;
		if (path_fmt(p, sizeof(p), "%s/events/%s", dir, tp->system) ||
		    (mkdir(p, 0755) && errno != EEXIST))
			goto fail;
		if (path_fmt(p, sizeof(p), "%s/events/%s/%s", dir, tp->system, tp->name) ||
		    (mkdir(p, 0755) && errno != EEXIST))
			goto fail;
		if (path_fmt(p, sizeof(p), "%s/events/%s/%s/format", dir, tp->system, tp->name))
			goto fail;
		fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (fd < 0 || write_all(fd, text, (size_t)n))
			goto fail;
		close(fd);
	}
	for (i = 0; i < R.rd.ncpus; i++) {
		if (path_fmt(p, sizeof(p), "%s/per_cpu/cpu%d", dir, R.rd.cpus[i].cpu) ||
		    (mkdir(p, 0755) && errno != EEXIST))
			goto fail;
		if (path_fmt(p, sizeof(p), "%s/per_cpu/cpu%d/trace_pipe_raw", dir,
			     R.rd.cpus[i].cpu))
			goto fail;
		fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (fd < 0)
			goto fail;
		R.rd.cpus[i].rec_fd = fd;
	}
	return 0;
fail:
	fprintf(stderr, "memtrace: --record %s: %s\n", dir, strerror(errno));
	return EXIT_RUNTIME;
}

static void record_finish(void)
{
	int i, e;

	if (!R.opt.record_dir)
		return;
	for (i = 0; i < R.rd.ncpus; i++) {
		if (R.rd.cpus[i].rec_fd >= 0)
			close(R.rd.cpus[i].rec_fd);
		R.rd.cpus[i].rec_fd = -1;
		if (R.rd.cpus[i].record_errors)
			fprintf(stderr, "memtrace: --record: %llu pages of CPU %d not saved\n",
				(unsigned long long)R.rd.cpus[i].record_errors, R.rd.cpus[i].cpu);
	}
	if (!R.opt.replay_dir) {
		struct timespec ts;

		clock_gettime(CLOCK_BOOTTIME, &ts);
		R.meta.uptime_s = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
	}
	e = record_write_meta(R.opt.record_dir, &R.meta, &R.rd, &R.st);
	if (e)
		fprintf(stderr, "memtrace: --record: %s/" META_FILE ": %s\n", R.opt.record_dir,
			strerror(-e));
}

/*
 * Best effort, once every table is allocated: stay resident and out of the OOM
 * killer's reach. MCL_ONFAULT locks the pfn map and the task table as they are
 * used instead of filling them now. No MCL_FUTURE: without CAP_IPC_LOCK it
 * turns RLIMIT_MEMLOCK into a limit on every later allocation, and a report's
 * would fail (the tables themselves did, under systemd's capability bounding).
 */
static void self_protect(void)
{
	if (mlockall(MCL_CURRENT | MCL_ONFAULT))
		fprintf(stderr, "memtrace: memory not locked (%s); its pages may be swapped out "
			"under memory pressure\n", strerror(errno));
	write_file("/proc/self/oom_score_adj", "-1000");
}


/* Parent: wait for the child to report tracing live (0) or an exit code. */
static int daemonize(void)
{
	unsigned char code = EXIT_RUNTIME;
	pid_t pid;
	ssize_t n;

	if (pipe2(daemon_pipe, O_CLOEXEC)) {
		perror("memtrace: pipe");
		return EXIT_RUNTIME;
	}
	pid = fork();
	if (pid < 0) {
		perror("memtrace: fork");
		return EXIT_RUNTIME;
	}
	if (pid == 0) {
		int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);

		close(daemon_pipe[0]);
		if (fd >= 0) {
			dup2(fd, STDIN_FILENO);
			close(fd);
		}
		setsid();
		return -1;	/* child goes on */
	}
	close(daemon_pipe[1]);
	/* never hang the caller (a boot waits for us): give up after READY_TIMEOUT_MS */
	for (;;) {
		struct pollfd pfd = { daemon_pipe[0], POLLIN, 0 };
		int r = poll(&pfd, 1, (int)R.ready_timeout_ms);

		if (r < 0 && errno == EINTR)
			continue;
		if (r == 0) {
			fprintf(stderr, "memtrace: not tracing after %.1f s; stopping pid %d\n",
				(double)R.ready_timeout_ms / 1000, (int)pid);
			kill(pid, SIGTERM);	/* it cleans up when its setup ends */
			exit(EXIT_RUNTIME);
		}
		break;
	}
	do {
		n = read(daemon_pipe[0], &code, 1);
	} while (n < 0 && errno == EINTR);
	exit(n == 1 ? code : EXIT_RUNTIME);
}

static void daemon_ready(int code)
{
	unsigned char c = (unsigned char)code;

	if (daemon_pipe[1] < 0)
		return;
	if (write(daemon_pipe[1], &c, 1) != 1)
		perror("memtrace: notifying the parent");
	close(daemon_pipe[1]);
	daemon_pipe[1] = -1;
}

static int write_pidfile(void)
{
	char buf[32];
	int fd;

	if (!R.opt.pidfile)
		return 0;
	fd = open(R.opt.pidfile, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
	snprintf(buf, sizeof(buf), "%d\n", (int)getpid());
	if (fd < 0 || write_all(fd, buf, strlen(buf))) {
		fprintf(stderr, "memtrace: --pidfile %s: %s\n", R.opt.pidfile, strerror(errno));
		if (fd >= 0)
			close(fd);
		return EXIT_RUNTIME;
	}
	close(fd);
	return 0;
}

static void fatal_cleanup(void)
{
	if (R.tracefs_up)
		tracefs_teardown(&R.tf);
	R.tracefs_up = false;
	if (R.opt.pidfile)
		unlink(R.opt.pidfile);
}

/* Before anything is changed: the events memtrace cannot work without. */
static int check_required(void)
{
	static char text[65536];
	const struct mt_tracepoint *tp;

	for (tp = mt_tracepoints; tp->system; tp++) {
		if (tp->need != NEED_REQUIRED)
			continue;
		if (tracefs_read_format(&R.tf, tp->system, tp->name, text, sizeof(text)) <= 0) {
			fprintf(stderr, "memtrace: required tracepoint %s:%s is missing in %s "
				"(kernel without page-allocator tracepoints?)\n", tp->system,
				tp->name, R.tf.inst);
			return EXIT_NOEVENT;
		}
	}
	return 0;
}

static int ingest_boot_buffer(const struct rb_layout *l);

/*
 * Test hook (MEMTRACE_TEST_FAIL_AT=STEP): fail setup right after STEP, so the
 * tests can prove that every setup error leaves tracefs as it was found.
 */
static bool fail_at(const char *step)
{
	const char *want = getenv("MEMTRACE_TEST_FAIL_AT");

	if (!want || strcmp(want, step))
		return false;
	fprintf(stderr, "memtrace: test: setup fails after step %s\n", step);
	return true;
}
static void print_exits(void);

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* TERM or INT arrived (they are blocked until the main loop reads them). */
static bool term_pending(void)
{
	sigset_t set;

	return !sigpending(&set) && (sigismember(&set, SIGTERM) == 1 ||
				     sigismember(&set, SIGINT) == 1);
}

static int setup_live(void)
{
	static char text[65536];
	struct rb_layout layout;
	char err[PATH_MAX + 256];
	uint64_t max_pfn;
	ssize_t n;
	int code;

	R.mode = R.opt.record_dir ? "record" : "live";
	R.meta.page_size = (uint32_t)sysconf(_SC_PAGESIZE);
	code = tracefs_find(&R.tf, R.opt.tracefs_dir, "/proc", err, sizeof(err));
	if (code) {
		fprintf(stderr, "memtrace: %s\n", err);
		if (code == TFS_ERR_PRIV)
			fprintf(stderr, "memtrace: tracing needs root (CAP_SYS_ADMIN)\n");
		return code == TFS_ERR_PRIV ? EXIT_PRIV : EXIT_RUNTIME;
	}
	R.tracefs_up = true;	/* from here on every exit path tears down */
	if (fail_at("find"))
		return EXIT_RUNTIME;
	code = tracefs_instance_create(&R.tf, R.opt.instance, "/proc", err, sizeof(err));
	if (!code && fail_at("instance"))
		return EXIT_RUNTIME;
	if (!code && (code = check_required()))
		return code;
	if (!code)
		code = tracefs_configure(&R.tf, R.opt.buffer_kb, BUFFER_PERCENT, getpid(), err,
					 sizeof(err));
	if (code) {
		fprintf(stderr, "memtrace: %s\n", err);
		if (code == TFS_ERR_PRIV)
			fprintf(stderr, "memtrace: tracing needs root (CAP_SYS_ADMIN)\n");
		return code == TFS_ERR_PRIV ? EXIT_PRIV : EXIT_RUNTIME;
	}
	if (fail_at("configure"))
		return EXIT_RUNTIME;
	n = tracefs_read_header_page(&R.tf, text, sizeof(text));
	if (n < 0) {
		fprintf(stderr, "memtrace: %s/events/header_page: %s\n", R.tf.inst,
			strerror((int)-n));
		return n == -ENOENT ? EXIT_NOEVENT : EXIT_RUNTIME;
	}
	if (fmt_parse_header_page(&layout, text, (size_t)n, err, sizeof(err))) {
		fprintf(stderr, "memtrace: %s\n", err);
		return EXIT_RUNTIME;
	}
	code = setup_events(live_format, true);
	if (code)
		return code;
	if (fail_at("events"))
		return EXIT_RUNTIME;
	if (have_event("module:module_put") &&
	    proc_initmod_range("/proc", &R.meta.initmod_start, &R.meta.initmod_end)) {
		R.meta.initmod_start = R.meta.initmod_end = 0;
		if (!have_event("syscalls:sys_enter_finit_module"))
			fprintf(stderr, "memtrace: warning: do_init_module not found in "
				"/proc/kallsyms: the first module_put of the loader ends a "
				"module bracket\n");
	}
	max_pfn = proc_max_pfn("/proc");
	if (!max_pfn) {
		fprintf(stderr, "memtrace: warning: no page-frame range in /proc/zoneinfo; "
			"assuming %llu frames\n", (unsigned long long)REPLAY_MAX_PFN);
		max_pfn = REPLAY_MAX_PFN;
	}
	R.meta.max_pfn = max_pfn;
	R.meta.self_pid = (int32_t)getpid();
	code = setup_stats(max_pfn);
	if (code)
		return code;
	if (fail_at("stats"))
		return EXIT_RUNTIME;
	code = tracefs_open_cpus(&R.tf, err, sizeof(err));
	if (code) {
		fprintf(stderr, "memtrace: %s\n", err);
		return code == TFS_ERR_PRIV ? EXIT_PRIV : EXIT_RUNTIME;
	}
	if (fail_at("cpus"))
		return EXIT_RUNTIME;
	if (reader_init(&R.rd, &layout, &R.dec, R.tf.ncpus, R.tf.cpu_ids, R.tf.fds, true,
			R.tf.clock_mono, sink, &R.st)) {
		fprintf(stderr, "memtrace: out of memory\n");
		return EXIT_RUNTIME;
	}
	if (R.opt.record_dir && (code = record_setup(&layout)))
		return code;
	if (fail_at("record"))
		return EXIT_RUNTIME;
	if (R.opt.boot_buffer && (code = ingest_boot_buffer(&layout)))
		return code;
	/* after the boot buffer (its modules are known), right before tracing begins */
	{
		uint32_t bad = 0;

		proc_modules("/proc", module_before, NULL, &bad);
	}
	if (R.setup_delay_ms)		/* test hook: a setup as slow as a stuck drain */
		sleep_ms(R.setup_delay_ms);
	if (term_pending()) {
		fprintf(stderr, "memtrace: stopped by a signal during setup\n");
		return EXIT_RUNTIME;
	}
	if (tracefs_tracing_on(&R.tf, true)) {
		fprintf(stderr, "memtrace: cannot start tracing: %s\n", strerror(errno));
		return EXIT_RUNTIME;
	}
	if (fail_at("tracing"))
		return EXIT_RUNTIME;
	if (!R.opt.no_seed) {
		struct seed_result res;

		/* not us, nor the parent that waits for readiness (it exits then) */
		if (proc_seed("/proc", &R.st, mono_ns, getpid(),
			      daemon_pipe[1] >= 0 ? getppid() : 0, &res))
			fprintf(stderr, "memtrace: warning: cannot seed tasks from /proc\n");
		R.seed_tasks = res.tasks;
		R.seed_pages = res.pages;
		stats_link_threads(&R.st);
		if (R.opt.record_dir && record_write_seed(R.opt.record_dir, &R.st))
			fprintf(stderr, "memtrace: --record: cannot write the seed file\n");
	}
	if (fail_at("seed"))
		return EXIT_RUNTIME;
	return 0;
}

/*
 * --boot-buffer: drain the top-level per-CPU buffers once, before our own
 * instance starts (so no event is seen twice), and keep their module events.
 */
static int ingest_boot_buffer(const struct rb_layout *l)
{
	uint64_t deadline = mono_ns() + BOOT_MAX_NS, max_pages, pages;
	uint32_t sub = rb_subbuf_size(l);
	unsigned long long kb;
	char text[64];
	uint8_t *page;
	int i;

	if (R.tf.top_level) {
		fprintf(stderr, "memtrace: warning: --boot-buffer ignored: tracing at the top "
			"level itself (no instances)\n");
		return 0;
	}
	if (boot_init(&R.meta.boot, 4 * R.opt.max_modules) || !(page = malloc(sub))) {
		fprintf(stderr, "memtrace: out of memory\n");
		return EXIT_RUNTIME;
	}
	for (i = 0; i < R.tf.ncpus; i++) {
		char p[PATH_MAX];
		int fd;

		if (path_fmt(p, sizeof(p), "%s/per_cpu/cpu%d/trace_pipe_raw", R.tf.root,
			     R.tf.cpu_ids[i]))
			continue;
		fd = open(p, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0) {
			fprintf(stderr, "memtrace: --boot-buffer: %s: %s\n", p, strerror(errno));
			continue;
		}
		/*
		 * At most what the buffer holds, and 2 s in all: whatever the top
		 * level still records (function tracing, say) must not keep us
		 * reading, and the boot waits for us.
		 */
		max_pages = BOOT_MAX_PAGES;
		if (!path_fmt(p, sizeof(p), "%s/per_cpu/cpu%d/buffer_size_kb", R.tf.root,
			      R.tf.cpu_ids[i]) &&
		    read_file(p, text, sizeof(text)) > 0 && (kb = strtoull(text, NULL, 10)))
			max_pages = kb * 1024 / sub + 4;
		for (pages = 0;; pages++) {
			ssize_t n;

			if (pages >= max_pages || mono_ns() > deadline) {
				R.meta.boot.truncated++;
				break;
			}
			n = read(fd, page, sub);
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				break;
			boot_page(&R.meta.boot, l, &R.dec, page, (size_t)n, (uint32_t)R.tf.cpu_ids[i]);
		}
		close(fd);
	}
	free(page);
	boot_apply(&R.meta.boot, &R.st);
	boot_free(&R.meta.boot);	/* the counters stay for the reports */
	R.meta.boot_used = true;
	fprintf(stderr, "memtrace: boot buffer: %llu records, %u module events used, %llu lost%s\n",
		(unsigned long long)R.meta.boot.records, R.meta.boot.applied,
		(unsigned long long)R.meta.boot.lost,
		R.meta.boot.truncated ? "; not read to the end (still recording)" : "");
	return 0;
}

static void second_signal(int sig)
{
	tracefs_emergency_cleanup();
	_exit(128 + sig);
}

/* Final drain, clean tracefs, final report. A second TERM/INT exits at once. */
static int shutdown_run(int sig)
{
	const char *trigger = sig == SIGINT ? "SIGINT" : sig == SIGPIPE ? "stdout closed" : "SIGTERM";
	struct sigaction sa;
	sigset_t set;
	int e;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = second_signal;
	sigfillset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigprocmask(SIG_UNBLOCK, &set, NULL);

	tracefs_tracing_on(&R.tf, false);
	if (R.teardown_delay_ms)	/* test hook: widen the teardown window */
		sleep_ms(R.teardown_delay_ms);
	reader_run(&R.rd, true, 0);
	if (R.opt.exits)
		print_exits();
	refresh_live();
	tracefs_teardown(&R.tf);
	R.tracefs_up = false;
	record_finish();
	/* --exits writes its lines only, unless a log file was asked for */
	e = R.opt.exits && !R.opt.output_set ? 0 : report_log(trigger);
	if (R.opt.kmsg)
		report_kmsg(trigger, !e);
	if (R.opt.pidfile)
		unlink(R.opt.pidfile);
	return EXIT_OK;
}

static bool exits_closed;	/* --exits: stdout is gone; memtrace stops */

/* --exits: does the user want this process? */
static bool exit_wanted(const struct mt_exit *e)
{
	int i;

	if (!R.opt.npids && !R.opt.ncomms)
		return true;
	for (i = 0; i < R.opt.npids; i++)
		if (R.opt.pids[i] == e->pid)
			return true;
	for (i = 0; i < R.opt.ncomms; i++)
		if (strlen(R.opt.comms[i]) == e->comm_len &&
		    !memcmp(R.opt.comms[i], e->comm, e->comm_len))
			return true;
	return false;
}

/* --exits: a line per queued process exit on stdout, flushed per line. */
static void print_exits(void)
{
	static struct out o;
	static uint64_t dropped_shown, lost_shown;
	uint64_t kib_per_page = R.meta.page_size / 1024;
	struct mt_exit e;

	out_init(&o, STDOUT_FILENO);
	for (;;) {
		struct pollfd pfd = { STDOUT_FILENO, POLLOUT, 0 };
		double life;

		/* a reader that does not keep up must not stall the loop: lines wait in the ring */
		if (exits_closed || poll(&pfd, 1, 0) != 1)
			break;
		if (pfd.revents & (POLLERR | POLLHUP | POLLNVAL)) {
			exits_closed = true;	/* the reader is gone */
			break;
		}
		if (!(pfd.revents & POLLOUT))
			break;
		if (!stats_exit_pop(&R.st, &e))
			break;
		life = e.exit_ts > e.start_ts ? (double)(e.exit_ts - e.start_ts) / 1e9 : 0;
		if (!exit_wanted(&e))
			continue;
		if (R.opt.format == FMT_JSON) {
			out_printf(&o, "{\"time_s\":%.6f,\"pid\":%d,\"ppid\":%d,\"comm\":\"",
				   (double)e.exit_ts / 1e9, e.pid, e.ppid);
			escape_json(&o, e.comm, e.comm_len);
			out_printf(&o, "\",\"peak_pages\":%lld,\"peak_kib\":%llu,"
				   "\"lifetime_s\":%.6f}\n", (long long)e.peak,
				   (unsigned long long)(e.peak > 0 ? e.peak : 0) * kib_per_page, life);
		} else {
			out_printf(&o, "%12.6f %8d %8d %10lld %10llu %10.6f  ", (double)e.exit_ts / 1e9,
				   e.pid, e.ppid, (long long)e.peak,
				   (unsigned long long)(e.peak > 0 ? e.peak : 0) * kib_per_page, life);
			if (e.comm_len)
				escape_text(&o, e.comm, e.comm_len);
			else
				out_puts(&o, "?");
			out_puts(&o, "\n");
		}
		if (out_flush(&o))
			exits_closed = true;	/* stdout is gone (EPIPE): stop */
	}
	if (reader_lost(&R.rd) != lost_shown && !exits_closed) {
		uint64_t lost = reader_lost(&R.rd);

		if (R.opt.format == FMT_JSON)
			out_printf(&o, "{\"lost_events\":%llu}\n", (unsigned long long)lost);
		else
			out_printf(&o, "# %llu events lost so far: peaks may be low, exits missing\n",
				   (unsigned long long)lost);
		lost_shown = lost;
		if (out_flush(&o))
			exits_closed = true;
	}
	if (R.st.exits_dropped != dropped_shown && !exits_closed) {
		if (R.opt.format == FMT_JSON)
			out_printf(&o, "{\"exits_not_shown\":%llu}\n",
				   (unsigned long long)(R.st.exits_dropped - dropped_shown));
		else
			out_printf(&o, "# %llu process exits not shown: queue full\n",
				   (unsigned long long)(R.st.exits_dropped - dropped_shown));
		dropped_shown = R.st.exits_dropped;
		if (out_flush(&o))
			exits_closed = true;
	}
}

/* Before a report on request: read what is buffered now, refresh names and sizes. */
static void catch_up(void)
{
	while (reader_run(&R.rd, false, BATCH) == BATCH)
		;
	refresh_live();
}

/* The poll set of the main loops: the signalfd, then one fd per CPU; NULL if no memory. */
static struct pollfd *poll_set(void)
{
	struct pollfd *pfd = calloc((size_t)R.rd.ncpus + 1, sizeof(*pfd));
	int i;

	if (!pfd) {
		fprintf(stderr, "memtrace: out of memory\n");
		return NULL;
	}
	pfd[0].fd = R.sfd;
	pfd[0].events = POLLIN;
	for (i = 0; i < R.rd.ncpus; i++) {
		pfd[i + 1].fd = R.rd.cpus[i].fd;
		pfd[i + 1].events = POLLIN;
	}
	return pfd;
}

/*
 * Wait for events or a signal (not at all when @busy). A CPU whose fd fails
 * (a possible but offline CPU: ENODEV or POLLERR) is dropped from the poll
 * set, or poll would spin. Return: 0, or -1 (said why) if poll itself failed.
 */
static int poll_wait(struct pollfd *pfd, bool busy)
{
	int i;

	if (poll(pfd, (nfds_t)R.rd.ncpus + 1, busy ? 0 : POLL_MS) < 0 && errno != EINTR) {
		fprintf(stderr, "memtrace: poll: %s\n", strerror(errno));
		return -1;
	}
	for (i = 0; i < R.rd.ncpus; i++) {
		struct reader_cpu *c = &R.rd.cpus[i];

		if (pfd[i + 1].fd < 0)
			continue;
		if (pfd[i + 1].revents & (POLLERR | POLLNVAL))
			c->eof = true;
		if (c->eof) {
			pfd[i + 1].fd = -1;
			if (c->read_errors || (pfd[i + 1].revents & (POLLERR | POLLNVAL)))
				fprintf(stderr, "memtrace: cpu%d not readable (%s); not traced\n",
					c->cpu, c->last_errno ? strerror(c->last_errno) :
					"poll error");
		}
	}
	return 0;
}

static int main_loop(void)
{
	struct pollfd *pfd = poll_set();
	bool busy = false;
	int batch;

	if (!pfd)
		return EXIT_RUNTIME;
	for (;;) {
		struct signalfd_siginfo si;

		if (poll_wait(pfd, busy)) {
			free(pfd);
			return EXIT_RUNTIME;
		}
		/* --exits: batches no larger than the exit ring */
		batch = R.opt.exits ? EXIT_RING : BATCH;
		busy = reader_run(&R.rd, false, (uint64_t)batch) == (uint64_t)batch;
		if (R.opt.exits) {
			print_exits();
			if (exits_closed) {
				free(pfd);
				return shutdown_run(SIGPIPE);
			}
		}
		if (R.st.oom_pending)
			report_oom();
		while (read(R.sfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
			switch (si.ssi_signo) {
			case SIGUSR1:
				catch_up();
				report_stdout("SIGUSR1");
				break;
			case SIGUSR2:
				catch_up();
				report_log("SIGUSR2");
				break;
			case SIGTERM:
			case SIGINT:
				free(pfd);
				return shutdown_run((int)si.ssi_signo);
			default:
				break;	/* SIGHUP: ignored, a console hangup must not stop us */
			}
		}
	}
}

/*
 * Block the signals the main loops read from a signalfd (SIGCHLD too with
 * @chld, for command mode); *@set gets them, *@orig the mask before.
 */
static int block_signals(sigset_t *set, bool chld, sigset_t *orig)
{
	sigemptyset(set);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGUSR1);
	sigaddset(set, SIGUSR2);
	sigaddset(set, SIGHUP);
	if (chld)
		sigaddset(set, SIGCHLD);
	if (sigprocmask(SIG_BLOCK, set, orig)) {
		perror("memtrace: sigprocmask");
		return -1;
	}
	return 0;
}

/* ------------------------------------------------------------ command mode -- */

static pid_t cmd_pid;
static struct cmd_info cmd;
static char oom_adj_saved[16];
static bool sigpipe_ignored;	/* as memtrace's caller left it: the command gets the same */
static int stop_sig;		/* the signal that made memtrace stop waiting */

static void gen_command(struct out *o, void *p)
{
	static struct report_input in;

	fill_report(&in, (const char *)p);
	report_command(o, &in, &cmd);
}

/* The command report to -o FILE (atomic), else to stderr. */
static int report_command_out(const char *trigger)
{
	static struct out o;
	char err[PATH_MAX + 128];
	int e;

	if (R.opt.output_set) {
		e = logfile_write(R.opt.log_path, gen_command, (void *)trigger, err, sizeof(err));
		if (e)
			fprintf(stderr, "memtrace: %s\n", err);
		return e;
	}
	out_init(&o, STDERR_FILENO);
	gen_command(&o, (void *)trigger);
	return out_flush(&o);
}

/* Child: wait for the go, then become the command. Never returns. */
__attribute__((noreturn))
static void command_child(const sigset_t *orig, int go, int go_w, int errp)
{
	char c;
	int e;

	/* if memtrace dies before the go, read() must see the end of the pipe */
	close(go_w);
	sigprocmask(SIG_SETMASK, orig, NULL);
	signal(SIGPIPE, sigpipe_ignored ? SIG_IGN : SIG_DFL);
	if (oom_adj_saved[0])
		write_file("/proc/self/oom_score_adj", oom_adj_saved);
	while (read(go, &c, 1) < 0 && errno == EINTR)
		;
	close(go);
	execvp(R.opt.command[0], R.opt.command);
	e = errno;
	if (write(errp, &e, sizeof(e)) != (ssize_t)sizeof(e))
		_exit(EXIT_EXEC);
	_exit(EXIT_EXEC);
}

/* Reap what has exited; true once the command is reaped and nothing else is left. */
static bool command_reap(void)
{
	for (;;) {
		int st;
		pid_t p = waitpid(-1, &st, WNOHANG);

		if (p > 0) {
			if (p == cmd_pid) {
				cmd.status = st;
				cmd.reaped = true;
			}
			continue;
		}
		if (p < 0 && errno == EINTR)
			continue;
		/* p == 0: children left; ECHILD: none (we are their subreaper) */
		return cmd.reaped && (R.opt.no_wait || (p < 0 && errno == ECHILD));
	}
}

static int command_loop(void)
{
	struct pollfd *pfd = poll_set();
	bool busy = false, stop_waiting = false;
	int stops = 0;

	if (!pfd)
		return EXIT_RUNTIME;
	for (;;) {
		struct signalfd_siginfo si;

		if (poll_wait(pfd, busy))
			break;
		busy = reader_run(&R.rd, false, BATCH) == BATCH;
		R.st.oom_pending = false;	/* the command report counts them */
		while (read(R.sfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
			int sig = (int)si.ssi_signo;

			if (sig == SIGTERM || sig == SIGINT) {
				/*
				 * The first, while the command runs: pass it on if
				 * sent with kill() (from the terminal, SI_KERNEL, the
				 * command's process group got it too) and go on
				 * waiting. Once the command is gone, or at the second:
				 * stop waiting for what is left and report it.
				 */
				if (cmd.reaped || stops++) {
					stop_waiting = true;
					stop_sig = sig;
				} else if (si.ssi_code != SI_KERNEL) {
					kill(cmd_pid, sig);
				}
			} else if (sig == SIGUSR1 || sig == SIGUSR2) {
				catch_up();
				report_command_out(sig == SIGUSR1 ? "SIGUSR1" : "SIGUSR2");
			}
		}
		if (command_reap())
			break;
		if (stop_waiting) {
			/* what is left is reported as still running */
			cmd.waited = false;
			if (cmd.reaped)
				break;
			if (stops > 1) {
				fprintf(stderr, "memtrace: stopped waiting for the command "
					"(second signal)\n");
				break;
			}
		}
	}
	free(pfd);
	return 0;
}

static int run_command(void)
{
	struct timespec t0, t1;
	struct rusage ru;
	sigset_t set, orig;
	int go[2], errp[2], code, e;
	ssize_t n;
	uint32_t i;

	if (block_signals(&set, true, &orig))
		return EXIT_RUNTIME;
	R.sfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	if (R.sfd < 0) {
		perror("memtrace: signalfd");
		return EXIT_RUNTIME;
	}
	/* the command inherits our oom_score_adj: it gets its own back */
	if (read_file("/proc/self/oom_score_adj", oom_adj_saved, sizeof(oom_adj_saved)) <= 0)
		oom_adj_saved[0] = '\0';
	R.opt.no_seed = true;	/* only the command's tree counts, and it starts later */
	code = setup_live();
	if (code) {
		fatal_cleanup();
		return code;
	}
	self_protect();
	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0))
		fprintf(stderr, "memtrace: warning: cannot become a subreaper (%s): orphaned "
			"descendants are not waited for\n", strerror(errno));
	if (pipe2(go, O_CLOEXEC) || pipe2(errp, O_CLOEXEC)) {
		perror("memtrace: pipe");
		fatal_cleanup();
		return EXIT_RUNTIME;
	}
	cmd.argv = R.opt.command;
	cmd.waited = !R.opt.no_wait;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	cmd.start_ts = mono_ns();
	cmd_pid = fork();
	if (cmd_pid < 0) {
		perror("memtrace: fork");
		fatal_cleanup();
		return EXIT_RUNTIME;
	}
	if (cmd_pid == 0)
		command_child(&orig, go[0], go[1], errp[1]);
	close(go[0]);
	close(errp[1]);
	/* the tree is rooted at the event of this fork, when the reader gets to it */
	stats_tree_root(&R.st, cmd_pid, (int32_t)getpid());
	if (write(go[1], "x", 1) != 1)
		perror("memtrace: starting the command");
	close(go[1]);
	do {
		n = read(errp[0], &e, sizeof(e));
	} while (n < 0 && errno == EINTR);
	close(errp[0]);
	if (n == (ssize_t)sizeof(e)) {
		cmd.exec_failed = true;
		fprintf(stderr, "memtrace: cannot run '%s': %s\n", R.opt.command[0], strerror(e));
	}
	code = command_loop();
	clock_gettime(CLOCK_MONOTONIC, &t1);

	tracefs_tracing_on(&R.tf, false);
	reader_run(&R.rd, true, 0);
	refresh_live();
	tracefs_teardown(&R.tf);
	R.tracefs_up = false;
	if (code) {
		if (!cmd.reaped)
			kill(cmd_pid, SIGKILL);
		return code;
	}

	cmd.wall_s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	if (!getrusage(RUSAGE_CHILDREN, &ru)) {
		cmd.user_s = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6;
		cmd.sys_s = (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
		cmd.max_rss_kib = ru.ru_maxrss;
	}
	/* processes of the tree with a thread still alive (their leader may be gone) */
	memset(R.threads, 0, R.st.ntasks_used * sizeof(*R.threads));
	for (i = SLOT_FIRST; i < R.st.ntasks_used; i++) {
		const struct mt_task *t = &R.st.tasks[i];
		uint32_t p = (uint32_t)(stats_process_of(&R.st, t) - R.st.tasks);

		if ((t->flags & TF_TREE) && t->state == TASK_ALIVE && !R.threads[p]++)
			cmd.still_running++;
	}
	report_command_out("exit");
	if (cmd.exec_failed)
		return EXIT_EXEC;
	if (!cmd.reaped)	/* left running after a second signal: as if killed by it */
		return 128 + (stop_sig ? stop_sig : SIGTERM);
	if (WIFSIGNALED(cmd.status))
		return 128 + WTERMSIG(cmd.status);
	return WEXITSTATUS(cmd.status);
}

static int run_live(void)
{
	sigset_t set;
	int code;

	if (block_signals(&set, false, NULL))
		return EXIT_RUNTIME;
	if (R.opt.daemon && daemonize() >= 0)
		return EXIT_RUNTIME;	/* not reached: the parent exits in daemonize() */
	R.sfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	if (R.sfd < 0) {
		perror("memtrace: signalfd");
		daemon_ready(EXIT_RUNTIME);
		return EXIT_RUNTIME;
	}
	code = setup_live();
	if (!code) {
		self_protect();
		code = write_pidfile();
	}
	if (!code && fail_at("pidfile"))
		code = EXIT_RUNTIME;
	if (code) {
		fatal_cleanup();
		daemon_ready(code);
		return code;
	}
	fprintf(stderr, "memtrace %s: tracing in %s (%d CPUs, %u KiB per CPU, %d events), "
		"pid %d, log %s\n", MEMTRACE_VERSION, R.tf.inst, R.tf.ncpus, R.opt.buffer_kb,
		R.nenabled, (int)getpid(),
		R.opt.exits && !R.opt.output_set ? "none (--exits)" : R.opt.log_path);
	daemon_ready(0);
	if (R.opt.exits && R.opt.format == FMT_TEXT) {
		static const char head[] = "#     TIME_S      PID     PPID PEAK_PAGES   PEAK_KIB "
					   "LIFETIME_S  COMM\n";

		if (write_all(STDOUT_FILENO, head, sizeof(head) - 1))
			fprintf(stderr, "memtrace: stdout: %s\n", strerror(errno));
	}
	code = main_loop();
	if (code)
		fatal_cleanup();
	return code;
}

int main(int argc, char **argv)
{
	const char *delay = getenv("MEMTRACE_TEST_TEARDOWN_DELAY_MS");
	const char *sdelay = getenv("MEMTRACE_TEST_SETUP_DELAY_MS");
	const char *ready = getenv("MEMTRACE_TEST_READY_TIMEOUT_MS");

	parse_options(argc, argv, &R.opt);
	if (delay)
		R.teardown_delay_ms = strtol(delay, NULL, 10);
	if (sdelay)
		R.setup_delay_ms = strtol(sdelay, NULL, 10);
	R.ready_timeout_ms = READY_TIMEOUT_MS;
	if (ready && strtol(ready, NULL, 10) > 0 && strtol(ready, NULL, 10) <= READY_TIMEOUT_MS)
		R.ready_timeout_ms = strtol(ready, NULL, 10);
	sigpipe_ignored = signal(SIGPIPE, SIG_IGN) == SIG_IGN;
	setvbuf(stderr, NULL, _IOLBF, 0);
	if (R.opt.replay_dir)
		return run_replay();
	if (R.opt.command)
		return run_command();
	return run_live();
}
