// SPDX-License-Identifier: GPL-2.0-only
/* test_report.c - text and JSON reports: escaping, strict JSON validity, sorting, top, sections */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernel/reader.h"
#include "lib/escape.h"
#include "output/report.h"
#include "output/reportto.h"
#include "module.h"
#include "stats.h"
#include "testutil.h"
#include "lib/util.h"

/* ---- a strict JSON parser (RFC 8259) building a small tree ---- */

enum jtype { J_NULL, J_FALSE, J_TRUE, J_NUM, J_STR, J_ARR, J_OBJ };

struct jv {
	enum jtype type;
	char *s;		/* string: decoded UTF-8; number: its text */
	size_t slen;
	size_t n;		/* array/object members */
	struct jv *kids;
	char **keys;		/* object keys, decoded, NUL-terminated */
};

struct jp {
	const unsigned char *p, *end;
	const char *why;	/* first error */
	size_t at;
	const unsigned char *start;
	int depth;
};

static bool jfail(struct jp *j, const char *why)
{
	if (!j->why) {
		j->why = why;
		j->at = (size_t)(j->p - j->start);
	}
	return false;
}

static void jws(struct jp *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r'))
		j->p++;
}

static void sb_add(char **s, size_t *len, size_t *cap, const void *b, size_t n)
{
	if (*len + n + 1 > *cap) {
		*cap = (*len + n + 1) * 2;
		*s = realloc(*s, *cap);
		ck_assert_ptr_nonnull(*s);
	}
	memcpy(*s + *len, b, n);
	*len += n;
	(*s)[*len] = '\0';
}

static void put_utf8(char **s, size_t *len, size_t *cap, uint32_t cp)
{
	unsigned char b[4];
	size_t n;

	if (cp < 0x80) {
		b[0] = (unsigned char)cp;
		n = 1;
	} else if (cp < 0x800) {
		b[0] = (unsigned char)(0xc0 | cp >> 6);
		b[1] = (unsigned char)(0x80 | (cp & 0x3f));
		n = 2;
	} else if (cp < 0x10000) {
		b[0] = (unsigned char)(0xe0 | cp >> 12);
		b[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
		b[2] = (unsigned char)(0x80 | (cp & 0x3f));
		n = 3;
	} else {
		b[0] = (unsigned char)(0xf0 | cp >> 18);
		b[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3f));
		b[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
		b[3] = (unsigned char)(0x80 | (cp & 0x3f));
		n = 4;
	}
	sb_add(s, len, cap, b, n);
}

static int hexval(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static bool j_hex4(struct jp *j, uint32_t *v)
{
	int i, h;

	*v = 0;
	if (j->end - j->p < 4)
		return jfail(j, "short \\u escape");
	for (i = 0; i < 4; i++) {
		h = hexval(j->p[i]);
		if (h < 0)
			return jfail(j, "bad \\u escape");
		*v = *v << 4 | (uint32_t)h;
	}
	j->p += 4;
	return true;
}

static bool j_string(struct jp *j, char **out, size_t *olen)
{
	char *s = NULL;
	size_t len = 0, cap = 0;

	sb_add(&s, &len, &cap, "", 0);
	j->p++;		/* opening quote */
	for (;;) {
		unsigned char c;

		if (j->p >= j->end) {
			free(s);
			return jfail(j, "unterminated string");
		}
		c = *j->p;
		if (c == '"') {
			j->p++;
			break;
		}
		if (c < 0x20) {
			free(s);
			return jfail(j, "raw control character in string");
		}
		if (c == '\\') {
			uint32_t cp, lo;
			char e;

			if (j->end - j->p < 2) {
				free(s);
				return jfail(j, "short escape");
			}
			e = (char)j->p[1];
			j->p += 2;
			switch (e) {
			case '"': case '\\': case '/':
				sb_add(&s, &len, &cap, &e, 1);
				break;
			case 'b': sb_add(&s, &len, &cap, "\b", 1); break;
			case 'f': sb_add(&s, &len, &cap, "\f", 1); break;
			case 'n': sb_add(&s, &len, &cap, "\n", 1); break;
			case 'r': sb_add(&s, &len, &cap, "\r", 1); break;
			case 't': sb_add(&s, &len, &cap, "\t", 1); break;
			case 'u':
				if (!j_hex4(j, &cp)) {
					free(s);
					return false;
				}
				if (cp >= 0xd800 && cp <= 0xdbff) {
					if (j->end - j->p < 6 || j->p[0] != '\\' || j->p[1] != 'u') {
						free(s);
						return jfail(j, "lone high surrogate");
					}
					j->p += 2;
					if (!j_hex4(j, &lo)) {
						free(s);
						return false;
					}
					if (lo < 0xdc00 || lo > 0xdfff) {
						free(s);
						return jfail(j, "bad low surrogate");
					}
					cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
				} else if (cp >= 0xdc00 && cp <= 0xdfff) {
					free(s);
					return jfail(j, "lone low surrogate");
				}
				put_utf8(&s, &len, &cap, cp);
				break;
			default:
				free(s);
				return jfail(j, "unknown escape");
			}
			continue;
		}
		{
			size_t n = test_utf8_len(j->p, (size_t)(j->end - j->p));

			if (!n) {
				free(s);
				return jfail(j, "invalid UTF-8 in string");
			}
			sb_add(&s, &len, &cap, j->p, n);
			j->p += n;
		}
	}
	*out = s;
	*olen = len;
	return true;
}

static bool is_digit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

static bool j_number(struct jp *j, struct jv *v)
{
	const unsigned char *b = j->p;

	if (j->p < j->end && *j->p == '-')
		j->p++;
	if (j->p >= j->end || !is_digit(*j->p))
		return jfail(j, "bad number");
	if (*j->p == '0')
		j->p++;
	else
		while (j->p < j->end && is_digit(*j->p))
			j->p++;
	if (j->p < j->end && *j->p == '.') {
		j->p++;
		if (j->p >= j->end || !is_digit(*j->p))
			return jfail(j, "bad fraction");
		while (j->p < j->end && is_digit(*j->p))
			j->p++;
	}
	if (j->p < j->end && (*j->p == 'e' || *j->p == 'E')) {
		j->p++;
		if (j->p < j->end && (*j->p == '+' || *j->p == '-'))
			j->p++;
		if (j->p >= j->end || !is_digit(*j->p))
			return jfail(j, "bad exponent");
		while (j->p < j->end && is_digit(*j->p))
			j->p++;
	}
	v->type = J_NUM;
	v->slen = (size_t)(j->p - b);
	v->s = strndup((const char *)b, v->slen);
	return true;
}

static bool j_value(struct jp *j, struct jv *v);

static bool j_lit(struct jp *j, const char *lit, enum jtype t, struct jv *v)
{
	size_t n = strlen(lit);

	if ((size_t)(j->end - j->p) < n || memcmp(j->p, lit, n))
		return jfail(j, "bad literal");
	j->p += n;
	v->type = t;
	return true;
}

static void jv_push(struct jv *v, struct jv *kid, char *key)
{
	v->kids = realloc(v->kids, (v->n + 1) * sizeof(*v->kids));
	v->keys = realloc(v->keys, (v->n + 1) * sizeof(*v->keys));
	ck_assert(v->kids && v->keys);
	v->kids[v->n] = *kid;
	v->keys[v->n] = key;
	v->n++;
}

static bool j_container(struct jp *j, struct jv *v, bool obj)
{
	char close = obj ? '}' : ']';

	v->type = obj ? J_OBJ : J_ARR;
	if (++j->depth > 64)
		return jfail(j, "too deep");
	j->p++;
	jws(j);
	if (j->p < j->end && *j->p == close) {
		j->p++;
		j->depth--;
		return true;
	}
	for (;;) {
		struct jv kid = { 0 };
		char *key = NULL;
		size_t klen;

		jws(j);
		if (obj) {
			if (j->p >= j->end || *j->p != '"')
				return jfail(j, "object key expected");
			if (!j_string(j, &key, &klen))
				return false;
			jws(j);
			if (j->p >= j->end || *j->p != ':') {
				free(key);
				return jfail(j, "colon expected");
			}
			j->p++;
		}
		if (!j_value(j, &kid)) {
			free(key);
			return false;
		}
		jv_push(v, &kid, key);
		jws(j);
		if (j->p < j->end && *j->p == ',') {
			j->p++;
			continue;
		}
		if (j->p < j->end && *j->p == close) {
			j->p++;
			break;
		}
		return jfail(j, "comma or close expected");
	}
	j->depth--;
	return true;
}

static bool j_value(struct jp *j, struct jv *v)
{
	jws(j);
	if (j->p >= j->end)
		return jfail(j, "value expected");
	switch (*j->p) {
	case '{':
		return j_container(j, v, true);
	case '[':
		return j_container(j, v, false);
	case '"':
		v->type = J_STR;
		return j_string(j, &v->s, &v->slen);
	case 't':
		return j_lit(j, "true", J_TRUE, v);
	case 'f':
		return j_lit(j, "false", J_FALSE, v);
	case 'n':
		return j_lit(j, "null", J_NULL, v);
	default:
		return j_number(j, v);
	}
}

static void jv_free(struct jv *v)
{
	size_t i;

	for (i = 0; i < v->n; i++) {
		jv_free(&v->kids[i]);
		if (v->keys)
			free(v->keys[i]);
	}
	free(v->kids);
	free(v->keys);
	free(v->s);
	memset(v, 0, sizeof(*v));
}

/* Parse a whole document; NULL error string on success. */
static const char *json_parse(const char *text, size_t len, struct jv *root, size_t *at)
{
	struct jp j = { (const unsigned char *)text, (const unsigned char *)text + len, NULL, 0,
			(const unsigned char *)text, 0 };

	memset(root, 0, sizeof(*root));
	if (j_value(&j, root)) {
		jws(&j);
		if (j.p != j.end)
			jfail(&j, "trailing bytes");
	}
	*at = j.at;
	if (j.why)
		jv_free(root);
	return j.why;
}

static bool json_ok(const char *text)
{
	struct jv v;
	size_t at;
	const char *why = json_parse(text, strlen(text), &v, &at);

	if (!why)
		jv_free(&v);
	return !why;
}

static const struct jv *jget(const struct jv *o, const char *key)
{
	size_t i;

	if (o->type != J_OBJ)
		return NULL;
	for (i = 0; i < o->n; i++)
		if (!strcmp(o->keys[i], key))
			return &o->kids[i];
	return NULL;
}

static const struct jv *jreq(const struct jv *o, const char *key, enum jtype t)
{
	const struct jv *v = jget(o, key);

	ck_assert_msg(v != NULL, "key \"%s\" missing", key);
	ck_assert_msg(v->type == t, "key \"%s\" has type %d, want %d", key, v->type, t);
	return v;
}

static long long jint(const struct jv *o, const char *key)
{
	const struct jv *v = jreq(o, key, J_NUM);
	char *end;
	long long x = strtoll(v->s, &end, 10);

	ck_assert_msg(*end == '\0', "key \"%s\" is not an integer: %s", key, v->s);
	return x;
}

static const char *jstr(const struct jv *o, const char *key)
{
	return jreq(o, key, J_STR)->s;
}

/* The validator itself must be strict, or the tests below prove nothing. */
START_TEST(test_validator_self)
{
	ck_assert(json_ok("{}"));
	ck_assert(json_ok(" [1, -0.5e+3, \"a\\u00e9\\ud83d\\ude00\", true, false, null, {\"k\":[]}] "));
	ck_assert(json_ok("\"\xe6\x97\xa5\""));
	ck_assert(!json_ok(""));
	ck_assert(!json_ok("{"));
	ck_assert(!json_ok("{\"a\":1,}"));
	ck_assert(!json_ok("[1,]"));
	ck_assert(!json_ok("{a:1}"));
	ck_assert(!json_ok("\"a\nb\""));
	ck_assert(!json_ok("\"a\x1b\""));
	ck_assert(!json_ok("\"\\x41\""));
	ck_assert(!json_ok("\"\\u12\""));
	ck_assert(!json_ok("\"\\ud800\""));
	ck_assert(!json_ok("\"\xff\""));
	ck_assert(!json_ok("\"\xc0\xaf\""));
	ck_assert(!json_ok("\"\xed\xa0\x80\""));
	ck_assert(!json_ok("\"\xf4\x90\x80\x80\""));
	ck_assert(!json_ok("\"\xe6\x97\""));
	ck_assert(!json_ok("01"));
	ck_assert(!json_ok("1."));
	ck_assert(!json_ok("nan"));
	ck_assert(!json_ok("-"));
	ck_assert(!json_ok("{} {}"));
	ck_assert(!json_ok("tru"));
}
END_TEST

/* ---- rendering helpers ---- */

typedef void (*escape_fn)(struct out *o, const char *s, size_t len);

static char *escaped(escape_fn fn, const char *s, size_t len)
{
	fn(test_out_begin(), s, len);
	return test_out_end(NULL);
}

#define CK_ESC(fn, in, want)							\
	do {									\
		char *got_ = escaped(fn, in, sizeof(in) - 1);			\
		ck_assert_msg(!strcmp(got_, want), "%s(%s): got \"%s\", want \"%s\"", \
			      #fn, #in, got_, want);				\
		free(got_);							\
	} while (0)

START_TEST(test_escape_text)
{
	CK_ESC(escape_text, "", "");
	CK_ESC(escape_text, "bash", "bash");
	CK_ESC(escape_text, "a b", "a b");
	CK_ESC(escape_text, "\"q'", "\"q'");
	CK_ESC(escape_text, "a\\b", "a\\\\b");
	CK_ESC(escape_text, "x\ny", "x\\x0ay");
	CK_ESC(escape_text, "\t", "\\x09");
	CK_ESC(escape_text, "\r", "\\x0d");
	CK_ESC(escape_text, "\x1b[2J", "\\x1b[2J");
	CK_ESC(escape_text, "\x7f", "\\x7f");
	CK_ESC(escape_text, "\x01\x1f", "\\x01\\x1f");
	CK_ESC(escape_text, "~ ", "~ ");
	CK_ESC(escape_text, "\xff", "\\xff");
	CK_ESC(escape_text, "\xc2\x85", "\\xc2\\x85");
	CK_ESC(escape_text, "\xc3\xa9", "\\xc3\\xa9");
	CK_ESC(escape_text, "a\0b", "a\\x00b");
	/* a backslash followed by "x41" must stay distinguishable from byte 0x41 */
	CK_ESC(escape_text, "\\x41", "\\\\x41");
}
END_TEST

START_TEST(test_escape_json)
{
	CK_ESC(escape_json, "", "");
	CK_ESC(escape_json, "bash", "bash");
	CK_ESC(escape_json, "a b'", "a b'");
	CK_ESC(escape_json, "\"", "\\\"");
	CK_ESC(escape_json, "\\", "\\\\");
	CK_ESC(escape_json, "/", "/");
	CK_ESC(escape_json, "x\ny", "x\\u000ay");
	CK_ESC(escape_json, "\t", "\\u0009");
	CK_ESC(escape_json, "\x1b[2J", "\\u001b[2J");
	CK_ESC(escape_json, "\x7f", "\\u007f");
	CK_ESC(escape_json, "a\0b", "a\\u0000b");
	CK_ESC(escape_json, "\x1f", "\\u001f");
	/* valid UTF-8 stays as it is */
	CK_ESC(escape_json, "\xc3\xa9", "\xc3\xa9");
	CK_ESC(escape_json, "\xe6\x97\xa5\xe6\x9c\xac", "\xe6\x97\xa5\xe6\x9c\xac");
	CK_ESC(escape_json, "\xf0\x9f\x98\x80", "\xf0\x9f\x98\x80");
	CK_ESC(escape_json, "\xc2\xa0", "\xc2\xa0");		/* U+00A0 is not C1 */
	CK_ESC(escape_json, "\xef\xbf\xbd", "\xef\xbf\xbd");
	/* C1 controls */
	CK_ESC(escape_json, "\xc2\x85", "\\u0085");
	CK_ESC(escape_json, "\xc2\x80\xc2\x9f", "\\u0080\\u009f");
	/* invalid bytes: one U+FFFD each */
	CK_ESC(escape_json, "\xff", "\\ufffd");
	CK_ESC(escape_json, "a\xfe" "b", "a\\ufffdb");
	CK_ESC(escape_json, "\x80", "\\ufffd");
	CK_ESC(escape_json, "\xe6\x97", "\\ufffd\\ufffd");		/* truncated */
	CK_ESC(escape_json, "a\xe6", "a\\ufffd");			/* truncated at the end */
	CK_ESC(escape_json, "\xe6\x97" "a", "\\ufffd\\ufffda");
	CK_ESC(escape_json, "\xc0\xaf", "\\ufffd\\ufffd");		/* overlong '/' */
	CK_ESC(escape_json, "\xc1\xbf", "\\ufffd\\ufffd");
	CK_ESC(escape_json, "\xe0\x80\xaf", "\\ufffd\\ufffd\\ufffd");	/* overlong, 3 bytes */
	CK_ESC(escape_json, "\xf0\x80\x80\xaf", "\\ufffd\\ufffd\\ufffd\\ufffd");
	CK_ESC(escape_json, "\xed\xa0\x80", "\\ufffd\\ufffd\\ufffd");	/* surrogate D800 */
	CK_ESC(escape_json, "\xed\xbf\xbf", "\\ufffd\\ufffd\\ufffd");	/* surrogate DFFF */
	CK_ESC(escape_json, "\xed\x9f\xbf", "\xed\x9f\xbf");		/* U+D7FF is fine */
	CK_ESC(escape_json, "\xf4\x90\x80\x80", "\\ufffd\\ufffd\\ufffd\\ufffd");	/* > U+10FFFF */
	CK_ESC(escape_json, "\xf4\x8f\xbf\xbf", "\xf4\x8f\xbf\xbf");	/* U+10FFFF */
	CK_ESC(escape_json, "\xf5\x80\x80\x80", "\\ufffd\\ufffd\\ufffd\\ufffd");
	CK_ESC(escape_json, "\xc3\x28", "\\ufffd(");		/* bad continuation */
}
END_TEST

/* Plain ASCII for kmsg lines and table columns: one '?' a byte, bounded, at a NUL the end. */
START_TEST(test_escape_ascii)
{
	char d[8];

	ck_assert_uint_eq(escape_ascii(d, sizeof(d), "a b\tc", 5, false), 5);
	ck_assert_str_eq(d, "a b?c");
	ck_assert_uint_eq(escape_ascii(d, sizeof(d), "a b\tc", 5, true), 5);
	ck_assert_str_eq(d, "a?b?c");
	ck_assert_uint_eq(escape_ascii(d, sizeof(d), "\x7f\x80\xff~ ", 5, false), 5);
	ck_assert_str_eq(d, "???~ ");
	ck_assert_uint_eq(escape_ascii(d, sizeof(d), "ab\0cd", 5, false), 2);	/* a NUL ends it */
	ck_assert_str_eq(d, "ab");
	ck_assert_uint_eq(escape_ascii(d, sizeof(d), "abcdefghij", 10, false), 7);	/* the NUL fits */
	ck_assert_str_eq(d, "abcdefg");
	ck_assert_uint_eq(escape_ascii(d, sizeof(d), "abcdefghij", 3, false), 3);
	ck_assert_str_eq(d, "abc");
	ck_assert_uint_eq(escape_ascii(d, sizeof(d), "", 0, true), 0);
	ck_assert_str_eq(d, "");
}
END_TEST

/* Every escape_json output of hostile bytes is a valid JSON string body. */
START_TEST(test_escape_json_all_bytes_valid)
{
	char in[4], *got, *doc;
	unsigned a, b;

	for (a = 0; a < 256; a++) {
		for (b = 0; b < 256; b += 5) {
			size_t n;

			in[0] = (char)a;
			in[1] = (char)b;
			in[2] = (char)0x80;
			got = escaped(escape_json, in, 3);
			n = strlen(got) + 3;
			doc = malloc(n);
			snprintf(doc, n, "\"%s\"", got);
			ck_assert_msg(json_ok(doc), "bytes %02x %02x 80 -> %s", a, b, got);
			free(doc);
			free(got);
		}
	}
}
END_TEST

/* ---- whole reports ---- */

/* A run as the report sees it: one CPU in the reader, whose counters the tests set. */
struct fixture {
	struct run r;
	struct reader_cpu cpu0;
	const char *trigger;
	uint32_t order[256];
	uint32_t sel[256];
	uint32_t threads[256];
	int64_t pages[256];
	uint32_t mod_order[16];	/* the fixtures' 8 modules and 8 untraced */
};

static void fx_init(struct fixture *fx, uint32_t max_tasks)
{
	struct stats_config cfg = { .max_tasks = max_tasks, .max_modules = 8, .max_pfn = 4096 };

	ck_assert_uint_le(max_tasks, 256);
	memset(&fx->r, 0, sizeof(fx->r));
	memset(&fx->cpu0, 0, sizeof(fx->cpu0));
	ck_assert_int_eq(stats_init(&fx->r.st, &cfg), 0);
	fx->trigger = "SIGUSR1";
	fx->r.mode_name = "live";
	fx->r.opt_set.format = FMT_TEXT;
	strcpy(fx->r.tf.root, "/sys/kernel/tracing");
	strcpy(fx->r.tf.name, "memtrace");
	fx->r.enabled[0] = "kmem:mm_page_alloc";
	fx->r.enabled[1] = "kmem:mm_page_free";
	fx->r.nenabled = 2;
	test_run_wire(&fx->r, &fx->cpu0, fx->order, fx->threads, fx->pages, fx->sel, fx->mod_order);
	fx->r.self_rss_kib = -1;
	fx->r.self_hwm_kib = -1;
}

static char *render(struct fixture *fx, enum report_format fmt, size_t *len)
{
	fx->r.opt_set.format = fmt;
	report_write(test_out_begin(), &fx->r, &fx->r.rs, fx->trigger);
	return test_out_end(len);
}

static void parse_or_fail(const char *text, size_t len, struct jv *root)
{
	size_t at;
	const char *why = json_parse(text, len, root, &at);

	ck_assert_msg(!why, "invalid JSON: %s at byte %zu: ...%.40s", why ? why : "", at,
		      text + (at > 20 ? at - 20 : 0));
	ck_assert_int_eq(root->type, J_OBJ);
}

static void apply_page(struct stats *st, enum mt_kind kind, int32_t tid, uint64_t pfn,
		       uint32_t order, uint64_t ts, uint8_t flags)
{
	struct mt_event ev = { .kind = kind, .ts = ts, .tid = tid, .flags = flags };

	ev.u.page.pfn = pfn;
	ev.u.page.order = order;
	stats_apply(st, &ev);
}

/* Text output: printable ASCII and newlines only. */
static void assert_ascii(const char *t, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		ck_assert_msg((t[i] >= 0x20 && t[i] < 0x7f) || t[i] == '\n',
			      "byte 0x%02x at %zu of the text report", (unsigned char)t[i], i);
}

struct trow {
	int pid, tgid, ppid;
	long long peak, cur;
	unsigned long long kib, seeded;
	char state[16];
	const char *comm;	/* into the text, up to the newline */
	size_t comm_len;
};

/*
 * The task rows of a text report: 9 columns, two spaces, COMM to the end of
 * the line. Returns the number of rows.
 */
static int text_rows(const char *t, struct trow *rows, int max)
{
	const char *p = strstr(t, "\nTASKS: "), *nl;
	int n = 0;

	ck_assert_ptr_nonnull(p);
	p = strchr(p + 1, '\n') + 1;		/* header */
	nl = strchr(p, '\n');
	{
		char hdr[256];
		int cols = 0;
		char *tok, *save, *last = NULL, *first = NULL;

		ck_assert_uint_lt((size_t)(nl - p), sizeof(hdr));
		memcpy(hdr, p, (size_t)(nl - p));
		hdr[nl - p] = '\0';
		for (tok = strtok_r(hdr, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
			if (!first)
				first = tok;
			last = tok;
			cols++;
		}
		ck_assert_int_eq(cols, 10);
		ck_assert_str_eq(first, "PID");
		ck_assert_str_eq(last, "COMM");
	}
	p = nl + 1;
	while (*p && *p != '\n') {
		struct trow r = { 0 };
		double at;
		int used = -1;

		nl = strchr(p, '\n');
		ck_assert_ptr_nonnull(nl);
		ck_assert_int_lt(n, max);
		ck_assert_msg(sscanf(p, "%d %d %d %lld %llu %lld %llu %15s %lf%n", &r.pid, &r.tgid,
				     &r.ppid, &r.peak, &r.kib, &r.cur, &r.seeded, r.state, &at,
				     &used) == 9 && used > 0, "bad row: %.*s", (int)(nl - p), p);
		ck_assert_msg(p[used] == ' ' && p[used + 1] == ' ', "no COMM gap: %.*s",
			      (int)(nl - p), p);
		r.comm = p + used + 2;
		r.comm_len = (size_t)(nl - r.comm);
		rows[n++] = r;
		p = nl + 1;
	}
	return n;
}

static bool comm_is(const struct trow *r, const char *s)
{
	return r->comm_len == strlen(s) && !memcmp(r->comm, s, r->comm_len);
}

/* All a pipe holds now (its read end non-blocking), NUL-terminated, malloc'ed. */
static char *pipe_take(int fd, size_t *len)
{
	size_t n = 0, cap = 1 << 17;
	char *buf = malloc(cap + 1);
	ssize_t got;

	ck_assert_ptr_nonnull(buf);
	while (n < cap && (got = read(fd, buf + n, cap - n)) > 0)
		n += (size_t)got;
	buf[n] = '\0';
	*len = n;
	return buf;
}

/*
 * report_to() does the report-time steps itself (a replay's uptime is the
 * recording's, its own RSS unknown), then writes what report_write() writes:
 * into memory, or into an fd whose stalled reader is not waited for.
 */
START_TEST(test_report_to)
{
	static const struct mode_ops replay_ops = { .name = "replay", .live = false };
	static char fill[4096];
	static struct fixture fx;
	struct out_mem m = { 0 };
	size_t len, plen;
	char *want, *got;
	uint64_t t0;
	int p[2];

	fx_init(&fx, 64);
	stats_seed_task(&fx.r.st, 100, 100, 1, "big", 3, 50, 10, false);
	fx.r.ops = &replay_ops;
	fx.r.mode_name = "replay";
	fx.trigger = "replay";
	fx.r.meta.uptime_s = 4321.5;
	fx.r.self_rss_kib = 77;		/* left from before: enrich_now() says unknown */
	ck_assert_int_eq(report_to(&fx.r, REPORT_MEM(&m), "replay"), 0);
	ck_assert_ptr_nonnull(m.data);
	ck_assert_ptr_nonnull(strstr(m.data, "(trigger: replay, replay)\nuptime: 4321.500 s;"));
	ck_assert_ptr_null(strstr(m.data, "memtrace itself"));
	ck_assert_int_eq(fx.r.self_rss_kib, -1);
	want = render(&fx, FMT_TEXT, &len);
	ck_assert_uint_eq(m.len, len);
	ck_assert_str_eq(m.data, want);

	/* an fd: the same bytes */
	ck_assert_int_eq(pipe2(p, O_NONBLOCK), 0);
	ck_assert_int_eq(report_to(&fx.r, REPORT_FD(p[1]), "replay"), 0);
	ck_assert(!fx.r.stdout_stalled);
	got = pipe_take(p[0], &plen);
	ck_assert_str_eq(got, want);
	free(got);
	/* a full pipe after a stall: not waited for, said, and still stalled */
	while (write(p[1], fill, sizeof(fill)) > 0)
		;
	fx.r.stdout_stalled = true;
	t0 = mono_ns();
	ck_assert_int_eq(report_to(&fx.r, REPORT_FD(p[1]), "replay"), -ETIMEDOUT);
	ck_assert_uint_lt(mono_ns() - t0, REPORT_WAIT_MS * 1000000ull / 2);
	ck_assert(fx.r.stdout_stalled);
	/* read again: the next report is whole, and the stall is over */
	free(pipe_take(p[0], &plen));
	ck_assert_int_eq(report_to(&fx.r, REPORT_FD(p[1]), "replay"), 0);
	ck_assert(!fx.r.stdout_stalled);
	got = pipe_take(p[0], &plen);
	ck_assert_str_eq(got, want);
	free(got);
	close(p[0]);
	close(p[1]);
	free(want);
	free(m.data);
	stats_free(&fx.r.st);
}
END_TEST

START_TEST(test_basic_text)
{
	static struct fixture fx;
	struct trow rows[16];
	char *t;
	size_t len;

	fx_init(&fx, 64);
	/* seeded tasks; 300 has no pages and must not be listed */
	stats_seed_task(&fx.r.st, 100, 100, 1, "big", 3, 50, 10, false);
	stats_seed_task(&fx.r.st, 200, 200, 100, "small", 5, 10, 10, false);
	stats_seed_task(&fx.r.st, 300, 300, 1, "empty", 5, 0, 10, false);
	/* 200: +8 pages (order 3), then freed: peak 18, current 10 */
	apply_page(&fx.r.st, EV_PAGE_ALLOC, 200, 64, 3, 1000000000, 0);
	apply_page(&fx.r.st, EV_PAGE_FREE, 200, 64, 3, 2000000000, 0);
	fx.r.seed_tasks = 3;
	fx.r.seed_pages = 60;
	t = render(&fx, FMT_TEXT, &len);
	assert_ascii(t, len);
	ck_assert_uint_eq(strlen(t), len);
	ck_assert_ptr_nonnull(strstr(t, "(trigger: SIGUSR1, live)\n"));
	ck_assert_ptr_nonnull(strstr(t, "tracefs: /sys/kernel/tracing instance memtrace\n"));
	ck_assert_ptr_nonnull(strstr(t, "events enabled: kmem:mm_page_alloc kmem:mm_page_free\n"));
	ck_assert_ptr_nonnull(strstr(t, "events missing: none\n"));
	ck_assert_ptr_nonnull(strstr(t, "events processed: 2 (page_alloc 1, page_free 1, fork 0"));
	ck_assert_ptr_nonnull(strstr(t, "\nlost events: 0\n"));
	ck_assert_ptr_nonnull(strstr(t, "seeded at start: 3 tasks, 60 pages"));
	/* a long-running process's seed can dwarf what it took: said, and how to leave it out */
	ck_assert_ptr_nonnull(strstr(t, "\nseeded at start: 3 tasks, 60 pages (statm resident); "
				     "freed since 0, dropped at exit 0\nseeded pages are in "
				     "PEAK_PAGES and CUR_PAGES (SEEDED: a row's); for only what was "
				     "used while tracing: --no-seed, or memtrace -- COMMAND\n"));
	ck_assert_ptr_null(strstr(t, "oom kills"));
	ck_assert_ptr_null(strstr(t, "memtrace itself"));
	ck_assert_ptr_nonnull(strstr(t, "\nTASKS: 2 of 2 with pages, by peak (page = 4096 bytes)\n"));
	ck_assert_int_eq(text_rows(t, rows, 16), 2);
	ck_assert_int_eq(rows[0].pid, 100);
	ck_assert_int_eq(rows[0].tgid, 100);
	ck_assert_int_eq(rows[0].ppid, 1);
	ck_assert_int_eq(rows[0].peak, 50);
	ck_assert_uint_eq(rows[0].kib, 200);		/* 50 * 4096 / 1024 */
	ck_assert_int_eq(rows[0].cur, 50);
	ck_assert_uint_eq(rows[0].seeded, 50);
	ck_assert_str_eq(rows[0].state, "alive");
	ck_assert(comm_is(&rows[0], "big"));
	ck_assert_int_eq(rows[1].pid, 200);
	ck_assert_int_eq(rows[1].ppid, 100);
	ck_assert_int_eq(rows[1].peak, 18);
	ck_assert_uint_eq(rows[1].kib, 72);
	ck_assert_int_eq(rows[1].cur, 10);
	ck_assert_uint_eq(rows[1].seeded, 10);
	ck_assert(comm_is(&rows[1], "small"));
	ck_assert_ptr_nonnull(strstr(t, "\nMODULES: 0 of 0, by peak\n"));
	free(t);
	stats_free(&fx.r.st);
}
END_TEST

/* Without a seed (--no-seed, a recording without one): the figures are this window's. */
START_TEST(test_no_seed_line)
{
	static struct fixture fx;
	struct trow rows[4];
	char *t;
	size_t len;

	fx_init(&fx, 16);
	apply_page(&fx.r.st, EV_PAGE_ALLOC, 200, 64, 2, 1000000000, 0);
	t = render(&fx, FMT_TEXT, &len);
	ck_assert_ptr_nonnull(strstr(t, "\nseeded at start: none (every page counted was allocated "
				     "while tracing)\n"));
	ck_assert_ptr_null(strstr(t, "seeded pages are"));
	/* its 4 pages (order 2), none of them seeded */
	ck_assert_int_eq(text_rows(t, rows, 4), 1);
	ck_assert_int_eq(rows[0].peak, 4);
	ck_assert_uint_eq(rows[0].seeded, 0);
	free(t);
	stats_free(&fx.r.st);
}
END_TEST

START_TEST(test_basic_json)
{
	static struct fixture fx;
	const struct jv *tasks, *ev, *bk, *task, *tf;
	struct jv root;
	char *t;
	size_t len;

	fx_init(&fx, 64);
	stats_seed_task(&fx.r.st, 100, 100, 1, "big", 3, 50, 10, false);
	stats_seed_task(&fx.r.st, 200, 200, 100, "small", 5, 10, 10, false);
	stats_seed_task(&fx.r.st, 300, 300, 1, "empty", 5, 0, 10, false);
	apply_page(&fx.r.st, EV_PAGE_ALLOC, 200, 64, 3, 1000000000, 0);
	apply_page(&fx.r.st, EV_PAGE_FREE, 200, 64, 3, 2000000000, 0);
	fx.r.missing[0] = "oom:mark_victim";
	fx.r.missing_loss[0] = "no \"oom\" section";
	fx.r.nmissing = 1;
	fx.r.self_rss_kib = 1234;
	fx.r.self_hwm_kib = 2345;
	strcpy(fx.r.tf.root, "/tmp/we\"ird\\dir");
	t = render(&fx, FMT_JSON, &len);
	ck_assert_uint_eq(strlen(t), len);
	ck_assert(len > 0 && t[len - 1] == '\n');
	parse_or_fail(t, len, &root);
	ck_assert_str_eq(jstr(&root, "trigger"), "SIGUSR1");
	ck_assert_str_eq(jstr(&root, "mode"), "live");
	ck_assert_int_eq(jint(&root, "page_size"), 4096);
	ck_assert_int_eq(jint(&root, "lost_events"), 0);
	tf = jreq(&root, "tracefs", J_OBJ);
	ck_assert_str_eq(jstr(tf, "path"), "/tmp/we\"ird\\dir");
	ck_assert_str_eq(jstr(tf, "instance"), "memtrace");
	ev = jreq(&root, "events", J_OBJ);
	ck_assert_int_eq(jint(ev, "processed"), 2);
	bk = jreq(ev, "by_kind", J_OBJ);
	ck_assert_int_eq(jint(bk, "page_alloc"), 1);
	ck_assert_int_eq(jint(bk, "page_free"), 1);
	ck_assert_int_eq(jint(bk, "oom_victim"), 0);
	ck_assert_uint_eq(jreq(ev, "enabled", J_ARR)->n, 2);
	ck_assert_str_eq(jreq(ev, "enabled", J_ARR)->kids[1].s, "kmem:mm_page_free");
	ck_assert_uint_eq(jreq(ev, "missing", J_ARR)->n, 1);
	ck_assert_str_eq(jstr(&jreq(ev, "missing", J_ARR)->kids[0], "lost"),
			 "no \"oom\" section");
	jreq(&root, "oom", J_NULL);
	ck_assert_int_eq(jint(jreq(&root, "self", J_OBJ), "rss_kib"), 1234);
	ck_assert_int_eq(jint(jreq(&root, "self", J_OBJ), "hwm_kib"), 2345);
	ck_assert_int_eq(jint(&root, "tasks_with_pages"), 2);
	tasks = jreq(&root, "tasks", J_ARR);
	ck_assert_uint_eq(tasks->n, 2);
	task = &tasks->kids[0];
	ck_assert_int_eq(jint(task, "pid"), 100);
	ck_assert_int_eq(jint(task, "ppid"), 1);
	ck_assert_str_eq(jstr(task, "comm"), "big");
	ck_assert_int_eq(jint(task, "peak_pages"), 50);
	ck_assert_int_eq(jint(task, "peak_kib"), 200);
	ck_assert_int_eq(jint(task, "current_pages"), 50);
	ck_assert_str_eq(jstr(task, "state"), "alive");
	task = &tasks->kids[1];
	ck_assert_int_eq(jint(task, "pid"), 200);
	ck_assert_int_eq(jint(task, "ppid"), 100);
	ck_assert_int_eq(jint(task, "peak_pages"), 18);
	ck_assert_int_eq(jint(task, "peak_kib"), 72);
	ck_assert_int_eq(jint(task, "current_pages"), 10);
	ck_assert_int_eq(jint(task, "seeded_pages"), 10);
	ck_assert_int_eq(jint(task, "allocated_pages"), 8);
	ck_assert_int_eq(jint(task, "freed_pages"), 8);
	ck_assert_uint_eq(jreq(&root, "modules", J_ARR)->n, 0);
	jv_free(&root);
	free(t);
	stats_free(&fx.r.st);
}
END_TEST

/* Hostile names: (raw comm, its length, text form, decoded JSON form) */
struct hostile {
	const char *raw;
	size_t len;
	const char *text;
	const char *json;	/* what a JSON reader gets back */
};

#define H(raw, text, json) { raw, sizeof(raw) - 1, text, json }
static const struct hostile hostile[] = {
	H("new\nline", "new\\x0aline", "new\nline"),
	H("\x1b[2J\x1b]0;x\x07", "\\x1b[2J\\x1b]0;x\\x07", "\x1b[2J\x1b]0;x\x07"),
	H("say \"hi\"", "say \"hi\"", "say \"hi\""),
	H("back\\slash", "back\\\\slash", "back\\slash"),
	H("tab\there", "tab\\x09here", "tab\there"),
	H("del\x7f", "del\\x7f", "del\x7f"),
	H("ff\xff", "ff\\xff", "ff\xef\xbf\xbd"),
	H("trunc\xe6\x97", "trunc\\xe6\\x97", "trunc\xef\xbf\xbd\xef\xbf\xbd"),
	H("over\xc0\xaf", "over\\xc0\\xaf", "over\xef\xbf\xbd\xef\xbf\xbd"),
	H("sur\xed\xa0\x80", "sur\\xed\\xa0\\x80", "sur\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"),
	H("c1\xc2\x85", "c1\\xc2\\x85", "c1\xc2\x85"),
	H("caf\xc3\xa9", "caf\\xc3\\xa9", "caf\xc3\xa9"),
	H("\xe6\x97\xa5\xe6\x9c\xac", "\\xe6\\x97\\xa5\\xe6\\x9c\\xac", "\xe6\x97\xa5\xe6\x9c\xac"),
	H("abcdefghijklmno", "abcdefghijklmno", "abcdefghijklmno"),	/* 15 bytes */
	/* 15 bytes of valid UTF-8: five 3-byte characters */
	H("\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e\xe6\x97\xa5\xe6\x9c\xac",
	  "\\xe6\\x97\\xa5\\xe6\\x9c\\xac\\xe8\\xaa\\x9e\\xe6\\x97\\xa5\\xe6\\x9c\\xac",
	  "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e\xe6\x97\xa5\xe6\x9c\xac"),
	H("   ", "   ", "   "),
	H("a  b", "a  b", "a  b"),
	H("\x01\x02\x03", "\\x01\\x02\\x03", "\x01\x02\x03"),
};
#undef H
#define NHOSTILE ((int)(sizeof(hostile) / sizeof(hostile[0])))

/* Seed the hostile names with distinct peaks: hostile[i] gets NHOSTILE + 10 - i pages. */
static void seed_hostile(struct fixture *fx)
{
	int i;

	for (i = 0; i < NHOSTILE; i++)
		ck_assert_ptr_nonnull(stats_seed_task(&fx->r.st, 1000 + i, 1000 + i, 1, hostile[i].raw,
						      hostile[i].len, (uint64_t)(NHOSTILE + 10 - i),
						      5, false));
}

START_TEST(test_hostile_text)
{
	static struct fixture fx;
	struct trow rows[64];
	char *t;
	size_t len;
	int i, n;

	fx_init(&fx, 64);
	seed_hostile(&fx);
	t = render(&fx, FMT_TEXT, &len);
	assert_ascii(t, len);
	n = text_rows(t, rows, 64);
	ck_assert_int_eq(n, NHOSTILE);
	for (i = 0; i < n; i++) {
		ck_assert_int_eq(rows[i].pid, 1000 + i);
		ck_assert_int_eq(rows[i].peak, NHOSTILE + 10 - i);
		ck_assert_msg(comm_is(&rows[i], hostile[i].text), "row %d: comm \"%.*s\", want \"%s\"",
			      i, (int)rows[i].comm_len, rows[i].comm, hostile[i].text);
	}
	free(t);
	stats_free(&fx.r.st);
}
END_TEST

START_TEST(test_hostile_json)
{
	static struct fixture fx;
	const struct jv *tasks;
	struct jv root;
	char *t;
	size_t len;
	int i;

	fx_init(&fx, 64);
	seed_hostile(&fx);
	t = render(&fx, FMT_JSON, &len);
	parse_or_fail(t, len, &root);
	tasks = jreq(&root, "tasks", J_ARR);
	ck_assert_uint_eq(tasks->n, NHOSTILE);
	for (i = 0; i < NHOSTILE; i++) {
		const struct jv *c = jreq(&tasks->kids[i], "comm", J_STR);

		ck_assert_int_eq(jint(&tasks->kids[i], "pid"), 1000 + i);
		ck_assert_msg(c->slen == strlen(hostile[i].json) &&
			      !memcmp(c->s, hostile[i].json, c->slen), "task %d: comm differs", i);
	}
	jv_free(&root);
	free(t);
	stats_free(&fx.r.st);
}
END_TEST

/* A 16-byte name is cut to 15 bytes, here in the middle of a character. */
START_TEST(test_long_name_cut)
{
	static struct fixture fx;
	static const char name[] = "a\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e\xe6\x97\xa5\xe6\x9c\xac";
	struct trow rows[4];
	struct jv root;
	const struct jv *c;
	char *t;
	size_t len;

	ck_assert_uint_eq(sizeof(name) - 1, 16);
	fx_init(&fx, 16);
	stats_seed_task(&fx.r.st, 42, 42, 1, name, 16, 1, 5, false);
	t = render(&fx, FMT_TEXT, &len);
	assert_ascii(t, len);
	ck_assert_int_eq(text_rows(t, rows, 4), 1);
	ck_assert(comm_is(&rows[0], "a\\xe6\\x97\\xa5\\xe6\\x9c\\xac\\xe8\\xaa\\x9e\\xe6\\x97\\xa5"
			  "\\xe6\\x9c"));
	free(t);
	t = render(&fx, FMT_JSON, &len);
	parse_or_fail(t, len, &root);
	c = jreq(&jreq(&root, "tasks", J_ARR)->kids[0], "comm", J_STR);
	ck_assert_str_eq(c->s, "a\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e\xe6\x97\xa5\xef\xbf\xbd"
			 "\xef\xbf\xbd");
	jv_free(&root);
	free(t);
	stats_free(&fx.r.st);
}
END_TEST

/* Ties: by tid; unknown comm; pseudo and exited states. */
START_TEST(test_sort_states)
{
	static struct fixture fx;
	struct trow rows[16];
	struct mt_event ex = { .kind = EV_EXIT, .ts = 50 };
	const struct jv *tasks;
	struct jv root;
	char *t;
	size_t len;

	fx_init(&fx, 32);
	stats_seed_task(&fx.r.st, 500, 500, 1, "five", 4, 7, 5, false);
	stats_seed_task(&fx.r.st, 400, 400, 1, "four", 4, 7, 5, false);
	/* 777 first seen by an allocation: comm unknown; 4 pages */
	apply_page(&fx.r.st, EV_PAGE_ALLOC, 777, 0, 2, 10, 0);
	/* irq context: 2 pages to the <irq> pseudo task */
	apply_page(&fx.r.st, EV_PAGE_ALLOC, 888, 100, 1, 20, MT_FLAG_HARDIRQ);
	/* 9 pages, then exits */
	stats_seed_task(&fx.r.st, 900, 900, 1, "gone", 4, 9, 5, false);
	ex.u.exit.pid = 900;
	ex.u.exit.group_dead = 1;
	stats_apply(&fx.r.st, &ex);

	t = render(&fx, FMT_TEXT, &len);
	assert_ascii(t, len);
	ck_assert_int_eq(text_rows(t, rows, 16), 5);
	ck_assert_int_eq(rows[0].pid, 900);
	ck_assert_str_eq(rows[0].state, "exited");
	ck_assert_int_eq(rows[1].pid, 400);	/* 7 pages, lower tid first */
	ck_assert_int_eq(rows[2].pid, 500);
	ck_assert_int_eq(rows[3].pid, 777);
	ck_assert_int_eq(rows[3].peak, 4);
	ck_assert(comm_is(&rows[3], "?"));
	ck_assert_int_eq(rows[4].pid, -1);
	ck_assert_int_eq(rows[4].peak, 2);
	ck_assert_str_eq(rows[4].state, "pseudo");
	ck_assert(comm_is(&rows[4], "<irq>"));
	ck_assert_ptr_nonnull(strstr(t, "irq-context pages: 2"));
	free(t);

	t = render(&fx, FMT_JSON, &len);
	parse_or_fail(t, len, &root);
	tasks = jreq(&root, "tasks", J_ARR);
	ck_assert_uint_eq(tasks->n, 5);
	ck_assert_str_eq(jstr(&tasks->kids[0], "state"), "exited");
	ck_assert_str_eq(jstr(&tasks->kids[3], "comm"), "");
	ck_assert_str_eq(jstr(&tasks->kids[4], "state"), "pseudo");
	ck_assert_str_eq(jstr(&tasks->kids[4], "comm"), "<irq>");
	ck_assert_int_eq(jint(&tasks->kids[4], "pid"), -1);
	ck_assert_int_eq(jint(jreq(&root, "events", J_OBJ), "processed"), 3);
	jv_free(&root);
	free(t);
	stats_free(&fx.r.st);
}
END_TEST

START_TEST(test_top)
{
	static struct fixture fx;
	struct trow rows[16];
	struct jv root;
	char *t;
	size_t len;
	int i;
	static const uint32_t tops[] = { 0, 1, 3, 5, 6, 100 };
	static const int want[] = { 5, 1, 3, 5, 5, 5 };

	fx_init(&fx, 32);
	for (i = 0; i < 5; i++)
		stats_seed_task(&fx.r.st, 10 + i, 10 + i, 1, "t", 1, (uint64_t)(i + 1) * 3, 5, false);
	for (i = 0; i < 6; i++) {
		fx.r.opt_set.rows = tops[i];
		t = render(&fx, FMT_TEXT, &len);
		ck_assert_int_eq(text_rows(t, rows, 16), want[i]);
		ck_assert_int_eq(rows[0].pid, 14);		/* 15 pages */
		ck_assert_int_eq(rows[want[i] - 1].peak, (5 - want[i] + 1) * 3);
		{
			char line[64];

			snprintf(line, sizeof(line), "\nTASKS: %d of 5 with pages", want[i]);
			ck_assert_ptr_nonnull(strstr(t, line));
		}
		free(t);
		t = render(&fx, FMT_JSON, &len);
		parse_or_fail(t, len, &root);
		ck_assert_uint_eq(jreq(&root, "tasks", J_ARR)->n, (size_t)want[i]);
		ck_assert_int_eq(jint(&root, "tasks_with_pages"), 5);
		ck_assert_int_eq(jint(&jreq(&root, "tasks", J_ARR)->kids[0], "peak_pages"), 15);
		jv_free(&root);
		free(t);
	}
	stats_free(&fx.r.st);
}
END_TEST

START_TEST(test_kib_page_size)
{
	static struct fixture fx;
	struct trow rows[4];
	struct jv root;
	char *t;
	size_t len;

	fx_init(&fx, 16);
	stats_seed_task(&fx.r.st, 10, 10, 1, "t", 1, 3, 5, false);
	fx.r.meta.page_size = 16384;
	t = render(&fx, FMT_TEXT, &len);
	ck_assert_int_eq(text_rows(t, rows, 4), 1);
	ck_assert_uint_eq(rows[0].kib, 48);
	ck_assert_ptr_nonnull(strstr(t, "(page = 16384 bytes)"));
	free(t);
	t = render(&fx, FMT_JSON, &len);
	parse_or_fail(t, len, &root);
	ck_assert_int_eq(jint(&jreq(&root, "tasks", J_ARR)->kids[0], "peak_kib"), 48);
	ck_assert_int_eq(jint(&root, "page_size"), 16384);
	jv_free(&root);
	free(t);
	/* 512-byte pages: 3 pages are 1.5 KiB, rounded down */
	fx.r.meta.page_size = 512;
	t = render(&fx, FMT_TEXT, &len);
	ck_assert_int_eq(text_rows(t, rows, 4), 1);
	ck_assert_uint_eq(rows[0].kib, 1);
	free(t);
	/* pages whose KiB pass 64 bits (a recording's absurd seeds): the most, not wrapped */
	ck_assert_uint_eq(kib(&fx.r, 3), 1);
	fx.r.meta.page_size = 1 << 20;
	ck_assert_uint_eq(kib(&fx.r, 1ll << 53), 1ull << 63);
	ck_assert_uint_eq(kib(&fx.r, 17592186044416000ll), 17592186044416000ull * 1024);
	ck_assert_uint_eq(kib(&fx.r, 1ll << 62), UINT64_MAX);
	ck_assert_uint_eq(kib(&fx.r, -5), 0);
	stats_free(&fx.r.st);
}
END_TEST

static struct mt_module *add_mod(struct stats *st, const char *name, int64_t peak, int64_t cur,
				 bool known, uint64_t skib, uint8_t state)
{
	struct mt_module *m = &st->tb.mods[st->tb.nmods];

	memset(m, 0, sizeof(*m));
	snprintf(m->name, sizeof(m->name), "%s", name);
	m->serial = ++st->tb.nmods;
	/* without --stacks a module's pages are its bracket's: both figures alike */
	m->peak = m->all_peak = peak;
	m->cur = m->all_cur = cur;
	m->static_known = known;
	m->static_kib = skib;
	m->state = state;
	m->loader_tid = 77;
	m->bracket = BR_SYSCALL;
	return m;
}

START_TEST(test_modules)
{
	static struct fixture fx;
	const struct jv *mods, *m;
	struct jv root;
	char *t, *p;
	size_t len;

	fx_init(&fx, 16);
	add_mod(&fx.r.st, "virtio_pci", 6, 2, true, 40, MOD_LIVE);
	add_mod(&fx.r.st, "crc32_pclmul", 3, 0, false, 0, MOD_UNLOADED);
	add_mod(&fx.r.st, "bad\nname\x1b\xff", 1, 1, false, 0, MOD_LOADING);
	add_mod(&fx.r.st, "", 0, 0, true, 0, MOD_FAILED);

	t = render(&fx, FMT_TEXT, &len);
	assert_ascii(t, len);
	ck_assert_ptr_nonnull(strstr(t, "\nMODULES: 4 of 4, by peak\n"));
	p = strstr(t, "\nvirtio_pci ");
	ck_assert_ptr_nonnull(p);
	{
		char name[64], skib[16], state[16], br[16];
		long long peak, cur;
		unsigned long long kib;
		int loader;

		ck_assert_int_eq(sscanf(p + 1, "%63s %lld %llu %lld %15s %d %15s %15s", name, &peak,
					&kib, &cur, skib, &loader, state, br), 8);
		ck_assert_int_eq(peak, 6);
		ck_assert_uint_eq(kib, 24);
		ck_assert_int_eq(cur, 2);
		ck_assert_str_eq(skib, "40");
		ck_assert_int_eq(loader, 77);
		ck_assert_str_eq(state, "live");
		ck_assert_str_eq(br, "syscall");
		p = strstr(t, "\ncrc32_pclmul ");
		ck_assert_ptr_nonnull(p);
		ck_assert_int_eq(sscanf(p + 1, "%63s %lld %llu %lld %15s %d %15s", name, &peak,
					&kib, &cur, skib, &loader, state), 7);
		ck_assert_str_eq(skib, "-");
		ck_assert_str_eq(state, "unloaded");
	}
	ck_assert_ptr_nonnull(strstr(t, "\nbad?name??"));
	ck_assert_ptr_nonnull(strstr(t, "\n(unnamed) "));
	free(t);

	t = render(&fx, FMT_JSON, &len);
	parse_or_fail(t, len, &root);
	mods = jreq(&root, "modules", J_ARR);
	ck_assert_uint_eq(mods->n, 4);
	m = &mods->kids[0];
	ck_assert_str_eq(jstr(m, "name"), "virtio_pci");
	ck_assert_int_eq(jint(m, "peak_pages"), 6);
	ck_assert_int_eq(jint(m, "peak_kib"), 24);
	ck_assert_int_eq(jint(m, "current_pages"), 2);
	ck_assert_int_eq(jint(m, "static_kib"), 40);
	ck_assert_str_eq(jstr(m, "state"), "live");
	m = &mods->kids[1];
	jreq(m, "static_kib", J_NULL);
	ck_assert_str_eq(jstr(m, "state"), "unloaded");
	m = &mods->kids[2];
	ck_assert_str_eq(jstr(m, "name"), "bad\nname\x1b\xef\xbf\xbd");
	jreq(m, "static_kib", J_NULL);
	ck_assert_str_eq(jstr(m, "state"), "loading");
	m = &mods->kids[3];
	ck_assert_str_eq(jstr(m, "name"), "");
	ck_assert_int_eq(jint(m, "static_kib"), 0);
	ck_assert_str_eq(jstr(m, "state"), "failed");
	jv_free(&root);
	free(t);
	/* -n limits the module rows too: the largest peak, and how many there are */
	fx.r.opt_set.rows = 1;
	t = render(&fx, FMT_JSON, &len);
	parse_or_fail(t, len, &root);
	ck_assert_uint_eq(jreq(&root, "modules", J_ARR)->n, 1);
	ck_assert_str_eq(jstr(&jreq(&root, "modules", J_ARR)->kids[0], "name"), "virtio_pci");
	ck_assert_int_eq(jint(&root, "modules_total"), 4);
	jv_free(&root);
	free(t);
	stats_free(&fx.r.st);
}
END_TEST

START_TEST(test_oom_section)
{
	static struct fixture fx;
	struct mt_event ev = { .kind = EV_OOM_VICTIM, .ts = 3500000000ull };
	static const char victim[] = "vic\ntim\x1b[2J\xff";
	const struct jv *oom;
	struct jv root;
	char *t;
	size_t len;

	fx_init(&fx, 16);
	stats_seed_task(&fx.r.st, 10, 10, 1, "t", 1, 3, 5, false);
	t = render(&fx, FMT_TEXT, &len);
	ck_assert_ptr_null(strstr(t, "oom kills"));
	free(t);
	t = render(&fx, FMT_JSON, &len);
	parse_or_fail(t, len, &root);
	jreq(&root, "oom", J_NULL);
	jv_free(&root);
	free(t);

	ev.u.oom.pid = 4321;
	ev.u.oom.comm.s = victim;
	ev.u.oom.comm.len = sizeof(victim) - 1;
	stats_apply(&fx.r.st, &ev);
	t = render(&fx, FMT_TEXT, &len);
	assert_ascii(t, len);
	ck_assert_ptr_nonnull(strstr(t, "\noom kills seen: 1, last victim pid 4321 "
				     "(vic\\x0atim\\x1b[2J\\xff)\n"));
	free(t);
	t = render(&fx, FMT_JSON, &len);
	parse_or_fail(t, len, &root);
	oom = jreq(&root, "oom", J_OBJ);
	ck_assert_int_eq(jint(oom, "count"), 1);
	ck_assert_int_eq(jint(oom, "victim_pid"), 4321);
	ck_assert_str_eq(jstr(oom, "victim_comm"), "vic\ntim\x1b[2J\xef\xbf\xbd");
	ck_assert_str_eq(jreq(oom, "time_s", J_NUM)->s, "3.500000");
	jv_free(&root);
	free(t);
	stats_free(&fx.r.st);
}
END_TEST

START_TEST(test_lost_events)
{
	static struct fixture fx;
	struct jv root;
	char *t;
	size_t len;

	fx_init(&fx, 16);
	fx.cpu0.stats_lost = 12345678901234ull;
	t = render(&fx, FMT_TEXT, &len);
	ck_assert_ptr_nonnull(strstr(t, "\nlost events: 12345678901234 -- peaks may be "
				     "underestimated\n"));
	free(t);
	t = render(&fx, FMT_JSON, &len);
	parse_or_fail(t, len, &root);
	ck_assert_str_eq(jreq(&root, "lost_events", J_NUM)->s, "12345678901234");
	ck_assert_int_eq(jint(&root, "lost_unknown_subbuffers"), 0);
	jv_free(&root);
	free(t);
	fx.cpu0.stats_lost = UINT64_MAX;
	fx.cpu0.missed_unknown = 3;
	t = render(&fx, FMT_TEXT, &len);
	ck_assert_ptr_nonnull(strstr(t, "\nlost events: 18446744073709551615 (at least; 3 "
				     "sub-buffers flagged lost without a count)"));
	free(t);
	t = render(&fx, FMT_JSON, &len);
	parse_or_fail(t, len, &root);
	ck_assert_str_eq(jreq(&root, "lost_events", J_NUM)->s, "18446744073709551615");
	ck_assert_int_eq(jint(&root, "lost_unknown_subbuffers"), 3);
	jv_free(&root);
	free(t);
	stats_free(&fx.r.st);
}
END_TEST

/*
 * The boot buffer's loss: what a larger trace_buf_size= needs is the events lost
 * times what an event took there (its bytes over its records), in KiB rounded up.
 */
START_TEST(test_boot_lost_hint)
{
	static struct fixture fx;
	struct boot_buffer *b = &fx.r.meta.boot;
	char *t, want[256];
	size_t len;

	fx_init(&fx, 16);
	fx.r.rd.layout.data_off = 16;
	fx.r.rd.layout.data_size = 4080;		/* 4096-byte sub-buffers */
	fx.r.meta.boot_used = true;
	b->page_events = 30000;
	b->pages = 1024;
	b->records = 40000;			/* 4,194,304 bytes: 104 an event */
	b->lost = 20000;			/* 2,080,000 bytes: 2031.25 KiB */
	t = render(&fx, FMT_TEXT, &len);
	snprintf(want, sizeof(want), "\nthe boot buffer lost 20000 events, its oldest "
		 "(overwritten): a trace_buf_size= about %d KiB larger keeps them (%d bytes an "
		 "event there)\n", (20000 * 104 + 1023) / 1024, 4194304 / 40000);
	ck_assert_msg(strstr(t, want), "no \"%s\" in:\n%s", want, t);
	ck_assert_ptr_nonnull(strstr(t, "about 2032 KiB larger"));
	free(t);
	/* a count not known: at least that */
	b->lost_unknown = 2;
	t = render(&fx, FMT_TEXT, &len);
	ck_assert_ptr_nonnull(strstr(t, "\nthe boot buffer lost 20000 (at least) events, its "
				     "oldest (overwritten): a trace_buf_size= at least about 2032 "
				     "KiB larger keeps them"));
	free(t);
	/* no count at all, or a product past 64 bits: no figure */
	b->lost = 0;
	t = render(&fx, FMT_TEXT, &len);
	ck_assert_ptr_nonnull(strstr(t, "\nthe boot buffer lost 0 (at least) events, its oldest "
				     "(overwritten): a larger trace_buf_size= keeps them\n"));
	free(t);
	b->lost = UINT64_MAX;
	t = render(&fx, FMT_TEXT, &len);
	ck_assert_ptr_nonnull(strstr(t, "events, its oldest (overwritten): a larger "
				     "trace_buf_size= keeps them\n"));
	free(t);
	stats_free(&fx.r.st);
}
END_TEST

/* The reader's counts of what it skipped or merged out of order, in both formats. */
START_TEST(test_reader_counts)
{
	static struct fixture fx;
	const struct jv *ev;
	struct jv root;
	char *t;
	size_t len;

	fx_init(&fx, 16);
	t = render(&fx, FMT_TEXT, &len);
	ck_assert_ptr_null(strstr(t, "records skipped"));
	ck_assert_ptr_null(strstr(t, "out of time order"));
	free(t);
	t = render(&fx, FMT_JSON, &len);
	parse_or_fail(t, len, &root);
	ev = jreq(&root, "events", J_OBJ);
	ck_assert_int_eq(jint(ev, "out_of_order"), 0);
	ck_assert_int_eq(jint(ev, "unknown_ids"), 0);
	jv_free(&root);
	free(t);

	fx.r.rd.unknown_ids = 5;
	fx.r.rd.bad_records = 6;
	fx.r.rd.out_of_order = 7;
	t = render(&fx, FMT_TEXT, &len);
	ck_assert_ptr_nonnull(strstr(t, "\nrecords skipped: 5 unknown ids, 6 malformed, 0 with "
				     "an absurd order;"));
	ck_assert_ptr_nonnull(strstr(t, "\nevents out of time order: 7 (applied as they "
				     "came"));
	free(t);
	t = render(&fx, FMT_JSON, &len);
	parse_or_fail(t, len, &root);
	ev = jreq(&root, "events", J_OBJ);
	ck_assert_int_eq(jint(ev, "unknown_ids"), 5);
	ck_assert_int_eq(jint(ev, "malformed"), 6);
	ck_assert_int_eq(jint(ev, "out_of_order"), 7);
	jv_free(&root);
	free(t);
	stats_free(&fx.r.st);
}
END_TEST

/* A report far larger than the out buffer, escapes straddling every flush. */
START_TEST(test_big_report)
{
	static struct fixture fx;
	const struct jv *tasks;
	struct trow *rows;
	struct jv root;
	char *t;
	size_t len;
	int i;

	fx_init(&fx, 256);
	for (i = 0; i < 250; i++) {
		const struct hostile *h = &hostile[i % NHOSTILE];

		ck_assert_ptr_nonnull(stats_seed_task(&fx.r.st, 5000 + i, 5000 + i, 1, h->raw, h->len,
						      (uint64_t)(1000 - i), 5, false));
	}
	t = render(&fx, FMT_JSON, &len);
	ck_assert_uint_gt(len, 2 * OUT_BUF_SIZE);
	parse_or_fail(t, len, &root);
	tasks = jreq(&root, "tasks", J_ARR);
	ck_assert_uint_eq(tasks->n, 250);
	for (i = 0; i < 250; i++) {
		const struct jv *c = jreq(&tasks->kids[i], "comm", J_STR);
		const char *want = hostile[i % NHOSTILE].json;

		ck_assert_int_eq(jint(&tasks->kids[i], "pid"), 5000 + i);
		ck_assert(c->slen == strlen(want) && !memcmp(c->s, want, c->slen));
	}
	jv_free(&root);
	free(t);
	t = render(&fx, FMT_TEXT, &len);
	ck_assert_uint_gt(len, OUT_BUF_SIZE);
	assert_ascii(t, len);
	rows = calloc(256, sizeof(*rows));
	ck_assert_int_eq(text_rows(t, rows, 256), 250);
	for (i = 0; i < 250; i++)
		ck_assert(comm_is(&rows[i], hostile[i % NHOSTILE].text));
	free(rows);
	free(t);
	stats_free(&fx.r.st);
}
END_TEST

/*
 * --interval -f json: each report is one line (JSON lines), hostile names,
 * tasks, processes and modules included; the same content as the pretty one.
 */
START_TEST(test_json_lines)
{
	static struct fixture fx;
	struct jv root, pretty;
	char *t, *p;
	size_t len, plen;
	int view;

	fx_init(&fx, 64);
	seed_hostile(&fx);
	add_mod(&fx.r.st, "new\nmod", 3, 2, true, 8, MOD_LIVE);
	add_mod(&fx.r.st, "loop", 5, 0, false, 0, MOD_UNLOADED);
	fx.trigger = "interval";
	for (view = 0; view < 2; view++) {
		fx.r.opt_set.by_process = view;
		fx.r.opt_set.json_lines = false;
		p = render(&fx, FMT_JSON, &plen);
		fx.r.opt_set.json_lines = true;
		t = render(&fx, FMT_JSON, &len);
		ck_assert_ptr_nonnull(strchr(p, '\n'));
		ck_assert_ptr_eq(strchr(t, '\n'), t + len - 1);	/* one line, ended */
		parse_or_fail(t, len, &root);
		parse_or_fail(p, plen, &pretty);
		ck_assert_str_eq(jstr(&root, "trigger"), "interval");
		ck_assert_uint_eq(jreq(&root, view ? "processes" : "tasks", J_ARR)->n, NHOSTILE);
		ck_assert_uint_eq(jreq(&root, "modules", J_ARR)->n, 2);
		/* by peak: loop's 5 pages, then new\nmod's 3 */
		ck_assert_str_eq(jstr(&jreq(&root, "modules", J_ARR)->kids[0], "name"), "loop");
		ck_assert_str_eq(jstr(&jreq(&root, "modules", J_ARR)->kids[1], "name"),
				 "new\nmod");
		/* the pretty report is the same text but for the newlines between rows */
		ck_assert_uint_eq(plen - len, (size_t)(NHOSTILE + 2));
		jv_free(&root);
		jv_free(&pretty);
		free(t);
		free(p);
	}
	stats_free(&fx.r.st);
}
END_TEST

/* ---- modules loaded before tracing began ---- */

/* A module as the /proc/modules listing leaves it: state before, no loader. */
static struct mt_module *add_before(struct stats *st, const char *name, bool known, uint64_t skib)
{
	struct mt_module *m = module_present(&st->tb, name, strlen(name));

	ck_assert_ptr_nonnull(m);
	ck_assert_int_eq(m->state, MOD_BEFORE);
	m->static_known = known;
	m->static_kib = skib;
	return m;
}

/* The line of @t that starts with @prefix (after a newline), as a malloc'ed string. */
static char *line_of(const char *t, const char *prefix)
{
	char *want = malloc(strlen(prefix) + 2), *line;
	const char *p, *nl;

	ck_assert_ptr_nonnull(want);
	sprintf(want, "\n%s", prefix);
	p = strstr(t, want);
	free(want);
	ck_assert_msg(p != NULL, "no line starting with \"%s\"", prefix);
	p++;
	nl = strchr(p, '\n');
	ck_assert_ptr_nonnull(nl);
	line = strndup(p, (size_t)(nl - p));
	ck_assert_ptr_nonnull(line);
	return line;
}

START_TEST(test_modules_before_text)
{
	static struct fixture fx;
	static const char note[] = "(2 modules in state before: loaded before tracing began, no "
				   "events seen; static size from the kernel only)\n";
	char *t, *row, *p;
	size_t len;

	fx_init(&fx, 16);
	add_mod(&fx.r.st, "virtio_pci", 6, 2, true, 40, MOD_LIVE);
	add_before(&fx.r.st, "crc32_pclmul", true, 16);
	add_before(&fx.r.st, "virtio_ring", false, 0);
	t = render(&fx, FMT_TEXT, &len);
	assert_ascii(t, len);
	ck_assert_ptr_nonnull(strstr(t, "\nMODULES: 3 of 3, by peak\n"));
	/* NAME(24) PEAK_PAGES PEAK_KIB CUR_PAGES STATIC_KIB(10) LOADER(8) STATE(-8) BRACKET (last, not padded) */
	row = line_of(t, "crc32_pclmul ");
	ck_assert_str_eq(row, "crc32_pclmul                      0          0          0 "
			      "        16        - before   none");
	free(row);
	row = line_of(t, "virtio_ring ");
	ck_assert_str_eq(row, "virtio_ring                       0          0          0 "
			      "         -        - before   none");
	free(row);
	/* the traced one keeps its loader, in the same columns */
	row = line_of(t, "virtio_pci ");
	ck_assert_str_eq(row, "virtio_pci                        6         24          2 "
			      "        40       77 live     syscall");
	free(row);
	/* the note follows the table: it is the last line */
	p = strstr(t, note);
	ck_assert_ptr_nonnull(p);
	ck_assert_ptr_eq(p + strlen(note), t + len);
	ck_assert(!strncmp(p - strlen("before   none\n"), "before   none\n",
			   strlen("before   none\n")));
	free(t);
	stats_free(&fx.r.st);
}
END_TEST

START_TEST(test_modules_before_note_count)
{
	static struct fixture fx;
	char *t;
	size_t len;

	/* no module at all, then only traced ones: no note */
	fx_init(&fx, 16);
	t = render(&fx, FMT_TEXT, &len);
	ck_assert_ptr_null(strstr(t, "state before"));
	free(t);
	add_mod(&fx.r.st, "virtio_pci", 6, 2, true, 40, MOD_LIVE);
	add_mod(&fx.r.st, "crc32_pclmul", 3, 0, false, 0, MOD_UNLOADED);
	t = render(&fx, FMT_TEXT, &len);
	ck_assert_ptr_null(strstr(t, "state before"));
	ck_assert_ptr_null(strstr(t, " before   none"));
	ck_assert(len > 0 && t[len - 1] == '\n');
	ck_assert_ptr_nonnull(strstr(t, "\ncrc32_pclmul "));
	free(t);
	/* one */
	add_before(&fx.r.st, "virtio", true, 20);
	t = render(&fx, FMT_TEXT, &len);
	ck_assert_ptr_nonnull(strstr(t, "\n(1 modules in state before: "));
	free(t);
	/* a before module unloaded since is not counted */
	add_before(&fx.r.st, "gone", true, 8)->state = MOD_UNLOADED;
	add_before(&fx.r.st, "virtio_ring", true, 48);
	add_before(&fx.r.st, "virtio_pci_modern_dev", true, 20);
	t = render(&fx, FMT_TEXT, &len);
	assert_ascii(t, len);
	ck_assert_ptr_nonnull(strstr(t, "\nMODULES: 6 of 6, by peak\n"));
	ck_assert_ptr_nonnull(strstr(t, "\n(3 modules in state before: "));
	free(t);
	stats_free(&fx.r.st);
}
END_TEST

START_TEST(test_modules_before_json)
{
	static struct fixture fx;
	const struct jv *mods, *m;
	struct jv root;
	char *t;
	size_t len;

	fx_init(&fx, 16);
	add_mod(&fx.r.st, "virtio_pci", 6, 2, true, 40, MOD_LIVE);
	add_before(&fx.r.st, "crc32_pclmul", true, 16);
	add_before(&fx.r.st, "virtio_ring", false, 0);
	/* a name from a hand-edited record: raw bytes, kept valid */
	add_before(&fx.r.st, "bad\"\\\x1b\xff", false, 0);
	t = render(&fx, FMT_JSON, &len);
	parse_or_fail(t, len, &root);
	mods = jreq(&root, "modules", J_ARR);
	ck_assert_uint_eq(mods->n, 4);
	m = &mods->kids[0];
	ck_assert_str_eq(jstr(m, "state"), "live");
	ck_assert_int_eq(jint(m, "loader_pid"), 77);
	m = &mods->kids[1];
	ck_assert_str_eq(jstr(m, "name"), "crc32_pclmul");
	ck_assert_str_eq(jstr(m, "state"), "before");
	jreq(m, "loader_pid", J_NULL);
	ck_assert_str_eq(jstr(m, "bracket"), "none");
	ck_assert_int_eq(jint(m, "static_kib"), 16);
	ck_assert_int_eq(jint(m, "peak_pages"), 0);
	ck_assert_int_eq(jint(m, "peak_kib"), 0);
	ck_assert_int_eq(jint(m, "current_pages"), 0);
	ck_assert_int_eq(jint(m, "allocated_pages"), 0);
	m = &mods->kids[2];
	ck_assert_str_eq(jstr(m, "name"), "virtio_ring");
	ck_assert_str_eq(jstr(m, "state"), "before");
	jreq(m, "loader_pid", J_NULL);
	jreq(m, "static_kib", J_NULL);
	m = &mods->kids[3];
	ck_assert_str_eq(jstr(m, "name"), "bad\"\\\x1b\xef\xbf\xbd");
	ck_assert_str_eq(jstr(m, "state"), "before");
	jreq(m, "loader_pid", J_NULL);
	jv_free(&root);
	free(t);
	/* and the text form of that name stays on its row */
	t = render(&fx, FMT_TEXT, &len);
	assert_ascii(t, len);
	ck_assert_ptr_nonnull(strstr(t, "\nbad\"\\??                           0 "));
	ck_assert_ptr_nonnull(strstr(t, "\n(3 modules in state before: "));
	free(t);
	stats_free(&fx.r.st);
}
END_TEST

/* ---- the /dev/kmsg summary ---- */

struct lines {
	int n;
	char *l[64];
};

static void collect_line(void *ctx, const char *line)
{
	struct lines *ls = ctx;
	size_t i;

	ck_assert_ptr_nonnull(line);
	ck_assert_int_lt(ls->n, 64);
	/* one line: plain printable ASCII, no newline */
	for (i = 0; line[i]; i++)
		ck_assert_msg(line[i] >= 0x20 && line[i] < 0x7f, "byte 0x%02x at %zu of \"%s\"",
			      (unsigned char)line[i], i, line);
	ls->l[ls->n] = strdup(line);
	ck_assert_ptr_nonnull(ls->l[ls->n]);
	ls->n++;
}

static void lines_free(struct lines *ls)
{
	int i;

	for (i = 0; i < ls->n; i++)
		free(ls->l[i]);
	ls->n = 0;
}

static void summary(struct fixture *fx, unsigned ntop, struct lines *ls)
{
	lines_free(ls);
	report_summary(&fx->r, &fx->r.rs, fx->trigger, "/var/log/memtrace.log", ntop, collect_line, ls);
}

/* Two tasks with pages (peaks 50 and 18, 2 events), one without; four modules. */
static void summary_fixture(struct fixture *fx)
{
	fx_init(fx, 32);
	stats_seed_task(&fx->r.st, 100, 100, 1, "big", 3, 50, 10, false);
	stats_seed_task(&fx->r.st, 200, 200, 100, "small", 5, 10, 10, false);
	stats_seed_task(&fx->r.st, 300, 300, 1, "empty", 5, 0, 10, false);
	apply_page(&fx->r.st, EV_PAGE_ALLOC, 200, 64, 3, 1000000000, 0);
	apply_page(&fx->r.st, EV_PAGE_FREE, 200, 64, 3, 2000000000, 0);
	fx->cpu0.stats_lost = 7;
	add_before(&fx->r.st, "virtio", true, 20);
	add_mod(&fx->r.st, "virtio_pci", 6, 2, true, 40, MOD_LIVE);
	add_before(&fx->r.st, "virtio_ring", true, 48);
	add_mod(&fx->r.st, "crc32_pclmul", 3, 0, false, 0, MOD_UNLOADED);
}

#define HEAD	"memtrace: report (SIGUSR1): 2 events, 7 lost, 2 tasks with pages, 4 modules; " \
		"full report in /var/log/memtrace.log"
/* big's peak is its seed; small's is its seed of 10 and the 8 pages it took at 1 s */
#define TASK1	"memtrace: top task: pid 100 (big) peak 50 pages (200 KiB), 50 of them seeded " \
		"at start"
#define TASK2	"memtrace: top task: pid 200 (small) peak 18 pages (72 KiB), 10 of them seeded " \
		"at start"
#define MOD1	"memtrace: top module: virtio_pci peak 6 pages (24 KiB), static 40 KiB, live"
#define MOD2	"memtrace: top module: crc32_pclmul peak 3 pages (12 KiB), unloaded"
#define MOD3	"memtrace: top module: virtio_ring peak 0 pages (0 KiB), static 48 KiB, before"
#define MOD4	"memtrace: top module: virtio peak 0 pages (0 KiB), static 20 KiB, before"

START_TEST(test_summary_lines)
{
	static struct fixture fx;
	struct lines ls = { 0 };

	summary_fixture(&fx);
	summary(&fx, 5, &ls);
	ck_assert_int_eq(ls.n, 8);
	ck_assert_str_eq(ls.l[0], HEAD);
	ck_assert_str_eq(ls.l[1], TASK1);
	ck_assert_str_eq(ls.l[2], TASK2);
	ck_assert_str_eq(ls.l[3], MOD1);
	ck_assert_str_eq(ls.l[4], MOD2);
	ck_assert_str_eq(ls.l[5], MOD3);
	ck_assert_str_eq(ls.l[6], MOD4);
	/* last: pid 200's 8 pages (order 3) at 1 s, freed at 2 s, were all there was */
	ck_assert_str_eq(ls.l[7], "memtrace: system peak: 8 pages (32 KiB) above the start, "
			 "at 1.000 s");
	/* the table is not reordered by the summary */
	ck_assert_str_eq(fx.r.st.tb.mods[0].name, "virtio");
	ck_assert_str_eq(fx.r.st.tb.mods[3].name, "crc32_pclmul");
	/* 16 KiB pages */
	fx.r.meta.page_size = 16384;
	summary(&fx, 1, &ls);
	ck_assert_int_eq(ls.n, 5);
	ck_assert_str_eq(ls.l[1], "memtrace: top task: pid 100 (big) peak 50 pages (800 KiB), 50 "
			 "of them seeded at start");
	ck_assert_str_eq(ls.l[2], "memtrace: top module: virtio_pci peak 6 pages (96 KiB), "
			 "static 40 KiB, live");
	lines_free(&ls);
	stats_free(&fx.r.st);
}
END_TEST

/*
 * The memory at start, where known, just before the system peak (which stays last):
 * in a capture that reboots, the kernel log keeps the summary, not the full report.
 */
START_TEST(test_summary_mem_start)
{
	static struct fixture fx;
	struct lines ls = { 0 };

	summary_fixture(&fx);
	fx.r.meta.mem_start.total_kib = 2013264;
	fx.r.meta.mem_start.free_kib = 1800000;
	fx.r.meta.mem_start.avail_kib = 1900000;
	summary(&fx, 5, &ls);
	ck_assert_int_eq(ls.n, 9);
	ck_assert_str_eq(ls.l[7], "memtrace: memory at start: MemTotal 2013264 kB, MemFree "
			 "1800000 kB, MemAvailable 1900000 kB (/proc/meminfo before memtrace's "
			 "ring buffers and tables)");
	ck_assert_str_eq(ls.l[8], "memtrace: system peak: 8 pages (32 KiB) above the start, "
			 "at 1.000 s");
	/* a kernel without MemAvailable: the two it has */
	fx.r.meta.mem_start.avail_kib = 0;
	summary(&fx, 5, &ls);
	ck_assert_str_eq(ls.l[7], "memtrace: memory at start: MemTotal 2013264 kB, MemFree "
			 "1800000 kB (/proc/meminfo before memtrace's ring buffers and tables)");
	lines_free(&ls);
	stats_free(&fx.r.st);
}
END_TEST

START_TEST(test_summary_limits)
{
	static struct fixture fx;
	struct lines ls = { 0 };

	summary_fixture(&fx);
	summary(&fx, 0, &ls);
	ck_assert_int_eq(ls.n, 3);
	ck_assert_str_eq(ls.l[0], HEAD);
	ck_assert_str_eq(ls.l[1], "memtrace: 4 more modules in the full report");
	summary(&fx, 1, &ls);
	ck_assert_int_eq(ls.n, 5);
	ck_assert_str_eq(ls.l[0], HEAD);
	ck_assert_str_eq(ls.l[1], TASK1);
	ck_assert_str_eq(ls.l[2], MOD1);
	ck_assert_str_eq(ls.l[3], "memtrace: 3 more modules in the full report");
	summary(&fx, 2, &ls);
	ck_assert_int_eq(ls.n, 7);
	ck_assert_str_eq(ls.l[2], TASK2);
	ck_assert_str_eq(ls.l[3], MOD1);
	ck_assert_str_eq(ls.l[4], MOD2);
	ck_assert_str_eq(ls.l[5], "memtrace: 2 more modules in the full report");
	summary(&fx, 3, &ls);
	ck_assert_int_eq(ls.n, 8);
	ck_assert_str_eq(ls.l[5], MOD3);
	ck_assert_str_eq(ls.l[6], "memtrace: 1 more modules in the full report");
	/* exactly as many modules as shown, and far more room than rows: no "more" line */
	summary(&fx, 4, &ls);
	ck_assert_int_eq(ls.n, 8);
	ck_assert_str_eq(ls.l[6], MOD4);
	summary(&fx, 1000, &ls);
	ck_assert_int_eq(ls.n, 8);
	ck_assert_str_eq(ls.l[1], TASK1);
	ck_assert_str_eq(ls.l[2], TASK2);
	ck_assert_str_eq(ls.l[3], MOD1);
	ck_assert_str_eq(ls.l[6], MOD4);
	lines_free(&ls);
	stats_free(&fx.r.st);
}
END_TEST

START_TEST(test_summary_empty)
{
	static struct fixture fx;
	struct lines ls = { 0 };

	/* nothing at all: the totals line only */
	fx_init(&fx, 16);
	fx.trigger = "SIGTERM";
	summary(&fx, 5, &ls);
	ck_assert_int_eq(ls.n, 2);
	ck_assert_str_eq(ls.l[0], "memtrace: report (SIGTERM): 0 events, 0 lost, 0 tasks with "
			 "pages, 0 modules; full report in /var/log/memtrace.log");
	summary(&fx, 0, &ls);
	ck_assert_int_eq(ls.n, 2);
	/* tasks but no modules: no module lines, no "more" line */
	stats_seed_task(&fx.r.st, 10, 10, 1, "t", 1, 3, 5, false);
	summary(&fx, 5, &ls);
	ck_assert_int_eq(ls.n, 3);
	ck_assert_str_eq(ls.l[1], "memtrace: top task: pid 10 (t) peak 3 pages (12 KiB), 3 of them "
			 "seeded at start");
	lines_free(&ls);
	stats_free(&fx.r.st);
}
END_TEST

/* By peak, then static size (unknown counts as none), then table order. */
START_TEST(test_summary_module_order)
{
	static struct fixture fx;
	struct lines ls = { 0 };

	fx_init(&fx, 16);
	add_mod(&fx.r.st, "a", 5, 0, true, 10, MOD_LIVE);
	add_mod(&fx.r.st, "b", 9, 0, false, 0, MOD_LIVE);
	add_mod(&fx.r.st, "c", 5, 0, true, 30, MOD_LIVE);
	add_mod(&fx.r.st, "d", 5, 0, true, 10, MOD_FAILED);
	add_mod(&fx.r.st, "e", 9, 0, true, 1, MOD_LOADING);
	add_before(&fx.r.st, "f", false, 0);
	add_before(&fx.r.st, "g", true, 2);
	add_mod(&fx.r.st, "h", 5, 0, true, 10, MOD_UNLOADED);
	summary(&fx, 8, &ls);
	ck_assert_int_eq(ls.n, 10);
	ck_assert_str_eq(ls.l[0], "memtrace: report (SIGUSR1): 0 events, 0 lost, 0 tasks with "
			 "pages, 8 modules; full report in /var/log/memtrace.log");
	ck_assert_str_eq(ls.l[1], "memtrace: top module: e peak 9 pages (36 KiB), static 1 KiB, "
			 "loading");
	ck_assert_str_eq(ls.l[2], "memtrace: top module: b peak 9 pages (36 KiB), live");
	ck_assert_str_eq(ls.l[3], "memtrace: top module: c peak 5 pages (20 KiB), static 30 KiB, "
			 "live");
	ck_assert_str_eq(ls.l[4], "memtrace: top module: a peak 5 pages (20 KiB), static 10 KiB, "
			 "live");
	ck_assert_str_eq(ls.l[5], "memtrace: top module: d peak 5 pages (20 KiB), static 10 KiB, "
			 "failed");
	ck_assert_str_eq(ls.l[6], "memtrace: top module: h peak 5 pages (20 KiB), static 10 KiB, "
			 "unloaded");
	ck_assert_str_eq(ls.l[7], "memtrace: top module: g peak 0 pages (0 KiB), static 2 KiB, "
			 "before");
	ck_assert_str_eq(ls.l[8], "memtrace: top module: f peak 0 pages (0 KiB), before");
	/* the first three only */
	summary(&fx, 3, &ls);
	ck_assert_int_eq(ls.n, 6);
	ck_assert_str_eq(ls.l[1], "memtrace: top module: e peak 9 pages (36 KiB), static 1 KiB, "
			 "loading");
	ck_assert_str_eq(ls.l[3], "memtrace: top module: c peak 5 pages (20 KiB), static 30 KiB, "
			 "live");
	ck_assert_str_eq(ls.l[4], "memtrace: 5 more modules in the full report");
	lines_free(&ls);
	stats_free(&fx.r.st);
}
END_TEST

/* All modules alike: table order, each shown once. */
START_TEST(test_summary_module_ties)
{
	static struct fixture fx;
	struct lines ls = { 0 };
	static const char *const names[] = { "m0", "m1", "m2", "m3", "m4", "m5" };
	int i;

	fx_init(&fx, 16);
	for (i = 0; i < 6; i++)
		add_mod(&fx.r.st, names[i], 2, 1, true, 4, MOD_LIVE);
	summary(&fx, 6, &ls);
	ck_assert_int_eq(ls.n, 8);
	for (i = 0; i < 6; i++) {
		char want[128];

		snprintf(want, sizeof(want), "memtrace: top module: m%d peak 2 pages (8 KiB), "
			 "static 4 KiB, live", i);
		ck_assert_str_eq(ls.l[1 + i], want);
	}
	summary(&fx, 4, &ls);
	ck_assert_int_eq(ls.n, 7);
	ck_assert_str_eq(ls.l[4], "memtrace: top module: m3 peak 2 pages (8 KiB), static 4 KiB, live");
	ck_assert_str_eq(ls.l[5], "memtrace: 2 more modules in the full report");
	lines_free(&ls);
	stats_free(&fx.r.st);
}
END_TEST

/* Task lines: peak order, ties by pid, at most ntop, unknown and pseudo names. */
START_TEST(test_summary_tasks)
{
	static struct fixture fx;
	struct lines ls = { 0 };

	fx_init(&fx, 32);
	stats_seed_task(&fx.r.st, 500, 500, 1, "five", 4, 7, 5, false);
	stats_seed_task(&fx.r.st, 400, 400, 1, "four", 4, 7, 5, false);
	apply_page(&fx.r.st, EV_PAGE_ALLOC, 777, 0, 2, 10, 0);			/* comm unknown */
	apply_page(&fx.r.st, EV_PAGE_ALLOC, 888, 100, 1, 20, MT_FLAG_HARDIRQ);	/* <irq> */
	stats_seed_task(&fx.r.st, 900, 900, 1, "nine", 4, 9, 5, false);
	summary(&fx, 10, &ls);
	ck_assert_int_eq(ls.n, 7);
	ck_assert_str_eq(ls.l[0], "memtrace: report (SIGUSR1): 2 events, 0 lost, 5 tasks with "
			 "pages, 0 modules; full report in /var/log/memtrace.log");
	/* the seeded ones: their peak is their seed; 777 and <irq> took theirs while traced */
	ck_assert_str_eq(ls.l[1], "memtrace: top task: pid 900 (nine) peak 9 pages (36 KiB), 9 of "
			 "them seeded at start");
	ck_assert_str_eq(ls.l[2], "memtrace: top task: pid 400 (four) peak 7 pages (28 KiB), 7 of "
			 "them seeded at start");
	ck_assert_str_eq(ls.l[3], "memtrace: top task: pid 500 (five) peak 7 pages (28 KiB), 7 of "
			 "them seeded at start");
	ck_assert_str_eq(ls.l[4], "memtrace: top task: pid 777 (?) peak 4 pages (16 KiB)");
	ck_assert_str_eq(ls.l[5], "memtrace: top task: pid -1 (<irq>) peak 2 pages (8 KiB)");
	summary(&fx, 2, &ls);
	ck_assert_int_eq(ls.n, 4);
	ck_assert_str_eq(ls.l[2], "memtrace: top task: pid 400 (four) peak 7 pages (28 KiB), 7 of "
			 "them seeded at start");
	lines_free(&ls);
	stats_free(&fx.r.st);
}
END_TEST

/* Hostile task names: every byte outside printable ASCII comes out as '?'. */
START_TEST(test_summary_hostile)
{
	static const char *const plain[] = {
		"new?line",
		"?[2J?]0;x?",
		"say \"hi\"",
		"back\\slash",
		"tab?here",
		"del?",
		"ff?",
		"trunc??",
		"over??",
		"sur???",
		"c1??",
		"caf??",
		"??????",
		"abcdefghijklmno",
		"???????????????",
		"   ",
		"a  b",
		"???",
	};
	static struct fixture fx;
	struct lines ls = { 0 };
	char want[128];
	int i;

	ck_assert_int_eq((int)(sizeof(plain) / sizeof(plain[0])), NHOSTILE);
	fx_init(&fx, 64);
	seed_hostile(&fx);
	add_mod(&fx.r.st, "bad\nname\x1b\xff", 1, 1, false, 0, MOD_LOADING);
	add_mod(&fx.r.st, "", 2, 0, true, 3, MOD_FAILED);
	summary(&fx, (unsigned)NHOSTILE, &ls);
	ck_assert_int_eq(ls.n, 1 + NHOSTILE + 3);
	for (i = 0; i < NHOSTILE; i++) {
		/* each seeded with its peak (seed_hostile) */
		snprintf(want, sizeof(want), "memtrace: top task: pid %d (%s) peak %d pages (%d KiB), "
			 "%d of them seeded at start", 1000 + i, plain[i], NHOSTILE + 10 - i,
			 4 * (NHOSTILE + 10 - i), NHOSTILE + 10 - i);
		ck_assert_str_eq(ls.l[1 + i], want);
	}
	ck_assert_str_eq(ls.l[1 + NHOSTILE], "memtrace: top module: (unnamed) peak 2 pages (8 KiB), "
			 "static 3 KiB, failed");
	ck_assert_str_eq(ls.l[2 + NHOSTILE], "memtrace: top module: bad?name?? peak 1 pages (4 KiB), "
			 "loading");
	lines_free(&ls);
	stats_free(&fx.r.st);
}
END_TEST

START_TEST(test_summary_lost)
{
	static struct fixture fx;
	struct lines ls = { 0 };

	fx_init(&fx, 16);
	fx.trigger = "oom";
	fx.cpu0.missed_unknown = 3;
	summary(&fx, 5, &ls);
	ck_assert_int_eq(ls.n, 2);
	ck_assert_str_eq(ls.l[0], "memtrace: report (oom): 0 events, 3 lost (at least), 0 tasks "
			 "with pages, 0 modules; full report in /var/log/memtrace.log");
	fx.cpu0.stats_lost = UINT64_MAX;
	summary(&fx, 5, &ls);
	ck_assert_str_eq(ls.l[0], "memtrace: report (oom): 0 events, 18446744073709551615 lost "
			 "(at least), 0 tasks with pages, 0 modules; full report in "
			 "/var/log/memtrace.log");
	fx.cpu0.missed_unknown = 0;
	fx.cpu0.stats_lost = 12;
	summary(&fx, 5, &ls);
	ck_assert_str_eq(ls.l[0], "memtrace: report (oom): 0 events, 12 lost, 0 tasks with pages, "
			 "0 modules; full report in /var/log/memtrace.log");
	ck_assert_ptr_null(strstr(ls.l[0], "at least"));
	lines_free(&ls);
	stats_free(&fx.r.st);
}
END_TEST

START_TEST(test_state_names)
{
	struct mt_task t = { 0 };
	struct mt_module m = { 0 };

	t.state = TASK_ALIVE;
	ck_assert_str_eq(task_state_name(&t), "alive");
	t.state = TASK_EXITED;
	ck_assert_str_eq(task_state_name(&t), "exited");
	t.flags = TF_PSEUDO;
	ck_assert_str_eq(task_state_name(&t), "pseudo");
	m.state = MOD_LOADING;
	ck_assert_str_eq(module_state_name(&m), "loading");
	m.state = MOD_LIVE;
	ck_assert_str_eq(module_state_name(&m), "live");
	m.state = MOD_FAILED;
	ck_assert_str_eq(module_state_name(&m), "failed");
	m.state = MOD_UNLOADED;
	ck_assert_str_eq(module_state_name(&m), "unloaded");
	m.state = MOD_BEFORE;
	ck_assert_str_eq(module_state_name(&m), "before");
	m.state = MOD_UNUSED;
	ck_assert_str_eq(module_state_name(&m), "unknown");
}
END_TEST

/* ---- modules found at report time without an entry: state untraced ---- */

static void set_untraced(struct mt_module *x, const char *name, uint64_t skib)
{
	memset(x, 0, sizeof(*x));
	snprintf(x->name, sizeof(x->name), "%s", name);
	x->state = MOD_UNTRACED;
	x->static_kib = skib;
	x->static_known = 1;
}

START_TEST(test_modules_untraced_text)
{
	static struct fixture fx;
	static const char note[] = "(1 modules in state untraced: loaded while tracing but no "
				   "event seen (lost, or after tracing stopped); static size only)\n"
				   "(3 more modules in /proc/modules not listed: module table full)\n";
	struct mt_module extra[1];
	char *t, *row, *p;
	size_t len;

	fx_init(&fx, 16);
	add_mod(&fx.r.st, "virtio_pci", 6, 2, true, 40, MOD_LIVE);
	set_untraced(&extra[0], "late_mod", 12);
	fx.r.meta.extra = extra;
	fx.r.meta.nextra = 1;
	fx.r.meta.extra_dropped = 3;
	t = render(&fx, FMT_TEXT, &len);
	assert_ascii(t, len);
	/* the table and the extra list together */
	ck_assert_ptr_nonnull(strstr(t, "\nMODULES: 2 of 2, by peak\n"));
	row = line_of(t, "late_mod ");
	ck_assert_str_eq(row, "late_mod                          0          0          0 "
			      "        12        - untraced none");
	free(row);
	/* the traced row comes first, the notes last */
	ck_assert(strstr(t, "\nvirtio_pci ") < strstr(t, "\nlate_mod "));
	p = strstr(t, note);
	ck_assert_ptr_nonnull(p);
	ck_assert_ptr_eq(p + strlen(note), t + len);
	free(t);
	stats_free(&fx.r.st);
}
END_TEST

START_TEST(test_modules_untraced_json)
{
	static struct fixture fx;
	const struct jv *mods, *m;
	struct mt_module extra[2];
	struct jv root;
	char *t;
	size_t len;

	fx_init(&fx, 16);
	add_mod(&fx.r.st, "virtio_pci", 6, 2, true, 40, MOD_LIVE);
	set_untraced(&extra[0], "late_mod", 12);
	set_untraced(&extra[1], "esc\x1bname", 4);
	fx.r.meta.extra = extra;
	fx.r.meta.nextra = 2;
	fx.r.meta.extra_dropped = 5;
	t = render(&fx, FMT_JSON, &len);
	parse_or_fail(t, len, &root);
	mods = jreq(&root, "modules", J_ARR);
	ck_assert_uint_eq(mods->n, 3);
	m = &mods->kids[1];
	ck_assert_str_eq(jstr(m, "name"), "late_mod");
	ck_assert_str_eq(jstr(m, "state"), "untraced");
	jreq(m, "loader_pid", J_NULL);
	ck_assert_int_eq(jint(m, "static_kib"), 12);
	ck_assert_int_eq(jint(m, "peak_pages"), 0);
	ck_assert_str_eq(jstr(&mods->kids[2], "name"), "esc\x1bname");
	ck_assert_int_eq(jint(&root, "modules_not_listed"), 5);
	jv_free(&root);
	free(t);
	/* and with no extras: an empty count, still valid */
	fx.r.meta.nextra = 0;
	fx.r.meta.extra_dropped = 0;
	t = render(&fx, FMT_JSON, &len);
	parse_or_fail(t, len, &root);
	ck_assert_int_eq(jint(&root, "modules_not_listed"), 0);
	ck_assert_uint_eq(jreq(&root, "modules", J_ARR)->n, 1);
	jv_free(&root);
	free(t);
	stats_free(&fx.r.st);
}
END_TEST

/*
 * Modules by peak, as tasks are: the zram recording listed eight modules
 * without pages above zsmalloc's 1,068 (table order). Ties: the larger static
 * size, then the table's order; the untraced (report-time list) sort with them.
 * -n cuts the rows, and the header says how many of how many.
 */
static void modules_by_peak_fixture(struct fixture *fx, struct mt_module *extra)
{
	fx_init(fx, 16);
	add_before(&fx->r.st, "m_a", true, 20);
	add_mod(&fx->r.st, "m_b", 3, 1, true, 10, MOD_LIVE);
	add_before(&fx->r.st, "m_c", true, 48);
	add_mod(&fx->r.st, "m_d", 9, 9, true, 5, MOD_LIVE);
	add_mod(&fx->r.st, "m_e", 3, 0, true, 30, MOD_UNLOADED);
	set_untraced(&extra[0], "m_late", 60);
	fx->r.meta.extra = extra;
	fx->r.meta.nextra = 1;
}

/* The names of the text report's module rows, in their order, space-separated. */
static void module_names(const char *t, char *buf, size_t size)
{
	const char *p = strstr(t, "\nMODULES: ");
	size_t n = 0;

	ck_assert_ptr_nonnull(p);
	p = strchr(p + 1, '\n') + 1;		/* the column names */
	ck_assert(!strncmp(p, "NAME ", 5));
	buf[0] = '\0';
	for (p = strchr(p, '\n') + 1; *p && *p != '\n' && *p != '('; p = strchr(p, '\n') + 1) {
		size_t len = strcspn(p, " ");

		ck_assert_uint_lt(n + len + 2, size);
		n += (size_t)snprintf(buf + n, size - n, "%s%.*s", n ? " " : "", (int)len, p);
	}
}

START_TEST(test_modules_by_peak)
{
	static struct fixture fx;
	struct mt_module extra[1];
	const struct jv *mods;
	struct jv root;
	char *t, names[256];
	size_t len;
	int i;
	static const char *const order[] = { "m_d", "m_e", "m_b", "m_late", "m_c", "m_a" };

	modules_by_peak_fixture(&fx, extra);
	fx.r.opt_set.rows = 0;
	t = render(&fx, FMT_TEXT, &len);
	assert_ascii(t, len);
	/* 9 pages; 3 and 3 (static 30 before 10); none: static 60, 48, 20 */
	ck_assert_ptr_nonnull(strstr(t, "\nMODULES: 6 of 6, by peak\n"));
	module_names(t, names, sizeof(names));
	ck_assert_str_eq(names, "m_d m_e m_b m_late m_c m_a");
	ck_assert_ptr_nonnull(strstr(t, "\n(2 modules in state before: "));
	ck_assert_ptr_nonnull(strstr(t, "\n(1 modules in state untraced: "));
	free(t);
	t = render(&fx, FMT_JSON, &len);
	parse_or_fail(t, len, &root);
	ck_assert_int_eq(jint(&root, "modules_total"), 6);
	mods = jreq(&root, "modules", J_ARR);
	ck_assert_uint_eq(mods->n, 6);
	for (i = 0; i < 6; i++)
		ck_assert_str_eq(jstr(&mods->kids[i], "name"), order[i]);
	jv_free(&root);
	free(t);

	/* -n 4: the first four; the notes count the rows listed */
	fx.r.opt_set.rows = 4;
	t = render(&fx, FMT_TEXT, &len);
	assert_ascii(t, len);
	ck_assert_ptr_nonnull(strstr(t, "\nMODULES: 4 of 6, by peak\n"));
	module_names(t, names, sizeof(names));
	ck_assert_str_eq(names, "m_d m_e m_b m_late");
	ck_assert_ptr_null(strstr(t, "state before"));
	ck_assert_ptr_nonnull(strstr(t, "\n(1 modules in state untraced: "));
	free(t);
	t = render(&fx, FMT_JSON, &len);
	parse_or_fail(t, len, &root);
	ck_assert_int_eq(jint(&root, "modules_total"), 6);
	mods = jreq(&root, "modules", J_ARR);
	ck_assert_uint_eq(mods->n, 4);
	for (i = 0; i < 4; i++)
		ck_assert_str_eq(jstr(&mods->kids[i], "name"), order[i]);
	jv_free(&root);
	free(t);
	/* the table itself is not reordered */
	ck_assert_str_eq(fx.r.st.tb.mods[0].name, "m_a");
	stats_free(&fx.r.st);
}
END_TEST

/* The console summary: the report's order, the untraced included; what -n leaves out. */
START_TEST(test_summary_modules_n)
{
	static struct fixture fx;
	struct mt_module extra[1];
	struct lines ls = { 0 };

	modules_by_peak_fixture(&fx, extra);
	fx.r.opt_set.rows = 0;
	summary(&fx, 4, &ls);
	ck_assert_int_eq(ls.n, 7);
	ck_assert_str_eq(ls.l[0], "memtrace: report (SIGUSR1): 0 events, 0 lost, 0 tasks with "
			 "pages, 6 modules; full report in /var/log/memtrace.log");
	ck_assert_str_eq(ls.l[1], "memtrace: top module: m_d peak 9 pages (36 KiB), static 5 KiB, "
			 "live");
	ck_assert_str_eq(ls.l[4], "memtrace: top module: m_late peak 0 pages (0 KiB), static "
			 "60 KiB, untraced");
	ck_assert_str_eq(ls.l[5], "memtrace: 2 more modules in the full report");
	/* -n 4: the full report lists four of the six */
	fx.r.opt_set.rows = 4;
	summary(&fx, 2, &ls);
	ck_assert_int_eq(ls.n, 5);
	ck_assert_str_eq(ls.l[2], "memtrace: top module: m_e peak 3 pages (12 KiB), static 30 KiB, "
			 "unloaded");
	ck_assert_str_eq(ls.l[3], "memtrace: 2 more modules in the full report, 2 not listed "
			 "there (-n 4)");
	summary(&fx, 5, &ls);
	ck_assert_int_eq(ls.n, 7);
	ck_assert_str_eq(ls.l[5], "memtrace: 2 more modules, not listed in the full report (-n 4)");
	lines_free(&ls);
	stats_free(&fx.r.st);
}
END_TEST

/* ---- command mode: report_command() ---- */

#define SEC	1000000000ull
#define PROC_FLAGS	0x1200000ull

static void ev_newtask(struct stats *st, uint64_t ts, int32_t parent, int32_t pid, uint64_t flags,
		       const char *comm)
{
	struct mt_event ev = { .kind = EV_NEWTASK, .ts = ts, .tid = parent };

	ev.u.newtask.pid = pid;
	ev.u.newtask.clone_flags = flags;
	ev.u.newtask.comm.s = comm;
	ev.u.newtask.comm.len = strlen(comm);
	stats_apply(st, &ev);
}

static void ev_exit(struct stats *st, uint64_t ts, int32_t pid, int group_dead)
{
	struct mt_event ev = { .kind = EV_EXIT, .ts = ts, .tid = pid };

	ev.u.exit.pid = pid;
	ev.u.exit.group_dead = group_dead;
	stats_apply(st, &ev);
}

static char *render_cmd(struct fixture *fx, enum report_format fmt, const struct cmd_info *c,
			size_t *len)
{
	fx->r.opt_set.format = fmt;
	fx->r.cmd = *c;
	report_command(test_out_begin(), &fx->r, &fx->r.rs);
	return test_out_end(len);
}

#define ARG(s)	((char *)(s))

static char *const make_argv[] = { ARG("make"), ARG("-j4"), ARG("CFLAGS=-O2 -g"), NULL };

/*
 * The command (1000, "make", started at 1 s) holds 4 pages; its child 2000
 * "cc1" (with thread 2001) reaches 8 + 2: the tree peaks at 14 at 1.5 s. Then
 * 3000 "ld" holds 6 (tree 10). An outsider (5000, 50 pages) and an irq page are
 * not the tree's. The command exits at 3 s unless @root_alive.
 */
static void cmd_fixture(struct fixture *fx, struct cmd_info *c, bool root_alive)
{
	struct stats *st = &fx->r.st;

	fx_init(fx, 64);
	stats_tree_root(st, 1000, 1);	/* created by pid 1, at its newtask below */
	ev_newtask(st, 1 * SEC, 1, 1000, PROC_FLAGS, "make");
	apply_page(st, EV_PAGE_ALLOC, 1000, 0, 2, 1100000000, 0);
	ev_newtask(st, 1200000000, 1000, 2000, PROC_FLAGS, "cc1");
	ev_newtask(st, 1300000000, 2000, 2001, MT_CLONE_THREAD, "cc1");
	apply_page(st, EV_PAGE_ALLOC, 2000, 64, 3, 1400000000, 0);
	apply_page(st, EV_PAGE_ALLOC, 2001, 80, 1, 1500000000, 0);
	apply_page(st, EV_PAGE_FREE, 2001, 80, 1, 1600000000, 0);
	apply_page(st, EV_PAGE_FREE, 2000, 64, 3, 1700000000, 0);
	ev_exit(st, 1800000000, 2001, 0);
	ev_exit(st, 1900000000, 2000, 1);
	ev_newtask(st, 2 * SEC, 1000, 3000, PROC_FLAGS, "ld");
	apply_page(st, EV_PAGE_ALLOC, 3000, 128, 1, 2100000000, 0);
	apply_page(st, EV_PAGE_ALLOC, 3000, 132, 2, 2200000000, 0);
	apply_page(st, EV_PAGE_FREE, 3000, 128, 1, 2400000000, 0);
	apply_page(st, EV_PAGE_FREE, 3000, 132, 2, 2400000000, 0);
	ev_exit(st, 2500000000, 3000, 1);
	ev_newtask(st, 2600000000, 1, 5000, PROC_FLAGS, "other");
	apply_page(st, EV_PAGE_ALLOC, 5000, 256, 5, 2700000000, 0);
	apply_page(st, EV_PAGE_ALLOC, 5000, 288, 4, 2800000000, 0);
	apply_page(st, EV_PAGE_ALLOC, 5000, 304, 1, 2900000000, 0);
	apply_page(st, EV_PAGE_ALLOC, 1000, 512, 0, 2950000000, MT_FLAG_HARDIRQ);
	if (!root_alive)
		ev_exit(st, 3 * SEC, 1000, 1);
	ck_assert_int_eq(st->tree_peak, 14);

	memset(c, 0, sizeof(*c));
	c->argv = make_argv;
	c->status = 3 << 8;
	c->reaped = true;
	c->wall_s = 2.5;
	c->user_s = 1.25;
	c->sys_s = 0.125;
	c->max_rss_kib = 12345;
	c->start_ts = 1 * SEC;
	c->waited = true;
}

#define CMD_HEAD	"memtrace " MEMTRACE_VERSION " command report\n"
#define CMD_PROC_HDR	"     PID     PPID THREADS PEAK_PAGES   PEAK_KIB LIFETIME_S STATE    COMM\n"
#define CMD_ROW_2000	"    2000     1000       2         10         40      0.700 exited   cc1\n"
#define CMD_ROW_3000	"    3000     1000       1          6         24      0.500 exited   ld\n"
#define CMD_ROW_1000	"    1000        1       1          4         16      2.000 exited   make\n"

START_TEST(test_command_text)
{
	static struct fixture fx;
	struct cmd_info c;
	static const char want[] =
		CMD_HEAD
		"command: make -j4 'CFLAGS=-O2 -g'\n"
		"kernel: 6.1.0-56-amd64, host build, tracing began 2026-11-27 01:03:40 UTC\n"
		"exit status: 3\n"
		"wall 2.500 s, user 1.250 s, sys 0.125 s\n"
		"tree peak: 14 pages (56 KiB) at 0.500 s; processes with pages then: 2\n"
		"largest process peak: 10 pages (40 KiB), pid 2000 (cc1)\n"
		"processes: 3, threads: 4; largest ru_maxrss: 12345 KiB (time(1)'s maximum "
		"resident set size)\n"
		"lost events: 0\n"
		/* make 4 + other 32+16+2 + irq 1 at 2.95 s (cc1 and ld freed theirs) */
		"machine-wide system peak: 55 pages (220 KiB) above the start, at 2.950000 s; "
		"then: pid 5000 (other) 50, pid 1000 (make) 4, pid -1 (<irq>) 1\n"
		"\nAT THE PEAK: processes with pages then: 2\n"
		"     PID      PAGES  COMM\n"
		"    2000         10  cc1\n"
		"    1000          4  make\n"
		"\nPROCESSES: 3 of 3 with pages, by peak, threads summed (page = 4096 bytes)\n"
		CMD_PROC_HDR CMD_ROW_2000 CMD_ROW_3000 CMD_ROW_1000;
	char *t;
	size_t len;

	cmd_fixture(&fx, &c, false);
	strcpy(fx.r.meta.kernel, "6.1.0-56-amd64");
	strcpy(fx.r.meta.host, "build");
	fx.r.meta.started_at = 1795741420;	/* date -u -d @1795741420 */
	t = render_cmd(&fx, FMT_TEXT, &c, &len);
	assert_ascii(t, len);
	ck_assert_str_eq(t, want);
	free(t);
	stats_free(&fx.r.st);
}
END_TEST

START_TEST(test_command_json)
{
	static struct fixture fx;
	const struct jv *a, *p;
	struct cmd_info c;
	struct jv root;
	char *t;
	size_t len, i;

	cmd_fixture(&fx, &c, false);
	t = render_cmd(&fx, FMT_JSON, &c, &len);
	ck_assert(len > 0 && t[len - 1] == '\n');
	parse_or_fail(t, len, &root);
	a = jreq(&root, "command", J_ARR);
	ck_assert_uint_eq(a->n, 3);
	for (i = 0; i < 3; i++) {
		ck_assert_int_eq(a->kids[i].type, J_STR);
		ck_assert_str_eq(a->kids[i].s, make_argv[i]);
	}
	ck_assert_int_eq(jint(&root, "exit_status"), 3);
	jreq(&root, "signal", J_NULL);
	jreq(&root, "exec_failed", J_FALSE);
	ck_assert_str_eq(jreq(&root, "wall_s", J_NUM)->s, "2.500");
	ck_assert_str_eq(jreq(&root, "user_s", J_NUM)->s, "1.250");
	ck_assert_str_eq(jreq(&root, "sys_s", J_NUM)->s, "0.125");
	ck_assert_int_eq(jint(&root, "tree_peak_pages"), 14);
	ck_assert_int_eq(jint(&root, "tree_peak_kib"), 56);
	ck_assert_str_eq(jreq(&root, "tree_peak_time_s", J_NUM)->s, "0.500000");
	/* largest first */
	a = jreq(&root, "alive_at_peak", J_ARR);
	ck_assert_uint_eq(a->n, 2);
	ck_assert_int_eq(jint(&a->kids[0], "pid"), 2000);
	ck_assert_str_eq(jstr(&a->kids[0], "comm"), "cc1");
	ck_assert_int_eq(jint(&a->kids[0], "pages"), 10);
	ck_assert_int_eq(jint(&a->kids[1], "pid"), 1000);
	ck_assert_str_eq(jstr(&a->kids[1], "comm"), "make");
	ck_assert_int_eq(jint(&a->kids[1], "pages"), 4);
	ck_assert_int_eq(jint(&root, "processes_at_peak"), 2);
	ck_assert_int_eq(jint(&root, "oom_kills"), 0);
	ck_assert_int_eq(jint(&root, "task_overflow_events"), 0);
	ck_assert_int_eq(jint(&root, "max_process_peak_pages"), 10);
	ck_assert_int_eq(jint(&root, "max_process_peak_pid"), 2000);
	ck_assert_int_eq(jint(&root, "process_count"), 3);
	/* every task of the tree: make 1, cc1 2 (leader and 2001), ld 1 */
	ck_assert_int_eq(jint(&root, "thread_count"), 4);
	ck_assert_int_eq(jint(&root, "max_rss_kib"), 12345);
	ck_assert_int_eq(jint(&root, "lost_events"), 0);
	jreq(&root, "waited", J_TRUE);
	ck_assert_int_eq(jint(&root, "still_running"), 0);
	ck_assert_int_eq(jint(&root, "page_size"), 4096);
	ck_assert_int_eq(jint(&root, "processes_with_pages"), 3);
	a = jreq(&root, "processes", J_ARR);
	ck_assert_uint_eq(a->n, 3);
	p = &a->kids[0];
	ck_assert_int_eq(jint(p, "pid"), 2000);
	ck_assert_int_eq(jint(p, "ppid"), 1000);
	ck_assert_str_eq(jstr(p, "comm"), "cc1");
	ck_assert_int_eq(jint(p, "threads"), 2);
	ck_assert_int_eq(jint(p, "peak_pages"), 10);
	ck_assert_int_eq(jint(p, "peak_kib"), 40);
	ck_assert_str_eq(jreq(p, "lifetime_s", J_NUM)->s, "0.700000");
	ck_assert_str_eq(jstr(p, "state"), "exited");
	p = &a->kids[1];
	ck_assert_int_eq(jint(p, "pid"), 3000);
	ck_assert_int_eq(jint(p, "ppid"), 1000);
	ck_assert_str_eq(jstr(p, "comm"), "ld");
	ck_assert_int_eq(jint(p, "threads"), 1);
	ck_assert_int_eq(jint(p, "peak_pages"), 6);
	ck_assert_int_eq(jint(p, "peak_kib"), 24);
	ck_assert_str_eq(jreq(p, "lifetime_s", J_NUM)->s, "0.500000");
	p = &a->kids[2];
	ck_assert_int_eq(jint(p, "pid"), 1000);
	ck_assert_int_eq(jint(p, "ppid"), 1);
	ck_assert_str_eq(jstr(p, "comm"), "make");
	ck_assert_int_eq(jint(p, "threads"), 1);
	ck_assert_int_eq(jint(p, "peak_pages"), 4);
	ck_assert_str_eq(jreq(p, "lifetime_s", J_NUM)->s, "2.000000");
	ck_assert_str_eq(jstr(p, "state"), "exited");
	jv_free(&root);
	free(t);
	stats_free(&fx.r.st);
}
END_TEST

/*
 * A full task table: the processes at the tree's peak stay listed however many
 * others come and go afterwards (they used to be recycled), tree children
 * without a slot count in <tree-overflow>, and the at-peak rows add up to the
 * tree peak.
 */
START_TEST(test_command_at_peak_full_table)
{
	static struct fixture fx;
	struct stats *st = &fx.r.st;
	struct cmd_info c = { .argv = make_argv, .reaped = true, .waited = true };
	const struct jv *a;
	struct jv root;
	uint64_t ts = 2 * SEC, pfn = 0;
	int64_t sum = 0;
	char *t;
	size_t len, i;
	int k;

	fx_init(&fx, SLOT_FIRST + 8);
	stats_tree_root(st, 1000, 1);
	ev_newtask(st, 1 * SEC, 1, 1000, PROC_FLAGS, "make");
	/* memtrace and make hold 2 slots; 10 compilers at once: 4 have none */
	for (k = 0; k < 10; k++) {
		ev_newtask(st, ts++, 1000, 2000 + k, PROC_FLAGS, "cc1");
		apply_page(st, EV_PAGE_ALLOC, 2000 + k, pfn, 2, ts++, 0);
		pfn += 4;
	}
	ck_assert_int_eq(st->tree_peak, 40);
	ck_assert_uint_eq(st->c.tree_overflow_tasks, 4);
	for (k = 0; k < 10; k++) {
		apply_page(st, EV_PAGE_FREE, 2000 + k, (uint64_t)k * 4, 2, ts++, 0);
		ev_exit(st, ts++, 2000 + k, 1);
	}
	/* then a hundred short processes elsewhere want slots */
	for (k = 0; k < 100; k++) {
		apply_page(st, EV_PAGE_ALLOC, 5000 + k, 1000, 0, ts++, 0);
		apply_page(st, EV_PAGE_FREE, 5000 + k, 1000, 0, ts++, 0);
		ev_exit(st, ts++, 5000 + k, 1);
	}
	ck_assert_int_eq(st->tree_cur, 0);
	fx.r.opt_set.rows = 0;
	t = render_cmd(&fx, FMT_JSON, &c, &len);
	parse_or_fail(t, len, &root);
	ck_assert_int_eq(jint(&root, "tree_peak_pages"), 40);
	a = jreq(&root, "alive_at_peak", J_ARR);
	for (i = 0; i < a->n; i++)
		sum += jint(&a->kids[i], "pages");
	ck_assert_int_eq(sum, 40);
	ck_assert_int_eq(jint(&root, "processes_at_peak"), (int64_t)a->n);
	ck_assert_int_eq(jint(&root, "tree_overflow_tasks"), 4);
	ck_assert_int_eq(jint(&root, "tree_overflow_pages"), 16);
	jv_free(&root);
	free(t);
	t = render_cmd(&fx, FMT_TEXT, &c, &len);
	ck_assert_ptr_nonnull(strstr(t, "4 tasks of the tree found no slot: their 16 pages "
				     "count in <tree-overflow>"));
	free(t);
	stats_free(st);
}
END_TEST

/* How it ended: a signal (named or not), not reaped. */
START_TEST(test_command_signal)
{
	static const struct { int sig; const char *line; } sigs[] = {
		{ 9, "\nexit status: killed by signal 9 (SIGKILL)\n" },
		{ 11, "\nexit status: killed by signal 11 (SIGSEGV)\n" },
		{ 15, "\nexit status: killed by signal 15 (SIGTERM)\n" },
		{ 6, "\nexit status: killed by signal 6 (SIGABRT)\n" },
	};
	static struct fixture fx;
	struct cmd_info c;
	struct jv root;
	char *t;
	size_t len, i;

	cmd_fixture(&fx, &c, false);
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		c.status = sigs[i].sig;		/* a wait status: killed by that signal */
		t = render_cmd(&fx, FMT_TEXT, &c, &len);
		ck_assert_msg(strstr(t, sigs[i].line) != NULL, "no \"%s\" in:\n%s", sigs[i].line + 1,
			      t);
		ck_assert_ptr_null(strstr(t, "exit status: 0"));
		free(t);
		t = render_cmd(&fx, FMT_JSON, &c, &len);
		parse_or_fail(t, len, &root);
		jreq(&root, "exit_status", J_NULL);
		ck_assert_int_eq(jint(&root, "signal"), sigs[i].sig);
		jreq(&root, "exec_failed", J_FALSE);
		jv_free(&root);
		free(t);
	}
	/* exit status 0 is a status, not "unknown" */
	c.status = 0;
	t = render_cmd(&fx, FMT_TEXT, &c, &len);
	ck_assert_ptr_nonnull(strstr(t, "\nexit status: 0\n"));
	free(t);
	t = render_cmd(&fx, FMT_JSON, &c, &len);
	parse_or_fail(t, len, &root);
	ck_assert_int_eq(jint(&root, "exit_status"), 0);
	jreq(&root, "signal", J_NULL);
	jv_free(&root);
	free(t);
	/* never reaped: unknown, both null */
	c.reaped = false;
	c.status = 9;
	t = render_cmd(&fx, FMT_TEXT, &c, &len);
	ck_assert_ptr_nonnull(strstr(t, "\nexit status: unknown\n"));
	free(t);
	t = render_cmd(&fx, FMT_JSON, &c, &len);
	parse_or_fail(t, len, &root);
	jreq(&root, "exit_status", J_NULL);
	jreq(&root, "signal", J_NULL);
	jv_free(&root);
	free(t);
	stats_free(&fx.r.st);
}
END_TEST

/* Could not be executed: 127, and a tree without pages. */
START_TEST(test_command_exec_failed)
{
	static struct fixture fx;
	static char *const argv[] = { ARG("./no-such-cmd"), NULL };
	static const char want[] =
		CMD_HEAD
		"command: ./no-such-cmd\n"
		"kernel: not known, host not known, tracing began at a time not known\n"
		"exit status: 127 (could not be executed)\n"
		"wall 0.002 s, user 0.000 s, sys 0.001 s\n"
		"tree peak: 0 pages (0 KiB) at 0.000 s; processes with pages then: 0\n"
		"processes: 1, threads: 1; largest ru_maxrss: 900 KiB (time(1)'s maximum "
		"resident set size)\n"
		"lost events: 0\n"
		"machine-wide system peak: 0 pages (0 KiB) above the start, at 0.000000 s\n"
		"\nAT THE PEAK: processes with pages then: 0\n"
		"     PID      PAGES  COMM\n"
		"\nPROCESSES: 0 of 0 with pages, by peak, threads summed (page = 4096 bytes)\n"
		CMD_PROC_HDR;
	struct cmd_info c = { 0 };
	struct jv root;
	char *t;
	size_t len;

	fx_init(&fx, 16);
	stats_tree_root(&fx.r.st, 1000, 1);
	ev_newtask(&fx.r.st, 5 * SEC, 1, 1000, PROC_FLAGS, "memtrace");
	ev_exit(&fx.r.st, 5 * SEC + 1000, 1000, 1);
	c.argv = argv;
	c.exec_failed = true;
	c.reaped = true;
	c.status = 127 << 8;
	c.wall_s = 0.002;
	c.sys_s = 0.001;
	c.max_rss_kib = 900;
	c.start_ts = 5 * SEC;
	c.waited = true;
	t = render_cmd(&fx, FMT_TEXT, &c, &len);
	assert_ascii(t, len);
	ck_assert_str_eq(t, want);
	free(t);
	t = render_cmd(&fx, FMT_JSON, &c, &len);
	parse_or_fail(t, len, &root);
	ck_assert_str_eq(jreq(&root, "command", J_ARR)->kids[0].s, "./no-such-cmd");
	ck_assert_uint_eq(jreq(&root, "command", J_ARR)->n, 1);
	ck_assert_int_eq(jint(&root, "exit_status"), 127);
	jreq(&root, "signal", J_NULL);
	jreq(&root, "exec_failed", J_TRUE);
	ck_assert_int_eq(jint(&root, "tree_peak_pages"), 0);
	ck_assert_int_eq(jint(&root, "tree_peak_kib"), 0);
	ck_assert_str_eq(jreq(&root, "tree_peak_time_s", J_NUM)->s, "0.000000");
	ck_assert_uint_eq(jreq(&root, "alive_at_peak", J_ARR)->n, 0);
	ck_assert_int_eq(jint(&root, "max_process_peak_pages"), 0);
	jreq(&root, "max_process_peak_pid", J_NULL);
	ck_assert_int_eq(jint(&root, "process_count"), 1);
	ck_assert_int_eq(jint(&root, "thread_count"), 1);
	ck_assert_int_eq(jint(&root, "processes_with_pages"), 0);
	ck_assert_uint_eq(jreq(&root, "processes", J_ARR)->n, 0);
	jv_free(&root);
	free(t);
	stats_free(&fx.r.st);
}
END_TEST

/* --no-wait with the command still running, lost events, and -n. */
START_TEST(test_command_nowait_lost_top)
{
	static struct fixture fx;
	static const char row_alive[] =
		"    1000        1       1          4         16      1.950 alive    make\n";
	const struct jv *a;
	struct cmd_info c;
	struct jv root;
	char *t, *p;
	size_t len;

	cmd_fixture(&fx, &c, true);	/* the last event at 2.95 s */
	c.waited = false;
	c.still_running = 2;
	c.reaped = false;
	fx.cpu0.stats_lost = 5;
	/* not waited for without --no-wait: a signal stopped the wait, and the line says so */
	fx.r.stop = STOP_SIGNAL;
	fx.r.stop_signo = SIGTERM;
	t = render_cmd(&fx, FMT_TEXT, &c, &len);
	ck_assert_ptr_null(strstr(t, "--no-wait"));
	ck_assert_ptr_nonnull(strstr(t, "\nmemtrace stopped waiting for the tree (SIGTERM): "
				     "processes of the tree still running then: 2\n"));
	free(t);
	fx.r.opt_set.no_wait = true;
	t = render_cmd(&fx, FMT_TEXT, &c, &len);
	assert_ascii(t, len);
	ck_assert_ptr_nonnull(strstr(t, "\nexit status: unknown\n"));
	ck_assert_ptr_nonnull(strstr(t, "\n--no-wait: processes of the tree still running at "
				     "the end: 2\nlost events: 5 -- peaks may be underestimated\n"));
	ck_assert_ptr_null(strstr(t, "stopped waiting"));
	ck_assert_ptr_null(strstr(t, "out of time order"));
	ck_assert_ptr_nonnull(strstr(t, "\nPROCESSES: 3 of 3 with pages"));
	p = strstr(t, CMD_PROC_HDR);
	ck_assert_ptr_nonnull(p);
	ck_assert_str_eq(p + strlen(CMD_PROC_HDR), CMD_ROW_2000 CMD_ROW_3000 "    1000        1"
			 "       1          4         16      1.950 alive    make\n");
	free(t);
	t = render_cmd(&fx, FMT_JSON, &c, &len);
	parse_or_fail(t, len, &root);
	jreq(&root, "waited", J_FALSE);
	ck_assert_int_eq(jint(&root, "still_running"), 2);
	ck_assert_int_eq(jint(&root, "lost_events"), 5);
	ck_assert_int_eq(jint(&root, "out_of_order"), 0);
	a = jreq(&root, "processes", J_ARR);
	ck_assert_uint_eq(a->n, 3);
	ck_assert_str_eq(jstr(&a->kids[2], "state"), "alive");
	ck_assert_str_eq(jreq(&a->kids[2], "lifetime_s", J_NUM)->s, "1.950000");
	jv_free(&root);
	free(t);

	/* -n 2: the two largest processes; the counts stay whole */
	fx.r.opt_set.rows = 2;
	t = render_cmd(&fx, FMT_TEXT, &c, &len);
	ck_assert_ptr_nonnull(strstr(t, "\nPROCESSES: 2 of 3 with pages, by peak"));
	p = strstr(t, CMD_PROC_HDR);
	ck_assert_ptr_nonnull(p);
	ck_assert_str_eq(p + strlen(CMD_PROC_HDR), CMD_ROW_2000 CMD_ROW_3000);
	ck_assert_ptr_null(strstr(t, row_alive));
	/* -n does not cut the processes at the peak */
	ck_assert_ptr_nonnull(strstr(t, "\nAT THE PEAK: processes with pages then: 2\n"));
	free(t);
	t = render_cmd(&fx, FMT_JSON, &c, &len);
	parse_or_fail(t, len, &root);
	a = jreq(&root, "processes", J_ARR);
	ck_assert_uint_eq(a->n, 2);
	ck_assert_int_eq(jint(&a->kids[0], "pid"), 2000);
	ck_assert_int_eq(jint(&a->kids[1], "pid"), 3000);
	ck_assert_int_eq(jint(&root, "processes_with_pages"), 3);
	ck_assert_uint_eq(jreq(&root, "alive_at_peak", J_ARR)->n, 2);
	ck_assert_int_eq(jint(&root, "max_process_peak_pid"), 2000);
	jv_free(&root);
	free(t);
	fx.r.opt_set.rows = 1;
	t = render_cmd(&fx, FMT_JSON, &c, &len);
	parse_or_fail(t, len, &root);
	ck_assert_uint_eq(jreq(&root, "processes", J_ARR)->n, 1);
	jv_free(&root);
	free(t);

	/* events the reader applied out of time order: a line after the lost events */
	fx.r.rd.out_of_order = 4;
	t = render_cmd(&fx, FMT_TEXT, &c, &len);
	ck_assert_ptr_nonnull(strstr(t, "\nlost events: 5 -- peaks may be underestimated\n"
				     "events out of time order: 4 (applied as they came"));
	free(t);
	t = render_cmd(&fx, FMT_JSON, &c, &len);
	parse_or_fail(t, len, &root);
	ck_assert_int_eq(jint(&root, "out_of_order"), 4);
	jv_free(&root);
	free(t);
	stats_free(&fx.r.st);
}
END_TEST

/* Hostile argv and names: one line per field in text, valid strings in JSON. */
static char *const hostile_argv[] = {
	ARG("printf"), ARG("it's"), ARG("'"), ARG("a\\b"), ARG("two\nlines"), ARG("\x1b[31mred"),
	ARG("\xff\xfe"), ARG(""), ARG("caf\xc3\xa9"), ARG("x\"y $HOME"),
	ARG("ok-word_1.2/3:4=5@6%7+8,9"), ARG("~"), ARG("tab\there"), NULL
};

START_TEST(test_command_hostile)
{
	static struct fixture fx;
	static const char want_cmd[] =
		"\ncommand: printf 'it'\\''s' ''\\''' 'a\\\\b' 'two\\x0alines' '\\x1b[31mred' "
		"'\\xff\\xfe' '' 'caf\\xc3\\xa9' 'x\"y $HOME' ok-word_1.2/3:4=5@6%7+8,9 '~' "
		"'tab\\x09here'\nkernel: not known, host not known, tracing began at a time not "
		"known\nexit status: 0\n";
	static const char *const want_json[] = {
		"printf", "it's", "'", "a\\b", "two\nlines", "\x1b[31mred", "\xef\xbf\xbd\xef\xbf\xbd",
		"", "caf\xc3\xa9", "x\"y $HOME", "ok-word_1.2/3:4=5@6%7+8,9", "~", "tab\there",
	};
	static const char comm[] = "new\nline\x1b\xff\"";
	const struct jv *a;
	struct cmd_info c;
	struct jv root;
	char *t, *p;
	size_t len, i, lines = 0;

	cmd_fixture(&fx, &c, false);
	table_set_comm(stats_find_task(&fx.r.st, 2000), comm, sizeof(comm) - 1);
	c.argv = hostile_argv;
	c.status = 0;
	t = render_cmd(&fx, FMT_TEXT, &c, &len);
	assert_ascii(t, len);
	ck_assert_msg(strstr(t, want_cmd) != NULL, "command line:\n%s", t);
	/* as many lines as with a plain command line and names */
	for (p = t; *p; p++)
		lines += *p == '\n';
	ck_assert_uint_eq(lines, 21);	/* test_command_text's, kernel: line included */
	ck_assert_ptr_nonnull(strstr(t, "), pid 2000 (new\\x0aline\\x1b\\xff\")\n"));
	ck_assert_ptr_nonnull(strstr(t, "\n    2000         10  new\\x0aline\\x1b\\xff\"\n"));
	ck_assert_ptr_nonnull(strstr(t, "exited   new\\x0aline\\x1b\\xff\"\n"));
	free(t);
	t = render_cmd(&fx, FMT_JSON, &c, &len);
	parse_or_fail(t, len, &root);
	a = jreq(&root, "command", J_ARR);
	ck_assert_uint_eq(a->n, sizeof(want_json) / sizeof(want_json[0]));
	for (i = 0; i < a->n; i++) {
		ck_assert_int_eq(a->kids[i].type, J_STR);
		ck_assert_msg(a->kids[i].slen == strlen(want_json[i]) &&
			      !memcmp(a->kids[i].s, want_json[i], a->kids[i].slen),
			      "argv[%zu] differs", i);
	}
	ck_assert_str_eq(jstr(&jreq(&root, "alive_at_peak", J_ARR)->kids[0], "comm"),
			 "new\nline\x1b\xef\xbf\xbd\"");
	ck_assert_str_eq(jstr(&jreq(&root, "processes", J_ARR)->kids[0], "comm"),
			 "new\nline\x1b\xef\xbf\xbd\"");
	jv_free(&root);
	free(t);
	stats_free(&fx.r.st);
}
END_TEST

/* ---- --by process: report_write() with threads summed ---- */

/*
 * 100 "app" (seeded 20) with threads 101 and 102: 101 takes 16 at 2 s, 102 4
 * at 3 s (peak 40), 101 gives its 16 back at 4 s. 200 "db" (30) gets a thread
 * 201 at 5 s that takes 2 (peak 32). 300 "tiny" 1 page, 400 none.
 */
static void process_fixture(struct fixture *fx)
{
	struct stats *st = &fx->r.st;

	fx_init(fx, 64);
	stats_seed_task(st, 100, 100, 1, "app", 3, 20, 10000000, false);
	stats_seed_task(st, 101, 100, 1, "app", 3, 0, 10000000, false);
	stats_seed_task(st, 102, 100, 1, "app-io", 6, 0, 10000000, false);
	stats_seed_task(st, 200, 200, 1, "db", 2, 30, 10000000, false);
	stats_seed_task(st, 300, 300, 1, "tiny", 4, 1, 10000000, false);
	stats_seed_task(st, 400, 400, 1, "none", 4, 0, 10000000, false);
	stats_link_threads(st);
	apply_page(st, EV_PAGE_ALLOC, 101, 0, 4, 2 * SEC, 0);
	apply_page(st, EV_PAGE_ALLOC, 102, 16, 2, 3 * SEC, 0);
	apply_page(st, EV_PAGE_FREE, 101, 0, 4, 4 * SEC, 0);
	ev_newtask(st, 5 * SEC, 200, 201, MT_CLONE_THREAD, "db-worker");
	apply_page(st, EV_PAGE_ALLOC, 201, 32, 1, 5 * SEC, 0);
	fx->r.opt_set.by_process = true;
}

#define PV_HDR	"     PID     PPID THREADS PEAK_PAGES   PEAK_KIB  CUR_PAGES     SEEDED STATE   " \
		"   PEAK_AT_S  COMM\n"
#define PV_100	"     100        1       3         40        160         24         20 alive   " \
		"    3.000000  app\n"
#define PV_200	"     200        1       2         32        128         32         30 alive   " \
		"    5.000000  db\n"
#define PV_300	"     300        1       1          1          4          1          1 alive   " \
		"    0.010000  tiny\n"

START_TEST(test_by_process_text)
{
	static struct fixture fx;
	char *t, *p;
	size_t len;

	process_fixture(&fx);
	t = render(&fx, FMT_TEXT, &len);
	assert_ascii(t, len);
	ck_assert_ptr_null(strstr(t, "\nTASKS: "));
	p = strstr(t, "\nPROCESSES: 3 of 3 with pages, by peak, threads summed (page = 4096 "
		   "bytes)\n");
	ck_assert_ptr_nonnull(p);
	p = strchr(p + 1, '\n') + 1;
	ck_assert_msg(!strncmp(p, PV_HDR PV_100 PV_200 PV_300 "\nMODULES: 0 of 0, by peak\n",
			       strlen(PV_HDR PV_100 PV_200 PV_300 "\nMODULES: 0 of 0, by peak\n")),
		      "process table:\n%s", p);
	free(t);
	/* --top cuts rows, not the count */
	fx.r.opt_set.rows = 2;
	t = render(&fx, FMT_TEXT, &len);
	p = strstr(t, "\nPROCESSES: 2 of 3 with pages");
	ck_assert_ptr_nonnull(p);
	p = strchr(p + 1, '\n') + 1;
	ck_assert(!strncmp(p, PV_HDR PV_100 PV_200 "\nMODULES: 0 of 0, by peak\n",
			   strlen(PV_HDR PV_100 PV_200 "\nMODULES: 0 of 0, by peak\n")));
	free(t);
	/* the task view of the same table: one row per task */
	fx.r.opt_set.rows = 0;
	fx.r.opt_set.by_process = false;
	t = render(&fx, FMT_TEXT, &len);
	ck_assert_ptr_null(strstr(t, "\nPROCESSES: "));
	ck_assert_ptr_nonnull(strstr(t, "\nTASKS: 6 of 6 with pages, by peak"));
	free(t);
	stats_free(&fx.r.st);
}
END_TEST

START_TEST(test_by_process_json)
{
	static struct fixture fx;
	const struct jv *a, *p;
	struct jv root;
	char *t;
	size_t len;

	process_fixture(&fx);
	t = render(&fx, FMT_JSON, &len);
	parse_or_fail(t, len, &root);
	ck_assert_str_eq(jstr(&root, "view"), "process");
	ck_assert_ptr_null(jget(&root, "tasks"));
	ck_assert_ptr_null(jget(&root, "tasks_with_pages"));
	ck_assert_int_eq(jint(&root, "processes_with_pages"), 3);
	jreq(&root, "modules", J_ARR);
	a = jreq(&root, "processes", J_ARR);
	ck_assert_uint_eq(a->n, 3);
	p = &a->kids[0];
	ck_assert_int_eq(jint(p, "pid"), 100);
	ck_assert_int_eq(jint(p, "ppid"), 1);
	ck_assert_str_eq(jstr(p, "comm"), "app");
	ck_assert_int_eq(jint(p, "threads"), 3);
	ck_assert_int_eq(jint(p, "peak_pages"), 40);
	ck_assert_int_eq(jint(p, "peak_kib"), 160);
	ck_assert_str_eq(jreq(p, "peak_time_s", J_NUM)->s, "3.000000");
	ck_assert_int_eq(jint(p, "current_pages"), 24);
	ck_assert_int_eq(jint(p, "seeded_pages"), 20);
	ck_assert_str_eq(jstr(p, "state"), "alive");
	p = &a->kids[1];
	ck_assert_int_eq(jint(p, "pid"), 200);
	ck_assert_str_eq(jstr(p, "comm"), "db");
	ck_assert_int_eq(jint(p, "threads"), 2);
	ck_assert_int_eq(jint(p, "peak_pages"), 32);
	ck_assert_int_eq(jint(p, "current_pages"), 32);
	ck_assert_int_eq(jint(p, "seeded_pages"), 30);
	ck_assert_str_eq(jreq(p, "peak_time_s", J_NUM)->s, "5.000000");
	p = &a->kids[2];
	ck_assert_int_eq(jint(p, "pid"), 300);
	ck_assert_int_eq(jint(p, "threads"), 1);
	ck_assert_int_eq(jint(p, "peak_pages"), 1);
	ck_assert_str_eq(jreq(p, "peak_time_s", J_NUM)->s, "0.010000");
	jv_free(&root);
	free(t);
	fx.r.opt_set.rows = 1;
	t = render(&fx, FMT_JSON, &len);
	parse_or_fail(t, len, &root);
	ck_assert_uint_eq(jreq(&root, "processes", J_ARR)->n, 1);
	ck_assert_int_eq(jint(&root, "processes_with_pages"), 3);
	jv_free(&root);
	free(t);
	/* the task view says so, and has no processes */
	fx.r.opt_set.rows = 0;
	fx.r.opt_set.by_process = false;
	t = render(&fx, FMT_JSON, &len);
	parse_or_fail(t, len, &root);
	ck_assert_str_eq(jstr(&root, "view"), "task");
	ck_assert_ptr_null(jget(&root, "processes"));
	ck_assert_int_eq(jint(&root, "tasks_with_pages"), 6);
	ck_assert_uint_eq(jreq(&root, "tasks", J_ARR)->n, 6);
	jv_free(&root);
	free(t);
	stats_free(&fx.r.st);
}
END_TEST

Suite *suite_report(void)
{
	Suite *s = suite_create("report");
	TCase *tc = tcase_create("escape");

	tcase_add_test(tc, test_validator_self);
	tcase_add_test(tc, test_escape_text);
	tcase_add_test(tc, test_escape_json);
	tcase_add_test(tc, test_escape_json_all_bytes_valid);
	tcase_add_test(tc, test_escape_ascii);
	tcase_add_test(tc, test_state_names);
	suite_add_tcase(s, tc);
	tc = tcase_create("report");
	tcase_add_test(tc, test_basic_text);
	tcase_add_test(tc, test_no_seed_line);
	tcase_add_test(tc, test_report_to);
	tcase_add_test(tc, test_basic_json);
	tcase_add_test(tc, test_hostile_text);
	tcase_add_test(tc, test_hostile_json);
	tcase_add_test(tc, test_long_name_cut);
	tcase_add_test(tc, test_sort_states);
	tcase_add_test(tc, test_top);
	tcase_add_test(tc, test_kib_page_size);
	tcase_add_test(tc, test_modules);
	tcase_add_test(tc, test_oom_section);
	tcase_add_test(tc, test_lost_events);
	tcase_add_test(tc, test_boot_lost_hint);
	tcase_add_test(tc, test_reader_counts);
	tcase_add_test(tc, test_big_report);
	tcase_add_test(tc, test_json_lines);
	tcase_add_test(tc, test_modules_before_text);
	tcase_add_test(tc, test_modules_before_note_count);
	tcase_add_test(tc, test_modules_before_json);
	tcase_add_test(tc, test_modules_untraced_text);
	tcase_add_test(tc, test_modules_untraced_json);
	tcase_add_test(tc, test_modules_by_peak);
	suite_add_tcase(s, tc);
	tc = tcase_create("summary");
	tcase_add_test(tc, test_summary_lines);
	tcase_add_test(tc, test_summary_limits);
	tcase_add_test(tc, test_summary_mem_start);
	tcase_add_test(tc, test_summary_empty);
	tcase_add_test(tc, test_summary_module_order);
	tcase_add_test(tc, test_summary_module_ties);
	tcase_add_test(tc, test_summary_tasks);
	tcase_add_test(tc, test_summary_hostile);
	tcase_add_test(tc, test_summary_lost);
	tcase_add_test(tc, test_summary_modules_n);
	suite_add_tcase(s, tc);
	tc = tcase_create("command");
	tcase_add_test(tc, test_command_text);
	tcase_add_test(tc, test_command_json);
	tcase_add_test(tc, test_command_at_peak_full_table);
	tcase_add_test(tc, test_command_signal);
	tcase_add_test(tc, test_command_exec_failed);
	tcase_add_test(tc, test_command_nowait_lost_top);
	tcase_add_test(tc, test_command_hostile);
	suite_add_tcase(s, tc);
	tc = tcase_create("by_process");
	tcase_add_test(tc, test_by_process_text);
	tcase_add_test(tc, test_by_process_json);
	suite_add_tcase(s, tc);
	return s;
}
