// SPDX-License-Identifier: GPL-2.0-only
/*
 * runtime.c - libFuzzer target: what --stream reads of containers and
 * processes: /proc/PID/cgroup, the runtimes' JSON files (docker, OCI, podman's
 * containers.json), /proc/PID/status, stat and cmdline. The first byte picks one.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "lib/json.h"
#include "stream/procinfo.h"
#include "stream/runtime.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct rt_container c;
	static char out[PI_CMD];
	const char *t = (const char *)data + 1;
	size_t n = size ? size - 1 : 0;
	struct cond_label l[RT_LABELS];
	struct json_val v;
	int32_t tgid, ppid;
	uint64_t cap[5], ticks;
	uint32_t i, k;
	bool cut;

	if (!size)
		return 0;
	switch (data[0] % 6) {
	case 0:
		if (rt_parse_cgroup(t, n, &c) && strlen(c.id) != RT_ID_LEN)
			__builtin_trap();
		break;
	case 1:
		memset(&c, 0, sizeof(c));
		rt_docker_config(&c, t, n);
		break;
	case 2:
		memset(&c, 0, sizeof(c));
		rt_oci_config(&c, t, n);
		break;
	case 3:
		memset(&c, 0, sizeof(c));
		memset(c.id, 'a', RT_ID_LEN);
		rt_podman_names(&c, t, n);
		break;
	case 4:
		pi_parse_status(t, n, &tgid, &ppid, cap);
		pi_parse_starttime(t, n, &ticks);
		if (pi_join_cmdline(t, n, out, sizeof(out), &cut) > sizeof(out))
			__builtin_trap();
		break;
	default:
		if (json_parse(t, n, &v) && json_type(v) == JSON_STRING &&
		    json_str(v, out, sizeof(out)) >= (long)sizeof(out))
			__builtin_trap();
		break;
	}
	/* every label lies inside the container's text */
	k = rt_labels(&c, l, RT_LABELS);
	for (i = 0; i < k; i++)
		if (l[i].key.s < c.ltext || l[i].value.s + l[i].value.len > c.ltext + RT_LTEXT)
			__builtin_trap();
	if (strnlen(c.name, RT_STR) == RT_STR || strnlen(c.pod_name, RT_STR) == RT_STR)
		__builtin_trap();
	return 0;
}
