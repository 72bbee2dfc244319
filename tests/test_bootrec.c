// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_bootrec.c - module accounting on a real recorded boot
 *
 * tests/fixtures/debian-6.1-boot is what memtrace recorded (rd.memtrace.record)
 * during a dracut initramfs boot of Debian's 6.1 kernel under QEMU (made by
 * E2E_RECORD_FIXTURE=... tests/e2e.sh), plus /proc/modules and the module
 * sizes of the guest. memtrace's accounting of that trace is checked against
 * the guest's own lists and against a small independent model written here:
 * pages allocated by a loader between its sys_enter_finit_module and
 * sys_exit_finit_module belong to the module until freed, whoever frees them.
 */
#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernel/format.h"
#include "kernel/reader.h"
#include "input/record.h"
#include "output/report.h"
#include "module.h"
#include "stats.h"
#include "testutil.h"

#define FX	"debian-6.1-boot"
#define MAXPFN	(1u << 20)
#define MAXMOD	64

static struct mt_decoder dec;
static struct stats ST;

/* the independent model */
struct model_mod {
	char name[MODNAME_LEN];
	int32_t loader;
	int64_t cur, peak;
	uint64_t alloc;
	bool live;		/* syscall returned 0 */
};
static struct {
	struct model_mod mods[MAXMOD];
	int nmods;
	int open[1 << 16];	/* tid -> module index + 1 while in the syscall */
	uint8_t *owner;		/* pfn -> module index + 1 */
	uint64_t events;
} M;

static void model_free_page(uint64_t p)
{
	if (p < MAXPFN && M.owner[p]) {
		M.mods[M.owner[p] - 1].cur--;
		M.owner[p] = 0;
	}
}

static void model(const struct mt_event *ev)
{
	int32_t tid = ev->tid;
	int k = tid >= 0 && tid < (1 << 16) ? M.open[tid] : 0;
	uint64_t n, i;

	M.events++;
	switch (ev->kind) {
	case EV_MODSYS_ENTER:
		ck_assert_int_lt(M.nmods, MAXMOD);
		ck_assert_int_lt(tid, 1 << 16);
		M.mods[M.nmods].loader = tid;
		M.open[tid] = ++M.nmods;
		break;
	case EV_MOD_LOAD:
		if (k)
			snprintf(M.mods[k - 1].name, MODNAME_LEN, "%.*s",
				 (int)ev->u.module.name.len, ev->u.module.name.s);
		break;
	case EV_MODSYS_EXIT:
		if (k)
			M.mods[k - 1].live = ev->u.modsys.ret == 0;
		if (tid >= 0 && tid < (1 << 16))
			M.open[tid] = 0;
		break;
	case EV_PAGE_ALLOC:
		if (ev->u.page.pfn == UINT64_MAX)
			break;
		n = 1ull << ev->u.page.order;
		/* a page allocated again without a free seen: its old owner lost it */
		for (i = 0; i < n; i++)
			model_free_page(ev->u.page.pfn + i);
		/* irq context (hardirq 0x08, softirq 0x10, nmi 0x40) is not the loader's doing */
		if (!k || (ev->flags & (0x08 | 0x10 | 0x40)))
			break;
		for (i = 0; i < n; i++)
			if (ev->u.page.pfn + i < MAXPFN)
				M.owner[ev->u.page.pfn + i] = (uint8_t)k;
		M.mods[k - 1].cur += (int64_t)n;
		M.mods[k - 1].alloc += n;
		if (M.mods[k - 1].cur > M.mods[k - 1].peak)
			M.mods[k - 1].peak = M.mods[k - 1].cur;
		break;
	case EV_PAGE_FREE:
		n = 1ull << ev->u.page.order;
		for (i = 0; i < n; i++)
			model_free_page(ev->u.page.pfn + i);
		break;
	default:
		break;
	}
}

static void sink(void *ctx, const struct mt_event *ev)
{
	(void)ctx;
	stats_apply(&ST, ev);
	model(ev);
}

static bool fixture_has(const char *rel)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", fixtures_dir, rel);
	return access(path, R_OK) == 0;
}

/* Replay the recording the way memtrace --replay does, feeding both. */
static void replay(void)
{
	struct stats_config cfg = { .max_tasks = 4096, .max_modules = MAXMOD, .max_pfn = MAXPFN };
	const struct mt_tracepoint *tp;
	struct rb_layout l;
	static struct reader R;
	struct meta meta = { 0 };
	uint32_t bad = 0, full = 0;
	char rel[256], err[256], *text, *meta_text, *seed;
	size_t len, meta_len;
	uint64_t pages;
	int fd, id = 0;

	text = read_fixture(FX "/events/header_page", &len);
	ck_assert_msg(fmt_parse_header_page(&l, text, len, err, sizeof(err)) == 0, "%s", err);
	free(text);
	decoder_init(&dec);
	for (tp = mt_tracepoints; tp->system; tp++) {
		static struct fmt_event fe;

		snprintf(rel, sizeof(rel), FX "/events/%s/%s/format", tp->system, tp->name);
		if (!fixture_has(rel))
			continue;
		text = read_fixture(rel, &len);
		memset(&fe, 0, sizeof(fe));
		snprintf(fe.system, sizeof(fe.system), "%s", tp->system);
		ck_assert_msg(fmt_parse_event(&fe, text, len, err, sizeof(err)) == 0, "%s", rel);
		ck_assert_msg(decoder_add(&dec, tp, &fe, err, sizeof(err)) == 0, "%s", rel);
		free(text);
	}
	meta_text = read_fixture(FX "/" META_FILE, &meta_len);
	meta_parse(meta_text, meta_len, &meta, NULL, NULL, &bad);
	ck_assert_uint_eq(bad, 0);
	cfg.initmod_start = meta.initmod_start;
	cfg.initmod_end = meta.initmod_end;
	cfg.rename_events = meta.rename_events;
	ck_assert_uint_le(meta.max_pfn, MAXPFN);
	ck_assert_int_eq(stats_init(&ST, &cfg), 0);
	meta_parse_boot(meta_text, meta_len, &ST, &bad);

	memset(&M, 0, sizeof(M));
	M.owner = calloc(MAXPFN, 1);
	ck_assert_ptr_nonnull(M.owner);

	snprintf(rel, sizeof(rel), "%s/" FX "/per_cpu/cpu0/trace_pipe_raw", fixtures_dir);
	fd = open(rel, O_RDONLY | O_CLOEXEC);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(reader_init(&R, &l, &dec, 1, &id, &fd, false, true, sink, NULL), 0);
	seed = read_fixture(FX "/" SEED_FILE, &len);
	ck_assert_uint_gt(seed_parse(seed, len, &ST, &pages, &bad, &full), 0);
	free(seed);
	reader_run(&R, true, 0);
	ck_assert_uint_eq(R.bad_records, 0);
	ck_assert_uint_eq(R.unknown_ids, 0);
	ck_assert_uint_eq(reader_lost(&R), 0);
	meta_parse(meta_text, meta_len, &meta, &R, &ST, &bad);
	ck_assert_uint_eq(bad, 0);
	free(meta_text);
	reader_free(&R);
	close(fd);
}

static void teardown(void)
{
	free(M.owner);
	M.owner = NULL;
	stats_free(&ST);
}

/* "name size refs deps state addr" lines of the guest's /proc/modules */
static int guest_modules(char names[][MODNAME_LEN], int max)
{
	size_t len;
	char *text = read_fixture(FX "/proc_modules.txt", &len), *save = NULL, *line;
	int n = 0;

	for (line = strtok_r(text, "\n", &save); line && n < max;
	     line = strtok_r(NULL, "\n", &save))
		ck_assert_int_eq(sscanf(line, "%55s", names[n++]), 1);
	free(text);
	return n;
}

START_TEST(test_every_guest_module_traced)
{
	char names[MAXMOD][MODNAME_LEN];
	int n = guest_modules(names, MAXMOD), i;

	replay();
	/* the lean shell-flavour image loads these after the cmdline hook */
	ck_assert_int_ge(n, 8);
	for (i = 0; i < n; i++) {
		struct mt_module *m = table_find_module(&ST.tb, names[i], strlen(names[i]));

		ck_assert_msg(m, "%s of /proc/modules not in the table", names[i]);
		ck_assert_msg(m->state == MOD_LIVE && m->bracket == BR_SYSCALL,
			      "%s: state %s bracket %d", names[i], module_state_name(m), m->bracket);
		/* what the report would add from /proc/modules: nothing new */
		ck_assert_ptr_eq(module_present(&ST.tb, names[i], strlen(names[i])), m);
		ck_assert_msg(m->peak > 0, "%s: no pages", names[i]);
		ck_assert_msg(m->static_known, "%s: no static size", names[i]);
	}
	ck_assert_uint_eq(ST.tb.nmods, (uint32_t)n);
	teardown();
}
END_TEST

/* static sizes: coresize + initsize of the guest's /sys/module, in KiB rounded up */
START_TEST(test_static_sizes_match_sysfs)
{
	size_t len;
	char *text, *save = NULL, *line;
	int n = 0;

	replay();
	text = read_fixture(FX "/modules.txt", &len);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char name[MODNAME_LEN];
		unsigned long long core, init;
		struct mt_module *m;

		ck_assert_int_eq(sscanf(line, "%55s %llu %llu", name, &core, &init), 3);
		m = table_find_module(&ST.tb, name, strlen(name));
		ck_assert_ptr_nonnull(m);
		ck_assert_uint_eq(m->static_kib, (core + init + 1023) / 1024);
		n++;
	}
	free(text);
	ck_assert_uint_eq((uint32_t)n, ST.tb.nmods);
	teardown();
}
END_TEST

/* peaks, current and allocated pages equal the independent model's */
START_TEST(test_module_pages_match_model)
{
	int i;

	replay();
	ck_assert_int_eq(M.nmods, (int)ST.tb.nmods);
	ck_assert_uint_gt(M.events, 10000);
	for (i = 0; i < M.nmods; i++) {
		const struct model_mod *mm = &M.mods[i];
		struct mt_module *m = table_find_module(&ST.tb, mm->name, strlen(mm->name));
		struct mt_task *loader;

		ck_assert_msg(m, "model module %s missing", mm->name);
		ck_assert_msg(m->peak == mm->peak && m->cur == mm->cur &&
			      m->alloc_pages == mm->alloc,
			      "%s: memtrace peak %lld cur %lld alloc %llu, model %lld %lld %llu",
			      mm->name, (long long)m->peak, (long long)m->cur,
			      (unsigned long long)m->alloc_pages, (long long)mm->peak,
			      (long long)mm->cur, (unsigned long long)mm->alloc);
		ck_assert_int_eq(m->loader_tid, mm->loader);
		ck_assert(mm->live);
		/* loaders are modprobe (rd.driver.pre=loop) or udev's workers */
		loader = stats_find_task(&ST, mm->loader);
		ck_assert_ptr_nonnull(loader);
		ck_assert_msg((loader->comm_len == 8 && !memcmp(loader->comm, "modprobe", 8)) ||
			      (loader->comm_len >= 8 && !memcmp(loader->comm, "systemd-", 8)) ||
			      (loader->comm_len >= 5 && !memcmp(loader->comm, "(udev", 5)),
			      "%s loaded by %.*s", mm->name, loader->comm_len, loader->comm);
	}
	/* loop is the module dracut's cmdline hook modprobes */
	ck_assert_int_eq(memcmp(stats_find_task(&ST, table_find_module(&ST.tb, "loop", 4)->loader_tid)
				->comm, "modprobe", 8), 0);
	teardown();
}
END_TEST

Suite *suite_bootrec(void)
{
	Suite *s = suite_create("bootrec");
	TCase *tc = tcase_create("debian-6.1-boot");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_every_guest_module_traced);
	tcase_add_test(tc, test_static_sizes_match_sysfs);
	tcase_add_test(tc, test_module_pages_match_model);
	suite_add_tcase(s, tc);
	return s;
}
