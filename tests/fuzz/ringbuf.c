// SPDX-License-Identifier: GPL-2.0-only
/*
 * ringbuf.c - libFuzzer target: raw sub-buffers as read from trace_pipe_raw,
 * through the decoder (real 6.1 formats) into the accounting, as live and
 * replay do. The input is cut into sub-buffer-sized reads; the last may be short.
 */
#include <stddef.h>
#include <stdint.h>

#include "common.h"

static struct rb_layout L;
static struct mt_decoder D;
static struct stats S;

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
	struct stats_config cfg = { .max_tasks = 64, .max_modules = 8, .max_pfn = 1 << 16,
				    .initmod_start = 0x1000, .initmod_end = 0x2000,
				    .exit_ring = 16 };
	uint32_t sub = rb_subbuf_size(&L);
	struct mt_exit e;
	size_t off;
	int order;

	if (stats_init(&S, &cfg))
		return 0;
	stats_tree_root(&S, 100, 1);
	/* both byte orders: the input's first page says which, as it does live */
	order = size >= sub ? rb_detect_order(&L, data, sub) : RB_ORDER_UNKNOWN;
	L.big_endian = order == RB_ORDER_UNKNOWN ? size && (data[0] & 1) : order == RB_ORDER_BE;
	for (off = 0; off < size; off += sub) {
		size_t len = size - off < sub ? size - off : sub;
		struct rb_page_info info;
		struct rb_cursor c;
		struct rb_record r;

		if (rb_page_open(&c, &L, data + off, len, &info))
			continue;
		while (rb_next(&c, &r) == RB_RECORD) {
			struct mt_event ev;

			if (decoder_decode(&D, &r, 0, &ev) == DEC_OK)
				stats_apply(&S, &ev);
		}
	}
	while (stats_exit_pop(&S, &e))
		;
	stats_free(&S);
	return 0;
}
