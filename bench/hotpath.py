#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""hotpath.py [SECONDS [RUNS [MB]]] [--perf=FILE] [--reader-only] - memtrace's CPU per event beside a bare reader's.

build/bench/churn maps, touches and unmaps MB MiB (default 16) in a loop on CPU 1 for SECONDS
(default 3). Each of RUNS rounds (default 7) runs it under each of these, one after the other:
  memtrace   under `memtrace --instance memtrace-bench-hp -f json -o FILE` (default options);
  COMMIT     with BEFORE=COMMIT, the same with that commit's memtrace;
  reader only  with --reader-only, the same with this tree built with -DMT_BENCH_READER_ONLY;
  bare       under a bare reader (bench/drain.c, built here in a temp dir) of an instance of
             our own set up as memtrace's: the events memtrace enabled (read from its
             set_event in the first round), the same buffer size, buffer_percent 50 and
             trace_clock mono; it reads each CPU's trace_pipe_raw a page at a time into
             nothing, polling as memtrace's loop does: the kernel's share of the cost.
Each tracer's CPU is the time its thread ran (/proc/PID/task/PID/schedstat, the first field)
from just before the storm to 0.3 s after it (both read what is left within that time),
and its events are those read from its instance in the same span (the sum of the CPUs'
`read events` in per_cpu/cpuN/stats): start-up, seeding and the final report are not in it.
Printed: each round's figures, the medians of CPU per event, the median of the rounds' own
ratios memtrace / bare (the target: <= 3), their spread, lost events (per_cpu stats) and the
workload's pages/s under each. Only ratios within one run mean much: the machine is shared.

--perf=FILE: one more memtrace storm under `perf record -e cpu-clock -g` of memtrace's
thread (FILE the perf.data), then `perf report` of it, the top functions.
BEFORE=COMMIT: that commit's memtrace too (built apart from `git archive`), in every round
between this tree's and the bare reader, with its own ratio: before and after in one run.
--reader-only: this tree (its tracked files as they are, changes included) built apart with
-DMT_BENCH_READER_ONLY too, in every round: the page events read, decoded, merged and handed
to the sink as always, but neither prefetched nor counted (run/setup.c). What it costs over
the bare reader is the reader's own work; what memtrace costs over it, the page events'
accounting. A measurement only: that build's reports are wrong.

Root; prints figures and RESULT lines (bench/run.sh); asserts nothing. With BENCH_RESULTS
set, its rows are appended to that file. The top level of tracefs is compared before and
after; the instances are ours (memtrace-bench-*) and removed on any exit.
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True    # no __pycache__ in bench/ from the imports below
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import live  # noqa: E402
from live import ROOT, TFS, churn, median  # noqa: E402
from stacks import (bare_reader, bare_teardown, build, fail, inst_counts, stop,  # noqa: E402
                    tfs_state, tfs_write, wait_text)

MT_INST = "memtrace-bench-hp"
BARE = "memtrace-bench-hpbare"
DRAIN_S = 0.3       # after the storm: both readers take what is left within it


def ran_ns(pid):
    """the time the thread @pid ran, ns (schedstat's first field)"""
    with open(f"/proc/{pid}/task/{pid}/schedstat") as fh:
        return int(fh.read().split()[0])



def storm(pid, inst, secs, mb):
    """the storm under the tracer @pid: its CPU ns, events read, lost, pages/s"""
    ns0, (ev0, lost0) = ran_ns(pid), inst_counts(inst)
    rate = churn(secs, mb)
    time.sleep(DRAIN_S)
    ns1, (ev1, lost1) = ran_ns(pid), inst_counts(inst)
    return {"cpu_ns": ns1 - ns0, "events": ev1 - ev0, "lost": lost1 - lost0, "rate": rate}


def run_memtrace(tmp, secs, mb, perf=None, binary=None):
    log, err = os.path.join(tmp, "mt.json"), os.path.join(tmp, "mt.err")
    p = subprocess.Popen([binary or os.path.join(ROOT, "memtrace"), "--instance", MT_INST,
                          "-f", "json", "-o", log],
                         stderr=open(err, "w"), stdout=subprocess.DEVNULL)
    inst = os.path.join(TFS, "instances", MT_INST)
    pr = None
    try:
        wait_text(err, "tracing in", p)
        with open(os.path.join(inst, "set_event")) as fh:
            events = fh.read().split()
        kb = int(open(err).read().split(" KiB per CPU")[0].split()[-1])
        if perf:
            pr = subprocess.Popen(["perf", "record", "-q", "-e", "cpu-clock", "-g", "-t",
                                   str(p.pid), "-o", perf], stdout=subprocess.DEVNULL,
                                  stderr=open(os.path.join(tmp, "perf.err"), "w"))
            time.sleep(0.5)
        r = storm(p.pid, inst, secs, mb)
        if pr:
            pr.send_signal(signal.SIGINT)
            pr.wait(60)
    finally:                    # also when the run fails: memtrace cleans up on TERM
        if pr and pr.poll() is None:
            pr.kill()
            pr.wait()
        stop(p)
    try:
        p.wait(60)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
        raise
    if p.returncode != 0:
        fail("memtrace failed:\n" + open(err).read())
    d = json.load(open(log))
    r.update({"set_event": events, "buffer_kb": kb, "report_lost": d["lost_events"]})
    return r


def run_bare(tmp, secs, mb, drain, events, buffer_kb):
    with bare_reader(tmp, BARE, drain, events, buffer_kb) as (inst, p, _):
        r = storm(p.pid, inst, secs, mb)
        tfs_write(inst, "tracing_on", "0")
    return r


def build_in(d, cppflags=""):
    """memtrace built in @d (a copy of a tree); its path"""
    subprocess.run(["make", "-s", "-C", d, "NO_LIBTRACEFS=1", f"CPPFLAGS={cppflags}", "memtrace"],
                   check=True, stdout=subprocess.DEVNULL)
    return os.path.join(d, "memtrace")


def build_before(tmp, commit):
    """@commit's memtrace, built in @tmp from its own tree (git archive); its path"""
    d = os.path.join(tmp, "before")
    os.mkdir(d)
    arch = subprocess.run(["git", "-C", ROOT, "archive", commit], check=True,
                          capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", d], input=arch, check=True)
    return build_in(d)


def build_reader_only(tmp):
    """this tree's tracked files as they are (the repository only read), built with
    -DMT_BENCH_READER_ONLY in @tmp; its path"""
    d = os.path.join(tmp, "reader-only")
    names = subprocess.run(["git", "-C", ROOT, "ls-files", "-z"], check=True,
                           capture_output=True).stdout.decode().split("\0")
    for name in filter(None, names):
        src, dst = os.path.join(ROOT, name), os.path.join(d, name)
        if os.path.lexists(src):        # a tracked file deleted in the tree: left out
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            shutil.copy2(src, dst, follow_symlinks=False)
    return build_in(d, "-DMT_BENCH_READER_ONLY")


def perf_top(data, n=25):
    """perf report's top functions of @data (self time), as lines"""
    r = subprocess.run(["perf", "report", "-i", data, "--no-children", "--stdio", "-g", "none",
                        "--percent-limit", "0.5", "--sort", "symbol"],
                       capture_output=True, text=True)
    rows = [line for line in r.stdout.splitlines() if line.strip() and not line.startswith("#")]
    return rows[:n] if rows else [r.stderr.strip()]


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    opts = [a for a in sys.argv[1:] if a.startswith("--")]
    secs = float(args[0]) if len(args) > 0 else 3
    runs = int(args[1]) if len(args) > 1 else 7
    mb = int(args[2]) if len(args) > 2 else 16
    perf, reader_only = None, False
    for o in opts:
        if o.startswith("--perf="):
            perf = os.path.abspath(o.partition("=")[2])
        elif o == "--reader-only":
            reader_only = True
        else:
            fail(f"unknown option {o}\n" + __doc__)
    if os.geteuid() != 0:
        fail("needs root (tracefs)")
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    subprocess.run(["make", "-s", "-C", ROOT, "memtrace", "build/bench/churn"], check=True)
    commit = os.environ.get("BEFORE")
    before = tfs_state()
    res = {"memtrace": [], "bare": []}
    if commit:
        res["before"] = []
    if reader_only:
        res["reader_only"] = []
    with tempfile.TemporaryDirectory(prefix="memtrace-hotpath.") as tmp:
        drain = build(os.path.join(ROOT, "bench/drain.c"), os.path.join(tmp, "drain"))
        old = build_before(tmp, commit) if commit else None
        ronly = build_reader_only(tmp) if reader_only else None
        try:
            for i in range(runs):
                m = run_memtrace(tmp, secs, mb)
                res["memtrace"].append(m)
                o = run_memtrace(tmp, secs, mb, binary=old) if old else None
                ro = run_memtrace(tmp, secs, mb, binary=ronly) if ronly else None
                b = run_bare(tmp, secs, mb, drain, res["memtrace"][0]["set_event"],
                             res["memtrace"][0]["buffer_kb"])
                res["bare"].append(b)
                mns, bns = m["cpu_ns"] / m["events"], b["cpu_ns"] / b["events"]
                line = (f"  {i + 1:2}: memtrace {mns:6.1f} ns/event ({m['events']:,} events, "
                        f"lost {m['lost']}, {m['rate']:,.0f} pages/s)  bare {bns:6.1f} ns/event "
                        f"({b['events']:,} events, lost {b['lost']}, {b['rate']:,.0f} "
                        f"pages/s)  ratio {mns / bns:5.2f}")
                if o:
                    res["before"].append(o)
                    ons = o["cpu_ns"] / o["events"]
                    line += f"  {commit} {ons:6.1f} ns/event (lost {o['lost']}) ratio {ons / bns:5.2f}"
                if ro:
                    res["reader_only"].append(ro)
                    rns = ro["cpu_ns"] / ro["events"]
                    line += f"  reader only {rns:6.1f} ns/event ratio {rns / bns:5.2f}"
                print(line, flush=True)
            if perf:
                m = run_memtrace(tmp, secs, mb, perf)
                print(f"perf: memtrace {m['cpu_ns'] / m['events']:.1f} ns/event under perf "
                      f"record ({m['events']:,} events)")
        finally:
            bare_teardown(os.path.join(TFS, "instances", BARE))
    after = tfs_state()
    report(res, secs, mb, runs, commit)
    if perf:
        print(f"perf report -i {perf} --no-children --sort symbol (self time, top):")
        for line in perf_top(perf):
            print("  " + line)
    live.tfs_unchanged(before, after)


def ratios_of(rows, bare):
    """each round's CPU per event of @rows over the bare reader's in that round"""
    return [(m["cpu_ns"] / m["events"]) / (b["cpu_ns"] / b["events"]) for m, b in zip(rows, bare)]


def report(res, secs, mb, runs, commit):
    mt, bare = res["memtrace"], res["bare"]
    ratios = ratios_of(mt, bare)
    figs = {
        "hotpath_memtrace_ns_per_event": median([m["cpu_ns"] / m["events"] for m in mt]),
        "hotpath_bare_ns_per_event": median([b["cpu_ns"] / b["events"] for b in bare]),
        "hotpath_ratio": median(ratios),
        "hotpath_ratio_min": min(ratios),
        "hotpath_ratio_max": max(ratios),
        "hotpath_memtrace_lost": max(m["lost"] for m in mt),
        "hotpath_bare_lost": max(b["lost"] for b in bare),
        "hotpath_events": median([m["events"] for m in mt]),
    }
    print(f"\nCPU per event under the storm: build/bench/churn {mb} MiB map/touch/unmap on CPU "
          f"{live.CPU}, {secs:g} s, {runs} rounds of memtrace"
          f"{', ' + commit + chr(39) + 's' if commit else ''}"
          f"{', the reader only' if 'reader_only' in res else ''} then the bare reader; "
          f"{mt[0]['buffer_kb']} KiB per CPU; each thread's schedstat from the storm's start to "
          f"{DRAIN_S} s after it, over the events read from its instance meanwhile")
    print(f"{'':12} {'ns/event':>9} {'events':>10} {'lost':>6} {'pages/s':>10}")
    for name, rows in res.items():
        name = commit if name == "before" else name.replace("_", " ")
        print(f"{name:12} {median([r['cpu_ns'] / r['events'] for r in rows]):9.1f} "
              f"{median([r['events'] for r in rows]):10,.0f} {max(r['lost'] for r in rows):6} "
              f"{median([r['rate'] for r in rows]):10,.0f}")
    print(f"memtrace / bare reader, CPU per event: {figs['hotpath_ratio']:.2f} (median of the "
          f"rounds' ratios; from {figs['hotpath_ratio_min']:.2f} to "
          f"{figs['hotpath_ratio_max']:.2f}); target <= 3")
    if commit:
        br = ratios_of(res["before"], bare)
        figs["hotpath_before_ns_per_event"] = median([r["cpu_ns"] / r["events"]
                                                      for r in res["before"]])
        figs["hotpath_before_ratio"] = median(br)
        figs["hotpath_before_ratio_min"], figs["hotpath_before_ratio_max"] = min(br), max(br)
        print(f"{commit} / bare reader, the same rounds: {median(br):.2f} (from {min(br):.2f} "
              f"to {max(br):.2f})")
    if "reader_only" in res:
        ro = res["reader_only"]
        rr = ratios_of(ro, bare)
        own = [(r["cpu_ns"] / r["events"]) - (b["cpu_ns"] / b["events"]) for r, b in zip(ro, bare)]
        acc = [(m["cpu_ns"] / m["events"]) - (r["cpu_ns"] / r["events"]) for m, r in zip(mt, ro)]
        figs["hotpath_reader_only_ns_per_event"] = median([r["cpu_ns"] / r["events"] for r in ro])
        figs["hotpath_reader_only_ratio"] = median(rr)
        figs["hotpath_reader_own_ns"] = median(own)
        figs["hotpath_accounting_ns"] = median(acc)
        print(f"reader only / bare reader, the same rounds: {median(rr):.2f} (from {min(rr):.2f} "
              f"to {max(rr):.2f}); medians of the rounds' differences: the reader's own work "
              f"{median(own):.1f} ns an event (reader only - bare), the page events' accounting "
              f"{median(acc):.1f} ns (memtrace - reader only)")
    for k, v in figs.items():
        print(f"RESULT {k} {v:.3f}" if isinstance(v, float) else f"RESULT {k} {v}")
    if os.environ.get("BENCH_RESULTS"):
        append_results(os.environ["BENCH_RESULTS"], figs)


def append_results(path, f):
    rows = [
        ("hot path storm: CPU per event, memtrace / bare reader (schedstat)",
         f"{f['hotpath_ratio']:.2f} (rounds {f['hotpath_ratio_min']:.2f} to "
         f"{f['hotpath_ratio_max']:.2f})", "<= 3", "met" if f["hotpath_ratio"] <= 3 else "MISSED"),
        ("hot path storm: CPU per event, memtrace",
         f"{f['hotpath_memtrace_ns_per_event']:.1f} ns", "", ""),
        ("hot path storm: CPU per event, bare reader", f"{f['hotpath_bare_ns_per_event']:.1f} ns",
         "", ""),
        ("hot path storm: lost events, memtrace", f"{f['hotpath_memtrace_lost']}", "0",
         "met" if not f["hotpath_memtrace_lost"] else "MISSED"),
    ]
    if "hotpath_before_ratio" in f:
        rows.append(("hot path storm: the same, BEFORE's memtrace / bare reader",
                     f"{f['hotpath_before_ratio']:.2f} (rounds {f['hotpath_before_ratio_min']:.2f} "
                     f"to {f['hotpath_before_ratio_max']:.2f}; "
                     f"{f['hotpath_before_ns_per_event']:.1f} ns)", "", ""))
    if "hotpath_reader_only_ratio" in f:
        rows.append(("hot path storm: the same, reader only (--reader-only) / bare reader",
                     f"{f['hotpath_reader_only_ratio']:.2f} "
                     f"({f['hotpath_reader_only_ns_per_event']:.1f} ns: the reader's own work "
                     f"{f['hotpath_reader_own_ns']:.1f} ns, the page events' accounting "
                     f"{f['hotpath_accounting_ns']:.1f} ns)", "", ""))
    with open(path, "a") as fh:
        fh.write("".join(f"| {a} | {b} | {c} | {d} |\n" for a, b, c, d in rows))


if __name__ == "__main__":
    main()
