// SPDX-License-Identifier: GPL-2.0-only
/* run/setup.c - the start of a run: tracefs, events, tables, reader, boot buffer, tracing on, seed */
#include "run/setup.h"

#include "run/memwatch.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "input/boot.h"
#include "output/enrich.h"
#include "kernel/format.h"
#include "kernel/ksyms.h"
#include "model/pfnmap.h"
#include "kernel/proc.h"
#include "input/record.h"
#include "input/seed.h"
#include "model/series.h"
#include "output/stackreport.h"
#include "lib/util.h"

#define BUFFER_PERCENT	50
#define CAPTURE_BUFFER_KB 512		/* a capture kernel's ring buffers, all CPUs together */
#define CAPTURE_BUFFER_MIN_KB 128	/* ... and at least this each */
#define CAPTURE_MAX_TASKS 4096		/* a capture kernel's tables (table_size()) */
#define CAPTURE_MAX_STACKS 1024
#define BOOT_MAX_PAGES	16384		/* per CPU, when buffer_size_kb is unreadable */
#define BOOT_MAX_NS	2000000000ull	/* --boot-buffer reads for at most 2 s */

/*
 * The reader delivers to the accounting, and here to what else takes each
 * event: a capture kernel's memory watch, --svg's series (setup_pick_sink()).
 */
void setup_sink(void *ctx, const struct mt_event *ev)
{
	struct run *r = ctx;

#ifdef MT_BENCH_READER_ONLY
	/*
	 * bench/hotpath.py --reader-only builds this (never make): the page
	 * events are read, decoded and merged as always, then neither
	 * prefetched nor counted, so that what the reader costs can be told
	 * from what the accounting costs. A measurement only: its reports are
	 * wrong.
	 */
	if (ev->kind == EV_PAGE_ALLOC || ev->kind == EV_PAGE_FREE)
		return;
#endif
	stats_apply(&r->st, ev);
	if (memwatch_due(r, ev))
		memwatch_sample(r);
	if (r->series && series_due(r->series, ev))
		series_event(r->series, &r->st, ev, reader_lost(&r->rd));
}

#ifdef MT_BENCH_READER_ONLY
/*
 * ... and a run of events as memtrace's run sink takes it (stats_sink_run()),
 * one call; its page events passed over here, as setup_sink() would, but
 * without a call each (memtrace makes none for them either).
 */
static uint32_t bench_sink_run(void *ctx, const struct mt_event *ev, uint32_t n, size_t stride)
{
	struct run *r = ctx;
	uint32_t i;

	for (i = 0; i < n; i++, ev = mt_event_next(ev, stride)) {
		if (ev->kind == EV_PAGE_ALLOC || ev->kind == EV_PAGE_FREE)
			continue;
		setup_sink(r, ev);
		if (r->rd.stop)
			return i + 1;
	}
	return n;
}
#endif

/*
 * In a live run, some events end the reader's batch (the stats set its stop
 * flag). A module load with --stacks, so that the module's code is known
 * (enrich_module_ranges()) before its stacks are read. An OOM kill, where the
 * mode reports it (on_oom): with the tables as they stood at the kill, each
 * kill its own report, however many kills one read brought (memtrace stalled in
 * reclaim while the killer ran). What the batch had left is read next, in order.
 *
 * The look-ahead: every mode's events are accounted (a mode's own sink
 * applies them too), so the reader prefetches the accounting's pfn maps
 * (struct reader_prefetch), no call an event. The sink: the accounting alone
 * (stats_sink(), the stats as its context) where nothing else takes each
 * event, one call less an event, and a CPU's run of events in one call
 * (stats_sink_run()); else setup_sink(), an event a call. A mode's own sink is
 * kept, and stops nothing, as before.
 */
void setup_pick_sink(struct run *r)
{
#ifndef MT_BENCH_READER_ONLY	/* its setup_sink() leaves the page events out: no maps */
	r->rd.pf.map = r->st.pfn_owner;
	r->rd.pf.map2 = r->st.stacks_on ? r->st.sk.pfn_stack : NULL;
	r->rd.pf.n = r->st.cfg.max_pfn;
#endif
	if (r->ops->sink)
		return;
	if (r->ops->live) {
		r->st.stop = &r->rd.stop;
		r->st.stop_oom = r->ops->on_oom != NULL;
	}
#ifndef MT_BENCH_READER_ONLY
	if (!r->sz.on && !r->series) {
		r->rd.sink = stats_sink;
		r->rd.sink_run = stats_sink_run;
		r->rd.ctx = &r->st;
	}
#else
	if (!r->sz.on && !r->series)
		r->rd.sink_run = bench_sink_run;
#endif
}

static bool is_module_event(const struct mt_tracepoint *tp)
{
	return tp->kind >= EV_MOD_LOAD && tp->kind <= EV_MODSYS_EXIT;
}

/*
 * What the module events that are missing cost, said once: nothing where none
 * is (a kernel without modules: one line), each group where some are. A mode
 * that reports no modules (command mode, --exits, --stream): nothing to say.
 */
static void module_warning(const struct run *r)
{
	const char *last = NULL;
	int i, missing = 0, all = 0;
	const struct mt_tracepoint *tp;

	if (!r->ops->reports_modules)
		return;
	for (tp = mt_tracepoints; tp->system; tp++)
		all += is_module_event(tp);
	for (i = 0; i < r->nmissing; i++) {
		tp = mt_tracepoint_find_name(r->missing[i]);
		missing += tp && is_module_event(tp);
	}
	if (missing == all) {
		mt_warn("warning: no module events on this kernel (a kernel without loadable "
			"modules?): module memory is not traced");
		return;
	}
	for (i = 0; i < r->nmissing; i++) {
		tp = mt_tracepoint_find_name(r->missing[i]);
		if (!tp || !is_module_event(tp) || (last && !strcmp(last, tp->loss)))
			continue;
		mt_warn("warning: %s not available: %s", r->missing[i], tp->loss);
		last = tp->loss;
	}
}

int setup_events(struct run *r, format_reader rdfmt, void *ctx, bool live)
{
	static char text[65536];
	static struct fmt_event fe;
	const struct mt_tracepoint *tp;
	char err[256];
	int i = 0;

	decoder_init(&r->dec);
	for (tp = mt_tracepoints; tp->system; tp++, i++) {
		char *name = r->event_names[i];
		const char *bad_fmt = NULL;
		bool ok = false;
		ssize_t n;
		int e;

		/* the stream's own events: only for a mode that streams, the types it asks for */
		if (tp->stream && !(r->ops->streams && (tp->stream & r->opt.stream_events)))
			continue;
		n = rdfmt(ctx, tp->system, tp->name, text, sizeof(text));
		snprintf(name, sizeof(r->event_names[i]), "%s:%s", tp->system, tp->name);
		/* stacks cost nothing unless asked for; a recording made with them has them */
		if (tp->when == WHEN_STACKS && !r->stacks && (live || n <= 0))
			continue;
		/* the page cache's events: only where crashkernel= is answered (or recorded) */
		if (tp->when == WHEN_SIZING && !r->sz.on && (live || n <= 0))
			continue;
		if (n < 0 && n != -ENOENT) {	/* there, but not readable (EMFILE, EACCES, ...) */
			snprintf(err, sizeof(err), "%s", errno_text((int)n));
			bad_fmt = "cannot read the format";
		} else if (n > 0) {
			snprintf(fe.system, sizeof(fe.system), "%s", tp->system);
			if (fmt_parse_event(&fe, text, (size_t)n, err, sizeof(err)))
				bad_fmt = "bad format file";
			else if (decoder_add(&r->dec, tp, &fe, err, sizeof(err)))
				bad_fmt = "unusable format";
			else
				ok = true;
		}
		if (ok && live && tp->when != WHEN_STACKS) {
			e = tracefs_enable(&r->tf, tp->system, tp->name);
			if (e) {
				mt_warn("cannot enable %s: %s", name, strerror(-e));
				if (e == -EACCES || e == -EPERM)
					return EXIT_PRIV;
				ok = false;
			}
		}
		if (ok) {
			r->enabled[r->nenabled++] = name;
			if (tp->kind == EV_RENAME)
				r->meta.rename_events = true;
			if (tp->kind == EV_STACK)
				r->stacks = true;	/* a replay of a recording with stacks */
			continue;
		}
		if (tp->kind == EV_STACK)
			r->stacks = false;
		if (tp->need == NEED_REQUIRED) {
			if (bad_fmt && n < 0)
				return mt_fail(EXIT_RUNTIME, "required tracepoint %s: %s: %s", name,
					       bad_fmt, err);
			if (bad_fmt)
				return mt_fail(EXIT_NOEVENT, "required tracepoint %s: %s: %s", name,
					       bad_fmt, err);
			if (live)
				return mt_fail(EXIT_NOEVENT, "required tracepoint %s is missing (kernel "
					       "without page-allocator tracepoints?)", name);
			return mt_fail(EXIT_NOEVENT, "required tracepoint %s is missing in the "
				       "recording", name);
		}
		if (bad_fmt)
			mt_warn("%s: %s: %s", name, bad_fmt, err);
		/* one warning per missing event group is enough; the report lists all */
		if (live && !is_module_event(tp) &&
		    (!r->nmissing || strcmp(r->missing_loss[r->nmissing - 1], tp->loss)))
			mt_warn("warning: %s not available: %s", name, tp->loss);
		r->missing[r->nmissing] = name;
		r->missing_loss[r->nmissing++] = tp->loss;
	}
	if (live)
		module_warning(r);
	return 0;
}

bool setup_have_event(const struct run *r, const char *name)
{
	int i;

	for (i = 0; i < r->nenabled; i++)
		if (!strcmp(r->enabled[i], name))
			return true;
	return false;
}

/*
 * A table's size: the option's, but in a capture kernel, unless --max-tasks or
 * --max-stacks was given, at most @capture: the hash tables are touched all over
 * by a few hundred entries, and what memtrace holds there comes out of the
 * reservation it sizes (make e2e's dracut capture: 159 forks, 228 distinct stacks;
 * a fuller table recycles exited tasks and counts what it cannot keep).
 */
static uint32_t table_size(const struct run *r, uint32_t opt, uint32_t capture)
{
	return r->sz.capture && !r->opt.tables_set && capture < opt ? capture : opt;
}

int setup_stats_reach(struct run *r, uint64_t max_pfn, uint64_t ram_pfn)
{
	struct stats_config cfg = {
		.max_tasks = table_size(r, r->opt.max_tasks, CAPTURE_MAX_TASKS + SLOT_FIRST),
		.max_modules = r->opt.max_modules,
		.max_pfn = max_pfn,
		.ram_pfn = ram_pfn,
		.initmod_start = r->meta.initmod_start,
		.initmod_end = r->meta.initmod_end,
		.rename_events = r->meta.rename_events,
		.exit_ring = r->ops->exit_ring,
		/* without fork/newtask events the first sight roots a command's tree */
		.tree_first_sight = (!setup_have_event(r, "task:task_newtask") &&
				     !setup_have_event(r, "sched:sched_process_fork")) ||
				    r->ops->tree_first_sight,
		.self_pid = r->meta.self_pid,
		.max_stacks = r->stacks ? table_size(r, r->opt.max_stacks, CAPTURE_MAX_STACKS) : 0,
		.cpu_ids = r->cpu_id_bound,
		.classes = r->sz.on,
	};
	int e = stats_init(&r->st, &cfg);

	if (e)
		return mt_fail(EXIT_RUNTIME, "cannot allocate tables (%u tasks, %llu page frames): %s",
			       cfg.max_tasks, (unsigned long long)max_pfn, strerror(-e));
	r->rs.order = calloc(cfg.max_tasks, sizeof(*r->rs.order));
	r->rs.threads = calloc(cfg.max_tasks, sizeof(*r->rs.threads));
	r->rs.pages = calloc(cfg.max_tasks, sizeof(*r->rs.pages));
	r->rs.sel = calloc(cfg.max_tasks, sizeof(*r->rs.sel));
	/* the table's modules and as many untraced ones (meta.extra) */
	r->rs.mod_order = calloc(2 * (size_t)cfg.max_modules, sizeof(*r->rs.mod_order));
	r->meta.extra = calloc(cfg.max_modules, sizeof(*r->meta.extra));
	r->meta.extra_cap = cfg.max_modules;
	if (!r->rs.order || !r->rs.threads || !r->rs.pages || !r->rs.sel || !r->rs.mod_order ||
	    !r->meta.extra)
		return mt_fail(EXIT_RUNTIME, "out of memory");
	return 0;
}

static ssize_t live_format(void *ctx, const char *sys, const char *name, char *buf, size_t size)
{
	return tracefs_read_format(ctx, sys, name, buf, size);
}

/* Before anything is changed: the events memtrace cannot work without. */
static int check_required(struct run *r)
{
	static char text[65536];
	const struct mt_tracepoint *tp;

	for (tp = mt_tracepoints; tp->system; tp++) {
		ssize_t n;

		if (tp->need != NEED_REQUIRED)
			continue;
		n = tracefs_read_format(&r->tf, tp->system, tp->name, text, sizeof(text));
		/* missing is ENOENT; anything else (EMFILE, say) is no verdict on the kernel */
		if (n < 0 && n != -ENOENT)
			return mt_fail(EXIT_RUNTIME, "cannot read the format of required tracepoint "
				       "%s:%s in %s: %s", tp->system, tp->name, r->tf.inst,
				       errno_text((int)n));
		if (n <= 0)
			return mt_fail(EXIT_NOEVENT, "required tracepoint %s:%s is missing in %s "
				       "(kernel without page-allocator tracepoints?)", tp->system,
				       tp->name, r->tf.inst);
	}
	return 0;
}

/* An error of tracefs.c: said, and its exit code. */
static int tracefs_error(int code, const char *err)
{
	mt_warn("%s", err);
	if (code == TFS_ERR_PRIV)
		mt_warn("tracing needs root (CAP_SYS_ADMIN)");
	return code == TFS_ERR_PRIV ? EXIT_PRIV : EXIT_RUNTIME;
}

/*
 * Whether the kernel command line asked for the boot buffer's page events
 * (trace_event= naming kmem:mm_page_alloc): then that buffer was filled for
 * memtrace, which may switch those events off and give its memory back once
 * it has read it (the one change memtrace makes at the top level; docs/boot.md).
 */
static bool boot_pages_asked(void)
{
	char cmdline[4096];
	const char *p;

	if (read_file("/proc/cmdline", cmdline, sizeof(cmdline)) <= 0)
		return false;
	for (p = cmdline; (p = strstr(p, "trace_event=")); p++)
		if (p == cmdline || p[-1] == ' ') {
			size_t n = strcspn(p, " \n");

			if (memmem(p, n, "kmem:mm_page_alloc", 18))
				return true;
		}
	return false;
}

/*
 * The boot buffer's page events, applied: what each task holds now is its
 * seed (no statm seed: it would count those pages twice). Where the command
 * line asked for them, the top level's page events are switched off (they
 * cost every allocation) and its buffer shrunk to a page a CPU: what it gives
 * back is not the capture's (sizing: bootbuf_kib).
 */
static void boot_pages_seed(struct run *r)
{
	static const char *const ev[] = { "events/kmem/mm_page_alloc/enable",
					   "events/kmem/mm_page_free/enable" };
	char p[PATH_MAX], text[64];
	uint64_t before = 0, after = 0, pages;
	size_t i;

	if (!r->meta.boot.page_events)
		return;
	r->seed_tasks = boot_seed(&r->meta.boot, &pages);
	r->seed_pages = pages;
	r->seed = false;
	r->seed_from_boot = true;
	if (!boot_pages_asked())
		return;
	for (i = 0; i < ARRAY_SIZE(ev); i++)
		if (!path_fmt(p, sizeof(p), "%s/%s", r->tf.root, ev[i]))
			write_file(p, "0");
	if (path_fmt(p, sizeof(p), "%s/buffer_total_size_kb", r->tf.root) ||
	    read_file(p, text, sizeof(text)) <= 0)
		return;
	before = strtoull(text, NULL, 10);
	if (!path_fmt(p, sizeof(p), "%s/buffer_size_kb", r->tf.root) && !write_file(p, "1") &&
	    !path_fmt(p, sizeof(p), "%s/buffer_total_size_kb", r->tf.root) &&
	    read_file(p, text, sizeof(text)) > 0)
		after = strtoull(text, NULL, 10);
	if (after && after < before)
		r->sz.bootbuf_kib = before - after;
}

/*
 * --boot-buffer: drain the top-level per-CPU buffers once, before our own
 * instance starts (so no event is seen twice), and keep their module events.
 */
static int ingest_boot_buffer(struct run *r)
{
	uint32_t sub = rb_subbuf_size(&r->layout);
	struct boot_buffer *b = &r->meta.boot;
	uint64_t *max_pages;
	int i, *fds, e;

	if (r->tf.top_level) {
		mt_warn("warning: --boot-buffer ignored: tracing at the top level itself (no "
			"instances)");
		return 0;
	}
	fds = calloc((size_t)r->tf.ncpus, sizeof(*fds));
	max_pages = calloc((size_t)r->tf.ncpus, sizeof(*max_pages));
	if (!fds || !max_pages || boot_init(b, 4 * r->opt.max_modules)) {
		free(fds);
		free(max_pages);
		return mt_fail(EXIT_RUNTIME, "out of memory");
	}
	for (i = 0; i < r->tf.ncpus; i++) {
		unsigned long long kb;
		char p[PATH_MAX], text[64];

		fds[i] = -1;
		if (path_fmt(p, sizeof(p), "%s/per_cpu/cpu%d/trace_pipe_raw", r->tf.root,
			     r->tf.cpu_ids[i]))
			continue;
		fds[i] = open(p, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (fds[i] < 0) {
			mt_warn("--boot-buffer: %s: %s", p, strerror(errno));
			continue;
		}
		/*
		 * At most what the buffer holds, and 2 s in all: whatever the top
		 * level still records (function tracing, say) must not keep us
		 * reading, and the boot waits for us.
		 */
		max_pages[i] = BOOT_MAX_PAGES;
		if (!path_fmt(p, sizeof(p), "%s/per_cpu/cpu%d/buffer_size_kb", r->tf.root,
			      r->tf.cpu_ids[i]) &&
		    read_file(p, text, sizeof(text)) > 0 && (kb = strtoull(text, NULL, 10)))
			max_pages[i] = kb * 1024 / sub + 4;
	}
	b->st = &r->st;		/* its page events (trace_event=kmem:...) through the accounting */
	b->initrd_ts = r->sz.initrd_ts;
	e = boot_read(b, &r->layout, &r->dec, r->tf.ncpus, r->tf.cpu_ids, fds, max_pages,
		      mono_ns() + BOOT_MAX_NS);
	for (i = 0; i < r->tf.ncpus; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	free(fds);
	free(max_pages);
	if (e)
		return mt_fail(EXIT_RUNTIME, "out of memory");
	boot_apply(b, &r->st);
	boot_free(b);	/* the counters stay for the reports */
	r->meta.boot_used = true;
	boot_pages_seed(r);
	mt_warn("boot buffer: %llu records, %u module events used, %llu page events, %llu lost%s",
		(unsigned long long)b->records, b->applied, (unsigned long long)b->page_events,
		(unsigned long long)b->lost,
		b->truncated ? "; not read to the end (still recording)" : "");
	memwatch_boot(r);
	return 0;
}

/*
 * Descriptors open now below @limit (inherited ones too): a new one takes the
 * lowest number free, so only those below the limit take room under it.
 */
static unsigned long fds_open_below(long limit)
{
	DIR *d = opendir("/proc/self/fd");
	unsigned long n = 0;
	struct dirent *de;
	int self;

	if (!d)
		return 3;	/* no /proc: stdio */
	self = dirfd(d);
	while ((de = readdir(d))) {
		long fd = strtol(de->d_name, NULL, 10);

		n += de->d_name[0] != '.' && fd != self && fd < limit;
	}
	closedir(d);
	return n;
}

/*
 * What memtrace opens beside the CPUs' fds and what is open at the setup,
 * measured per mode (tests/scale.sh finds the least limit each runs at): the
 * instance's lock and trace_pipe, free_buffer, the instances' lock and one
 * file read or written at a time; a COMMAND's go and error pipes, --record's
 * meta and seed files (--daemon's ready pipe and --stream's output are open by
 * then).
 */
static unsigned long fds_own(const struct run *r)
{
	return SETUP_FD_OWN + (r->opt.command ? 4 : 0) + (r->opt.record_dir ? 3 : 0);
}

/*
 * One fd per CPU (one more with --record, one more while --boot-buffer reads
 * the top level), and what memtrace holds beside them (fds_own()):
 * RLIMIT_NOFILE's soft limit is raised when it is lower (memstrack fails on
 * 224 CPUs there), with SETUP_FD_MARGIN to spare, and said when the hard
 * limit is lower still: then the CPUs that fit are traced. A hard limit that
 * leaves no CPU the fds it needs is an error before anything in tracefs is
 * made, not a failure halfway through the setup. The CPUs are those of the
 * top level's per_cpu (an instance has the same). The command of command mode
 * gets back the limit it had. 0, or an exit code (said).
 */
static int setup_fd_limit(struct run *r)
{
	char dir[PATH_MAX];
	unsigned long need, own, each, spare;
	int *ids, n, first_out, last;
	long have;

	if (path_fmt(dir, sizeof(dir), "%s/per_cpu", r->tf.root) || (n = cpu_dirs(dir, &ids)) <= 0)
		return 0;	/* said later, by tracefs_open_cpus() */
	last = ids[n - 1];
	each = 1u + (r->opt.record_dir != NULL) + (r->opt.boot_buffer && !r->tf.top_level);
	spare = SETUP_FD_MARGIN + (unsigned long)n * each;
	own = fds_open_below(LONG_MAX) + fds_own(r);
	need = own + (unsigned long)n * each;
	have = nofile_raise(need > spare ? need : spare, &r->nofile_was);
	r->nofile_raised = have >= 0 && r->nofile_was.rlim_cur != RLIM_INFINITY &&
			   (unsigned long)have > r->nofile_was.rlim_cur;
	if (have < 0) {
		free(ids);
		return 0;
	}
	/* what is open now takes room only below the limit */
	own = fds_open_below(have) + fds_own(r);
	need = own + (unsigned long)n * each;
	if ((unsigned long)have >= need) {
		free(ids);
		return 0;
	}
	if ((unsigned long)have < own + each) {
		free(ids);
		return mt_fail(EXIT_RUNTIME, "RLIMIT_NOFILE's hard limit is %ld open files; memtrace "
			       "needs at least %lu here (%lu for itself and its outputs, %lu for a "
			       "CPU), %lu to trace all %d CPUs: raise it (ulimit -n %lu; LimitNOFILE= "
			       "in a unit); nothing was traced or run", have, own + each, own, each,
			       need, n, need);
	}
	/* the CPUs that fit, leaving the fds everything else needs */
	r->tf.max_cpu_fds = (int)(((unsigned long)have - own) / each);
	first_out = ids[r->tf.max_cpu_fds];
	free(ids);
	mt_warn("warning: %d CPUs need %lu open files; RLIMIT_NOFILE's hard limit is %ld: "
		"%d of %d CPUs traced, cpu%d..cpu%d not (raise it: ulimit -Hn, LimitNOFILE=)", n,
		need, have, r->tf.max_cpu_fds, n, first_out, last);
	return 0;
}

/* tracefs found, the instance made and configured, its sub-buffer layout read. */
/*
 * The instance's name: --instance, else the daemon's well-known one, else one of
 * this run's own (memtrace-MODE-PID: a pid is unique while its memtrace runs).
 */
static const char *instance_name(const struct run *r, char *buf, size_t size)
{
	if (r->opt.instance)
		return r->opt.instance;
	if (r->ops->well_known_instance)
		return DEFAULT_INSTANCE;
	snprintf(buf, size, "%s-%s-%d", DEFAULT_INSTANCE, r->ops->name, (int)getpid());
	return buf;
}

/*
 * The ring buffer per CPU: -b's, else the default, but in a capture kernel
 * (memwatch_setup()) a smaller one, --stacks or not: there memtrace's own memory
 * is taken from the reservation it sizes, one CPU reads (nr_cpus=1) and the
 * boot's rates are low; make e2e's kdump boots lose nothing with it (their
 * reports say lost events: 0).
 */
static unsigned setup_buffer_kb(const struct run *r)
{
	long cpus = sysconf(_SC_NPROCESSORS_CONF);
	unsigned kb;

	if (r->opt.buffer_set || !r->sz.capture)
		return r->opt.buffer_kb;
	kb = CAPTURE_BUFFER_KB / (unsigned)(cpus > 0 ? cpus : 1);
	if (kb < CAPTURE_BUFFER_MIN_KB)
		kb = CAPTURE_BUFFER_MIN_KB;
	return kb < r->opt.buffer_kb ? kb : r->opt.buffer_kb;
}

static int setup_instance(struct run *r)
{
	static char text[65536];
	char err[PATH_MAX + 256], name[64];
	ssize_t n;
	int code;

	code = tracefs_find(&r->tf, r->opt.tracefs_dir, "/proc", err, sizeof(err));
	if (code)
		return tracefs_error(code, err);
	r->tracefs_up = true;	/* from here on every exit path tears down */
	if (TEST_FAIL_AT(r, "find"))
		return EXIT_RUNTIME;
	code = setup_fd_limit(r);
	if (code)
		return code;
	code = tracefs_instance_create(&r->tf, instance_name(r, name, sizeof(name)), "/proc", err,
				       sizeof(err));
	if (!code && TEST_FAIL_AT(r, "instance"))
		return EXIT_RUNTIME;
	if (!code && (code = check_required(r)))
		return code;
	r->buffer_kb = setup_buffer_kb(r);
	if (!code)
		code = tracefs_configure(&r->tf, r->buffer_kb, BUFFER_PERCENT, getpid(), err,
					 sizeof(err));
	if (code)
		return tracefs_error(code, err);
	if (TEST_FAIL_AT(r, "configure"))
		return EXIT_RUNTIME;
	n = tracefs_read_header_page(&r->tf, text, sizeof(text));
	if (n < 0)
		return mt_fail(n == -ENOENT ? EXIT_NOEVENT : EXIT_RUNTIME,
			       "%s/events/header_page: %s", r->tf.inst, errno_text((int)n));
	if (fmt_parse_header_page(&r->layout, text, (size_t)n, err, sizeof(err)))
		return mt_fail(EXIT_RUNTIME, "%s", err);
	return 0;
}

/* The highest CPU number + 1 of a per_cpu directory (1 if none can be read). */
static uint32_t cpu_bound(const char *per_cpu)
{
	int *ids, n = cpu_dirs(per_cpu, &ids);
	uint32_t b = n > 0 ? (uint32_t)ids[n - 1] + 1 : 1;

	free(ids);
	return b;
}

/*
 * --stacks: the stacktrace trigger on the instance's mm_page_alloc. Without
 * it (or without the kernel_stack format), no stacks: said once.
 */
static void setup_stacks(struct run *r)
{
	char dir[PATH_MAX];
	int e;

	if (!setup_have_event(r, "ftrace:kernel_stack")) {
		mt_warn("warning: --stacks: no ftrace:kernel_stack format here: no stacks");
		r->stacks = false;
		return;
	}
	e = tracefs_stack_trigger(&r->tf);
	if (e) {
		mt_warn("warning: --stacks: cannot set the stacktrace trigger: %s: no stacks",
			strerror(-e));
		r->stacks = false;
		return;
	}
	if (!path_fmt(dir, sizeof(dir), "%s/per_cpu", r->tf.inst))
		r->cpu_id_bound = cpu_bound(dir);
}

/*
 * The tables, sized for this machine's page frames: the pfn maps reach as far
 * as memory added later may (the CPU's physical addresses), reserved without
 * committing; where that much address space cannot be had, as far as the
 * memory there is now (said: what is added later is counted, not tracked).
 */
static int setup_live_stats(struct run *r)
{
	const char *root = TEST_HOOK_OR(r, pfn_root, "/proc");
	uint64_t ram;
	int code;

	if (setup_have_event(r, "module:module_put") &&
	    proc_initmod_range("/proc", &r->meta.initmod_start, &r->meta.initmod_end)) {
		r->meta.initmod_start = r->meta.initmod_end = 0;
		if (!setup_have_event(r, "syscalls:sys_enter_finit_module"))
			mt_warn("warning: do_init_module not found in /proc/kallsyms: the first "
				"module_put of the loader ends a module bracket");
	}
	ram = proc_max_pfn(root);
	if (!ram) {
		mt_warn("warning: no page-frame range in %s/zoneinfo; assuming %llu frames", root,
			(unsigned long long)REPLAY_MAX_PFN);
		ram = REPLAY_MAX_PFN;
	}
	r->meta.self_pid = (int32_t)getpid();
	code = setup_stats_reach(r, pfnmap_reach(ram, proc_phys_bits(root), r->meta.page_size),
				 ram);
	r->meta.max_pfn = r->st.cfg.max_pfn;
	r->meta.ram_pfn = ram;
	if (!code && r->st.map_short)
		mt_warn("warning: no address space for a page-frame map beyond the memory there is "
			"now (%llu MiB): pages of memory added later are counted, not tracked",
			(unsigned long long)(ram * r->meta.page_size >> 20));
	return code;
}

/* The running tasks, as the seed of their pages (after tracing is on). */
static void seed(struct run *r)
{
	struct seed_result res;
	int e;

	/* not us, nor the parent that waits for readiness (it exits then) */
	e = seed_from_proc("/proc", &r->st, mono_ns, getpid(), r->ready_fd >= 0 ? r->ready_parent : 0,
		      &res);
	if (e)
		mt_warn("warning: cannot seed tasks from /proc: %s (%u seeded before it)",
			strerror(-e), res.tasks);
	r->seed_tasks = res.tasks;
	r->seed_pages = res.pages;
	stats_link_threads(&r->st);
	if (r->opt.record_dir && record_write_seed(&r->rec, r->opt.record_dir, &r->st))
		mt_warn("--record: cannot write the seed file");
}

/*
 * --record's end, after the stop's teardown: the files closed, memtrace.meta
 * written ("complete 1" only if every write of the recording succeeded), the
 * stacks' symbols saved. An incomplete recording (said by record_finish()) is
 * a failed run.
 */
static int record_end(struct run *r)
{
	struct timespec ts;
	int e;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	r->meta.uptime_s = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
	record_finish(&r->rec, r->opt.record_dir, &r->meta, &r->rd, &r->st);
	e = stackreport_save_symbols(r, r->opt.record_dir);
	if (e)
		mt_warn("--record: cannot save the stacks' symbols (%s/memtrace.kallsyms): %s",
			r->opt.record_dir, strerror(-e));
	return record_failed(&r->rec) ? EXIT_RUNTIME : EXIT_OK;
}

/* The kernel release, host name and wall clock of a live run's start into @m. */
static void setup_identity(struct meta *m)
{
	struct utsname u;
	struct timespec now;

	if (!uname(&u)) {
		meta_word(m->kernel, sizeof(m->kernel), u.release);
		meta_word(m->host, sizeof(m->host), u.nodename);
	}
	if (!clock_gettime(CLOCK_REALTIME, &now) && now.tv_sec > 0)
		m->started_at = now.tv_sec;
}

int setup_tracing(struct run *r)
{
	char err[PATH_MAX + 256];
	long psz = sysconf(_SC_PAGESIZE);
	int code;

	r->mode_name = r->opt.record_dir ? "record" : "live";
	/* every byte figure is pages times this: never a guess (sysconf's -1 is no page size) */
	if (psz < 0 || !page_size_ok((uint64_t)psz))
		return mt_fail(EXIT_RUNTIME, "no page size from sysconf(_SC_PAGESIZE) (%ld)", psz);
	r->meta.page_size = (uint32_t)psz;
	/* the memory before memtrace's ring buffers and tables (what a kdump reservation
	 * must hold besides the capture's own): in the report; unknown where unreadable */
	if (proc_mem("/proc", &r->meta.mem_start))
		mt_warn("warning: cannot read /proc/meminfo: the memory at the start is not reported");
	setup_identity(&r->meta);
	memwatch_setup(r);
	code = setup_instance(r);
	if (code)
		return code;
	code = setup_events(r, live_format, &r->tf, true);
	if (code)
		return code;
	if (TEST_FAIL_AT(r, "events"))
		return EXIT_RUNTIME;
	if (r->stacks)
		setup_stacks(r);
	code = setup_live_stats(r);
	if (code)
		return code;
	if (r->stacks)
		enrich_module_ranges(r, 0);
	if (TEST_FAIL_AT(r, "stats"))
		return EXIT_RUNTIME;
	code = tracefs_open_cpus(&r->tf, err, sizeof(err));
	if (code)
		return tracefs_error(code, err);
	if (TEST_FAIL_AT(r, "cpus"))
		return EXIT_RUNTIME;
	if (reader_init(&r->rd, &r->layout, &r->dec, r->tf.ncpus, r->tf.cpu_ids, r->tf.fds, true,
			r->tf.clock_mono, r->ops->sink ? r->ops->sink : setup_sink, r))
		return mt_fail(EXIT_RUNTIME, "out of memory");
	r->reader_up = true;
	if (r->opt.record_dir) {
		if (record_start(&r->rec, r->opt.record_dir, &r->tf, r->enabled, r->nenabled, &r->rd))
			return EXIT_RUNTIME;
		r->at_stop = record_end;
	}
	if (TEST_FAIL_AT(r, "record"))
		return EXIT_RUNTIME;
	if (r->opt.boot_buffer && (code = ingest_boot_buffer(r)))
		return code;
	/* after the boot buffer (its modules are known; its events stop nothing), right
	 * before tracing begins */
	setup_pick_sink(r);
	enrich_modules_before(r);
	if (TEST_HOOK(r, setup_delay_ms))	/* a setup as slow as a stuck drain */
		sleep_ms(TEST_HOOK(r, setup_delay_ms));
	if (signals_term_pending())
		return mt_fail(EXIT_RUNTIME, "stopped by a signal during setup");
	code = tracefs_tracing_on(&r->tf, true);
	if (code)
		return mt_fail(EXIT_RUNTIME, "cannot start tracing: %s", errno_text(code));
	memwatch_start(r);
	if (TEST_FAIL_AT(r, "tracing"))
		return EXIT_RUNTIME;
	if (r->seed)
		seed(r);
	if (TEST_FAIL_AT(r, "seed"))
		return EXIT_RUNTIME;
	return 0;
}

/*
 * MCL_ONFAULT locks the pfn map and the task table as they are used instead of
 * filling them now. No MCL_FUTURE: without CAP_IPC_LOCK it turns
 * RLIMIT_MEMLOCK into a limit on every later allocation, and a report's
 * would fail (the tables themselves did, under systemd's capability bounding).
 */
void setup_self_protect(void)
{
	int e;

	if (mlockall(MCL_CURRENT | MCL_ONFAULT))
		mt_warn("memory not locked (%s); its pages may be swapped out under memory "
			"pressure", strerror(errno));
	/* without CAP_SYS_RESOURCE (a container, a unit's CapabilityBoundingSet=): said */
	e = write_file("/proc/self/oom_score_adj", "-1000");
	if (e)
		mt_warn("oom_score_adj not set to -1000 (%s); the OOM killer may choose memtrace",
			strerror(-e));
}

void setup_banner(const struct run *r)
{
	char cpus[48];
	int i, open = 0;

	/* the CPUs read: those left without an fd (RLIMIT_NOFILE) or offline are not */
	for (i = 0; r->tf.fds && i < r->tf.ncpus; i++)
		open += r->tf.fds[i] >= 0;
	if (open == r->tf.ncpus)
		snprintf(cpus, sizeof(cpus), "%d CPUs", r->tf.ncpus);
	else
		snprintf(cpus, sizeof(cpus), "%d of %d CPUs", open, r->tf.ncpus);
	fprintf(stderr, "memtrace %s: tracing in %s (%s, %u KiB per CPU, %d events), pid %d, "
		"log %s\n", MEMTRACE_VERSION, r->tf.inst, cpus, r->buffer_kb, r->nenabled,
		(int)getpid(), r->ops->log_without_o && !r->opt.output_set ? r->ops->log_without_o :
		r->opt.log_path);
}
