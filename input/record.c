// SPDX-License-Identifier: GPL-2.0-only
/* input/record.c - what --record saves beside the raw pages, and what --replay reads back */
#include "input/record.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "module.h"
#include "lib/out.h"
#include "tracefs.h"
#include "lib/util.h"

/*
 * The recording being written (one a process): its directory, opened once and
 * locked for the run, every file made below it with openat() and never through
 * a symlink; memtrace.meta, made at the start saying "complete 0" and rewritten
 * at the end; the first write that failed, which makes the recording incomplete.
 */
static struct {
	int dfd;
	int meta_fd;
	int err;		/* errno of the first failed write, 0 if none */
	char what[192];		/* what it was */
} rec = { -1, -1, 0, "" };

/* the offset of the 0 of "complete 0": the second line, after "memtrace-meta 1\n" */
#define COMPLETE_AT	(sizeof("memtrace-meta 1\ncomplete ") - 1)

static void rec_failed(int err, const char *what)
{
	if (rec.err)
		return;
	rec.err = err;
	snprintf(rec.what, sizeof(rec.what), "%s", what);
}

/*
 * @name in the recording (in @dir when none was started: the unit tests),
 * created or emptied; -1 with errno set on failure, like open()
 */
static int open_new(const char *dir, const char *name)
{
	int dfd = rec.dfd, fd;

	if (dfd < 0 && (dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return -1;
	if (strlen(dir) + 1 + strlen(name) >= PATH_MAX)
		fd = -ENAMETOOLONG;
	else
		fd = open_beneath(dfd, name, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (dfd != rec.dfd)
		close(dfd);
	if (fd < 0) {
		errno = -fd;
		return -1;
	}
	return fd;
}

static void hex(struct out *o, const char *s, size_t len)
{
	static const char digits[] = "0123456789abcdef";
	size_t i;

	if (!len)
		out_puts(o, "-");
	for (i = 0; i < len; i++) {
		char h[2] = { digits[(unsigned char)s[i] >> 4], digits[s[i] & 15] };

		out_write(o, h, 2);
	}
}

/* Copy @n bytes of @text to @dir/@rel (created, never through a symlink). */
static int save(const char *dir, const char *rel, const char *text, size_t n)
{
	int fd = open_new(dir, rel), e;

	if (fd < 0)
		return -1;
	e = write_all(fd, text, n);
	if (close(fd) && !e)
		e = -errno;
	if (e) {
		errno = -e;
		return -1;
	}
	return 0;
}

/*
 * --record DIR: made (if @create), or an empty directory of ours (or root's)
 * that nobody else may write to; locked for the run, so that two memtraces
 * never mix their recordings. The fd, or -errno with *@why set when it is
 * refused.
 */
static int open_dir(const char *dir, bool create, const char **why)
{
	struct dirent *de;
	struct stat st;
	bool made = create && !mkdir(dir, 0755);
	int fd, e;
	DIR *d;

	*why = NULL;
	if (create && !made && errno != EEXIST)
		return -errno;
	/* DIR itself may be the user's symlink to a directory; nothing below it */
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | (made ? O_NOFOLLOW : 0));
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		e = -errno;
		goto bad;
	}
	e = -EPERM;
	if (st.st_uid != geteuid() && st.st_uid != 0) {
		*why = "owned by another user: refused";
		goto bad;
	}
	if (st.st_mode & (S_IWGRP | S_IWOTH)) {
		*why = "writable by group or others: refused";
		goto bad;
	}
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		e = -errno;
		if (errno == EWOULDBLOCK)
			*why = "another memtrace is recording there: refused";
		goto bad;
	}
	e = dup(fd);
	if (e < 0 || !(d = fdopendir(e))) {
		e = -errno;
		goto bad;
	}
	while ((e = dir_next(d, &de)) > 0)
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			break;
	closedir(d);
	if (e) {
		if (e > 0) {
			e = -ENOTEMPTY;
			*why = "not empty: refused (a recording goes to a new or empty directory)";
		}
		goto bad;
	}
	return fd;
bad:
	close(fd);
	return e;
}

int record_check(const char *dir, char *err, size_t errlen)
{
	char parent[PATH_MAX], tmp[PATH_MAX];
	const char *why = NULL, *slash;
	struct stat st;
	size_t n;
	int fd;

	/* there: refused or not as record_start() would, the lock released at once */
	if (!lstat(dir, &st)) {
		fd = open_dir(dir, false, &why);
		if (fd < 0)
			return err_fmt(fd, err, errlen, "%s", why ? why : strerror(-fd));
		close(fd);
		return 0;
	}
	if (errno != ENOENT)
		return err_fmt(-errno, err, errlen, "%s", errno_text(errno));
	/* to be made: a directory made and removed beside it, as mkdir() would make it */
	n = strlen(dir);
	while (n > 1 && dir[n - 1] == '/')
		n--;
	slash = memrchr(dir, '/', n);
	if (!slash)
		strcpy(parent, ".");
	else if (snprintf(parent, sizeof(parent), "%.*s", slash == dir ? 1 : (int)(slash - dir),
			  dir) >= (int)sizeof(parent))
		return err_fmt(-ENAMETOOLONG, err, errlen, "%s", strerror(ENAMETOOLONG));
	if (path_fmt(tmp, sizeof(tmp), "%s/.memtrace-record.XXXXXX", parent))
		return err_fmt(-ENAMETOOLONG, err, errlen, "%s", strerror(ENAMETOOLONG));
	if (!mkdtemp(tmp))
		return err_fmt(-errno, err, errlen, "cannot make a directory in %s: %s", parent,
			       errno_text(errno));
	if (rmdir(tmp))
		return err_fmt(-errno, err, errlen, "cannot remove %s: %s", tmp, strerror(errno));
	return 0;
}

int record_start(const char *dir, const struct tracefs *tf, const char *const *enabled,
		 int nenabled, struct reader *rd)
{
	static char text[65536];
	static const char start_meta[] = "memtrace-meta 1\ncomplete 0\n"
					 "incomplete memtrace did not end the recording\n";
	char p[PATH_MAX], src[PATH_MAX];
	const char *why = NULL;
	int i, fd;
	ssize_t n;

	fd = open_dir(dir, true, &why);
	if (fd < 0) {
		errno = -fd;
		goto fail;
	}
	rec.dfd = fd;
	rec.err = 0;
	/*
	 * memtrace.meta first, saying the recording is not complete: so it stays
	 * if we are killed or the disk fills; room kept for the final one, which
	 * then fits on a full disk (where the filesystem can keep room)
	 */
	fd = open_new(dir, META_FILE);
	if (fd < 0)
		goto fail;
	rec.meta_fd = fd;
	if (fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, 65536) && errno != EOPNOTSUPP && errno != ENOSYS)
		goto fail;
	if ((i = write_all(fd, start_meta, sizeof(start_meta) - 1))) {
		errno = -i;
		goto fail;
	}
	for (i = 0; i < 2; i++) {
		const char *f = i ? "events/header_event" : "events/header_page";

		if (tracefs_path(tf, src, sizeof(src), f))
			goto fail;
		n = read_file(src, text, sizeof(text));
		if (n >= 0 && save(dir, f, text, (size_t)n))
			goto fail;
	}
	for (i = 0; i < nenabled; i++) {
		char sys[64], rel[PATH_MAX];
		const char *name = strchr(enabled[i], ':');
		size_t len = name ? (size_t)(name - enabled[i]) : 0;

		if (!name || len >= sizeof(sys))
			continue;
		memcpy(sys, enabled[i], len);
		sys[len] = '\0';
		name++;
		n = tracefs_read_format(tf, sys, name, text, sizeof(text));
		if (n < 0)
			continue;
		if (path_fmt(rel, sizeof(rel), "events/%s/%s/format", sys, name) ||
		    save(dir, rel, text, (size_t)n))
			goto fail;
	}
	for (i = 0; i < rd->ncpus; i++) {
		if (path_fmt(p, sizeof(p), "per_cpu/cpu%d/trace_pipe_raw", rd->cpus[i].cpu))
			goto fail;
		fd = open_new(dir, p);
		if (fd < 0)
			goto fail;
		rd->cpus[i].rec_fd = fd;
	}
	return 0;
fail:
	i = errno;
	fprintf(stderr, "memtrace: --record %s: %s\n", dir, why ? why : strerror(i));
	return -i;
}

bool record_failed(void)
{
	return rec.err != 0;
}

int record_finish(const char *dir, struct meta *m, struct reader *rd, const struct stats *s)
{
	struct rlimit fsz;
	bool limited = !getrlimit(RLIMIT_FSIZE, &fsz) && fsz.rlim_cur != RLIM_INFINITY;
	char what[192];
	int i, e;

	for (i = 0; i < rd->ncpus; i++) {
		struct reader_cpu *c = &rd->cpus[i];
		struct stat st;
		/* SIGXFSZ is ignored: a file at RLIMIT_FSIZE failed with EFBIG, said as such */
		bool at_limit = limited && (c->record_errors || c->record_err) && c->rec_fd >= 0 &&
				!fstat(c->rec_fd, &st) &&
				(uint64_t)st.st_size + rd->subbuf > (uint64_t)fsz.rlim_cur;

		if (c->rec_fd >= 0 && close(c->rec_fd) && !c->record_err)
			c->record_err = errno;
		c->rec_fd = -1;
		if (!c->record_errors && !c->record_err)
			continue;
		if (at_limit)
			snprintf(what, sizeof(what), "%llu pages of CPU %d not saved: "
				 "per_cpu/cpu%d/trace_pipe_raw reached the file size limit "
				 "(RLIMIT_FSIZE, ulimit -f: %llu bytes)",
				 (unsigned long long)c->record_errors, c->cpu, c->cpu,
				 (unsigned long long)fsz.rlim_cur);
		else
			snprintf(what, sizeof(what), "%llu pages of CPU %d not saved (%s)",
				 (unsigned long long)c->record_errors, c->cpu,
				 strerror(c->record_err ? c->record_err : EIO));
		fprintf(stderr, "memtrace: --record: %s\n", what);
		rec_failed(c->record_err ? c->record_err : EIO, what);
	}
	m->incomplete = rec.err != 0;
	if (m->incomplete)
		snprintf(m->why, sizeof(m->why), "%s", rec.what);
	e = record_write_meta(dir, m, rd, s);
	if (e) {
		fprintf(stderr, "memtrace: --record: %s/" META_FILE ": %s\n", dir, strerror(-e));
		rec_failed(-e, META_FILE " not written");
	}
	if (rec.meta_fd >= 0)
		close(rec.meta_fd);
	rec.meta_fd = -1;
	if (rec.err)
		fprintf(stderr, "memtrace: --record %s: the recording is incomplete: %s\n", dir,
			rec.what);
	return rec.err ? -rec.err : 0;
}

int record_write_seed(const char *dir, const struct stats *s)
{
	static struct out o;
	int fd = open_new(dir, SEED_FILE), e;
	uint32_t i;

	if (fd < 0) {
		e = -errno;
		goto out;
	}
	out_init(&o, fd);
	for (i = SLOT_FIRST; i < s->tb.ntasks_used; i++) {
		const struct mt_task *t = &s->tb.tasks[i];

		if (!(t->flags & TF_SEEDED))
			continue;
		out_printf(&o, "seed %d %d %d %d %" PRIu64 " %" PRIu64 " ", t->tid, t->tgid,
			   t->ppid, (t->flags & TF_KTHREAD) ? 1 : 0, t->seed, t->seed_ts);
		hex(&o, t->comm, t->comm_len);
		out_puts(&o, "\n");
	}
	e = out_flush(&o);
	if (close(fd) && !e)
		e = -errno;
out:
	if (e) {
		char what[96];

		snprintf(what, sizeof(what), SEED_FILE " not written (%s)", strerror(-e));
		rec_failed(-e, what);
	}
	return e;
}

int record_write_meta(const char *dir, const struct meta *m, const struct reader *r,
		      const struct stats *s)
{
	static struct out o;
	int fd = rec.meta_fd >= 0 ? rec.meta_fd : open_new(dir, META_FILE), e, i;
	uint32_t k;
	off_t end;

	if (fd < 0)
		return -errno;
	/* over the one of the start (its room kept), cut to length below */
	if (fd == rec.meta_fd && lseek(fd, 0, SEEK_SET))
		return -errno;
	out_init(&o, fd);
	/* "complete 0" until all of it is written: a torn file is never taken for whole */
	out_printf(&o, "memtrace-meta 1\ncomplete 0\nversion %s\npage_size %u\n",
		   MEMTRACE_VERSION, m->page_size);
	if (m->incomplete)
		out_printf(&o, "incomplete %s\n", m->why[0] ? m->why : "-");
	/* the order the pages were read in (the host's where none had data) */
	if (r)
		out_printf(&o, "byte_order %s\nword_size %u\n",
			   r->layout.big_endian ? "big" : "little", r->layout.commit_size);
	out_printf(&o, "max_pfn %" PRIu64, m->max_pfn);
	/* the memory at the start after the reach: a replay without the address space for
	 * the reach takes that; older versions read the first number only */
	if (m->ram_pfn && m->ram_pfn < m->max_pfn)
		out_printf(&o, " %" PRIu64, m->ram_pfn);
	out_printf(&o, "\ninitmod %" PRIu64 " %" PRIu64 "\nrename_events %d\nuptime %.3f\n"
		   "self_pid %d\n", m->initmod_start, m->initmod_end, m->rename_events ? 1 : 0,
		   m->uptime_s, (int)m->self_pid);
	if (m->mem_start.total_kib)	/* KiB: MemTotal MemFree MemAvailable */
		out_printf(&o, "mem_start %" PRIu64 " %" PRIu64 " %" PRIu64 "\n",
			   m->mem_start.total_kib, m->mem_start.free_kib, m->mem_start.avail_kib);
	if (m->kernel[0])
		out_printf(&o, "kernel %s\n", m->kernel);
	if (m->host[0])
		out_printf(&o, "host %s\n", m->host);
	if (m->started_at > 0)
		out_printf(&o, "started %lld\n", (long long)m->started_at);
	for (i = 0; r && i < r->ncpus; i++)
		out_printf(&o, "cpu_lost %d %" PRIu64 "\n", r->cpus[i].cpu, r->cpus[i].stats_lost);
	if (m->boot_used)
		out_printf(&o, "boot_buffer %" PRIu64 " %" PRIu64 " %u %" PRIu64 " %" PRIu64 " %"
			   PRIu64 " %" PRIu64 " %u\n", m->boot.pages, m->boot.records,
			   m->boot.applied, m->boot.dropped, m->boot.lost, m->boot.lost_unknown,
			   m->boot.bad, m->boot.truncated);
	for (k = 0; s && k < s->tb.nmods; k++)
		if (s->tb.mods[k].bracket == BR_BOOT)
			out_printf(&o, "module_boot %s %d %" PRIu64 " %" PRIu64 "\n",
				   s->tb.mods[k].name, s->tb.mods[k].loader_tid, s->tb.mods[k].load_ts,
				   s->tb.mods[k].free_ts);
	/* modules listed by the kernel but never traced, then every static size */
	for (k = 0; s && k < s->tb.nmods; k++)
		if (s->tb.mods[k].state == MOD_BEFORE)
			out_printf(&o, "module_before %s\n", s->tb.mods[k].name);
	for (k = 0; s && k < s->tb.nmods; k++)
		if (s->tb.mods[k].static_known && s->tb.mods[k].name[0])
			out_printf(&o, "module_kib %s %" PRIu64 "\n", s->tb.mods[k].name,
				   s->tb.mods[k].static_kib);
	for (k = 0; m->extra && k < m->nextra; k++)
		out_printf(&o, "module_untraced %s %" PRIu64 "\n", m->extra[k].name,
			   m->extra[k].static_kib);
	if (m->extra_dropped)
		out_printf(&o, "modules_not_listed %u\n", m->extra_dropped);
	/* --stacks: the modules' code, so that a replay attributes the stacks alike */
	for (k = 0; s && s->stacks_on && k < s->sk.nranges; k++)
		out_printf(&o, "module_range %s %" PRIu64 " %" PRIu64 " %" PRIu64 "\n",
			   s->sk.ranges[k].name, s->sk.ranges[k].start, s->sk.ranges[k].end,
			   s->sk.ranges[k].from_ts);
	if (s && s->stacks_on && s->sk.hidden)
		out_puts(&o, "module_ranges_hidden 1\n");
	e = out_flush(&o);
	if (!e && (end = lseek(fd, 0, SEEK_CUR)) >= 0 && ftruncate(fd, end))
		e = -errno;
	if (!e && !m->incomplete && pwrite(fd, "1", 1, COMPLETE_AT) != 1)
		e = errno ? -errno : -EIO;
	if (fd != rec.meta_fd && close(fd) && !e)
		e = -errno;
	return e;
}

/*
 * Split text into NUL-terminated lines in a bounded buffer; calls fn per line.
 * Lines too long (or with a NUL) are skipped and counted in *bad.
 */
static void each_line(const char *text, size_t len, void (*fn)(char *line, void *ctx),
		      void *ctx, uint32_t *bad)
{
	char line[512];
	size_t pos = 0;

	while (pos < len) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - (text + pos)) : len - pos;

		if (n < sizeof(line) && !memchr(text + pos, '\0', n)) {
			memcpy(line, text + pos, n);
			line[n] = '\0';
			fn(line, ctx);
		} else {
			(*bad)++;
		}
		pos += n + 1;
	}
}

/* sscanf's %llu takes "-1" for 2^64-1: no number in these files is negative */
void meta_word(char *dst, size_t size, const char *src)
{
	size_t i;

	if (!size)
		return;
	for (i = 0; i + 1 < size && src[i] && src[i] != '\n'; i++)
		dst[i] = src[i] > ' ' && src[i] < 0x7f ? src[i] : '?';
	dst[i] = '\0';
}

void meta_when(const struct meta *m, bool iso, char buf[32])
{
	time_t t = (time_t)m->started_at;
	struct tm tm;

	buf[0] = '\0';
	if (m->started_at > 0 && gmtime_r(&t, &tm) &&
	    !strftime(buf, 32, iso ? "%Y-%m-%dT%H:%M:%SZ" : "%Y-%m-%d %H:%M:%S UTC", &tm))
		buf[0] = '\0';
}

static bool has_negative(const char *line)
{
	const char *p;

	for (p = strchr(line, '-'); p; p = strchr(p + 1, '-'))
		if ((p == line || p[-1] == ' ' || p[-1] == '\t') && p[1] >= '0' && p[1] <= '9')
			return true;
	return false;
}

struct meta_ctx {
	struct meta *m;
	struct reader *r;
	struct stats *s;
	uint32_t *bad;
};

static void meta_line(char *line, void *p)
{
	struct meta_ctx *c = p;
	char name[MODNAME_LEN + 8];
	unsigned long long a, b, v[6];
	int k;
	double d;
	int cpu, i;

	if (!line[0] || !strncmp(line, "memtrace-meta ", 14) || !strncmp(line, "version ", 8))
		return;
	/* meta_parse_boot() reads (and counts) these */
	if (!strncmp(line, "module_before ", 14) || !strncmp(line, "module_boot ", 12) ||
	    !strncmp(line, "module_range", 12))
		return;
	/* one word each (older recordings have none): before the numbers' check, a
	 * release such as 6.1.0-56-amd64 has a '-' */
	if (!strncmp(line, "kernel ", 7)) {
		meta_word(c->m->kernel, sizeof(c->m->kernel), line + 7);
		return;
	}
	if (!strncmp(line, "host ", 5)) {
		meta_word(c->m->host, sizeof(c->m->host), line + 5);
		return;
	}
	/* what made it incomplete: free text (older recordings have neither line) */
	if (!strncmp(line, "incomplete ", 11)) {
		char *w = c->m->why;

		snprintf(w, sizeof(c->m->why), "%s", line + 11);
		for (; *w; w++)		/* printed in the report as it is */
			if ((unsigned char)*w < 0x20 || (unsigned char)*w >= 0x7f)
				*w = '?';
		return;
	}
	if (has_negative(line))
		(*c->bad)++;
	else if (!strcmp(line, "complete 0") || !strcmp(line, "complete 1"))
		c->m->incomplete = line[9] == '0';
	else if (sscanf(line, "page_size %llu", &a) == 1 && page_size_ok(a))
		c->m->page_size = (uint32_t)a;
	else if (!strcmp(line, "byte_order big") || !strcmp(line, "byte_order little"))
		c->m->byte_order = line[11] == 'b' ? RB_ORDER_BE : RB_ORDER_LE;
	else if (sscanf(line, "word_size %llu", &a) == 1 && (a == 4 || a == 8))
		c->m->word_size = (uint8_t)a;
	else if ((k = sscanf(line, "max_pfn %llu %llu", &a, &b)) >= 1 && a <= (1ull << 40)) {
		c->m->max_pfn = a;
		c->m->ram_pfn = k == 2 && b < a ? b : 0;
	}
	else if (sscanf(line, "initmod %llu %llu", &a, &b) == 2 && a <= b) {
		c->m->initmod_start = a;
		c->m->initmod_end = b;
	} else if (sscanf(line, "rename_events %llu", &a) == 1)
		c->m->rename_events = a != 0;
	else if (sscanf(line, "uptime %lf", &d) == 1 && d >= 0 && d < 1e12)
		c->m->uptime_s = d;
	else if (sscanf(line, "started %llu", &a) == 1 && a > 0 && a < (1ull << 40))
		c->m->started_at = (int64_t)a;
	else if (sscanf(line, "self_pid %llu", &a) == 1 && a <= INT32_MAX)
		c->m->self_pid = (int32_t)a;
	else if (sscanf(line, "mem_start %llu %llu %llu", &a, &b, &v[0]) == 3 && a &&
		 a < (1ull << 50) && b <= a && v[0] <= a) {
		c->m->mem_start.total_kib = a;
		c->m->mem_start.free_kib = b;
		c->m->mem_start.avail_kib = v[0];
	}
	else if (sscanf(line, "cpu_lost %d %llu", &cpu, &a) == 2) {
		for (i = 0; c->r && i < c->r->ncpus; i++)
			if (c->r->cpus[i].cpu == cpu)
				c->r->cpus[i].stats_lost = a;
	} else if (!strncmp(line, "boot_buffer ", 12) &&
		   (k = sscanf(line + 12, "%llu %llu %llu %llu %llu %llu %llu %llu", &a, &b, &v[0],
			       &v[1], &v[2], &v[3], &v[4], &v[5])) >= 7 && v[0] <= UINT32_MAX &&
		   (k == 7 || v[5] <= UINT32_MAX)) {
		c->m->boot.truncated = k == 8 ? (uint32_t)v[5] : 0;
		c->m->boot_used = true;
		c->m->boot.pages = a;
		c->m->boot.records = b;
		c->m->boot.applied = (uint32_t)v[0];
		c->m->boot.dropped = v[1];
		c->m->boot.lost = v[2];
		c->m->boot.lost_unknown = v[3];
		c->m->boot.bad = v[4];
	} else if (!strncmp(line, "module_untraced ", 16) &&
		   sscanf(line + 16, "%55s %llu", name, &a) == 2) {
		struct meta *mm = c->m;

		if (mm->extra && mm->nextra < mm->extra_cap) {
			struct mt_module *x = &mm->extra[mm->nextra++];

			memset(x, 0, sizeof(*x));
			memcpy(x->name, name, strlen(name) + 1);	/* %55s: fits */
			x->state = MOD_UNTRACED;
			x->static_kib = a;
			x->static_known = 1;
		}
	} else if (!strncmp(line, "modules_not_listed ", 19) &&
		   sscanf(line + 19, "%llu", &a) == 1 && a <= UINT32_MAX) {
		c->m->extra_dropped = (uint32_t)a;
	} else if (!strncmp(line, "module_kib ", 11) &&
		   sscanf(line + 11, "%55s %llu", name, &a) == 2) {
		struct mt_module *mod = c->s ? table_find_module(&c->s->tb, name, strlen(name)) : NULL;

		if (mod) {
			mod->static_kib = a;
			mod->static_known = 1;
		}
	} else {
		(*c->bad)++;
	}
}

/* --stacks: a module's code (without --stacks in the replay: nothing to do). */
static void range_line(struct meta_ctx *c, const char *line)
{
	unsigned long long a, b, ts;
	struct mod_range mr;
	char name[MODNAME_LEN];

	if (!c->s->stacks_on)
		return;
	if (!strcmp(line, "module_ranges_hidden 1")) {
		c->s->sk.hidden = true;
		return;
	}
	memset(&mr, 0, sizeof(mr));
	if (has_negative(line) ||
	    sscanf(line, "module_range %55s %llu %llu %llu", name, &a, &b, &ts) != 4 || a >= b) {
		(*c->bad)++;
		return;
	}
	memcpy(mr.name, name, strlen(name) + 1);	/* %55s: fits */
	mr.start = a;
	mr.end = b;
	mr.from_ts = ts;
	if (stacks_set_ranges(&c->s->sk, &mr, 1))
		(*c->bad)++;
}

static void boot_line(char *line, void *p)
{
	struct meta_ctx *c = p;
	unsigned long long tid, lts, fts;
	char name[MODNAME_LEN];

	if (!strncmp(line, "module_before ", 14)) {
		if (!has_negative(line) && sscanf(line + 14, "%55s", name) == 1)
			module_present(&c->s->tb, name, strlen(name));
		else
			(*c->bad)++;
		return;
	}
	if (!strncmp(line, "module_range", 12)) {
		range_line(c, line);
		return;
	}
	if (strncmp(line, "module_boot ", 12))
		return;
	if (has_negative(line) ||
	    sscanf(line, "module_boot %55s %llu %llu %llu", name, &tid, &lts, &fts) != 4 ||
	    tid > INT32_MAX) {
		(*c->bad)++;
		return;
	}
	if (module_booted(&c->s->tb, name, strlen(name), (int32_t)tid, lts) && fts)
		module_gone(&c->s->tb, name, strlen(name), fts);
}

void meta_parse_boot(const char *text, size_t len, struct stats *s, uint32_t *bad)
{
	struct meta_ctx c = { NULL, NULL, s, bad };
	uint32_t counted_by_meta_parse = 0;	/* the same lines reach meta_parse() */

	each_line(text, len, boot_line, &c, &counted_by_meta_parse);
}

void meta_parse(const char *text, size_t len, struct meta *m, struct reader *r,
		struct stats *s, uint32_t *bad)
{
	struct meta_ctx c = { m, r, s, bad };

	each_line(text, len, meta_line, &c, bad);
}

struct seed_ctx {
	struct stats *s;
	uint64_t pages;
	uint32_t n;
	uint32_t *bad;
	uint32_t *full;		/* well-formed, but no slot left in the task table */
};

static int unhex(char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	return -1;
}

static void seed_line(char *line, void *p)
{
	struct seed_ctx *c = p;
	long long tid, tgid, ppid;
	int kthread;
	unsigned long long pages, ts;
	char commhex[2 * COMM_LEN + 2], comm[COMM_LEN];
	size_t i, n;

	if (!line[0])
		return;
	if (sscanf(line, "seed %lld %lld %lld %d %llu %llu %33s", &tid, &tgid, &ppid, &kthread,
		   &pages, &ts, commhex) != 7 || tid < 0 || tid > INT32_MAX || tgid < 0 ||
	    tgid > INT32_MAX || ppid < 0 || ppid > INT32_MAX || pages > (1ull << 40) ||
	    has_negative(line)) {
		(*c->bad)++;
		return;
	}
	n = strcmp(commhex, "-") ? strlen(commhex) / 2 : 0;
	/* "-" is the empty comm; any other odd length (even one digit) is malformed */
	if (n > COMM_LEN - 1 || (strcmp(commhex, "-") && strlen(commhex) != 2 * n)) {
		(*c->bad)++;
		return;
	}
	for (i = 0; i < n; i++) {
		int h = unhex(commhex[2 * i]), l = unhex(commhex[2 * i + 1]);

		if (h < 0 || l < 0) {
			(*c->bad)++;
			return;
		}
		comm[i] = (char)(h * 16 + l);
	}
	if (!stats_seed_task(c->s, (int32_t)tid, (int32_t)tgid, (int32_t)ppid, comm, n, pages, ts,
			     kthread != 0)) {
		(*c->full)++;	/* a table smaller than the recorder's: not a bad line */
		return;
	}
	c->n++;
	c->pages += pages;
}

uint32_t seed_parse(const char *text, size_t len, struct stats *s, uint64_t *pages,
		    uint32_t *bad, uint32_t *full)
{
	struct seed_ctx c = { s, 0, 0, bad, full };

	each_line(text, len, seed_line, &c, bad);
	*pages = c.pages;
	return c.n;
}
