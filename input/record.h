/* SPDX-License-Identifier: GPL-2.0-only */
/* input/record.h - --record: the raw pages saved as read, the format files, memtrace.meta and memtrace.seed */
#ifndef MEMTRACE_INPUT_RECORD_H
#define MEMTRACE_INPUT_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "input/recording.h"
#include "kernel/reader.h"
#include "stats.h"
#include "tracefs.h"

/* A recording being written: its directory, its memtrace.meta, the first failure. */
struct recorder {
	int dfd;		/* the directory, locked (-1: none: the files are made in DIR) */
	int meta_fd;		/* memtrace.meta, open from the start (-1: none) */
	int err;		/* errno of the first failed write, 0 if none */
	char what[192];		/* what it was */
};

/* No recording started: the files are written in the directory they are given. */
#define RECORDER_NONE	{ .dfd = -1, .meta_fd = -1 }

/**
 * record_check() - whether record_start() could use @dir, found before tracing
 * starts: an existing @dir is checked as it would be (a directory, empty, ours
 * or root's, writable by nobody else, not locked by another memtrace); a new
 * one must be one that can be made (a directory is made and removed beside
 * it). Nothing stays. Return: 0, or -errno (@err says why).
 */
int record_check(const char *dir, char *err, size_t errlen);

/**
 * record_start() - --record DIR: the layout files and one raw file per CPU
 *
 * DIR is made, or must be empty, ours or root's and writable by nobody else; it
 * is locked (flock) for the run, and every file is made below it with openat()
 * through no symlink. memtrace.meta is written first, saying "complete 0".
 * Copies the instance's events/header_page and header_event, the format of
 * every event in @enabled ("sys:name"), makes per_cpu/cpuN/trace_pipe_raw for
 * each CPU of @rd and points the reader's rec_fd at it (the reader copies each
 * sub-buffer there as it reads it).
 * Return: 0, or -errno (what failed is said on stderr).
 */
int record_start(struct recorder *rec, const char *dir, const struct tracefs *tf,
		 const char *const *enabled, int nenabled, struct reader *rd);

/*
 * The end of a recording: the per-CPU files closed (pages not saved are said
 * on stderr) and memtrace.meta written, "complete 1" only if every write of
 * the recording succeeded (else m->incomplete and m->why are set and said).
 * 0, or -errno of the first failure.
 */
int record_finish(struct recorder *rec, const char *dir, struct meta *m, struct reader *rd,
		  const struct stats *s);

/* Whether a write of this run's recording failed: the run exits non-zero. */
bool record_failed(const struct recorder *rec);

/* Write memtrace.seed with every seeded task of @s; 0 or -errno. */
int record_write_seed(struct recorder *rec, const char *dir, const struct stats *s);

/* Write memtrace.meta; 0 or -errno. */
int record_write_meta(struct recorder *rec, const char *dir, const struct meta *m,
		      const struct reader *r, const struct stats *s);

#endif
