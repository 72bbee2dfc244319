// SPDX-License-Identifier: GPL-2.0-only
/* threads.c - a known amount of anonymous memory per thread, all held at once, for the command-mode tests */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

/*
 * threads N MB HOLD_MS
 * Starts N threads; each maps MB MiB (no THP) and writes one byte per 4 KiB.
 * When all have touched their memory (a barrier), each sleeps HOLD_MS,
 * unmaps and returns; then the process exits 0. Prints nothing on success.
 *
 * threads leader-exit MB HOLD_MS
 * The main thread exits (pthread_exit) at once; one worker touches MB MiB and
 * holds them HOLD_MS: the process lives on without its leader.
 *
 * threads exec PROG [ARGS...]
 * Touches 8 MiB, then a second thread (not the leader) execs PROG: the kernel
 * gives the process's pid to the new program (de_thread).
 *
 * threads rename NAME MB HOLD_MS
 * The main thread touches 1 MiB; a worker renames itself NAME
 * (pthread_setname_np), then touches MB MiB and holds them HOLD_MS; the
 * process's own name stays the program's.
 */

static pthread_barrier_t barrier;
static size_t len;
static long hold_ms;

static void *worker(void *arg)
{
	struct timespec ts;
	size_t i;
	char *p;
	int r;

	(void)arg;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
	madvise(p, len, MADV_NOHUGEPAGE);
	for (i = 0; i < len; i += 4096)
		p[i] = 1;
	r = pthread_barrier_wait(&barrier);
	if (r != 0 && r != PTHREAD_BARRIER_SERIAL_THREAD) {
		fprintf(stderr, "pthread_barrier_wait: %s\n", strerror(r));
		exit(1);
	}
	ts.tv_sec = hold_ms / 1000;
	ts.tv_nsec = (hold_ms % 1000) * 1000000L;
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
	munmap(p, len);
	return NULL;
}

static long parse(const char *s, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 0 || v > max)
		return -1;
	return v;
}

static char **exec_argv;

static void *exec_worker(void *arg)
{
	(void)arg;
	execv(exec_argv[0], exec_argv);
	perror("execv");
	exit(1);
}

static void touch(size_t bytes)
{
	char *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	size_t i;

	if (p == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
	madvise(p, bytes, MADV_NOHUGEPAGE);
	for (i = 0; i < bytes; i += 4096)
		p[i] = 1;
}

static void *hold_worker(void *arg)
{
	struct timespec ts = { hold_ms / 1000, (hold_ms % 1000) * 1000000L };

	(void)arg;
	touch(len);
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
	return NULL;
}

static const char *thread_name;

static void *rename_worker(void *arg)
{
	int r = pthread_setname_np(pthread_self(), thread_name);

	if (r) {
		fprintf(stderr, "pthread_setname_np: %s\n", strerror(r));
		exit(1);
	}
	return hold_worker(arg);
}

int main(int argc, char **argv)
{
	pthread_t *tids, t1;
	long n, mb, i;
	int r;

	if (argc >= 3 && !strcmp(argv[1], "exec")) {
		exec_argv = argv + 2;
		touch(8u << 20);
		r = pthread_create(&t1, NULL, exec_worker, NULL);
		if (r) {
			fprintf(stderr, "pthread_create: %s\n", strerror(r));
			return 1;
		}
		for (;;)
			pause();
	}
	if (argc == 5 && !strcmp(argv[1], "rename")) {
		thread_name = argv[2];
		mb = parse(argv[3], 1 << 20);
		hold_ms = parse(argv[4], 86400000L);
		if (mb < 0 || hold_ms < 0 || strlen(thread_name) > 15) {
			fprintf(stderr, "threads: bad argument\n");
			return 1;
		}
		len = (size_t)mb << 20;
		touch(1u << 20);
		r = pthread_create(&t1, NULL, rename_worker, NULL);
		if (!r)
			r = pthread_join(t1, NULL);
		if (r) {
			fprintf(stderr, "pthread: %s\n", strerror(r));
			return 1;
		}
		return 0;
	}
	if (argc == 4 && !strcmp(argv[1], "leader-exit")) {
		mb = parse(argv[2], 1 << 20);
		hold_ms = parse(argv[3], 86400000L);
		if (mb < 0 || hold_ms < 0) {
			fprintf(stderr, "threads: bad argument\n");
			return 1;
		}
		len = (size_t)mb << 20;
		r = pthread_create(&t1, NULL, hold_worker, NULL);
		if (r) {
			fprintf(stderr, "pthread_create: %s\n", strerror(r));
			return 1;
		}
		pthread_exit(NULL);
	}

	if (argc != 4) {
		fprintf(stderr, "usage: threads N MB HOLD_MS | leader-exit MB HOLD_MS | "
			"exec PROG [ARGS...] | rename NAME MB HOLD_MS\n");
		return 1;
	}
	n = parse(argv[1], 1024);
	mb = parse(argv[2], 1 << 20);
	hold_ms = parse(argv[3], 86400000L);
	if (n < 1 || mb < 0 || hold_ms < 0) {
		fprintf(stderr, "threads: bad argument\n");
		return 1;
	}
	len = (size_t)mb << 20;
	tids = calloc((size_t)n, sizeof(*tids));
	if (!tids) {
		perror("calloc");
		return 1;
	}
	r = pthread_barrier_init(&barrier, NULL, (unsigned)n);
	if (r) {
		fprintf(stderr, "pthread_barrier_init: %s\n", strerror(r));
		return 1;
	}
	for (i = 0; i < n; i++) {
		r = pthread_create(&tids[i], NULL, worker, NULL);
		if (r) {
			fprintf(stderr, "pthread_create: %s\n", strerror(r));
			exit(1);	/* the started threads wait on the barrier forever */
		}
	}
	for (i = 0; i < n; i++) {
		r = pthread_join(tids[i], NULL);
		if (r) {
			fprintf(stderr, "pthread_join: %s\n", strerror(r));
			return 1;
		}
	}
	pthread_barrier_destroy(&barrier);
	free(tids);
	return 0;
}
