// SPDX-License-Identifier: GPL-2.0-only
/* run/switchroot.c - --switch-root: tracing goes on after an initramfs switched to the root */
#include "run/switchroot.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/util.h"

void switchroot_arm(struct run *r)
{
	const char *dir = r->opt.switch_root;
	struct stat root, st;
	int fd;

	if (r->swroot_fd >= 0 || r->swroot_done) {
		mt_warn("--switch-root %s: SIGHUP again: already %s", dir,
			r->swroot_done ? "followed" : "waiting for the switch");
		return;
	}
	fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		mt_warn("warning: --switch-root %s: %s: staying where memtrace is", dir,
			strerror(errno));
		return;
	}
	/* the root's own mount, not the directory it will be mounted on */
	if (fstat(fd, &st) || stat("/", &root) || st.st_dev == root.st_dev) {
		mt_warn("warning: --switch-root %s: nothing is mounted there: staying where "
			"memtrace is", dir);
		close(fd);
		return;
	}
	r->swroot_fd = fd;
	mt_warn("--switch-root %s: following the switch to the root mounted there; tracing "
		"goes on", dir);
	switchroot_poll(r);
}

void switchroot_poll(struct run *r)
{
	int e;

	if (r->swroot_fd < 0 || faccessat(r->swroot_fd, "proc/self/stat", F_OK, 0))
		return;
	/* the mount held, wherever it is now (run-init moves it onto /) */
	if (fchdir(r->swroot_fd) || chroot(".") || chdir("/")) {
		e = errno;
		mt_warn("warning: --switch-root %s: %s: staying where memtrace is (its reports "
			"and tracefs may be out of reach)", r->opt.switch_root, strerror(e));
	} else {
		r->swroot_done = true;
		mt_warn("--switch-root %s: now in that root (the initramfs switched to it)",
			r->opt.switch_root);
	}
	close(r->swroot_fd);
	r->swroot_fd = -1;
}
