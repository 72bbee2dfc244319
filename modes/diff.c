// SPDX-License-Identifier: GPL-2.0-only
/* modes/diff.c - --diff OLD NEW: the mode (its inputs read, replayed; the output; the gate) */
#include "modes/diff.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "diff/diff.h"
#include "diff/diffout.h"
#include "core/options.h"
#include "lib/out.h"
#include "lib/util.h"

#define INPUT_MAX	(1u << 30)	/* a report larger than 1 GiB is refused */

/*
 * All of @fd into a new buffer (NUL-terminated), sized for @hint bytes (a
 * file's size: it may still grow) and grown as needed up to INPUT_MAX; NULL
 * with errno on failure (EFBIG: INPUT_MAX bytes or more).
 */
static char *read_all(int fd, size_t hint, size_t *len)
{
	size_t cap = (hint < INPUT_MAX ? hint : INPUT_MAX) + 4096, n = 0;
	char *buf = malloc(cap), *p;
	ssize_t r;

	while (buf) {
		if (n + 1 >= cap) {
			if (cap > INPUT_MAX) {
				free(buf);
				errno = EFBIG;
				return NULL;
			}
			cap = cap < INPUT_MAX / 2 ? cap * 2 : INPUT_MAX + 1;
			p = realloc(buf, cap);
			if (!p)
				break;
			buf = p;
		}
		r = read(fd, buf + n, cap - n - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			break;
		if (!r) {
			buf[n] = '\0';
			*len = n;
			return buf;
		}
		n += (size_t)r;
	}
	free(buf);
	return NULL;
}

/*
 * A recording replayed by the replay code in a child of this process (a run of
 * its own, as --replay DIR -f json --by process --stacks -n 0 makes it); its
 * report read from a pipe. NULL with errno 0 when its replay failed (said), else
 * with the errno of what failed here.
 */
static char *replayed(const struct run *r, const char *dir, size_t *len)
{
	int fds[2], status, e;
	pid_t pid, parent = getpid();
	char *text;

	if (pipe2(fds, O_CLOEXEC) < 0)
		return NULL;
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		e = errno;
		close(fds[0]);
		close(fds[1]);
		errno = e;
		return NULL;
	}
	if (!pid) {
		close(fds[0]);
		/*
		 * --diff holds no signal back: a TERM or INT ends it at once, and
		 * the kernel then ends this child, by its pid, too (a parent gone
		 * before the prctl: at once)
		 */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) || getppid() != parent)
			_exit(EXIT_RUNTIME);
		if (TEST_HOOK(r, setup_delay_ms))	/* a replay as slow as a big recording's */
			sleep_ms(TEST_HOOK(r, setup_delay_ms));
		_exit(r->replay_json(dir, fds[1]));
	}
	close(fds[1]);
	text = read_all(fds[0], 0, len);
	e = errno;
	close(fds[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (text && WIFEXITED(status) && WEXITSTATUS(status) == EXIT_RUNTIME && *len)
		mt_warn("--diff: %s: its replay exited 1 (why: above); compared as it stands",
			dir);
	else if (text && !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
		mt_warn("--diff: %s: not compared: its replay failed (%s %d; why: above)", dir,
			WIFEXITED(status) ? "exit status" : "signal",
			WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
		free(text);
		errno = 0;	/* said */
		return NULL;
	}
	errno = e;
	return text;
}

static const char *file_kind(mode_t m)
{
	return S_ISFIFO(m) ? "a FIFO" : S_ISCHR(m) ? "a character device" :
	       S_ISBLK(m) ? "a block device" : S_ISSOCK(m) ? "a socket" : "not a regular file";
}

/*
 * A JSON report's file, whole (NULL with errno; 0: said). Only a regular file:
 * a FIFO, a device or a socket may never end (or end after 1 GiB of zeros).
 */
static char *read_report(const char *path, const struct stat *st, size_t *len)
{
	struct stat fst;
	char *text;
	int fd, e;

	if (!S_ISREG(st->st_mode)) {
		mt_warn("--diff: %s: %s, not a file: --diff reads a JSON report from a regular "
			"file or a recording's directory (save the report to a file first)", path,
			file_kind(st->st_mode));
		errno = 0;
		return NULL;
	}
	if (st->st_size >= INPUT_MAX) {
		errno = EFBIG;
		return NULL;
	}
	/* O_NONBLOCK: a FIFO put there since the stat is not waited for */
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &fst)) {
		e = errno;
		close(fd);
		errno = e;
		return NULL;
	}
	if (!S_ISREG(fst.st_mode)) {
		close(fd);
		return read_report(path, &fst, len);	/* says what it is */
	}
	text = read_all(fd, (size_t)fst.st_size, len);
	e = errno;
	close(fd);
	errno = e;
	return text;
}

/* One input, a JSON report or a recording, into @s; 0 or EXIT_USAGE (said). */
static int load(const struct run *r, const char *path, struct diff_side *s)
{
	struct stat st;
	char err[512];
	char *text;
	size_t len = 0;
	int rc;

	if (stat(path, &st) < 0) {
		mt_warn("--diff: %s: %s", path, strerror(errno));
		return EXIT_USAGE;
	}
	if (S_ISDIR(st.st_mode))
		text = replayed(r, path, &len);
	else
		text = read_report(path, &st, &len);
	if (!text && !errno)
		return EXIT_USAGE;	/* said why */
	if (!text) {
		mt_warn("--diff: %s: %s", path, errno == EFBIG ? "1 GiB or larger: not a report "
			"--diff reads" : strerror(errno));
		return EXIT_USAGE;
	}
	rc = diff_side_parse(s, text, len, err, sizeof(err));
	free(text);
	if (rc < 0) {
		mt_warn("--diff: %s: %s", path, err);
		return EXIT_USAGE;
	}
	return 0;
}

static int diff_none(struct run *r)
{
	(void)r;
	return 0;
}

static int diff_finish(struct run *r)
{
	const struct options *o = &r->opt;
	struct diff_side a, b;
	struct diff_result d;
	struct diff_threshold gate;
	struct diff_view v = { o->diff_old, o->diff_new, o->rows, NULL };
	char err[256];
	struct out out;
	int code;
	uint32_t hits;

	if (o->fail_over) {
		if (diff_threshold_parse(o->fail_over, &gate, err, sizeof(err)) < 0) {
			mt_warn("%s", err);
			return EXIT_USAGE;
		}
		v.gate = &gate;
	}
	code = load(r, o->diff_old, &a);
	if (code)
		return code;
	code = load(r, o->diff_new, &b);
	if (code) {
		diff_side_free(&a);
		return code;
	}
	if (!diff_compute(&d, &a, &b)) {
		mt_warn("--diff: out of memory");
		code = EXIT_RUNTIME;
		goto out;
	}
	out_init(&out, STDOUT_FILENO);
	if (o->format == FMT_JSON)
		diffout_json(&out, &d, &v);
	else
		diffout_text(&out, &d, &v);
	if (out_flush(&out))
		code = EXIT_RUNTIME;
	out_init(&out, STDERR_FILENO);
	hits = diffout_gate(&out, &d, &v);
	out_flush(&out);
	if (hits && !code)
		code = EXIT_GREW;
	diff_result_free(&d);
out:
	diff_side_free(&a);
	diff_side_free(&b);
	return code;
}

/*
 * No signal is held back (as in --replay): TERM, INT and the rest end --diff
 * at once whatever it is doing (reading, comparing, waiting for a replay,
 * which the kernel then ends too), as they end any program (128+signal).
 */
static const struct sig_table diff_signals = { .none = true };

const struct mode_ops diff_ops = {
	.name = "diff",
	.live = false,
	.signals = &diff_signals,
	.log_without_o = "stdout",
	.setup = diff_none,		/* nothing traced, nothing replayed here */
	.loop = diff_none,
	.finish = diff_finish,		/* the whole comparison */
};
