/* SPDX-License-Identifier: GPL-2.0-only */
/* ui/term.h - the live view's terminal: raw keys, the alternate screen, restored on every exit */
#ifndef MEMTRACE_UI_TERM_H
#define MEMTRACE_UI_TERM_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <termios.h>

/* What the terminal can show: decided from TERM (and NO_COLOR), no terminfo needed. */
struct term_caps {
	bool ansi;	/* cursor addressing, attributes, the alternate screen (not TERM=dumb) */
	bool colour;	/* SGR colours too */
};

/*
 * term_caps_of() - the capabilities a TERM value promises (pure)
 * @term: $TERM, NULL when unset; unset, empty and "dumb" mean plain lines only
 * @no_colour: $NO_COLOR; set and not empty turns colours off
 */
void term_caps_of(struct term_caps *c, const char *term, const char *no_colour);

/* Keys beyond single bytes (a byte is its own code, 0..255). */
enum term_key {
	TK_NONE = -1,		/* nothing complete yet */
	TK_UP = 256, TK_DOWN, TK_LEFT, TK_RIGHT, TK_PGUP, TK_PGDN, TK_HOME, TK_END,
	TK_ESC,			/* a lone ESC */
	TK_UNKNOWN,		/* an escape sequence that means nothing here */
};

/* Bytes read from the terminal, decoded key by key (pure; see term_key_next()). */
struct term_keys {
	unsigned char buf[32];
	size_t len;
};

/* Add @n bytes read from the terminal; what does not fit is dropped. */
void term_keys_feed(struct term_keys *k, const char *p, size_t n);

/**
 * term_key_next() - the next whole key of @k
 *
 * Bytes, the arrows, PgUp/PgDn and Home/End as xterm, the Linux console, VT220
 * and tmux send them (CSI and SS3 forms). A sequence cut off at the end of what
 * was read waits for the rest; an ESC with nothing after it is TK_ESC.
 * Return: a byte (0..255), an enum term_key, or TK_NONE when none is complete.
 */
int term_key_next(struct term_keys *k);

/* The terminal (or, not a terminal, the stream) the view writes to. */
struct term {
	int fd;			/* our own non-blocking open of the terminal, or stdout */
	int out_fd;		/* the stdout we were given */
	bool tty;		/* stdout is a terminal: interactive */
	bool own_fd;		/* fd is ours to close */
	bool regular;		/* not a terminal: a regular file (writes never wait) */
	bool entered;		/* raw mode and screen set: term_leave() undoes them */
	struct term_caps caps;
	struct termios saved;	/* the terminal's settings before */
	int rows, cols;
};

/**
 * term_open() - look at @out_fd: a terminal (interactive) or not (batch frames)
 *
 * A terminal is opened again (its own file description, non-blocking, so
 * that a stalled terminal never blocks tracing and stdout's flags, shared with
 * the shell, stay as they are). Nothing on the terminal changes yet.
 * Return: 0, or -errno (-ENOTTY: not the terminal's foreground process group).
 */
int term_open(struct term *t, int out_fd, const char *term_env, const char *no_colour);

/* Close what term_open() opened (after term_leave()). */
void term_close(struct term *t);

/**
 * term_enter() - raw keys, no echo, the alternate screen, no cursor
 *
 * From here until term_leave(), a crash of the process (SIGSEGV, SIGBUS,
 * SIGFPE, SIGILL, SIGABRT: signals.c's fault teardown) restores the terminal
 * first, through term_emergency_restore(). Nothing for a stream that is not a
 * terminal. Return: 0 or -errno.
 */
int term_enter(struct term *t);

/*
 * The terminal as term_enter() found it, from a signal handler: prepared
 * bytes and settings only (async-signal-safe); nothing when not entered.
 */
void term_emergency_restore(void);

/* Undo term_enter(): the settings, the main screen and the cursor back; idempotent. */
void term_leave(struct term *t);

/* Ask the terminal its size (TIOCGWINSZ); false if it did not change. */
bool term_resize(struct term *t);

/* Write what the terminal takes now, without waiting: bytes written, or -errno. */
ssize_t term_write(struct term *t, const char *p, size_t len);

/* Read the keys waiting (non-blocking) into @k: bytes read, 0 if none, or -errno. */
ssize_t term_read(struct term *t, struct term_keys *k);

#endif
