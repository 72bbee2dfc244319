/* SPDX-License-Identifier: GPL-2.0-only */
/* module.h - module entries: load brackets from module and syscall events, boot and /proc/modules entries */
#ifndef MEMTRACE_MODULE_H
#define MEMTRACE_MODULE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel/event.h"
#include "model/table.h"

/**
 * module_event() - a module or module-syscall event
 * @t: the task of ev->tid, made at first sight for EV_MODSYS_ENTER and
 *     EV_MOD_LOAD, looked up (NULL if unknown) for EV_MOD_PUT and
 *     EV_MODSYS_EXIT, unused for EV_MOD_FREE (the caller resolves it, so that
 *     task creation stays one place above this file)
 * @initmod_start, @initmod_end: do_init_module's address range, 0 if unknown
 */
void module_event(struct table *tb, const struct mt_event *ev, struct mt_task *t,
		  uint64_t initmod_start, uint64_t initmod_end);

/* Task @t exits: an open bracket closes, a module still loading has failed. */
void module_task_exit(struct table *tb, struct mt_task *t, uint64_t ts);

/**
 * module_present() - make sure a module the kernel lists has an entry
 *
 * For the modules in /proc/modules just before tracing begins. A module that
 * has a live entry already (from the boot buffer) is returned as is; any other
 * gets a new entry in state MOD_BEFORE: loaded before tracing began, no pages
 * counted. Not for the event path. Return: the entry, or NULL when the table
 * is full (counted in module_overflow).
 */
struct mt_module *module_present(struct table *tb, const char *name, size_t len);

/*
 * From the kernel's boot buffer (boot.c): a module loaded by @tid at @ts
 * (state live, bracket BR_BOOT, no pages), and a module removed at @ts (the
 * latest entry of that name becomes unloaded). Not for the event path.
 * Return: the entry, or NULL (table full, or no such module).
 */
struct mt_module *module_booted(struct table *tb, const char *name, size_t len, int32_t tid,
				uint64_t ts);
struct mt_module *module_gone(struct table *tb, const char *name, size_t len, uint64_t ts);

/* The live entry (not unloaded or failed) of module @name, or NULL. */
struct mt_module *module_live(const struct table *tb, const char *name, size_t len);

/* true while a traced load has an open bracket and no name yet */
bool module_unnamed_open(const struct table *tb);

#endif
