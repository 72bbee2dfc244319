// SPDX-License-Identifier: GPL-2.0-only
/* run/outcheck.c - every file a run will write, checked before tracing starts */
#include "run/outcheck.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "output/logfile.h"
#include "input/record.h"
#include "lib/util.h"

/* The mode's final report goes to the log file (without -o, only if the mode names no other place). */
static bool writes_log(const struct run *r)
{
	return r->ops->final_to_log && (r->opt.output_set || !r->ops->log_without_o);
}

/*
 * --pidfile as pidfile_write() takes it: a regular file there is opened
 * for writing (not truncated), anything else there refused (a symlink, a FIFO,
 * a device); a new one must be one its directory can hold.
 */
static int pidfile_check(const char *path, char *err, size_t errlen)
{
	struct stat st;
	int fd;

	if (lstat(path, &st))
		return logfile_check(path, false, err, errlen);
	fd = open_regular(path, O_WRONLY, 0);
	if (fd < 0)
		return err_fmt(fd, err, errlen, "%s", fd == -EINVAL ? "not a regular file: refused" :
			       errno_text(-fd));
	close(fd);
	return 0;
}

static int refused(const char *opt, const char *path, const char *why)
{
	return mt_fail(EXIT_RUNTIME, "%s %s: %s (checked before tracing: nothing was traced or run)",
		       opt, path, why);
}

/*
 * A file the run writes, as the name it has: the directory it is in (its
 * device and inode: the path resolved, "out/./x" and "out/x" alike) and its
 * name there; and the file's own device and inode where it exists (a hard
 * link). Two outputs that are one would leave only the last one written.
 */
struct out_id {
	const char *opt, *path;
	dev_t dir_dev, dev;
	ino_t dir_ino, ino;
	bool exists;
	char base[NAME_MAX + 1];
};

static bool out_id_of(struct out_id *id, const char *opt, const char *path)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
	struct stat st;
	size_t n;

	memset(id, 0, sizeof(*id));
	id->opt = opt;
	id->path = path;
	if (!*base || strlen(base) > NAME_MAX)
		return false;
	if (!slash)
		strcpy(dir, ".");
	else if (slash == path)
		strcpy(dir, "/");
	else {
		n = (size_t)(slash - path);
		if (n >= sizeof(dir))
			return false;
		memcpy(dir, path, n);
		dir[n] = '\0';
	}
	if (stat(dir, &st))
		return false;
	id->dir_dev = st.st_dev;
	id->dir_ino = st.st_ino;
	strcpy(id->base, base);
	/* the file itself, not what a symlink there points to (it is replaced, never followed) */
	if (!lstat(path, &st) && S_ISREG(st.st_mode)) {
		id->exists = true;
		id->dev = st.st_dev;
		id->ino = st.st_ino;
	}
	return true;
}

static bool same_file(const struct out_id *a, const struct out_id *b)
{
	if (a->dir_dev == b->dir_dev && a->dir_ino == b->dir_ino && !strcmp(a->base, b->base))
		return true;
	return a->exists && b->exists && a->dev == b->dev && a->ino == b->ino;
}

/* No two outputs of the run are one file (options.c compared the strings only). */
static int distinct_outputs(const struct run *r)
{
	const struct options *o = &r->opt;
	struct out_id ids[6];
	int n = 0, i, k;

	if (writes_log(r) && out_id_of(&ids[n], o->output_set ? "-o" : "the log file",
					o->log_path))
		n++;
	if (o->stream_path && out_id_of(&ids[n], "--stream -o", o->stream_path))
		n++;
	if (o->prom_path && out_id_of(&ids[n], "--prometheus", o->prom_path))
		n++;
	if (o->svg_path && out_id_of(&ids[n], "--svg", o->svg_path))
		n++;
	if (o->json_path && out_id_of(&ids[n], "--json", o->json_path))
		n++;
	if (o->pidfile && out_id_of(&ids[n], "--pidfile", o->pidfile))
		n++;
	for (i = 0; i < n; i++)
		for (k = i + 1; k < n; k++)
			if (same_file(&ids[i], &ids[k]))
				return mt_fail(EXIT_USAGE, "%s %s and %s %s are the same file: each "
					       "output needs a file of its own (checked before "
					       "tracing: nothing was traced or run)", ids[i].opt,
					       ids[i].path, ids[k].opt, ids[k].path);
	return 0;
}

int outcheck_run(const struct run *r)
{
	const struct options *o = &r->opt;
	char err[PATH_MAX + 128];

	if (writes_log(r) && logfile_check(o->log_path, o->json_lines, err, sizeof(err)))
		return refused(o->output_set ? "-o" : "the log file", o->log_path, err);
	if (o->prom_path && logfile_check(o->prom_path, false, err, sizeof(err)))
		return refused("--prometheus", o->prom_path, err);
	if (o->svg_path && logfile_check(o->svg_path, false, err, sizeof(err)))
		return refused("--svg", o->svg_path, err);
	if (o->json_path && logfile_check(o->json_path, false, err, sizeof(err)))
		return refused("--json", o->json_path, err);
	if (o->record_dir && record_check(o->record_dir, err, sizeof(err)))
		return refused("--record", o->record_dir, err);
	if (o->pidfile && pidfile_check(o->pidfile, err, sizeof(err)))
		return refused("--pidfile", o->pidfile, err);
	return distinct_outputs(r);
}
