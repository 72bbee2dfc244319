// SPDX-License-Identifier: GPL-2.0-only
/* daemon.c - --daemon: fork, and the parent returns only once tracing is live; --pidfile */
#include "run/daemonize.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "signals.h"
#include "lib/scan.h"
#include "lib/util.h"

/* A stopping signal the parent has pending (its mask holds them): its number, or 0. */
static int stop_pending(const struct run *r)
{
	struct signalfd_siginfo si;

	while (signals_next(&r->sig, &si))
		if (signals_is_stop((int)si.ssi_signo))
			return (int)si.ssi_signo;
	return 0;
}

/*
 * The parent stopped before the daemon was tracing (Ctrl-C on a slow setup):
 * the daemon is stopped as TERM stops it, tracefs put back, and waited for,
 * up to @timeout ms; a second stopping signal ends the wait at once. The
 * daemon's exit status (it says why), else EXIT_RUNTIME.
 */
static int stop_child(const struct run *r, pid_t pid, int sig, int timeout)
{
	int status, waited;

	mt_warn("%s before tracing began: stopping pid %d", signals_trigger(sig), (int)pid);
	kill(pid, SIGTERM);
	for (waited = 0; waited < timeout; waited += 20) {
		struct pollfd pfd = { r->sig.fd, POLLIN, 0 };

		if (waitpid(pid, &status, WNOHANG) == pid)
			return WIFEXITED(status) && WEXITSTATUS(status) ? WEXITSTATUS(status) :
			       EXIT_RUNTIME;
		if (poll(&pfd, r->sig.fd >= 0, 20) > 0 && stop_pending(r))
			break;
	}
	mt_warn("pid %d not gone yet: it stops on its own", (int)pid);
	return EXIT_RUNTIME;
}

int daemonize_fork(struct run *r)
{
	unsigned char code = EXIT_RUNTIME;
	int p[2], timeout = (int)TEST_HOOK_OR(r, ready_timeout_ms, READY_TIMEOUT_MS), sig;
	uint64_t deadline;
	pid_t pid;
	ssize_t n;

	if (pipe2(p, O_CLOEXEC))
		return mt_fail(EXIT_RUNTIME, "pipe: %s", strerror(errno));
	r->ready_parent = getpid();
	pid = fork();
	if (pid < 0)
		return mt_fail(EXIT_RUNTIME, "fork: %s", strerror(errno));
	if (pid == 0) {
		int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);

		close(p[0]);
		r->ready_fd = p[1];
		if (fd >= 0) {
			dup2(fd, STDIN_FILENO);
			close(fd);
		}
		setsid();
		return -1;	/* the child goes on */
	}
	close(p[1]);
	/* the ready pipe, and the stopping signals (blocked: the signalfd reads the parent's) */
	deadline = mono_ns() / 1000000 + (uint64_t)timeout;
	for (;;) {
		struct pollfd pfd[2] = { { p[0], POLLIN, 0 }, { r->sig.fd, POLLIN, 0 } };
		uint64_t now = mono_ns() / 1000000;
		int res = poll(pfd, r->sig.fd >= 0 ? 2 : 1,
			       now < deadline ? (int)(deadline - now) : 0);

		if (res < 0 && errno == EINTR)
			continue;
		if (res > 0 && (pfd[1].revents & POLLIN)) {
			if ((sig = stop_pending(r)))
				return stop_child(r, pid, sig, timeout);
			if (!(pfd[0].revents & (POLLIN | POLLHUP)))
				continue;	/* another signal (a report asked): nothing yet */
		}
		if (res == 0) {
			mt_warn("not tracing after %.1f s; stopping pid %d", (double)timeout / 1000,
				(int)pid);
			kill(pid, SIGTERM);	/* it cleans up when its setup ends */
			return EXIT_RUNTIME;
		}
		break;
	}
	do {
		n = read(p[0], &code, 1);
	} while (n < 0 && errno == EINTR);
	return n == 1 ? code : EXIT_RUNTIME;
}

/*
 * Is @fd the journal? systemd sets JOURNAL_STREAM to "DEV:INO" of the socket a
 * service's stdout or stderr is connected to (systemd.exec(5)); an inherited
 * variable with another fd matches nothing.
 */
static bool is_journal(int fd)
{
	const char *js = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;
	char c;

	if (!js || scan(js, "%llu:%llu%c", &dev, &ino, &c) != 2 || fstat(fd, &st))
		return false;
	return (unsigned long long)st.st_dev == dev && (unsigned long long)st.st_ino == ino;
}

/*
 * What the caller waits on ends with its last writer: a pipe, a socket, a
 * terminal. A regular file (`> FILE`), /dev/null and the journal wait on
 * nobody, and are kept.
 */
static bool let_go(int fd)
{
	struct stat st;

	if (fstat(fd, &st))
		return false;	/* closed: nothing held */
	if (S_ISREG(st.st_mode) || is_journal(fd))
		return false;
	return !(S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 3));	/* /dev/null */
}

void daemonize_detach(struct run *r, bool keep_stdout)
{
	int null, err;

	if (r->ready_fd < 0)
		return;
	fflush(stdout);
	fflush(stderr);
	null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (null < 0) {
		mt_warn("warning: /dev/null: %s: keeping the caller's stdout and stderr",
			strerror(errno));
		return;
	}
	if (!keep_stdout && let_go(STDOUT_FILENO) && dup2(null, STDOUT_FILENO) >= 0)
		r->stdout_let_go = true;
	if (let_go(STDERR_FILENO)) {
		/* --kmsg: the warnings from now on in the kernel log, beside its lines */
		err = r->opt.kmsg ? open("/dev/kmsg", O_WRONLY | O_CLOEXEC | O_NOCTTY) : -1;
		if (dup2(err >= 0 ? err : null, STDERR_FILENO) >= 0)
			r->stderr_let_go = true;
		if (err >= 0)
			close(err);
	}
	close(null);
}

void daemonize_ready(struct run *r, int code)
{
	unsigned char c = (unsigned char)code;

	if (r->ready_fd < 0)
		return;
	if (write(r->ready_fd, &c, 1) != 1)
		mt_warn("notifying the parent: %s", strerror(errno));
	close(r->ready_fd);
	r->ready_fd = -1;
}

/* The pidfile we made: only that file is removed at the end (never a device given). */

int pidfile_write(struct run *r)
{
	char buf[32];
	struct stat st;
	pid_t pid = getpid();
	int fd, e = 0;

	if (!r->opt.pidfile)
		return 0;
	/*
	 * Never through a symlink, never a FIFO (it would block for good) nor a
	 * device: an existing regular file is replaced, anything else refused.
	 */
	fd = open_regular(r->opt.pidfile, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return mt_fail(EXIT_RUNTIME, "--pidfile %s: %s", r->opt.pidfile,
			       fd == -EINVAL ? "not a regular file: refused" : strerror(-fd));
	snprintf(buf, sizeof(buf), "%d\n", (int)pid);
	if (fstat(fd, &st))
		e = -errno;
	if (!e)
		e = write_all(fd, buf, strlen(buf));
	if (close(fd) && !e)
		e = -errno;
	if (e) {
		unlink(r->opt.pidfile);	/* the regular file we made or emptied just now */
		return mt_fail(EXIT_RUNTIME, "--pidfile %s: %s", r->opt.pidfile, strerror(-e));
	}
	r->pidfile_written = true;
	/* what its removal asks: the file made, holding our pid (pidfile_remove(), exits at once) */
	signals_fast_file(FAST_PIDFILE, r->opt.pidfile, &st, pid);
	return 0;
}

void pidfile_remove(struct run *r)
{
	if (!r->pidfile_written)
		return;
	r->pidfile_written = false;
	/* still the file we made, holding our pid: else someone else's now */
	signals_fast_file_remove(FAST_PIDFILE);
}
