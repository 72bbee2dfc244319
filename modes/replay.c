// SPDX-License-Identifier: GPL-2.0-only
/* modes/replay.c - --replay DIR: the report of a recording, as the live run would have made it */
#include "modes/replay.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/build.h"
#include "kernel/format.h"
#include "run/loop.h"
#include "input/record.h"
#include "output/reportto.h"
#include "run/setup.h"
#include "signals.h"
#include "lib/util.h"

/*
 * The recording: its directory, opened once; every file is opened below it
 * through no symlink, and only regular files on a plain filesystem (never live
 * kernel files: reading a trace_pipe_raw consumes another tracer's events).
 */
struct replay_state {
	int dfd;		/* the recording's directory (open_recording()) */
	dev_t dev;		/* ... its filesystem, which fs_special() found plain */
	bool refused;		/* a symlink or a live file was found: said, exit 1 */
	uint32_t seeds_full;	/* seeds that found no slot in the task table (--max-tasks) */
	char *meta;		/* memtrace.meta, NULL if none */
	ssize_t meta_len;	/* its length, -1 if none */
};

#define META_MAX	(64u << 20)	/* memtrace.meta, memtrace.seed: beyond is an error */
#define SEED_MAX	(1u << 30)

/*
 * The part of @rel that is a symlink (a directory such as "events" as well as
 * the file itself): the first component lstat() says is one; @rel if none is
 * found (it changed meanwhile). Into @buf.
 */
static const char *symlink_part(int dfd, const char *rel, char *buf, size_t size)
{
	struct stat st;
	size_t n = strlen(rel), i;

	if (n >= size)
		return rel;
	memcpy(buf, rel, n + 1);
	for (i = 0; i <= n; i++) {
		if (buf[i] != '/' && buf[i] != '\0')
			continue;
		buf[i] = '\0';
		if (!fstatat(dfd, buf, &st, AT_SYMLINK_NOFOLLOW) && S_ISLNK(st.st_mode))
			return buf;
		buf[i] = rel[i];
	}
	return rel;
}

/* a symlink or a special file where a recording has regular files: refused, said once */
static int refuse(const struct run *r, const char *rel, int e)
{
	struct replay_state *rp = r->mode;
	char part[PATH_MAX];

	if (e == -ELOOP)
		mt_warn("%s/%s: a symbolic link: refused (a recording holds directories and regular "
			"files only; copy the recording with cp -rL to follow its links)",
			r->opt.replay_dir, symlink_part(rp->dfd, rel, part, sizeof(part)));
	else
		mt_warn("%s/%s: %s: refused (a recording holds regular files only)",
			r->opt.replay_dir, rel, e == -EXDEV ?
			"on a live kernel filesystem (tracefs, proc, sysfs, ...)" :
			"not a regular file");
	rp->refused = true;
	return e;
}

/*
 * @rel of the recording, opened for reading (its stat into *@st); -errno (a
 * symlink or live file said). A regular file on the directory's own
 * filesystem is on a plain one: no fstatfs().
 */
static int rec_open_stat(const struct run *r, const char *rel, int flags, struct stat *st)
{
	struct replay_state *rp = r->mode;
	int fd = open_beneath_stat(rp->dfd, rel, O_RDONLY | flags, 0, st);

	if (fd == -ELOOP)
		return refuse(r, rel, fd);
	if (fd >= 0 && !(S_ISREG(st->st_mode) && st->st_dev == rp->dev) && fs_special(fd)) {
		close(fd);
		return refuse(r, rel, -EXDEV);
	}
	return fd;
}

static int rec_open(const struct run *r, const char *rel, int flags)
{
	struct stat st;

	return rec_open_stat(r, rel, flags, &st);
}

static ssize_t read_fd(int fd, char *buf, size_t size)
{
	size_t len = 0;

	while (len < size - 1) {
		ssize_t n = read(fd, buf + len, size - 1 - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	return (ssize_t)len;
}

/* A file of the recording, into @buf; its length, or -errno. */
static ssize_t read_rec(const struct run *r, const char *name, char *buf, size_t size)
{
	int fd = rec_open(r, name, 0);
	ssize_t n;

	if (fd < 0)
		return fd;
	n = read_fd(fd, buf, size);
	close(fd);
	return n;
}

/* A file of the recording, whole (up to @limit: beyond is said, an error); -errno. */
static ssize_t read_rec_alloc(const struct run *r, const char *name, char **buf, size_t limit)
{
	int fd = rec_open(r, name, 0);
	ssize_t n;

	*buf = NULL;
	if (fd < 0)
		return fd;
	n = read_fd_alloc(fd, buf, limit);
	close(fd);
	if (n == -EFBIG || n == -ENOMEM)
		mt_warn("%s/%s: %s (more than %zu MiB)", r->opt.replay_dir, name,
			n == -EFBIG ? "too large" : "out of memory", limit >> 20);
	return n;
}

static ssize_t replay_format(void *ctx, const char *sys, const char *name, char *buf,
			     size_t size)
{
	char p[PATH_MAX];

	if (path_fmt(p, sizeof(p), "events/%s/%s/format", sys, name))
		return -ENAMETOOLONG;
	return read_rec(ctx, p, buf, size);
}

/* What rec_open()'s -errno @e says of a file (-EINVAL: open_beneath() found it not regular). */
static const char *rec_why(long e)
{
	return e == -EINVAL ? "not a regular file" : strerror((int)-e);
}

/*
 * The recorded per-CPU file, or /dev/null (said) when it cannot be read to an
 * end; its size into *@size (-1: /dev/null).
 */
static int open_cpu(const struct run *r, int cpu, int64_t *size)
{
	char p[PATH_MAX];
	struct stat st;
	int fd;

	*size = -1;
	if (path_fmt(p, sizeof(p), "per_cpu/cpu%d/trace_pipe_raw", cpu))
		return -1;
	fd = rec_open_stat(r, p, 0, &st);
	if (fd == -ELOOP || fd == -EXDEV)
		return fd;
	if (fd < 0) {
		/* a FIFO or a device would never end */
		mt_warn("%s/%s: %s (CPU skipped)", r->opt.replay_dir, p, rec_why(fd));
		return open("/dev/null", O_RDONLY | O_CLOEXEC);
	}
	*size = (int64_t)st.st_size;
	return fd;
}

/*
 * The recording's directory (the user's path may be a symlink; nothing below
 * it is followed) and the files read by others (memtrace.kallsyms, for
 * --stacks): EXIT_OK or said.
 */
static int open_recording(struct run *r)
{
	struct replay_state *rp = r->mode;
	struct stat st;

	rp->dfd = open(r->opt.replay_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (rp->dfd < 0)
		return mt_fail(EXIT_RUNTIME, "--replay %s: %s", r->opt.replay_dir, strerror(errno));
	if (fs_special(rp->dfd))
		return refuse(r, ".", -EXDEV), EXIT_RUNTIME;
	if (fstat(rp->dfd, &st))
		return mt_fail(EXIT_RUNTIME, "--replay %s: %s", r->opt.replay_dir, strerror(errno));
	rp->dev = st.st_dev;
	/* stackreport.c opens it by name: it must be what a recording holds */
	if (!fstatat(rp->dfd, "memtrace.kallsyms", &st, AT_SYMLINK_NOFOLLOW) &&
	    !S_ISREG(st.st_mode))
		return refuse(r, "memtrace.kallsyms", S_ISLNK(st.st_mode) ? -ELOOP : -EINVAL),
		       EXIT_RUNTIME;
	return EXIT_OK;
}

/* The CPUs of per_cpu/: their number with *@ids set, or -errno (said). */
static int rec_cpus(struct run *r, int **ids)
{
	int fd = rec_open(r, "per_cpu", O_DIRECTORY), n;
	DIR *d;

	*ids = NULL;
	if (fd == -ELOOP || fd == -EXDEV)
		return fd;
	if (fd < 0 || !(d = fdopendir(fd))) {
		n = fd < 0 ? fd : -errno;
		if (fd >= 0)
			close(fd);
		mt_warn("%s/per_cpu: %s", r->opt.replay_dir, strerror(-n));
		return n;
	}
	n = cpu_dirs_read(d, ids);
	closedir(d);
	if (n < 0)
		mt_warn("%s/per_cpu: %s", r->opt.replay_dir, strerror(-n));
	return n;
}

/* signals_fault_mapped(): a recording's file cut short while it is mapped */
static int replay_map_fault(void *ctx)
{
	return reader_map_fault(ctx);
}

/* The recording's layout, events, tables, seed and CPUs, read as live setup would make them. */
static int replay_setup_read(struct run *r)
{
	struct replay_state *rp = r->mode;
	static char text[65536];
	char err[256], *seeds;
	int *cpu_ids = NULL, *fds, n, i, code;
	int64_t *sizes;
	uint32_t bad_first = 0;
	ssize_t len;

	r->mode_name = "replay";
	r->meta.page_size = 0;		/* the recording's, below */
	r->meta.byte_order = RB_ORDER_UNKNOWN;
	r->meta.max_pfn = REPLAY_MAX_PFN;
	code = open_recording(r);
	if (code)
		return code;
	len = read_rec(r, "events/header_page", text, sizeof(text));
	if (len < 0)
		return rp->refused ? EXIT_RUNTIME :
		       mt_fail(EXIT_RUNTIME, "%s/events/header_page: %s", r->opt.replay_dir,
			       strerror((int)-len));
	if (fmt_parse_header_page(&r->layout, text, (size_t)len, err, sizeof(err)))
		return mt_fail(EXIT_RUNTIME, "%s/events/header_page: %s", r->opt.replay_dir, err);
	rp->meta_len = read_rec_alloc(r, META_FILE, &rp->meta, META_MAX);
	if (rp->refused || rp->meta_len == -EFBIG || rp->meta_len == -ENOMEM)
		return EXIT_RUNTIME;
	/* none: an older recording; there but not read (a FIFO, a directory, EIO): damaged */
	if (rp->meta_len < 0 && rp->meta_len != -ENOENT)
		return mt_fail(EXIT_RUNTIME, "%s/" META_FILE ": %s: whether the recording is "
			       "complete, and what it lost, cannot be known", r->opt.replay_dir,
			       rec_why(rp->meta_len));
	if (rp->meta_len >= 0)
		meta_parse(rp->meta, (size_t)rp->meta_len, &r->meta, NULL, NULL, &bad_first);
	/* older recordings say no kernel: make e2e's guests keep uname -r in a file beside */
	if (!r->meta.kernel[0] && read_rec(r, "uname-r", text, sizeof(r->meta.kernel)) > 0)
		meta_word(r->meta.kernel, sizeof(r->meta.kernel), text);
	if (rp->refused)
		return EXIT_RUNTIME;
	/*
	 * No page size in the meta: the sub-buffer's, which is the kernel's page
	 * (memtrace never changes buffer_subbuf_size_kb), never an assumed 4096.
	 */
	if (!r->meta.page_size) {
		uint32_t sub = rb_subbuf_size(&r->layout);

		r->meta.page_size = page_size_ok(sub) ? sub : 4096;
		if (rp->meta_len >= 0)
			mt_warn("warning: %s/%s gives no page size: %u bytes, the sub-buffer's",
				r->opt.replay_dir, META_FILE, r->meta.page_size);
	}
	/* the recording's byte order where it says one; the pages have the last word */
	if (r->meta.byte_order != RB_ORDER_UNKNOWN)
		r->layout.big_endian = r->meta.byte_order == RB_ORDER_BE;
	if (r->meta.word_size && r->meta.word_size != r->layout.commit_size)
		mt_warn("warning: %s: memtrace.meta says %u-byte words, events/header_page %u: "
			"header_page's are used", r->opt.replay_dir, r->meta.word_size,
			r->layout.commit_size);
	code = setup_events(r, replay_format, r, false);
	if (rp->refused)
		return EXIT_RUNTIME;
	if (code)
		return code;
	n = rec_cpus(r, &cpu_ids);
	if (n < 0)
		return EXIT_RUNTIME;
	if (n == 0) {	/* a report of nothing would look like a machine at rest */
		free(cpu_ids);
		return mt_fail(EXIT_RUNTIME, "%s/per_cpu: no cpuN directory: not a recording",
			       r->opt.replay_dir);
	}
	/* no kernel has more (NR_CPUS is at most 8192): a recording changed or damaged */
	if (n > REPLAY_MAX_CPUS || cpu_ids[n - 1] >= REPLAY_MAX_CPUS) {
		code = cpu_ids[n - 1];
		free(cpu_ids);
		return mt_fail(EXIT_RUNTIME, "%s/per_cpu: %d cpuN directories, the last cpu%d: no "
			       "kernel has more than %d CPUs: not a recording", r->opt.replay_dir, n,
			       code, REPLAY_MAX_CPUS);
	}
	if (nofile_raise(SETUP_FD_MARGIN + (unsigned long)n, &r->nofile_was) <
	    (long)(SETUP_FD_MARGIN + (unsigned long)n))
		mt_warn("warning: %d CPUs need %d open files; RLIMIT_NOFILE allows fewer: some "
			"are skipped (raise it: ulimit -Hn)", n, SETUP_FD_MARGIN + n);
	r->cpu_id_bound = n ? (uint32_t)cpu_ids[n - 1] + 1 : 1;
	code = setup_stats_reach(r, r->meta.max_pfn, r->meta.ram_pfn);
	if (code) {
		free(cpu_ids);
		return code;
	}
	if (r->st.map_short)
		mt_warn("warning: no address space for the recording's page-frame map; pages "
			"beyond its memory at the start are counted, not tracked");
	/* modules from the boot buffer came before every event, as when live */
	if (rp->meta_len >= 0)
		meta_parse_boot(rp->meta, (size_t)rp->meta_len, &r->st, &r->replay_bad);
	fds = calloc((size_t)n + 1, sizeof(*fds));
	sizes = calloc((size_t)n + 1, sizeof(*sizes));
	if (!fds || !sizes) {
		free(cpu_ids);
		free(fds);
		free(sizes);
		return mt_fail(EXIT_RUNTIME, "out of memory");
	}
	for (i = 0; i < n; i++)
		fds[i] = open_cpu(r, cpu_ids[i], &sizes[i]);
	if (rp->refused) {	/* no CPU file is read: close what was opened */
		for (i = 0; i < n; i++)
			if (fds[i] >= 0)
				close(fds[i]);
		free(cpu_ids);
		free(fds);
		free(sizes);
		return EXIT_RUNTIME;
	}
	i = reader_init(&r->rd, &r->layout, &r->dec, n, cpu_ids, fds, false, true, setup_sink, r);
	free(cpu_ids);
	free(fds);	/* the reader keeps the fds; replay_loop closes them */
	if (i) {
		free(sizes);
		return mt_fail(EXIT_RUNTIME, "out of memory");
	}
	r->reader_up = true;
	setup_pick_sink(r);
	/* the files mapped, not read (the boot build reads them: its size matters more there) */
	if (BUILD_FULL) {
		reader_files(&r->rd, sizes);
		signals_fault_mapped(replay_map_fault, &r->rd);
	}
	free(sizes);
	/* all of it, however many tasks the recorder had: a limit hit is an error */
	len = read_rec_alloc(r, SEED_FILE, &seeds, SEED_MAX);
	if (rp->refused || len == -EFBIG || len == -ENOMEM)
		return EXIT_RUNTIME;
	if (len < 0 && len != -ENOENT)	/* there, not read: the seeds would be missing unsaid */
		return mt_fail(EXIT_RUNTIME, "%s/" SEED_FILE ": %s: the tasks' pages at the start "
			       "cannot be known (without the file, the replay has no seeds)",
			       r->opt.replay_dir, rec_why(len));
	if (len >= 0)
		r->seed_tasks = seed_parse(seeds, (size_t)len, &r->st, &r->seed_pages,
					   &r->replay_bad, &rp->seeds_full);
	if (rp->seeds_full)
		mt_warn("%u tasks of %s/" SEED_FILE " did not fit the task table (--max-tasks): "
			"their seeded pages are not counted; replay with --max-tasks %u or more",
			rp->seeds_full, r->opt.replay_dir, r->seed_tasks + rp->seeds_full);
	free(seeds);
	stats_link_threads(&r->st);
	return 0;
}

/* replay_setup_read(); a recording refused after memtrace.meta was read lets it go too */
static int replay_setup(struct run *r)
{
	struct replay_state *rp = r->mode;
	int code = replay_setup_read(r);

	if (code) {
		free(rp->meta);
		rp->meta = NULL;
		rp->meta_len = -1;
	}
	return code;
}

/* Every recorded event, then what the recording says of the end. */
static int replay_loop(struct run *r)
{
	struct replay_state *rp = r->mode;
	int i;

	reader_run(&r->rd, true, 0);
	for (i = 0; i < r->rd.ncpus; i++) {
		if (r->rd.cpus[i].fd >= 0)
			close(r->rd.cpus[i].fd);
		r->rd.cpus[i].fd = -1;
	}
	/* per-CPU loss and module sizes as recorded at the end */
	if (rp->meta_len >= 0)
		meta_parse(rp->meta, (size_t)rp->meta_len, &r->meta, &r->rd, &r->st, &r->replay_bad);
	free(rp->meta);
	rp->meta = NULL;
	rp->meta_len = -1;
	if (r->replay_bad)
		mt_warn("%u malformed lines in %s/memtrace.{meta,seed} skipped", r->replay_bad,
			r->opt.replay_dir);
	return 0;
}

/* The report on stdout, or with -o FILE replaced atomically as the daemon's log (else on stderr). */
static int replay_finish(struct run *r)
{
	char err[PATH_MAX + 128];
	int code = EXIT_OK;

	if (!r->opt.output_set)
		report_to(r, REPORT_FD(STDOUT_FILENO), "replay");
	else if (report_final(r, "replay", err, sizeof(err)))
		code = EXIT_RUNTIME;
	/* the report says it too; this is for whoever reads only stderr and the status */
	if (r->meta.incomplete) {
		mt_warn("%s: the recording is incomplete (%s): the report misses what was not "
			"saved", r->opt.replay_dir, r->meta.why[0] ? r->meta.why : "no reason given");
		return EXIT_RUNTIME;
	}
	return code;
}

/* A replay reads no signals: TERM and INT end it as they end any program. */
static const struct sig_table replay_signals = { .none = true };

const struct mode_ops replay_ops = {
	.name = "replay",
	.state_size = sizeof(struct replay_state),
	.live = false,
	.signals = &replay_signals,
	.reports_modules = true,
	.log_without_o = "stdout",		/* the report: stdout, or -o FILE */
	.final_to_log = true,
	.setup = replay_setup,
	.loop = replay_loop,
	.finish = replay_finish,
};
