// SPDX-License-Identifier: GPL-2.0-only
/*
 * drain.c - the bare reader of bench/stacks.py: empty every per-CPU ring buffer of a
 * tracefs instance and throw the bytes away, so a traced workload can be timed against
 * the kernel's own cost of its events and stacks, without any decoding.
 *
 * usage: drain [--map] INSTANCE_DIR
 * Reads INSTANCE_DIR/per_cpu/cpuN/trace_pipe_raw the way memtrace's loop does: one
 * thread, poll() on every CPU for at most 100 ms, then every CPU read() in sub-buffers of
 * one page until EAGAIN. Says "ready" on stderr once every CPU is open; on SIGTERM/SIGINT
 * reads what is left and prints "subbuffers N bytes B" on stdout.
 *
 * --map: the same, each CPU's ring buffer mapped instead of read (Linux 6.10 and later,
 * Documentation/trace/ring-buffer-map.rst): the ioctl TRACE_MMAP_IOCTL_GET_READER until
 * the reader sub-buffer and what of it was read stop changing, each time the new bytes
 * touched where they are (no copy). bench/mapread.py sets the two ways side by side.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

/* <linux/trace_mmap.h> (Linux 6.10), which Debian 12's headers do not have yet */
struct trace_buffer_meta {
	uint32_t meta_page_size, meta_struct_len, subbuf_size, nr_subbufs;
	struct {
		uint64_t lost_events;
		uint32_t id, read;
	} reader;
	uint64_t flags, entries, overrun, read;
};
#define TRACE_MMAP_IOCTL_GET_READER	_IO('R', 0x20)

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

volatile uint8_t drain_touched;	/* what drain_map() reads lands here, kept */

/* A mapped CPU: its meta page, its sub-buffers, where the last ioctl left the reader. */
struct mapped {
	const struct trace_buffer_meta *meta;
	const volatile uint8_t *data;
	uint32_t id, end;
};

static int map_cpu(int fd, size_t page, struct mapped *m)
{
	void *meta = mmap(NULL, page, PROT_READ, MAP_SHARED, fd, 0), *data;

	if (meta == MAP_FAILED)
		return -1;
	m->meta = meta;
	data = mmap(NULL, (size_t)m->meta->subbuf_size * m->meta->nr_subbufs, PROT_READ,
		    MAP_SHARED, fd, (off_t)m->meta->meta_page_size);
	if (data == MAP_FAILED)
		return -1;
	m->data = data;
	m->id = UINT32_MAX;
	m->end = 0;
	return 0;
}

/* Take @m's new bytes until the kernel has none; count them (a page per reader sub-buffer). */
static int drain_map(int fd, struct mapped *m, unsigned long long *subbufs,
		     unsigned long long *bytes)
{
	for (;;) {
		uint32_t id, end, start;

		if (ioctl(fd, TRACE_MMAP_IOCTL_GET_READER) < 0)
			return errno == EINTR ? 0 : -1;
		id = m->meta->reader.id;
		end = m->meta->reader.read;
		start = id == m->id ? m->end : 0;
		if (id == m->id && end == m->end)
			return 0;
		if (id != m->id)
			(*subbufs)++;
		m->id = id;
		m->end = end;
		if (end > start) {
			*bytes += end - start;
			/* the new bytes' first line, where they are: 16, the sub-buffer's header */
			drain_touched = m->data[(size_t)m->meta->subbuf_size * id + 16 + start];
		}
	}
}

int main(int argc, char **argv)
{
	static struct pollfd pfd[MAX_CPUS];
	static struct mapped maps[MAX_CPUS];
	struct sigaction sa = { .sa_handler = on_stop };	/* no SA_RESTART: poll returns */
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	unsigned long long subbufs = 0, bytes = 0;
	char path[PATH_MAX], *buf;
	bool map = argc == 3 && !strcmp(argv[1], "--map");
	const char *inst = argv[argc - 1];
	struct dirent *de;
	int i, n = 0;
	DIR *d;

	if (argc != 2 && !map) {
		fprintf(stderr, "usage: drain [--map] INSTANCE_DIR\n");
		return 2;
	}
	buf = malloc(page);
	snprintf(path, sizeof(path), "%s/per_cpu", inst);
	d = opendir(path);
	if (!buf || !d) {
		fprintf(stderr, "drain: %s: %s\n", path, strerror(errno));
		return 1;
	}
	while ((de = readdir(d)) && n < MAX_CPUS) {
		if (strncmp(de->d_name, "cpu", 3))
			continue;
		snprintf(path, sizeof(path), "%s/per_cpu/%s/trace_pipe_raw", inst, de->d_name);
		pfd[n].fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (pfd[n].fd < 0) {
			fprintf(stderr, "drain: %s: %s\n", path, strerror(errno));
			return 1;
		}
		if (map && map_cpu(pfd[n].fd, page, &maps[n])) {
			fprintf(stderr, "drain: %s: cannot be mapped (Linux 6.10 and later): %s\n",
				path, strerror(errno));
			return 1;
		}
		pfd[n++].events = POLLIN;
	}
	closedir(d);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	fprintf(stderr, "drain: ready, %d CPUs%s\n", n, map ? ", mapped" : "");
	while (!stop) {
		if (poll(pfd, (nfds_t)n, POLL_MS) < 0 && errno != EINTR) {
			perror("drain: poll");
			return 1;
		}
		for (i = 0; i < n; i++) {
			if (map ? drain_map(pfd[i].fd, &maps[i], &subbufs, &bytes) :
			    drain_fd(pfd[i].fd, buf, page, &subbufs, &bytes)) {
				perror(map ? "drain: ioctl" : "drain: read");
				return 1;
			}
		}
	}
	for (i = 0; i < n; i++) {
		if (map)
			drain_map(pfd[i].fd, &maps[i], &subbufs, &bytes);
		else
			drain_fd(pfd[i].fd, buf, page, &subbufs, &bytes);
	}
	printf("subbuffers %llu bytes %llu\n", subbufs, bytes);
	return 0;
}
