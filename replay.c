// SPDX-License-Identifier: GPL-2.0-only
/* replay.c - --replay DIR: the report of a recording, as the live run would have made it */
#include "replay.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format.h"
#include "loop.h"
#include "record.h"
#include "setup.h"
#include "util.h"

static ssize_t replay_format(void *ctx, const char *sys, const char *name, char *buf,
			     size_t size)
{
	char p[PATH_MAX];

	if (path_fmt(p, sizeof(p), "%s/events/%s/%s/format", (const char *)ctx, sys, name))
		return -ENAMETOOLONG;
	return read_file(p, buf, size);
}

/* A file of the recording, into @buf; its length, or -errno. */
static ssize_t read_rec(const struct run *r, const char *name, char *buf, size_t size)
{
	char p[PATH_MAX];

	if (path_fmt(p, sizeof(p), "%s/%s", r->opt.replay_dir, name))
		return -ENAMETOOLONG;
	return read_file(p, buf, size);
}

/* The recorded per-CPU file, or /dev/null (said) when it cannot be read to an end. */
static int open_cpu(const struct run *r, int cpu)
{
	char p[PATH_MAX];
	struct stat sb;
	int fd;

	if (path_fmt(p, sizeof(p), "%s/per_cpu/cpu%d/trace_pipe_raw", r->opt.replay_dir, cpu))
		return -1;
	fd = open(p, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd >= 0 && (fstat(fd, &sb) || !S_ISREG(sb.st_mode))) {
		close(fd);
		fd = -1;
		errno = EINVAL;	/* a FIFO or a device would never end */
	}
	if (fd < 0) {
		mt_warn("%s: %s (CPU skipped)", p, errno == EINVAL ? "not a regular file" :
			strerror(errno));
		fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	}
	return fd;
}

/* The recording's layout, events, tables, seed and CPUs, read as live setup would make them. */
static int replay_setup(struct run *r)
{
	static char text[65536], seeds[1 << 20];
	char p[PATH_MAX], err[256];
	int *cpu_ids = NULL, *fds, n, i, code;
	uint32_t bad_first = 0;
	ssize_t len;

	r->mode_name = "replay";
	r->meta.page_size = 0;		/* the recording's, below */
	r->meta.byte_order = RB_ORDER_UNKNOWN;
	r->meta.max_pfn = REPLAY_MAX_PFN;
	len = read_rec(r, "events/header_page", text, sizeof(text));
	if (len == -ENAMETOOLONG)
		return EXIT_USAGE;
	if (len < 0)
		return mt_fail(EXIT_RUNTIME, "%s/events/header_page: %s", r->opt.replay_dir,
			       strerror((int)-len));
	if (fmt_parse_header_page(&r->layout, text, (size_t)len, err, sizeof(err)))
		return mt_fail(EXIT_RUNTIME, "%s/events/header_page: %s", r->opt.replay_dir, err);
	if ((len = read_rec(r, META_FILE, text, sizeof(text))) >= 0)
		meta_parse(text, (size_t)len, &r->meta, NULL, NULL, &bad_first);
	/*
	 * No page size in the meta: the sub-buffer's, which is the kernel's page
	 * (memtrace never changes buffer_subbuf_size_kb), never an assumed 4096.
	 */
	if (!r->meta.page_size) {
		uint32_t sub = rb_subbuf_size(&r->layout);

		r->meta.page_size = page_size_ok(sub) ? sub : 4096;
		if (len >= 0)
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
	code = setup_events(r, replay_format, (void *)r->opt.replay_dir, false);
	if (code)
		return code;
	if (path_fmt(p, sizeof(p), "%s/per_cpu", r->opt.replay_dir))
		return EXIT_RUNTIME;
	n = cpu_dirs(p, &cpu_ids);
	if (n < 0)
		return mt_fail(EXIT_RUNTIME, "%s: %s", p, strerror(-n));
	if (n == 0) {	/* a report of nothing would look like a machine at rest */
		free(cpu_ids);
		return mt_fail(EXIT_RUNTIME, "%s: no cpuN directory: not a recording", p);
	}
	if (n > 4096)
		n = 4096;
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
	if ((len = read_rec(r, META_FILE, text, sizeof(text))) >= 0)
		meta_parse_boot(text, (size_t)len, &r->st, &r->replay_bad);
	fds = calloc((size_t)n + 1, sizeof(*fds));
	if (!fds) {
		free(cpu_ids);
		return mt_fail(EXIT_RUNTIME, "out of memory");
	}
	for (i = 0; i < n; i++)
		fds[i] = open_cpu(r, cpu_ids[i]);
	i = reader_init(&r->rd, &r->layout, &r->dec, n, cpu_ids, fds, false, true, setup_sink, r);
	free(cpu_ids);
	free(fds);	/* the reader keeps the fds; replay_loop closes them */
	if (i)
		return mt_fail(EXIT_RUNTIME, "out of memory");
	r->reader_up = true;
	len = read_rec(r, SEED_FILE, seeds, sizeof(seeds));
	if (len != -ENAMETOOLONG) {
		if (len >= 0)
			r->seed_tasks = seed_parse(seeds, (size_t)len, &r->st, &r->seed_pages,
						   &r->replay_bad);
		stats_link_threads(&r->st);
	}
	return 0;
}

/* Every recorded event, then what the recording says of the end. */
static int replay_loop(struct run *r)
{
	static char text[65536];
	ssize_t len;
	int i;

	reader_run(&r->rd, true, 0);
	for (i = 0; i < r->rd.ncpus; i++) {
		if (r->rd.cpus[i].fd >= 0)
			close(r->rd.cpus[i].fd);
		r->rd.cpus[i].fd = -1;
	}
	/* per-CPU loss and module sizes as recorded at the end */
	if ((len = read_rec(r, META_FILE, text, sizeof(text))) >= 0)
		meta_parse(text, (size_t)len, &r->meta, &r->rd, &r->st, &r->replay_bad);
	if (r->replay_bad)
		mt_warn("%u malformed lines in %s/memtrace.{meta,seed} skipped", r->replay_bad,
			r->opt.replay_dir);
	return 0;
}

static int replay_finish(struct run *r)
{
	run_report_stdout(r, "replay");
	return EXIT_OK;
}

const struct mode_ops replay_ops = {
	.name = "replay",
	.live = false,
	.setup = replay_setup,
	.loop = replay_loop,
	.finish = replay_finish,
};
