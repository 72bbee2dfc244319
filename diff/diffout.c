// SPDX-License-Identifier: GPL-2.0-only
/* diff/diffout.c - --diff's output: text for people, JSON for dashboards; the gate's lines */
#include "diff/diffout.h"

#include "lib/escape.h"

#include <stdio.h>
#include <string.h>

static const char *state_name(enum diff_state s)
{
	return s == DIFF_NEW ? "new" : s == DIFF_GONE ? "gone" : "both";
}

static uint32_t shown(uint32_t n, uint32_t rows)
{
	return rows && rows < n ? rows : n;
}

static void text_name(struct out *o, const char *s)
{
	escape_text(o, s, strlen(s));
}

/* A header string, "not known" when the report did not say (or said ""). */
static void text_fact(struct out *o, const struct diff_text *t, const char *unknown)
{
	if (t->len)
		escape_text(o, t->s, t->len);
	else
		out_puts(o, unknown);
}

/* "+12.5%", "new", "gone" */
static void text_pct(struct out *o, const struct diff_row *r)
{
	char buf[32];

	if (r->state == DIFF_NEW)
		snprintf(buf, sizeof(buf), "new");
	else if (r->state == DIFF_GONE)
		snprintf(buf, sizeof(buf), "gone");
	else if (!r->old_sum)
		snprintf(buf, sizeof(buf), r->new_sum ? "from 0" : "0%%");
	else
		snprintf(buf, sizeof(buf), "%+.1f%%", r->pct);
	out_printf(o, " %9s", buf);
}

static void text_head(struct out *o, const struct diff_side *s, const char *what,
		      const char *name)
{
	out_printf(o, "%s: ", what);
	text_name(o, name);
	out_puts(o, "\n  kernel ");
	text_fact(o, &s->kernel, "not known");
	out_puts(o, ", host ");
	text_fact(o, &s->host, "not known");
	out_puts(o, ", tracing began ");
	text_fact(o, &s->started, "at a time not known");
	if (s->command) {
		/* a COMMAND's report: no uptime, no trigger; its command, exit and time */
		out_puts(o, "\n  command ");
		text_fact(o, &s->cmd, "not known");
		if (s->signal)
			out_printf(o, ", killed by signal %d", s->signal);
		else if (s->exit_status >= 0)
			out_printf(o, ", exit status %d", s->exit_status);
		out_printf(o, ", wall %.3f s, page %u bytes\n  tree peak %lld pages (%lld KiB); the "
			   "machine's system peak %lld pages (%lld KiB, every task's); lost events "
			   "%llu\n", s->wall_s, s->page_size, (long long)s->tree_peak,
			   (long long)(s->tree_peak * s->page_size / 1024), (long long)s->sys_peak,
			   (long long)(s->sys_peak * s->page_size / 1024),
			   (unsigned long long)s->lost);
		return;
	}
	out_printf(o, "\n  report at uptime %.3f s (trigger ", s->uptime_s);
	text_fact(o, &s->trigger, "?");
	/* the parse holds sys_peak * page_size to 2^62 (DIFF_BYTES_MAX) */
	out_printf(o, "), events %.6f..%.6f s, page %u bytes\n  system peak %lld pages "
		   "(%lld KiB), lost events %llu\n", s->first_s, s->last_s, s->page_size,
		   (long long)s->sys_peak, (long long)(s->sys_peak * s->page_size / 1024),
		   (unsigned long long)s->lost);
}

/* A row; @prefix before its name (a module's stacks: "  stack: "). */
static void text_row(struct out *o, const struct diff_row *r, bool procs, const char *prefix)
{
	out_printf(o, "%-4s", state_name(r->state));
	if (procs)
		out_printf(o, " %5u %5u %10lld %10lld", r->old_n, r->new_n, (long long)r->old_max,
			   (long long)r->new_max);
	out_printf(o, " %10lld %10lld %+11lld %+14lld", (long long)r->old_sum,
		   (long long)r->new_sum, (long long)r->delta_pages, (long long)r->delta_bytes);
	text_pct(o, r);
	out_printf(o, "  %s", prefix);
	escape_text(o, r->name, r->name_len);
	out_puts(o, "\n");
}

static void text_table(struct out *o, const char *title, const struct diff_row *rows, uint32_t n,
		       bool procs, uint32_t nrows, bool partial)
{
	uint32_t i, k, m = shown(n, nrows);

	out_printf(o, "\n%s: %u of %u, what grew most first%s\n", title, m, n,
		   partial ? " (a report listed only its top rows: -n 0 lists all)" : "");
	out_printf(o, "%-4s", "ROW");
	if (procs)
		out_printf(o, " %5s %5s %10s %10s", "OLD_N", "NEW_N", "OLD_MAX", "NEW_MAX");
	out_printf(o, " %10s %10s %11s %14s %9s  %s\n", procs ? "OLD_SUM" : "OLD_PEAK",
		   procs ? "NEW_SUM" : "NEW_PEAK", "DELTA_PAGES", "DELTA_BYTES", "PERCENT",
		   procs ? "COMM" : "MODULE");
	for (i = 0; i < m; i++) {
		text_row(o, &rows[i], procs, "");
		for (k = 0; k < shown(rows[i].nstacks, nrows); k++)
			text_row(o, &rows[i].stacks[k], false, "  stack: ");
	}
}

void diffout_text(struct out *o, const struct diff_result *d, const struct diff_view *v)
{
	out_printf(o, "memtrace diff (pages in each run's own page size; bytes and percent from "
		   "them)\n");
	text_head(o, d->old, "old", v->old_name);
	text_head(o, d->new, "new", v->new_name);
	if (d->old->lost || d->new->lost)
		out_printf(o, "warning: events were lost (old %llu, new %llu): the peaks are lower "
			   "bounds, and so is the comparison\n", (unsigned long long)d->old->lost,
			   (unsigned long long)d->new->lost);
	if (d->commands) {
		out_puts(o, "\nTREE PEAK (the command's process tree)\n");
		text_row(o, &d->tree, false, "");
		out_printf(o, "\nMACHINE'S SYSTEM PEAK (every task's, other jobs' too: %s)\n",
			   v->gate && v->gate->system ? "gated, --fail-over system:" :
			   "not gated; --fail-over system:N gates it");
	} else {
		out_puts(o, "\nSYSTEM PEAK\n");
	}
	text_row(o, &d->sys, false, "");
	text_table(o, "MODULES", d->mods, d->nmods, false, v->rows,
		   d->old->mods_partial || d->new->mods_partial);
	text_table(o, "PROCESSES (by name: instances, largest and summed peak)", d->procs,
		   d->nprocs, true, v->rows, d->old->procs_partial || d->new->procs_partial);
}

static void json_str_member(struct out *o, const char *key, const char *s, size_t len)
{
	out_printf(o, "\"%s\":\"", key);
	escape_json(o, s, len);
	out_puts(o, "\"");
}

/* "key":"value", or null where the report did not say; a comma after */
static void json_opt_member(struct out *o, const char *key, const struct diff_text *t)
{
	if (t->len)
		json_str_member(o, key, t->s, t->len);
	else
		out_printf(o, "\"%s\":null", key);
	out_puts(o, ",");
}

static void json_side(struct out *o, const struct diff_side *s, const char *name)
{
	out_puts(o, "{");
	json_str_member(o, "source", name, strlen(name));
	out_puts(o, ",");
	json_opt_member(o, "kernel", &s->kernel);
	json_opt_member(o, "host", &s->host);
	json_opt_member(o, "started_at", &s->started);
	json_str_member(o, "trigger", s->trigger.s, s->trigger.len);
	if (s->command) {
		out_puts(o, ",");
		json_str_member(o, "command", s->cmd.s, s->cmd.len);
		if (s->exit_status >= 0)
			out_printf(o, ",\"exit_status\":%d", s->exit_status);
		else
			out_puts(o, ",\"exit_status\":null");
		out_printf(o, ",\"signal\":%d,\"wall_s\":%.3f,\"tree_peak_pages\":%lld", s->signal,
			   s->wall_s, (long long)s->tree_peak);
	}
	out_printf(o, ",\"uptime_s\":%.3f,\"first_event_s\":%.6f,\"last_event_s\":%.6f,"
		   "\"page_size\":%u,\"system_peak_pages\":%lld,\"lost_events\":%llu,"
		   "\"modules_partial\":%s,\"processes_partial\":%s}", s->uptime_s, s->first_s,
		   s->last_s, s->page_size, (long long)s->sys_peak, (unsigned long long)s->lost,
		   s->mods_partial ? "true" : "false", s->procs_partial ? "true" : "false");
}

static void json_row(struct out *o, const struct diff_row *r, bool procs, const struct diff_view *v,
		     uint32_t page_size)
{
	uint32_t k;

	out_puts(o, "{");
	json_str_member(o, "name", r->name, r->name_len);
	out_printf(o, ",\"state\":\"%s\"", state_name(r->state));
	if (procs)
		out_printf(o, ",\"old_instances\":%u,\"new_instances\":%u,\"old_max_pages\":%lld,"
			   "\"new_max_pages\":%lld", r->old_n, r->new_n, (long long)r->old_max,
			   (long long)r->new_max);
	out_printf(o, ",\"old_pages\":%lld,\"new_pages\":%lld,\"delta_pages\":%lld,"
		   "\"delta_bytes\":%lld,", (long long)r->old_sum, (long long)r->new_sum,
		   (long long)r->delta_pages, (long long)r->delta_bytes);
	if (r->state == DIFF_BOTH && r->old_sum)
		out_printf(o, "\"percent\":%.3f", r->pct);
	else
		out_puts(o, "\"percent\":null");
	if (v->gate)
		out_printf(o, ",\"over\":%s", diff_over(r, v->gate, page_size) ? "true" : "false");
	if (r->stacks) {
		out_puts(o, ",\"stacks\":[");
		for (k = 0; k < shown(r->nstacks, v->rows); k++) {
			out_puts(o, k ? "," : "");
			json_row(o, &r->stacks[k], false, &(struct diff_view){ .rows = v->rows },
				 page_size);
		}
		out_puts(o, "]");
	}
	out_puts(o, "}");
}

static void json_rows(struct out *o, const char *key, const struct diff_row *rows, uint32_t n,
		      bool procs, const struct diff_view *v, uint32_t page_size)
{
	uint32_t i;

	out_printf(o, ",\"%s_total\":%u,\"%s\":[", key, n, key);
	for (i = 0; i < shown(n, v->rows); i++) {
		out_puts(o, i ? "," : "");
		json_row(o, &rows[i], procs, v, page_size);
	}
	out_puts(o, "]");
}

void diffout_json(struct out *o, const struct diff_result *d, const struct diff_view *v)
{
	uint32_t ps = d->new->page_size;

	out_puts(o, "{\"old\":");
	json_side(o, d->old, v->old_name);
	out_puts(o, ",\"new\":");
	json_side(o, d->new, v->new_name);
	out_printf(o, ",\"lower_bound\":%s", d->old->lost || d->new->lost ? "true" : "false");
	if (v->gate) {
		out_puts(o, ",");
		json_str_member(o, "fail_over", v->gate->text, strlen(v->gate->text));
	}
	if (d->commands) {
		struct diff_view sv = *v;

		out_puts(o, ",\"tree_peak\":");
		json_row(o, &d->tree, false, v, ps);
		/* the machine's: "over" only where it gates */
		if (!v->gate || !v->gate->system)
			sv.gate = NULL;
		out_printf(o, ",\"system_peak_gated\":%s,\"system_peak\":",
			   v->gate && v->gate->system ? "true" : "false");
		json_row(o, &d->sys, false, &sv, ps);
	} else {
		out_puts(o, ",\"system_peak\":");
		json_row(o, &d->sys, false, v, ps);
	}
	json_rows(o, "modules", d->mods, d->nmods, false, v, ps);
	json_rows(o, "processes", d->procs, d->nprocs, true, v, ps);
	out_puts(o, "}\n");
}

static uint32_t gate_rows(struct out *o, const char *what, const struct diff_row *rows,
			  uint32_t n, const struct diff_view *v, uint32_t page_size)
{
	uint32_t i, hits = 0;

	for (i = 0; i < n; i++) {
		const struct diff_row *r = &rows[i];

		if (!diff_over(r, v->gate, page_size))
			continue;
		hits++;
		out_puts(o, "memtrace: --fail-over ");
		text_name(o, v->gate->text);
		out_printf(o, ": %s ", what);
		escape_text(o, r->name, r->name_len);
		out_printf(o, " grew by %lld bytes (%lld to %lld pages", (long long)r->delta_bytes,
			   (long long)r->old_sum, (long long)r->new_sum);
		if (r->state == DIFF_NEW)
			out_puts(o, ", new)\n");
		else if (r->old_sum)
			out_printf(o, ", %+.1f%%)\n", r->pct);
		else
			out_puts(o, ")\n");
	}
	return hits;
}

uint32_t diffout_gate(struct out *o, const struct diff_result *d, const struct diff_view *v)
{
	uint32_t ps = d->new->page_size;

	if (!v->gate || !v->gate->set)
		return 0;
	if (d->commands)	/* the command's tree; the machine's peak when asked (system:) */
		return gate_rows(o, "the command's", &d->tree, 1, v, ps) +
		       (v->gate->system ? gate_rows(o, "the machine's", &d->sys, 1, v, ps) : 0) +
		       gate_rows(o, "module", d->mods, d->nmods, v, ps) +
		       gate_rows(o, "process", d->procs, d->nprocs, v, ps);
	return gate_rows(o, "the", &d->sys, 1, v, ps) +
	       gate_rows(o, "module", d->mods, d->nmods, v, ps) +
	       gate_rows(o, "process", d->procs, d->nprocs, v, ps);
}
