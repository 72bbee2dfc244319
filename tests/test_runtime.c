// SPDX-License-Identifier: GPL-2.0-only
/* test_runtime.c - containers from cgroup paths and runtime files; the JSON reader; /proc parsers */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/json.h"
#include "stream/procinfo.h"
#include "stream/runtime.h"
#include "testutil.h"

#define ID "60b11f889d31c2dcc2fc6d27823734fbf08e342f968f0e5e2d02d31d495894d7"

static struct rt_container C;

static bool cg(const char *text)
{
	return rt_parse_cgroup(text, strlen(text), &C);
}

START_TEST(test_cgroup_patterns)
{
	/* podman with cgroupfs, in every hierarchy (seen on this machine) */
	ck_assert(cg("9:name=systemd:/libpod_parent/libpod-" ID "\n4:memory:/libpod_parent/libpod-"
		     ID "\n0::/libpod_parent/libpod-" ID "\n"));
	ck_assert_str_eq(C.id, ID);
	ck_assert_int_eq(C.kind, RT_PODMAN);
	ck_assert_uint_eq(C.known, CK_BIT(CK_CONT_ID));
	ck_assert(!C.in_pod);
	/* podman under systemd */
	ck_assert(cg("0::/machine.slice/libpod-" ID ".scope/container\n"));
	ck_assert_int_eq(C.kind, RT_PODMAN);
	/* docker: cgroupfs and systemd drivers */
	ck_assert(cg("12:pids:/docker/" ID "\n"));
	ck_assert_int_eq(C.kind, RT_DOCKER);
	ck_assert(cg("0::/system.slice/docker-" ID ".scope\n"));
	ck_assert_int_eq(C.kind, RT_DOCKER);
	/* CRI-O and containerd's CRI under systemd, with the pod's uid in the slice */
	ck_assert(cg("0::/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod5f9b1c2d_"
		     "0000_4000_8000_000000000001.slice/crio-" ID ".scope\n"));
	ck_assert_int_eq(C.kind, RT_CRIO);
	ck_assert(C.in_pod);
	ck_assert_str_eq(C.pod_id, "5f9b1c2d-0000-4000-8000-000000000001");
	ck_assert_uint_eq(C.known, CK_BIT(CK_CONT_ID) | CK_BIT(CK_POD_ID));
	ck_assert(cg("0::/kubepods.slice/kubepods-pod5f9b1c2d_0000_4000_8000_000000000001.slice/"
		     "cri-containerd-" ID ".scope\n"));
	ck_assert_int_eq(C.kind, RT_CONTAINERD);
	ck_assert_str_eq(C.pod_id, "5f9b1c2d-0000-4000-8000-000000000001");
	/* Kubernetes with cgroupfs: pod<uid>/<id> */
	ck_assert(cg("3:memory:/kubepods/burstable/pod5f9b1c2d-0000-4000-8000-000000000001/" ID "\n"));
	ck_assert_int_eq(C.kind, RT_KUBE);
	ck_assert_str_eq(C.pod_id, "5f9b1c2d-0000-4000-8000-000000000001");
	/* not containers: the host, a user slice, a bare hex name, a short id, garbage */
	ck_assert(!cg("0::/\n"));
	ck_assert(!cg("0::/user.slice/user-0.slice/session-1.scope\n"));
	ck_assert(!cg("0::/" ID "\n"));
	ck_assert(!cg("0::/docker/60b11f889d31\n"));
	ck_assert(!cg("0::/libpod-" ID "x\n"));
	ck_assert(!cg("no colons at all\n::\n:\n"));
	ck_assert(!cg(""));
	ck_assert_str_eq(C.id, "");
}
END_TEST

START_TEST(test_json_reader)
{
	const char *t = " {\"a\": [1, -2.5e3, \"x\\\"y\", true, false, null, {}],"
			" \"b\\u0041\": \"\\u00e9\\ud83d\\ude00\\n\", \"c\": {\"d\": \"e\"}} ";
	struct json_val root, v, k, e;
	char out[64];
	size_t pos = 0;
	int n = 0;

	ck_assert(json_parse(t, strlen(t), &root));
	ck_assert_int_eq(json_type(root), JSON_OBJECT);
	ck_assert(json_get(root, "a", &v));
	ck_assert_int_eq(json_type(v), JSON_ARRAY);
	while (json_next(v, &pos, NULL, &e))
		n++;
	ck_assert_int_eq(n, 7);
	/* keys are compared decoded */
	ck_assert(json_get(root, "bA", &v));
	ck_assert_int_eq(json_str(v, out, sizeof(out)), 7);
	ck_assert_str_eq(out, "\xc3\xa9\xf0\x9f\x98\x80\n");
	ck_assert(json_get(root, "c", &v));
	ck_assert(json_get(v, "d", &e));
	ck_assert_int_eq(json_str(e, out, sizeof(out)), 1);
	ck_assert(!json_get(root, "d", &v));
	pos = 0;
	ck_assert(json_next(root, &pos, &k, &v));
	ck_assert_int_eq(json_str(k, out, sizeof(out)), 1);
	/* a cut keeps whole characters */
	ck_assert(json_get(root, "bA", &v));
	ck_assert_int_eq(json_str(v, out, 4), 2);
	ck_assert_int_eq(json_str(v, out, 3), 2);
	ck_assert_int_eq(json_str(v, out, 2), 0);
	/* a broken raw sequence does not swallow the escape after it (found by the fuzzer) */
	ck_assert(json_parse("\"a\xeen\\\\ub\"", 9, &v));
	ck_assert_int_eq(json_str(v, out, sizeof(out)), 6);
	ck_assert(!memcmp(out, "a\xeen\\ub", 6));
	/* a lone surrogate becomes U+FFFD */
	ck_assert(json_parse("\"\\ud800x\"", 9, &v));
	ck_assert_int_eq(json_str(v, out, sizeof(out)), 4);
	ck_assert_str_eq(out, "\xef\xbf\xbdx");
	/* not strings */
	ck_assert_int_eq(json_str(root, out, sizeof(out)), -1);
	ck_assert_str_eq(out, "");
	/* malformed texts */
	ck_assert(!json_parse("{", 1, &v));
	ck_assert(!json_parse("{\"a\" 1}", 7, &v));
	ck_assert(!json_parse("[1,]", 4, &v));
	ck_assert(!json_parse("\"\\x\"", 4, &v));
	ck_assert(!json_parse("\"\\u12\"", 6, &v));
	ck_assert(!json_parse("\"a\nb\"", 5, &v));
	ck_assert(!json_parse("tru", 3, &v));
	ck_assert(!json_parse("1 2", 3, &v));
	ck_assert(!json_parse("", 0, &v));
	{
		char deep[2 * JSON_MAX_DEPTH + 8];
		int i;

		for (i = 0; i < JSON_MAX_DEPTH + 2; i++) {
			deep[i] = '[';
			deep[2 * (JSON_MAX_DEPTH + 2) - 1 - i] = ']';
		}
		ck_assert(!json_parse(deep, 2 * (JSON_MAX_DEPTH + 2), &v));
		ck_assert(json_parse(deep + 4, 2 * (JSON_MAX_DEPTH + 2) - 8, &v));
	}
}
END_TEST

START_TEST(test_docker_config)
{
	const char *t = "{\"ID\":\"" ID "\",\"Name\":\"/webapp\",\"Config\":{\"Image\":\"x\","
			"\"Labels\":{\"app\":\"web\",\"tier\":\"front\"}}}";
	const char *k8s = "{\"Name\":\"/k8s_c_pod\",\"Config\":{\"Labels\":{"
			  "\"io.kubernetes.pod.name\":\"web-1\",\"io.kubernetes.pod.namespace\":"
			  "\"prod\",\"io.kubernetes.pod.uid\":\"u-1\"}}}";
	struct cond_label l[RT_LABELS];

	ck_assert(cg("12:pids:/docker/" ID "\n"));
	ck_assert_int_eq(rt_docker_config(&C, t, strlen(t)), 0);
	ck_assert_str_eq(C.name, "/webapp");
	ck_assert_uint_eq(rt_labels(&C, l, RT_LABELS), 2);
	ck_assert(l[1].key.len == 4 && !memcmp(l[1].key.s, "tier", 4));
	ck_assert(l[1].value.len == 5 && !memcmp(l[1].value.s, "front", 5));
	ck_assert(!C.in_pod);
	/* everything answered: no pod, so every pod term is surely false */
	ck_assert_uint_eq(C.known, CK_CONTAINER);
	ck_assert(cg("12:pids:/docker/" ID "\n"));
	ck_assert_int_eq(rt_docker_config(&C, k8s, strlen(k8s)), 0);
	ck_assert(C.in_pod);
	ck_assert_str_eq(C.pod_name, "web-1");
	ck_assert_str_eq(C.pod_ns, "prod");
	ck_assert_str_eq(C.pod_id, "u-1");
	/* a pod's own labels are not on the node */
	ck_assert(!(C.known & CK_BIT(CK_POD_LABEL)));
	ck_assert_ptr_nonnull(C.unknown_why);
	ck_assert_int_eq(rt_docker_config(&C, "{\"Name\":", 8), -1);
	ck_assert_int_eq(rt_docker_config(&C, "[]", 2), -1);
}
END_TEST

START_TEST(test_oci_configs)
{
	const char *crio = "{\"ociVersion\":\"1.0.2\",\"annotations\":{"
			   "\"io.kubernetes.container.name\":\"nginx\","
			   "\"io.kubernetes.pod.name\":\"web-7d9f\",\"io.kubernetes.pod.namespace\":"
			   "\"prod\",\"io.kubernetes.pod.uid\":\"5f9b\","
			   "\"io.kubernetes.cri-o.Labels\":\"{\\\"app\\\":\\\"web\\\"}\"}}";
	const char *cri = "{\"annotations\":{\"io.kubernetes.cri.container-name\":\"nginx\","
			  "\"io.kubernetes.cri.sandbox-name\":\"web-1\","
			  "\"io.kubernetes.cri.sandbox-namespace\":\"dev\","
			  "\"io.kubernetes.cri.sandbox-uid\":\"u-9\"}}";
	const char *podman = "{\"annotations\":{\"io.container.manager\":\"libpod\"}}";
	const char *names = "[{\"id\":\"0000\",\"names\":[\"other\"]},{\"id\":\"" ID "\","
			    "\"names\":[\"mt15web\",\"alias\"],\"image\":\"x\"}]";
	struct cond_label l[RT_LABELS];

	ck_assert(cg("0::/kubepods.slice/crio-" ID ".scope\n"));
	ck_assert_int_eq(rt_oci_config(&C, crio, strlen(crio)), 0);
	ck_assert_str_eq(C.name, "nginx");
	ck_assert_str_eq(C.pod_name, "web-7d9f");
	ck_assert_str_eq(C.pod_ns, "prod");
	ck_assert_str_eq(C.pod_id, "5f9b");
	ck_assert_uint_eq(rt_labels(&C, l, RT_LABELS), 1);
	ck_assert(C.known & CK_BIT(CK_CONT_LABEL));
	ck_assert(cg("0::/kubepods.slice/cri-containerd-" ID ".scope\n"));
	ck_assert_int_eq(rt_oci_config(&C, cri, strlen(cri)), 0);
	ck_assert_str_eq(C.name, "nginx");
	ck_assert_str_eq(C.pod_name, "web-1");
	ck_assert_str_eq(C.pod_ns, "dev");
	ck_assert_str_eq(C.pod_id, "u-9");
	ck_assert(!(C.known & CK_BIT(CK_CONT_LABEL)));	/* in containerd's database */
	/* podman: labels only in its database; the name in containers.json */
	ck_assert(cg("0::/libpod_parent/libpod-" ID "\n"));
	ck_assert_int_eq(rt_oci_config(&C, podman, strlen(podman)), 0);
	ck_assert(!(C.known & CK_BIT(CK_CONT_LABEL)));
	ck_assert_msg(strstr(C.unknown_why, "podman"), "%s", C.unknown_why);
	ck_assert(!C.in_pod);
	ck_assert(C.known & CK_BIT(CK_POD_NAME));
	ck_assert_int_eq(rt_podman_names(&C, names, strlen(names)), 0);
	ck_assert_str_eq(C.name, "mt15web");
	ck_assert(C.known & CK_BIT(CK_CONT_NAME));
	strcpy(C.id, "1111111111111111111111111111111111111111111111111111111111111111");
	ck_assert_int_eq(rt_podman_names(&C, names, strlen(names)), -1);
	ck_assert_int_eq(rt_podman_names(&C, "{}", 2), -1);
	ck_assert_int_eq(rt_oci_config(&C, "{\"annotations\":", 15), -1);
}
END_TEST

START_TEST(test_labels_bounded)
{
	char k[16];
	int i;

	memset(&C, 0, sizeof(C));
	for (i = 0; i < RT_LABELS; i++) {
		snprintf(k, sizeof(k), "k%d", i);
		ck_assert(rt_add_label(&C, k, strlen(k), "v", 1));
	}
	ck_assert(!rt_add_label(&C, "x", 1, "y", 1));
	memset(&C, 0, sizeof(C));
	ck_assert(!rt_add_label(&C, "x", 1, NULL, RT_LTEXT));
	ck_assert_str_eq(rt_kind_name(RT_PODMAN), "podman");
	ck_assert_str_eq(rt_kind_name(RT__COUNT), "");
}
END_TEST

START_TEST(test_proc_parsers)
{
	const char *st = "Name:\tbash\nUmask:\t0022\nState:\tS (sleeping)\nTgid:\t1234\n"
			 "Ngid:\t0\nPid:\t1236\nPPid:\t1200\nCapInh:\t0000000000000000\n"
			 "CapPrm:\t000001ffffffffff\nCapEff:\t0000000000200000\n"
			 "CapBnd:\t000001ffffffffff\nCapAmb:\t0000000000000400\n";
	const char *stat = "1234 (a) b) c) S 1 1234 1234 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 "
			   "987654 1000 200\n";
	int32_t tgid, ppid;
	uint64_t cap[5], ticks;
	char out[16];
	bool cut;

	ck_assert_int_eq(pi_parse_status(st, strlen(st), &tgid, &ppid, cap), 0);
	ck_assert_int_eq(tgid, 1234);
	ck_assert_int_eq(ppid, 1200);
	ck_assert_uint_eq(cap[0], 0);
	ck_assert_uint_eq(cap[1], 0x1ffffffffffull);
	ck_assert_uint_eq(cap[2], 0x200000);
	ck_assert_uint_eq(cap[4], 0x400);
	ck_assert_int_eq(pi_parse_status("Tgid:\t-1\nPPid:\t0\n", 18, &tgid, &ppid, cap), -1);
	ck_assert_int_eq(pi_parse_status("PPid:\t0\n", 8, &tgid, &ppid, cap), -1);
	ck_assert_int_eq(pi_parse_status("Tgid:\t5\nPPid:\t0\nCapEff:\tzz\n", 26, &tgid, &ppid, cap),
			 -1);
	ck_assert_int_eq(pi_parse_starttime(stat, strlen(stat), &ticks), 0);
	ck_assert_uint_eq(ticks, 987654);
	ck_assert_int_eq(pi_parse_starttime("1 (x) S 1 2", 11, &ticks), -1);
	ck_assert_int_eq(pi_parse_starttime("no paren", 8, &ticks), -1);
	ck_assert_uint_eq(pi_join_cmdline("ls\0-l\0/tmp\0", 11, out, sizeof(out), &cut), 10);
	ck_assert(!memcmp(out, "ls -l /tmp", 10) && !cut);
	ck_assert_uint_eq(pi_join_cmdline("abcdefghijklmnopqrstuvwxyz", 26, out, sizeof(out), &cut),
			  16);
	ck_assert(cut);
	ck_assert_uint_eq(pi_join_cmdline("\0\0", 2, out, sizeof(out), &cut), 0);
}
END_TEST

/* What the conditions see of a process: known keys by what was read. */
START_TEST(test_subject)
{
	struct pi_ctx x;
	struct procinfo pi;
	struct cond_subject s;
	struct cond_label l[RT_LABELS];

	ck_assert_int_eq(pi_init(&x, "/proc", "", 4), 0);
	memset(&pi, 0, sizeof(pi));
	pi.pid = 7;
	pi.container = -1;
	pi_subject(&x, &pi, "sh", 2, "w", 1, l, &s);
	ck_assert_uint_eq(s.known, CK_BIT(CK_PID) | CK_BIT(CK_NAME) | CK_BIT(CK_TNAME));
	pi.have = PI_STATUS | PI_CMDLINE | PI_EXEPATH | PI_CGROUP;
	pi_subject(&x, &pi, "sh", 2, "w", 1, l, &s);
	ck_assert_uint_eq(s.known, (1u << CK__COUNT) - 1);	/* no container: known, false */
	ck_assert(!s.in_container);
	pi_free(&x);
}
END_TEST

/* pi_read() on a live process: ours. */
START_TEST(test_read_self)
{
	struct pi_ctx x;
	struct procinfo pi;
	char exe[PI_EXE];
	ssize_t n;

	ck_assert_int_eq(pi_init(&x, "/proc", "", 4), 0);
	memset(&pi, 0, sizeof(pi));
	ck_assert_int_eq(pi_read(&x, getpid(), PI_ALL, &pi), 0);
	ck_assert_int_eq(pi.pid, getpid());
	ck_assert_int_eq(pi.ppid, getppid());
	ck_assert_uint_eq(pi.have, PI_ALL);
	n = readlink("/proc/self/exe", exe, sizeof(exe));
	ck_assert(n > 0 && pi.exe_len == n && !memcmp(exe, pi.exe, (size_t)n));
	ck_assert_uint_gt(pi.ns_ino, 0);
	ck_assert_int_gt(pi.started_s, 1700000000);
	ck_assert_int_eq(pi_read(&x, 0x7ffffff0, PI_ALL, &pi), -ENOENT);
	pi_free(&x);
}
END_TEST

/*
 * Issue 24: a process whose memory is gone (a zombie here; an exiting one the
 * same) reads as a kernel thread does, no exe and an empty cmdline: that is
 * not known (a gone run of a short process was picked on an "exe":"" under
 * NOT process.exe). A kernel thread's empty exe and cmd are known.
 */
START_TEST(test_read_gone_memory)
{
	struct pi_ctx x;
	struct procinfo pi;
	pid_t c;

	ck_assert_int_eq(pi_init(&x, "/proc", "", 4), 0);
	c = fork();
	ck_assert_int_ge(c, 0);
	if (!c)
		_exit(0);
	/* until it has exited, not reaped (WNOWAIT): a zombie, however slow the machine
	 * (polling its state for a second failed under valgrind beside other work) */
	{
		siginfo_t si;

		memset(&si, 0, sizeof(si));
		ck_assert_int_eq(waitid(P_PID, (id_t)c, &si, WEXITED | WNOWAIT), 0);
		ck_assert_int_eq(si.si_pid, c);
	}
	memset(&pi, 0, sizeof(pi));
	memcpy(pi.exe, "/before", 7);
	pi.exe_len = 7;
	ck_assert_int_eq(pi_read(&x, c, PI_ALL, &pi), 0);
	ck_assert_int_eq(pi.pid, c);
	ck_assert_uint_eq(pi.have & (PI_CMDLINE | PI_EXEPATH), 0);
	ck_assert(pi.exe_len == 7 && !memcmp(pi.exe, "/before", 7));	/* left as it was */
	ck_assert_int_eq(waitpid(c, NULL, 0), c);
	/* kthreadd */
	memset(&pi, 0, sizeof(pi));
	if (pi_read(&x, 2, PI_ALL, &pi) == 0) {
		ck_assert_uint_eq(pi.have & (PI_CMDLINE | PI_EXEPATH), PI_CMDLINE | PI_EXEPATH);
		ck_assert_uint_eq(pi.exe_len, 0);
		ck_assert_uint_eq(pi.cmd_len, 0);
	}
	pi_free(&x);
}
END_TEST

Suite *suite_runtime(void)
{
	Suite *s = suite_create("runtime");
	TCase *tc = tcase_create("runtime");

	tcase_add_test(tc, test_cgroup_patterns);
	tcase_add_test(tc, test_json_reader);
	tcase_add_test(tc, test_docker_config);
	tcase_add_test(tc, test_oci_configs);
	tcase_add_test(tc, test_labels_bounded);
	tcase_add_test(tc, test_proc_parsers);
	tcase_add_test(tc, test_subject);
	tcase_add_test(tc, test_read_self);
	tcase_add_test(tc, test_read_gone_memory);
	suite_add_tcase(s, tc);
	return s;
}
