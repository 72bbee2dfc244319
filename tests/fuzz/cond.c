// SPDX-License-Identifier: GPL-2.0-only
/*
 * cond.c - libFuzzer target: the --stream condition parser. The input's lines
 * are conditions (-c each), compiled, evaluated on a subject made of the
 * input's bytes, and turned into kernel filters; none may crash or overrun.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "core/cond.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct cond c;
	static char filter[512];
	const char *t = (const char *)data;
	struct cond_subject s;
	struct cond_label l[2];
	int32_t pids[COND_MAX_PIDS];
	char err[512];
	size_t pos = 0, n, half = size / 2;
	uint32_t unknown = 0;
	int k;

	cond_init(&c);
	while (pos < size) {
		const char *nl = memchr(t + pos, '\n', size - pos);

		n = nl ? (size_t)(nl - (t + pos)) : size - pos;
		if (cond_add(&c, t + pos, n, err, sizeof(err)) && !memchr(err, '\0', sizeof(err)))
			__builtin_trap();	/* an error message is always terminated */
		pos += n + 1;
	}
	memset(&s, 0, sizeof(s));
	s.pid = size ? data[0] : 1;
	s.name.s = t;
	s.name.len = half < 16 ? half : 16;
	s.cmd.s = t + half;
	s.cmd.len = size - half;
	s.exe = s.cmd;
	s.cap[2] = size;
	s.in_container = s.in_pod = size & 1;
	s.cont_id = s.cont_name = s.pod_id = s.pod_name = s.pod_ns = s.name;
	l[0].key = s.name;
	l[0].value = s.cmd;
	l[1] = l[0];
	s.cont_labels = s.pod_labels = l;
	s.ncont_labels = s.npod_labels = 2;
	s.known = size ? (uint32_t)data[size - 1] * 0x01010101u : 0;
	(void)cond_value(&c, &s, &unknown);
	if (unknown & ~s.known & ~((1u << CK__COUNT) - 1))
		__builtin_trap();
	n = cond_comm_filter(&c, filter, sizeof(filter));
	if (n >= sizeof(filter) || strlen(filter) != n)
		__builtin_trap();
	k = cond_pid_set(&c, pids, COND_MAX_PIDS);
	if (k > COND_MAX_PIDS || k == 0)
		__builtin_trap();
	return 0;
}
