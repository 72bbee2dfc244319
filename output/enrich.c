// SPDX-License-Identifier: GPL-2.0-only
/* output/enrich.c - report-time facts from /proc and /sys: names, ids, module sizes, loss counters, own RSS */
#include "output/enrich.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "module.h"
#include "kernel/proc.h"
#include "lib/util.h"

/* Just before tracing begins: every module loaded now is "before". */
static void module_before(void *p, const struct proc_module *pm)
{
	struct run *r = p;
	struct mt_module *m;

	if (pm->loading)
		return;	/* its load may still be traced; if not, it shows as untraced */
	m = module_present(&r->st.tb, pm->name, pm->name_len);
	if (m && m->state == MOD_BEFORE && !m->static_known) {
		m->static_kib = (pm->size + 1023) / 1024;	/* /sys may say more later */
		m->static_known = 1;
	}
}

void enrich_modules_before(struct run *r)
{
	uint32_t bad = 0;

	proc_modules("/proc", module_before, r, &bad);
}

struct untraced_ctx {
	struct run *r;
	bool skip_loading;
};

/* At report time: modules the kernel has that the table does not know (untraced). */
static void module_untraced(void *p, const struct proc_module *pm)
{
	struct untraced_ctx *u = p;
	struct meta *mt = &u->r->meta;
	struct mt_module *x;

	/* a load in progress whose module_load we have not read yet */
	if (pm->loading && u->skip_loading)
		return;
	if (module_live(&u->r->st.tb, pm->name, pm->name_len))
		return;
	if (mt->nextra >= mt->extra_cap) {
		mt->extra_dropped++;
		return;
	}
	x = &mt->extra[mt->nextra++];
	memset(x, 0, sizeof(*x));
	memcpy(x->name, pm->name, pm->name_len);	/* < MODNAME_LEN: parser checked */
	x->name[pm->name_len] = '\0';
	x->state = MOD_UNTRACED;
	x->static_kib = (pm->size + 1023) / 1024;
	x->static_known = 1;
}

/* Process and parent of a task first seen by its page events, from /proc. */
static void read_ids(struct mt_task *t)
{
	char path[64], buf[2048], *p, *q;

	snprintf(path, sizeof(path), "/proc/%d/status", t->tid);
	if (read_file(path, buf, sizeof(buf)) <= 0)
		return;
	p = strstr(buf, "\nTgid:");
	q = strstr(buf, "\nPPid:");
	if (!p || !q)
		return;
	t->tgid = (int32_t)strtol(p + 6, NULL, 10);
	t->ppid = (int32_t)strtol(q + 6, NULL, 10);
}

void enrich_refresh(struct run *r)
{
	struct untraced_ctx u = { r, module_unnamed_open(&r->st.tb) };
	struct table *tb = &r->st.tb;
	uint32_t i, bad = 0;
	uint64_t kib;
	int c;

	if (!r->ops->live)
		return;
	/* every module the kernel has now is listed, traced or not */
	r->meta.nextra = r->meta.extra_dropped = 0;
	if (proc_modules("/proc", module_untraced, &u, &bad) >= 0 && bad)
		mt_warn("%u malformed lines in /proc/modules skipped", bad);
	for (i = 0; i < r->meta.nextra; i++)
		if (!sys_module_kib("/sys", r->meta.extra[i].name, &kib))
			r->meta.extra[i].static_kib = kib;
	for (c = 0; c < r->rd.ncpus; c++) {
		uint64_t lost;

		if (r->tf.fds && !tracefs_cpu_lost(&r->tf, c, &lost))
			r->rd.cpus[c].stats_lost = lost;
	}
	for (i = SLOT_FIRST; i < tb->ntasks_used; i++) {
		struct mt_task *t = &tb->tasks[i];
		char comm[64];
		size_t len;

		if (t->state != TASK_ALIVE || t->peak <= 0)
			continue;
		if (!(t->flags & TF_COMM_KNOWN) &&
		    !proc_read_comm("/proc", t->tid, comm, sizeof(comm), &len))
			table_set_comm(t, comm, len);
		if (!t->tgid)
			read_ids(t);
	}
	for (i = 0; i < tb->nmods; i++) {
		struct mt_module *m = &tb->mods[i];

		if (m->name[0] && m->state != MOD_UNLOADED && !sys_module_kib("/sys", m->name, &kib)) {
			m->static_kib = kib;
			m->static_known = 1;
		}
	}
}

static long status_kib(const char *key)
{
	char buf[4096], *p;
	ssize_t n = read_file("/proc/self/status", buf, sizeof(buf));

	if (n <= 0 || !(p = strstr(buf, key)))
		return -1;
	return strtol(p + strlen(key), NULL, 10);
}

void enrich_now(struct run *r)
{
	struct timespec ts;

	if (!r->ops->live) {
		r->uptime_s = r->meta.uptime_s ? r->meta.uptime_s : (double)r->st.last_ts / 1e9;
		r->self_rss_kib = r->self_hwm_kib = r->self_map_kib = -1;
		return;
	}
	clock_gettime(CLOCK_BOOTTIME, &ts);
	r->uptime_s = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
	r->self_rss_kib = status_kib("VmRSS:");
	r->self_hwm_kib = status_kib("VmHWM:");
	r->self_map_kib = stats_map_resident_kib(&r->st);
}

struct ranges_ctx {
	struct run *r;
	struct mod_range *out;
	uint32_t n, cap;
	uint64_t ts;
	bool hidden;
};

static void module_range(void *p, const struct proc_module *pm)
{
	struct ranges_ctx *c = p;
	struct mod_range *x;

	if (!pm->addr) {
		c->hidden = true;
		return;
	}
	if (c->n >= c->cap)
		return;
	x = &c->out[c->n++];
	memset(x, 0, sizeof(*x));
	x->start = pm->addr;
	x->end = pm->addr + pm->size;
	x->from_ts = c->ts;
	memcpy(x->name, pm->name, pm->name_len);	/* < MODNAME_LEN: parser checked */
}

void enrich_module_ranges(struct run *r, uint64_t ts)
{
	struct ranges_ctx c = { r, NULL, 0, r->opt.max_modules, ts, false };
	uint32_t bad = 0;

	if (!r->st.stacks_on || r->st.sk.hidden)
		return;
	c.out = calloc(c.cap, sizeof(*c.out));
	if (!c.out)
		return;
	if (proc_modules("/proc", module_range, &c, &bad) >= 0 && c.hidden) {
		r->st.sk.hidden = true;
		mt_warn("warning: --stacks: module addresses are hidden (kptr_restrict): modules "
			"are attributed by their load brackets only");
	} else if (stacks_set_ranges(&r->st.sk, c.out, c.n)) {
		mt_warn("warning: --stacks: no memory for the modules' code ranges");
	}
	free(c.out);
}
