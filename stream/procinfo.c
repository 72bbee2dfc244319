// SPDX-License-Identifier: GPL-2.0-only
/* stream/procinfo.c - what a stream line says of a process: /proc/PID files and its container, cached */
#include "stream/procinfo.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lib/util.h"

#define FILE_MAX	(1 << 20)	/* runtime files read at most this big */

int pi_init(struct pi_ctx *x, const char *proc_root, const char *rt_root, uint32_t containers)
{
	struct timespec real, boot;

	memset(x, 0, sizeof(*x));
	snprintf(x->proc, sizeof(x->proc), "%s", proc_root);
	snprintf(x->rt_root, sizeof(x->rt_root), "%s", rt_root ? rt_root : "");
	x->hz = sysconf(_SC_CLK_TCK);
	if (x->hz <= 0)
		x->hz = 100;
	clock_gettime(CLOCK_REALTIME, &real);
	clock_gettime(CLOCK_BOOTTIME, &boot);
	x->boot_utc_ns = ((int64_t)real.tv_sec - boot.tv_sec) * 1000000000ll +
			 (real.tv_nsec - boot.tv_nsec);
	x->cap = containers ? containers : 1;
	x->cont = calloc(x->cap, sizeof(*x->cont));
	return x->cont ? 0 : -ENOMEM;
}

void pi_free(struct pi_ctx *x)
{
	free(x->cont);
	x->cont = NULL;
	x->cap = x->ncont = 0;
}

static const char *field(const char *text, size_t len, const char *key)
{
	size_t n = strlen(key);
	const char *p = text, *end = text + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));

		if ((size_t)(end - p) > n && !memcmp(p, key, n))
			return p + n;
		p = nl ? nl + 1 : end;
	}
	return NULL;
}

static bool take_num(const char *p, const char *end, int base, uint64_t *v)
{
	char *e;
	char buf[32];
	size_t n = 0;

	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	while (p < end && n < sizeof(buf) - 1 && *p != '\n')
		buf[n++] = *p++;
	buf[n] = '\0';
	if (!n || buf[0] == '-')
		return false;
	errno = 0;
	*v = strtoull(buf, &e, base);
	return !errno && e != buf;
}

int pi_parse_status(const char *text, size_t len, int32_t *tgid, int32_t *ppid, uint64_t cap[5])
{
	static const char *const caps[5] = { "CapInh:", "CapPrm:", "CapEff:", "CapBnd:", "CapAmb:" };
	const char *end = text + len, *p;
	uint64_t v;
	int i;

	p = field(text, len, "Tgid:");
	if (!p || !take_num(p, end, 10, &v) || !v || v > INT32_MAX)
		return -1;
	*tgid = (int32_t)v;
	p = field(text, len, "PPid:");
	if (!p || !take_num(p, end, 10, &v) || v > INT32_MAX)
		return -1;
	*ppid = (int32_t)v;
	for (i = 0; i < 5; i++) {
		p = field(text, len, caps[i]);
		cap[i] = 0;
		/* CapAmb is missing before 4.3 */
		if (p && !take_num(p, end, 16, &cap[i]))
			return -1;
	}
	return 0;
}

size_t pi_join_cmdline(const char *raw, size_t n, char *out, size_t size, bool *cut)
{
	size_t i, o = 0;

	while (n && raw[n - 1] == '\0')
		n--;
	*cut = false;
	for (i = 0; i < n; i++) {
		if (o >= size) {
			*cut = true;
			break;
		}
		out[o++] = raw[i] ? raw[i] : ' ';
	}
	return o;
}

int pi_parse_starttime(const char *text, size_t len, uint64_t *ticks)
{
	const char *end = text + len, *p = NULL, *q;
	int field_no;

	for (q = text; q < end; q++)
		if (*q == ')')
			p = q;
	if (!p)
		return -1;
	p++;
	/* after ") ": state is field 3; starttime is field 22 */
	for (field_no = 2; field_no < 22; field_no++) {
		while (p < end && *p == ' ')
			p++;
		if (field_no == 21)
			break;
		while (p < end && *p != ' ')
			p++;
		if (p >= end)
			return -1;
	}
	return take_num(p, end, 10, ticks) ? 0 : -1;
}

/* The runtime's files about @c, as far as they can be read. */
static void load_container(struct pi_ctx *x, struct rt_container *c)
{
	static char text[FILE_MAX];
	char p[PATH_MAX];
	ssize_t n;

	x->cont_loads++;
	/* docker (and Kubernetes on docker) */
	if ((c->kind == RT_DOCKER || c->kind == RT_KUBE) &&
	    !path_fmt(p, sizeof(p), "%s/var/lib/docker/containers/%s/config.v2.json", x->rt_root,
		      c->id) &&
	    (n = read_file(p, text, sizeof(text))) > 0 && !rt_docker_config(c, text, (size_t)n))
		return;
	/* containers/storage: podman and CRI-O */
	if (c->kind != RT_DOCKER && c->kind != RT_CONTAINERD &&
	    !path_fmt(p, sizeof(p), "%s/var/lib/containers/storage/overlay-containers/%s/userdata/"
		      "config.json", x->rt_root, c->id) &&
	    (n = read_file(p, text, sizeof(text))) > 0 && !rt_oci_config(c, text, (size_t)n)) {
		if (!(c->known & CK_BIT(CK_CONT_NAME)) &&
		    !path_fmt(p, sizeof(p), "%s/var/lib/containers/storage/overlay-containers/"
			      "containers.json", x->rt_root) &&
		    (n = read_file(p, text, sizeof(text))) > 0)
			rt_podman_names(c, text, (size_t)n);
		return;
	}
	/* containerd's CRI (Kubernetes), then its default namespace */
	if (c->kind != RT_DOCKER && c->kind != RT_PODMAN && c->kind != RT_CRIO &&
	    ((!path_fmt(p, sizeof(p), "%s/run/containerd/io.containerd.runtime.v2.task/k8s.io/%s/"
			"config.json", x->rt_root, c->id) &&
	      (n = read_file(p, text, sizeof(text))) > 0) ||
	     (!path_fmt(p, sizeof(p), "%s/run/containerd/io.containerd.runtime.v2.task/default/%s/"
			"config.json", x->rt_root, c->id) &&
	      (n = read_file(p, text, sizeof(text))) > 0)) &&
	    !rt_oci_config(c, text, (size_t)n))
		return;
	if (!c->unknown_why)
		c->unknown_why = "no file of its runtime could be read";
}

/* The cache entry of the container in @cg (read the first time), or -1 for none. */
static int32_t container_of(struct pi_ctx *x, const char *cg, size_t n)
{
	static struct rt_container c;
	uint32_t i;

	if (!rt_parse_cgroup(cg, n, &c))
		return -1;
	for (i = 0; i < x->ncont; i++)
		if (!strcmp(x->cont[i].id, c.id))
			return (int32_t)i;
	load_container(x, &c);
	if (x->ncont < x->cap) {
		i = x->ncont++;
	} else {
		i = x->next;
		x->next = (x->next + 1) % x->cap;
	}
	x->cont[i] = c;
	return (int32_t)i;
}

int pi_read(struct pi_ctx *x, int32_t tid, uint32_t want, struct procinfo *pi)
{
	static char buf[65536], exe[PI_EXE];
	char p[PATH_MAX];
	struct stat st;
	int32_t tgid = 0, ppid = 0;
	uint64_t cap[5], ticks;
	const char *q;
	ssize_t n;
	bool cut, kthread;

	x->reads++;
	/* the task's status says its process; the rest is the process's own */
	if (path_fmt(p, sizeof(p), "%s/%d/status", x->proc, tid))
		return -ENAMETOOLONG;
	n = read_file(p, buf, sizeof(buf));
	if (n <= 0 || pi_parse_status(buf, (size_t)n, &tgid, &ppid, cap)) {
		x->gone++;
		return -ENOENT;
	}
	pi->pid = tgid;
	pi->ppid = ppid;
	memcpy(pi->cap, cap, sizeof(cap));
	pi->have |= PI_STATUS;
	/* a kernel thread (Kthread: since 6.6; before, kthreadd's children) has no memory */
	q = field(buf, (size_t)n, "Kthread:");
	while (q && q < buf + n && (*q == '\t' || *q == ' '))
		q++;
	kthread = q ? q < buf + n && *q == '1' : tgid == 2 || ppid == 2;
	if ((want & PI_NAME) && !path_fmt(p, sizeof(p), "%s/%d/comm", x->proc, tgid) &&
	    (n = read_file(p, buf, sizeof(buf))) >= 0) {
		if (n > 0 && buf[n - 1] == '\n')
			n--;
		if (n >= PI_COMM)
			n = PI_COMM - 1;
		memcpy(pi->name, buf, (size_t)n);
		pi->name_len = (uint8_t)n;
		pi->have |= PI_NAME;
	}
	/*
	 * A process whose memory is gone (exiting, a zombie) reads as a kernel
	 * thread does: no exe, an empty cmdline. That is not known: left out.
	 */
	if ((want & PI_CMDLINE) && !path_fmt(p, sizeof(p), "%s/%d/cmdline", x->proc, tgid) &&
	    (n = read_file(p, buf, sizeof(buf))) >= 0 && (n > 0 || kthread)) {
		pi->cmd_len = (uint16_t)pi_join_cmdline(buf, (size_t)n, pi->cmd, sizeof(pi->cmd), &cut);
		pi->cmd_cut = cut || (size_t)n >= sizeof(buf) - 1;
		pi->have |= PI_CMDLINE;
	}
	if ((want & PI_EXEPATH) && !path_fmt(p, sizeof(p), "%s/%d/exe", x->proc, tgid)) {
		n = readlink(p, exe, sizeof(exe));
		if (n > 0 || kthread) {
			/* a kernel thread has none: an empty path */
			pi->exe_len = (uint16_t)(n > 0 && (size_t)n < sizeof(pi->exe) ? n : 0);
			memcpy(pi->exe, exe, pi->exe_len);
			pi->have |= PI_EXEPATH;
		}
	}
	if ((want & PI_CGROUP) && !path_fmt(p, sizeof(p), "%s/%d/cgroup", x->proc, tgid) &&
	    (n = read_file(p, buf, sizeof(buf))) >= 0) {
		pi->container = container_of(x, buf, (size_t)n);
		pi->have |= PI_CGROUP;
	}
	if ((want & PI_NS) && !path_fmt(p, sizeof(p), "%s/%d/ns/pid", x->proc, tgid) &&
	    !stat(p, &st)) {
		pi->ns_dev = (uint64_t)st.st_dev;
		pi->ns_ino = (uint64_t)st.st_ino;
		pi->have |= PI_NS;
	}
	if ((want & PI_START) && !path_fmt(p, sizeof(p), "%s/%d/stat", x->proc, tgid) &&
	    (n = read_file(p, buf, sizeof(buf))) > 0 &&
	    !pi_parse_starttime(buf, (size_t)n, &ticks)) {
		pi->started_s = (x->boot_utc_ns + (int64_t)(ticks * 1000000000ull / (uint64_t)x->hz)) /
				1000000000ll;
		pi->have |= PI_START;
	}
	return 0;
}

const struct rt_container *pi_container(const struct pi_ctx *x, const struct procinfo *pi)
{
	if (!(pi->have & PI_CGROUP) || pi->container < 0 || (uint32_t)pi->container >= x->ncont)
		return NULL;
	return &x->cont[pi->container];
}

static struct cond_str str(const char *s, size_t n)
{
	struct cond_str r = { s, n };

	return r;
}

void pi_subject(const struct pi_ctx *x, const struct procinfo *pi, const char *pname,
		size_t pname_len, const char *tname, size_t tname_len,
		struct cond_label *labels, struct cond_subject *s)
{
	const struct rt_container *c = pi_container(x, pi);

	memset(s, 0, sizeof(*s));
	s->pid = pi->pid;
	s->name = str(pname, pname_len);
	s->tname = str(tname, tname_len);
	s->known = CK_BIT(CK_NAME) | CK_BIT(CK_TNAME);
	if (pi->pid > 0)
		s->known |= CK_BIT(CK_PID);
	if (pi->have & PI_STATUS) {
		memcpy(s->cap, pi->cap, sizeof(s->cap));
		s->known |= CK_CAPS;
	}
	if (pi->have & PI_CMDLINE) {
		s->cmd = str(pi->cmd, pi->cmd_len);
		s->known |= CK_BIT(CK_CMD);
	}
	if (pi->have & PI_EXEPATH) {
		s->exe = str(pi->exe, pi->exe_len);
		s->known |= CK_BIT(CK_EXE);
	}
	if (!(pi->have & PI_CGROUP))
		return;
	if (!c) {
		s->known |= CK_CONTAINER;	/* in no container: every such term is false */
		return;
	}
	s->in_container = true;
	s->cont_id = str(c->id, strlen(c->id));
	s->cont_name = str(c->name, strlen(c->name));
	s->ncont_labels = rt_labels(c, labels, RT_LABELS);
	s->cont_labels = labels;
	s->in_pod = c->in_pod;
	s->pod_id = str(c->pod_id, strlen(c->pod_id));
	s->pod_name = str(c->pod_name, strlen(c->pod_name));
	s->pod_ns = str(c->pod_ns, strlen(c->pod_ns));
	s->known |= c->known;
}
