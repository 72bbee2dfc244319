// SPDX-License-Identifier: GPL-2.0-only
/* output/logfile.c - a log file replaced atomically, or appended to whole lines at a time */
#include "output/logfile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "signals.h"
#include "lib/util.h"

/* the reason into @err; -errno */
#define fail(err, errlen, ...) err_fmt(-errno, err, errlen, __VA_ARGS__)

/*
 * A link at @path is replaced, never written through. One to a device or a
 * FIFO, or one into /proc (a process's open file: /dev/stdout is
 * /proc/self/fd/1, the system's link, for every process) is someone else's:
 * what it links to, else NULL.
 */
static const char *link_not_ours(const char *path)
{
	char to[16];
	ssize_t n = readlink(path, to, sizeof(to));
	struct stat st;

	if (n >= 6 && !memcmp(to, "/proc/", 6))
		return "a process's open file (/proc)";
	if (stat(path, &st) || S_ISREG(st.st_mode) || S_ISDIR(st.st_mode))
		return NULL;	/* a directory is left as it is, the link replaced */
	return "what is neither a regular file nor a directory";
}

/*
 * @path's directory into @dir (PATH_MAX) and the temporary file's name beside
 * it into @tmp (PATH_MAX), after what a rename over @path would refuse: no
 * file name, a directory, or a device, FIFO or socket (a rename would put our
 * file in its place). 0, or -errno with @err set.
 */
static int temp_beside(const char *path, char *dir, char *tmp, char *err, size_t errlen)
{
	const char *base = strrchr(path, '/'), *what;
	struct stat st;

	if (!*path)
		return (errno = EINVAL, fail(err, errlen, "empty log path"));
	if (base) {
		size_t n = (size_t)(base - path);

		if (n == 0)
			n = 1;	/* "/file" */
		if (n >= PATH_MAX)
			return (errno = ENAMETOOLONG, fail(err, errlen, "log path too long"));
		memcpy(dir, path, n);
		dir[n] = '\0';
		base++;
	} else {
		strcpy(dir, ".");
		base = path;
	}
	if (!*base)
		return (errno = EISDIR, fail(err, errlen, "%s: not a file name", path));
	if (lstat(path, &st))
		st.st_mode = S_IFREG;	/* nothing there (or not to be seen): made anew */
	if (S_ISDIR(st.st_mode))
		return (errno = EISDIR, fail(err, errlen, "%s: is a directory", path));
	if (!S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode))
		return (errno = EINVAL, fail(err, errlen, "%s: is not a regular file (never "
					     "replaced)", path));
	if (S_ISLNK(st.st_mode) && (what = link_not_ours(path)))
		return (errno = EINVAL, fail(err, errlen, "%s: a link to %s (a link is replaced, "
					     "never written through: not this one; for standard "
					     "output, leave -o out or use the shell's >)", path, what));
	if (path_fmt(tmp, PATH_MAX, "%s/.%s.XXXXXX", dir, base))
		return (errno = ENAMETOOLONG, fail(err, errlen, "log path too long"));
	return 0;
}

/*
 * The temporary file beside @path (temp_beside()), made as every write makes it:
 * O_EXCL, a name of our own, never a symlink followed. Its fd, or -errno with
 * @err set; @dir and @tmp (PATH_MAX each) as temp_beside() fills them.
 */
static int temp_create(const char *path, char *dir, char *tmp, char *err, size_t errlen)
{
	int fd, e = temp_beside(path, dir, tmp, err, errlen);

	if (e)
		return e;
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return fail(err, errlen, "cannot create a file in %s: %s", dir, errno_text(errno));
	return fd;
}

int logfile_check(const char *path, bool append, char *err, size_t errlen)
{
	char dir[PATH_MAX], tmp[PATH_MAX], why[200];
	int fd;

	/* a file to append to that is there already: opened as an append would, not written */
	if (append && (fd = open_append(path, false, why, sizeof(why))) != -ENOENT) {
		if (fd < 0)
			return (errno = -fd, fail(err, errlen, "appending to %s: %s", path,
						  *why ? why : strerror(-fd)));
		close(fd);
		return 0;
	}
	/* what the write does first, undone */
	fd = temp_create(path, dir, tmp, err, errlen);
	if (fd < 0)
		return fd;
	close(fd);
	if (unlink(tmp))
		return fail(err, errlen, "cannot remove %s: %s", tmp, strerror(errno));
	return 0;
}

int logfile_replace(const char *path, mode_t mode, bool sync, out_gen gen, void *ctx, char *err,
		    size_t errlen)
{
	char dir[PATH_MAX], tmp[PATH_MAX];
	static struct out o;	/* 16 KiB: kept off the stack, reused */
	struct stat st;
	int fd, dfd, e;

	fd = temp_create(path, dir, tmp, err, errlen);
	if (fd < 0)
		return fd;
	if (!fstat(fd, &st))	/* an exit at once removes it too */
		signals_fast_file(FAST_TEMP, tmp, &st, 0);
	if (mode != 0600 && fchmod(fd, mode))
		goto fail_tmp;
	out_init(&o, fd);
	gen(&o, ctx);
	e = out_flush(&o);
	if (e) {
		errno = -e;
		goto fail_tmp;
	}
	if (sync && fsync(fd))
		goto fail_tmp;
	if (close(fd)) {
		fd = -1;
		goto fail_tmp;
	}
	fd = -1;
	if (rename(tmp, path))
		goto fail_tmp;
	signals_fast_file(FAST_TEMP, NULL, NULL, 0);
	dfd = sync ? open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
	if (dfd >= 0) {
		fsync(dfd);
		close(dfd);
	}
	return 0;
fail_tmp:
	e = errno;
	if (fd >= 0)
		close(fd);
	unlink(tmp);
	signals_fast_file(FAST_TEMP, NULL, NULL, 0);
	errno = e;
	return fail(err, errlen, "writing %s: %s", path, strerror(e));
}

int logfile_write(const char *path, out_gen gen, void *ctx, char *err, size_t errlen)
{
	return logfile_replace(path, 0600, true, gen, ctx, err, errlen);
}

int logfile_append(const char *path, out_gen gen, void *ctx, char *err, size_t errlen)
{
	static struct out o;	/* 16 KiB: kept off the stack, reused */
	char why[200];
	struct stat st;
	int fd, e;

	if (!*path)
		return (errno = EINVAL, fail(err, errlen, "empty log path"));
	/* only a file of our own: another user's could be read, or its lines forged */
	fd = open_append(path, true, why, sizeof(why));
	if (fd < 0)
		return (errno = -fd, fail(err, errlen, "appending to %s: %s", path,
					  *why ? why : strerror(-fd)));
	if (fstat(fd, &st)) {
		e = errno;
		close(fd);
		errno = e;
		return fail(err, errlen, "appending to %s: %s", path, strerror(e));
	}
	out_init(&o, fd);
	gen(&o, ctx);
	e = out_flush(&o);
	if (e) {
		/* no torn line: what this append wrote is taken back */
		bool cut = !ftruncate(fd, st.st_size);

		close(fd);
		errno = -e;
		return fail(err, errlen, "appending to %s: %s%s", path, strerror(-e),
			    cut ? "" : " (a part of the line stays: it could not be cut off)");
	}
	if (close(fd))
		return fail(err, errlen, "appending to %s: %s", path, strerror(errno));
	return 0;
}

void kmsg_line(const char *dev, const char *line)
{
	/* O_APPEND: the kernel log ignores it; a test's file gets one line after another */
	int fd;

	if (!dev)
		dev = "/dev/kmsg";
	fd = open(dev, O_WRONLY | O_APPEND | O_CLOEXEC | O_NOCTTY);

	if (fd < 0) {
		const char *text = line;

		if (text[0] == '<' && text[1] && text[2] == '>')
			text += 3;
		fputs(text, stderr);
		return;
	}
	if (write_all(fd, line, strlen(line)))
		fprintf(stderr, "memtrace: %s: %s\n", dev, strerror(errno));
	close(fd);
}
