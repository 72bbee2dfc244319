// SPDX-License-Identifier: GPL-2.0-only
/*
 * drain.c - the bare reader of bench/stacks.py: empty every per-CPU ring buffer of a
 * tracefs instance and throw the bytes away, so a traced workload can be timed against
 * the kernel's own cost of its events and stacks, without any decoding.
 *
 * usage: drain INSTANCE_DIR
 * Reads INSTANCE_DIR/per_cpu/cpuN/trace_pipe_raw the way memtrace's loop does: one
 * thread, poll() on every CPU for at most 100 ms, then every CPU read() in sub-buffers of
 * one page until EAGAIN. Says "ready" on stderr once every CPU is open; on SIGTERM/SIGINT
 * reads what is left and prints "subbuffers N bytes B" on stdout.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_CPUS	1024
#define POLL_MS		100	/* memtrace's (loop.c) */

static volatile sig_atomic_t stop;

static void on_stop(int sig)
{
	(void)sig;
	stop = 1;
}

/* Read @fd until it has nothing more; count what came. Return -1 on a hard error. */
static int drain_fd(int fd, char *buf, size_t page, unsigned long long *subbufs,
		    unsigned long long *bytes)
{
	for (;;) {
		ssize_t n = read(fd, buf, page);

		if (n > 0) {
			(*subbufs)++;
			*bytes += (unsigned long long)n;
			continue;
		}
		if (n == 0 || errno == EAGAIN || errno == ENODEV)	/* ENODEV: offline */
			return 0;
		if (errno == EINTR)
			continue;
		return -1;
	}
}

int main(int argc, char **argv)
{
	static struct pollfd pfd[MAX_CPUS];
	struct sigaction sa = { .sa_handler = on_stop };	/* no SA_RESTART: poll returns */
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	unsigned long long subbufs = 0, bytes = 0;
	char path[PATH_MAX], *buf;
	struct dirent *de;
	int i, n = 0;
	DIR *d;

	if (argc != 2) {
		fprintf(stderr, "usage: drain INSTANCE_DIR\n");
		return 2;
	}
	buf = malloc(page);
	snprintf(path, sizeof(path), "%s/per_cpu", argv[1]);
	d = opendir(path);
	if (!buf || !d) {
		fprintf(stderr, "drain: %s: %s\n", path, strerror(errno));
		return 1;
	}
	while ((de = readdir(d)) && n < MAX_CPUS) {
		if (strncmp(de->d_name, "cpu", 3))
			continue;
		snprintf(path, sizeof(path), "%s/per_cpu/%s/trace_pipe_raw", argv[1], de->d_name);
		pfd[n].fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (pfd[n].fd < 0) {
			fprintf(stderr, "drain: %s: %s\n", path, strerror(errno));
			return 1;
		}
		pfd[n++].events = POLLIN;
	}
	closedir(d);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	fprintf(stderr, "drain: ready, %d CPUs\n", n);
	while (!stop) {
		if (poll(pfd, (nfds_t)n, POLL_MS) < 0 && errno != EINTR) {
			perror("drain: poll");
			return 1;
		}
		for (i = 0; i < n; i++) {
			if (drain_fd(pfd[i].fd, buf, page, &subbufs, &bytes)) {
				perror("drain: read");
				return 1;
			}
		}
	}
	for (i = 0; i < n; i++)
		drain_fd(pfd[i].fd, buf, page, &subbufs, &bytes);
	printf("subbuffers %llu bytes %llu\n", subbufs, bytes);
	return 0;
}
