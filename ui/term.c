// SPDX-License-Identifier: GPL-2.0-only
/* ui/term.c - the live view's terminal: raw keys, the alternate screen, restored on every exit */
#include "ui/term.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/util.h"
#include "signals.h"

/* the main screen, the cursor and plain attributes back */
#define LEAVE_SEQ	"\033[0m\033[?25h\033[?1049l"
/* the alternate screen, no cursor, cleared */
#define ENTER_SEQ	"\033[?1049h\033[?25l\033[H\033[2J"
#define ENTER_WAIT_MS	1000	/* a terminal that takes nothing for this long is left alone */
#define LEAVE_WAIT_MS	300

/*
 * The one mutable global of the live view, as tracefs.c has one for tracefs:
 * a fault signal's handler (signals.c) cannot be handed the context, and it
 * must put the terminal back before the process dies. It holds prepared bytes
 * and the saved settings only, written before it is armed;
 * term_emergency_restore() computes nothing and calls only write() and
 * tcsetattr() (async-signal-safe).
 */
static struct {
	volatile sig_atomic_t armed;
	int fd;
	bool ansi;
	struct termios saved;
} emerg;

void term_emergency_restore(void)
{
	if (!emerg.armed)
		return;
	emerg.armed = 0;
	if (emerg.ansi && write(emerg.fd, LEAVE_SEQ, sizeof(LEAVE_SEQ) - 1) < 0)
		emerg.ansi = false;	/* nothing more can be done */
	tcsetattr(emerg.fd, TCSANOW, &emerg.saved);
}

static void emerg_arm(const struct term *t)
{
	emerg.fd = t->fd;
	emerg.ansi = t->caps.ansi;
	emerg.saved = t->saved;
	emerg.armed = 1;
	signals_fault_restore(term_emergency_restore);
}

static void emerg_disarm(void)
{
	emerg.armed = 0;
	signals_fault_restore(NULL);
}

/* Terminals known to have colours (8 at least); anything else gets attributes only. */
static bool colour_term(const char *term)
{
	static const char *const prefixes[] = {
		"xterm", "screen", "tmux", "rxvt", "linux", "konsole", "gnome", "alacritty",
		"foot", "kitty", "putty", "cygwin", "ansi", "vte", "st-", "wezterm",
	};
	size_t i;

	if (strstr(term, "color") || strstr(term, "colour"))
		return true;
	for (i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (!strncmp(term, prefixes[i], strlen(prefixes[i])))
			return true;
	return false;
}

void term_caps_of(struct term_caps *c, const char *term, const char *no_colour)
{
	c->ansi = term && *term && strcmp(term, "dumb") != 0;
	c->colour = c->ansi && !(no_colour && *no_colour) && colour_term(term);
}

void term_keys_feed(struct term_keys *k, const char *p, size_t n)
{
	size_t room = sizeof(k->buf) - k->len;

	if (n > room)
		n = room;
	memcpy(k->buf + k->len, p, n);
	k->len += n;
}

static void keys_drop(struct term_keys *k, size_t n)
{
	memmove(k->buf, k->buf + n, k->len - n);
	k->len -= n;
}

/* After "ESC [": parameters and intermediates, then the final byte. */
static int csi_key(struct term_keys *k)
{
	unsigned param = 0;
	bool first = true;
	size_t i;
	int key;

	for (i = 2; i < k->len && k->buf[i] >= 0x20 && k->buf[i] <= 0x3f; i++) {
		if (k->buf[i] == ';')
			first = false;
		else if (first && k->buf[i] >= '0' && k->buf[i] <= '9' && param < 1000)
			param = param * 10 + (unsigned)(k->buf[i] - '0');
	}
	if (i == k->len) {
		if (k->len < sizeof(k->buf))
			return TK_NONE;		/* the rest comes with the next read */
		k->len = 0;			/* a sequence longer than any key */
		return TK_UNKNOWN;
	}
	switch (k->buf[i]) {
	case 'A': key = TK_UP; break;
	case 'B': key = TK_DOWN; break;
	case 'C': key = TK_RIGHT; break;
	case 'D': key = TK_LEFT; break;
	case 'H': key = TK_HOME; break;
	case 'F': key = TK_END; break;
	case '~':
		key = param == 1 || param == 7 ? TK_HOME : param == 4 || param == 8 ? TK_END :
		      param == 5 ? TK_PGUP : param == 6 ? TK_PGDN : TK_UNKNOWN;
		break;
	default:
		key = TK_UNKNOWN;
	}
	/* a byte that cannot end a sequence ends it anyway, and stays a key of its own */
	keys_drop(k, k->buf[i] >= 0x40 && k->buf[i] <= 0x7e ? i + 1 : i);
	return key;
}

int term_key_next(struct term_keys *k)
{
	int key;

	if (!k->len)
		return TK_NONE;
	if (k->buf[0] != 0x1b) {
		key = k->buf[0];
		keys_drop(k, 1);
		return key;
	}
	if (k->len == 1 || (k->buf[1] != '[' && k->buf[1] != 'O')) {
		keys_drop(k, 1);
		return TK_ESC;
	}
	if (k->buf[1] == '[')
		return csi_key(k);
	if (k->len < 3)
		return TK_NONE;
	switch (k->buf[2]) {	/* SS3: application cursor keys */
	case 'A': key = TK_UP; break;
	case 'B': key = TK_DOWN; break;
	case 'C': key = TK_RIGHT; break;
	case 'D': key = TK_LEFT; break;
	case 'H': key = TK_HOME; break;
	case 'F': key = TK_END; break;
	default: key = TK_UNKNOWN;
	}
	keys_drop(k, 3);
	return key;
}

int term_open(struct term *t, int out_fd, const char *term_env, const char *no_colour)
{
	char path[64];
	struct stat st;
	pid_t fg;
	int fd;

	memset(t, 0, sizeof(*t));
	t->fd = t->out_fd = out_fd;
	t->rows = 24;
	t->cols = 80;
	if (!isatty(out_fd)) {
		t->regular = !fstat(out_fd, &st) && S_ISREG(st.st_mode);
		return 0;
	}
	t->tty = true;
	term_caps_of(&t->caps, term_env, no_colour);
	/* a file description of our own: O_NONBLOCK must not reach the shell's */
	snprintf(path, sizeof(path), "/proc/self/fd/%d", out_fd);
	fd = open(path, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 && ttyname(out_fd))
		fd = open(ttyname(out_fd), O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	t->fd = fd;
	t->own_fd = true;
	/* a background job that changed the terminal's settings would be stopped (SIGTTOU) */
	fg = tcgetpgrp(fd);
	if (fg > 0 && fg != getpgrp()) {
		term_close(t);
		return -ENOTTY;
	}
	term_resize(t);
	return 0;
}

void term_close(struct term *t)
{
	if (t->own_fd && t->fd >= 0)
		close(t->fd);
	t->own_fd = false;
	t->fd = t->out_fd;
}

static int env_int(const char *name, int dflt)
{
	const char *v = getenv(name);
	long n = v ? strtol(v, NULL, 10) : 0;

	return n > 0 && n < 10000 ? (int)n : dflt;
}

bool term_resize(struct term *t)
{
	struct winsize ws;
	int rows = 0, cols = 0;

	if (t->tty && !ioctl(t->fd, TIOCGWINSZ, &ws)) {
		rows = ws.ws_row;
		cols = ws.ws_col;
	}
	/* a serial console says 0x0: LINES and COLUMNS, else 80x24 */
	if (rows <= 0)
		rows = env_int("LINES", 24);
	if (cols <= 0)
		cols = env_int("COLUMNS", 80);
	if (rows == t->rows && cols == t->cols)
		return false;
	t->rows = rows;
	t->cols = cols;
	return true;
}

/* A short sequence to the terminal, waiting at most @ms for it to take it. */
static void write_wait(int fd, const char *p, size_t len, long ms)
{
	uint64_t end = mono_ns() + (uint64_t)ms * 1000000ull;

	while (len) {
		struct pollfd pfd = { fd, POLLOUT, 0 };
		ssize_t w = write(fd, p, len);
		uint64_t now;

		if (w > 0) {
			p += w;
			len -= (size_t)w;
			continue;
		}
		if (w < 0 && errno != EAGAIN && errno != EINTR)
			return;
		now = mono_ns();
		if (now >= end || poll(&pfd, 1, (int)((end - now) / 1000000 + 1)) == 0)
			return;
	}
}

int term_enter(struct term *t)
{
	struct termios raw;

	if (!t->tty || t->entered)
		return 0;
	if (tcgetattr(t->fd, &t->saved))
		return -errno;
	raw = t->saved;
	/* keys one by one, not echoed; ^C still sends SIGINT (read from the signalfd) */
	raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO | ECHONL | IEXTEN);
	raw.c_cc[VMIN] = 1;
	raw.c_cc[VTIME] = 0;
	/* ^Z would stop the reader with the terminal raw; ^\ would dump core: neither */
	raw.c_cc[VSUSP] = _POSIX_VDISABLE;
	raw.c_cc[VQUIT] = _POSIX_VDISABLE;
	emerg_arm(t);
	if (tcsetattr(t->fd, TCSANOW, &raw)) {
		int e = errno;

		emerg_disarm();
		return -e;
	}
	t->entered = true;
	if (t->caps.ansi)
		write_wait(t->fd, ENTER_SEQ, sizeof(ENTER_SEQ) - 1, ENTER_WAIT_MS);
	return 0;
}

void term_leave(struct term *t)
{
	if (!t->entered)
		return;
	if (t->caps.ansi)
		write_wait(t->fd, LEAVE_SEQ, sizeof(LEAVE_SEQ) - 1, LEAVE_WAIT_MS);
	else
		write_wait(t->fd, "\n", 1, LEAVE_WAIT_MS);
	tcsetattr(t->fd, TCSANOW, &t->saved);
	emerg_disarm();
	t->entered = false;
}

ssize_t term_write(struct term *t, const char *p, size_t len)
{
	ssize_t w;

	/* a pipe or socket that we must not block on: what poll() says fits at once */
	if (!t->tty && !t->regular) {
		struct pollfd pfd = { t->fd, POLLOUT, 0 };
		int r = poll(&pfd, 1, 0);

		if (r < 0)
			return errno == EINTR ? 0 : -errno;
		if (r == 0)
			return 0;
		if (pfd.revents & (POLLERR | POLLHUP | POLLNVAL))
			return -EPIPE;
		if (len > PIPE_BUF)
			len = PIPE_BUF;
	}
	w = write(t->fd, p, len);
	if (w < 0)
		return errno == EAGAIN || errno == EINTR ? 0 : -errno;
	return w;
}

ssize_t term_read(struct term *t, struct term_keys *k)
{
	char buf[sizeof(k->buf)];
	size_t room = sizeof(k->buf) - k->len;
	ssize_t n;

	if (!room) {
		k->len = 0;	/* nothing in it can be a key any more */
		room = sizeof(k->buf);
	}
	n = read(t->fd, buf, room);
	if (n < 0)
		return errno == EAGAIN || errno == EINTR ? 0 : -errno;
	if (n == 0)
		return -EIO;	/* hung up */
	term_keys_feed(k, buf, (size_t)n);
	return n;
}
