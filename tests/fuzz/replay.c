// SPDX-License-Identifier: GPL-2.0-only
/*
 * replay.c - libFuzzer target: what --replay reads: memtrace.meta (both
 * passes), memtrace.seed, boot-buffer pages, and per-CPU files through the
 * reader's merge of two CPUs, as --replay runs it (the first byte picks).
 */
#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kernel/reader.h"
#include "input/boot.h"
#include "common.h"
#include "input/record.h"

static struct rb_layout L;
static struct mt_decoder D;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void sink(void *ctx, const struct mt_event *ev)
{
	stats_apply(ctx, ev);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_load_formats(&L, &D);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct stats_config cfg = { .max_tasks = 32, .max_modules = 4, .max_pfn = 1 << 12 };
	static struct mt_module extra[4];
	static struct stats s;
	struct boot_buffer b;
	struct meta m;
	const char *t = (const char *)data + 1;
	size_t n = size ? size - 1 : 0;
	uint32_t bad = 0, full = 0;
	uint64_t pages;

	if (!size || stats_init(&s, &cfg))
		return 0;
	memset(&m, 0, sizeof(m));
	m.extra = extra;
	m.extra_cap = 4;
	switch (data[0] % 4) {
	case 0:
		meta_parse(t, n, &m, NULL, NULL, &bad);
		meta_parse_boot(t, n, &s, &bad);
		meta_parse(t, n, &m, NULL, &s, &bad);
		break;
	case 1:
		seed_parse(t, n, &s, &pages, &bad, &full);
		stats_link_threads(&s);
		break;
	case 3: {
		/* two CPUs' files, cut where the second byte says, merged as in a replay */
		static struct reader rd;
		int fds[2] = { -1, -1 }, ids[2] = { 0, 1 }, i;
		size_t cut = n ? (size_t)(t[0] & 0x7f) * 4096 % n : 0;

		for (i = 0; i < 2; i++) {
			fds[i] = memfd_create("cpu", MFD_CLOEXEC);
			if (fds[i] < 0)
				goto out;
		}
		if ((cut && write(fds[0], t, cut) != (ssize_t)cut) ||
		    (n > cut && write(fds[1], t + cut, n - cut) != (ssize_t)(n - cut)))
			goto out;
		lseek(fds[0], 0, SEEK_SET);
		lseek(fds[1], 0, SEEK_SET);
		if (!reader_init(&rd, &L, &D, 2, ids, fds, false, true, sink, &s)) {
			reader_run(&rd, true, 0);
			reader_lost(&rd);
			reader_free(&rd);
		}
out:
		for (i = 0; i < 2; i++)
			if (fds[i] >= 0)
				close(fds[i]);
		break;
	}
	default: {
		/* the bytes as one CPU of the kernel's boot buffer (--boot-buffer) */
		int fd = memfd_create("boot", MFD_CLOEXEC), cpu = 0;

		if (fd >= 0 && write(fd, t, n) == (ssize_t)n && lseek(fd, 0, SEEK_SET) == 0 &&
		    !boot_init(&b, 8)) {
			boot_read(&b, &L, &D, 1, &cpu, &fd, NULL, 0);
			boot_apply(&b, &s);
			boot_free(&b);
		}
		if (fd >= 0)
			close(fd);
		break;
	}
	}
	stats_free(&s);
	return 0;
}
