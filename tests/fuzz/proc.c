// SPDX-License-Identifier: GPL-2.0-only
/*
 * proc.c - libFuzzer target: the /proc and /sys text parsers (statm, stat,
 * zoneinfo, kallsyms lines, /proc/modules lines). The first byte picks one.
 */
#include <stddef.h>
#include <stdint.h>

#include "common.h"
#include "kernel/ksyms.h"
#include "kernel/proc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *t = (const char *)data + 1;
	size_t n = size ? size - 1 : 0, pos = 0;
	struct ksym_range kr;
	struct proc_module pm;
	uint64_t v, w;
	int32_t ppid;

	if (!size)
		return 0;
	switch (data[0] % 5) {
	case 0:
		proc_parse_statm(t, n, &v);
		break;
	case 1:
		proc_parse_stat(t, n, &ppid, &v);
		break;
	case 2:
		proc_parse_zoneinfo(t, n, &w);
		break;
	case 3:
		ksym_range_init(&kr, "do_init_module");
		while (pos < n) {
			const char *nl = memchr(t + pos, '\n', n - pos);
			size_t len = nl ? (size_t)(nl - (t + pos)) : n - pos;

			ksym_range_line(&kr, t + pos, len);
			pos += len + 1;
		}
		break;
	default:
		while (pos < n) {
			const char *nl = memchr(t + pos, '\n', n - pos);
			size_t len = nl ? (size_t)(nl - (t + pos)) : n - pos;

			if (!proc_parse_module_line(t + pos, len, &pm) &&
			    (pm.name_len == 0 || pm.name_len >= MODNAME_LEN))
				__builtin_trap();	/* the parser promised a bounded name */
			pos += len + 1;
		}
		break;
	}
	return 0;
}
