// SPDX-License-Identifier: GPL-2.0-only
/* diff/diff.c - --diff: two runs' reports read, matched by name and compared; the gate (pure) */
#include "diff/diff.h"

#include "lib/escape.h"
#include "lib/json.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

/* A JSON number as a whole number in [0, max]; false if it is not one. */
static bool get_count(struct json_val v, int64_t max, int64_t *out)
{
	int64_t n = 0;
	size_t i;

	if (json_type(v) != JSON_NUMBER || !v.len || v.len > 20)
		return false;
	for (i = 0; i < v.len; i++) {
		if (v.p[i] < '0' || v.p[i] > '9')
			return false;
		if (n > (max - (v.p[i] - '0')) / 10)	/* n * 10 + digit > max: never computed */
			return false;
		n = n * 10 + (v.p[i] - '0');
	}
	*out = n;
	return true;
}

/* A JSON number as a double (seconds); false if it is not a finite one. */
static bool get_double(struct json_val v, double *out)
{
	char buf[64], *end;

	if (json_type(v) != JSON_NUMBER || v.len >= sizeof(buf))
		return false;
	memcpy(buf, v.p, v.len);
	buf[v.len] = '\0';
	*out = strtod(buf, &end);
	return *end == '\0' && isfinite(*out);
}

static bool member_count(struct json_val o, const char *key, int64_t max, int64_t *out)
{
	struct json_val v;

	return json_get(o, key, &v) && get_count(v, max, out);
}

/*
 * The members @keys of object @o in one pass (the first of each, as json_get()
 * takes it; keys compared decoded): v[i] has len 0 where @o has no @keys[i].
 */
static void members(struct json_val o, const char *const *keys, size_t n, struct json_val *v)
{
	struct json_val k, val;
	size_t pos = 0, i;
	char name[32];

	memset(v, 0, n * sizeof(*v));
	while (json_next(o, &pos, &k, &val)) {
		long l = json_str(k, name, sizeof(name));

		for (i = 0; i < n; i++)
			if (!v[i].len && l == (long)strlen(keys[i]) && !memcmp(name, keys[i],
									       (size_t)l))
				v[i] = val;
	}
}

/* A header string: exact, cut to the buffer (at a character's end); "" when absent. */
static void get_text(struct json_val v, struct diff_text *t)
{
	long n = v.len ? json_str(v, t->s, sizeof(t->s)) : -1;

	t->len = n > 0 ? (uint32_t)n : 0;
	t->s[t->len] = '\0';
}

/* Names compared as bytes, a prefix first (strcmp's order, NUL bytes and all). */
static int name_cmp(const char *a, uint32_t alen, const char *b, uint32_t blen)
{
	int c = memcmp(a, b, alen < blen ? alen : blen);

	return c ? c : alen < blen ? -1 : alen > blen;
}

/* A name for a message: printable ASCII, cut (a hostile name must not reach a terminal). */
static const char *shown(const char *name, uint32_t len, char buf[64])
{
	size_t n = escape_ascii(buf, 64, name, len, false);

	if (n < len && n >= 3)
		buf[n - 3] = buf[n - 2] = buf[n - 1] = '.';
	return buf;
}

/* @v, a string, decoded exactly into a new buffer (NUL-terminated); NULL if not one. */
static char *dup_str(struct json_val v, uint32_t *len, bool *oom)
{
	char *s;
	long n;

	*oom = false;
	if (json_type(v) != JSON_STRING || v.len < 2 || v.len > UINT32_MAX)
		return NULL;
	s = malloc(v.len);	/* the decoded string is never longer than its JSON */
	if (!s) {
		*oom = true;
		return NULL;
	}
	n = json_str(v, s, v.len);
	if (n < 0) {
		free(s);
		return NULL;
	}
	*len = (uint32_t)n;
	return s;
}

/* A buffer that grows, for a stack's key and a process's "comm cmdline". */
struct buf {
	char *p;
	size_t len, cap;
	bool oom;
};

static void buf_add(struct buf *b, const char *s, size_t n)
{
	size_t cap = b->cap ? b->cap : 64;
	char *p;

	if (b->oom)
		return;
	while (b->len + n + 1 > cap)
		cap *= 2;
	if (cap != b->cap) {
		p = realloc(b->p, cap);
		if (!p) {
			b->oom = true;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

/* An entry of a report's array (a module, a process or task, a stack) before the merge. */
struct entry {
	char *name;		/* NULL once an item took it */
	uint32_t len;
	int64_t peak;
	struct json_val stacks;	/* a module's stacks array (len 0: none) */
};

struct entries {
	struct entry *e;
	size_t n, cap;
};

static bool entries_add(struct entries *es, char *name, uint32_t len, int64_t peak,
			struct json_val stacks)
{
	struct entry *e;

	if (es->n == es->cap) {
		size_t cap = es->cap ? es->cap * 2 : 64;

		if (cap > UINT32_MAX)	/* the count of an item must fit */
			return false;
		e = realloc(es->e, cap * sizeof(*e));
		if (!e)
			return false;
		es->e = e;
		es->cap = cap;
	}
	es->e[es->n++] = (struct entry){ name, len, peak, stacks };
	return true;
}

static void entries_free(struct entries *es)
{
	size_t i;

	for (i = 0; i < es->n; i++)
		free(es->e[i].name);
	free(es->e);
	es->e = NULL;
	es->n = es->cap = 0;
}

static int entry_cmp(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	return name_cmp(x->name, x->len, y->name, y->len);
}

/* What the reading of one report needs throughout. */
struct parse {
	uint32_t page_size;
	int64_t max_total;	/* pages: a total beyond is more than DIFF_BYTES_MAX bytes */
	char *err;
	size_t errlen;
};

static void items_free(struct diff_item *items, uint32_t n)
{
	uint32_t i;

	for (i = 0; items && i < n; i++) {
		items_free(items[i].stacks, items[i].nstacks);
		free(items[i].name);
	}
	free(items);
}

/* A stack's key: its frames' symbols (and modules), innermost first, no offsets. */
static int stack_key(const struct parse *ps, struct json_val frames, struct buf *key)
{
	static const char *const keys[] = { "symbol", "module" };
	struct json_val k, f, v[2] = { { 0 } };
	size_t pos = 0;
	uint32_t sl, ml = 0;
	char *sym, *mod;
	bool oom = false;

	if (json_type(frames) != JSON_ARRAY)
		return fail(ps->err, ps->errlen, "a stack without a frames array");
	while (json_next(frames, &pos, &k, &f)) {
		if (json_type(f) == JSON_OBJECT)
			members(f, keys, 2, v);
		if (json_type(f) != JSON_OBJECT || !(sym = dup_str(v[0], &sl, &oom)))
			return fail(ps->err, ps->errlen, "%s", oom ? "out of memory" :
				    "a stack frame without a symbol");
		mod = dup_str(v[1], &ml, &oom);	/* null or absent: none */
		if (oom)
			key->oom = true;
		if (key->len)
			buf_add(key, " < ", 3);
		buf_add(key, sym, sl);
		if (mod && ml) {
			buf_add(key, " [", 2);
			buf_add(key, mod, ml);
			buf_add(key, "]", 1);
		}
		free(sym);
		free(mod);
	}
	if (key->len > UINT32_MAX)
		key->oom = true;
	return key->oom ? fail(ps->err, ps->errlen, "out of memory") : 0;
}

/* The stacks of a module's entry (@what: its name, for messages) into @es. */
static int add_stacks(const struct parse *ps, struct entries *es, struct json_val stacks,
		      const char *what)
{
	static const char *const keys[] = { "frames", "peak_pages" };
	struct json_val k, s, v[2] = { { 0 } };
	size_t pos = 0;
	int64_t peak;

	if (json_type(stacks) != JSON_ARRAY)
		return fail(ps->err, ps->errlen, "module %s: stacks is not an array", what);
	while (json_next(stacks, &pos, &k, &s)) {
		struct buf key = { 0 };

		if (json_type(s) == JSON_OBJECT)
			members(s, keys, 2, v);
		if (json_type(s) != JSON_OBJECT || !v[0].len || stack_key(ps, v[0], &key) < 0) {
			free(key.p);
			return fail(ps->err, ps->errlen, "module %s: a stack without frames", what);
		}
		if (!key.p)
			buf_add(&key, "", 0);	/* no frames: the empty key */
		if (!get_count(v[1], DIFF_PEAK_MAX, &peak)) {
			free(key.p);
			return fail(ps->err, ps->errlen, "module %s: a stack without a valid "
				    "peak_pages", what);
		}
		if (key.oom || !entries_add(es, key.p, (uint32_t)key.len, peak,
					    (struct json_val){ 0 })) {
			free(key.p);
			return fail(ps->err, ps->errlen, "out of memory");
		}
	}
	return 0;
}

static int merge(const struct parse *ps, struct entries *es, const char *what,
		 struct diff_item **out, uint32_t *nout);

/* A module's stacks, from each of its entries (a module loaded more than once), merged. */
static int item_stacks(const struct parse *ps, struct diff_item *it, const struct entry *e,
		       size_t n)
{
	struct entries st = { 0 };
	char buf[64], what[96];
	size_t i;
	int rc = 0;

	for (i = 0; i < n && !rc; i++)
		if (e[i].stacks.len)
			rc = add_stacks(ps, &st, e[i].stacks, shown(it->name, it->len, buf));
	if (!rc && st.n) {
		snprintf(what, sizeof(what), "module %s: a stack", shown(it->name, it->len, buf));
		rc = merge(ps, &st, what, &it->stacks, &it->nstacks);
	}
	entries_free(&st);
	return rc;
}

/*
 * @es sorted by name, each name once: its instances, the largest and the
 * summed peak (refused where the sum is more than a run can have, see
 * DIFF_BYTES_MAX); a module's stacks likewise. The names go to the items.
 */
static int merge(const struct parse *ps, struct entries *es, const char *what,
		 struct diff_item **out, uint32_t *nout)
{
	struct diff_item *items = calloc(es->n + 1, sizeof(*items));
	size_t i, j;
	uint32_t n = 0;
	char buf[64];

	if (!items)
		return fail(ps->err, ps->errlen, "out of memory");
	if (es->n)	/* qsort(NULL, 0) is undefined */
		qsort(es->e, es->n, sizeof(*es->e), entry_cmp);
	for (i = 0; i < es->n; i = j) {
		struct diff_item *it = &items[n++];

		it->name = es->e[i].name;
		it->len = es->e[i].len;
		es->e[i].name = NULL;
		for (j = i; j < es->n && (j == i || !name_cmp(it->name, it->len, es->e[j].name,
							      es->e[j].len)); j++) {
			int64_t peak = es->e[j].peak;

			if (peak > ps->max_total - it->sum_peak) {
				fail(ps->err, ps->errlen, "%s %s: its peak_pages (%s%zu entr%s) are "
				     "more than 2^62 bytes, %lld pages of %u bytes: no machine has "
				     "that much memory; the report was changed or damaged", what,
				     shown(it->name, it->len, buf), j > i ? "summed over " : "",
				     j - i + 1, j > i ? "ies" : "y", (long long)ps->max_total,
				     ps->page_size);
				goto bad;
			}
			it->count++;
			it->sum_peak += peak;
			if (peak > it->max_peak)
				it->max_peak = peak;
		}
		if (item_stacks(ps, it, &es->e[i], j - i) < 0)
			goto bad;
	}
	*out = items;
	*nout = n;
	return 0;
bad:
	items_free(items, n);
	return -1;
}

/*
 * "comm cmdline" in a new buffer where a process has a command line (a report
 * by process may say it); NULL where it has none, or without memory (*@oom).
 */
static char *with_cmdline(struct json_val v, const char *name, uint32_t *len, bool *oom)
{
	struct buf b = { 0 };
	uint32_t cl;
	char *cmd = dup_str(v, &cl, oom);

	if (!cmd || !cl) {
		free(cmd);
		return NULL;
	}
	buf_add(&b, name, *len);
	buf_add(&b, " ", 1);
	buf_add(&b, cmd, cl);
	free(cmd);
	if (b.oom || b.len > UINT32_MAX) {
		free(b.p);
		*oom = true;
		return NULL;
	}
	*len = (uint32_t)b.len;
	return b.p;
}

/* The objects of @arr (modules, processes, tasks) into items by name. */
static int add_items(const struct parse *ps, struct diff_item **items, uint32_t *n,
		     struct json_val arr, bool modules)
{
	static const char *const keys[2][4] = {
		{ "comm", "peak_pages", "cmdline", "stacks" },	/* a process's, a task's */
		{ "name", "peak_pages", "cmdline", "stacks" },	/* a module's */
	};
	const char *what = modules ? "modules" : "processes", *key = keys[modules][0];
	struct entries es = { 0 };
	struct json_val k, o, v[4] = { { 0 } };
	size_t pos = 0;
	char buf[64];
	int rc = 0;

	if (json_type(arr) != JSON_ARRAY)
		return fail(ps->err, ps->errlen, "%s is not an array", what);
	while (!rc && json_next(arr, &pos, &k, &o)) {
		char *name = NULL;
		uint32_t len = 0;
		int64_t peak;
		bool oom = false;

		if (json_type(o) == JSON_OBJECT)
			members(o, keys[modules], 4, v);
		if (json_type(o) != JSON_OBJECT || !(name = dup_str(v[0], &len, &oom))) {
			rc = oom ? fail(ps->err, ps->errlen, "out of memory") :
			     fail(ps->err, ps->errlen, "%s: an entry without a %s", what, key);
			break;
		}
		if (!modules) {
			char *full = with_cmdline(v[2], name, &len, &oom);

			if (full) {
				free(name);
				name = full;
			} else if (oom) {
				free(name);
				rc = fail(ps->err, ps->errlen, "out of memory");
				break;
			}
		}
		if (!modules)
			v[3] = (struct json_val){ 0 };	/* a process's stacks are not compared */
		if (!get_count(v[1], DIFF_PEAK_MAX, &peak)) {
			fail(ps->err, ps->errlen, "%s: %s has no valid peak_pages", what,
			     shown(name, len, buf));
			free(name);
			rc = -1;
		} else if (!entries_add(&es, name, len, peak, v[3])) {
			free(name);
			rc = fail(ps->err, ps->errlen, "out of memory");
		}
	}
	if (!rc)
		rc = merge(ps, &es, modules ? "module" : "process", items, n);
	entries_free(&es);
	return rc;
}

/* The members of a report that --diff reads. */
enum { K_VERSION, K_PAGE_SIZE, K_SYS_PEAK, K_LOST, K_KERNEL, K_HOST, K_STARTED, K_TRIGGER,
       K_UPTIME, K_FIRST, K_LAST, K_MODULES, K_MODULES_TOTAL, K_PROCESSES, K_TASKS,
       K_PROCS_WITH_PAGES, K_TASKS_WITH_PAGES, K_COMMAND, K_TREE_PEAK, K_EXIT, K_SIGNAL,
       K_WALL, K_N };

static uint32_t elements(struct json_val arr)
{
	struct json_val k, e;
	size_t pos = 0;
	uint32_t n = 0;

	while (json_next(arr, &pos, &k, &e))
		n++;
	return n;
}

static void member_double(struct json_val v, double *out)
{
	if (!get_double(v, out))
		*out = 0;
}

/*
 * A COMMAND's report: its words, its exit, its wall time and its tree peak,
 * which is the run's measure (the system peak is the machine's: other jobs').
 */
static int command_of(struct diff_side *s, const struct json_val *m, struct parse *ps)
{
	struct json_val k, e;
	size_t pos = 0;
	struct diff_text w;
	int64_t n;

	if (json_type(m[K_COMMAND]) != JSON_ARRAY)
		return fail(ps->err, ps->errlen, "command is not a list of words");
	if (!get_count(m[K_TREE_PEAK], DIFF_PEAK_MAX, &s->tree_peak))
		return fail(ps->err, ps->errlen, "a command's report without a valid tree_peak_pages");
	if (s->tree_peak > ps->max_total)
		return fail(ps->err, ps->errlen, "tree_peak_pages %lld of %u bytes are more than 2^62 "
			    "bytes: the report was changed or damaged", (long long)s->tree_peak,
			    s->page_size);
	s->command = true;
	while (json_next(m[K_COMMAND], &pos, &k, &e)) {
		/* what a word may take: the buffer less its NUL, the words so far and a space */
		size_t used = s->cmd.len + (s->cmd.len > 0) + 1;
		size_t room = used < sizeof(s->cmd.s) ? sizeof(s->cmd.s) - used : 0;

		if (room < 4) {	/* more words than room: the last three bytes say so */
			memcpy(s->cmd.s + s->cmd.len - 3, "...", 3);
			break;
		}
		get_text(e, &w);
		if (s->cmd.len)
			s->cmd.s[s->cmd.len++] = ' ';
		if (w.len > room) {	/* the header's words cut, said by "...": a header line */
			w.len = (uint32_t)(room - 3);
			memcpy(w.s + w.len, "...", 4);
			w.len += 3;
		}
		memcpy(s->cmd.s + s->cmd.len, w.s, w.len);
		s->cmd.len += w.len;
		s->cmd.s[s->cmd.len] = '\0';
	}
	s->exit_status = get_count(m[K_EXIT], 255, &n) ? (int)n : -1;
	s->signal = get_count(m[K_SIGNAL], 128, &n) ? (int)n : 0;
	member_double(m[K_WALL], &s->wall_s);
	return 0;
}

/* One report object into @s. */
static int side_of(struct diff_side *s, struct json_val root, char *err, size_t errlen)
{
	static const char *const keys[K_N] = {
		"memtrace_version", "page_size", "system_peak", "lost_events", "kernel", "host",
		"started_at", "trigger", "uptime_s", "first_event_s", "last_event_s", "modules",
		"modules_total", "processes", "tasks", "processes_with_pages", "tasks_with_pages",
		"command", "tree_peak_pages", "exit_status", "signal", "wall_s",
	};
	struct parse ps = { .err = err, .errlen = errlen };
	struct json_val m[K_N], arr;
	int64_t n;

	if (json_type(root) != JSON_OBJECT)
		return fail(err, errlen, "not a memtrace JSON report (no memtrace_version)");
	members(root, keys, K_N, m);
	if (!m[K_VERSION].len)
		return fail(err, errlen, "not a memtrace JSON report (no memtrace_version)");
	if (!get_count(m[K_PAGE_SIZE], 1 << 30, &n) || n < 512 || (n & (n - 1)))
		return fail(err, errlen, "no valid page_size");
	s->page_size = ps.page_size = (uint32_t)n;
	ps.max_total = DIFF_BYTES_MAX / n < DIFF_PEAK_MAX ? DIFF_BYTES_MAX / n : DIFF_PEAK_MAX;
	if (!member_count(m[K_SYS_PEAK], "pages", DIFF_PEAK_MAX, &s->sys_peak))
		return fail(err, errlen, "no valid system_peak.pages");
	if (s->sys_peak > ps.max_total)
		return fail(err, errlen, "system_peak.pages %lld of %u bytes are more than 2^62 "
			    "bytes: no machine has that much memory; the report was changed or "
			    "damaged", (long long)s->sys_peak, s->page_size);
	if (!get_count(m[K_LOST], INT64_MAX / 2, &n))
		return fail(err, errlen, "no valid lost_events");
	s->lost = (uint64_t)n;
	get_text(m[K_KERNEL], &s->kernel);
	get_text(m[K_HOST], &s->host);
	get_text(m[K_STARTED], &s->started);
	get_text(m[K_TRIGGER], &s->trigger);
	member_double(m[K_UPTIME], &s->uptime_s);
	member_double(m[K_FIRST], &s->first_s);
	member_double(m[K_LAST], &s->last_s);
	if (m[K_COMMAND].len && command_of(s, m, &ps) < 0)
		return -1;
	if (m[K_MODULES].len) {
		if (add_items(&ps, &s->mods, &s->nmods, m[K_MODULES], true) < 0)
			return -1;
		if (get_count(m[K_MODULES_TOTAL], DIFF_PEAK_MAX, &n))
			s->mods_partial = elements(m[K_MODULES]) < n;
	}
	arr = m[K_PROCESSES].len ? m[K_PROCESSES] : m[K_TASKS];
	if (arr.len) {
		if (add_items(&ps, &s->procs, &s->nprocs, arr, false) < 0)
			return -1;
		if (get_count(m[m[K_PROCESSES].len ? K_PROCS_WITH_PAGES : K_TASKS_WITH_PAGES],
			      DIFF_PEAK_MAX, &n))
			s->procs_partial = elements(arr) < n;
	}
	return 0;
}

/*
 * Whether @text is one of memtrace's text reports: 1 the daemon's (a replay's,
 * an OOM snapshot's), "memtrace VERSION report (trigger: ...", 2 a COMMAND's,
 * "memtrace VERSION command report"; 0 neither.
 */
static int text_report(const char *text, size_t len)
{
	static const char head[] = "memtrace ";
	const char *nl;
	size_t line;

	if (len <= sizeof(head) || memcmp(text, head, sizeof(head) - 1))
		return 0;
	line = len < 200 ? len : 200;
	nl = memchr(text, '\n', line);
	if (nl)
		line = (size_t)(nl - text);
	if (memmem(text, line, " command report", 15))
		return 2;
	return memmem(text, line, " report (trigger: ", 18) ? 1 : 0;
}

/* The line (from 1) of byte @off of @text. */
static size_t line_of(const char *text, size_t off)
{
	size_t line = 1;
	const char *p = text, *end = text + off;

	while ((p = memchr(p, '\n', (size_t)(end - p))))
		line++, p++;
	return line;
}

/* A JSON text, or its last line (JSON lines), as the root object; false if neither. */
static bool root_of(const char *text, size_t len, struct json_val *root)
{
	const char *end = text + len, *line;

	if (json_parse(text, len, root))
		return true;
	/* JSON lines (--interval -f json): the last line's report */
	while (end > text && (end[-1] == '\n' || end[-1] == ' ' || end[-1] == '\r'))
		end--;
	line = end;
	while (line > text && line[-1] != '\n')
		line--;
	return line != text && json_parse(line, (size_t)(end - line), root);
}

int diff_side_parse(struct diff_side *s, const char *text, size_t len, char *err, size_t errlen)
{
	struct json_val root;
	size_t bad;

	memset(s, 0, sizeof(*s));
	switch (text_report(text, len)) {
	case 1:
		return fail(err, errlen, "a text report: --diff compares JSON reports (make them "
			    "with -f json, or keep one beside the text with --json FILE) or "
			    "recordings (--record DIR)");
	case 2:
		return fail(err, errlen, "a command's text report: --diff compares JSON reports "
			    "(make them with -f json: memtrace -f json -o FILE -- COMMAND, or keep "
			    "one beside the text with --json FILE) or recordings (--record DIR)");
	}
	bad = json_utf8_check(text, len);
	if (bad < len)
		return fail(err, errlen, "the byte at offset %zu (line %zu), 0x%02x, is not UTF-8: "
			    "JSON is UTF-8, and so is every report memtrace writes (a name's bytes "
			    "that are not are written as \\ufffd); if this one was converted to "
			    "another encoding (Latin-1?), convert it back (iconv -f latin1 -t "
			    "utf-8), or compare the run's own report", bad, line_of(text, bad),
			    (unsigned char)text[bad]);
	if (!root_of(text, len, &root))
		return fail(err, errlen, "not a JSON report (malformed JSON, or not one object a "
			    "line)");
	if (side_of(s, root, err, errlen) < 0) {
		diff_side_free(s);
		return -1;
	}
	return 0;
}

void diff_side_free(struct diff_side *s)
{
	items_free(s->mods, s->nmods);
	items_free(s->procs, s->nprocs);
	s->mods = s->procs = NULL;
	s->nmods = s->nprocs = 0;
}

/* a - b and a * b, held at the int64 range's ends (the parse keeps them far from them) */
static int64_t sat_sub(int64_t a, int64_t b)
{
	int64_t r;

	return __builtin_sub_overflow(a, b, &r) ? (a < b ? INT64_MIN : INT64_MAX) : r;
}

static int64_t sat_mul(int64_t a, int64_t b)
{
	int64_t r;

	return __builtin_mul_overflow(a, b, &r) ? ((a < 0) != (b < 0) ? INT64_MIN : INT64_MAX) :
	       r;
}

/* The figures of a row from its two sides' counts (either may be absent: 0). */
static void row_fill(struct diff_row *r, uint32_t ops, uint32_t nps)
{
	double old_bytes = (double)r->old_sum * ops;

	r->delta_pages = sat_sub(r->new_sum, r->old_sum);
	r->delta_bytes = sat_sub(sat_mul(r->new_sum, nps), sat_mul(r->old_sum, ops));
	r->pct = old_bytes > 0 ? 100.0 * (double)r->delta_bytes / old_bytes : 0;
	r->state = !r->old_n ? DIFF_NEW : !r->new_n ? DIFF_GONE : DIFF_BOTH;
}

static int by_growth(const void *a, const void *b)
{
	const struct diff_row *x = a, *y = b;

	if (x->delta_bytes != y->delta_bytes)
		return x->delta_bytes > y->delta_bytes ? -1 : 1;
	return name_cmp(x->name, x->name_len, y->name, y->name_len);
}

/*
 * Rows of every name in @o or @n (both sorted by name: one merge), sorted by
 * growth; NULL: no memory.
 */
static struct diff_row *rows_of(const struct diff_item *o, uint32_t no, const struct diff_item *n,
				uint32_t nn, uint32_t ops, uint32_t nps, uint32_t *nrows)
{
	struct diff_row *rows;
	uint32_t i = 0, k = 0, cnt = 0;

	if ((uint64_t)no + nn > UINT32_MAX)
		return NULL;
	rows = calloc((size_t)no + nn + 1, sizeof(*rows));
	if (!rows)
		return NULL;
	while (i < no || k < nn) {
		struct diff_row *r = &rows[cnt++];
		int c = i == no ? 1 : k == nn ? -1 : name_cmp(o[i].name, o[i].len, n[k].name,
							      n[k].len);

		if (c <= 0)
			r->old_item = &o[i++];
		if (c >= 0)
			r->new_item = &n[k++];
		if (r->old_item) {
			r->old_n = r->old_item->count;
			r->old_max = r->old_item->max_peak;
			r->old_sum = r->old_item->sum_peak;
		}
		if (r->new_item) {
			r->new_n = r->new_item->count;
			r->new_max = r->new_item->max_peak;
			r->new_sum = r->new_item->sum_peak;
		}
		r->name = (r->old_item ? r->old_item : r->new_item)->name;
		r->name_len = (r->old_item ? r->old_item : r->new_item)->len;
		row_fill(r, ops, nps);
	}
	qsort(rows, cnt, sizeof(*rows), by_growth);
	*nrows = cnt;
	return rows;
}

/* A module that grew: its stacks as rows (a stack as an item of its own). */
static bool stack_rows(struct diff_row *r, uint32_t ops, uint32_t nps)
{
	const struct diff_item *o = r->old_item, *n = r->new_item;
	uint32_t no = o ? o->nstacks : 0, nn = n ? n->nstacks : 0;

	if (!no && !nn)
		return true;
	r->stacks = rows_of(o ? o->stacks : NULL, no, n ? n->stacks : NULL, nn, ops, nps,
			    &r->nstacks);
	return r->stacks != NULL;
}

bool diff_compute(struct diff_result *d, const struct diff_side *o, const struct diff_side *n)
{
	uint32_t ops = o->page_size, nps = n->page_size, i;

	memset(d, 0, sizeof(*d));
	d->old = o;
	d->new = n;
	d->sys.name = "system peak";
	d->sys.name_len = (uint32_t)strlen(d->sys.name);
	d->sys.old_n = d->sys.new_n = 1;
	d->sys.old_sum = d->sys.old_max = o->sys_peak;
	d->sys.new_sum = d->sys.new_max = n->sys_peak;
	row_fill(&d->sys, ops, nps);
	d->commands = o->command && n->command;
	if (d->commands) {
		d->tree.name = "tree peak";
		d->tree.name_len = (uint32_t)strlen(d->tree.name);
		d->tree.old_n = d->tree.new_n = 1;
		d->tree.old_sum = d->tree.old_max = o->tree_peak;
		d->tree.new_sum = d->tree.new_max = n->tree_peak;
		row_fill(&d->tree, ops, nps);
	}
	d->mods = rows_of(o->mods, o->nmods, n->mods, n->nmods, ops, nps, &d->nmods);
	d->procs = rows_of(o->procs, o->nprocs, n->procs, n->nprocs, ops, nps, &d->nprocs);
	if (!d->mods || !d->procs) {
		diff_result_free(d);
		return false;
	}
	for (i = 0; i < d->nmods; i++) {
		if (d->mods[i].delta_bytes > 0 && !stack_rows(&d->mods[i], ops, nps)) {
			diff_result_free(d);
			return false;
		}
	}
	return true;
}

void diff_result_free(struct diff_result *d)
{
	uint32_t i;

	for (i = 0; d->mods && i < d->nmods; i++)
		free(d->mods[i].stacks);
	free(d->mods);
	free(d->procs);
	d->mods = d->procs = NULL;
	d->nmods = d->nprocs = 0;
}

int diff_threshold_parse(const char *s, struct diff_threshold *t, char *err, size_t errlen)
{
	static const struct { const char *name; enum diff_unit unit; double mul; } units[] = {
		{ "", DIFF_BYTES, 1 }, { "B", DIFF_BYTES, 1 }, { "KiB", DIFF_BYTES, 1024 },
		{ "MiB", DIFF_BYTES, 1024 * 1024 }, { "GiB", DIFF_BYTES, 1024.0 * 1024 * 1024 },
		{ "%", DIFF_PERCENT, 1 }, { "pages", DIFF_PAGES, 1 },
	};
	const char *p = s, *n0;
	char num[24];
	double v;
	size_t i;

	memset(t, 0, sizeof(*t));
	if (!strncmp(p, "system:", 7)) {
		t->system = true;
		p += 7;
	}
	n0 = p;
	if (*p < '0' || *p > '9')
		return fail(err, errlen, "invalid value '%s' for --fail-over: not a number: use N, "
			    "N%%, NKiB, NMiB, NGiB or Npages (N a decimal number not below 0)", s);
	while (*p >= '0' && *p <= '9')
		p++;
	if (*p == '.' && p[1] >= '0' && p[1] <= '9')
		for (p++; *p >= '0' && *p <= '9'; p++)
			;
	/* the decimal number alone (strtod would read 0x10 or 1e3 whole) */
	if ((size_t)(p - n0) >= sizeof(num))
		return fail(err, errlen, "invalid value '%s' for --fail-over: too large (at most "
			    "10^15)", s);
	memcpy(num, n0, (size_t)(p - n0));
	num[p - n0] = '\0';
	v = strtod(num, NULL);
	if (!isfinite(v) || v > 1e15)
		return fail(err, errlen, "invalid value '%s' for --fail-over: too large (at most "
			    "10^15)", s);
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(p, units[i].name))
			continue;
		t->set = true;
		t->unit = units[i].unit;
		t->value = v * units[i].mul;
		t->text = s;
		return 0;
	}
	return fail(err, errlen, "invalid unit '%s' after the number in --fail-over %s: use %%, "
		    "KiB, MiB, GiB or pages (none: bytes) after a decimal number (no hexadecimal, "
		    "no exponent)", p, s);
}

bool diff_over(const struct diff_row *row, const struct diff_threshold *t,
	       uint32_t new_page_size)
{
	if (!t->set || row->delta_bytes <= 0)
		return false;
	switch (t->unit) {
	case DIFF_PERCENT:
		return row->state == DIFF_BOTH && row->old_sum > 0 && row->pct > t->value;
	case DIFF_PAGES:
		return (double)row->delta_bytes > t->value * new_page_size;
	default:
		return (double)row->delta_bytes > t->value;
	}
}
