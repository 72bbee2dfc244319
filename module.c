// SPDX-License-Identifier: GPL-2.0-only
/* module.c - module entries: load brackets from module and syscall events, boot and /proc/modules entries */
#include "module.h"

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
 * (and its loader) whoever frees them (stats.c).
 */

/* name cut to what an entry holds */
static size_t name_len(size_t len)
{
	return len < MODNAME_LEN - 1 ? len : MODNAME_LEN - 1;
}

/* A new entry named @name (len may be 0: named later) in @state. */
static struct mt_module *module_new(struct table *tb, const char *name, size_t len,
				    uint8_t state, uint8_t bracket, uint64_t ts)
{
	struct mt_module *m = table_module_new(tb);

	if (!m)
		return NULL;
	len = name_len(len);
	memcpy(m->name, name, len);
	m->name[len] = '\0';
	m->state = state;
	m->bracket = bracket;
	m->start_ts = ts;
	if (state != MOD_BEFORE)
		tb->c.modules_seen++;
	return m;
}

/* A traced load: its bracket opens on @loader. */
static struct mt_module *module_loading(struct table *tb, struct mt_task *loader,
					uint8_t bracket, uint64_t ts)
{
	struct mt_module *m = module_new(tb, "", 0, MOD_LOADING, bracket, ts);

	if (!m)
		return NULL;
	m->loader_serial = loader->serial;
	m->loader_tid = loader->tid;
	m->open = 1;
	return m;
}

static void set_name(struct mt_module *m, const struct mt_str *name)
{
	size_t len = name_len(name->len);

	memcpy(m->name, name->s, len);
	m->name[len] = '\0';
}

static bool name_is(const struct mt_module *m, const struct mt_str *name)
{
	size_t len = name_len(name->len);

	return strlen(m->name) == len && !memcmp(m->name, name->s, len);
}

static void bracket_close(struct table *tb, struct mt_task *t, uint64_t ts)
{
	struct mt_module *m = table_module_by_serial(tb, t->mod);

	if (m) {
		m->open = 0;
		m->end_ts = ts;
	}
	t->mod = 0;
	t->bracket = BR_NONE;
}

void module_task_exit(struct table *tb, struct mt_task *t, uint64_t ts)
{
	struct mt_module *m = table_module_by_serial(tb, t->mod);

	if (m && m->state == MOD_LOADING)
		m->state = MOD_FAILED;
	if (t->bracket != BR_NONE)
		bracket_close(tb, t, ts);
}

static void on_syscall_enter(struct table *tb, const struct mt_event *ev, struct mt_task *t)
{
	struct mt_module *m;

	if (t->bracket != BR_NONE)
		bracket_close(tb, t, ev->ts);
	m = module_loading(tb, t, BR_SYSCALL, ev->ts);
	t->bracket = BR_SYSCALL;	/* even without a slot: no fallback bracket */
	t->mod = m ? m->serial : 0;
}

static void on_load(struct table *tb, const struct mt_event *ev, struct mt_task *t)
{
	struct mt_module *m;

	if (t->bracket == BR_SYSCALL) {
		m = table_module_by_serial(tb, t->mod);
		if (m) {
			set_name(m, &ev->u.module.name);
			m->load_ts = ev->ts;
		}
		return;
	}
	if (t->bracket == BR_LOADPUT)
		bracket_close(tb, t, ev->ts);
	m = module_loading(tb, t, BR_LOADPUT, ev->ts);
	if (!m)
		return;
	set_name(m, &ev->u.module.name);
	m->load_ts = ev->ts;
	t->bracket = BR_LOADPUT;
	t->mod = m->serial;
}

static void on_put(struct table *tb, const struct mt_event *ev, struct mt_task *t,
		   uint64_t initmod_start, uint64_t initmod_end)
{
	struct mt_module *m;
	uint64_t ip = ev->u.module.ip;

	if (!t || t->bracket != BR_LOADPUT)
		return;
	m = table_module_by_serial(tb, t->mod);
	if (!m || !name_is(m, &ev->u.module.name))
		return;
	/* only the put from do_init_module ends the bracket, when we can tell */
	if (initmod_start && (ip < initmod_start || ip >= initmod_end))
		return;
	m->state = MOD_LIVE;
	bracket_close(tb, t, ev->ts);
}

static void on_syscall_exit(struct table *tb, const struct mt_event *ev, struct mt_task *t)
{
	struct mt_module *m;

	if (!t || t->bracket != BR_SYSCALL)
		return;
	m = table_module_by_serial(tb, t->mod);
	if (m) {
		m->ret = ev->u.modsys.ret;
		if (m->state == MOD_LOADING)
			m->state = ev->u.modsys.ret < 0 ? MOD_FAILED : MOD_LIVE;
	}
	bracket_close(tb, t, ev->ts);
	/*
	 * A call that succeeded without a module_load of its own and took no page:
	 * another's load of the same file, waited for (idempotent_init_module(),
	 * Linux 6.4: the waiter returns the winner's result). No module: its slot
	 * is given back, when it is the last (nothing else came since).
	 */
	if (m && !m->name[0] && !m->load_ts && ev->u.modsys.ret >= 0 && !m->peak &&
	    !m->all_peak && m->serial == tb->nmods) {
		tb->c.modules_seen--;
		table_module_drop_last(tb);
	}
}

static void on_free(struct table *tb, const struct mt_event *ev)
{
	uint32_t i;

	for (i = tb->nmods; i-- > 0; ) {
		struct mt_module *m = &tb->mods[i];

		if (m->free_ts || !name_is(m, &ev->u.module.name))
			continue;
		m->free_ts = ev->ts;
		/*
		 * Freed while its load bracket is open: init failed. Without
		 * syscall events a failed init closes the module_load..module_put
		 * bracket first (do_init_module puts, then frees): a free by the
		 * loader itself right after its bracket is a failed init too.
		 */
		if (m->state == MOD_LOADING || (m->state == MOD_LIVE && m->bracket == BR_LOADPUT &&
						!m->open && ev->tid == m->loader_tid))
			m->state = MOD_FAILED;
		else if (m->state != MOD_FAILED)
			m->state = MOD_UNLOADED;
		return;
	}
}

struct mt_module *module_present(struct table *tb, const char *name, size_t len)
{
	struct mt_module *m;

	if (!len)
		return NULL;
	m = module_live(tb, name, len);
	if (m)
		return m;
	return module_new(tb, name, len, MOD_BEFORE, BR_NONE, 0);
}

struct mt_module *module_booted(struct table *tb, const char *name, size_t len, int32_t tid,
				uint64_t ts)
{
	struct mt_module *m;

	if (!len)
		return NULL;
	m = module_new(tb, name, len, MOD_LIVE, BR_BOOT, ts);
	if (!m)
		return NULL;
	m->loader_tid = tid;
	m->load_ts = ts;
	return m;
}

struct mt_module *module_gone(struct table *tb, const char *name, size_t len, uint64_t ts)
{
	struct mt_module *m = table_find_module(tb, name, name_len(len));

	if (!m || m->free_ts)
		return NULL;
	m->free_ts = ts;
	if (m->state != MOD_FAILED)
		m->state = MOD_UNLOADED;
	return m;
}

struct mt_module *module_live(const struct table *tb, const char *name, size_t len)
{
	struct mt_module *m = table_find_module(tb, name, name_len(len));

	return m && m->state != MOD_UNLOADED && m->state != MOD_FAILED ? m : NULL;
}

bool module_unnamed_open(const struct table *tb)
{
	uint32_t i;

	for (i = 0; i < tb->nmods; i++)
		if (tb->mods[i].open && !tb->mods[i].name[0])
			return true;
	return false;
}

void module_event(struct table *tb, const struct mt_event *ev, struct mt_task *t,
		  uint64_t initmod_start, uint64_t initmod_end)
{
	switch (ev->kind) {
	case EV_MODSYS_ENTER:
	case EV_MOD_LOAD:
		if (!t)
			break;
		/*
		 * Never a bracket on a pseudo task (<overflow>: the loader had no
		 * slot): its end would not be seen, and every later allocation of
		 * every task without a slot would be charged to the module.
		 */
		if (t->flags & TF_PSEUDO) {
			tb->c.module_pseudo++;
			break;
		}
		if (ev->kind == EV_MODSYS_ENTER)
			on_syscall_enter(tb, ev, t);
		else
			on_load(tb, ev, t);
		break;
	case EV_MOD_PUT:
		on_put(tb, ev, t, initmod_start, initmod_end);
		break;
	case EV_MODSYS_EXIT:
		on_syscall_exit(tb, ev, t);
		break;
	case EV_MOD_FREE:
		on_free(tb, ev);
		break;
	default:
		break;
	}
}
