/* SPDX-License-Identifier: GPL-2.0-only */
/* stream/runtime.h - containers: the id from /proc/PID/cgroup; names, labels, pods from runtime files (pure) */
#ifndef MEMTRACE_STREAM_RUNTIME_H
#define MEMTRACE_STREAM_RUNTIME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/cond.h"

#define RT_ID_LEN	64	/* hex digits of a container id */
#define RT_STR		128	/* names, pod fields (cut longer ones) */
#define RT_LABELS	32
#define RT_LTEXT	2048	/* bytes of all labels' keys and values */

/* Who made the container, told by its cgroup path. */
enum rt_kind { RT_NONE = 0, RT_DOCKER, RT_PODMAN, RT_CRIO, RT_CONTAINERD, RT_KUBE, RT__COUNT };

struct rt_label {
	uint16_t k, klen, v, vlen;	/* in ltext */
};

/* One container as memtrace knows it. */
struct rt_container {
	char id[RT_ID_LEN + 1];
	uint8_t kind;			/* enum rt_kind */
	char name[RT_STR];
	bool in_pod;
	char pod_id[RT_STR], pod_name[RT_STR], pod_ns[RT_STR];
	uint32_t nlabels;
	struct rt_label label[RT_LABELS];
	char ltext[RT_LTEXT];
	uint32_t nltext;
	uint32_t known;			/* CK_BIT of container.* and pod.* keys answered */
	const char *unknown_why;	/* why some are not: for the one warning */
};

/* "docker", "podman", ... ("" for RT_NONE). */
const char *rt_kind_name(enum rt_kind k);

/**
 * rt_parse_cgroup() - the container of a process, from its /proc/PID/cgroup
 *
 * Docker (docker-ID.scope, /docker/ID), podman (libpod-ID[.scope]), CRI-O
 * (crio-ID.scope), containerd's CRI (cri-containerd-ID.scope) and Kubernetes'
 * cgroupfs layout (.../podUID/ID) are recognized, in any hierarchy line.
 * @c: filled with id, kind and (Kubernetes) the pod uid; the rest zeroed
 * Return: true if the process is in a container.
 */
bool rt_parse_cgroup(const char *text, size_t len, struct rt_container *c);

/* Docker's containers/ID/config.v2.json: Name, Config.Labels (and Kubernetes' pod labels). */
int rt_docker_config(struct rt_container *c, const char *text, size_t len);

/*
 * An OCI config.json (CRI-O, containerd's CRI, podman): the annotations
 * io.kubernetes.* give the pod and container names; CRI-O's
 * io.kubernetes.cri-o.Labels the labels.
 */
int rt_oci_config(struct rt_container *c, const char *text, size_t len);

/* Podman's (containers/storage) containers.json: the container's name. */
int rt_podman_names(struct rt_container *c, const char *text, size_t len);

/* A label (key, value) into @c; false when there is no room. */
bool rt_add_label(struct rt_container *c, const char *k, size_t klen, const char *v, size_t vlen);

/* @c's labels as the conditions read them, at most @max; how many. */
uint32_t rt_labels(const struct rt_container *c, struct cond_label *out, uint32_t max);

#endif
