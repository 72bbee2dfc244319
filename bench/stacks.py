#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""stacks.py [SECONDS [RUNS [MB]]] [--memstrack[=SRC]] - the live storm with --stacks.

build/bench/churn maps, touches and unmaps MB MiB (default 16) in a loop on CPU 1 for SECONDS
(default 3). Each of RUNS rounds (default 5) runs it, one after the other (timings are
compared as ratios within the run: other work shares this machine):
  untraced;
  stacks     under `memtrace --stacks -f json` (default buffer), through build/bench/rusage;
  bare       under a bare reader (bench/drain.c, built here in a temp dir) of an instance of
             our own with what memtrace sets up: the same events (read from memtrace's
             set_event in the first round), the stacktrace trigger on kmem:mm_page_alloc,
             the same buffer size, buffer_percent 50 and trace_clock mono. It only reads
             the per-CPU trace_pipe_raw into nothing: the kernel's share of the cost;
  plain      under memtrace without --stacks, for comparison;
  memstrack  (--memstrack only) under `memstrack --notui --backend perf --report
             module_summary,task_summary`, built from SRC (a git URL or directory; default
             $MEMSTRACK_SRC, else https://github.com/ryncsn/memstrack) in a temp dir, never
             part of the product; it needs libncurses-dev.
Printed: each round's pages/s; medians of pages/s and their ratios stacks/untraced,
bare/untraced, stacks/bare (the target: >= 0.9; also the median of the rounds' own
stacks/bare ratios); per tracer lost events, CPU time over its whole life
(build/bench/rusage), CPU per event (memtrace: JSON events.processed, stack records included;
the target: <= 150 ns) and per workload page, peak RSS; memtrace's stacks_info. Each
round also starts and stops each memtrace once without the workload (an idle run): the
CPU per event above that is the cost of the events alone, without start-up, the report
(which reads /proc/kallsyms for its symbols) and teardown. When memtrace --stacks lost
events, the smallest buffer (doubling from the default) with none lost in three runs is
looked for and printed. A memstrack run that fails is counted and left out.

Root; prints figures and RESULT lines (bench/run.sh); asserts nothing. With BENCH_RESULTS
set, a table of the figures is appended to that file. The top level of tracefs is compared
before and after; the instances are ours (memtrace-bench-*) and removed on any exit.
"""
import contextlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True    # no __pycache__ in bench/ from the imports below
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import live  # noqa: E402
from live import CPU, ROOT, TFS, churn, median, reap, rusage_cmd  # noqa: E402

ME = os.path.basename(sys.argv[0])     # this script, or the one importing it
MT_STK = "memtrace-bench-stk"
MT_PLAIN = "memtrace-bench-plain"
BARE = "memtrace-bench-bare"
MEMSTRACK_URL = "https://github.com/ryncsn/memstrack"


def tfs_state():
    """live.py's, with only our instances listed: other users' come and go meanwhile"""
    def ours(line):
        return " ".join(w for w in line.split()
                        if w == "instances:" or w.startswith("memtrace-bench-"))
    return [ours(line) if line.startswith("instances:") else line for line in live.tfs_state()]


def fail(msg):
    sys.exit(f"{ME}: {msg}")


def wait_text(path, text, proc, timeout=30):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        with open(path, errors="replace") as fh:
            if text in fh.read():
                return
        if proc.poll() is not None:
            fail(f"{proc.args[0]} exited early:\n" + open(path, errors="replace").read())
        time.sleep(0.02)
    fail(f"{proc.args[0]} not ready after {timeout} s")


def stop(proc, sig=signal.SIGTERM):
    if proc.poll() is None:
        proc.send_signal(sig)


def reaped(proc, ru, timeout):
    """reap() of a command run through build/bench/rusage; one that does not end in @timeout
    seconds is killed with rusage (its child first: rusage only passes TERM and INT on)"""
    try:
        return reap(proc, ru, timeout)
    except subprocess.TimeoutExpired:
        try:
            with open(f"/proc/{proc.pid}/task/{proc.pid}/children") as fh:
                for pid in fh.read().split():
                    os.kill(int(pid), signal.SIGKILL)
        except OSError:
            pass
        proc.kill()
        proc.wait()
        raise


def run_memtrace(tmp, secs, mb, stacks, inst, buffer_kb=None):
    """workload pages/s under memtrace, and what memtrace says about it"""
    log, err = os.path.join(tmp, inst + ".json"), os.path.join(tmp, inst + ".err")
    ru = os.path.join(tmp, inst + ".rusage")
    cmd = [os.path.join(ROOT, "memtrace"), "--instance", inst, "-f", "json", "-o", log]
    cmd += ["--stacks"] if stacks else []
    cmd += ["-b", str(buffer_kb)] if buffer_kb else []
    p = subprocess.Popen(rusage_cmd(ru) + cmd, stderr=open(err, "w"), stdout=subprocess.DEVNULL)
    events = None
    try:
        wait_text(err, "tracing in", p)
        with open(os.path.join(TFS, "instances", inst, "set_event")) as fh:
            events = fh.read().split()
        rate = churn(secs, mb) if secs else 0.0     # 0: an idle run, start and stop
        time.sleep(0.3)
    finally:                    # also when the run fails: memtrace cleans up on TERM
        stop(p)
    cpu, maxrss = reaped(p, ru, 60)
    if p.returncode != 0:
        fail("memtrace failed:\n" + open(err).read())
    d = json.load(open(log))
    kb = int(open(err).read().split(" KiB per CPU")[0].split()[-1])
    return {"rate": rate, "events": d["events"]["processed"], "lost": d["lost_events"],
            "cpu": cpu, "maxrss": maxrss, "stacks_info": d.get("stacks_info"),
            "set_event": events, "buffer_kb": kb}


def tfs_write(inst, f, val, append=False):
    fd = os.open(os.path.join(inst, f), os.O_WRONLY | (os.O_APPEND if append else os.O_TRUNC))
    try:
        os.write(fd, val.encode())
    finally:
        os.close(fd)


def bare_teardown(inst):
    """our instance (by its name) off and gone; quiet about what is already so"""
    if not os.path.isdir(inst):
        return
    for f, v in (("tracing_on", "0"), ("events/kmem/mm_page_alloc/trigger", "!stacktrace"),
                 ("events/enable", "0")):
        try:
            tfs_write(inst, f, v)
        except OSError:
            pass
    for _ in range(50):
        try:
            os.rmdir(inst)
            return
        except OSError:
            time.sleep(0.1)
    os.rmdir(inst)


def inst_counts(inst):
    """events read from the instance and lost in it, summed over its CPUs"""
    read = lost = 0
    d = os.path.join(inst, "per_cpu")
    for c in os.listdir(d):
        with open(os.path.join(d, c, "stats")) as fh:
            for line in fh:
                k, _, v = line.partition(":")
                if k == "read events":
                    read += int(v)
                elif k in ("overrun", "dropped events"):
                    lost += int(v)
    return read, lost


@contextlib.contextmanager
def bare_reader(tmp, name, drain, events, buffer_kb, trigger=None, args=()):
    """the instance @name of our own set up as memtrace sets up its own (@events, @buffer_kb,
    buffer_percent 50, trace_clock mono, @trigger on kmem:mm_page_alloc), read into nothing
    by the bare reader @drain (with @args before the instance), tracing on: yields
    (instance, reader, its output file); then the reader stopped (its failure fails the
    bench) and the instance removed"""
    inst = os.path.join(TFS, "instances", name)
    bare_teardown(inst)         # left by an earlier failed run
    out, err = os.path.join(tmp, "drain.out"), os.path.join(tmp, "drain.err")
    os.mkdir(inst)
    p = None
    try:
        tfs_write(inst, "tracing_on", "0")
        tfs_write(inst, "buffer_size_kb", str(buffer_kb))
        tfs_write(inst, "buffer_percent", "50")
        tfs_write(inst, "trace_clock", "mono")
        for e in events:
            tfs_write(inst, "set_event", e + "\n", append=True)
        if trigger:
            tfs_write(inst, "events/kmem/mm_page_alloc/trigger", trigger)
        p = subprocess.Popen([drain, *args, inst], stdout=open(out, "w"), stderr=open(err, "w"))
        wait_text(err, "ready", p)
        tfs_write(inst, "tracing_on", "1")
        yield inst, p, out
    finally:
        if p:
            stop(p)
            try:
                p.wait(30)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        bare_teardown(inst)
    if p.returncode != 0:
        fail("bare reader failed:\n" + open(err).read())


def run_bare(tmp, secs, mb, drain, events, buffer_kb):
    """workload pages/s under a bare reader of an instance set up as memtrace --stacks does"""
    with bare_reader(tmp, BARE, drain, events, buffer_kb, "stacktrace") as (inst, _, out):
        rate = churn(secs, mb)
        time.sleep(0.3)
        tfs_write(inst, "tracing_on", "0")
        lost = inst_counts(inst)[1]
    f = open(out).read().split()
    return {"rate": rate, "lost": lost, "bytes": int(f[f.index("bytes") + 1])}


def build(src, out):
    subprocess.run(["cc", "-O2", "-Wall", "-Wextra", "-o", out, src], check=True)
    return out


def build_memstrack(tmp, src):
    """memstrack built from its public source in @tmp: (path, its commit) or (None, why)"""
    d = os.path.join(tmp, "memstrack")
    r = subprocess.run(["git", "clone", "-q", "--depth", "1",
                        ("file://" + os.path.abspath(src)) if os.path.isdir(src) else src, d],
                       capture_output=True, text=True)
    if r.returncode != 0:
        return None, f"git clone {src}: " + r.stderr.strip()
    rev = subprocess.run(["git", "-C", d, "log", "-1", "--format=%h %cs %s"],
                         capture_output=True, text=True).stdout.strip()
    r = subprocess.run(["make", "-C", d, "-j2", "memstrack"], capture_output=True, text=True)
    if r.returncode != 0:
        return None, "make: " + "\n".join((r.stdout + r.stderr).strip().splitlines()[-5:])
    return os.path.join(d, "memstrack"), rev


def trace_mounts():
    """the tracefs and debugfs mount points (/proc/mounts), in its order"""
    with open("/proc/mounts") as fh:
        return [f[1] for f in (line.split() for line in fh) if f[2] in ("tracefs", "debugfs")]


def unmount_new(before):
    """The tracefs and debugfs mounts that are not in @before undone, the deepest first:
    memstrack mounts debugfs (and with it tracefs under it) where it is not, and leaves it.
    Returns what it unmounted."""
    new = [m for m in trace_mounts() if m not in before]
    for m in sorted(new, key=len, reverse=True):
        subprocess.run(["umount", m], check=False)
    return new


def run_memstrack(tmp, secs, mb, binary):
    out, rep = os.path.join(tmp, "memstrack.out"), os.path.join(tmp, "memstrack.report")
    ru = os.path.join(tmp, "memstrack.rusage")
    mounted = trace_mounts()
    try:
        return run_memstrack_once(out, rep, ru, secs, mb, binary)
    finally:
        for m in unmount_new(mounted):
            print(f"memstrack mounted {m}: unmounted")


def run_memstrack_once(out, rep, ru, secs, mb, binary):
    p = subprocess.Popen(rusage_cmd(ru) + [binary, "--notui", "--backend", "perf", "--report",
                                           "module_summary,task_summary", "--output", rep],
                         stdout=open(out, "w"), stderr=subprocess.STDOUT)
    try:
        wait_text(out, "Tracing memory allocations", p)
        rate = churn(secs, mb)
        time.sleep(0.3)
    finally:                    # SIGINT: what dracut's memstrack-report.sh sends
        stop(p, signal.SIGINT)
    cpu, maxrss = reaped(p, ru, 120)
    text = open(out, errors="replace").read()
    if p.returncode != 0:       # not ours to fix: counted and said, the run goes on
        last = text.strip().splitlines()[-1] if text.strip() else ""
        return {"failed": f"exit status {p.returncode}: {last}"}
    lost = sum(int(line.split()[1]) for line in text.splitlines() if line.startswith("Lost "))
    return {"rate": rate, "lost": lost, "cpu": cpu, "maxrss": maxrss}


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    opts = [a for a in sys.argv[1:] if a.startswith("--")]
    secs = float(args[0]) if len(args) > 0 else 3
    runs = int(args[1]) if len(args) > 1 else 5
    mb = int(args[2]) if len(args) > 2 else 16
    memstrack_src = None
    for o in opts:
        if o == "--memstrack" or o.startswith("--memstrack="):
            memstrack_src = (o.partition("=")[2] or os.environ.get("MEMSTRACK_SRC")
                             or MEMSTRACK_URL)
        else:
            fail(f"unknown option {o}\n" + __doc__)
    if os.geteuid() != 0:
        fail("needs root (tracefs)")
    # TERM/INT run the cleanup (finally) like an error does: tracers stopped, instances gone
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    subprocess.run(["make", "-s", "-C", ROOT, "memtrace", "build/bench/churn", "build/bench/rusage"],
                   check=True)
    before = tfs_state()
    res = {"untraced": [], "stacks": [], "bare": [], "plain": [], "memstrack": []}
    idle = {"stacks": [], "plain": []}
    search = []
    memstrack_note = None
    with tempfile.TemporaryDirectory(prefix="memtrace-stacks.") as tmp:
        drain = build(os.path.join(ROOT, "bench/drain.c"), os.path.join(tmp, "drain"))
        memstrack = None
        if memstrack_src:
            memstrack, memstrack_note = build_memstrack(tmp, memstrack_src)
            print(f"memstrack from {memstrack_src}: " +
                  (f"built ({memstrack_note})" if memstrack else "NOT built: " + memstrack_note))
        try:
            for _ in range(runs):
                res["untraced"].append({"rate": churn(secs, mb)})
                s = run_memtrace(tmp, secs, mb, True, MT_STK)
                res["stacks"].append(s)
                events = res["stacks"][0]["set_event"]
                res["bare"].append(run_bare(tmp, secs, mb, drain, events, s["buffer_kb"]))
                res["plain"].append(run_memtrace(tmp, secs, mb, False, MT_PLAIN))
                idle["stacks"].append(run_memtrace(tmp, 0, mb, True, MT_STK))
                idle["plain"].append(run_memtrace(tmp, 0, mb, False, MT_PLAIN))
                if memstrack:
                    res["memstrack"].append(run_memstrack(tmp, secs, mb, memstrack))
            if max(r["lost"] for r in res["stacks"]):
                kb = res["stacks"][0]["buffer_kb"]
                while kb < 65536 and (not search or max(r["lost"] for r in search[-1][1])):
                    kb *= 2
                    search.append((kb, [run_memtrace(tmp, secs, mb, True, MT_STK, kb)
                                        for _ in range(min(runs, 3))]))
        finally:
            bare_teardown(os.path.join(TFS, "instances", BARE))
    after = tfs_state()
    memstrack_failed = [r for r in res["memstrack"] if "failed" in r]
    res["memstrack"] = [r for r in res["memstrack"] if "failed" not in r]
    if memstrack_failed:
        memstrack_note = (f"{len(memstrack_failed)} of {runs} memstrack runs failed, the last "
                          f"with {memstrack_failed[-1]['failed']}")
        print(memstrack_note)
    report(res, idle, search, secs, mb, runs, memstrack_src, memstrack_note, memstrack_failed)
    live.tfs_unchanged(before, after)


def report(res, idle, search, secs, mb, runs, memstrack_src, memstrack_note, memstrack_failed):
    base = median([r["rate"] for r in res["untraced"]])
    stk = res["stacks"]
    kb = stk[0]["buffer_kb"]
    print("run by run, pages/s (lost events)" +
          (", memstrack's failed runs left out" if memstrack_failed else "") + ":")
    for i in range(runs):
        print(f"  {i + 1:2}: " + "  ".join(
            f"{n} {rows[i]['rate']:,.0f}" + (f" ({rows[i]['lost']})" if "lost" in rows[i] else "")
            for n, rows in res.items() if len(rows) > i))
    print(f"\nlive storm with --stacks: build/bench/churn {mb} MiB map/touch/unmap on CPU {CPU}, "
          f"{secs:g} s per run, {runs} runs of each, interleaved; {kb} KiB per CPU")
    print(f"{'':10} {'pages/s':>10} {'ratio':>6} {'events':>10} {'lost':>7} {'CPU s':>6} "
          f"{'ns/event':>8} {'ns/page':>8} {'maxrss KiB':>10}")
    figs = {}
    for name, rows in res.items():
        if not rows:
            continue
        rate = median([r["rate"] for r in rows])
        line = f"{name:10} {rate:10,.0f} {rate / base:6.3f}"
        figs[f"{name}_ratio"] = rate / base
        if name == "bare":
            lost = max(r["lost"] for r in rows)
            line += f" {'':10} {lost:7}"
            figs["bare_lost"] = lost
        elif name != "untraced":
            lost = max(r["lost"] for r in rows)
            cpu = median([r["cpu"] for r in rows])
            # CPU per page the workload allocated: comparable across tracers
            ns_page = median([r["cpu"] / (r["rate"] * secs) * 1e9 for r in rows])
            rss = max(r["maxrss"] for r in rows)
            if "events" in rows[0]:
                ev = median([r["events"] for r in rows])
                ns = median([r["cpu"] / r["events"] * 1e9 for r in rows])
                line += f" {ev:10,.0f} {lost:7} {cpu:6.2f} {ns:8.1f}"
                figs[f"{name}_ns_per_event"] = ns
            else:
                line += f" {'':10} {lost:7} {cpu:6.2f} {'':8}"
            line += f" {ns_page:8.1f} {rss:10}"
            figs.update({f"{name}_lost": lost, f"{name}_cpu_s": cpu,
                         f"{name}_ns_per_page": ns_page, f"{name}_maxrss_kib": rss})
        print(line)
    for name, rows in idle.items():
        # what start, seeding, the report (symbols) and teardown cost, apart from the events
        cpu0 = median([r["cpu"] for r in rows])
        ev0 = median([r["events"] for r in rows])
        ns = median([(r["cpu"] - cpu0) / (r["events"] - ev0) * 1e9 for r in res[name]])
        print(f"{name}: idle run (start, 0.3 s, report, stop) {cpu0:.3f} CPU s, {ev0:,.0f} "
              f"events; CPU per event above that: {ns:.1f} ns")
        figs[f"{name}_idle_cpu_s"] = cpu0
        figs[f"{name}_marginal_ns_per_event"] = ns
    per_run = [s["rate"] / b["rate"] for s, b in zip(stk, res["bare"])]
    figs["stacks_vs_bare"] = median([r["rate"] for r in stk]) / median(
        [r["rate"] for r in res["bare"]])
    figs["stacks_vs_bare_paired"] = median(per_run)
    figs["stacks_vs_bare_min"], figs["stacks_vs_bare_max"] = min(per_run), max(per_run)
    print(f"workload under memtrace --stacks vs under the bare reader: "
          f"{figs['stacks_vs_bare']:.3f} (ratio of the medians; median of the run-by-run "
          f"ratios {median(per_run):.3f}, from {min(per_run):.3f} to {max(per_run):.3f}); "
          "target >= 0.9")
    if res["memstrack"]:
        figs["stacks_vs_memstrack"] = median([r["rate"] for r in stk]) / median(
            [r["rate"] for r in res["memstrack"]])
        print(f"workload under memtrace --stacks vs under memstrack --backend perf: "
              f"{figs['stacks_vs_memstrack']:.2f}x ({len(res['memstrack'])} memstrack runs)")
        figs["memstrack_runs_failed"] = len(memstrack_failed)
    elif memstrack_src:
        print(f"memstrack: not run: {memstrack_note}")
    si = stk[-1]["stacks_info"]
    print("stacks_info (last run): " + ", ".join(f"{k} {si[k]}" for k in (
        "stacks", "paired", "unpaired_allocs", "unpaired_stacks", "not_kept", "truncated",
        "task_stacks_full")))
    figs["stacks_distinct"] = si["stacks"]
    figs["stacks_unpaired_allocs"] = max(r["stacks_info"]["unpaired_allocs"] for r in stk)
    figs["stacks_not_kept"] = max(r["stacks_info"]["not_kept"] for r in stk)
    if search:
        for b, rows in search:
            print(f"memtrace --stacks -b {b}: lost {[r['lost'] for r in rows]}")
        ok = [b for b, rows in search if not max(r["lost"] for r in rows)]
        figs["stacks_zero_lost_buffer_kib"] = ok[0] if ok else -1
        print(f"smallest buffer with 0 lost events: {ok[0]} KiB per CPU" if ok else
              f"still lost events at {search[-1][0]} KiB per CPU")
    figs["untraced_pages_per_s"] = base
    for k, v in figs.items():
        print(f"RESULT {k} {v:.3f}" if isinstance(v, float) else f"RESULT {k} {v}")
    if os.environ.get("BENCH_RESULTS"):
        append_results(os.environ["BENCH_RESULTS"], figs, kb, bool(res["memstrack"]))


def append_results(path, f, kb, memstrack):
    def g(k, fmt="{:,.0f}"):
        return fmt.format(f[k]) if k in f else "n/a"

    def ok(k, test):
        return ("met" if test(f[k]) else "MISSED") if k in f else "n/a"

    rows = [
        ("--stacks storm: workload, memtrace --stacks / untraced", g("stacks_ratio", "{:.3f}"), "", ""),
        ("--stacks storm: workload, bare reader / untraced", g("bare_ratio", "{:.3f}"), "", ""),
        ("--stacks storm: workload, memtrace --stacks / bare reader",
         g("stacks_vs_bare", "{:.3f}") + f" (run by run: median {f['stacks_vs_bare_paired']:.3f}, "
         f"{f['stacks_vs_bare_min']:.3f} to {f['stacks_vs_bare_max']:.3f})", ">= 0.9",
         ok("stacks_vs_bare", lambda v: v >= 0.9)),
        (f"--stacks storm: lost events, {kb} KiB buffer", g("stacks_lost"), "0",
         ok("stacks_lost", lambda v: v == 0)),
        ("--stacks storm: memtrace CPU per event (stack records included)",
         g("stacks_ns_per_event", "{:.1f}") + " ns", "<= 150",
         ok("stacks_ns_per_event", lambda v: v <= 150)),
        ("--stacks storm: the same, less an idle run's CPU (start, report, stop)",
         g("stacks_marginal_ns_per_event", "{:.1f}") + " ns", "", ""),
        ("--stacks storm: peak RSS, memtrace --stacks", g("stacks_maxrss_kib") + " KiB", "", ""),
        ("--stacks storm: workload, memtrace (no --stacks) / untraced", g("plain_ratio", "{:.3f}"), "", ""),
        ("--stacks storm: memtrace (no --stacks) CPU per event", g("plain_ns_per_event", "{:.1f}") + " ns", "", ""),
    ]
    if "stacks_zero_lost_buffer_kib" in f:
        rows.append(("--stacks storm: smallest buffer with 0 lost", g("stacks_zero_lost_buffer_kib") + " KiB", "", ""))
    if memstrack:
        rows += [
            ("--stacks storm: workload, memstrack (perf) / untraced", g("memstrack_ratio", "{:.3f}"), "", ""),
            ("--stacks storm: workload, memtrace --stacks / memstrack", g("stacks_vs_memstrack", "{:.2f}"), "", ""),
            ("--stacks storm: CPU per workload page, memtrace --stacks / memstrack",
             g("stacks_ns_per_page", "{:.0f}") + " / " + g("memstrack_ns_per_page", "{:.0f}") + " ns", "", ""),
            ("--stacks storm: peak RSS, memstrack", g("memstrack_maxrss_kib") + " KiB", "", ""),
            ("--stacks storm: lost events, memstrack", g("memstrack_lost"), "", ""),
            ("--stacks storm: memstrack runs that failed (not in its medians)",
             g("memstrack_runs_failed"), "", ""),
        ]
    with open(path, "a") as fh:
        fh.write("".join(f"| {a} | {b} | {c} | {d} |\n" for a, b, c, d in rows))


if __name__ == "__main__":
    main()
