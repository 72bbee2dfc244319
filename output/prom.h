/* SPDX-License-Identifier: GPL-2.0-only */
/* output/prom.h - the daemon's numbers in the Prometheus text format 0.0.4, for node_exporter's textfile collector */
#ifndef MEMTRACE_OUTPUT_PROM_H
#define MEMTRACE_OUTPUT_PROM_H

#include "lib/out.h"
#include "core/run.h"

/**
 * prom_write() - the metrics of a run, text format 0.0.4 (what node_exporter's
 * textfile collector reads)
 * @kernel: the running kernel's release, the memtrace_info label
 *
 * Every family has its HELP and TYPE lines, also when it has no sample. The
 * task and process series are the top -n by peak (exited ones included while
 * they are in it; -n 0: all), each {pid, comm} once (the largest peak, should
 * a pid have been reused under the same name); every module once (the latest
 * entry of its name). Label values are escaped (escape_prom()). No time
 * stamps: the textfile collector refuses them. Pure: writes to @o only; uses
 * the report scratch @rs (its order, threads).
 */
void prom_write(struct out *o, const struct run *r, struct report_scratch *rs, const char *kernel);

#endif
