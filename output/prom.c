// SPDX-License-Identifier: GPL-2.0-only
/* output/prom.c - the daemon's numbers in the Prometheus text format 0.0.4, for node_exporter's textfile collector */
#include "output/prom.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/escape.h"
#include "output/rows.h"

/* The rows a family has: tasks (pid = tid), processes (pid = tgid), modules. */
enum row_kind { ROW_TASK, ROW_PROCESS, ROW_MODULE };

/* A row's label values as the file writes them: "pid/comm" or the module's name. */
#define KEY_MAX	(16 + ESCAPE_PROM_MAX(MODNAME_LEN))

/* The comm label of a task: escaped, "?" if its name was never known. */
static void comm_label(char *buf, size_t size, const struct mt_task *t)
{
	if (t->flags & TF_COMM_KNOWN)
		escape_prom(buf, size, t->comm, t->comm_len);
	else
		snprintf(buf, size, "?");
}

static void module_label(char *buf, size_t size, const struct mt_module *m)
{
	if (!escape_prom(buf, size, m->name, strnlen(m->name, sizeof(m->name))))
		snprintf(buf, size, "(unnamed)");	/* loading: module_load not seen yet */
}

static void row_key(const struct run *r, enum row_kind kind, uint32_t i, char *buf, size_t size)
{
	const struct mt_task *t;
	int n;

	if (kind == ROW_MODULE) {
		module_label(buf, size, rows_mod_at(r, i));
		return;
	}
	t = &r->st.tb.tasks[i];
	n = snprintf(buf, size, "%d/", kind == ROW_TASK ? t->tid : pid_of(t));
	comm_label(buf + n, size - (size_t)n, t);
}

static uint32_t key_hash(const char *s)
{
	uint32_t h = 2166136261u;	/* FNV-1a */

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

/*
 * Keep the first of the rows @idx[0..n) with the same label values, up to
 * @limit rows: they are compacted at the front of @idx; their number is
 * returned. @seen has @mask + 1 > 2 * @limit entries (open addressing).
 */
static uint32_t unique(const struct run *r, enum row_kind kind, uint32_t *idx, uint32_t n,
		       uint32_t limit, uint32_t *seen, uint32_t mask)
{
	char a[KEY_MAX], b[KEY_MAX];
	uint32_t i, h, kept = 0;

	memset(seen, 0, ((size_t)mask + 1) * sizeof(*seen));
	for (i = 0; i < n && kept < limit; i++) {
		bool dup = false;

		row_key(r, kind, idx[i], a, sizeof(a));
		for (h = key_hash(a) & mask; seen[h]; h = (h + 1) & mask) {
			row_key(r, kind, idx[seen[h] - 1], b, sizeof(b));
			if (!strcmp(a, b)) {
				dup = true;
				break;
			}
		}
		if (dup)
			continue;
		idx[kept] = idx[i];
		seen[h] = ++kept;
	}
	return kept;
}

static void family(struct out *o, const char *name, const char *type, const char *help)
{
	out_printf(o, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static uint64_t bytes(const struct run *r, int64_t pages)
{
	return (uint64_t)(pages < 0 ? 0 : pages) * r->meta.page_size;
}

static void counter(struct out *o, const char *name, const char *help, uint64_t v)
{
	family(o, name, "counter", help);
	out_printf(o, "%s %llu\n", name, (unsigned long long)v);
}

/* What a task or process series shows. */
enum task_value { TV_CUR, TV_PEAK, TV_PROCESS_PEAK };

static void task_family(struct out *o, const struct run *r, const uint32_t *order,
			uint32_t rows, const char *name, const char *help, enum task_value v)
{
	char comm[ESCAPE_PROM_MAX(COMM_LEN)];
	uint32_t i;

	family(o, name, "gauge", help);
	for (i = 0; i < rows; i++) {
		const struct mt_task *t = &r->st.tb.tasks[order[i]];
		int64_t pages = v == TV_CUR ? t->cur : v == TV_PEAK ? t->peak : t->ppeak;

		comm_label(comm, sizeof(comm), t);
		out_printf(o, "%s{pid=\"%d\",comm=\"%s\"} %llu\n", name,
			   v == TV_PROCESS_PEAK ? pid_of(t) : t->tid, comm,
			   (unsigned long long)bytes(r, pages));
	}
}

/* What a module series shows. */
enum module_value { MV_CUR, MV_PEAK, MV_STATIC };

/* @idx[0..n): the modules, in the reports' order. */
static void module_family(struct out *o, const struct run *r, const uint32_t *idx, uint32_t n,
			  const char *name, const char *help, enum module_value v)
{
	char label[ESCAPE_PROM_MAX(MODNAME_LEN)];
	uint32_t k;

	family(o, name, "gauge", help);
	for (k = 0; k < n; k++) {
		const struct mt_module *m = rows_mod_at(r, idx[k]);
		uint64_t val;

		if (v == MV_STATIC && !m->static_known)
			continue;
		val = v == MV_CUR ? bytes(r, m->all_cur) : v == MV_PEAK ? bytes(r, m->all_peak) :
		      m->static_kib * 1024;
		module_label(label, sizeof(label), m);
		out_printf(o, "%s{module=\"%s\"} %llu\n", name, label, (unsigned long long)val);
	}
}

static uint32_t pow2_above(uint64_t n)
{
	uint32_t c = 2;

	while (c <= 2 * n)
		c <<= 1;
	return c;
}

void prom_write(struct out *o, const struct run *r, struct report_scratch *rs, const char *kernel)
{
	const struct stats *st = &r->st;
	uint32_t top = r->opt.rows ? r->opt.rows : UINT32_MAX, nm = rows_nmods(r), n, rows, i;
	uint32_t most = st->tb.ntasks_used < top ? st->tb.ntasks_used : top;
	uint32_t mask = pow2_above(most > nm ? most : nm) - 1;
	uint32_t *seen = calloc((size_t)mask + 1, sizeof(*seen));
	uint32_t *mods = calloc(nm ? nm : 1, sizeof(*mods));
	char ver[ESCAPE_PROM_MAX(sizeof(MEMTRACE_VERSION))], kern[ESCAPE_PROM_MAX(64)];

	if (!seen || !mods) {
		o->err = -ENOMEM;	/* the file is not replaced: the old one stays */
		goto out;
	}
	escape_prom(ver, sizeof(ver), MEMTRACE_VERSION, sizeof(MEMTRACE_VERSION) - 1);
	escape_prom(kern, sizeof(kern), kernel, strnlen(kernel, 64));
	family(o, "memtrace_info", "gauge", "memtrace's version and the kernel it traces.");
	out_printf(o, "memtrace_info{version=\"%s\",kernel=\"%s\"} 1\n", ver, kern);
	counter(o, "memtrace_events_total", "Tracepoint events applied since memtrace started.",
		rows_events(st));
	counter(o, "memtrace_lost_events_total", "Events the kernel dropped (buffer full); "
		"peaks may be low when not 0.", rows_lost(r));
	counter(o, "memtrace_untracked_frees_total", "Page free events of pages never seen "
		"allocated (before tracing, or by the untraced bulk allocator).",
		st->c.untracked_frees);
	counter(o, "memtrace_oom_kills_total", "OOM kills seen (oom:mark_victim).", st->oom_count);
	family(o, "memtrace_system_peak_bytes", "gauge", "The most memory held at once by "
	       "the pages allocated since memtrace started (tasks, irq context, modules).");
	out_printf(o, "memtrace_system_peak_bytes %llu\n",
		   (unsigned long long)bytes(r, st->sys_peak));

	n = rows_tasks(r, rs);
	rows = unique(r, ROW_TASK, rs->order, n, top, seen, mask);
	task_family(o, r, rs->order, rows, "memtrace_task_current_bytes", "Memory a task (thread) holds "
		    "now, the top tasks by peak (-n).", TV_CUR);
	task_family(o, r, rs->order, rows, "memtrace_task_peak_bytes", "The most memory a task (thread) "
		    "held at once, the top tasks by peak (-n), exited ones included.", TV_PEAK);
	n = rows_processes(r, rs, false);
	rows = unique(r, ROW_PROCESS, rs->order, n, top, seen, mask);
	task_family(o, r, rs->order, rows, "memtrace_process_peak_bytes", "The most memory a process "
		    "(threads summed) held at once, the top processes by peak (-n), exited "
		    "ones included.", TV_PROCESS_PEAK);

	for (i = 0; i < nm; i++)
		mods[i] = nm - 1 - i;	/* the latest entry of a name first: the one kept */
	n = unique(r, ROW_MODULE, mods, nm, UINT32_MAX, seen, mask);
	/* then as the reports list them, by peak, the top -n */
	rows_sort_modules(r, mods, n);
	if (n > top)
		n = top;
	module_family(o, r, mods, n, "memtrace_module_current_bytes", "Memory a module holds now: "
		      "pages its code asked for (--stacks) or its load took, each once (its code "
		      "and data are _static_bytes), the top modules by peak (-n).", MV_CUR);
	module_family(o, r, mods, n, "memtrace_module_peak_bytes", "The most memory a module "
		      "held at once (as _current_bytes).", MV_PEAK);
	module_family(o, r, mods, n, "memtrace_module_static_bytes", "A module's code and "
		      "data, from /sys/module/NAME/coresize + initsize.", MV_STATIC);
out:
	free(seen);
	free(mods);
}
