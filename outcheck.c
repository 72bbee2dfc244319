// SPDX-License-Identifier: GPL-2.0-only
/* outcheck.c - every file a run will write, checked before tracing starts */
#include "outcheck.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "err.h"
#include "logfile.h"
#include "record.h"
#include "util.h"

/* The mode's final report goes to the log file (without -o, only if the mode names no other place). */
static bool writes_log(const struct run *r)
{
	return r->ops->final_to_log && (r->opt.output_set || !r->ops->log_without_o);
}

/*
 * --pidfile as daemon_write_pidfile() takes it: a regular file there is opened
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
	return 0;
}
