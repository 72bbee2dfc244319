/* SPDX-License-Identifier: GPL-2.0-only */
/* kernel/proc.h - /proc and /sys: their parsers (pure) and readers: names, memory, CPUs, page-frame range, modules */
#ifndef MEMTRACE_KERNEL_PROC_H
#define MEMTRACE_KERNEL_PROC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Pure parsers (bytes in, numbers out); each returns 0 or -1 on malformed input. */

/* "size resident shared ..." -> resident pages */
int proc_parse_statm(const char *text, size_t len, uint64_t *resident);

/* "pid (comm) state ppid pgrp ... flags ..." -> ppid and flags (field 9) */
int proc_parse_stat(const char *text, size_t len, int32_t *ppid, uint64_t *flags);

/* "MemTotal:" and "MemAvailable:" of /proc/meminfo, in KiB */
int proc_parse_meminfo(const char *text, size_t len, uint64_t *avail_kib, uint64_t *total_kib);

/* /proc/meminfo's MemTotal, MemFree and MemAvailable in KiB (total 0: not known) */
struct proc_mem {
	uint64_t total_kib, free_kib;
	uint64_t avail_kib;		/* 0 on a kernel without MemAvailable (before 3.14) */
};
/* MemTotal and MemFree are needed (-1 without them, and zeroes), MemAvailable is not */
int proc_parse_mem(const char *text, size_t len, struct proc_mem *m);

/*
 * A CPU list as /sys/devices/system/cpu/online says it ("0-3,8,10-11"): bit N
 * of @mask set for each CPU N below @nbits listed (an empty list is none).
 */
int proc_parse_cpulist(const char *text, size_t len, uint8_t *mask, uint32_t nbits);

/* "address sizes : 46 bits physical, 48 bits virtual" (x86 /proc/cpuinfo) -> 46 */
int proc_parse_phys_bits(const char *text, size_t len, unsigned int *bits);

/* max over zones of start_pfn + spanned */
int proc_parse_zoneinfo(const char *text, size_t len, uint64_t *max_pfn);

/*
 * One line of /proc/modules: "name size refcount deps state address [taints]".
 * @name points into @line (not terminated); @loading is true for state "Loading".
 */
struct proc_module {
	const char *name;
	size_t name_len;
	uint64_t size;		/* bytes, as the kernel prints it */
	bool loading;
	uint64_t addr;		/* its code's start; 0 if hidden (kptr_restrict) or not given */
};
int proc_parse_module_line(const char *line, size_t len, struct proc_module *pm);

/* I/O wrappers; roots are "/proc" and "/sys" unless tests say otherwise. */

/* /proc/<tid>/comm of a live task, without its newline; 0 or -errno */
int proc_read_comm(const char *proc_root, int32_t tid, char *buf, size_t size, size_t *len);

/* MemAvailable and MemTotal from /proc/meminfo in KiB; 0 or -errno. */
int proc_meminfo(const char *proc_root, uint64_t *avail_kib, uint64_t *total_kib);

/* proc_parse_mem() of @proc_root/meminfo; 0 or -errno (-EINVAL: malformed) */
int proc_mem(const char *proc_root, struct proc_mem *m);

/* Largest page frame number + 1, from /proc/zoneinfo; 0 if unknown. */
uint64_t proc_max_pfn(const char *proc_root);

/* The CPU's physical address bits, from /proc/cpuinfo; 0 if it does not say. */
unsigned int proc_phys_bits(const char *proc_root);

/**
 * proc_modules() - call @fn for every well-formed line of /proc/modules
 * Return: the number of lines passed to @fn, or -errno; *@bad counts malformed lines.
 */
int proc_modules(const char *proc_root, void (*fn)(void *ctx, const struct proc_module *pm),
		 void *ctx, uint32_t *bad);

/* @sys_root/devices/system/cpu/online into @mask (proc_parse_cpulist()); 0 or -errno */
int sys_cpus_online(const char *sys_root, uint8_t *mask, uint32_t nbits);

/* /sys/module/NAME/coresize + initsize in KiB (rounded up); 0 or -errno */
int sys_module_kib(const char *sys_root, const char *name, uint64_t *kib);

#endif
