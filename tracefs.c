// SPDX-License-Identifier: GPL-2.0-only
/* tracefs.c - find or mount tracefs, own a private instance, enable events, per-CPU raw fds */
#include "tracefs.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "lib/scan.h"
#include "lib/util.h"

#define TRACEFS_MAGIC	0x74726163	/* linux/magic.h, spelled out: libc headers only */

#define DEFAULT_MOUNT	"/sys/kernel/tracing"

/*
 * What tracefs_emergency_cleanup() needs (one of the two records a signal
 * handler uses; the other is term.c's terminal state). It runs in a signal
 * handler (a fault signal, or a second stopping signal during teardown:
 * signals.c), which cannot be handed the run; so every path and value it
 * writes is prepared here beforehand: plain arrays, no pointers into the heap.
 * Armed from the moment the instance is made (at the top level: once the
 * settings to put back are read) until the teardown has removed it.
 */
#define EMERG_SETTINGS	(TFS_MAX_EVENTS + 8)
static struct {
	volatile sig_atomic_t armed;
	char inst[PATH_MAX];
	char mount_root[PATH_MAX];	/* "" unless memtrace mounted tracefs there */
	char tracing_on[PATH_MAX];
	char events_enable[PATH_MAX];
	bool remove_dir;
	int nfds;
	int fds[1024];
	int free_buffer_fd;
	/* the top-level fallback: each setting memtrace changed and its value before */
	int nsettings;
	struct {
		char path[PATH_MAX];
		char value[256];
	} setting[EMERG_SETTINGS];
	char saved_on[8];
	char trigger[PATH_MAX];		/* the stacktrace trigger to remove, "" if none */
} emerg;

/*
 * The paths of @t for the emergency path; armed at once for an instance
 * memtrace made (nothing of anyone else's is in it), and for the top level
 * only by tracefs_configure(), once what it must put back has been read.
 */
static void prepare_emergency(const struct tracefs *t)
{
	emerg.armed = 0;
	if (path_fmt(emerg.inst, sizeof(emerg.inst), "%s", t->inst) ||
	    path_fmt(emerg.tracing_on, sizeof(emerg.tracing_on), "%s/tracing_on", t->inst) ||
	    path_fmt(emerg.events_enable, sizeof(emerg.events_enable), "%s/events/enable",
		     t->inst) ||
	    path_fmt(emerg.mount_root, sizeof(emerg.mount_root), "%s",
		     t->mounted_by_us ? t->root : ""))
		return;
	emerg.remove_dir = t->instance_created;
	emerg.trigger[0] = '\0';
	emerg.nfds = 0;
	emerg.nsettings = 0;
	emerg.saved_on[0] = '\0';
	emerg.free_buffer_fd = t->free_buffer_fd;
	emerg.armed = !t->top_level;
}

/* the reason into @err; TFS_ERR_RUNTIME */
#define fail(err, errlen, ...) err_fmt(TFS_ERR_RUNTIME, err, errlen, __VA_ARGS__)

static int errclass(int e)
{
	return (e == EACCES || e == EPERM || e == EROFS) ? TFS_ERR_PRIV : TFS_ERR_RUNTIME;
}

int tracefs_path(const struct tracefs *t, char *buf, size_t size, const char *rel)
{
	return path_fmt(buf, size, "%s/%s", t->inst, rel);
}

static bool is_tracefs_dir(const char *dir)
{
	char p[PATH_MAX];
	struct stat st;

	if (path_fmt(p, sizeof(p), "%s/trace_pipe", dir))
		return false;
	return stat(p, &st) == 0;
}

/*
 * TRACEFS_DIR as given: a tracefs mount has events/ (a mistyped path, an empty
 * directory must not read as a kernel without tracepoints), named as the
 * argument it is, with where to find the right one.
 */
static int given_dir(const char *dir, char *err, size_t errlen)
{
	static const char *const hint = "name the directory tracefs is mounted on "
					 "(findmnt -t tracefs), or leave TRACEFS_DIR out";
	char p[PATH_MAX];
	struct statfs sf;
	struct stat st;
	int e;

	if (stat(dir, &st)) {
		e = errno;
		return (fail(err, errlen, "TRACEFS_DIR %s: %s: %s", dir, strerror(e), hint),
			errclass(e));
	}
	if (!S_ISDIR(st.st_mode))
		return fail(err, errlen, "TRACEFS_DIR %s: not a directory: %s", dir, hint);
	if (path_fmt(p, sizeof(p), "%s/events", dir))
		return fail(err, errlen, "TRACEFS_DIR %s: path too long", dir);
	if (stat(p, &st)) {
		e = errno;
		if (e != ENOENT)
			return (fail(err, errlen, "TRACEFS_DIR %s: %s: %s", dir, p, strerror(e)),
				errclass(e));
		return fail(err, errlen, "TRACEFS_DIR %s: not a tracefs mount (no events/ in it): "
			    "%s", dir, hint);
	}
	/*
	 * Every tracefs has instances/ at its mount (a kernel without instances has
	 * no tracefs either): tracefs without it is an instance, another tool's or
	 * another memtrace's, whose settings and buffer are not memtrace's to take.
	 * (A directory of another filesystem without instances/ is traced at its
	 * top level, settings restored: a kernel's debugfs of before 3.10.)
	 */
	if (!statfs(dir, &sf) && (unsigned long)sf.f_type == TRACEFS_MAGIC) {
		if (path_fmt(p, sizeof(p), "%s/instances", dir))
			return fail(err, errlen, "TRACEFS_DIR %s: path too long", dir);
		if (stat(p, &st) && errno == ENOENT)
			return fail(err, errlen, "TRACEFS_DIR %s: an instance of tracefs, not where "
				    "it is mounted (no instances/ in it): memtrace traces in an "
				    "instance of its own; %s", dir, hint);
	}
	return TFS_OK;
}

int tracefs_find(struct tracefs *t, const char *given, const char *proc_root,
		 char *err, size_t errlen)
{
	char path[PATH_MAX], line[1024];
	FILE *f;

	memset(t, 0, sizeof(*t));
	t->free_buffer_fd = -1;
	t->any_fd = -1;
	t->inst_lock = -1;
	t->no_fd_from = -1;
	if (given) {
		if (strlen(given) >= sizeof(t->root))
			return fail(err, errlen, "tracefs path too long");
		strcpy(t->root, given);
		return given_dir(t->root, err, errlen);
	}
	if (!path_fmt(path, sizeof(path), "%s/mounts", proc_root) && (f = fopen(path, "re"))) {
		while (fgets(line, sizeof(line), f)) {
			char dev[256], dir[PATH_MAX], type[64];

			if (scan(line, "%255s %4095s %63s", dev, dir, type) != 3)
				continue;
			if (strcmp(type, "tracefs"))
				continue;
			if (strcmp(dir, "/sys/kernel/tracing") &&
			    strcmp(dir, "/sys/kernel/debug/tracing") && t->root[0])
				continue;
			snprintf(t->root, sizeof(t->root), "%s", dir);
			if (!strcmp(dir, "/sys/kernel/tracing"))
				break;
		}
		fclose(f);
		if (t->root[0])
			return TFS_OK;
	}
	if (is_tracefs_dir(DEFAULT_MOUNT)) {
		strcpy(t->root, DEFAULT_MOUNT);
		return TFS_OK;
	}
	if (is_tracefs_dir("/sys/kernel/debug/tracing")) {
		strcpy(t->root, "/sys/kernel/debug/tracing");
		return TFS_OK;
	}
	if (mount("nodev", DEFAULT_MOUNT, "tracefs", 0, NULL))
		return errno == EPERM || errno == EACCES ?
		       (fail(err, errlen, "cannot mount tracefs at %s: %s (are you root?)",
			     DEFAULT_MOUNT, strerror(errno)), TFS_ERR_PRIV) :
		       fail(err, errlen, "tracefs is not mounted and mounting it at %s failed: %s",
			    DEFAULT_MOUNT, strerror(errno));
	strcpy(t->root, DEFAULT_MOUNT);
	t->mounted_by_us = true;
	return TFS_OK;
}

/*
 * The owner mark: a filter no other tool writes, on an event that costs
 * nothing to filter. memtrace's name, its pid and a random token, where the
 * filter cannot be false for anyone but memtrace (it never makes the event):
 *
 *   common_pid != PID && filename != "memtrace-owner:PID:TOKEN"
 *
 * on sched_process_exec (memtrace's own pid never execs: a command it runs
 * execs in a child; no file is named so). Where that event is missing, on
 * the page allocations, with comm (the kernel's task-name field) in place of
 * the file name: there the filter also does the work of leaving memtrace's own
 * allocations out, at a cost on every allocation. A bare "common_pid != N" is
 * what any tool writes to leave itself out of its own trace (and what
 * memtrace 0.1.0 wrote): never taken for a mark.
 */
static const struct {
	const char *file;	/* the filter */
	const char *field;	/* the string field the token is compared with */
} owner_events[] = {
	{ "events/sched/sched_process_exec/filter", "filename" },
	{ "events/kmem/mm_page_alloc/filter", "comm" },
};

#define OWNER_TAG	"memtrace-owner"
#define TOKEN_HEX	16

/* The mark of @pid with @token (TOKEN_HEX hex digits) on owner_events[@i], into @buf. */
static int mark_text(char *buf, size_t size, size_t i, long pid, const char *token)
{
	int n = snprintf(buf, size, "common_pid != %ld && %s != \"" OWNER_TAG ":%ld:%s\"", pid,
			 owner_events[i].field, pid, token);

	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

/* A fresh token: getrandom()'s bytes, else the clock and the pid stirred. */
static void new_token(char *out)
{
	static const char hex[] = "0123456789abcdef";
	unsigned char b[TOKEN_HEX / 2];
	uint64_t x;
	size_t i;

	if (syscall(SYS_getrandom, b, sizeof(b), 0) != (long)sizeof(b)) {
		x = mono_ns() ^ ((uint64_t)getpid() << 32) ^ (uint64_t)(uintptr_t)out;
		for (i = 0; i < sizeof(b); i++) {
			x = x * 6364136223846793005ull + 1442695040888963407ull;
			b[i] = (unsigned char)(x >> 56);
		}
	}
	for (i = 0; i < sizeof(b); i++) {
		out[2 * i] = hex[b[i] >> 4];
		out[2 * i + 1] = hex[b[i] & 15];
	}
	out[TOKEN_HEX] = '\0';
}

/*
 * Pid in memtrace's owner mark of an instance, or 0 if it has none. The whole
 * filter must be a mark as mark_owner() writes it, the same pid twice and a
 * token of the right shape: another tool's filter that merely contains
 * "common_pid != N", or is exactly that, is not ours.
 */
static pid_t instance_owner(const char *inst)
{
	char p[PATH_MAX], buf[256], mark[256], token[TOKEN_HEX + 1];
	const char *tok;
	ssize_t n;
	long v;
	char *end;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(owner_events); i++) {
		if (path_fmt(p, sizeof(p), "%s/%s", inst, owner_events[i].file))
			return 0;
		n = read_file(p, buf, sizeof(buf));
		if (n <= 0 || strncmp(buf, "common_pid != ", 14))
			continue;
		if (buf[n - 1] == '\n')
			buf[n - 1] = '\0';
		errno = 0;
		v = strtol(buf + 14, &end, 10);
		if (errno || v <= 0 || v > INT32_MAX)
			continue;
		/* the token: the last TOKEN_HEX characters before the closing quote */
		n = (ssize_t)strlen(buf);
		if (n < TOKEN_HEX + 2 || buf[n - 1] != '"')
			continue;
		tok = buf + n - 1 - TOKEN_HEX;
		if (strspn(tok, "0123456789abcdef") != TOKEN_HEX)
			continue;
		memcpy(token, tok, TOKEN_HEX);
		token[TOKEN_HEX] = '\0';
		if (!mark_text(mark, sizeof(mark), i, v, token) && !strcmp(buf, mark))
			return (pid_t)v;
	}
	return 0;
}

/* Whether @inst has a bare "common_pid != N" filter (any tool's; memtrace 0.1.0's mark). */
static bool bare_pid_filter(const char *inst)
{
	char p[PATH_MAX], buf[256];
	ssize_t n;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(owner_events); i++) {
		if (path_fmt(p, sizeof(p), "%s/%s", inst, owner_events[i].file))
			return false;
		n = read_file(p, buf, sizeof(buf));
		if (n > 14 && !strncmp(buf, "common_pid != ", 14) &&
		    strspn(buf + 14, "0123456789") == strcspn(buf + 14, "\n"))
			return true;
	}
	return false;
}

/* Does process @pid exist (in @proc_root)? Only an answer of "no" is trusted. */
static bool pid_alive(const char *proc_root, pid_t pid)
{
	char p[PATH_MAX];

	if (path_fmt(p, sizeof(p), "%s/%d", proc_root, (int)pid))
		return true;
	return access(p, F_OK) == 0 || errno != ENOENT;
}

/* rmdir with retries: an instance is busy while any of its files is open. */
static int rmdir_retry(const char *dir)
{
	int i;

	for (i = 0; i < 100; i++) {
		if (!rmdir(dir) || errno == ENOENT)
			return 0;
		if (errno != EBUSY)
			return -errno;
		sleep_ms(10);
	}
	return -EBUSY;
}

/* Our mark in a filter makes the instance ours (owner_events); 0 if one took it. */
static int mark_owner(struct tracefs *t, pid_t self)
{
	char buf[256], p[PATH_MAX], token[TOKEN_HEX + 1];
	size_t i;

	new_token(token);
	t->owner_filter = NULL;
	for (i = 0; i < ARRAY_SIZE(owner_events) && !t->owner_filter; i++)
		if (!mark_text(buf, sizeof(buf), i, (long)self, token) &&
		    !path_fmt(p, sizeof(p), "%s/%s", t->inst, owner_events[i].file) &&
		    !write_file(p, buf))
			t->owner_filter = owner_events[i].file;
	return t->owner_filter ? 0 : -ENOENT;
}

/*
 * An flock() on the instance's directory, held until it is removed: the
 * kernel lets go of it when the owner dies (a SIGKILL, the OOM killer), so it
 * says "a memtrace owns this" whatever the owner's name (a renamed binary,
 * ld.so, valgrind). rmdir works while it is held. fd, or -errno
 * (-EWOULDBLOCK: a live owner holds it).
 */
static int lock_instance(const char *inst)
{
	int fd = open(inst, O_RDONLY | O_DIRECTORY | O_CLOEXEC), e;

	if (fd < 0)
		return -errno;
	if (!flock(fd, LOCK_EX | LOCK_NB))
		return fd;
	e = errno;
	close(fd);
	return -e;
}

/*
 * Memtraces that start at the same instant take turns: an flock on the
 * instances directory covers "make it and lock it and mark it, or find out
 * whose it is", so that exactly one of them owns an instance name. Given up
 * after 5 s (a stuck holder must not hold up a boot): then without the lock.
 */
static int lock_instances(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), i;

	if (fd < 0)
		return -1;
	for (i = 0; i < 500; i++) {
		if (!flock(fd, LOCK_EX | LOCK_NB))
			return fd;
		if (errno != EWOULDBLOCK && errno != EINTR)
			break;
		sleep_ms(10);
	}
	fprintf(stderr, "memtrace: warning: %s: no lock (%s); starting without it\n", dir,
		errno == EWOULDBLOCK ? "held for 5 s" : strerror(errno));
	close(fd);
	return -1;
}

/* Remove @inst, a dead memtrace's (@owner), whose lock @lock we hold; 0 or -errno. */
static int remove_dead(const char *inst, pid_t owner, int lock)
{
	char p[PATH_MAX];
	int e;

	fprintf(stderr, "memtrace: removing stale instance %s (owner %d is gone)\n", inst,
		(int)owner);
	if (!path_fmt(p, sizeof(p), "%s/events/enable", inst))
		write_file(p, "0");
	e = rmdir_retry(inst);
	close(lock);
	return e;
}

/* A run's own name, memtrace-MODE-PID (run/setup.c), not the daemon's well-known one. */
static bool run_name(const char *name)
{
	const char *p;
	size_t n;

	if (strncmp(name, "memtrace-", 9))
		return false;
	p = name + 9;
	n = strspn(p, "abcdefghijklmnopqrstuvwxyz");
	if (!n || p[n] != '-')
		return false;
	p += n + 1;
	return *p && strspn(p, "0123456789") == strlen(p);
}

/*
 * The instances of runs' own names that a memtrace killed with SIGKILL (or by the
 * OOM killer) left: no later run takes the same name to remove them, so each start
 * removes those, by remove_stale()'s proof (the mark whole, the lock free, the pid
 * gone). Any other is left alone, unsaid: it is not in this run's way.
 */
static void sweep_dead_runs(const char *dir, const char *self, const char *proc_root)
{
	char inst[PATH_MAX];
	struct dirent *de;
	pid_t owner;
	DIR *d = opendir(dir);
	int lock, e;

	if (!d)
		return;
	while ((de = readdir(d))) {
		if (!run_name(de->d_name) || !strcmp(de->d_name, self) ||
		    path_fmt(inst, sizeof(inst), "%s/%s", dir, de->d_name))
			continue;
		owner = instance_owner(inst);
		if (!owner || (lock = lock_instance(inst)) < 0)
			continue;
		if (owner != getpid() && pid_alive(proc_root, owner)) {
			close(lock);
			continue;
		}
		e = remove_dead(inst, owner, lock);
		if (e)
			fprintf(stderr, "memtrace: warning: cannot remove stale instance %s: %s\n",
				inst, strerror(-e));
	}
	closedir(d);
}

/*
 * An instance of our name exists: remove it only if it is provably a dead
 * memtrace's (its owner mark exactly ours, its lock free, the marked pid
 * gone); otherwise an error that says why, and nothing written into it.
 */
static int remove_stale(struct tracefs *t, const char *proc_root, char *err, size_t errlen)
{
	pid_t owner = instance_owner(t->inst);
	int lock, e;

	if (!owner && bare_pid_filter(t->inst))
		return fail(err, errlen, "instance %s exists and is not provably memtrace's: its "
			    "filter \"common_pid != N\" is one any tool writes (and memtrace before "
			    "0.2 did), not memtrace's owner mark: left alone; pick another name with "
			    "--instance, or remove it (rmdir) if you know it is a dead memtrace's",
			    t->inst);
	if (!owner)
		return fail(err, errlen, "instance %s exists and is not memtrace's (no memtrace owner "
			    "mark: another tool's?): left alone; pick another name with "
			    "--instance", t->inst);
	lock = lock_instance(t->inst);
	if (lock == -EWOULDBLOCK)
		return fail(err, errlen, "instance %s is in use by memtrace pid %d (it holds the "
			    "instance's lock): left alone; pick another name with --instance",
			    t->inst, (int)owner);
	if (lock < 0)
		return (fail(err, errlen, "instance %s: cannot lock it to see whether its owner "
			     "(memtrace pid %d) is gone: %s; left alone", t->inst, (int)owner,
			     strerror(-lock)), errclass(-lock));
	/* our own pid in it: whoever wrote it is gone (a container's fixed pids) */
	if (owner != getpid() && pid_alive(proc_root, owner)) {
		close(lock);
		return fail(err, errlen, "instance %s has memtrace's owner mark of pid %d, which "
			    "is alive but holds no lock on it (a memtrace from before the lock, or "
			    "the pid reused): left alone; pick another name with --instance, or "
			    "remove it", t->inst, (int)owner);
	}
	e = remove_dead(t->inst, owner, lock);
	if (e)
		return fail(err, errlen, "cannot remove stale instance %s: %s", t->inst,
			    strerror(-e));
	return TFS_OK;
}

static int create_locked(struct tracefs *t, const char *proc_root, char *err, size_t errlen)
{
	int tries, code;

	for (tries = 0; tries < 3; tries++) {
		if (!mkdir(t->inst, 0755)) {
			t->instance_created = true;
			prepare_emergency(t);	/* a crash from here on removes it */
			/* locked before it is marked: a marked instance with a free lock is stale */
			t->inst_lock = lock_instance(t->inst);
			if (t->inst_lock < 0)
				fprintf(stderr, "memtrace: warning: %s: no lock on it (%s); another "
					"memtrace may take it for stale\n", t->inst,
					strerror(-t->inst_lock));
			if (mark_owner(t, getpid()))
				fprintf(stderr, "memtrace: warning: %s: no event filter to mark as "
					"ours; another memtrace will take it for another tool's\n",
					t->inst);
			return TFS_OK;
		}
		if (errno != EEXIST) {
			int e = errno;

			return (fail(err, errlen, "cannot create instance %s: %s", t->inst,
				     strerror(e)), errclass(e));
		}
		code = remove_stale(t, proc_root, err, errlen);
		if (code)
			return code;
	}
	return fail(err, errlen, "cannot create instance %s", t->inst);
}

int tracefs_instance_create(struct tracefs *t, const char *name, const char *proc_root,
			    char *err, size_t errlen)
{
	char dir[PATH_MAX];
	int lock, code;

	if (strlen(name) >= sizeof(t->name))
		return fail(err, errlen, "instance name too long");
	strcpy(t->name, name);
	if (path_fmt(dir, sizeof(dir), "%s/instances", t->root))
		return fail(err, errlen, "path too long");
	if (access(dir, F_OK)) {
		int e = errno;

		if (e != ENOENT)
			return (fail(err, errlen, "%s: %s", dir, strerror(e)), errclass(e));
		fprintf(stderr, "memtrace: %s: instances not supported (%s); "
			"tracing at the top level, settings restored on exit\n",
			t->root, strerror(errno));
		t->top_level = true;
		strcpy(t->inst, t->root);
		return TFS_OK;
	}
	if (path_fmt(t->inst, sizeof(t->inst), "%s/instances/%s", t->root, name))
		return fail(err, errlen, "path too long");
	lock = lock_instances(dir);
	sweep_dead_runs(dir, name, proc_root);
	code = create_locked(t, proc_root, err, errlen);
	if (lock >= 0)
		close(lock);	/* the instance is locked and marked ours: the next one may look */
	if (code && !t->instance_created)
		t->inst[0] = '\0';	/* not ours: the teardown must not write into it */
	return code;
}

static int read_setting(const struct tracefs *t, const char *rel, char *buf, size_t size)
{
	char p[PATH_MAX];
	ssize_t n;

	if (tracefs_path(t, p, sizeof(p), rel))
		return -ENAMETOOLONG;
	n = read_file(p, buf, size);
	if (n < 0)
		return (int)n;
	while (n > 0 && isspace((unsigned char)buf[n - 1]))
		buf[--n] = '\0';
	return 0;
}

static int write_setting(const struct tracefs *t, const char *rel, const char *val)
{
	char p[PATH_MAX];

	if (tracefs_path(t, p, sizeof(p), rel))
		return -ENAMETOOLONG;
	return write_file(p, val);
}

/* "[mono] local global" style: the bracketed word */
static void current_clock(const char *list, char *out, size_t size)
{
	const char *a = strchr(list, '['), *b = a ? strchr(a, ']') : NULL;
	size_t n;

	out[0] = '\0';
	if (!a || !b)
		return;
	n = (size_t)(b - a - 1);
	if (n >= size)
		n = size - 1;
	memcpy(out, a + 1, n);
	out[n] = '\0';
}

/* Top-level fallback: one more setting for the emergency path to put back. */
static void emerg_setting(const struct tracefs *t, const char *rel, const char *value)
{
	int n = emerg.nsettings;

	if (!t->top_level || !value[0] || n >= EMERG_SETTINGS)
		return;
	if (path_fmt(emerg.setting[n].path, sizeof(emerg.setting[n].path), "%s/%s", t->inst, rel) ||
	    path_fmt(emerg.setting[n].value, sizeof(emerg.setting[n].value), "%s", value))
		return;
	emerg.nsettings = n + 1;
}

/* A filter file's text as something to write back: "none" is no filter ("0"). */
static void filter_value(char *buf)
{
	if (!buf[0] || !strcmp(buf, "none"))
		strcpy(buf, "0");
}

int tracefs_configure(struct tracefs *t, unsigned buffer_kb, unsigned percent, pid_t self,
		      char *err, size_t errlen)
{
	char buf[512], val[32], p[PATH_MAX];
	size_t i;
	int e;

	prepare_emergency(t);
	if (t->top_level) {
		char clock[32];

		if (!read_setting(t, "trace_clock", buf, sizeof(buf))) {
			current_clock(buf, clock, sizeof(clock));
			snprintf(t->saved_clock, sizeof(t->saved_clock), "%s", clock);
		}
		read_setting(t, "buffer_size_kb", t->saved_size, sizeof(t->saved_size));
		/* "7 (expanded: 1408)": keep the number only */
		t->saved_size[strcspn(t->saved_size, " ")] = '\0';
		read_setting(t, "buffer_percent", t->saved_percent, sizeof(t->saved_percent));
		read_setting(t, "tracing_on", t->saved_on, sizeof(t->saved_on));
		memcpy(emerg.saved_on, t->saved_on, sizeof(emerg.saved_on));
		t->saved_valid = true;
		emerg.armed = 1;	/* from here on the emergency path puts back what it read */
	}
	e = write_setting(t, "tracing_on", "0");
	if (e)
		return (fail(err, errlen, "%s/tracing_on: %s", t->inst, strerror(-e)),
			errclass(-e));
	snprintf(val, sizeof(val), "%u", buffer_kb);
	e = write_setting(t, "buffer_size_kb", val);
	if (e)
		return (fail(err, errlen, "setting buffer_size_kb to %u: %s", buffer_kb,
			     strerror(-e)), errclass(-e));
	snprintf(val, sizeof(val), "%u", percent);
	write_setting(t, "buffer_percent", val);	/* >= 5.0; optional */
	t->clock_mono = write_setting(t, "trace_clock", "mono") == 0;
	if (!t->clock_mono)
		fprintf(stderr, "memtrace: trace_clock mono unavailable; CPU merge order and "
			"seed times are approximate\n");
	/*
	 * An instance is marked ours when it is made (mark_owner()); the top
	 * level gets the same mark, its filter saved first. Our own page
	 * allocations are left out of the accounting by stats (an in-kernel
	 * filter on mm_page_alloc would cost every allocation of every task a
	 * copy and a test); our frees count: a page another task owns may well
	 * be freed in our context.
	 */
	if (t->top_level) {
		for (i = 0; i < ARRAY_SIZE(owner_events); i++)
			if (!read_setting(t, owner_events[i].file, t->saved_filter,
					  sizeof(t->saved_filter)))
				break;
		filter_value(t->saved_filter);
		mark_owner(t, self);
		if (t->owner_filter) {
			/* what the owner mark replaced, and the rest */
			emerg_setting(t, t->owner_filter, t->saved_filter);
		}
		emerg_setting(t, "trace_clock", t->saved_clock);
		emerg_setting(t, "buffer_size_kb", t->saved_size);
		emerg_setting(t, "buffer_percent", t->saved_percent);
	}
	if (!t->top_level && !tracefs_path(t, p, sizeof(p), "free_buffer")) {
		t->free_buffer_fd = open(p, O_WRONLY | O_CLOEXEC);
		emerg.free_buffer_fd = t->free_buffer_fd;
	}
	return TFS_OK;
}

ssize_t tracefs_read_format(const struct tracefs *t, const char *sys, const char *name,
			    char *buf, size_t size)
{
	char p[PATH_MAX];

	if (path_fmt(p, sizeof(p), "%s/events/%s/%s/format", t->inst, sys, name))
		return -ENAMETOOLONG;
	return read_file(p, buf, size);
}

ssize_t tracefs_read_header_page(const struct tracefs *t, char *buf, size_t size)
{
	char p[PATH_MAX];

	if (tracefs_path(t, p, sizeof(p), "events/header_page"))
		return -ENAMETOOLONG;
	return read_file(p, buf, size);
}

int tracefs_enable(struct tracefs *t, const char *sys, const char *name)
{
	char p[PATH_MAX], rel[PATH_MAX], *before;
	int e;

	if (t->nenabled >= TFS_MAX_EVENTS)
		return -ENOSPC;
	if (path_fmt(rel, sizeof(rel), "events/%s/%s/enable", sys, name) ||
	    path_fmt(p, sizeof(p), "%s/%s", t->inst, rel))
		return -ENAMETOOLONG;
	/* the top level: what it was, to put back (someone may have enabled it) */
	before = t->saved_enable[t->nenabled];
	strcpy(before, "0");
	if (t->top_level && read_setting(t, rel, before, sizeof(t->saved_enable[0])))
		strcpy(before, "0");
	if (strcmp(before, "1"))
		strcpy(before, "0");
	/* record first: a failed write may still have enabled it */
	snprintf(t->enabled[t->nenabled++], sizeof(t->enabled[0]), "%s/%s", sys, name);
	emerg_setting(t, rel, before);
	e = write_file(p, "1");
	t->enabled_ok[t->nenabled - 1] = !e;
	return e;
}

#define STACK_TRIGGER	"events/kmem/mm_page_alloc/trigger"

int tracefs_stack_trigger(struct tracefs *t)
{
	int e;

	if (path_fmt(emerg.trigger, sizeof(emerg.trigger), "%s/" STACK_TRIGGER, t->inst))
		return -ENAMETOOLONG;
	t->stack_trigger = true;	/* first: a failed write may still have set it */
	e = write_setting(t, STACK_TRIGGER, "stacktrace");
	if (e) {
		t->stack_trigger = false;
		emerg.trigger[0] = '\0';
	}
	return e;
}

int tracefs_set_filter(struct tracefs *t, const char *sys, const char *name, const char *filter)
{
	char rel[PATH_MAX];

	if (t->top_level)
		return -EOPNOTSUPP;
	if (path_fmt(rel, sizeof(rel), "events/%s/%s/filter", sys, name))
		return -ENAMETOOLONG;
	return write_setting(t, rel, filter);
}

int tracefs_set_event_pids(struct tracefs *t, const int32_t *pids, int n, bool follow_fork)
{
	static char buf[65536];
	size_t used = 0;
	int i, e;

	if (t->top_level)
		return -EOPNOTSUPP;
	for (i = 0; i < n; i++) {
		int k = snprintf(buf + used, sizeof(buf) - used, "%s%d", i ? " " : "", (int)pids[i]);

		if (k < 0 || (size_t)k >= sizeof(buf) - used)
			return -E2BIG;
		used += (size_t)k;
	}
	if (follow_fork && (e = write_setting(t, "options/event-fork", "1")))
		return e;
	return write_setting(t, "set_event_pid", buf);
}

/*
 * A trace_pipe(_raw) to read, non-blocking: tracefs's file is a regular one; a
 * FIFO (a fake CPU, tests/scale.sh) is read as it is, never waited on; anything
 * else (a device, a socket, a directory) is refused before it is opened (an open
 * may do something): -EINVAL. fd or -errno.
 */
static int open_pipe_file(const char *p)
{
	struct stat st;
	int fd;

	if (lstat(p, &st))
		return -errno;
	if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode))
		return -EINVAL;
	fd = open(p, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

int tracefs_open_cpu(struct tracefs *t, int idx)
{
	char p[PATH_MAX];
	int fd;

	if (idx < 0 || idx >= t->ncpus)
		return -EINVAL;
	if (t->fds[idx] >= 0)
		return t->fds[idx];
	if (t->no_fd_from >= 0 && idx >= t->no_fd_from)
		return -EMFILE;
	if (path_fmt(p, sizeof(p), "%s/per_cpu/cpu%d/trace_pipe_raw", t->inst, t->cpu_ids[idx]))
		return -ENAMETOOLONG;
	fd = open_pipe_file(p);
	if (fd < 0)
		return fd;
	t->fds[idx] = fd;
	if (emerg.nfds < (int)(sizeof(emerg.fds) / sizeof(emerg.fds[0])))
		emerg.fds[emerg.nfds++] = fd;
	return fd;
}

int tracefs_open_cpus(struct tracefs *t, char *err, size_t errlen)
{
	char dir[PATH_MAX];
	int n, i, opened = 0, nofd = 0;

	if (path_fmt(dir, sizeof(dir), "%s/per_cpu", t->inst))
		return fail(err, errlen, "path too long");
	n = cpu_dirs(dir, &t->cpu_ids);
	if (n < 0)
		return fail(err, errlen, "%s: %s", dir, errno_text(n));
	if (!n)
		return fail(err, errlen, "%s: no cpuN directories", dir);
	t->fds = malloc((size_t)n * sizeof(int));
	if (!t->fds)
		return fail(err, errlen, "out of memory");
	for (i = 0; i < n; i++)
		t->fds[i] = -1;
	t->ncpus = n;
	for (i = 0; i < n; i++) {
		int fd = t->max_cpu_fds && i >= t->max_cpu_fds ? -EMFILE : tracefs_open_cpu(t, i);

		if (fd == -EMFILE || fd == -ENFILE) {
			/*
			 * no more fds: one line, not one per CPU, nor a try per second;
			 * said as such, not as an offline CPU (past max_cpu_fds the
			 * setup said it already)
			 */
			if (!t->max_cpu_fds || i < t->max_cpu_fds)
				fprintf(stderr, "memtrace: cpu%d..cpu%d (%d of %d CPUs) not traced: "
					"%s; raise the limit (ulimit -n, LimitNOFILE=)\n",
					t->cpu_ids[i], t->cpu_ids[n - 1], n - i, n, errno_text(fd));
			t->no_fd_from = i;
			nofd = fd;
			break;
		}
		if (fd < 0) {
			if (errclass(-fd) == TFS_ERR_PRIV)
				return (fail(err, errlen, "%s/cpu%d/trace_pipe_raw: %s", dir,
					     t->cpu_ids[i], strerror(-fd)), TFS_ERR_PRIV);
			/* a possible but offline CPU: trace the others, and try it again later */
			fprintf(stderr, "memtrace: %s/cpu%d/trace_pipe_raw: %s; cpu%d not traced "
				"until it can be read\n", dir, t->cpu_ids[i], fd == -EINVAL ?
				"not a file (a device, socket or directory): not opened" :
				strerror(-fd), t->cpu_ids[i]);
			continue;
		}
		opened++;
	}
	if (!opened && nofd)
		return fail(err, errlen, "%s: no per-CPU trace_pipe_raw could be opened: %s", dir,
			    errno_text(nofd));
	if (!opened)
		return fail(err, errlen, "%s: no per-CPU trace_pipe_raw could be opened", dir);
	/* without it, every CPU is read at each timeout, as before */
	if (!path_fmt(dir, sizeof(dir), "%s/trace_pipe", t->inst)) {
		t->any_fd = open_pipe_file(dir);
		if (t->any_fd >= 0 && emerg.nfds < (int)ARRAY_SIZE(emerg.fds))
			emerg.fds[emerg.nfds++] = t->any_fd;
	}
	return TFS_OK;
}

/* Does the setting @rel read as off ("0", "0*": soft-disabled)? A failed read is not. */
static bool setting_off(const struct tracefs *t, const char *rel)
{
	char buf[16];

	return !read_setting(t, rel, buf, sizeof(buf)) && buf[0] == '0';
}

int tracefs_check_on(struct tracefs *t)
{
	char rel[PATH_MAX];
	struct timespec ts;
	int i;

	if (t->off_what[0] || !t->inst[0])
		return 0;
	if (setting_off(t, "tracing_on")) {
		snprintf(t->off_what, sizeof(t->off_what), "tracing_on is 0");
	} else {
		for (i = 0; i < t->nenabled; i++) {
			if (!t->enabled_ok[i] ||
			    path_fmt(rel, sizeof(rel), "events/%s/enable", t->enabled[i]) ||
			    !setting_off(t, rel))
				continue;
			snprintf(t->off_what, sizeof(t->off_what), "events/%s/enable is 0",
				 t->enabled[i]);
			break;
		}
	}
	if (!t->off_what[0])
		return 0;
	clock_gettime(CLOCK_BOOTTIME, &ts);
	t->off_uptime_s = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
	return 1;
}

int tracefs_tracing_on(struct tracefs *t, bool on)
{
	return write_setting(t, "tracing_on", on ? "1" : "0");
}

int tracefs_cpu_lost(const struct tracefs *t, int idx, uint64_t *lost)
{
	char p[PATH_MAX], buf[1024];
	const char *keys[] = { "overrun:", "commit overrun:", "dropped events:" };
	uint64_t total = 0;
	ssize_t n;
	size_t i;

	if (path_fmt(p, sizeof(p), "%s/per_cpu/cpu%d/stats", t->inst, t->cpu_ids[idx]))
		return -ENAMETOOLONG;
	n = read_file(p, buf, sizeof(buf));
	if (n < 0)
		return (int)n;
	for (i = 0; i < 3; i++) {
		const char *line = buf;

		/* match at line starts so "overrun:" does not find "commit overrun:" */
		while (line && *line) {
			if (!strncmp(line, keys[i], strlen(keys[i]))) {
				total += strtoull(line + strlen(keys[i]), NULL, 10);
				break;
			}
			line = strchr(line, '\n');
			if (line)
				line++;
		}
	}
	*lost = total;
	return 0;
}

void tracefs_teardown(struct tracefs *t)
{
	char p[PATH_MAX];
	int i, e;

	/* emergency cleanup stays armed until the instance is gone */
	if (!t->inst[0])
		goto unmount;
	if (!t->top_level || t->saved_valid)
		write_setting(t, "tracing_on", "0");
	for (i = 0; t->fds && i < t->ncpus; i++) {
		if (t->fds[i] >= 0)
			close(t->fds[i]);
		t->fds[i] = -1;
	}
	if (t->any_fd >= 0)
		close(t->any_fd);	/* an open trace_pipe would keep the instance busy */
	t->any_fd = -1;
	/* an instance with a trigger set may refuse to go */
	if (t->stack_trigger) {
		write_setting(t, STACK_TRIGGER, "!stacktrace");
		t->stack_trigger = false;
	}
	for (i = 0; i < t->nenabled; i++) {
		if (!path_fmt(p, sizeof(p), "%s/events/%s/enable", t->inst, t->enabled[i]))
			write_file(p, t->top_level ? t->saved_enable[i] : "0");
	}
	t->nenabled = 0;
	if (t->free_buffer_fd >= 0) {
		close(t->free_buffer_fd);
		t->free_buffer_fd = -1;
	}
	if (t->top_level) {
		if (t->owner_filter)
			write_setting(t, t->owner_filter, t->saved_filter[0] ? t->saved_filter : "0");
		if (t->saved_valid) {
			if (t->saved_clock[0])
				write_setting(t, "trace_clock", t->saved_clock);
			if (t->saved_size[0])
				write_setting(t, "buffer_size_kb", t->saved_size);
			if (t->saved_percent[0])
				write_setting(t, "buffer_percent", t->saved_percent);
			if (t->saved_on[0])
				write_setting(t, "tracing_on", t->saved_on);
			t->saved_valid = false;
		}
	} else if (t->instance_created) {
		if (!path_fmt(p, sizeof(p), "%s/events/enable", t->inst))
			write_file(p, "0");
		e = rmdir_retry(t->inst);
		if (e)
			fprintf(stderr, "memtrace: cannot remove instance %s: %s\n", t->inst,
				strerror(-e));
		else if (!is_tracefs_dir(t->root))	/* gone with it: unmounted under us */
			fprintf(stderr, "memtrace: %s is no longer tracefs (unmounted under "
				"memtrace): instance %s was not removed and may still be tracing "
				"(rmdir it where tracefs is mounted)\n", t->root, t->name);
		t->instance_created = false;
	}
	/* after the rmdir: until then the instance is still ours */
	if (t->inst_lock >= 0)
		close(t->inst_lock);
	t->inst_lock = -1;
	emerg.armed = 0;
unmount:
	/*
	 * Not detached: a process with a file open in it (another memtrace that
	 * found it mounted holds its instance's directory until it is removed)
	 * keeps it, else it would lose its instance, tracing on, under it.
	 */
	if (t->mounted_by_us) {
		e = umount2(t->root, 0) ? errno : 0;
		if (e == EBUSY)
			fprintf(stderr, "memtrace: %s left mounted: another process has files "
				"open in it\n", t->root);
		else if (e)
			fprintf(stderr, "memtrace: cannot unmount %s: %s\n", t->root, strerror(e));
		t->mounted_by_us = false;
	}
	free(t->fds);
	free(t->cpu_ids);
	t->fds = NULL;
	t->cpu_ids = NULL;
	t->ncpus = 0;
}

/* async-signal-safe: open, write, close (O_TRUNC, as write_file()) */
static void as_write(const char *path, const char *s, size_t n)
{
	int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);

	if (fd >= 0) {
		ssize_t r = write(fd, s, n);

		(void)r;
		close(fd);
	}
}

/* async-signal-safe: what memtrace mounted, let go (as the teardown does: not if in use) */
static void as_unmount(void)
{
	if (emerg.mount_root[0])
		umount2(emerg.mount_root, 0);
}

const char *tracefs_emergency_where(void)
{
	return emerg.inst;
}

int tracefs_emergency_cleanup(void)
{
	struct timespec ts = { 0, 10000000 };
	int i;

	if (!emerg.armed)
		return TFS_EMERG_NONE;
	emerg.armed = 0;
	as_write(emerg.tracing_on, "0", 1);
	if (emerg.trigger[0])
		as_write(emerg.trigger, "!stacktrace", 11);
	/*
	 * Any open instance file (the interrupted code may hold stats or
	 * tracing_on) makes rmdir fail with EBUSY: close every fd but stdio,
	 * the caller exits right after.
	 */
	for (i = 0; i < emerg.nfds; i++)
		close(emerg.fds[i]);
	if (emerg.free_buffer_fd >= 0)
		close(emerg.free_buffer_fd);
	if (syscall(SYS_close_range, 3u, ~0u, 0u))
		for (i = 3; i < 4096; i++)
			close(i);
	if (emerg.nsettings || !emerg.remove_dir) {
		/* the top level: every setting as it was, tracing_on last */
		for (i = 0; i < emerg.nsettings; i++)
			as_write(emerg.setting[i].path, emerg.setting[i].value,
				 strlen(emerg.setting[i].value));
		if (emerg.saved_on[0])
			as_write(emerg.tracing_on, emerg.saved_on, strlen(emerg.saved_on));
		as_unmount();
		return TFS_EMERG_RESTORED;
	}
	as_write(emerg.events_enable, "0", 1);
	for (i = 0; i < 100; i++) {
		if (!rmdir(emerg.inst) || errno == ENOENT) {
			as_unmount();
			return TFS_EMERG_REMOVED;
		}
		if (errno != EBUSY)
			break;
		nanosleep(&ts, NULL);
	}
	return TFS_EMERG_FAILED;
}
