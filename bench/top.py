#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""top.py [SECONDS [RUNS [MB]]] - the live storm with memtrace --top open.

build/bench/churn maps, touches and unmaps MB MiB (default 16) in a loop on CPU 1 for SECONDS
(default 3), the storm of bench/live.py. Each of RUNS rounds (default 3) runs it three
ways, one after the other: under memtrace with default options (the daemon, no view);
under memtrace --top -d 0.2 in a real terminal (a tmux pane of 80x24, frames drawn five
times a second while the storm runs); under memtrace --top -d 0.2 writing batch frames to
a file. Medians are printed: lost events (the largest of the runs), memtrace's CPU time
over its whole life per event seen (build/bench/rusage), the workload's speed, and the frames
drawn during the storm (counted in the bytes the pane received, tmux pipe-pane). Root and tmux; prints figures and RESULT lines; asserts nothing.
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
MT = os.path.join(ROOT, "memtrace")
INST = "memtrace-bench-top"
SOCK = f"memtrace-bench-top{os.getpid()}"
CPU = 1 if (os.cpu_count() or 1) > 1 else 0


def churn(secs, mb):
    r = subprocess.run(["taskset", "-c", str(CPU), os.path.join(ROOT, "build/bench/churn"), str(secs),
                        str(mb)], check=True, capture_output=True, text=True)
    f = r.stdout.split()
    return float(f[f.index("pages_per_s") + 1])


def tmux(*args, check=True):
    return subprocess.run(["tmux", "-L", SOCK, "-f", "/dev/null", *args], check=check,
                          capture_output=True, text=True).stdout


def wait_file(path, text, timeout=30):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if os.path.exists(path) and text in open(path, errors="replace").read():
            return True
        time.sleep(0.02)
    return False


def rusage(path):
    f = open(path).read().split()
    return float(f[f.index("cpu_s") + 1]), int(f[f.index("status") + 1])


def report(log):
    d = json.load(open(log))
    return d["events"]["processed"], d["lost_events"]


def run_daemon(tmp, secs, mb):
    log, err, ru = (os.path.join(tmp, n) for n in ("d.json", "d.err", "d.rusage"))
    p = subprocess.Popen([os.path.join(ROOT, "build/bench/rusage"), ru, MT, "--instance", INST,
                          "-f", "json", "-o", log], stderr=open(err, "w"),
                         stdout=subprocess.DEVNULL)
    try:
        if not wait_file(err, "tracing in"):
            sys.exit("top.py: memtrace did not start:\n" + open(err).read())
        rate = churn(secs, mb)
        time.sleep(0.3)
    finally:
        p.send_signal(signal.SIGTERM)
        p.wait(60)
    cpu, _ = rusage(ru)
    ev, lost = report(log)
    return rate, ev, lost, cpu, 0


def run_view(tmp, secs, mb):
    log, err, ru = (os.path.join(tmp, n) for n in ("v.json", "v.err", "v.rusage"))
    for f in (log, err, ru):
        if os.path.exists(f):
            os.unlink(f)
    cmd = (f"{ROOT}/build/bench/rusage {ru} {MT} --top -d 0.2 --instance {INST} -f json -o {log} "
           f"2> {err}; sleep 60")
    raw = os.path.join(tmp, "v.pane")
    open(raw, "w").close()
    tmux("new-session", "-d", "-s", "bench", "-x", "80", "-y", "24", cmd)
    # every byte memtrace writes to the terminal, to count the frames
    tmux("pipe-pane", "-t", "bench", "-o", f"cat >> {raw}")
    try:
        if not wait_file(err, "tracing in"):
            sys.exit("top.py: memtrace --top did not start:\n" + open(err).read())
        time.sleep(0.5)
        frames0 = open(raw, "rb").read().count(b"\033[1;1H")
        rate = churn(secs, mb)
        frames = open(raw, "rb").read().count(b"\033[1;1H") - frames0
        screen = tmux("capture-pane", "-p", "-t", "bench")
        time.sleep(0.3)
        tmux("send-keys", "-t", "bench", "q")
        end = time.monotonic() + 60
        while not os.path.exists(ru) and time.monotonic() < end:
            time.sleep(0.05)
    finally:
        tmux("kill-server", check=False)
        sock = os.path.join(os.environ.get("TMUX_TMPDIR", "/tmp"), f"tmux-{os.getuid()}", SOCK)
        if os.path.exists(sock):        # ours, left by tmux
            os.unlink(sock)
    if "ev/s" not in screen:
        sys.exit("top.py: the view was not on the screen during the storm:\n" + screen)
    cpu, status = rusage(ru)
    if status != 0:
        sys.exit(f"top.py: memtrace --top exited {status}:\n" + open(err).read())
    ev, lost = report(log)
    return rate, ev, lost, cpu, frames


def run_batch(tmp, secs, mb):
    log, err, ru, out = (os.path.join(tmp, n) for n in ("b.json", "b.err", "b.rusage", "b.txt"))
    p = subprocess.Popen([os.path.join(ROOT, "build/bench/rusage"), ru, MT, "--top", "-d", "0.2",
                          "--instance", INST, "-f", "json", "-o", log],
                         stderr=open(err, "w"), stdout=open(out, "w"))
    try:
        if not wait_file(err, "tracing in"):
            sys.exit("top.py: memtrace --top (batch) did not start:\n" + open(err).read())
        frames0 = open(out).read().count("\nTASKS: ")
        rate = churn(secs, mb)
        frames = open(out).read().count("\nTASKS: ") - frames0
        time.sleep(0.3)
    finally:
        p.send_signal(signal.SIGTERM)
        p.wait(60)
    cpu, _ = rusage(ru)
    ev, lost = report(log)
    return rate, ev, lost, cpu, frames


def main():
    secs = float(sys.argv[1]) if len(sys.argv) > 1 else 3
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    mb = int(sys.argv[3]) if len(sys.argv) > 3 else 16
    if os.geteuid() != 0:
        sys.exit("top.py: needs root (tracefs)")
    if not shutil.which("tmux"):
        sys.exit("top.py: needs tmux (Debian package tmux)")
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    subprocess.run(["make", "-s", "-C", ROOT, "memtrace", "build/bench/churn", "build/bench/rusage"],
                   check=True)
    res = {"daemon": [], "top (terminal)": [], "top (batch)": []}
    with tempfile.TemporaryDirectory(prefix="memtrace-top.") as tmp:
        for _ in range(runs):
            res["daemon"].append(run_daemon(tmp, secs, mb))
            res["top (terminal)"].append(run_view(tmp, secs, mb))
            res["top (batch)"].append(run_batch(tmp, secs, mb))
    base = median([r[0] for r in res["daemon"]])
    print(f"live storm with the view open: build/bench/churn {mb} MiB on CPU {CPU}, {secs:g} s per "
          f"run, {runs} runs of each, interleaved; --top -d 0.2")
    print(f"{'':16} {'pages/s':>10} {'vs daemon':>9} {'events':>10} {'lost':>6} {'CPU s':>6} "
          f"{'us/event':>9} {'frames':>7}")
    for name, rows in res.items():
        rate = median([r[0] for r in rows])
        ev = median([r[1] for r in rows])
        lost = max(r[2] for r in rows)
        cpu = median([r[3] for r in rows])
        us = median([r[3] / r[1] * 1e6 for r in rows])
        frames = median([r[4] for r in rows])
        print(f"{name:16} {rate:10,.0f} {rate / base:9.3f} {ev:10,.0f} {lost:6} {cpu:6.2f} "
              f"{us:9.3f} {frames:7.0f}")
        key = {"daemon": "daemon", "top (terminal)": "top", "top (batch)": "top_batch"}[name]
        print(f"RESULT {key}_lost {lost}")
        print(f"RESULT {key}_us_per_event {us:.3f}")
        print(f"RESULT {key}_ratio {rate / base:.3f}")


if __name__ == "__main__":
    main()
