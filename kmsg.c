// SPDX-License-Identifier: GPL-2.0-only
/* kmsg.c - lines to the kernel log */
#include "kmsg.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

const char *kmsg_path = "/dev/kmsg";

void kmsg_line(const char *line)
{
	/* O_APPEND: the kernel log ignores it; a test's file gets one line after another */
	int fd = open(kmsg_path, O_WRONLY | O_APPEND | O_CLOEXEC | O_NOCTTY);

	if (fd < 0) {
		const char *text = line;

		if (text[0] == '<' && text[1] && text[2] == '>')
			text += 3;
		fputs(text, stderr);
		return;
	}
	if (write_all(fd, line, strlen(line)))
		fprintf(stderr, "memtrace: %s: %s\n", kmsg_path, strerror(errno));
	close(fd);
}
