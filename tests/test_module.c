// SPDX-License-Identifier: GPL-2.0-only
/* test_module.c - module attribution: syscall and load..put brackets, states, frees, overflow */
#include <stdint.h>
#include <string.h>

#include "testutil.h"
#include "module.h"
#include "output/rows.h"
#include "stats.h"

#define INITMOD_START	0xffffffff81100000ull	/* do_init_module */
#define INITMOD_END	0xffffffff81100200ull
#define IP_INIT		(INITMOD_START + 0x1b0)
#define IP_OTHER	0xffffffff81234560ull	/* e.g. crypto_destroy_tfm */

#define LOADER	50
#define OTHER	60
#define KWORKER	70
#define RMMOD	80

static struct stats S;

static void init_with(uint64_t initmod_start, uint64_t initmod_end, uint32_t max_modules)
{
	struct stats_config cfg = {
		.max_tasks = 64,
		.max_modules = max_modules,
		.max_pfn = 4096,
		.initmod_start = initmod_start,
		.initmod_end = initmod_end,
	};

	ck_assert_int_eq(stats_init(&S, &cfg), 0);
}

static void setup(void)
{
	init_with(INITMOD_START, INITMOD_END, 4);
}

static void teardown(void)
{
	stats_free(&S);
}

static void page_ev(enum mt_kind kind, uint64_t ts, int32_t tid, uint8_t flags,
		    uint64_t pfn, uint32_t order)
{
	test_page_event(&S, kind, ts, tid, flags, pfn, order);
}

static void alloc(uint64_t ts, int32_t tid, uint64_t pfn, uint32_t order)
{
	page_ev(EV_PAGE_ALLOC, ts, tid, 0, pfn, order);
}

static void pfree(uint64_t ts, int32_t tid, uint64_t pfn, uint32_t order)
{
	page_ev(EV_PAGE_FREE, ts, tid, 0, pfn, order);
}

static void sys_enter(uint64_t ts, int32_t tid)
{
	struct mt_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.kind = EV_MODSYS_ENTER;
	ev.ts = ts;
	ev.tid = tid;
	ev.u.modsys.finit = true;
	stats_apply(&S, &ev);
}

static void sys_exit(uint64_t ts, int32_t tid, int64_t ret)
{
	struct mt_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.kind = EV_MODSYS_EXIT;
	ev.ts = ts;
	ev.tid = tid;
	ev.u.modsys.ret = ret;
	ev.u.modsys.finit = true;
	stats_apply(&S, &ev);
}

static void mod_ev(enum mt_kind kind, uint64_t ts, int32_t tid, const char *name, uint64_t ip)
{
	struct mt_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.kind = kind;
	ev.ts = ts;
	ev.tid = tid;
	ev.u.module.name.s = name;
	ev.u.module.name.len = strlen(name);
	ev.u.module.ip = ip;
	ev.u.module.refcnt = 1;
	stats_apply(&S, &ev);
}

static void load(uint64_t ts, int32_t tid, const char *name)
{
	mod_ev(EV_MOD_LOAD, ts, tid, name, 0);
}

static void put(uint64_t ts, int32_t tid, const char *name, uint64_t ip)
{
	mod_ev(EV_MOD_PUT, ts, tid, name, ip);
}

static void mfree(uint64_t ts, int32_t tid, const char *name)
{
	mod_ev(EV_MOD_FREE, ts, tid, name, 0);
}

static void exit_ev(uint64_t ts, int32_t pid)
{
	struct mt_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.kind = EV_EXIT;
	ev.ts = ts;
	ev.tid = pid;
	ev.u.exit.pid = pid;
	stats_apply(&S, &ev);
}

static struct mt_task *task(int32_t tid)
{
	struct mt_task *t = stats_find_task(&S, tid);

	ck_assert_msg(t != NULL, "task %d not found", tid);
	return t;
}

static struct mt_module *mod(const char *name)
{
	struct mt_module *m = table_find_module(&S.tb, name, strlen(name));

	ck_assert_msg(m != NULL, "module %s not found", name);
	return m;
}

/* ---- syscall bracket ---- */

START_TEST(test_syscall_bracket)
{
	struct mt_task *l;
	struct mt_module *m;

	alloc(10, LOADER, 1, 0);		/* before: loader's only */
	sys_enter(20, LOADER);
	ck_assert_uint_eq(S.tb.nmods, 1);
	m = &S.tb.mods[0];
	ck_assert_int_eq(m->state, MOD_LOADING);
	ck_assert_int_eq(m->bracket, BR_SYSCALL);
	ck_assert_int_eq(m->open, 1);
	ck_assert_str_eq(m->name, "");
	ck_assert_uint_eq(m->start_ts, 20);
	ck_assert_int_eq(m->loader_tid, LOADER);
	l = task(LOADER);
	ck_assert_uint_eq(m->loader_serial, l->serial);
	ck_assert_uint_eq(l->bracket, BR_SYSCALL);
	ck_assert_uint_eq(l->mod, m->serial);

	alloc(21, LOADER, 2, 1);		/* module: 2 (before the name is known) */
	alloc(22, OTHER, 8, 0);			/* another task: not the module's */
	page_ev(EV_PAGE_ALLOC, 23, LOADER, MT_FLAG_HARDIRQ, 9, 0);	/* irq: <irq> */
	load(30, LOADER, "foo");
	ck_assert_str_eq(m->name, "foo");
	ck_assert_uint_eq(m->load_ts, 30);
	ck_assert_ptr_eq(mod("foo"), m);
	alloc(31, LOADER, 12, 2);		/* module: 4 more -> 6 */
	ck_assert_int_eq(m->cur, 6);
	ck_assert_int_eq(m->peak, 6);
	ck_assert_uint_eq(m->peak_ts, 31);
	pfree(32, LOADER, 2, 1);		/* module: 4 */
	put(33, LOADER, "foo", IP_INIT);	/* ignored in a syscall bracket */
	ck_assert_int_eq(m->open, 1);
	ck_assert_int_eq(m->state, MOD_LOADING);
	sys_exit(40, LOADER, 0);
	ck_assert_int_eq(m->state, MOD_LIVE);
	ck_assert_int_eq(m->open, 0);
	ck_assert_uint_eq(m->end_ts, 40);
	ck_assert_int_eq(m->ret, 0);
	ck_assert_uint_eq(l->bracket, BR_NONE);
	ck_assert_uint_eq(l->mod, 0);
	alloc(41, LOADER, 20, 0);		/* after: loader's only */

	ck_assert_uint_eq(m->alloc_pages, 6);
	ck_assert_int_eq(m->cur, 4);
	ck_assert_int_eq(m->peak, 6);
	/* the loader was charged with everything: 1 + 2 + 4 - 2 + 1 */
	ck_assert_int_eq(l->cur, 6);
	ck_assert_int_eq(l->peak, 7);
	ck_assert_uint_eq(l->peak_ts, 31);
	ck_assert_uint_eq(l->alloc_pages, 8);
	ck_assert_int_eq(task(OTHER)->cur, 1);
	ck_assert_int_eq(S.tb.tasks[SLOT_IRQ].cur, 1);

	/* a kworker frees the module's pages: module and loader are credited */
	pfree(50, KWORKER, 12, 2);
	ck_assert_int_eq(m->cur, 0);
	ck_assert_int_eq(l->cur, 2);
	ck_assert_uint_eq(l->freed_pages, 6);
	/* a free does not even give the freeing task a slot */
	ck_assert_ptr_null(stats_find_task(&S, KWORKER));
	ck_assert_uint_eq(S.c.untracked_frees, 0);

	/* the loader's own page, freed by the kworker, does not touch the module */
	pfree(51, KWORKER, 1, 0);
	ck_assert_int_eq(m->cur, 0);
	ck_assert_int_eq(l->cur, 1);

	mfree(60, RMMOD, "foo");
	ck_assert_int_eq(m->state, MOD_UNLOADED);
	ck_assert_uint_eq(m->free_ts, 60);
	ck_assert_uint_eq(S.tb.c.modules_seen, 1);
	ck_assert_uint_eq(S.c.events[EV_MODSYS_ENTER], 1);
	ck_assert_uint_eq(S.c.events[EV_MODSYS_EXIT], 1);
	ck_assert_uint_eq(S.c.events[EV_MOD_LOAD], 1);
	ck_assert_uint_eq(S.c.events[EV_MOD_PUT], 1);
	ck_assert_uint_eq(S.c.events[EV_MOD_FREE], 1);
}
END_TEST

START_TEST(test_syscall_failed)
{
	struct mt_module *m;

	sys_enter(10, LOADER);
	alloc(11, LOADER, 1, 0);
	alloc(12, LOADER, 2, 0);
	sys_exit(20, LOADER, -17);		/* -EEXIST, no module_load */
	ck_assert_uint_eq(S.tb.nmods, 1);
	m = &S.tb.mods[0];
	ck_assert_int_eq(m->state, MOD_FAILED);
	ck_assert_int_eq(m->ret, -17);
	ck_assert_int_eq(m->open, 0);
	ck_assert_str_eq(m->name, "");
	ck_assert_uint_eq(m->alloc_pages, 2);
	ck_assert_int_eq(task(LOADER)->cur, 2);
	alloc(21, LOADER, 3, 0);
	ck_assert_uint_eq(m->alloc_pages, 2);
	ck_assert_int_eq(task(LOADER)->cur, 3);
}
END_TEST

START_TEST(test_free_in_open_bracket)
{
	struct mt_module *m;

	sys_enter(10, LOADER);
	load(11, LOADER, "bar");
	alloc(12, LOADER, 1, 1);
	put(13, LOADER, "bar", IP_INIT);	/* init failed: put, then free_module */
	mfree(14, LOADER, "bar");
	m = mod("bar");
	ck_assert_int_eq(m->state, MOD_FAILED);
	ck_assert_uint_eq(m->free_ts, 14);
	pfree(15, LOADER, 1, 1);
	ck_assert_int_eq(m->cur, 0);
	sys_exit(16, LOADER, -22);
	ck_assert_int_eq(m->state, MOD_FAILED);
	ck_assert_int_eq(m->ret, -22);
	ck_assert_int_eq(m->open, 0);
	ck_assert_uint_eq(m->alloc_pages, 2);
	ck_assert_int_eq(task(LOADER)->cur, 0);
}
END_TEST

START_TEST(test_loader_exits_in_bracket)
{
	struct mt_module *m;

	sys_enter(10, LOADER);
	load(11, LOADER, "baz");
	alloc(12, LOADER, 1, 0);
	exit_ev(13, LOADER);
	m = mod("baz");
	ck_assert_int_eq(m->state, MOD_FAILED);
	ck_assert_int_eq(m->open, 0);
	ck_assert_uint_eq(m->end_ts, 13);
	ck_assert_uint_eq(task(LOADER)->bracket, BR_NONE);
}
END_TEST

/* ---- fallback: module_load .. module_put(do_init_module) ---- */

START_TEST(test_loadput_bracket)
{
	struct mt_module *m;
	struct mt_task *l;

	alloc(5, LOADER, 1, 0);			/* before module_load: not the module's */
	load(10, LOADER, "baz");
	m = mod("baz");
	l = task(LOADER);
	ck_assert_int_eq(m->bracket, BR_LOADPUT);
	ck_assert_int_eq(m->state, MOD_LOADING);
	ck_assert_int_eq(m->open, 1);
	ck_assert_uint_eq(m->start_ts, 10);
	ck_assert_uint_eq(m->load_ts, 10);
	ck_assert_uint_eq(l->bracket, BR_LOADPUT);

	alloc(11, LOADER, 2, 1);		/* module: 2 */
	alloc(12, OTHER, 4, 0);			/* other task: not the module's */
	put(13, OTHER, "baz", IP_INIT);		/* put by another task */
	ck_assert_int_eq(m->open, 1);
	put(14, LOADER, "baz", IP_OTHER);	/* ip outside do_init_module */
	ck_assert_int_eq(m->open, 1);
	put(15, LOADER, "other", IP_INIT);	/* another module */
	ck_assert_int_eq(m->open, 1);
	put(16, LOADER, "baz", INITMOD_END);	/* end is exclusive */
	ck_assert_int_eq(m->open, 1);
	ck_assert_int_eq(m->state, MOD_LOADING);
	alloc(17, LOADER, 5, 0);		/* module: 3 */
	put(18, LOADER, "baz", IP_INIT);	/* the do_init_module put */
	ck_assert_int_eq(m->open, 0);
	ck_assert_int_eq(m->state, MOD_LIVE);
	ck_assert_uint_eq(m->end_ts, 18);
	ck_assert_uint_eq(l->bracket, BR_NONE);
	alloc(19, LOADER, 6, 0);		/* after: loader's only */

	ck_assert_uint_eq(m->alloc_pages, 3);
	ck_assert_int_eq(m->cur, 3);
	ck_assert_int_eq(l->cur, 5);
	ck_assert_int_eq(task(OTHER)->cur, 1);
	pfree(20, OTHER, 2, 1);
	ck_assert_int_eq(m->cur, 1);
	ck_assert_int_eq(l->cur, 3);
	ck_assert_int_eq(task(OTHER)->cur, 1);
	mfree(30, RMMOD, "baz");
	ck_assert_int_eq(m->state, MOD_UNLOADED);
}
END_TEST

START_TEST(test_loadput_initmod_unknown)
{
	struct mt_module *m;

	stats_free(&S);
	init_with(0, 0, 4);
	load(10, LOADER, "qux");
	alloc(11, LOADER, 1, 0);
	put(12, OTHER, "qux", IP_INIT);		/* other task: never ends it */
	m = mod("qux");
	ck_assert_int_eq(m->open, 1);
	put(13, LOADER, "quux", IP_OTHER);	/* another module's name */
	ck_assert_int_eq(m->open, 1);
	alloc(14, LOADER, 2, 0);
	put(15, LOADER, "qux", IP_OTHER);	/* any ip will do */
	ck_assert_int_eq(m->open, 0);
	ck_assert_int_eq(m->state, MOD_LIVE);
	alloc(16, LOADER, 3, 0);
	ck_assert_uint_eq(m->alloc_pages, 2);
	ck_assert_int_eq(task(LOADER)->cur, 3);
}
END_TEST

START_TEST(test_reload_is_new_entry)
{
	struct mt_module *a, *b;

	sys_enter(10, LOADER);
	load(11, LOADER, "foo");
	alloc(12, LOADER, 1, 0);
	sys_exit(13, LOADER, 0);
	a = mod("foo");
	mfree(20, RMMOD, "foo");
	ck_assert_int_eq(a->state, MOD_UNLOADED);

	sys_enter(30, LOADER);
	load(31, LOADER, "foo");
	alloc(32, LOADER, 2, 1);
	sys_exit(33, LOADER, 0);
	b = mod("foo");
	ck_assert_ptr_ne(a, b);
	ck_assert_uint_eq(S.tb.nmods, 2);
	ck_assert_uint_eq(b->serial, 2);
	ck_assert_int_eq(b->state, MOD_LIVE);
	ck_assert_int_eq(a->state, MOD_UNLOADED);
	ck_assert_uint_eq(a->alloc_pages, 1);
	ck_assert_uint_eq(b->alloc_pages, 2);
	/* a late free of the first instance's page credits the first instance */
	pfree(40, KWORKER, 1, 0);
	ck_assert_int_eq(a->cur, 0);
	ck_assert_int_eq(b->cur, 2);
	/* the next unload is the second instance's */
	mfree(50, RMMOD, "foo");
	ck_assert_int_eq(b->state, MOD_UNLOADED);
	ck_assert_uint_eq(b->free_ts, 50);
	ck_assert_uint_eq(a->free_ts, 20);
	ck_assert_uint_eq(S.tb.c.modules_seen, 2);
}
END_TEST

START_TEST(test_two_loaders)
{
	struct mt_module *a, *b;

	/* two concurrent brackets, interleaved: each page goes to its loader's module */
	sys_enter(10, LOADER);
	sys_enter(11, OTHER);
	alloc(12, OTHER, 1, 0);
	alloc(13, LOADER, 2, 1);
	load(14, OTHER, "mod_b");
	load(15, LOADER, "mod_a");
	alloc(16, OTHER, 4, 2);
	sys_exit(17, OTHER, 0);
	alloc(18, LOADER, 8, 0);
	sys_exit(19, LOADER, 0);
	a = mod("mod_a");
	b = mod("mod_b");
	ck_assert_uint_eq(a->alloc_pages, 3);
	ck_assert_uint_eq(b->alloc_pages, 5);
	ck_assert_int_eq(a->loader_tid, LOADER);
	ck_assert_int_eq(b->loader_tid, OTHER);
	ck_assert_int_eq(a->state, MOD_LIVE);
	ck_assert_int_eq(b->state, MOD_LIVE);
}
END_TEST

/*
 * The same module loaded by two at once (Linux 6.4: idempotent_init_module()):
 * the second waits for the first and returns its result, with no module_load
 * of its own. One module, not a second "(unnamed)" live one.
 */
START_TEST(test_waited_load)
{
	sys_enter(10, LOADER);
	sys_enter(11, OTHER);
	alloc(12, LOADER, 2, 1);
	load(13, LOADER, "foo");
	sys_exit(14, LOADER, 0);
	sys_exit(15, OTHER, 0);
	ck_assert_uint_eq(S.tb.nmods, 1);
	ck_assert_uint_eq(S.tb.c.modules_seen, 1);
	ck_assert_int_eq(mod("foo")->state, MOD_LIVE);
	ck_assert_int_eq(mod("foo")->alloc_pages, 2);
	ck_assert_int_eq(task(OTHER)->mod, 0);
	/* a module loaded after: its own slot, its pages its own */
	sys_enter(20, OTHER);
	alloc(21, OTHER, 8, 0);
	load(22, OTHER, "bar");
	sys_exit(23, OTHER, 0);
	ck_assert_uint_eq(S.tb.nmods, 2);
	ck_assert_int_eq(mod("bar")->alloc_pages, 1);
	/* a waiter that took a page keeps its entry: the page is explained by it */
	sys_enter(30, LOADER);
	alloc(31, LOADER, 16, 0);
	sys_exit(32, LOADER, 0);
	ck_assert_uint_eq(S.tb.nmods, 3);
}
END_TEST

START_TEST(test_module_overflow)
{
	struct mt_task *l;

	stats_free(&S);
	init_with(INITMOD_START, INITMOD_END, 2);
	sys_enter(10, LOADER);
	load(11, LOADER, "m1");
	sys_exit(12, LOADER, 0);
	sys_enter(20, LOADER);
	load(21, LOADER, "m2");
	sys_exit(22, LOADER, 0);
	ck_assert_uint_eq(S.tb.c.module_overflow, 0);
	sys_enter(30, LOADER);			/* no slot */
	ck_assert_uint_eq(S.tb.c.module_overflow, 1);
	ck_assert_uint_eq(S.tb.nmods, 2);
	alloc(31, LOADER, 1, 1);
	load(32, LOADER, "m3");
	sys_exit(33, LOADER, 0);
	ck_assert_ptr_null(table_find_module(&S.tb, "m3", 2));
	l = task(LOADER);
	ck_assert_int_eq(l->cur, 2);
	ck_assert_uint_eq(mod("m1")->alloc_pages, 0);
	ck_assert_uint_eq(mod("m2")->alloc_pages, 0);
	ck_assert_uint_eq(l->bracket, BR_NONE);
	/* the fallback bracket overflows too */
	load(40, OTHER, "m4");
	ck_assert_uint_eq(S.tb.c.module_overflow, 2);
	ck_assert_uint_eq(S.tb.c.modules_seen, 2);
	ck_assert_uint_eq(task(OTHER)->bracket, BR_NONE);
	pfree(41, OTHER, 1, 1);
	ck_assert_int_eq(l->cur, 0);
}
END_TEST

/* ---- modules the kernel lists at report time: stats_module_present() ---- */

static struct mt_module *present(const char *name)
{
	return module_present(&S.tb, name, strlen(name));
}

START_TEST(test_present_new)
{
	struct mt_module *m;

	m = present("crc32_pclmul");
	ck_assert_ptr_nonnull(m);
	ck_assert_ptr_eq(m, &S.tb.mods[0]);
	ck_assert_uint_eq(S.tb.nmods, 1);
	ck_assert_str_eq(m->name, "crc32_pclmul");
	ck_assert_uint_eq(m->serial, 1);
	ck_assert_int_eq(m->state, MOD_BEFORE);
	ck_assert_int_eq(m->bracket, BR_NONE);
	ck_assert_int_eq(m->open, 0);
	ck_assert_uint_eq(m->loader_serial, 0);
	ck_assert_int_eq(m->loader_tid, 0);
	ck_assert_int_eq(m->peak, 0);
	ck_assert_int_eq(m->cur, 0);
	ck_assert_uint_eq(m->alloc_pages, 0);
	ck_assert_uint_eq(m->free_ts, 0);
	ck_assert_int_eq(m->static_known, 0);
	ck_assert_ptr_eq(table_module_by_serial(&S.tb, 1), m);
	ck_assert_ptr_eq(mod("crc32_pclmul"), m);
	/* listed again (the next report): the same entry */
	ck_assert_ptr_eq(present("crc32_pclmul"), m);
	ck_assert_uint_eq(S.tb.nmods, 1);
	/* a second one */
	m = present("virtio_pci");
	ck_assert_ptr_eq(m, &S.tb.mods[1]);
	ck_assert_uint_eq(m->serial, 2);
	ck_assert_int_eq(m->state, MOD_BEFORE);
	ck_assert_uint_eq(S.tb.nmods, 2);
	/* only @len bytes of the name count */
	m = module_present(&S.tb, "virtio_pci_legacy_dev", 6);
	ck_assert_ptr_eq(m, &S.tb.mods[2]);
	ck_assert_str_eq(m->name, "virtio");
	ck_assert_ptr_eq(module_present(&S.tb, "virtio_pci_legacy_dev", 10), &S.tb.mods[1]);
	/* an empty name: nothing */
	ck_assert_ptr_null(module_present(&S.tb, "", 0));
	ck_assert_ptr_null(module_present(&S.tb, "virtio", 0));
	ck_assert_uint_eq(S.tb.nmods, 3);
	ck_assert_uint_eq(S.tb.c.module_overflow, 0);
	/* nothing was an event */
	ck_assert_uint_eq(S.c.events[EV_MOD_LOAD], 0);
	ck_assert_uint_eq(S.first_ts, 0);
	ck_assert_uint_eq(S.last_ts, 0);
}
END_TEST

START_TEST(test_present_traced)
{
	struct mt_module *a, *b, *m;

	/* traced and live: returned as it is */
	sys_enter(10, LOADER);
	load(11, LOADER, "foo");
	alloc(12, LOADER, 1, 1);
	sys_exit(13, LOADER, 0);
	a = mod("foo");
	ck_assert_ptr_eq(present("foo"), a);
	ck_assert_uint_eq(S.tb.nmods, 1);
	ck_assert_int_eq(a->state, MOD_LIVE);
	ck_assert_int_eq(a->bracket, BR_SYSCALL);
	ck_assert_int_eq(a->loader_tid, LOADER);
	ck_assert_int_eq(a->peak, 2);

	/* a named load still in its bracket ("Loading" in /proc/modules) */
	sys_enter(20, OTHER);
	load(21, OTHER, "bar");
	b = mod("bar");
	ck_assert_ptr_eq(present("bar"), b);
	ck_assert_int_eq(b->state, MOD_LOADING);
	ck_assert_int_eq(b->open, 1);
	ck_assert_uint_eq(S.tb.nmods, 2);
	sys_exit(22, OTHER, 0);
	ck_assert_int_eq(b->state, MOD_LIVE);

	/* the fallback bracket, open */
	load(30, KWORKER, "baz");
	ck_assert_ptr_eq(present("baz"), mod("baz"));
	ck_assert_int_eq(mod("baz")->bracket, BR_LOADPUT);
	ck_assert_uint_eq(S.tb.nmods, 3);

	/* unloaded since: listed again means loaded again without our seeing it */
	mfree(40, RMMOD, "foo");
	ck_assert_int_eq(a->state, MOD_UNLOADED);
	m = present("foo");
	ck_assert_ptr_nonnull(m);
	ck_assert_ptr_ne(m, a);
	ck_assert_ptr_eq(m, &S.tb.mods[3]);
	ck_assert_int_eq(m->state, MOD_BEFORE);
	ck_assert_int_eq(m->bracket, BR_NONE);
	ck_assert_int_eq(m->loader_tid, 0);
	ck_assert_int_eq(m->peak, 0);
	ck_assert_int_eq(a->state, MOD_UNLOADED);
	ck_assert_int_eq(a->peak, 2);
	ck_assert_uint_eq(S.tb.nmods, 4);
	ck_assert_ptr_eq(mod("foo"), m);
}
END_TEST

START_TEST(test_present_failed)
{
	struct mt_module *f, *m;

	/* init failed: put, then free_module inside the bracket */
	sys_enter(10, LOADER);
	load(11, LOADER, "bad");
	mfree(12, LOADER, "bad");
	sys_exit(13, LOADER, -22);
	f = mod("bad");
	ck_assert_int_eq(f->state, MOD_FAILED);
	m = present("bad");
	ck_assert_ptr_nonnull(m);
	ck_assert_ptr_ne(m, f);
	ck_assert_int_eq(m->state, MOD_BEFORE);
	ck_assert_int_eq(f->state, MOD_FAILED);
	ck_assert_uint_eq(S.tb.nmods, 2);
	/* the failed load's slot is still its own */
	ck_assert_int_eq(f->ret, -22);
	ck_assert_str_eq(f->name, "bad");
}
END_TEST

START_TEST(test_present_long_name)
{
	/* 60 characters; the table keeps MODNAME_LEN - 1 = 55 */
	static const char name60[] = "abcdefghij" "abcdefghij" "abcdefghij" "abcdefghij"
				     "abcdefghij" "abcdefghij";
	struct mt_module *m;

	ck_assert_uint_eq(sizeof(name60) - 1, 60);
	m = present(name60);
	ck_assert_ptr_nonnull(m);
	ck_assert_uint_eq(strlen(m->name), 55);
	ck_assert(!memcmp(m->name, name60, 55));
	ck_assert_int_eq(m->state, MOD_BEFORE);
	/* the same long name, or its first 55 characters: the same entry */
	ck_assert_ptr_eq(present(name60), m);
	ck_assert_ptr_eq(module_present(&S.tb, name60, 55), m);
	ck_assert_ptr_eq(module_present(&S.tb, name60, 56), m);
	ck_assert_uint_eq(S.tb.nmods, 1);
	/* 54 characters is another name */
	ck_assert_ptr_ne(module_present(&S.tb, name60, 54), m);
	ck_assert_uint_eq(S.tb.nmods, 2);
	ck_assert_uint_eq(strlen(S.tb.mods[1].name), 54);
}
END_TEST

START_TEST(test_present_overflow)
{
	struct mt_module *m;

	/* setup: 4 slots; two traced, two listed */
	sys_enter(10, LOADER);
	load(11, LOADER, "m1");
	sys_exit(12, LOADER, 0);
	load(20, OTHER, "m2");
	put(21, OTHER, "m2", IP_INIT);
	ck_assert_ptr_nonnull(present("b1"));
	ck_assert_ptr_nonnull(present("b2"));
	ck_assert_uint_eq(S.tb.nmods, 4);
	ck_assert_uint_eq(S.tb.c.module_overflow, 0);
	ck_assert_ptr_null(present("b3"));
	ck_assert_uint_eq(S.tb.c.module_overflow, 1);
	ck_assert_uint_eq(S.tb.nmods, 4);
	ck_assert_ptr_null(present("b4"));
	ck_assert_uint_eq(S.tb.c.module_overflow, 2);
	/* a full table still finds what it has */
	m = present("b1");
	ck_assert_ptr_eq(m, &S.tb.mods[2]);
	ck_assert_ptr_eq(present("m1"), &S.tb.mods[0]);
	ck_assert_ptr_eq(present("m2"), &S.tb.mods[1]);
	ck_assert_uint_eq(S.tb.c.module_overflow, 2);
	/* an empty name is not an overflow */
	ck_assert_ptr_null(module_present(&S.tb, "x", 0));
	ck_assert_uint_eq(S.tb.c.module_overflow, 2);
	/* an unloaded module listed again needs a slot: none */
	mfree(30, RMMOD, "m1");
	ck_assert_ptr_null(present("m1"));
	ck_assert_uint_eq(S.tb.c.module_overflow, 3);
	ck_assert_int_eq(S.tb.mods[0].state, MOD_UNLOADED);
}
END_TEST

START_TEST(test_unnamed_open)
{
	ck_assert(!module_unnamed_open(&S.tb));
	/* listed modules are never open */
	ck_assert_ptr_nonnull(present("before"));
	ck_assert(!module_unnamed_open(&S.tb));
	/* sys_enter_finit_module .. module_load */
	sys_enter(10, LOADER);
	ck_assert(module_unnamed_open(&S.tb));
	alloc(11, LOADER, 1, 0);
	ck_assert(module_unnamed_open(&S.tb));
	load(12, LOADER, "foo");
	ck_assert(!module_unnamed_open(&S.tb));
	sys_exit(13, LOADER, 0);
	ck_assert(!module_unnamed_open(&S.tb));
	/* a load that fails before module_load: open until the syscall returns */
	sys_enter(20, LOADER);
	ck_assert(module_unnamed_open(&S.tb));
	sys_exit(21, LOADER, -17);
	ck_assert(!module_unnamed_open(&S.tb));
	ck_assert_int_eq(S.tb.mods[2].state, MOD_FAILED);
	ck_assert_str_eq(S.tb.mods[2].name, "");
	ck_assert_uint_eq(S.tb.nmods, 3);
}
END_TEST

START_TEST(test_unnamed_open_two)
{
	/* two loaders: one named, one not yet */
	sys_enter(10, LOADER);
	sys_enter(11, OTHER);
	load(12, OTHER, "b");
	ck_assert(module_unnamed_open(&S.tb));
	load(13, LOADER, "a");
	ck_assert(!module_unnamed_open(&S.tb));
	sys_exit(14, LOADER, 0);
	sys_exit(15, OTHER, 0);
	ck_assert(!module_unnamed_open(&S.tb));
	/* the fallback bracket is named from its start */
	load(20, KWORKER, "c");
	ck_assert_int_eq(mod("c")->open, 1);
	ck_assert(!module_unnamed_open(&S.tb));
	/* the loader dies in an unnamed bracket: closed */
	sys_enter(30, RMMOD);
	ck_assert(module_unnamed_open(&S.tb));
	exit_ev(31, RMMOD);
	ck_assert(!module_unnamed_open(&S.tb));
	ck_assert_int_eq(S.tb.mods[3].state, MOD_FAILED);
}
END_TEST

START_TEST(test_unnamed_open_overflow)
{
	stats_free(&S);
	init_with(INITMOD_START, INITMOD_END, 1);
	ck_assert_ptr_nonnull(present("only"));
	/* no slot for the load: nothing is open */
	sys_enter(10, LOADER);
	ck_assert_uint_eq(S.tb.c.module_overflow, 1);
	ck_assert(!module_unnamed_open(&S.tb));
	ck_assert_uint_eq(task(LOADER)->bracket, BR_SYSCALL);
}
END_TEST

START_TEST(test_before_then_free)
{
	struct mt_module *old, *b, *c;

	/* a traced foo, unloaded; then foo listed again; then unloaded again */
	sys_enter(10, LOADER);
	load(11, LOADER, "foo");
	sys_exit(12, LOADER, 0);
	old = mod("foo");
	mfree(20, RMMOD, "foo");
	ck_assert_uint_eq(old->free_ts, 20);
	b = present("foo");
	c = present("crc32_pclmul");
	ck_assert_int_eq(b->state, MOD_BEFORE);
	mfree(30, RMMOD, "crc32_pclmul");
	ck_assert_int_eq(c->state, MOD_UNLOADED);
	ck_assert_uint_eq(c->free_ts, 30);
	ck_assert_int_eq(b->state, MOD_BEFORE);
	mfree(40, RMMOD, "foo");
	ck_assert_int_eq(b->state, MOD_UNLOADED);
	ck_assert_uint_eq(b->free_ts, 40);
	ck_assert_uint_eq(old->free_ts, 20);		/* the first one keeps its time */
	ck_assert_int_eq(old->state, MOD_UNLOADED);
	/* a second free of the same name finds nothing left to free */
	mfree(50, RMMOD, "foo");
	ck_assert_uint_eq(b->free_ts, 40);
	ck_assert_uint_eq(old->free_ts, 20);
	/* listed again later: a new entry, not the unloaded one */
	ck_assert_ptr_eq(present("crc32_pclmul"), &S.tb.mods[3]);
	ck_assert_int_eq(S.tb.mods[3].state, MOD_BEFORE);
	ck_assert_uint_eq(S.tb.nmods, 4);
	ck_assert_uint_eq(S.c.events[EV_MOD_FREE], 4);
}
END_TEST

START_TEST(test_before_pages)
{
	struct mt_module *a, *b;
	struct mt_task *l, *o;

	alloc(5, LOADER, 1, 0);			/* the loader's own */
	sys_enter(10, LOADER);
	load(11, LOADER, "traced");
	a = mod("traced");
	alloc(12, LOADER, 2, 1);		/* the module's: 2 pages */
	/* a report lists a module loaded before tracing, mid-bracket */
	b = present("crc32_pclmul");
	ck_assert_ptr_ne(a, b);
	alloc(13, LOADER, 4, 2);		/* still the traced module's: 4 pages */
	alloc(14, OTHER, 8, 0);			/* another task's */
	sys_exit(15, LOADER, 0);
	alloc(16, LOADER, 9, 0);		/* the loader's own */
	l = task(LOADER);
	o = task(OTHER);
	ck_assert_int_eq(a->cur, 6);
	ck_assert_int_eq(a->peak, 6);
	ck_assert_uint_eq(a->alloc_pages, 6);
	ck_assert_int_eq(l->cur, 8);		/* 1 + 2 + 4 + 1 */
	ck_assert_int_eq(l->peak, 8);
	ck_assert_int_eq(o->cur, 1);
	ck_assert_int_eq(b->cur, 0);
	ck_assert_int_eq(b->peak, 0);
	ck_assert_uint_eq(b->alloc_pages, 0);
	/* frees credit the traced module and its loader, never the listed one */
	pfree(20, KWORKER, 4, 2);
	ck_assert_int_eq(a->cur, 2);
	ck_assert_int_eq(l->cur, 4);
	ck_assert_int_eq(b->cur, 0);
	/* the listed module unloaded: pages untouched */
	mfree(30, RMMOD, "crc32_pclmul");
	ck_assert_int_eq(b->state, MOD_UNLOADED);
	ck_assert_int_eq(a->state, MOD_LIVE);
	ck_assert_int_eq(a->cur, 2);
	ck_assert_int_eq(l->cur, 4);
	ck_assert_int_eq(o->cur, 1);
	pfree(31, OTHER, 8, 0);
	ck_assert_int_eq(o->cur, 0);
	ck_assert_int_eq(o->peak, 1);
	ck_assert_int_eq(b->cur, 0);
	ck_assert_uint_eq(S.c.untracked_frees, 0);
	/* no task gained a module bracket from the listing */
	ck_assert_uint_eq(o->bracket, BR_NONE);
	ck_assert_uint_eq(o->mod, 0);
	ck_assert_uint_eq(l->mod, 0);
}
END_TEST

/*
 * Without syscall events a failed init closes the module_load..module_put
 * bracket (do_init_module puts, then frees the module): a module_free by the
 * loader right after its bracket means the init failed. A free by another
 * task (rmmod) is an unload.
 */
START_TEST(test_loadput_failed_init)
{
	struct mt_module *m;

	load(10, LOADER, "bad");
	alloc(11, LOADER, 2, 1);
	put(12, LOADER, "bad", IP_INIT);
	m = mod("bad");
	ck_assert_int_eq(m->state, MOD_LIVE);
	mfree(13, LOADER, "bad");
	ck_assert_int_eq(m->state, MOD_FAILED);
	ck_assert_str_eq(module_state_name(m), "failed");
	/* a good load, removed later by rmmod: unloaded */
	load(20, LOADER, "good");
	put(21, LOADER, "good", IP_INIT);
	mfree(30, RMMOD, "good");
	ck_assert_str_eq(module_state_name(mod("good")), "unloaded");
}
END_TEST

/*
 * A loader without a slot resolves to <overflow>: no bracket may open there
 * (its end would never be seen, and every later allocation of every task
 * without a slot would be charged to the module). Counted instead.
 */
START_TEST(test_no_bracket_on_pseudo_task)
{
	struct stats_config cfg = { .max_tasks = SLOT_FIRST + 1, .max_modules = 4,
				    .max_pfn = 4096, .initmod_start = INITMOD_START,
				    .initmod_end = INITMOD_END };
	int32_t tid;

	stats_free(&S);
	ck_assert_int_eq(stats_init(&S, &cfg), 0);
	alloc(1, OTHER, 1, 0);			/* the one slot */
	sys_enter(10, LOADER);			/* no slot: <overflow> */
	load(11, LOADER, "m");
	sys_exit(12, LOADER, 0);
	ck_assert_uint_eq(S.tb.nmods, 0);
	ck_assert_uint_eq(S.tb.c.module_pseudo, 2);
	ck_assert_uint_eq(S.tb.tasks[SLOT_OVERFLOW].mod, 0);
	ck_assert_int_eq(S.tb.tasks[SLOT_OVERFLOW].bracket, BR_NONE);
	for (tid = 200; tid < 210; tid++)	/* later tasks without a slot */
		alloc(20 + (uint64_t)tid, tid, 100 + (uint64_t)tid, 0);
	ck_assert_int_eq(S.tb.tasks[SLOT_OVERFLOW].cur, 10);
	ck_assert(!module_unnamed_open(&S.tb));
}
END_TEST

Suite *suite_module(void)
{
	Suite *s = suite_create("module");
	TCase *tc = tcase_create("syscall");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_syscall_bracket);
	tcase_add_test(tc, test_syscall_failed);
	tcase_add_test(tc, test_free_in_open_bracket);
	tcase_add_test(tc, test_loader_exits_in_bracket);
	tcase_add_test(tc, test_two_loaders);
	tcase_add_test(tc, test_waited_load);
	suite_add_tcase(s, tc);

	tc = tcase_create("loadput");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_loadput_bracket);
	tcase_add_test(tc, test_loadput_initmod_unknown);
	tcase_add_test(tc, test_loadput_failed_init);
	tcase_add_test(tc, test_no_bracket_on_pseudo_task);
	suite_add_tcase(s, tc);

	tc = tcase_create("table");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_reload_is_new_entry);
	tcase_add_test(tc, test_module_overflow);
	suite_add_tcase(s, tc);

	tc = tcase_create("present");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_present_new);
	tcase_add_test(tc, test_present_traced);
	tcase_add_test(tc, test_present_failed);
	tcase_add_test(tc, test_present_long_name);
	tcase_add_test(tc, test_present_overflow);
	tcase_add_test(tc, test_unnamed_open);
	tcase_add_test(tc, test_unnamed_open_two);
	tcase_add_test(tc, test_unnamed_open_overflow);
	tcase_add_test(tc, test_before_then_free);
	tcase_add_test(tc, test_before_pages);
	suite_add_tcase(s, tc);
	return s;
}
