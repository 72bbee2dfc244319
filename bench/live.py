#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""live.py [SECONDS [RUNS [MB]]] - the live storm, side by side in one run.

build/bench/churn maps, touches and unmaps MB MiB (default 16) in a loop on CPU 1 for SECONDS
(default 3). Each of RUNS rounds (default 3) runs it three ways, one after the other:
untraced; under memtrace with default options; under `trace-cmd record` of the same events
(the raw-copy baseline: splices the ring buffer to a file, no compression, same buffer
size). Medians are printed. Per tracer: lost events, CPU time over its whole life (wait4
rusage through build/bench/rusage, children included) per event seen, and peak RSS. Root; prints figures and RESULT
lines for bench/run.sh; asserts nothing.

trace-cmd 3.1 writes kernel.ftrace_enabled and the function-filter and function-pid files
of its instance before recording, even for event-only recording, and mounts debugfs when it
is not mounted. It runs in a private mount namespace (so its mounts go with it), with
scratch files bound over those files where the kernel refuses the writes (EPERM here); the
kernel's tracing state is not touched by that. Both tracers use their own
instances; the top level of tracefs is compared before and after.
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from statistics import median

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TFS = "/sys/kernel/tracing"
MT_INST = "memtrace-bench-live"
TC_INST = "memtrace-bench-tc"   # our prefix, so the test suites' cleanup knows it


def tfs_state():
    out = []
    for f in ("tracing_on", "trace_clock", "buffer_size_kb", "set_event", "current_tracer",
              "events/kmem/mm_page_alloc/enable", "events/kmem/mm_page_free/enable"):
        try:
            with open(os.path.join(TFS, f)) as fh:
                out.append(f + ": " + fh.read().strip())
        except OSError as e:
            out.append(f + ": " + e.strerror)
    out.append("instances: " + " ".join(sorted(os.listdir(os.path.join(TFS, "instances")))))
    with open("/proc/mounts") as fh:
        out += sorted(line.strip() for line in fh if line.split()[2] in ("tracefs", "debugfs"))
    return out


CPU = 1 if (os.cpu_count() or 1) > 1 else 0   # the workload's CPU


def tfs_unchanged(before, after):
    """What differs at the top level of tracefs after a run (tfs_state()): said, exit 1."""
    if before != after:
        print("WARNING: tracefs top level differs after the run:")
        for a, b in zip(before, after):
            if a != b:
                print(f"  before {a!r}\n  after  {b!r}")
        for a in before[len(after):]:
            print(f"  before {a!r}\n  after  (none)")
        for b in after[len(before):]:
            print(f"  before (none)\n  after  {b!r}")
        sys.exit(1)


def churn_cmd(secs, mb):
    return ["taskset", "-c", str(CPU), os.path.join(ROOT, "build/bench/churn"), str(secs), str(mb)]


def churn(secs, mb):
    r = subprocess.run(churn_cmd(secs, mb), check=True, capture_output=True, text=True)
    f = r.stdout.split()
    return float(f[f.index("pages_per_s") + 1])


def wait_for(path, text, proc, timeout=30):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if proc.poll() is not None:
            sys.exit(f"live.py: {proc.args[0]} exited early:\n" + open(path).read())
        with open(path, errors="replace") as fh:
            if text in fh.read():
                return
        time.sleep(0.02)
    sys.exit(f"live.py: {proc.args[0]} not ready after {timeout} s")


def rusage_cmd(path):
    return [os.path.join(ROOT, "build/bench/rusage"), path]


def reap(proc, path, timeout=None):
    """CPU seconds and peak RSS of the command run through build/bench/rusage"""
    proc.wait(timeout)
    f = open(path).read().split()
    return float(f[f.index("cpu_s") + 1]), int(f[f.index("maxrss_kib") + 1])


def run_memtrace(tmp, secs, mb):
    log, err = os.path.join(tmp, "mt.json"), os.path.join(tmp, "mt.err")
    ru = os.path.join(tmp, "mt.rusage")
    p = subprocess.Popen(rusage_cmd(ru) + [os.path.join(ROOT, "memtrace"), "--instance", MT_INST,
                                           "-f", "json", "-o", log],
                         stderr=open(err, "w"), stdout=subprocess.DEVNULL)
    try:
        wait_for(err, "tracing in", p)
        with open(os.path.join(TFS, "instances", MT_INST, "set_event")) as fh:
            events = fh.read().split()
        rate = churn(secs, mb)
        time.sleep(0.3)
    finally:                    # also when the run fails: memtrace cleans up on TERM
        p.send_signal(signal.SIGTERM)
    cpu, maxrss = reap(p, ru)
    if p.returncode != 0:
        sys.exit("live.py: memtrace failed:\n" + open(err).read())
    d = json.load(open(log))
    return rate, d["events"]["processed"], d["lost_events"], cpu, maxrss, events


def run_tracecmd(tmp, secs, mb, events, buffer_kb):
    dat, out = os.path.join(tmp, "trace.dat"), os.path.join(tmp, "tc.out")
    ready, fifo = os.path.join(tmp, "tc.ready"), os.path.join(tmp, "tc.fifo")
    scratch = os.path.join(tmp, "scratch")
    os.makedirs(scratch, exist_ok=True)
    inst = os.path.join(TFS, "instances", TC_INST)
    if os.path.isdir(inst):     # ours by its name, left by an earlier failed run
        os.rmdir(inst)
    # trace-cmd takes an existing instance as its own and removes it at the end
    os.mkdir(inst)
    binds = []
    for f in ("/proc/sys/kernel/ftrace_enabled",) + tuple(
            os.path.join(inst, n) for n in ("set_ftrace_filter", "set_ftrace_notrace",
                                            "set_ftrace_pid", "set_ftrace_notrace_pid",
                                            "set_graph_function", "set_graph_notrace")):
        if not os.path.exists(f):
            continue
        if not f.endswith("ftrace_enabled"):
            try:                # only what the kernel refuses
                with open(f, "a"):
                    continue
            except OSError:
                pass
        # ftrace_enabled always: trace-cmd must not change the machine's setting
        s_ = os.path.join(scratch, os.path.basename(f))
        with open(s_, "w") as fh:
            fh.write("1\n" if f.endswith("ftrace_enabled") else "")
        binds.append(f"mount --bind {s_} {f}")
    cmd = ["trace-cmd", "record", "--compression", "none", "-B", TC_INST, "-b",
           str(buffer_kb), "-o", dat]
    for e in events:
        cmd += ["-e", e]
    # always in a private mount namespace: trace-cmd also mounts debugfs when it is not
    # mounted, and that mount must go with it
    cmd = ["unshare", "-m", "--propagation", "private", "sh", "-c",
           " && ".join(binds + ['exec "$@"']), "sh"] + cmd
    # trace-cmd 3.1.6 segfaults here when it records into an existing instance until ^C;
    # it is given a command that only waits (on a FIFO: no CPU), started once tracing is
    # on. The workload runs outside trace-cmd's process tree, so trace-cmd's peak RSS and
    # CPU time are its own (and its recorders').
    os.mkfifo(fifo)
    waiter = ["sh", "-c", 'echo > "$1"; read x < "$2"', "sh", ready, fifo]
    ru = os.path.join(tmp, "tc.rusage")
    p = subprocess.Popen(rusage_cmd(ru) + cmd + waiter, stdout=open(out, "w"),
                         stderr=subprocess.STDOUT)
    try:
        end = time.monotonic() + 30
        while not os.path.exists(ready) and p.poll() is None and time.monotonic() < end:
            time.sleep(0.02)
        if not os.path.exists(ready):
            sys.exit("live.py: trace-cmd record did not start:\n" + open(out).read())
        rate = churn(secs, mb)
        time.sleep(0.3)
    finally:
        with open(fifo, "w") as fh:     # the waiter exits, trace-cmd stops
            fh.write("\n")
        try:
            cpu, maxrss = reap(p, ru, 60)
        finally:
            if p.returncode is None:
                p.kill()
                p.wait()
            if os.path.isdir(inst):
                os.rmdir(inst)
    if p.returncode != 0:
        sys.exit("live.py: trace-cmd record failed:\n" + open(out).read())
    stat = subprocess.run(["trace-cmd", "report", "--stat", "-i", dat], capture_output=True,
                          text=True).stdout
    lost = sum(int(line.split(":")[1]) for line in stat.splitlines()
               if line.startswith(("overrun:", "dropped events:", "commit overrun:")))
    rep = subprocess.Popen(["trace-cmd", "report", "-i", dat], stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL)
    seen = sum(1 for line in rep.stdout if b": " in line and b"cpus=" not in line)
    rep.wait()
    os.unlink(dat)
    for f in (ready, fifo):
        os.unlink(f)
    return rate, seen, lost, cpu, maxrss


def main():
    secs = float(sys.argv[1]) if len(sys.argv) > 1 else 3
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    mb = int(sys.argv[3]) if len(sys.argv) > 3 else 16
    if os.geteuid() != 0:
        sys.exit("live.py: needs root (tracefs)")
    # TERM/INT run the cleanup (finally) like an error does: tracers stopped, instances gone
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    subprocess.run(["make", "-s", "-C", ROOT, "memtrace", "build/bench/churn", "build/bench/rusage"], check=True)
    have_tc = shutil.which("trace-cmd") is not None
    if not have_tc:
        print("trace-cmd not installed (Debian package trace-cmd): no raw-copy baseline")
    buffer_kb = None
    before = tfs_state()
    res = {"untraced": [], "memtrace": [], "trace-cmd": []}
    with tempfile.TemporaryDirectory(prefix="memtrace-live.") as tmp:
        for _ in range(runs):
            res["untraced"].append((churn(secs, mb),))
            r = run_memtrace(tmp, secs, mb)
            res["memtrace"].append(r[:5])
            if buffer_kb is None:
                m = open(os.path.join(tmp, "mt.err")).read()
                buffer_kb = int(m.split(" KiB per CPU")[0].split()[-1])
            if have_tc:
                res["trace-cmd"].append(run_tracecmd(tmp, secs, mb, r[5], buffer_kb))
    after = tfs_state()
    base = median([r[0] for r in res["untraced"]])
    print(f"live storm: build/bench/churn {mb} MiB map/touch/unmap on CPU 1, {secs:g} s per run, "
          f"{runs} runs of each, interleaved; tracers at {buffer_kb} KiB per CPU")
    print(f"{'':18} {'pages/s':>10} {'ratio':>6} {'events':>10} {'lost':>6} {'CPU s':>6} "
          f"{'us/event':>9} {'maxrss KiB':>10}")
    for name, rows in res.items():
        if not rows:
            continue
        rate = median([r[0] for r in rows])
        line = f"{name:18} {rate:10,.0f} {rate / base:6.3f}"
        if name != "untraced":
            ev = median([r[1] for r in rows])
            lost = max(r[2] for r in rows)
            cpu = median([r[3] for r in rows])
            us = median([r[3] / r[1] * 1e6 for r in rows])
            rss = max(r[4] for r in rows)
            line += f" {ev:10,.0f} {lost:6} {cpu:6.2f} {us:9.3f} {rss:10}"
            key = name.replace("-", "")
            print(f"RESULT {key}_ratio {rate / base:.3f}")
            print(f"RESULT {key}_lost {lost}")
            print(f"RESULT {key}_us_per_event {us:.3f}")
            print(f"RESULT {key}_maxrss_kib {rss}")
        print(line)
    if res["trace-cmd"]:
        ratio = median([r[0] for r in res["memtrace"]]) / median([r[0] for r in res["trace-cmd"]])
        per_run = [m[0] / t[0] for m, t in zip(res["memtrace"], res["trace-cmd"])]
        print(f"workload under memtrace vs under trace-cmd record: {ratio:.3f} (medians; "
              f"run by run {min(per_run):.3f} to {max(per_run):.3f})")
        print(f"RESULT memtrace_vs_tracecmd {ratio:.3f}")
        print(f"RESULT memtrace_vs_tracecmd_min {min(per_run):.3f}")
        print(f"RESULT memtrace_vs_tracecmd_max {max(per_run):.3f}")
    print(f"RESULT untraced_pages_per_s {base:.0f}")
    tfs_unchanged(before, after)


if __name__ == "__main__":
    main()
