// SPDX-License-Identifier: GPL-2.0-only
/* stream/runtime.c - containers: the id from /proc/PID/cgroup; names, labels, pods from runtime files (pure) */
#include "stream/runtime.h"

#include <stdio.h>
#include <string.h>

#include "lib/json.h"

#define POD_KEYS	(CK_BIT(CK_POD_ID) | CK_BIT(CK_POD_NAME) | CK_BIT(CK_POD_NS) | \
			 CK_BIT(CK_POD_LABEL))

static const char *const kind_names[RT__COUNT] = {
	[RT_NONE] = "",
	[RT_DOCKER] = "docker",
	[RT_PODMAN] = "podman",
	[RT_CRIO] = "cri-o",
	[RT_CONTAINERD] = "containerd",
	[RT_KUBE] = "kubernetes",
};

const char *rt_kind_name(enum rt_kind k)
{
	return (unsigned)k < RT__COUNT ? kind_names[k] : "";
}

static bool all_hex(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}

static bool starts(const char *s, size_t n, const char *pfx, size_t *plen)
{
	*plen = strlen(pfx);
	return n >= *plen && !memcmp(s, pfx, *plen);
}

static void copy(char *dst, size_t size, const char *s, size_t n)
{
	if (n >= size)
		n = size - 1;
	memcpy(dst, s, n);
	dst[n] = '\0';
}

/* "pod1234-..." (cgroupfs) or "kubepods-besteffort-pod1234_5678.slice" (systemd): the uid */
static bool pod_uid(const char *s, size_t n, char *out, size_t size)
{
	const char *p = NULL;
	size_t i, k = 0;

	for (i = 0; i + 3 < n; i++)
		if (!memcmp(s + i, "pod", 3) && (i == 0 || s[i - 1] == '-'))
			p = s + i + 3;
	if (!p)
		return false;
	n -= (size_t)(p - s);
	if (n > 6 && !memcmp(p + n - 6, ".slice", 6))
		n -= 6;
	if (n < 32 || n > 36 || size < n + 1)
		return false;
	for (i = 0; i < n; i++)
		if (p[i] != '-' && p[i] != '_' && !all_hex(p + i, 1))
			return false;
	for (i = 0; i < n; i++)
		out[k++] = p[i] == '_' ? '-' : p[i];
	out[k] = '\0';
	return true;
}

/* One path component: a container id with its kind, or false. */
static bool component(const char *s, size_t n, const char *parent, size_t plen,
		      struct rt_container *c)
{
	static const struct { const char *pfx; uint8_t kind; } pfx[] = {
		{ "docker-", RT_DOCKER }, { "libpod-", RT_PODMAN }, { "crio-", RT_CRIO },
		{ "cri-containerd-", RT_CONTAINERD },
	};
	uint8_t kind = RT_NONE;
	size_t i, l;

	if (n > 6 && !memcmp(s + n - 6, ".scope", 6))
		n -= 6;
	for (i = 0; i < sizeof(pfx) / sizeof(pfx[0]); i++) {
		if (starts(s, n, pfx[i].pfx, &l)) {
			s += l;
			n -= l;
			kind = pfx[i].kind;
			break;
		}
	}
	if (n != RT_ID_LEN || !all_hex(s, n))
		return false;
	if (kind == RT_NONE) {
		if (plen == 6 && !memcmp(parent, "docker", 6))
			kind = RT_DOCKER;
		else if (plen >= 3 && (pod_uid(parent, plen, c->pod_id, sizeof(c->pod_id))))
			kind = RT_KUBE;
		else
			return false;
	}
	memcpy(c->id, s, RT_ID_LEN);
	c->id[RT_ID_LEN] = '\0';
	c->kind = kind;
	return true;
}

/* The last container id in one cgroup path. */
static bool path_id(const char *p, size_t n, struct rt_container *c)
{
	const char *comp[64];
	size_t clen[64], k = 0, i = 0;

	while (i < n && k < 64) {
		size_t j;

		while (i < n && p[i] == '/')
			i++;
		j = i;
		while (j < n && p[j] != '/')
			j++;
		if (j > i) {
			comp[k] = p + i;
			clen[k++] = j - i;
		}
		i = j;
	}
	while (k--) {
		if (component(comp[k], clen[k], k ? comp[k - 1] : "", k ? clen[k - 1] : 0, c)) {
			/* a Kubernetes pod further up (kubepods-...-podUID.slice, podUID) */
			for (i = 0; i < k && !c->pod_id[0]; i++)
				pod_uid(comp[i], clen[i], c->pod_id, sizeof(c->pod_id));
			return true;
		}
	}
	return false;
}

bool rt_parse_cgroup(const char *text, size_t len, struct rt_container *c)
{
	size_t i = 0;

	memset(c, 0, sizeof(*c));
	while (i < len) {
		const char *line = text + i, *nl = memchr(line, '\n', len - i), *colon;
		size_t n = nl ? (size_t)(nl - line) : len - i;

		i += n + 1;
		/* "ID:CONTROLLERS:PATH": the path is after the second colon */
		colon = memchr(line, ':', n);
		if (colon)
			colon = memchr(colon + 1, ':', n - (size_t)(colon + 1 - line));
		if (!colon)
			continue;
		if (path_id(colon + 1, n - (size_t)(colon + 1 - line), c))
			break;
		memset(c->pod_id, 0, sizeof(c->pod_id));
	}
	if (!c->id[0])
		return false;
	c->known = CK_BIT(CK_CONT_ID);
	if (c->pod_id[0]) {
		c->in_pod = true;
		c->known |= CK_BIT(CK_POD_ID);
	}
	return true;
}

bool rt_add_label(struct rt_container *c, const char *k, size_t klen, const char *v, size_t vlen)
{
	struct rt_label *l;

	if (c->nlabels >= RT_LABELS || klen + vlen > RT_LTEXT - c->nltext || klen > 0xffff ||
	    vlen > 0xffff)
		return false;
	l = &c->label[c->nlabels++];
	l->k = (uint16_t)c->nltext;
	l->klen = (uint16_t)klen;
	memcpy(c->ltext + c->nltext, k, klen);
	c->nltext += (uint32_t)klen;
	l->v = (uint16_t)c->nltext;
	l->vlen = (uint16_t)vlen;
	memcpy(c->ltext + c->nltext, v, vlen);
	c->nltext += (uint32_t)vlen;
	return true;
}

uint32_t rt_labels(const struct rt_container *c, struct cond_label *out, uint32_t max)
{
	uint32_t i;

	for (i = 0; i < c->nlabels && i < max; i++) {
		out[i].key.s = c->ltext + c->label[i].k;
		out[i].key.len = c->label[i].klen;
		out[i].value.s = c->ltext + c->label[i].v;
		out[i].value.len = c->label[i].vlen;
	}
	return i;
}

/* An object's string members as labels. */
static void labels_from(struct rt_container *c, struct json_val obj)
{
	static char k[RT_LTEXT], v[RT_LTEXT];
	struct json_val kv, vv;
	size_t pos = 0;

	while (json_next(obj, &pos, &kv, &vv)) {
		long kl = json_str(kv, k, sizeof(k)), vl = json_str(vv, v, sizeof(v));

		if (kl > 0 && vl >= 0)
			rt_add_label(c, k, (size_t)kl, v, (size_t)vl);
	}
}

/* A string member into @dst; false if there is none. */
static bool str_member(struct json_val obj, const char *key, char *dst, size_t size)
{
	struct json_val v;

	return json_get(obj, key, &v) && json_str(v, dst, size) > 0;
}

/* The pod from Kubernetes' names (labels or annotations), any of two spellings. */
static void pod_from(struct rt_container *c, struct json_val obj, bool labels_known)
{
	bool name = str_member(obj, "io.kubernetes.pod.name", c->pod_name, sizeof(c->pod_name)) ||
		    str_member(obj, "io.kubernetes.cri.sandbox-name", c->pod_name,
			       sizeof(c->pod_name));

	if (!str_member(obj, "io.kubernetes.pod.namespace", c->pod_ns, sizeof(c->pod_ns)))
		str_member(obj, "io.kubernetes.cri.sandbox-namespace", c->pod_ns, sizeof(c->pod_ns));
	if (!str_member(obj, "io.kubernetes.pod.uid", c->pod_id, sizeof(c->pod_id)))
		str_member(obj, "io.kubernetes.cri.sandbox-uid", c->pod_id, sizeof(c->pod_id));
	if (!name && !c->pod_id[0]) {
		c->in_pod = false;
		c->known |= POD_KEYS;	/* no pod: every pod term is false, surely */
		return;
	}
	c->in_pod = true;
	c->known |= CK_BIT(CK_POD_ID) | CK_BIT(CK_POD_NAME) | CK_BIT(CK_POD_NS);
	if (labels_known)
		c->known |= CK_BIT(CK_POD_LABEL);
	else
		c->unknown_why = "a pod's labels are kept by the Kubernetes API server, not on "
				 "the node";
}

int rt_docker_config(struct rt_container *c, const char *text, size_t len)
{
	struct json_val root, cfg, labels;
	char name[RT_STR];

	if (!json_parse(text, len, &root) || json_type(root) != JSON_OBJECT)
		return -1;
	if (str_member(root, "Name", name, sizeof(name))) {
		copy(c->name, sizeof(c->name), name, strlen(name));
		c->known |= CK_BIT(CK_CONT_NAME);
	}
	if (json_get(root, "Config", &cfg) && json_type(cfg) == JSON_OBJECT) {
		c->known |= CK_BIT(CK_CONT_LABEL);
		if (json_get(cfg, "Labels", &labels) && json_type(labels) == JSON_OBJECT) {
			labels_from(c, labels);
			pod_from(c, labels, false);
		} else {
			pod_from(c, cfg, false);
		}
	}
	return 0;
}

int rt_oci_config(struct rt_container *c, const char *text, size_t len)
{
	static char lab[RT_LTEXT * 2];
	struct json_val root, ann, v, inner;
	char mgr[32];
	long n;

	if (!json_parse(text, len, &root) || json_type(root) != JSON_OBJECT)
		return -1;
	if (!json_get(root, "annotations", &ann) || json_type(ann) != JSON_OBJECT) {
		c->known |= POD_KEYS;	/* a bare OCI bundle: no pod */
		return 0;
	}
	if (!c->name[0] &&
	    (str_member(ann, "io.kubernetes.container.name", c->name, sizeof(c->name)) ||
	     str_member(ann, "io.kubernetes.cri.container-name", c->name, sizeof(c->name))))
		c->known |= CK_BIT(CK_CONT_NAME);
	if (str_member(ann, "io.container.manager", mgr, sizeof(mgr)) && !strcmp(mgr, "libpod"))
		c->kind = RT_PODMAN;
	/* CRI-O's labels annotation: a JSON object inside a string */
	if (json_get(ann, "io.kubernetes.cri-o.Labels", &v) &&
	    (n = json_str(v, lab, sizeof(lab))) > 0 && json_parse(lab, (size_t)n, &inner) &&
	    json_type(inner) == JSON_OBJECT) {
		labels_from(c, inner);
		c->known |= CK_BIT(CK_CONT_LABEL);
	} else if (!(c->known & CK_BIT(CK_CONT_LABEL))) {
		c->unknown_why = c->kind == RT_PODMAN ?
			"podman keeps labels in its database (bolt_state.db), not in a plain file" :
			"the runtime keeps labels in its database, not in the container's config";
	}
	pod_from(c, ann, false);
	return 0;
}

int rt_podman_names(struct rt_container *c, const char *text, size_t len)
{
	struct json_val root, e, id, names, first;
	char buf[RT_ID_LEN + 2];
	size_t pos = 0, p2 = 0;

	if (!json_parse(text, len, &root) || json_type(root) != JSON_ARRAY)
		return -1;
	while (json_next(root, &pos, NULL, &e)) {
		if (json_type(e) != JSON_OBJECT || !json_get(e, "id", &id) ||
		    json_str(id, buf, sizeof(buf)) != RT_ID_LEN || strcmp(buf, c->id))
			continue;
		if (json_get(e, "names", &names) && json_next(names, &p2, NULL, &first) &&
		    json_str(first, c->name, sizeof(c->name)) > 0)
			c->known |= CK_BIT(CK_CONT_NAME);
		return 0;
	}
	return -1;
}
