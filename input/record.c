// SPDX-License-Identifier: GPL-2.0-only
/* input/record.c - --record: the raw pages saved as read, the format files, memtrace.meta and memtrace.seed */
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

/* the offset of the 0 of "complete 0": the second line, after "memtrace-meta 1\n" */
#define COMPLETE_AT	(sizeof("memtrace-meta 1\ncomplete ") - 1)

static void rec_failed(struct recorder *rec, int err, const char *what)
{
	if (rec->err)
		return;
	rec->err = err;
	snprintf(rec->what, sizeof(rec->what), "%s", what);
}

/*
 * @name in the recording (in @dir when none was started: the unit tests),
 * created or emptied; -1 with errno set on failure, like open()
 */
static int open_new(const struct recorder *rec, const char *dir, const char *name)
{
	int dfd = rec->dfd, fd;

	if (dfd < 0 && (dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return -1;
	if (strlen(dir) + 1 + strlen(name) >= PATH_MAX)
		fd = -ENAMETOOLONG;
	else
		fd = open_beneath(dfd, name, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (dfd != rec->dfd)
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
static int save(const struct recorder *rec, const char *dir, const char *rel, const char *text,
		size_t n)
{
	int fd = open_new(rec, dir, rel), e;

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

int record_start(struct recorder *rec, const char *dir, const struct tracefs *tf,
		 const char *const *enabled, int nenabled, struct reader *rd)
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
	rec->dfd = fd;
	rec->err = 0;
	/*
	 * memtrace.meta first, saying the recording is not complete: so it stays
	 * if we are killed or the disk fills; room kept for the final one, which
	 * then fits on a full disk (where the filesystem can keep room)
	 */
	fd = open_new(rec, dir, META_FILE);
	if (fd < 0)
		goto fail;
	rec->meta_fd = fd;
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
		if (n >= 0 && save(rec, dir, f, text, (size_t)n))
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
		    save(rec, dir, rel, text, (size_t)n))
			goto fail;
	}
	for (i = 0; i < rd->ncpus; i++) {
		if (path_fmt(p, sizeof(p), "per_cpu/cpu%d/trace_pipe_raw", rd->cpus[i].cpu))
			goto fail;
		fd = open_new(rec, dir, p);
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

bool record_failed(const struct recorder *rec)
{
	return rec->err != 0;
}

int record_finish(struct recorder *rec, const char *dir, struct meta *m, struct reader *rd,
		  const struct stats *s)
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
		rec_failed(rec, c->record_err ? c->record_err : EIO, what);
	}
	m->incomplete = rec->err != 0;
	if (m->incomplete)
		snprintf(m->why, sizeof(m->why), "%s", rec->what);
	e = record_write_meta(rec, dir, m, rd, s);
	if (e) {
		fprintf(stderr, "memtrace: --record: %s/" META_FILE ": %s\n", dir, strerror(-e));
		rec_failed(rec, -e, META_FILE " not written");
	}
	if (rec->meta_fd >= 0)
		close(rec->meta_fd);
	rec->meta_fd = -1;
	if (rec->err)
		fprintf(stderr, "memtrace: --record %s: the recording is incomplete: %s\n", dir,
			rec->what);
	return rec->err ? -rec->err : 0;
}

int record_write_seed(struct recorder *rec, const char *dir, const struct stats *s)
{
	static struct out o;
	int fd = open_new(rec, dir, SEED_FILE), e;
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
		rec_failed(rec, -e, what);
	}
	return e;
}

int record_write_meta(struct recorder *rec, const char *dir, const struct meta *m,
		      const struct reader *r, const struct stats *s)
{
	static struct out o;
	int fd = rec->meta_fd >= 0 ? rec->meta_fd : open_new(rec, dir, META_FILE), e, i;
	uint32_t k;
	off_t end;

	if (fd < 0)
		return -errno;
	/* over the one of the start (its room kept), cut to length below */
	if (fd == rec->meta_fd && lseek(fd, 0, SEEK_SET))
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
	if (fd != rec->meta_fd && close(fd) && !e)
		e = -errno;
	return e;
}
