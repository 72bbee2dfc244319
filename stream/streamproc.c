// SPDX-License-Identifier: GPL-2.0-only
/* stream/streamproc.c - --stream's processes: facts at fork, exec and rename, verdicts, entries */
#include "stream/streamproc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util.h"

/* What /proc must tell to decide on the conditions. */
static uint32_t wanted(const struct stream *s, const struct mt_task *p)
{
	uint32_t k = s->cond.keys, w = 0;

	if ((k & CK_BIT(CK_PID)) && !p->tgid)
		w |= PI_STATUS;
	if (k & CK_BIT(CK_CMD))
		w |= PI_CMDLINE;
	if (k & CK_BIT(CK_EXE))
		w |= PI_EXEPATH;
	if (k & CK_CAPS)
		w |= PI_STATUS;
	if (k & CK_CONTAINER)
		w |= PI_CGROUP;
	return w;
}

/* What the events told of a process, for one whose /proc is gone (or not read). */
static void from_events(const struct mt_task *p, struct procinfo *pi)
{
	memset(pi, 0, sizeof(*pi));
	pi->container = -1;
	pi->pid = p->tgid ? p->tgid : p->tid;
	pi->ppid = p->ppid;
	if (p->flags & TF_COMM_KNOWN) {
		memcpy(pi->name, p->comm, p->comm_len);
		pi->name_len = p->comm_len;
	}
}

struct st_task *stream_slot_of(struct run *r, struct stream *s, const struct mt_task *t)
{
	struct st_task *x = &s->tasks[t - r->st.tb.tasks];

	if (x->serial != t->serial) {
		x->serial = t->serial;
		x->verdict = V_UNKNOWN;
		x->unsure = false;
		x->was_picked = false;
		x->pre_exec = false;
		x->fentry = 0;
		x->gen = x->pgen = 0;
		x->pentry = 0;
	}
	return x;
}

/* The entry of @p's process if it has one. */
static struct st_proc *entry_of(struct run *r, struct stream *s, const struct mt_task *p)
{
	struct st_task *lx = stream_slot_of(r, s, p);
	struct st_proc *sp;

	if (!lx->pentry || lx->pentry > s->nprocs)
		return NULL;
	sp = &s->procs[lx->pentry - 1];
	return sp->leader_serial == p->serial ? sp : NULL;
}

/* The facts taken of @p's process at its fork or exec, if they are still kept. */
static struct procinfo *facts_of(struct run *r, struct stream *s, const struct mt_task *p)
{
	struct st_task *lx = stream_slot_of(r, s, p);
	struct st_facts *f;

	if (!lx->fentry || lx->fentry > s->nfacts)
		return NULL;
	f = &s->facts[lx->fentry - 1];
	return f->leader_serial == p->serial ? &f->pi : NULL;
}

/* The entry of @pi, which facts_of() gave. */
static struct st_facts *facts_entry(struct procinfo *pi)
{
	return (struct st_facts *)(void *)((char *)pi - offsetof(struct st_facts, pi));
}

/* Room for the facts of @p's process (its own again, or the oldest of the ring). */
static struct procinfo *facts_new(struct run *r, struct stream *s, const struct mt_task *p)
{
	struct procinfo *pi = facts_of(r, s, p);
	struct st_facts *f;

	if (pi)
		return pi;
	f = &s->facts[s->next_facts];
	stream_slot_of(r, s, p)->fentry = (uint16_t)(s->next_facts + 1);
	s->next_facts = (s->next_facts + 1) % s->nfacts;
	if (f->held)
		s->nheld--;
	f->leader_serial = p->serial;
	f->held = 0;
	return &f->pi;
}

/*
 * An exec's filename as the process's exe, when /proc could not tell it: the
 * path as given to execve(), so only an absolute one (symlinks in it are not
 * resolved, as /proc/PID/exe would; a script's is the script's path, not its
 * interpreter's; fexecve()'s /dev/fd/N says nothing).
 */
static bool exe_from_filename(struct procinfo *pi, struct mt_str f)
{
	if (!f.s || !f.len || f.s[0] != '/' || f.len >= sizeof(pi->exe) ||
	    (f.len > 8 && !memcmp(f.s, "/dev/fd/", 8)) || memchr(f.s, '\0', f.len))
		return false;
	memcpy(pi->exe, f.s, f.len);
	pi->exe_len = (uint16_t)f.len;
	pi->have |= PI_EXEPATH;
	return true;
}

#define CONT_UNKNOWN	(-2)	/* not a container index, nor -1 (in none) */

/* An exec, reached: the new program's facts, from /proc while it runs, else from the event. */
void stream_exec_facts(struct run *r, struct stream *s, const struct mt_event *ev)
{
	struct mt_task *t = stats_find_task(&r->st, ev->u.exec.pid), *p;
	const struct procinfo *before;
	const struct st_proc *sp;
	int32_t cont = CONT_UNKNOWN;
	struct procinfo *pi;
	uint32_t want;

	if (s->all || !t || (t->flags & TF_PSEUDO))
		return;
	p = stats_process_of(&r->st, t);
	want = wanted(s, p);
	if (!want)
		return;		/* the events alone answer (process.name, process.pid) */
	/* an exec moves a process to no other cgroup: its container, as known before */
	if ((before = facts_of(r, s, p)) && (before->have & PI_CGROUP))
		cont = before->container;
	else if ((sp = entry_of(r, s, p)) && (sp->pi.have & PI_CGROUP))
		cont = sp->pi.container;
	pi = facts_new(r, s, p);
	if (facts_entry(pi)->held) {
		facts_entry(pi)->held = 0;
		s->nheld--;
	}
	from_events(p, pi);
	pi_read(&s->pi, t->tid, want | PI_FACTS | PI_NS | PI_START, pi);
	if (!(pi->have & PI_EXEPATH) && exe_from_filename(pi, ev->u.exec.filename))
		s->exe_from_exec++;
	if (!(pi->have & PI_CGROUP) && cont != CONT_UNKNOWN) {
		pi->container = cont;	/* gone by now */
		pi->have |= PI_CGROUP;
	}
	s->facts_exec++;
}

/*
 * A rename of a process's leader, reached: an exec renames it before its
 * sched_process_exec, and what the new image does in between (its setup)
 * must not be decided on the old program's facts. Read again from /proc;
 * where it is gone (and always before its exec, when /proc cannot tell its
 * parent's program from a later one), what an exec changes (exe, cmd,
 * capabilities) is withheld (unknown) until the exec event says the new ones,
 * or the process is seen back in user space (a memory syscall, a fork: the
 * rename was prctl()'s).
 */
void stream_rename_facts(struct run *r, struct stream *s, const struct mt_event *ev)
{
	static struct procinfo got;
	struct mt_task *t = stats_find_task(&r->st, ev->u.rename.pid), *p;
	struct st_facts *f;
	struct procinfo *pi;
	uint32_t want;

	if (s->all || !t || (t->flags & TF_PSEUDO))
		return;
	p = stats_process_of(&r->st, t);
	pi = facts_of(r, s, p);
	if (t != p || !pi)
		return;		/* a thread's own name; or no facts to keep right */
	f = facts_entry(pi);
	/*
	 * Before its exec it runs its parent's program (its fork's facts):
	 * /proc, read later, may tell of one it has exec'd since. Withheld
	 * until its exec event, or until it is back in user space (then the
	 * rename was prctl()'s, and its fork's facts are its own again).
	 */
	if (stream_slot_of(r, s, p)->pre_exec) {
		if (!f->held && (pi->have & PI_PROGRAM))
			s->nheld++;
		f->held |= pi->have & PI_PROGRAM;
		pi->have &= ~f->held;
		return;
	}
	want = wanted(s, p);
	got = *pi;
	got.have |= f->held;
	/* read again, or not known: an exiting process's exe and cmd read as nothing */
	got.have &= ~(PI_CMDLINE | PI_EXEPATH);
	if (!pi_read(&s->pi, t->tid, want | PI_FACTS, &got) &&
	    !(want & (PI_CMDLINE | PI_EXEPATH) & ~got.have)) {
		*pi = got;
		if (f->held)
			s->nheld--;
		f->held = 0;
		return;
	}
	if (!f->held)
		s->nheld++;
	f->held |= pi->have & (PI_CMDLINE | PI_EXEPATH | PI_STATUS);
	pi->have &= ~f->held;
}

/* Task @tid is in user space: facts withheld since its process's rename are its own again. */
void stream_resume_facts(struct run *r, struct stream *s, int32_t tid)
{
	struct mt_task *t, *p;
	struct procinfo *pi;
	struct st_facts *f;

	if (!s->nheld || !(t = stats_find_task(&r->st, tid)) || (t->flags & TF_PSEUDO))
		return;
	p = stats_process_of(&r->st, t);
	pi = facts_of(r, s, p);
	if (!pi || !(f = facts_entry(pi))->held)
		return;
	pi->have |= f->held;
	f->held = 0;
	s->nheld--;
	stream_changed(r, s, p->tid);	/* decided again on them */
	if (t != p)
		stream_changed(r, s, tid);
}

/*
 * A new process, reached: until its exec it runs its parent's program, with
 * its parent's capabilities and container. Read from the parent's /proc now;
 * the parent's facts if it is gone too (its container then its own /proc's).
 */
void stream_fork_facts(struct run *r, struct stream *s, const struct mt_event *ev)
{
	static struct procinfo got, own;	/* (the parent's facts may be the ring's oldest) */
	struct mt_task *c = stats_find_task(&r->st, ev->u.fork.child), *parent, *pp;
	const struct procinfo *from;
	struct st_proc *pe;
	uint32_t want;

	if (s->all || !c || (c->flags & TF_PSEUDO) || stats_process_of(&r->st, c) != c)
		return;		/* a thread: its process's facts are its own */
	parent = stats_find_task(&r->st, ev->u.fork.parent);
	if (!parent || (parent->flags & TF_PSEUDO))
		return;
	pp = stats_process_of(&r->st, parent);
	stream_resume_facts(r, s, parent->tid);	/* a fork is a syscall: not inside an exec */
	want = wanted(s, c);
	if (!want)
		return;		/* the events alone answer (process.name, process.pid) */
	from_events(c, &got);
	if (pi_read(&s->pi, parent->tid, want | PI_FACTS, &got)) {
		from = facts_of(r, s, pp);
		if (!from && (pe = entry_of(r, s, pp)))
			from = &pe->pi;
		if (from) {
			got = *from;
			got.have &= PI_STATUS | PI_CMDLINE | PI_EXEPATH | PI_CGROUP;
		}
		/*
		 * Its container: its own /proc's now, where it still runs (it
		 * was born in its parent's cgroup, and an exec moves it to no
		 * other) rather than its parent's facts, read earlier: runc
		 * moves its set-up's first process into the container, which
		 * then forks the container's first ones.
		 */
		own.have = 0;
		if (!pi_read(&s->pi, c->tid, PI_CGROUP, &own) && (own.have & PI_CGROUP)) {
			got.container = own.container;
			got.have |= PI_CGROUP;
		}
	}
	/* the child's own: its ids and name; not the parent's namespace or start */
	got.pid = c->tid;
	got.ppid = pp->tgid ? pp->tgid : pp->tid;
	got.have &= ~(PI_NS | PI_START | PI_NAME);
	if (c->flags & TF_COMM_KNOWN) {
		memcpy(got.name, c->comm, c->comm_len);
		got.name_len = c->comm_len;
	}
	*facts_new(r, s, c) = got;
	s->facts_fork++;
}

/* Into @to, the facts of @bits that @from has and @to has not; a parent's (!@own) keep @to's ids. */
static void take(struct procinfo *to, const struct procinfo *from, uint32_t bits, bool own)
{
	bits &= from->have & ~to->have;
	if ((bits & PI_STATUS) && own) {
		to->pid = from->pid;
		to->ppid = from->ppid;
	}
	if (bits & PI_STATUS)
		memcpy(to->cap, from->cap, sizeof(to->cap));
	if (bits & PI_CMDLINE) {
		memcpy(to->cmd, from->cmd, from->cmd_len);
		to->cmd_len = from->cmd_len;
		to->cmd_cut = from->cmd_cut;
	}
	if (bits & PI_EXEPATH) {
		memcpy(to->exe, from->exe, from->exe_len);
		to->exe_len = from->exe_len;
	}
	if (bits & PI_CGROUP)
		to->container = from->container;
	if (bits & PI_NS) {
		to->ns_dev = from->ns_dev;
		to->ns_ino = from->ns_ino;
	}
	if (bits & PI_START)
		to->started_s = from->started_s;
	if (bits & PI_NAME) {
		memcpy(to->name, from->name, from->name_len);
		to->name_len = from->name_len;
	}
	to->have |= bits;
}

/*
 * @bits more of @p's process's facts into @pi, never changing one it has:
 * from /proc now, through task @t. Before its exec (pre_exec) it runs its
 * parent's program: what an exec changes (exe, cmd, capabilities) never comes
 * from its own /proc (it may have exec'd since), only from its fork's facts
 * or, where none were kept (@kept false), its parent's /proc; its container,
 * namespace and start are its own (a child is born in its parent's cgroup, and
 * an exec moves it to no other). A container still not known: its parent's,
 * if its parent is picked.
 */
static void fill(struct run *r, struct stream *s, const struct mt_task *p, const struct mt_task *t,
		 struct procinfo *pi, uint32_t bits, bool kept)
{
	static struct procinfo got;
	const struct mt_task *parent;
	const struct st_proc *pp;
	bool pre = stream_slot_of(r, s, p)->pre_exec;
	uint32_t miss = bits & ~pi->have, own = pre ? miss & ~PI_PROGRAM : miss;

	if (own) {
		got.have = 0;
		if (pi_read(&s->pi, t->tid, own, &got) && t != p)
			pi_read(&s->pi, p->tid, own, &got);
		take(pi, &got, own, true);
	}
	miss = bits & ~pi->have & (PI_PROGRAM | PI_CGROUP);
	if (pre && !kept && miss && pi->ppid > 0) {
		got.have = 0;
		pi_read(&s->pi, pi->ppid, miss, &got);
		take(pi, &got, miss, false);
	}
	/* gone before it was read: its parent's container, if the parent is picked */
	if ((bits & ~pi->have & PI_CGROUP) && pi->ppid > 0 &&
	    (parent = stats_find_task(&r->st, pi->ppid)) && (pp = entry_of(r, s, parent)) &&
	    (pp->pi.have & PI_CGROUP)) {
		pi->container = pp->pi.container;
		pi->have |= PI_CGROUP;
	}
}

/*
 * The facts of @p's process at @t's event, as far as @want asks: what its
 * fork, exec or rename left (taken as soon as the batch reached them; /proc
 * may be gone now, or tell of a later program), the rest from /proc now.
 */
static void facts_at(struct run *r, struct stream *s, const struct mt_task *p, const struct mt_task *t,
		     uint32_t want, struct procinfo *pi)
{
	const struct procinfo *f = facts_of(r, s, p);

	if (f)
		*pi = *f;
	else
		from_events(p, pi);
	fill(r, s, p, t, pi, want, f != NULL);
}

/*
 * What the lines of @p's process say, rendered: @decided, the facts its
 * verdict was made on (the keys of @want, known or not, exactly as decided),
 * and what the conditions do not read, added by the same rules.
 */
static void describe(struct run *r, struct stream *s, struct st_proc *sp, const struct mt_task *p,
		     const struct mt_task *t, const struct procinfo *decided, uint32_t want)
{
	uint32_t known;

	sp->pi = *decided;
	known = sp->pi.have;
	sp->pi.have |= want;	/* not asked again: the verdict took them as they were */
	fill(r, s, p, t, &sp->pi, PI_ALL, facts_of(r, s, p) != NULL);
	sp->pi.have &= ~(want & ~known);
	sp->pi.pre_exec = stream_slot_of(r, s, p)->pre_exec;
	/* the process's name as the events keep it (renames, exec): the one decided on */
	if (p->flags & TF_COMM_KNOWN) {
		memcpy(sp->pi.name, p->comm, p->comm_len);
		sp->pi.name_len = p->comm_len;
	}
	sp->pid = sp->pi.pid;
	sp->stale = false;
	sp->frag_len = (uint16_t)jl_process(sp->frag, sizeof(sp->frag), &sp->pi,
					     pi_container(&s->pi, &sp->pi));
	if (!sp->frag_len) {	/* cannot happen either: then the bare process */
		sp->pi.cmd_len = sp->pi.exe_len = 0;
		sp->frag_len = (uint16_t)jl_process(sp->frag, sizeof(sp->frag), &sp->pi, NULL);
	}
}

/* Its process has ended (its exit may have come before its entry was made). */
bool stream_ended(struct run *r, struct st_proc *sp)
{
	const struct mt_task *p;

	if (!sp->exited) {
		p = stats_task_by_serial(&r->st, sp->leader_serial);
		sp->exited = !p || p->state != TASK_ALIVE || p->pexit_ts;
	}
	return sp->exited;
}

/* Room for a new entry: a free one, else the oldest of an ended process; NULL if none. */
static struct st_proc *entry_room(struct run *r, struct stream *s)
{
	struct st_proc *sp = NULL;
	uint32_t i;

	for (i = 0; i < s->nprocs; i++) {
		struct st_proc *e = &s->procs[i];

		if (!e->leader_serial)
			return e;
		if (stream_ended(r, e) && (!s->interval_ns || e->final_done) &&
		    (!sp || e->last_ts < sp->last_ts))
			sp = e;
	}
	return sp;
}

/* A new entry for the process of @p, described by describe(); NULL if none (counted). */
static struct st_proc *entry_new(struct run *r, struct stream *s, const struct mt_task *p)
{
	struct st_proc *sp = entry_room(r, s);

	if (!sp) {
		s->proc_overflow++;
		return NULL;
	}
	memset(sp, 0, offsetof(struct st_proc, pi));
	sp->leader_serial = p->serial;
	stream_slot_of(r, s, p)->pentry = (uint32_t)(sp - s->procs) + 1;
	s->picked_procs++;
	return sp;
}

/*
 * Keys a container's runtime cannot answer, met deciding on a process: one
 * warning each, and the containers named at the end. (A process gone
 * before it was read answers nothing either: counted, unsaid.)
 */
static void warn_unknown(struct stream *s, uint32_t unknown, const struct procinfo *pi)
{
	const struct rt_container *c = pi_container(&s->pi, pi);
	uint32_t i;
	int k;

	unknown &= CK_CONTAINER;
	if (!c || !unknown)
		return;
	for (k = 0; k < CK__COUNT; k++) {
		if (!(unknown & CK_BIT(k)) || (s->warned_keys & CK_BIT(k)))
			continue;
		s->warned_keys |= CK_BIT(k);
		mt_warn("warning: %s cannot be answered for container %.12s (%s): its terms are "
			"unknown, and a process decided on them is not picked", cond_key_name(k),
			c->id, c->unknown_why ? c->unknown_why : "its runtime's files are not readable");
	}
	s->unanswered_keys |= unknown;
	for (i = 0; i < s->nunanswered && i < UNANSWERED; i++)
		if (!strncmp(s->unanswered[i], c->id, 12))
			return;
	if (s->nunanswered >= UNANSWERED) {
		s->unanswered_more = true;
		return;
	}
	snprintf(s->unanswered[s->nunanswered++], sizeof(s->unanswered[0]), "%.12s", c->id);
}

/* At the end: the containers whose keys could not be answered, in one line. */
void stream_say_unanswered(const struct stream *s)
{
	char keys[256], ids[UNANSWERED * 14 + 16];
	size_t nk = 0, ni = 0;
	uint32_t i;
	int k;

	if (!s->nunanswered)
		return;
	keys[0] = ids[0] = '\0';
	for (k = 0; k < CK__COUNT && nk < sizeof(keys); k++)
		if (s->unanswered_keys & CK_BIT(k))
			nk += (size_t)snprintf(keys + nk, sizeof(keys) - nk, "%s%s", nk ? ", " : "",
					       cond_key_name(k));
	for (i = 0; i < s->nunanswered && ni < sizeof(ids); i++)
		ni += (size_t)snprintf(ids + ni, sizeof(ids) - ni, "%s%s", i ? ", " : "",
				       s->unanswered[i]);
	mt_warn("warning: %s could not be answered for %s%u container%s (%s%s): unknown, "
		"never picked on", keys, s->unanswered_more ? "more than " : "",
		s->nunanswered, s->nunanswered == 1 && !s->unanswered_more ? "" : "s", ids,
		s->unanswered_more ? ", ..." : "");
}

/*
 * Is @t picked? Once per task (and after its exec or rename). On its
 * process's entry's facts, the ones its lines say; without one (or a stale
 * one), on the facts its process's fork or exec left and /proc now, into
 * s->scratch, which then describe the lines if it is picked. A term whose
 * fact is not known is unknown, and unknown is not picked.
 */
static void decide(struct run *r, struct stream *s, struct mt_task *t, struct st_task *x)
{
	static struct cond_label labels[RT_LABELS];
	struct mt_task *p = stats_process_of(&r->st, t);
	struct st_proc *sp = entry_of(r, s, p);
	struct procinfo *pi = &s->scratch;
	struct cond_subject subj;
	uint32_t unknown = 0;
	enum cond_truth v;
	struct st_task *lx;

	x->verdict = V_NO;
	if ((t->flags & TF_PSEUDO) || (s->tree && !(t->flags & TF_TREE)))
		return;
	if (sp && !sp->stale) {
		pi = &sp->pi;
	} else {
		s->scratch_want = s->all ? 0 : wanted(s, p);
		facts_at(r, s, p, t, s->scratch_want, pi);
	}
	if (!s->all) {
		/* process.name: the leader's; thread.name: the task's own */
		pi_subject(&s->pi, pi, p->comm, (p->flags & TF_COMM_KNOWN) ? p->comm_len : 0,
			   t->comm, (t->flags & TF_COMM_KNOWN) ? t->comm_len : 0, labels, &subj);
		v = cond_value(&s->cond, &subj, &unknown);
		if (unknown)
			warn_unknown(s, unknown, pi);
		/*
		 * Counted: the processes left out on unknown facts and never
		 * picked. One decided on unknown facts (between the rename an
		 * exec does and its sched_process_exec, say) and picked later
		 * is not: it is picked.
		 */
		lx = stream_slot_of(r, s, p);
		if (v == COND_UNKNOWN && !lx->unsure && !lx->was_picked) {
			s->unsure_procs++;
			lx->unsure = true;
		}
		if (v != COND_TRUE)
			return;
		lx->was_picked = true;
		if (lx->unsure) {
			lx->unsure = false;
			s->unsure_procs--;
		}
	}
	x->verdict = V_YES;
}

/* The entry of a picked task's process, or NULL when @tid is not picked. */
struct st_proc *stream_picked(struct run *r, struct stream *s, int32_t tid, uint64_t ts)
{
	struct mt_task *t, *p;
	struct st_task *x, *lx;
	struct st_proc *sp;
	bool fresh;

	if (tid <= 0 || tid == s->self)
		return NULL;
	t = stats_task(&r->st, tid, ts);
	if (!t || (t->flags & TF_PSEUDO))
		return NULL;
	x = stream_slot_of(r, s, t);
	p = stats_process_of(&r->st, t);
	lx = stream_slot_of(r, s, p);
	sp = entry_of(r, s, p);
	fresh = !sp || sp->stale;	/* its lines are to be described (again) */
	/*
	 * Decided again after its own rename or exec, or its leader's
	 * (process.name), and whenever its process's lines are described
	 * anew: a line is picked by the verdict on the very facts it says.
	 */
	if (x->verdict == V_UNKNOWN || x->pgen != lx->gen || (x->verdict == V_YES && fresh)) {
		/* picked, but no entry was free: decided again once one is */
		if (x->verdict == V_YES && x->pgen == lx->gen && !sp && !entry_room(r, s)) {
			s->proc_overflow++;
			return NULL;
		}
		x->pgen = lx->gen;
		decide(r, s, t, x);
		if (x->verdict == V_YES && fresh) {
			if (!sp && !(sp = entry_new(r, s, p)))
				return NULL;
			describe(r, s, sp, p, t, &s->scratch, s->scratch_want);
			/* its other threads are decided again, on these facts */
			x->pgen = ++lx->gen;
		}
	}
	if (x->verdict != V_YES)
		return NULL;
	sp->last_ts = ts;
	return sp;
}

/* exec or rename: the task is decided again, its process described again. */
void stream_changed(struct run *r, struct stream *s, int32_t tid)
{
	struct mt_task *t = stats_find_task(&r->st, tid), *p;
	struct st_proc *sp;

	if (!t || (t->flags & TF_PSEUDO))
		return;
	stream_slot_of(r, s, t)->verdict = V_UNKNOWN;
	p = stats_process_of(&r->st, t);
	if (p == t)
		stream_slot_of(r, s, p)->gen++;	/* its threads too: process.name is the leader's */
	sp = entry_of(r, s, p);
	if (sp)
		sp->stale = true;
}

void stream_exited(struct run *r, struct stream *s, const struct mt_event *ev)
{
	struct mt_task *t = stats_find_task(&r->st, ev->u.exit.pid);
	struct st_proc *sp;

	mempair_forget(&s->pair, ev->u.exit.pid);
	if (!t || ev->u.exit.group_dead == 0)
		return;
	sp = entry_of(r, s, stats_process_of(&r->st, t));
	if (sp && (ev->u.exit.group_dead == 1 || !t->leader))
		sp->exited = true;
}
