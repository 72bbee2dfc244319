// SPDX-License-Identifier: GPL-2.0-only
/*
 * format.c - libFuzzer target: event format files and header_page. A format
 * that parses is registered for the tracepoint the first byte picks, and the
 * rest of the input is decoded with it as a record.
 */
#include <stddef.h>
#include <stdint.h>

#include "common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct mt_decoder d;
	static struct fmt_event fe;
	struct rb_layout l;
	const struct mt_tracepoint *tp;
	struct rb_record r;
	struct mt_event ev;
	char err[256];
	size_t ntp = 0;

	if (!size)
		return 0;
	fmt_parse_header_page(&l, (const char *)data, size, err, sizeof(err));
	for (tp = mt_tracepoints; tp->system; tp++)
		ntp++;
	tp = &mt_tracepoints[data[0] % ntp];
	memset(&fe, 0, sizeof(fe));
	snprintf(fe.system, sizeof(fe.system), "%s", tp->system);
	if (fmt_parse_event(&fe, (const char *)data + 1, size - 1, err, sizeof(err)))
		return 0;
	decoder_init(&d);
	if (decoder_add(&d, tp, &fe, err, sizeof(err)))
		return 0;
	/* the same bytes as a record of that event (its id in the first two bytes) */
	r.ts = 1;
	r.big_endian = (data[0] & 0x80) != 0;	/* either byte order */
	r.data = data + 1;
	r.len = (uint32_t)(size - 1 > 4096 ? 4096 : size - 1);
	decoder_decode(&d, &r, 0, &ev);
	return 0;
}
