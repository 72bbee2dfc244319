// SPDX-License-Identifier: GPL-2.0-only
/* test_cond.c - --stream conditions: every key, AND/OR/NOT/parentheses, globs, errors, kernel filters */
#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/cond.h"
#include "testutil.h"

static struct cond C;
static char E[512];

/* Compile the conditions (NULL-terminated); 0 or -1. */
static int compile(const char *first, ...)
{
	const char *c = first;
	va_list ap;
	int rc = 0;

	cond_init(&C);
	E[0] = '\0';
	va_start(ap, first);
	while (c && !rc) {
		rc = cond_add(&C, c, strlen(c), E, sizeof(E));
		c = va_arg(ap, const char *);
	}
	va_end(ap);
	return rc;
}

static struct cond_str S_(const char *s)
{
	struct cond_str r = { s, s ? strlen(s) : 0 };

	return r;
}

/* A process that answers every key. */
static struct cond_label cont_labels[2], pod_labels[1];

static struct cond_subject subject(void)
{
	struct cond_subject s;

	memset(&s, 0, sizeof(s));
	s.pid = 1234;
	s.name = S_("nginx");
	s.tname = S_("nginx-worker");
	s.cmd = S_("/usr/sbin/nginx -g daemon off;");
	s.exe = S_("/usr/sbin/nginx");
	s.cap[0] = 0;
	s.cap[1] = 1ull << 21 | 1ull << 13;	/* sys_admin, net_raw */
	s.cap[2] = 1ull << 21;			/* sys_admin */
	s.cap[3] = 0x1ffffffffffull;
	s.cap[4] = 1ull << 10;			/* net_bind_service */
	s.in_container = true;
	s.cont_id = S_("780f159f59c7a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f607182930");
	s.cont_name = S_("/webapp");
	cont_labels[0].key = S_("app");
	cont_labels[0].value = S_("web");
	cont_labels[1].key = S_("tier");
	cont_labels[1].value = S_("front");
	s.cont_labels = cont_labels;
	s.ncont_labels = 2;
	s.in_pod = true;
	s.pod_id = S_("5f9b1c2d-0000-4000-8000-000000000001");
	s.pod_name = S_("web-7d9f");
	s.pod_ns = S_("prod");
	pod_labels[0].key = S_("team");
	pod_labels[0].value = S_("payments");
	s.pod_labels = pod_labels;
	s.npod_labels = 1;
	s.known = (1u << CK__COUNT) - 1;
	return s;
}

static bool picks(const char *cond)
{
	struct cond_subject s = subject();

	ck_assert_msg(!compile(cond, NULL), "'%s' does not compile: %s", cond, E);
	return (cond_value(&C, &s, NULL) == COND_TRUE);
}

START_TEST(test_every_key)
{
	static const struct { const char *cond; bool want; } cases[] = {
		{ "process.pid:1234", true }, { "process.pid:123", false },
		{ "process.name:nginx", true }, { "process.name:ngin", false },
		{ "thread.name:nginx-worker", true }, { "thread.name:nginx", false },
		{ "process.cmd:\"/usr/sbin/nginx -g daemon off;\"", true },
		{ "process.cmd:*daemon*", true }, { "process.cmd:/usr/sbin/nginx", false },
		{ "process.exe:/usr/sbin/nginx", true }, { "process.exe:/bin/*", false },
		{ "process.capinh:cap_chown", false }, { "process.capinh:0", true },
		{ "process.capprm:cap_sys_admin,cap_net_raw", true },
		{ "process.capprm:cap_sys_admin,cap_kill", false },
		{ "process.capeff:CAP_SYS_ADMIN", true }, { "process.capeff:net_raw", false },
		{ "process.capeff:0x200000", true }, { "process.capeff:200000", true },
		{ "process.capbnd:checkpoint_restore", true },
		{ "process.capamb:cap_net_bind_service", true },
		{ "process.capamb:cap_net_admin", false },
		{ "container.id:780f15", true }, { "container.id:780f16", false },
		{ "container.id:*930", true },
		{ "container.name:/webapp", true }, { "container.name:webapp", true },
		{ "container.name:web*", true }, { "container.name:db", false },
		{ "container.label:web", true }, { "container.label:app=web", true },
		{ "container.label:tier=web", false }, { "container.label:app=w*", true },
		{ "pod.id:5f9b1c2d-0000-4000-8000-000000000001", true }, { "pod.id:5f9b", false },
		{ "pod.name:web-*", true }, { "pod.name:db-*", false },
		{ "pod.namespace:prod", true }, { "pod.namespace:dev", false },
		{ "pod.label:team=payments", true }, { "pod.label:payments", true },
		{ "pod.label:team=ops", false },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		ck_assert_msg(picks(cases[i].cond) == cases[i].want, "%s: want %d", cases[i].cond,
			      cases[i].want);
	/* every key has its name, and every name is used above */
	for (i = 0; i < CK__COUNT; i++) {
		size_t j;
		bool used = false;

		ck_assert_ptr_nonnull(cond_key_name((enum cond_key)i));
		for (j = 0; j < sizeof(cases) / sizeof(cases[0]); j++)
			used |= !strncmp(cases[j].cond, cond_key_name((enum cond_key)i),
					 strlen(cond_key_name((enum cond_key)i))) &&
				cases[j].cond[strlen(cond_key_name((enum cond_key)i))] == ':';
		ck_assert_msg(used, "%s not tested", cond_key_name((enum cond_key)i));
	}
	ck_assert_ptr_null(cond_key_name(CK__COUNT));
}
END_TEST

START_TEST(test_operators)
{
	ck_assert(picks("process.name:nginx AND process.pid:1234"));
	ck_assert(!picks("process.name:nginx AND process.pid:1"));
	ck_assert(picks("process.name:x OR process.pid:1234"));
	ck_assert(!picks("process.name:x OR process.pid:1"));
	ck_assert(!picks("NOT process.name:nginx"));
	ck_assert(picks("NOT NOT process.name:nginx"));
	ck_assert(picks("not process.name:x and process.pid:1234"));	/* any case */
	/* AND binds tighter than OR */
	ck_assert(picks("process.name:x AND process.pid:1 OR process.pid:1234"));
	ck_assert(!picks("process.name:x AND (process.pid:1 OR process.pid:1234)"));
	ck_assert(picks("(process.name:x OR process.name:nginx) AND NOT (pod.namespace:dev)"));
	ck_assert(picks("((((process.pid:1234))))"));
	ck_assert(picks("container.id:780f15 AND NOT process.name:sh"));
	/* several -c: ANDed */
	ck_assert(!compile("process.name:nginx", "process.pid:1", NULL));
	{
		struct cond_subject s = subject();

		ck_assert(cond_value(&C, &s, NULL) != COND_TRUE);
		ck_assert(!compile("process.name:nginx", "process.pid:1234", NULL));
		ck_assert(cond_value(&C, &s, NULL) == COND_TRUE);
		cond_init(&C);
		ck_assert(cond_value(&C, &s, NULL) == COND_TRUE);	/* none: everything passes */
	}
}
END_TEST

START_TEST(test_globs)
{
	ck_assert(cond_glob("*", 1, "", 0));
	ck_assert(cond_glob("", 0, "", 0));
	ck_assert(!cond_glob("", 0, "a", 1));
	ck_assert(cond_glob("a*c", 3, "abbbc", 5));
	ck_assert(cond_glob("a*c", 3, "ac", 2));
	ck_assert(!cond_glob("a*c", 3, "acb", 3));
	ck_assert(cond_glob("*b*", 3, "abc", 3));
	ck_assert(cond_glob("a**b", 4, "axxb", 4));
	ck_assert(cond_glob("*a*a*a", 6, "aaaa", 4));
	ck_assert(!cond_glob("*a*a*a*b", 8, "aaaaaaaaaaaaaaaaaaaaaaaaa", 25));
	ck_assert(cond_glob("?", 1, "?", 1));	/* only '*' is special */
	ck_assert(!cond_glob("?", 1, "x", 1));
	ck_assert(picks("process.name:ng*"));
	ck_assert(picks("process.name:*x"));
	ck_assert(!picks("process.name:*y*"));
	/* a quoted value keeps blanks, parentheses, quotes and backslashes */
	ck_assert(!compile("process.cmd:\"a (b) \\\"c\\\" \\\\d\"", NULL));
	{
		struct cond_subject s = subject();

		s.cmd = S_("a (b) \"c\" \\d");
		ck_assert(cond_value(&C, &s, NULL) == COND_TRUE);
	}
}
END_TEST

/* A usage error whose message holds @what and the position @pos. */
static void bad(const char *cond, const char *what, int pos)
{
	char at[32];

	ck_assert_msg(compile(cond, NULL) == -1, "'%s' compiled", cond);
	ck_assert_msg(strstr(E, what), "'%s': '%s' not in '%s'", cond, what, E);
	snprintf(at, sizeof(at), "position %d", pos);
	ck_assert_msg(strstr(E, at), "'%s': '%s' not in '%s'", cond, at, E);
	ck_assert_int_eq(C.nn, 0);
	ck_assert_int_eq(C.root, -1);
}

START_TEST(test_bad_syntax)
{
	bad("process.nme:x", "unknown key 'process.nme'", 1);
	/* the keys are listed */
	ck_assert(strstr(E, "process.pid, process.name, thread.name, process.cmd, process.exe"));
	ck_assert(strstr(E, "pod.namespace, pod.label"));
	bad("process.name:x AND foo:y", "unknown key 'foo'", 20);
	bad("process.name:x process.pid:3", "expected AND, OR or the end", 16);
	bad("(process.name:x", "'(' without its ')'", 1);
	bad("process.name:x)", "')' without its '('", 15);
	bad(")", "')' without its '('", 1);
	bad("process.name:x AND", "expected KEY:VALUE", 19);
	bad("AND process.name:x", "before AND", 1);
	bad("process.name:x OR OR process.pid:1", "before OR", 19);
	bad("NOT", "expected KEY:VALUE", 4);
	bad("process.name", "expected KEY:VALUE", 1);
	bad("process.name:", "empty value", 14);
	bad("process.name:\"\"", "empty value", 14);
	bad("process.name:\"abc", "unterminated quote", 14);
	bad("process.name:\"a\"b", "must follow a quoted value", 17);
	bad("process.pid:12x", "process.pid takes a pid", 13);
	bad("process.pid:0", "process.pid takes a pid", 13);
	bad("process.pid:99999999999", "process.pid takes a pid", 13);
	bad("process.pid:1*", "process.pid takes a pid", 13);
	bad("process.capeff:cap_nope", "unknown capability 'nope'", 16);
	bad("process.capeff:0x11112222333344445", "more than 64 bits", 16);
	bad("container.label:=x", "takes VALUE or KEY=VALUE", 17);
	bad("pod.label:k=", "takes VALUE or KEY=VALUE", 11);
	ck_assert_int_eq(compile("   ", NULL), -1);
	ck_assert_str_eq(E, "empty condition");
}
END_TEST

START_TEST(test_bad_keeps_before)
{
	struct cond_subject s = subject();
	char deep[COND_MAX_DEPTH * 2 + 40];
	int i, n = 0;

	/* a bad -c leaves those before it as they were */
	ck_assert(!compile("process.pid:1234", NULL));
	ck_assert_int_eq(cond_add(&C, "process.name:(", 14, E, sizeof(E)), -1);
	ck_assert_int_eq(C.nn, 1);
	ck_assert(cond_value(&C, &s, NULL) == COND_TRUE);
	/* nesting and size are bounded */
	for (i = 0; i < COND_MAX_DEPTH + 1; i++)
		deep[n++] = '(';
	strcpy(deep + n, "process.pid:1");
	ck_assert_int_eq(compile(deep, NULL), -1);
	ck_assert_msg(strstr(E, "nested too deeply"), "%s", E);
	ck_assert(!compile(deep + 2, NULL) || strstr(E, "')'"));
}
END_TEST

START_TEST(test_too_many_terms)
{
	static char big[COND_MAX_NODES * 24];
	size_t n = 0;
	int i;

	for (i = 0; i < COND_MAX_NODES; i++)
		n += (size_t)snprintf(big + n, sizeof(big) - n, "%sprocess.pid:%d", i ? " OR " : "",
				      i + 1);
	ck_assert_int_eq(compile(big, NULL), -1);
	ck_assert_msg(strstr(E, "too many terms"), "%s", E);
}
END_TEST

START_TEST(test_unknown_keys)
{
	struct cond_subject s = subject();
	uint32_t unknown = 0;

	s.known &= ~CK_BIT(CK_CONT_LABEL);
	ck_assert(!compile("container.label:app=web", NULL));
	ck_assert(cond_value(&C, &s, &unknown) != COND_TRUE);	/* the term is unknown: not picked */
	ck_assert_uint_eq(unknown, CK_BIT(CK_CONT_LABEL));
	unknown = 0;
	ck_assert(!compile("NOT container.label:app=web", NULL));
	ck_assert(cond_value(&C, &s, &unknown) != COND_TRUE);	/* NOT unknown is unknown: not picked */
	ck_assert_uint_eq(unknown, CK_BIT(CK_CONT_LABEL));
	/* out of a container: container and pod terms are false, and known */
	s = subject();
	s.in_container = s.in_pod = false;
	unknown = 0;
	ck_assert(!compile("container.id:7 OR container.name:* OR pod.name:* OR pod.label:*", NULL));
	ck_assert(cond_value(&C, &s, &unknown) != COND_TRUE);
	ck_assert_uint_eq(unknown, 0);
	ck_assert_uint_eq(C.keys, CK_BIT(CK_CONT_ID) | CK_BIT(CK_CONT_NAME) | CK_BIT(CK_POD_NAME) |
			  CK_BIT(CK_POD_LABEL));
	ck_assert(!compile("NOT (container.id:7 OR container.name:* OR pod.name:*)", NULL));
	ck_assert(cond_value(&C, &s, NULL) == COND_TRUE);
}
END_TEST

/*
 * Three-valued logic, seen through the pick alone (cond_value() is COND_TRUE) (picked or not): @cond
 * is true when picked, false when its negation is picked, else unknown.
 */
enum { TV_F = 'F', TV_T = 'T', TV_U = 'U' };

static int truth_of(const struct cond_subject *s, const char *cond)
{
	char neg[512];

	ck_assert_msg(!compile(cond, NULL), "'%s' does not compile: %s", cond, E);
	if ((cond_value(&C, s, NULL) == COND_TRUE))
		return TV_T;
	snprintf(neg, sizeof(neg), "NOT (%s)", cond);
	ck_assert_msg(!compile(neg, NULL), "'%s' does not compile: %s", neg, E);
	return cond_value(&C, s, NULL) == COND_TRUE ? TV_F : TV_U;
}

/* A process whose exe could not be read (gone before): exe terms are unknown. */
static struct cond_subject gone_subject(void)
{
	struct cond_subject s = subject();

	s.known &= ~CK_BIT(CK_EXE);
	s.exe = S_(NULL);
	return s;
}

START_TEST(test_kleene_truth_table)
{
	/* a true term, a false one and an unknown one (exe is not known) */
	static const char *const term[3] = {
		"process.name:nginx", "process.name:other", "process.exe:/usr/sbin/nginx",
	};
	static const char val[3] = { TV_T, TV_F, TV_U };
	/* Kleene: AND and OR over (T, F, U) x (T, F, U) */
	static const char and_tab[3][3] = {
		{ TV_T, TV_F, TV_U }, { TV_F, TV_F, TV_F }, { TV_U, TV_F, TV_U },
	};
	static const char or_tab[3][3] = {
		{ TV_T, TV_T, TV_T }, { TV_T, TV_F, TV_U }, { TV_T, TV_U, TV_U },
	};
	static const char not_tab[3] = { TV_F, TV_T, TV_U };
	struct cond_subject s = gone_subject();
	char cond[256];
	int a, b;

	for (a = 0; a < 3; a++) {
		ck_assert_msg(truth_of(&s, term[a]) == val[a], "'%s' is %c, not %c", term[a],
			      truth_of(&s, term[a]), val[a]);
		snprintf(cond, sizeof(cond), "NOT %s", term[a]);
		ck_assert_msg(truth_of(&s, cond) == not_tab[a], "'%s' is %c, not %c", cond,
			      truth_of(&s, cond), not_tab[a]);
		for (b = 0; b < 3; b++) {
			snprintf(cond, sizeof(cond), "%s AND %s", term[a], term[b]);
			ck_assert_msg(truth_of(&s, cond) == and_tab[a][b], "'%s' is %c, not %c",
				      cond, truth_of(&s, cond), and_tab[a][b]);
			snprintf(cond, sizeof(cond), "%s OR %s", term[a], term[b]);
			ck_assert_msg(truth_of(&s, cond) == or_tab[a][b], "'%s' is %c, not %c",
				      cond, truth_of(&s, cond), or_tab[a][b]);
		}
	}
	/* nested: unknown survives NOT NOT, and parentheses */
	ck_assert_int_eq(truth_of(&s, "NOT NOT process.exe:/x"), TV_U);
	ck_assert_int_eq(truth_of(&s, "NOT (process.name:other OR process.exe:/x)"), TV_U);
	ck_assert_int_eq(truth_of(&s, "NOT (process.name:other AND process.exe:/x)"), TV_T);
	/* several -c are ANDed the same way */
	ck_assert(!compile("process.exe:/x", "process.name:other", NULL));
	ck_assert(cond_value(&C, &s, NULL) != COND_TRUE);
	ck_assert(!compile("NOT process.exe:/x", "process.name:nginx", NULL));
	ck_assert(cond_value(&C, &s, NULL) != COND_TRUE);
}
END_TEST

START_TEST(test_not_unknown)
{
	struct cond_subject s = gone_subject();
	uint32_t unknown = 0;

	/* issue 24: a short-lived process's exe could not be read; NOT must not pick it */
	ck_assert(!compile("process.name:nginx AND NOT process.exe:/usr/bin/true", NULL));
	ck_assert(cond_value(&C, &s, &unknown) != COND_TRUE);
	ck_assert_uint_eq(unknown, CK_BIT(CK_EXE));
	ck_assert(!compile("NOT process.exe:/usr/sbin/nginx", NULL));
	ck_assert(cond_value(&C, &s, NULL) != COND_TRUE);
	/* known again, the same conditions answer as before */
	s = subject();
	ck_assert(!compile("process.name:nginx AND NOT process.exe:/usr/bin/true", NULL));
	ck_assert(cond_value(&C, &s, NULL) == COND_TRUE);
	ck_assert(!compile("NOT process.exe:/usr/sbin/nginx", NULL));
	ck_assert(cond_value(&C, &s, NULL) != COND_TRUE);
}
END_TEST

/* cond_value() says unknown apart from false, and which keys were met unknown. */
START_TEST(test_value)
{
	struct cond_subject s = gone_subject();
	uint32_t unknown = 0;

	ck_assert(!compile("process.exe:/x", NULL));
	ck_assert_int_eq(cond_value(&C, &s, &unknown), COND_UNKNOWN);
	ck_assert_uint_eq(unknown, CK_BIT(CK_EXE));
	ck_assert(!compile("NOT process.exe:/x", NULL));
	ck_assert_int_eq(cond_value(&C, &s, NULL), COND_UNKNOWN);
	/* a side that decides alone: the other one is not evaluated */
	unknown = 0;
	ck_assert(!compile("process.name:other AND process.exe:/x", NULL));
	ck_assert_int_eq(cond_value(&C, &s, &unknown), COND_FALSE);
	ck_assert_uint_eq(unknown, 0);
	unknown = 0;
	ck_assert(!compile("process.exe:/x AND process.name:other", NULL));
	ck_assert_int_eq(cond_value(&C, &s, &unknown), COND_FALSE);
	ck_assert_uint_eq(unknown, CK_BIT(CK_EXE));
	ck_assert(!compile("process.exe:/x OR process.name:nginx", NULL));
	ck_assert_int_eq(cond_value(&C, &s, NULL), COND_TRUE);
	ck_assert(!compile("process.name:nginx", NULL));
	ck_assert_int_eq(cond_value(&C, &s, NULL), COND_TRUE);
	cond_init(&C);
	ck_assert_int_eq(cond_value(&C, &s, NULL), COND_TRUE);	/* no condition */
}
END_TEST

/* Every key but process.name, unknown in turn: no condition on it alone ever picks. */
START_TEST(test_unknown_never_picks)
{
	static const char *const conds[] = {
		"@", "NOT @", "@ OR NOT @", "NOT (@ AND NOT @)", "NOT NOT @",
		"process.name:nginx AND NOT @",
	};
	/* a value each key matches in subject() */
	static const char *const value[CK__COUNT] = {
		[CK_PID] = "1234", [CK_NAME] = "nginx", [CK_TNAME] = "*-worker", [CK_CMD] = "*nginx*",
		[CK_EXE] = "/usr/sbin/nginx", [CK_CAPINH] = "0", [CK_CAPPRM] = "sys_admin",
		[CK_CAPEFF] = "sys_admin", [CK_CAPBND] = "chown", [CK_CAPAMB] = "net_bind_service",
		[CK_CONT_ID] = "780f", [CK_CONT_NAME] = "webapp", [CK_CONT_LABEL] = "app=web",
		[CK_POD_ID] = "5f9b*", [CK_POD_NAME] = "web-*", [CK_POD_NS] = "prod",
		[CK_POD_LABEL] = "team=payments",
	};
	char cond[512], t[128];
	size_t i, n;
	const char *c;
	int k;

	for (k = 0; k < CK__COUNT; k++) {
		struct cond_subject s = subject();
		const char *key = cond_key_name((enum cond_key)k);

		if (k == CK_NAME || k == CK_TNAME)
			continue;	/* the events always tell them */
		/* known, the value matches */
		snprintf(cond, sizeof(cond), "%s:%s", key, value[k]);
		ck_assert_msg(!compile(cond, NULL), "%s: %s", cond, E);
		ck_assert_msg(cond_value(&C, &s, NULL) == COND_TRUE, "'%s' does not pick", cond);
		s.known &= ~CK_BIT(k);
		for (i = 0; i < sizeof(conds) / sizeof(conds[0]); i++) {
			uint32_t unknown = 0;

			/* each '@' becomes the term */
			snprintf(t, sizeof(t), "%s:%s", key, value[k]);
			for (c = conds[i], n = 0; *c && n + strlen(t) < sizeof(cond); c++) {
				if (*c == '@') {
					memcpy(cond + n, t, strlen(t));
					n += strlen(t);
				} else {
					cond[n++] = *c;
				}
			}
			cond[n] = '\0';
			ck_assert_msg(!compile(cond, NULL), "%s: %s", cond, E);
			ck_assert_msg(cond_value(&C, &s, &unknown) != COND_TRUE,
				      "'%s' picked with %s unknown", cond, key);
			ck_assert_msg(unknown == CK_BIT(k), "'%s': unknown %#x", cond, unknown);
		}
	}
}
END_TEST

static const char *filter(const char *cond)
{
	static char buf[1024];

	ck_assert_msg(!compile(cond, NULL), "%s: %s", cond, E);
	cond_comm_filter(&C, buf, sizeof(buf));
	return buf;
}

/* process.name is the process's name, thread.name the task's own (issue 24, 2). */
START_TEST(test_thread_name)
{
	ck_assert(picks("process.name:nginx"));
	ck_assert(!picks("process.name:nginx-worker"));	/* not the thread's */
	ck_assert(picks("thread.name:nginx-worker"));
	ck_assert(!picks("thread.name:nginx"));		/* not the process's */
	ck_assert(picks("thread.name:*-worker AND process.name:ng*"));
	ck_assert(!picks("NOT thread.name:nginx-worker"));
	ck_assert_str_eq(cond_key_name(CK_TNAME), "thread.name");
}
END_TEST

START_TEST(test_comm_filter)
{
	ck_assert_str_eq(filter("thread.name:nginx"), "comm == \"nginx\"");
	ck_assert_str_eq(filter("thread.name:ng*"), "comm ~ \"ng*\"");
	ck_assert_str_eq(filter("NOT thread.name:sh"), "comm != \"sh\"");
	ck_assert_str_eq(filter("thread.name:a OR thread.name:b*"),
			 "(comm == \"a\") || (comm ~ \"b*\")");
	ck_assert_str_eq(filter("NOT (thread.name:a OR thread.name:b*)"),
			 "(comm != \"a\") && (comm !~ \"b*\")");
	/* AND keeps a side alone; OR needs both */
	ck_assert_str_eq(filter("container.id:7 AND thread.name:a"), "(comm == \"a\")");
	ck_assert_str_eq(filter("container.id:7 OR thread.name:a"), "");
	ck_assert_str_eq(filter("process.pid:3"), "");
	ck_assert_str_eq(filter("NOT (thread.name:a AND container.id:7)"), "");
	/*
	 * process.name is the process's (its leader's) name, the kernel's comm
	 * the task's own: a comm filter would cut a picked process's renamed
	 * thread, so process.name is never pushed (issue 24, 2)
	 */
	ck_assert_str_eq(filter("process.name:nginx"), "");
	ck_assert_str_eq(filter("process.name:nginx AND thread.name:w*"), "(comm ~ \"w*\")");
	ck_assert_str_eq(filter("process.name:nginx OR thread.name:w*"), "");
	/* bytes the kernel would read as more than a name are not pushed there */
	ck_assert_str_eq(filter("thread.name:\"a b\""), "");
	ck_assert_str_eq(filter("thread.name:a?"), "");
	ck_assert_str_eq(filter("thread.name:!a"), "");
	ck_assert_str_eq(filter("thread.name:\"a\\\"\""), "");
	{
		char tiny[8];

		ck_assert(!compile("thread.name:nginx", NULL));
		ck_assert_uint_eq(cond_comm_filter(&C, tiny, sizeof(tiny)), 0);
		ck_assert_str_eq(tiny, "");
	}
}
END_TEST

START_TEST(test_pid_set)
{
	int32_t p[COND_MAX_PIDS];

	ck_assert(!compile("process.pid:5", NULL));
	ck_assert_int_eq(cond_pid_set(&C, p, COND_MAX_PIDS), 1);
	ck_assert_int_eq(p[0], 5);
	ck_assert(!compile("process.pid:5 OR process.pid:7 OR process.pid:5", NULL));
	ck_assert_int_eq(cond_pid_set(&C, p, COND_MAX_PIDS), 2);
	ck_assert_int_eq(p[0] + p[1], 12);
	ck_assert(!compile("(process.pid:5 OR process.pid:7) AND process.name:x", NULL));
	ck_assert_int_eq(cond_pid_set(&C, p, COND_MAX_PIDS), 2);
	ck_assert(!compile("(process.pid:5 OR process.pid:7) AND process.pid:7", NULL));
	ck_assert_int_eq(cond_pid_set(&C, p, COND_MAX_PIDS), 1);
	ck_assert_int_eq(p[0], 7);
	/* no finite set: another key, a negation, an empty intersection, too many */
	ck_assert(!compile("process.pid:5 OR process.name:x", NULL));
	ck_assert_int_eq(cond_pid_set(&C, p, COND_MAX_PIDS), -1);
	ck_assert(!compile("NOT process.pid:5", NULL));
	ck_assert_int_eq(cond_pid_set(&C, p, COND_MAX_PIDS), -1);
	ck_assert(!compile("process.pid:5 AND process.pid:6", NULL));
	ck_assert_int_eq(cond_pid_set(&C, p, COND_MAX_PIDS), -1);
	ck_assert(!compile("process.pid:5 OR process.pid:6", NULL));
	ck_assert_int_eq(cond_pid_set(&C, p, 1), -1);
	cond_init(&C);
	ck_assert_int_eq(cond_pid_set(&C, p, COND_MAX_PIDS), -1);
}
END_TEST

Suite *suite_cond(void)
{
	Suite *s = suite_create("cond");
	TCase *tc = tcase_create("cond");

	tcase_add_test(tc, test_every_key);
	tcase_add_test(tc, test_operators);
	tcase_add_test(tc, test_globs);
	tcase_add_test(tc, test_bad_syntax);
	tcase_add_test(tc, test_bad_keeps_before);
	tcase_add_test(tc, test_too_many_terms);
	tcase_add_test(tc, test_unknown_keys);
	tcase_add_test(tc, test_kleene_truth_table);
	tcase_add_test(tc, test_not_unknown);
	tcase_add_test(tc, test_unknown_never_picks);
	tcase_add_test(tc, test_value);
	tcase_add_test(tc, test_thread_name);
	tcase_add_test(tc, test_comm_filter);
	tcase_add_test(tc, test_pid_set);
	suite_add_tcase(s, tc);
	return s;
}
