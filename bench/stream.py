#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""stream.py [SECONDS [RUNS]] - memtrace --stream, the figures issue 15 asks for.

1. One core writing JSON lines to a file: memtrace --stream pinned to CPU 0 picks
   build/bench/churn (16 MiB mapped, touched, unmapped in a loop on CPU 1 for SECONDS, default
   3) and writes every event as a line to a file on tmpfs; events per second of
   memtrace's own CPU time (wait4 rusage through build/bench/rusage), lines lost.
2. A picked process touching 64 MiB (build/tests/workload) with the default buffer and queue:
   lines lost, writing to a file and to a pipe read by cat.
3. The storm nobody picked: churn on CPU 1 untraced, under the daemon (default options)
   and under --stream picking another name, interleaved RUNS times (default 5); the
   workload's speed under each against untraced, medians.
Root; prints figures and RESULT lines; asserts nothing.
"""
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from statistics import median

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TFS = "/sys/kernel/tracing"
INST = "memtrace-bench-stream"
CPU_WL, CPU_MT = (1, 0) if (os.cpu_count() or 1) > 1 else (0, 0)
SUMMARY = re.compile(r"stream: (\d+) lines written, (\d+) lost .* (\d+) events lost in the kernel")


def wait_for(path, text, proc, timeout=30):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if proc.poll() is not None:
            sys.exit("stream.py: memtrace exited early:\n" + open(path).read())
        if text in open(path, errors="replace").read():
            return
        time.sleep(0.02)
    sys.exit(f"stream.py: memtrace not ready after {timeout} s")


def churn(secs, name):
    r = subprocess.run(["taskset", "-c", str(CPU_WL), name, str(secs), "16"], check=True,
                       capture_output=True, text=True)
    f = r.stdout.split()
    return float(f[f.index("pages_per_s") + 1])


class Memtrace:
    """memtrace ARGS through build/bench/rusage, pinned to CPU_MT; stop() gives CPU s and stderr"""

    def __init__(self, tmp, args, stdout=subprocess.DEVNULL):
        self.err, self.ru = os.path.join(tmp, "mt.err"), os.path.join(tmp, "mt.rusage")
        self.p = subprocess.Popen(["taskset", "-c", str(CPU_MT),
                                   os.path.join(ROOT, "build/bench/rusage"), self.ru,
                                   os.path.join(ROOT, "memtrace"), "--instance", INST] + args,
                                  stdout=stdout, stderr=open(self.err, "w"))
        wait_for(self.err, "tracing in", self.p)

    def stop(self):
        self.p.send_signal(signal.SIGTERM)
        self.p.wait(60)
        f = open(self.ru).read().split()
        err = open(self.err).read()
        if self.p.returncode != 0:
            sys.exit("stream.py: memtrace failed:\n" + err)
        return float(f[f.index("cpu_s") + 1]), err


def summary(err):
    m = SUMMARY.search(err)
    return (int(m.group(1)), int(m.group(2)), int(m.group(3))) if m else (0, -1, -1)


def main():
    secs = float(sys.argv[1]) if len(sys.argv) > 1 else 3
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    if os.geteuid() != 0:
        sys.exit("stream.py: needs root (tracefs)")
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    subprocess.run(["make", "-s", "-C", ROOT, "memtrace", "build/bench/churn", "build/bench/rusage",
                    "build/tests/workload"], check=True)
    with tempfile.TemporaryDirectory(prefix="memtrace-bench-stream.", dir="/dev/shm") as tmp:
        # names of our own: other work on this machine may run "churn" or "workload"
        ch, wl = os.path.join(tmp, "mtbchurn"), os.path.join(tmp, "mtbwork")
        subprocess.run(["cp", os.path.join(ROOT, "build/bench/churn"), ch], check=True)
        subprocess.run(["cp", os.path.join(ROOT, "build/tests/workload"), wl], check=True)
        lines = os.path.join(tmp, "lines.jsonl")

        # 1. one core writing lines to a file
        mt = Memtrace(tmp, ["--stream", "-c", "thread.name:mtbchurn", "-o", lines])
        churn(secs, ch)
        time.sleep(0.3)
        cpu, err = mt.stop()
        written, lost, klost = summary(err)
        size = os.path.getsize(lines)
        os.unlink(lines)
        print(f"one core, lines to a file: {written:,} lines ({size / written:.0f} bytes each), "
              f"{cpu:.2f} s of memtrace CPU: {written / cpu / 1e6:.2f} M events/s; lost "
              f"{lost} lines, {klost} events in the kernel")
        print(f"RESULT stream_mevents_per_cpu_s {written / cpu / 1e6:.3f}")
        print(f"RESULT stream_lost_lines {lost + klost}")

        # 2. a picked process touching 64 MiB, default buffer and queue
        mt = Memtrace(tmp, ["--stream", "-c", "thread.name:mtbwork", "-o", lines])
        subprocess.run([wl, "64", "100"], check=True)
        time.sleep(0.3)
        _, err = mt.stop()
        w1, l1, k1 = summary(err)
        os.unlink(lines)
        with open(lines, "w") as out:
            cat = subprocess.Popen(["cat"], stdin=subprocess.PIPE, stdout=out)
            mt = Memtrace(tmp, ["--stream", "-c", "thread.name:mtbwork"], stdout=cat.stdin)
            cat.stdin.close()
            subprocess.run([wl, "64", "100"], check=True)
            time.sleep(0.3)
            _, err = mt.stop()
            cat.wait()
        w2, l2, k2 = summary(err)
        print(f"64 MiB picked: to a file {w1:,} lines, {l1} lost ({k1} in the kernel); "
              f"through a pipe {w2:,} lines, {l2} lost ({k2} in the kernel)")
        print(f"RESULT stream_64mib_lost {l1 + k1 + l2 + k2}")

        # 3. the storm nobody picked, side by side with the daemon
        speed = {"untraced": [], "daemon": [], "stream": []}
        for _ in range(runs):
            speed["untraced"].append(churn(secs, ch))
            mt = Memtrace(tmp, ["-o", os.path.join(tmp, "log")])
            speed["daemon"].append(churn(secs, ch))
            mt.stop()
            mt = Memtrace(tmp, ["--stream", "-c", "thread.name:nobody-here", "-o", lines])
            speed["stream"].append(churn(secs, ch))
            mt.stop()
        base = median(speed["untraced"])
        for k in ("daemon", "stream"):
            print(f"unpicked storm: workload speed under {k} / untraced: "
                  f"{median(speed[k]) / base:.3f} (runs " +
                  ", ".join(f"{v / u:.3f}" for v, u in zip(speed[k], speed["untraced"])) + ")")
        print(f"RESULT stream_storm_vs_untraced {median(speed['stream']) / base:.3f}")
        print(f"RESULT daemon_storm_vs_untraced {median(speed['daemon']) / base:.3f}")
        print(f"RESULT stream_vs_daemon {median(speed['stream']) / median(speed['daemon']):.3f}")


if __name__ == "__main__":
    main()
