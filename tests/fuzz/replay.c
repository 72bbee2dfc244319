// SPDX-License-Identifier: GPL-2.0-only
/*
 * replay.c - libFuzzer target: what --replay reads besides the sub-buffers:
 * memtrace.meta (both passes), memtrace.seed, and boot-buffer pages (the
 * first byte picks), into a real table.
 */
#include <stddef.h>
#include <stdint.h>

#include "boot.h"
#include "common.h"
#include "record.h"

static struct rb_layout L;
static struct mt_decoder D;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

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
	uint32_t bad = 0;
	uint64_t pages;

	if (!size || stats_init(&s, &cfg))
		return 0;
	memset(&m, 0, sizeof(m));
	m.extra = extra;
	m.extra_cap = 4;
	switch (data[0] % 3) {
	case 0:
		meta_parse(t, n, &m, NULL, NULL, &bad);
		meta_parse_boot(t, n, &s, &bad);
		meta_parse(t, n, &m, NULL, &s, &bad);
		break;
	case 1:
		seed_parse(t, n, &s, &pages, &bad);
		stats_link_threads(&s);
		break;
	default:
		if (!boot_init(&b, 8)) {
			boot_page(&b, &L, &D, t, n, 0);
			boot_apply(&b, &s);
			boot_free(&b);
		}
		break;
	}
	stats_free(&s);
	return 0;
}
