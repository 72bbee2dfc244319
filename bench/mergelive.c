// SPDX-License-Identifier: GPL-2.0-only
/*
 * mergelive.c - the reader's live merge over a recording, driven like the poll loop
 *
 * usage: mergelive DIR [sweep]
 * DIR is a --record directory (per_cpu/cpuK/trace_pipe_raw, events/). The reader runs in
 * live mode (non-blocking reads, the hold-back, a mono clock) over its pages held in
 * memory. A CPU's next page can be read once a fake clock has reached the page's time
 * stamp (else EAGAIN, as an empty trace_pipe_raw says); each answer costs a real read()
 * (the page from the file, EAGAIN from an empty pipe). The clock goes from poll wakeup
 * to poll wakeup as the loop's would with the default buffer: when a CPU has half of
 * its 2048 KiB unread (POLLIN, buffer_percent 50), or after the 100 ms timeout. Then the
 * loop's calls, in batches of 65536: reader_run(), or reader_run_idle() when no CPU has
 * anything (the loop's trace_pipe check). With "sweep" (and in a build against an older
 * reader, which has only that) reader_run() at every wakeup. Then the final drain.
 * Prints "ns/event N reads/event R events E out_of_order O": CPU time of the merge
 * (decoding included, no accounting) per event, and read() calls per event.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kernel/event.h"
#include "kernel/format.h"
#include "kernel/reader.h"
#include "kernel/ringbuf.h"

#define TIMEOUT_NS	100000000ull	/* the poll loop's timeout, 100 ms */
#define BATCH		65536
#define BUFFER_KB	2048ull		/* the default --buffer-size: poll wakes at half of it */
#define FD0		1000	/* fds handed to the reader: FD0 + CPU index */

struct src {
	int fd;			/* the recorded file */
	uint8_t *pages;
	size_t npages, next;
	uint64_t *ts;		/* each page's time stamp */
};

static struct src *srcs;
static size_t subbuf;
static uint64_t clk, reads;
static int empty_pipe;		/* the read end of a pipe nobody writes: EAGAIN */
static uint64_t delivered;

static uint64_t fake_now(void)
{
	return clk;
}

/* Each answer costs a real read(): EAGAIN from an empty pipe, a page from the file. */
static ssize_t fake_read(int fd, void *buf, size_t len)
{
	struct src *s = &srcs[fd - FD0];
	ssize_t n;

	reads++;
	if (s->next >= s->npages || s->ts[s->next] > clk)
		return read(empty_pipe, buf, len);
	n = pread(s->fd, buf, len < subbuf ? len : subbuf, (off_t)(s->next * subbuf));
	s->next++;
	return n;
}

static void sink(void *ctx, const struct mt_event *ev)
{
	(void)ctx;
	(void)ev;
	delivered++;
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t cap = 0, n = 0, k;

	if (!f)
		return NULL;
	do {
		if (n + 65536 + 1 > cap) {
			cap = (n + 65536 + 1) * 2;
			buf = realloc(buf, cap);
			if (!buf)
				exit(1);
		}
		k = fread(buf + n, 1, 65536, f);
		n += k;
	} while (k);
	fclose(f);
	buf[n] = '\0';
	*len = n;
	return buf;
}

static double cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	static struct mt_decoder dec;
	static struct reader r;
	const struct mt_tracepoint *tp;
	struct rb_layout l;
	char path[4096], err[256], *text;
	int n = 0, i, *ids, *fds, pfd[2];
	bool sweep = argc > 2 && !strcmp(argv[2], "sweep");
	uint64_t start = UINT64_MAX, end = 0, last, wakeups = 0, idle = 0, got;
	size_t half = BUFFER_KB * 1024 / 2;
	size_t len;
	double t0, t1;

#ifdef MERGELIVE_SWEEP_ONLY
	sweep = true;
#endif
	if (argc < 2) {
		fprintf(stderr, "usage: mergelive DIR [sweep]\n");
		return 2;
	}
	snprintf(path, sizeof(path), "%s/events/header_page", argv[1]);
	text = slurp(path, &len);
	if (!text || fmt_parse_header_page(&l, text, len, err, sizeof(err))) {
		fprintf(stderr, "mergelive: %s: %s\n", path, text ? err : strerror(errno));
		return 1;
	}
	free(text);
	subbuf = rb_subbuf_size(&l);
	half /= subbuf;
	decoder_init(&dec);
	for (tp = mt_tracepoints; tp->system; tp++) {
		struct fmt_event fe;

		snprintf(path, sizeof(path), "%s/events/%s/%s/format", argv[1], tp->system,
			 tp->name);
		text = slurp(path, &len);
		if (!text)
			continue;
		memset(&fe, 0, sizeof(fe));
		snprintf(fe.system, sizeof(fe.system), "%s", tp->system);
		if (!fmt_parse_event(&fe, text, len, err, sizeof(err)))
			decoder_add(&dec, tp, &fe, err, sizeof(err));
		free(text);
	}
	for (;;) {
		snprintf(path, sizeof(path), "%s/per_cpu/cpu%d/trace_pipe_raw", argv[1], n);
		if (access(path, R_OK))
			break;
		n++;
	}
	srcs = calloc((size_t)n + 1, sizeof(*srcs));
	ids = calloc((size_t)n + 1, sizeof(*ids));
	fds = calloc((size_t)n + 1, sizeof(*fds));
	if (!n || !srcs || !ids || !fds) {
		fprintf(stderr, "mergelive: %s: no per_cpu/cpuN/trace_pipe_raw\n", argv[1]);
		return 1;
	}
	for (i = 0; i < n; i++) {
		struct src *s = &srcs[i];
		struct rb_page_info info;
		struct rb_cursor cur;
		size_t k;

		snprintf(path, sizeof(path), "%s/per_cpu/cpu%d/trace_pipe_raw", argv[1], i);
		s->pages = (uint8_t *)slurp(path, &len);
		s->fd = open(path, O_RDONLY | O_CLOEXEC);
		s->npages = len / subbuf;
		s->ts = calloc(s->npages + 1, sizeof(*s->ts));
		if (!s->pages || !s->ts || s->fd < 0)
			return 1;
		for (k = 0; k < s->npages; k++) {
			rb_page_open(&cur, &l, s->pages + k * subbuf, subbuf, &info);
			s->ts[k] = info.ts;
			if (info.ts < start)
				start = info.ts;
			if (info.ts > end)
				end = info.ts;
		}
		ids[i] = i;
		fds[i] = FD0 + i;
	}
	if (pipe2(pfd, O_NONBLOCK | O_CLOEXEC))
		return 1;
	empty_pipe = pfd[0];
	if (reader_init(&r, &l, &dec, n, ids, fds, true, true, sink, NULL))
		return 1;
	r.now = fake_now;
	r.read_fn = fake_read;
	t0 = cpu_s();
	for (clk = start, last = start; clk <= end;) {
		uint64_t wake = last + TIMEOUT_NS;
		int nready = 0, pending = 0;

		/* poll: the first CPU to have half its buffer unread, or the timeout */
		for (i = 0; i < n; i++) {
			struct src *s = &srcs[i];

			if (s->next + half - 1 < s->npages && s->ts[s->next + half - 1] < wake)
				wake = s->ts[s->next + half - 1];
		}
		clk = wake > clk ? wake : clk;
		last = clk;
		for (i = 0; i < n; i++) {
			struct src *s = &srcs[i];

			pending += s->next < s->npages && s->ts[s->next] <= clk;
			nready += s->next + half - 1 < s->npages && s->ts[s->next + half - 1] <= clk;
		}
		wakeups++;
#ifndef MERGELIVE_SWEEP_ONLY
		/* the loop's trace_pipe check: no CPU has anything, no CPU is read */
		if (!sweep && !nready && !pending) {
			idle++;
			if (reader_run_idle(&r, clk, BATCH) < BATCH)
				continue;
		}
#endif
		while (reader_run(&r, false, BATCH) == BATCH)
			;
	}
	got = reader_run(&r, true, 0);
	t1 = cpu_s();
	(void)got;
	printf("ns/event %.1f reads/event %.4f events %llu out_of_order %llu wakeups %llu "
	       "idle %llu reads %llu\n", (t1 - t0) * 1e9 / (double)(r.records ? r.records : 1),
	       (double)reads / (double)(r.records ? r.records : 1),
	       (unsigned long long)r.records, (unsigned long long)r.out_of_order,
	       (unsigned long long)wakeups, (unsigned long long)idle, (unsigned long long)reads);
	reader_free(&r);
	return 0;
}
