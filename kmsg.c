// SPDX-License-Identifier: GPL-2.0-only
/* kmsg.c - lines to the kernel log */
#include "kmsg.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

void kmsg_line(const char *dev, const char *line)
{
	/* O_APPEND: the kernel log ignores it; a test's file gets one line after another */
	int fd;

	if (!dev)
		dev = "/dev/kmsg";
	fd = open(dev, O_WRONLY | O_APPEND | O_CLOEXEC | O_NOCTTY);

	if (fd < 0) {
		const char *text = line;

		if (text[0] == '<' && text[1] && text[2] == '>')
			text += 3;
		fputs(text, stderr);
		return;
	}
	if (write_all(fd, line, strlen(line)))
		fprintf(stderr, "memtrace: %s: %s\n", dev, strerror(errno));
	close(fd);
}
