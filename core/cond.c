// SPDX-License-Identifier: GPL-2.0-only
/* core/cond.c - --stream conditions: KEY:VALUE terms, AND, OR, NOT, parentheses, * globs (pure) */
#include "core/cond.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

static const char *const key_names[CK__COUNT] = {
	[CK_PID] = "process.pid",
	[CK_NAME] = "process.name",
	[CK_TNAME] = "thread.name",
	[CK_CMD] = "process.cmd",
	[CK_EXE] = "process.exe",
	[CK_CAPINH] = "process.capinh",
	[CK_CAPPRM] = "process.capprm",
	[CK_CAPEFF] = "process.capeff",
	[CK_CAPBND] = "process.capbnd",
	[CK_CAPAMB] = "process.capamb",
	[CK_CONT_ID] = "container.id",
	[CK_CONT_NAME] = "container.name",
	[CK_CONT_LABEL] = "container.label",
	[CK_POD_ID] = "pod.id",
	[CK_POD_NAME] = "pod.name",
	[CK_POD_NS] = "pod.namespace",
	[CK_POD_LABEL] = "pod.label",
};

/* capability(7) numbers, without "cap_" */
static const char *const cap_names[] = {
	"chown", "dac_override", "dac_read_search", "fowner", "fsetid", "kill", "setgid",
	"setuid", "setpcap", "linux_immutable", "net_bind_service", "net_broadcast",
	"net_admin", "net_raw", "ipc_lock", "ipc_owner", "sys_module", "sys_rawio",
	"sys_chroot", "sys_ptrace", "sys_pacct", "sys_admin", "sys_boot", "sys_nice",
	"sys_resource", "sys_time", "sys_tty_config", "mknod", "lease", "audit_write",
	"audit_control", "setfcap", "mac_override", "mac_admin", "syslog", "wake_alarm",
	"block_suspend", "audit_read", "perfmon", "bpf", "checkpoint_restore",
};

const char *cond_key_name(enum cond_key k)
{
	return (unsigned)k < CK__COUNT ? key_names[k] : NULL;
}

void cond_init(struct cond *c)
{
	c->nn = 0;
	c->root = -1;
	c->ntext = 0;
	c->keys = 0;
}

/* The parser's state over one condition; c->nn and c->ntext are restored on an error. */
struct parser {
	struct cond *c;
	const char *s;
	size_t len, pos;
	int depth;
	char *err;
	size_t errlen;
	bool failed;
};

__attribute__((format(printf, 3, 4)))
static int fail(struct parser *p, size_t at, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	if (p->failed)
		return -1;
	p->failed = true;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(p->err, p->errlen, "%s at position %zu", msg, at + 1);
	return -1;
}

static bool is_blank(char ch)
{
	return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\f' || ch == '\v';
}

static void skip_blank(struct parser *p)
{
	while (p->pos < p->len && is_blank(p->s[p->pos]))
		p->pos++;
}

static bool at_end_of_word(const struct parser *p, size_t at)
{
	return at >= p->len || is_blank(p->s[at]) || p->s[at] == '(' || p->s[at] == ')';
}

/* An operator word (any case) at the position, standing alone. */
static bool at_word(const struct parser *p, const char *w)
{
	size_t n = strlen(w), i;

	if (p->len - p->pos < n)
		return false;
	for (i = 0; i < n; i++) {
		char ch = p->s[p->pos + i];

		if (ch >= 'a' && ch <= 'z')
			ch = (char)(ch - 'a' + 'A');
		if (ch != w[i])
			return false;
	}
	return at_end_of_word(p, p->pos + n);
}

static int new_node(struct parser *p, uint8_t op, int a, int b)
{
	struct cond_node *n;

	if (p->c->nn >= COND_MAX_NODES)
		return fail(p, p->pos, "too many terms (at most %d terms and operators)",
			    COND_MAX_NODES);
	n = &p->c->n[p->c->nn];
	memset(n, 0, sizeof(*n));
	n->op = op;
	n->a = (uint16_t)(a < 0 ? 0 : a);
	n->b = (uint16_t)(b < 0 ? 0 : b);
	return (int)p->c->nn++;
}

static int keep_text(struct parser *p, const char *s, size_t n, uint32_t *at)
{
	if (n > COND_TEXT - p->c->ntext)
		return fail(p, p->pos, "values too long (at most %d bytes in all)", COND_TEXT);
	memcpy(p->c->text + p->c->ntext, s, n);
	*at = p->c->ntext;
	p->c->ntext += (uint32_t)n;
	return 0;
}

static void key_list(char *buf, size_t size)
{
	size_t i, used = 0;

	buf[0] = '\0';
	for (i = 0; i < CK__COUNT && used < size; i++) {
		int n = snprintf(buf + used, size - used, "%s%s", i ? ", " : "", key_names[i]);

		if (n < 0)
			break;
		used += (size_t)n;
	}
}

/* A value's bytes into @out (quotes and escapes undone); its length, or -1. */
static long read_value(struct parser *p, char *out, size_t size)
{
	size_t n = 0, start = p->pos;

	if (p->pos < p->len && p->s[p->pos] == '"') {
		p->pos++;
		for (;;) {
			char ch;

			if (p->pos >= p->len)
				return fail(p, start, "unterminated quote");
			ch = p->s[p->pos++];
			if (ch == '"')
				break;
			if (ch == '\\') {
				if (p->pos >= p->len)
					return fail(p, start, "unterminated quote");
				ch = p->s[p->pos++];
			}
			if (n >= size)
				return fail(p, start, "value too long");
			out[n++] = ch;
		}
		if (!at_end_of_word(p, p->pos))
			return fail(p, p->pos, "a blank or a parenthesis must follow a quoted value");
	} else {
		while (!at_end_of_word(p, p->pos)) {
			if (n >= size)
				return fail(p, start, "value too long");
			out[n++] = p->s[p->pos++];
		}
	}
	if (!n)
		return fail(p, start, "empty value");
	return (long)n;
}

static int hexval(char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

/* "cap_sys_admin,net_raw" or a hex mask ("0x..." or digits) */
static int cap_mask(struct parser *p, const char *v, size_t n, size_t at, uint64_t *mask)
{
	size_t i = 0, j;

	*mask = 0;
	if (n > 2 && v[0] == '0' && (v[1] == 'x' || v[1] == 'X'))
		i = 2;
	for (j = i; j < n && hexval(v[j]) >= 0; j++)
		;
	if (j == n && j > i) {
		if (n - i > 16)
			return fail(p, at, "capability mask '%.*s' has more than 64 bits", (int)n, v);
		for (; i < n; i++)
			*mask = *mask << 4 | (uint64_t)hexval(v[i]);
		return 0;
	}
	while (i < n) {
		size_t e = i, k, w;
		bool found = false;

		while (e < n && v[e] != ',')
			e++;
		w = e - i;
		if (w > 4 && !strncasecmp(v + i, "cap_", 4)) {
			i += 4;
			w -= 4;
		}
		for (k = 0; k < sizeof(cap_names) / sizeof(cap_names[0]); k++) {
			if (strlen(cap_names[k]) == w && !strncasecmp(cap_names[k], v + i, w)) {
				*mask |= 1ull << k;
				found = true;
			}
		}
		if (!found)
			return fail(p, at, "unknown capability '%.*s' (a name such as cap_sys_admin, "
				    "or a hex mask)", (int)(e - i), v + i);
		i = e + 1;
	}
	return 0;
}

/* KEY:VALUE */
static int parse_term(struct parser *p)
{
	static char val[COND_TEXT];
	size_t start = p->pos, klen, at;
	struct cond_node *n;
	char keys[400];
	int k, idx;
	long vlen;

	while (p->pos < p->len && p->s[p->pos] != ':' && !at_end_of_word(p, p->pos))
		p->pos++;
	klen = p->pos - start;
	if (p->pos >= p->len || p->s[p->pos] != ':') {
		if (!klen)
			return fail(p, start, "expected KEY:VALUE");
		return fail(p, start, "expected KEY:VALUE, not '%.*s'", (int)(klen > 40 ? 40 : klen),
			    p->s + start);
	}
	for (k = 0; k < CK__COUNT; k++)
		if (strlen(key_names[k]) == klen && !memcmp(key_names[k], p->s + start, klen))
			break;
	if (k == CK__COUNT) {
		key_list(keys, sizeof(keys));
		p->failed = true;
		snprintf(p->err, p->errlen, "unknown key '%.*s' at position %zu; keys: %s",
			 (int)(klen > 40 ? 40 : klen), p->s + start, start + 1, keys);
		return -1;
	}
	p->pos++;
	at = p->pos;
	vlen = read_value(p, val, sizeof(val));
	if (vlen < 0)
		return -1;
	idx = new_node(p, CN_TERM, -1, -1);
	if (idx < 0)
		return -1;
	n = &p->c->n[idx];
	n->key = (uint8_t)k;
	n->glob = memchr(val, '*', (size_t)vlen) != NULL;
	if (k == CK_PID) {
		uint64_t pid = 0;
		long i;

		for (i = 0; i < vlen; i++) {
			if (val[i] < '0' || val[i] > '9' || pid > 0x7fffffff)
				break;
			pid = pid * 10 + (uint64_t)(val[i] - '0');
		}
		if (i < vlen || !pid || pid > 0x7fffffff)
			return fail(p, at, "process.pid takes a pid (1 to 2147483647), not '%.*s'",
				    (int)(vlen > 40 ? 40 : vlen), val);
		n->num = pid;
	} else if (CK_BIT(k) & CK_CAPS) {
		if (cap_mask(p, val, (size_t)vlen, at, &n->num))
			return -1;
	} else if (k == CK_CONT_LABEL || k == CK_POD_LABEL) {
		const char *eq = memchr(val, '=', (size_t)vlen);

		if (eq) {
			size_t kl = (size_t)(eq - val);

			if (!kl || kl + 1 == (size_t)vlen)
				return fail(p, at, "%s takes VALUE or KEY=VALUE", key_names[k]);
			if (keep_text(p, val, kl, &n->lkey))
				return -1;
			n->lkey_len = (uint32_t)kl;
			n->glob = memchr(eq + 1, '*', (size_t)vlen - kl - 1) != NULL;
			if (keep_text(p, eq + 1, (size_t)vlen - kl - 1, &n->val))
				return -1;
			n->len = (uint32_t)((size_t)vlen - kl - 1);
			p->c->keys |= CK_BIT(k);
			return idx;
		}
	}
	if (keep_text(p, val, (size_t)vlen, &n->val))
		return -1;
	n->len = (uint32_t)vlen;
	p->c->keys |= CK_BIT(k);
	return idx;
}

static int parse_or(struct parser *p);

static int parse_unary(struct parser *p)
{
	size_t at;
	int a;

	skip_blank(p);
	at = p->pos;
	if (p->pos >= p->len)
		return fail(p, at, "expected KEY:VALUE, NOT or '('");
	if (++p->depth > COND_MAX_DEPTH)
		return fail(p, at, "nested too deeply (at most %d)", COND_MAX_DEPTH);
	if (at_word(p, "NOT")) {
		p->pos += 3;
		a = parse_unary(p);
		a = a < 0 ? a : new_node(p, CN_NOT, a, -1);
	} else if (p->s[p->pos] == '(') {
		p->pos++;
		a = parse_or(p);
		skip_blank(p);
		if (a >= 0 && (p->pos >= p->len || p->s[p->pos] != ')'))
			a = fail(p, at, "'(' without its ')'");
		else if (a >= 0)
			p->pos++;
	} else if (p->s[p->pos] == ')') {
		a = fail(p, at, "')' without its '('");
	} else if (at_word(p, "AND") || at_word(p, "OR")) {
		a = fail(p, at, "expected KEY:VALUE, NOT or '(' before %s",
			 at_word(p, "AND") ? "AND" : "OR");
	} else {
		a = parse_term(p);
	}
	p->depth--;
	return a;
}

static int parse_and(struct parser *p)
{
	int a = parse_unary(p), b;

	while (a >= 0) {
		skip_blank(p);
		if (!at_word(p, "AND"))
			break;
		p->pos += 3;
		b = parse_unary(p);
		if (b < 0)
			return -1;
		a = new_node(p, CN_AND, a, b);
	}
	return a;
}

static int parse_or(struct parser *p)
{
	int a = parse_and(p), b;

	while (a >= 0) {
		skip_blank(p);
		if (!at_word(p, "OR"))
			break;
		p->pos += 2;
		b = parse_and(p);
		if (b < 0)
			return -1;
		a = new_node(p, CN_OR, a, b);
	}
	return a;
}

int cond_add(struct cond *c, const char *text, size_t len, char *err, size_t errlen)
{
	struct parser p = { c, text, len, 0, 0, err, errlen, false };
	uint32_t nn = c->nn, ntext = c->ntext, keys = c->keys;
	int root;

	skip_blank(&p);
	if (p.pos >= len) {
		snprintf(err, errlen, "empty condition");
		return -1;
	}
	root = parse_or(&p);
	skip_blank(&p);
	if (root >= 0 && p.pos < len) {
		if (text[p.pos] == ')')
			fail(&p, p.pos, "')' without its '('");
		else
			fail(&p, p.pos, "expected AND, OR or the end");
		root = -1;
	}
	if (root >= 0 && c->root >= 0)
		root = new_node(&p, CN_AND, c->root, root);
	if (root < 0 || p.failed) {
		c->nn = nn;
		c->ntext = ntext;
		c->keys = keys;
		return -1;
	}
	c->root = root;
	return 0;
}

bool cond_glob(const char *pat, size_t plen, const char *s, size_t slen)
{
	size_t pi = 0, si = 0, star = (size_t)-1, mark = 0;

	while (si < slen) {
		if (pi < plen && pat[pi] == '*') {
			star = pi++;
			mark = si;
		} else if (pi < plen && pat[pi] == s[si]) {
			pi++;
			si++;
		} else if (star != (size_t)-1) {
			pi = star + 1;
			si = ++mark;
		} else {
			return false;
		}
	}
	while (pi < plen && pat[pi] == '*')
		pi++;
	return pi == plen;
}

static bool match(const struct cond *c, const struct cond_node *n, struct cond_str v)
{
	const char *pat = c->text + n->val;

	if (!v.s)
		return false;
	return cond_glob(pat, n->len, v.s, v.len);
}

static bool match_labels(const struct cond *c, const struct cond_node *n,
			 const struct cond_label *l, uint32_t nl)
{
	uint32_t i;

	for (i = 0; i < nl; i++) {
		if (n->lkey_len && (l[i].key.len != n->lkey_len ||
				    memcmp(l[i].key.s, c->text + n->lkey, n->lkey_len)))
			continue;
		if (match(c, n, l[i].value))
			return true;
	}
	return false;
}

/* A term on a key that @s answers. */
static bool term_known(const struct cond *c, const struct cond_node *n,
		       const struct cond_subject *s)
{
	struct cond_str v;

	switch (n->key) {
	case CK_PID:
		return s->pid > 0 && (uint64_t)s->pid == n->num;
	case CK_NAME:
		return match(c, n, s->name);
	case CK_TNAME:
		return match(c, n, s->tname);
	case CK_CMD:
		return match(c, n, s->cmd);
	case CK_EXE:
		return match(c, n, s->exe);
	case CK_CAPINH: case CK_CAPPRM: case CK_CAPEFF: case CK_CAPBND: case CK_CAPAMB:
		return (s->cap[n->key - CK_CAPINH] & n->num) == n->num;
	case CK_CONT_ID:
		if (!s->in_container || !s->cont_id.s)
			return false;
		if (!n->glob)	/* a prefix, as ids are given short */
			return n->len <= s->cont_id.len &&
			       !memcmp(c->text + n->val, s->cont_id.s, n->len);
		return match(c, n, s->cont_id);
	case CK_CONT_NAME:
		if (!s->in_container)
			return false;
		v = s->cont_name;
		if (match(c, n, v))
			return true;
		/* docker's names begin with '/': "webapp" is "/webapp" */
		if (v.s && v.len && v.s[0] == '/' && (n->len == 0 || c->text[n->val] != '/')) {
			v.s++;
			v.len--;
			return match(c, n, v);
		}
		return false;
	case CK_CONT_LABEL:
		return s->in_container && match_labels(c, n, s->cont_labels, s->ncont_labels);
	case CK_POD_ID:
		return s->in_pod && match(c, n, s->pod_id);
	case CK_POD_NAME:
		return s->in_pod && match(c, n, s->pod_name);
	case CK_POD_NS:
		return s->in_pod && match(c, n, s->pod_ns);
	case CK_POD_LABEL:
		return s->in_pod && match_labels(c, n, s->pod_labels, s->npod_labels);
	default:
		return false;
	}
}

static enum cond_truth term(const struct cond *c, const struct cond_node *n,
			    const struct cond_subject *s, uint32_t *unknown)
{
	if (!(s->known & CK_BIT(n->key))) {
		*unknown |= CK_BIT(n->key);
		return COND_UNKNOWN;
	}
	return term_known(c, n, s) ? COND_TRUE : COND_FALSE;
}

/*
 * Kleene's three-valued logic: NOT unknown is unknown; false AND x is false,
 * true OR x is true (whatever x is), else unknown wins over the other value.
 * The right side is not evaluated when the left decides alone. Nodes refer
 * only to nodes made before them: the depth is bounded by the count.
 */
static enum cond_truth eval(const struct cond *c, uint32_t i, const struct cond_subject *s,
			    uint32_t *unknown)
{
	const struct cond_node *n = &c->n[i];
	enum cond_truth a, b;

	switch (n->op) {
	case CN_TERM:
		return term(c, n, s, unknown);
	case CN_NOT:
		a = eval(c, n->a, s, unknown);
		return a == COND_UNKNOWN ? a : a == COND_TRUE ? COND_FALSE : COND_TRUE;
	case CN_AND:
		a = eval(c, n->a, s, unknown);
		if (a == COND_FALSE)
			return a;
		b = eval(c, n->b, s, unknown);
		return b == COND_FALSE ? b : a == COND_UNKNOWN ? a : b;
	default:
		a = eval(c, n->a, s, unknown);
		if (a == COND_TRUE)
			return a;
		b = eval(c, n->b, s, unknown);
		return b == COND_TRUE ? b : a == COND_UNKNOWN ? a : b;
	}
}

enum cond_truth cond_value(const struct cond *c, const struct cond_subject *s, uint32_t *unknown)
{
	uint32_t u = 0;
	enum cond_truth v;

	if (c->root < 0)
		return COND_TRUE;
	v = eval(c, (uint32_t)c->root, s, &u);
	if (unknown)
		*unknown |= u;
	return v;
}

/*
 * Bytes a kernel filter string takes as they are: no quotes, backslashes,
 * blanks, no glob bytes but '*' (the kernel would read "?[" as globs), no
 * leading '!' (a negation for it).
 */
static bool kernel_safe(const char *v, size_t n)
{
	size_t i;

	if (!n || v[0] == '!')
		return false;
	for (i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)v[i];

		if (ch <= ' ' || ch >= 0x7f || ch == '"' || ch == '\\' || ch == '?' || ch == '[' ||
		    ch == ']' || ch == '\'')
			return false;
	}
	return true;
}

/* An output buffer for the filter text; ok goes false when it does not fit. */
struct fbuf {
	char *p;
	size_t size, len;
	bool ok;
};

/* (room is kept for the terminating NUL, written at the end) */
static void put(struct fbuf *b, const char *s, size_t n)
{
	if (!b->ok || n >= b->size - b->len) {
		b->ok = false;
		return;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
}

/*
 * The comm filter of node @i (negated when @neg) appended to @b: true; or
 * false when it would let every task by (nothing appended). AND (OR when
 * negated, De Morgan) may keep either side alone; OR needs both.
 */
static bool comm_of(const struct cond *c, uint32_t i, bool neg, struct fbuf *b, int depth)
{
	const struct cond_node *n = &c->n[i];
	size_t s0 = b->len, s1;
	bool both, lt, rt;
	const char *op;

	if (depth > COND_MAX_DEPTH * 2 + 8)
		return false;
	switch (n->op) {
	case CN_TERM:
		/* the kernel's comm is the task's: a process's renamed thread would be cut */
		if (n->key != CK_TNAME || !kernel_safe(c->text + n->val, n->len))
			return false;
		op = n->glob ? (neg ? "comm !~ \"" : "comm ~ \"") : (neg ? "comm != \"" : "comm == \"");
		put(b, op, strlen(op));
		put(b, c->text + n->val, n->len);
		put(b, "\"", 1);
		return true;
	case CN_NOT:
		return comm_of(c, n->a, !neg, b, depth + 1);
	default:
		break;
	}
	both = (n->op == CN_OR) != neg;
	put(b, "(", 1);
	lt = comm_of(c, n->a, neg, b, depth + 1);
	if (!lt)
		b->len = s0;
	else
		put(b, ")", 1);
	if (both && !lt)
		return false;
	s1 = b->len;
	put(b, lt ? (both ? " || (" : " && (") : "(", lt ? 5 : 1);
	rt = comm_of(c, n->b, neg, b, depth + 1);
	if (!rt) {
		b->len = both ? s0 : s1;
		return both ? false : lt;
	}
	put(b, ")", 1);
	return true;
}

size_t cond_comm_filter(const struct cond *c, char *buf, size_t size)
{
	struct fbuf b = { buf, size, 0, size > 0 };

	if (size)
		buf[0] = '\0';
	if (c->root < 0 || !comm_of(c, (uint32_t)c->root, false, &b, 0) || !b.ok || !b.len) {
		if (size)
			buf[0] = '\0';
		return 0;
	}
	buf[b.len] = '\0';
	return b.len;
}

/* A set of pids, or "any" (all). */
struct pidset {
	bool all;
	int n;
	int32_t p[COND_MAX_PIDS];
};

static bool has(const struct pidset *s, int32_t pid)
{
	int i;

	for (i = 0; i < s->n; i++)
		if (s->p[i] == pid)
			return true;
	return false;
}

static void pids_of(const struct cond *c, uint32_t i, bool neg, struct pidset *out, int depth)
{
	const struct cond_node *n = &c->n[i];
	struct pidset a, b;
	bool uni;
	int k;

	out->all = true;
	out->n = 0;
	if (depth > COND_MAX_DEPTH * 2 + 8)
		return;
	if (n->op == CN_TERM) {
		if (n->key == CK_PID && !neg) {
			out->all = false;
			out->n = 1;
			out->p[0] = (int32_t)n->num;
		}
		return;
	}
	if (n->op == CN_NOT) {
		pids_of(c, n->a, !neg, out, depth + 1);
		return;
	}
	pids_of(c, n->a, neg, &a, depth + 1);
	pids_of(c, n->b, neg, &b, depth + 1);
	uni = (n->op == CN_OR) != neg;
	if (uni) {
		if (a.all || b.all)
			return;
		*out = a;
		for (k = 0; k < b.n; k++) {
			if (has(out, b.p[k]))
				continue;
			if (out->n >= COND_MAX_PIDS) {
				out->all = true;
				out->n = 0;
				return;
			}
			out->p[out->n++] = b.p[k];
		}
		return;
	}
	if (a.all) {
		*out = b;
		return;
	}
	if (b.all) {
		*out = a;
		return;
	}
	out->all = false;
	for (k = 0; k < a.n; k++)
		if (has(&b, a.p[k]))
			out->p[out->n++] = a.p[k];
}

int cond_pid_set(const struct cond *c, int32_t *pids, int max)
{
	static struct pidset s;
	int i;

	if (c->root < 0)
		return -1;
	pids_of(c, (uint32_t)c->root, false, &s, 0);
	if (s.all || !s.n || s.n > max)
		return -1;
	for (i = 0; i < s.n; i++)
		pids[i] = s.p[i];
	return s.n;
}
