// SPDX-License-Identifier: GPL-2.0-only
/* diff/diff.c - --diff: two runs' reports read, matched by name and compared; the gate (pure) */
#include "diff/diff.h"

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

static void member_double(struct json_val o, const char *key, double *out)
{
	struct json_val v;

	if (!json_get(o, key, &v) || !get_double(v, out))
		*out = 0;
}

static void member_str(struct json_val o, const char *key, char *out, size_t size)
{
	struct json_val v;

	out[0] = '\0';
	if (json_get(o, key, &v))
		json_str(v, out, size);
}

/* The item of @name in @items, added if new; NULL: no memory. */
static struct diff_item *item_of(struct diff_item **items, uint32_t *n, const char *name)
{
	struct diff_item *it;
	uint32_t i;

	for (i = 0; i < *n; i++)
		if (!strcmp((*items)[i].name, name))
			return &(*items)[i];
	it = realloc(*items, (*n + 1) * sizeof(**items));
	if (!it)
		return NULL;
	*items = it;
	it = &it[*n];
	memset(it, 0, sizeof(*it));
	it->name = strdup(name);
	if (!it->name)
		return NULL;
	(*n)++;
	return it;
}

/* A stack's key: its frames' symbols (and modules), innermost first, no offsets. */
static int stack_key(struct json_val frames, char *key, size_t size, char *err, size_t errlen)
{
	struct json_val k, f, v;
	size_t pos = 0, len = 0;
	char sym[DIFF_NAME_MAX], mod[DIFF_NAME_MAX];

	key[0] = '\0';
	if (json_type(frames) != JSON_ARRAY)
		return fail(err, errlen, "a stack without a frames array");
	while (json_next(frames, &pos, &k, &f)) {
		if (json_type(f) != JSON_OBJECT || !json_get(f, "symbol", &v) ||
		    json_str(v, sym, sizeof(sym)) < 0)
			return fail(err, errlen, "a stack frame without a symbol");
		mod[0] = '\0';
		if (json_get(f, "module", &v) && json_type(v) == JSON_STRING)
			json_str(v, mod, sizeof(mod));
		len += (size_t)snprintf(key + len, len < size ? size - len : 0, "%s%s%s%s%s",
					len ? " < " : "", sym, *mod ? " [" : "", mod, *mod ? "]" : "");
		if (len >= size) {	/* cut: the key of a very deep stack is its innermost part */
			key[size - 1] = '\0';
			break;
		}
	}
	return 0;
}

static int add_stacks(struct diff_item *it, struct json_val stacks, char *err, size_t errlen)
{
	struct json_val k, s, v;
	size_t pos = 0;
	char key[DIFF_NAME_MAX];
	int64_t peak;
	uint32_t i;

	if (json_type(stacks) != JSON_ARRAY)
		return fail(err, errlen, "module %s: stacks is not an array", it->name);
	while (json_next(stacks, &pos, &k, &s)) {
		struct diff_stack *st;

		if (json_type(s) != JSON_OBJECT || !json_get(s, "frames", &v) ||
		    stack_key(v, key, sizeof(key), err, errlen) < 0)
			return fail(err, errlen, "module %s: a stack without frames", it->name);
		if (!member_count(s, "peak_pages", DIFF_PEAK_MAX, &peak))
			return fail(err, errlen, "module %s: a stack without a valid peak_pages",
				    it->name);
		for (i = 0; i < it->nstacks && strcmp(it->stacks[i].key, key); i++)
			;
		if (i == it->nstacks) {
			st = realloc(it->stacks, (i + 1) * sizeof(*st));
			if (!st)
				return fail(err, errlen, "out of memory");
			it->stacks = st;
			memset(&st[i], 0, sizeof(*st));
			st[i].key = strdup(key);
			if (!st[i].key)
				return fail(err, errlen, "out of memory");
			it->nstacks++;
		}
		it->stacks[i].count++;
		it->stacks[i].peak += peak;
	}
	return 0;
}

/* The objects of @arr (modules, processes, tasks) into items by name. */
static int add_items(struct diff_item **items, uint32_t *n, struct json_val arr, bool modules,
		     char *err, size_t errlen)
{
	const char *what = modules ? "modules" : "processes";
	struct json_val k, o, v;
	size_t pos = 0;
	char name[DIFF_NAME_MAX], cmd[DIFF_NAME_MAX];

	if (json_type(arr) != JSON_ARRAY)
		return fail(err, errlen, "%s is not an array", what);
	while (json_next(arr, &pos, &k, &o)) {
		struct diff_item *it;
		int64_t peak;

		if (json_type(o) != JSON_OBJECT || !json_get(o, modules ? "name" : "comm", &v) ||
		    json_str(v, name, sizeof(name)) < 0)
			return fail(err, errlen, "%s: an entry without a %s", what,
				    modules ? "name" : "comm");
		if (!modules && json_get(o, "cmdline", &v) && json_type(v) == JSON_STRING &&
		    json_str(v, cmd, sizeof(cmd)) > 0) {
			size_t l = strlen(name), c = strlen(cmd);

			if (l + 1 < sizeof(name)) {	/* "comm cmdline", cut to the buffer */
				name[l++] = ' ';
				if (c > sizeof(name) - 1 - l)
					c = sizeof(name) - 1 - l;
				memcpy(name + l, cmd, c);
				name[l + c] = '\0';
			}
		}
		if (!member_count(o, "peak_pages", DIFF_PEAK_MAX, &peak))
			return fail(err, errlen, "%s: %s has no valid peak_pages", what, name);
		it = item_of(items, n, name);
		if (!it)
			return fail(err, errlen, "out of memory");
		it->count++;
		it->sum_peak += peak;
		if (peak > it->max_peak)
			it->max_peak = peak;
		if (modules && json_get(o, "stacks", &v) && add_stacks(it, v, err, errlen) < 0)
			return -1;
	}
	return 0;
}

/* One report object into @s. */
static int side_of(struct diff_side *s, struct json_val root, char *err, size_t errlen)
{
	struct json_val v, arr;
	int64_t n, listed;

	if (json_type(root) != JSON_OBJECT || !json_get(root, "memtrace_version", &v))
		return fail(err, errlen, "not a memtrace JSON report (no memtrace_version)");
	if (!member_count(root, "page_size", 1 << 30, &n) || n < 512 || (n & (n - 1)))
		return fail(err, errlen, "no valid page_size");
	s->page_size = (uint32_t)n;
	if (!json_get(root, "system_peak", &v) ||
	    !member_count(v, "pages", DIFF_PEAK_MAX, &s->sys_peak))
		return fail(err, errlen, "no valid system_peak.pages");
	if (!member_count(root, "lost_events", INT64_MAX / 2, &n))
		return fail(err, errlen, "no valid lost_events");
	s->lost = (uint64_t)n;
	member_str(root, "kernel", s->kernel, sizeof(s->kernel));
	member_str(root, "host", s->host, sizeof(s->host));
	member_str(root, "started_at", s->started, sizeof(s->started));
	member_str(root, "trigger", s->trigger, sizeof(s->trigger));
	member_double(root, "uptime_s", &s->uptime_s);
	member_double(root, "first_event_s", &s->first_s);
	member_double(root, "last_event_s", &s->last_s);
	if (json_get(root, "modules", &arr)) {
		if (add_items(&s->mods, &s->nmods, arr, true, err, errlen) < 0)
			return -1;
		if (member_count(root, "modules_total", DIFF_PEAK_MAX, &n) && json_get(root,
		    "modules", &arr)) {
			size_t pos = 0;
			struct json_val k, e;

			for (listed = 0; json_next(arr, &pos, &k, &e); listed++)
				;
			s->mods_partial = listed < n;
		}
	}
	if (json_get(root, "processes", &arr) || json_get(root, "tasks", &arr)) {
		bool procs = json_get(root, "processes", &v);
		size_t pos = 0;
		struct json_val k, e;

		if (add_items(&s->procs, &s->nprocs, arr, false, err, errlen) < 0)
			return -1;
		for (listed = 0; json_next(arr, &pos, &k, &e); listed++)
			;
		if (member_count(root, procs ? "processes_with_pages" : "tasks_with_pages",
				 DIFF_PEAK_MAX, &n))
			s->procs_partial = listed < n;
	}
	return 0;
}

/* Whether @text looks like memtrace's text report. */
static bool text_report(const char *text, size_t len)
{
	static const char head[] = "memtrace ";

	return len > sizeof(head) && !memcmp(text, head, sizeof(head) - 1) &&
	       memmem(text, len < 200 ? len : 200, " report (trigger: ", 18);
}

int diff_side_parse(struct diff_side *s, const char *text, size_t len, char *err, size_t errlen)
{
	struct json_val root;
	const char *end = text + len, *line;

	memset(s, 0, sizeof(*s));
	if (text_report(text, len))
		return fail(err, errlen, "a text report: --diff compares JSON reports (make them "
			    "with -f json) or recordings (--record DIR)");
	if (!json_parse(text, len, &root)) {
		/* JSON lines (--interval -f json): the last line's report */
		while (end > text && (end[-1] == '\n' || end[-1] == ' ' || end[-1] == '\r'))
			end--;
		line = end;
		while (line > text && line[-1] != '\n')
			line--;
		if (line == text || !json_parse(line, (size_t)(end - line), &root))
			return fail(err, errlen, "not a JSON report (malformed JSON, or not one "
				    "object a line)");
	}
	if (side_of(s, root, err, errlen) < 0) {
		diff_side_free(s);
		return -1;
	}
	return 0;
}

void diff_side_free(struct diff_side *s)
{
	uint32_t i, k;

	for (i = 0; i < s->nmods; i++) {
		for (k = 0; k < s->mods[i].nstacks; k++)
			free(s->mods[i].stacks[k].key);
		free(s->mods[i].stacks);
		free(s->mods[i].name);
	}
	for (i = 0; i < s->nprocs; i++)
		free(s->procs[i].name);
	free(s->mods);
	free(s->procs);
	s->mods = s->procs = NULL;
	s->nmods = s->nprocs = 0;
}

/* The figures of a row from its two sides' counts (either may be absent: 0). */
static void row_fill(struct diff_row *r, uint32_t ops, uint32_t nps)
{
	double old_bytes = (double)r->old_sum * ops;

	r->delta_pages = r->new_sum - r->old_sum;
	r->delta_bytes = r->new_sum * (int64_t)nps - r->old_sum * (int64_t)ops;
	r->pct = old_bytes > 0 ? 100.0 * (double)r->delta_bytes / old_bytes : 0;
	r->state = !r->old_n ? DIFF_NEW : !r->new_n ? DIFF_GONE : DIFF_BOTH;
}

static int by_growth(const void *a, const void *b)
{
	const struct diff_row *x = a, *y = b;

	if (x->delta_bytes != y->delta_bytes)
		return x->delta_bytes > y->delta_bytes ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Rows of every name in @o or @n (the old ones' order, then the new), sorted by growth. */
static struct diff_row *rows_of(const struct diff_item *o, uint32_t no, const struct diff_item *n,
				uint32_t nn, uint32_t ops, uint32_t nps, uint32_t *nrows)
{
	struct diff_row *rows = calloc((size_t)no + nn + 1, sizeof(*rows));
	uint32_t i, k, cnt = 0;

	if (!rows)
		return NULL;
	for (i = 0; i < no; i++) {
		struct diff_row *r = &rows[cnt++];

		r->name = o[i].name;
		r->old_n = o[i].count;
		r->old_max = o[i].max_peak;
		r->old_sum = o[i].sum_peak;
	}
	for (k = 0; k < nn; k++) {
		struct diff_row *r = NULL;

		for (i = 0; i < no; i++)
			if (!strcmp(rows[i].name, n[k].name))
				r = &rows[i];
		if (!r) {
			r = &rows[cnt++];
			r->name = n[k].name;
		}
		r->new_n = n[k].count;
		r->new_max = n[k].max_peak;
		r->new_sum = n[k].sum_peak;
	}
	for (i = 0; i < cnt; i++)
		row_fill(&rows[i], ops, nps);
	qsort(rows, cnt, sizeof(*rows), by_growth);
	*nrows = cnt;
	return rows;
}

static const struct diff_item *find(const struct diff_item *items, uint32_t n, const char *name)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(items[i].name, name))
			return &items[i];
	return NULL;
}

/* A module that grew: its stacks as rows (a stack as an item of one instance). */
static bool stack_rows(struct diff_row *r, const struct diff_item *o, const struct diff_item *n,
		       uint32_t ops, uint32_t nps)
{
	struct diff_item *a, *b;
	uint32_t i, na = o ? o->nstacks : 0, nb = n ? n->nstacks : 0;
	bool ok;

	a = calloc(na + 1, sizeof(*a));
	b = calloc(nb + 1, sizeof(*b));
	ok = a && b;
	for (i = 0; ok && i < na; i++) {
		a[i].name = o->stacks[i].key;
		a[i].count = o->stacks[i].count;
		a[i].sum_peak = a[i].max_peak = o->stacks[i].peak;
	}
	for (i = 0; ok && i < nb; i++) {
		b[i].name = n->stacks[i].key;
		b[i].count = n->stacks[i].count;
		b[i].sum_peak = b[i].max_peak = n->stacks[i].peak;
	}
	if (ok && (na || nb)) {
		r->stacks = rows_of(a, na, b, nb, ops, nps, &r->nstacks);
		ok = r->stacks != NULL;
	}
	free(a);
	free(b);
	return ok;
}

bool diff_compute(struct diff_result *d, const struct diff_side *o, const struct diff_side *n)
{
	uint32_t ops = o->page_size, nps = n->page_size, i;

	memset(d, 0, sizeof(*d));
	d->old = o;
	d->new = n;
	d->sys.name = "system peak";
	d->sys.old_n = d->sys.new_n = 1;
	d->sys.old_sum = d->sys.old_max = o->sys_peak;
	d->sys.new_sum = d->sys.new_max = n->sys_peak;
	row_fill(&d->sys, ops, nps);
	d->mods = rows_of(o->mods, o->nmods, n->mods, n->nmods, ops, nps, &d->nmods);
	d->procs = rows_of(o->procs, o->nprocs, n->procs, n->nprocs, ops, nps, &d->nprocs);
	if (!d->mods || !d->procs) {
		diff_result_free(d);
		return false;
	}
	for (i = 0; i < d->nmods; i++) {
		struct diff_row *r = &d->mods[i];

		if (r->delta_bytes > 0 &&
		    !stack_rows(r, find(o->mods, o->nmods, r->name), find(n->mods, n->nmods, r->name),
				ops, nps)) {
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
	const char *p = s;
	char *end;
	double v;
	size_t i;

	memset(t, 0, sizeof(*t));
	if (*p < '0' || *p > '9')
		return fail(err, errlen, "invalid value '%s' for --fail-over: use N, N%%, NKiB, "
			    "NMiB, NGiB or Npages (N a number not below 0)", s);
	while (*p >= '0' && *p <= '9')
		p++;
	if (*p == '.' && p[1] >= '0' && p[1] <= '9')
		for (p++; *p >= '0' && *p <= '9'; p++)
			;
	v = strtod(s, &end);
	if (end != p || !isfinite(v) || v > 1e15)
		return fail(err, errlen, "invalid value '%s' for --fail-over: too large", s);
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(p, units[i].name))
			continue;
		t->set = true;
		t->unit = units[i].unit;
		t->value = v * units[i].mul;
		t->text = s;
		return 0;
	}
	return fail(err, errlen, "invalid unit '%s' in --fail-over %s: use %%, KiB, MiB, GiB or "
		    "pages (none: bytes)", p, s);
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
