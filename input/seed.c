// SPDX-License-Identifier: GPL-2.0-only
/* input/seed.c - the tasks alive at start, read from /proc into the tables */
#include "input/seed.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/proc.h"
#include "lib/util.h"

#define PF_KTHREAD	0x00200000ull

static bool is_number(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

static void seed_one(const char *proc_root, struct stats *s, uint64_t (*now)(void),
		     int32_t pid, int32_t tid, struct seed_result *res)
{
	char path[256], buf[1024], comm[64];
	uint64_t resident = 0, flags = 0;
	int32_t ppid = 0;
	size_t clen = 0;
	uint64_t ts;
	ssize_t n;
	bool kthread;

	/* the seed time comes first: later events are not in the snapshot */
	ts = now();
	if (path_fmt(path, sizeof(path), "%s/%d/task/%d/stat", proc_root, pid, tid))
		goto skip;
	n = read_file(path, buf, sizeof(buf));
	if (n <= 0 || proc_parse_stat(buf, (size_t)n, &ppid, &flags))
		goto skip;
	kthread = flags & PF_KTHREAD;
	if (path_fmt(path, sizeof(path), "%s/%d/task/%d/comm", proc_root, pid, tid))
		goto skip;
	n = read_file(path, comm, sizeof(comm));
	if (n < 0)
		goto skip;
	if (n > 0 && comm[n - 1] == '\n')
		n--;
	clen = (size_t)n;
	/* statm is per address space: count it once, on the thread-group leader */
	if (tid == pid && !kthread) {
		if (path_fmt(path, sizeof(path), "%s/%d/statm", proc_root, pid))
			goto skip;
		n = read_file(path, buf, sizeof(buf));
		if (n <= 0 || proc_parse_statm(buf, (size_t)n, &resident))
			goto skip;
	}
	if (!stats_seed_task(s, tid, pid, ppid, comm, clen, resident, ts, kthread))
		goto skip;
	res->tasks++;
	res->pages += resident;
	return;
skip:
	res->skipped++;
}

int seed_from_proc(const char *proc_root, struct stats *s, uint64_t (*now)(void), int32_t self,
	      int32_t also, struct seed_result *res)
{
	struct dirent *de, *te;
	char path[256];
	DIR *d, *td;
	int e, te_res;

	memset(res, 0, sizeof(*res));
	d = opendir(proc_root);
	if (!d)
		return -errno;
	/* an error is a partial seed: said by the caller */
	while ((e = dir_next(d, &de)) > 0) {
		long pid;

		if (!is_number(de->d_name))
			continue;
		pid = strtol(de->d_name, NULL, 10);
		if (pid <= 0 || pid > INT32_MAX || pid == self || (also && pid == also))
			continue;
		if (path_fmt(path, sizeof(path), "%s/%ld/task", proc_root, pid))
			continue;
		td = opendir(path);
		if (!td) {
			res->skipped++;
			continue;
		}
		while ((te_res = dir_next(td, &te)) > 0) {
			long tid;

			if (!is_number(te->d_name))
				continue;
			tid = strtol(te->d_name, NULL, 10);
			if (tid <= 0 || tid > INT32_MAX)
				continue;
			seed_one(proc_root, s, now, (int32_t)pid, (int32_t)tid, res);
		}
		/* gone while listed (ENOENT): as a task gone before open */
		if (te_res < 0)
			res->skipped++;
		closedir(td);
	}
	closedir(d);
	return e;
}
