// SPDX-License-Identifier: GPL-2.0-only
/* module.c - attribute page allocations to kernel modules through load brackets */
#include "stats.h"

#include <string.h>

/*
 * A bracket is the stretch of one loader task during which its allocations
 * belong to a module:
 *  - BR_SYSCALL: sys_enter_(f)init_module .. sys_exit_(f)init_module of the
 *    same tid. The module slot is taken at syscall entry, before the name is
 *    known; module_load names it later. Everything done synchronously for the
 *    load is inside: reading the image, relocation, sysfs, init().
 *  - BR_LOADPUT: the fallback without syscall events, module_load ..
 *    module_put(call site in do_init_module) of the same tid: init() only.
 * Pages keep the module as owner in the pfn map, so frees credit the module
 * (and its loader) whoever frees them.
 */

static struct mt_module *module_new(struct stats *s, struct mt_task *loader,
				    uint8_t bracket, uint64_t ts)
{
	struct mt_module *m;

	if (s->nmods >= s->cfg.max_modules) {
		s->c.module_overflow++;
		return NULL;
	}
	m = &s->mods[s->nmods++];
	memset(m, 0, sizeof(*m));
	m->serial = s->nmods;
	m->loader_serial = loader->serial;
	m->loader_tid = loader->tid;
	m->state = MOD_LOADING;
	m->bracket = bracket;
	m->open = 1;
	m->start_ts = ts;
	s->c.modules_seen++;
	return m;
}

static void set_name(struct mt_module *m, const struct mt_str *name)
{
	size_t len = name->len < MODNAME_LEN - 1 ? name->len : MODNAME_LEN - 1;

	memcpy(m->name, name->s, len);
	m->name[len] = '\0';
}

static bool name_is(const struct mt_module *m, const struct mt_str *name)
{
	size_t len = name->len < MODNAME_LEN - 1 ? name->len : MODNAME_LEN - 1;

	return strlen(m->name) == len && !memcmp(m->name, name->s, len);
}

static void bracket_close(struct stats *s, struct mt_task *t, uint64_t ts)
{
	struct mt_module *m = stats_module_by_serial(s, t->mod);

	if (m) {
		m->open = 0;
		m->end_ts = ts;
	}
	t->mod = 0;
	t->bracket = BR_NONE;
}

void module_task_exit(struct stats *s, struct mt_task *t, uint64_t ts)
{
	struct mt_module *m = stats_module_by_serial(s, t->mod);

	if (m && m->state == MOD_LOADING)
		m->state = MOD_FAILED;
	if (t->bracket != BR_NONE)
		bracket_close(s, t, ts);
}

static void on_syscall_enter(struct stats *s, const struct mt_event *ev)
{
	struct mt_task *t = stats_task_for(s, ev->tid, ev->ts);
	struct mt_module *m;

	if (t->bracket != BR_NONE)
		bracket_close(s, t, ev->ts);
	m = module_new(s, t, BR_SYSCALL, ev->ts);
	t->bracket = BR_SYSCALL;	/* even without a slot: no fallback bracket */
	t->mod = m ? m->serial : 0;
}

static void on_load(struct stats *s, const struct mt_event *ev)
{
	struct mt_task *t = stats_task_for(s, ev->tid, ev->ts);
	struct mt_module *m;

	if (t->bracket == BR_SYSCALL) {
		m = stats_module_by_serial(s, t->mod);
		if (m) {
			set_name(m, &ev->u.module.name);
			m->load_ts = ev->ts;
		}
		return;
	}
	if (t->bracket == BR_LOADPUT)
		bracket_close(s, t, ev->ts);
	m = module_new(s, t, BR_LOADPUT, ev->ts);
	if (!m)
		return;
	set_name(m, &ev->u.module.name);
	m->load_ts = ev->ts;
	t->bracket = BR_LOADPUT;
	t->mod = m->serial;
}

static void on_put(struct stats *s, const struct mt_event *ev)
{
	struct mt_task *t = stats_find_task(s, ev->tid);
	struct mt_module *m;
	uint64_t ip = ev->u.module.ip;

	if (!t || t->bracket != BR_LOADPUT)
		return;
	m = stats_module_by_serial(s, t->mod);
	if (!m || !name_is(m, &ev->u.module.name))
		return;
	/* only the put from do_init_module ends the bracket, when we can tell */
	if (s->cfg.initmod_start &&
	    (ip < s->cfg.initmod_start || ip >= s->cfg.initmod_end))
		return;
	m->state = MOD_LIVE;
	bracket_close(s, t, ev->ts);
}

static void on_syscall_exit(struct stats *s, const struct mt_event *ev)
{
	struct mt_task *t = stats_find_task(s, ev->tid);
	struct mt_module *m;

	if (!t || t->bracket != BR_SYSCALL)
		return;
	m = stats_module_by_serial(s, t->mod);
	if (m) {
		m->ret = ev->u.modsys.ret;
		if (m->state == MOD_LOADING)
			m->state = ev->u.modsys.ret < 0 ? MOD_FAILED : MOD_LIVE;
	}
	bracket_close(s, t, ev->ts);
}

static void on_free(struct stats *s, const struct mt_event *ev)
{
	uint32_t i;

	for (i = s->nmods; i-- > 0; ) {
		struct mt_module *m = &s->mods[i];

		if (m->free_ts || !name_is(m, &ev->u.module.name))
			continue;
		m->free_ts = ev->ts;
		/* freed while its load bracket is open: init failed */
		if (m->state == MOD_LOADING)
			m->state = MOD_FAILED;
		else if (m->state != MOD_FAILED)
			m->state = MOD_UNLOADED;
		return;
	}
}

struct mt_module *stats_module_present(struct stats *s, const char *name, size_t len)
{
	struct mt_module *m;

	if (!len)
		return NULL;
	if (len > MODNAME_LEN - 1)
		len = MODNAME_LEN - 1;
	m = stats_module_live(s, name, len);
	if (m)
		return m;
	if (s->nmods >= s->cfg.max_modules) {
		s->c.module_overflow++;
		return NULL;
	}
	m = &s->mods[s->nmods++];
	memset(m, 0, sizeof(*m));
	m->serial = s->nmods;
	m->state = MOD_BEFORE;
	m->bracket = BR_NONE;
	memcpy(m->name, name, len);
	m->name[len] = '\0';
	return m;
}

struct mt_module *stats_module_booted(struct stats *s, const char *name, size_t len,
				      int32_t tid, uint64_t ts)
{
	struct mt_module *m;

	if (!len)
		return NULL;
	if (len > MODNAME_LEN - 1)
		len = MODNAME_LEN - 1;
	if (s->nmods >= s->cfg.max_modules) {
		s->c.module_overflow++;
		return NULL;
	}
	m = &s->mods[s->nmods++];
	memset(m, 0, sizeof(*m));
	m->serial = s->nmods;
	m->state = MOD_LIVE;
	m->bracket = BR_BOOT;
	m->loader_tid = tid;
	m->load_ts = ts;
	m->start_ts = ts;
	memcpy(m->name, name, len);
	m->name[len] = '\0';
	s->c.modules_seen++;
	return m;
}

struct mt_module *stats_module_gone(struct stats *s, const char *name, size_t len, uint64_t ts)
{
	struct mt_module *m;

	if (len > MODNAME_LEN - 1)
		len = MODNAME_LEN - 1;
	m = stats_find_module(s, name, len);
	if (!m || m->free_ts)
		return NULL;
	m->free_ts = ts;
	if (m->state != MOD_FAILED)
		m->state = MOD_UNLOADED;
	return m;
}

struct mt_module *stats_module_live(struct stats *s, const char *name, size_t len)
{
	struct mt_module *m;

	if (len > MODNAME_LEN - 1)
		len = MODNAME_LEN - 1;
	m = stats_find_module(s, name, len);
	return m && m->state != MOD_UNLOADED && m->state != MOD_FAILED ? m : NULL;
}

bool stats_module_unnamed_open(const struct stats *s)
{
	uint32_t i;

	for (i = 0; i < s->nmods; i++)
		if (s->mods[i].open && !s->mods[i].name[0])
			return true;
	return false;
}

void module_event(struct stats *s, const struct mt_event *ev)
{
	switch (ev->kind) {
	case EV_MODSYS_ENTER:
		on_syscall_enter(s, ev);
		break;
	case EV_MOD_LOAD:
		on_load(s, ev);
		break;
	case EV_MOD_PUT:
		on_put(s, ev);
		break;
	case EV_MODSYS_EXIT:
		on_syscall_exit(s, ev);
		break;
	case EV_MOD_FREE:
		on_free(s, ev);
		break;
	default:
		break;
	}
}
