#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""mapread.py [SECONDS [RUNS [MB]]] - the bare reader's CPU per event, read() against the mapped ring buffer.

Whether memtrace would spend less of the kernel's CPU by mapping each CPU's ring buffer
(Linux 6.10 and later, Documentation/trace/ring-buffer-map.rst) instead of read()ing it a
sub-buffer at a time: bench/drain.c both ways, nothing decoded. Each of RUNS rounds (default
7) runs build/bench/churn (MB MiB, default 16, on CPU 1, SECONDS, default 3) under each, one
after the other, as bench/hotpath.py runs its bare reader: an instance of our own
(memtrace-bench-mapread) with the page events, 2048 KiB per CPU, buffer_percent 50,
trace_clock mono, polled as memtrace's loop polls;
  read     `drain INSTANCE`: each CPU's trace_pipe_raw read() a page at a time (the kernel
           copies each sub-buffer out);
  mapped   `drain --map INSTANCE`: each CPU's buffer mapped, TRACE_MMAP_IOCTL_GET_READER
           until nothing is new, the new bytes touched where they are (no copy).
CPU per event as hotpath.py measures it (the reader thread's schedstat, from the storm's
start to 0.3 s after it, over the events read from the instance meanwhile); printed: each
round, the medians, the median of the rounds' own ratios mapped / read. Root; a kernel that
cannot map a ring buffer fails the mapped reader, said. Prints figures, asserts nothing.
"""
import os
import sys
import tempfile

sys.dont_write_bytecode = True    # no __pycache__ in bench/ from the imports below
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hotpath import storm  # noqa: E402
from live import ROOT, median  # noqa: E402
from stacks import bare_reader, build, tfs_write  # noqa: E402

INST = "memtrace-bench-mapread"
EVENTS = ["kmem:mm_page_alloc", "kmem:mm_page_free"]


def run(tmp, secs, mb, drain, args):
    with bare_reader(tmp, INST, drain, EVENTS, 2048, args=args) as (inst, p, _):
        r = storm(p.pid, inst, secs, mb)
        tfs_write(inst, "tracing_on", "0")
    return r


def main():
    a = [int(x) for x in sys.argv[1:]]
    secs, runs, mb = (a + [3, 7, 16][len(a):])[:3]
    rows = {"read": [], "mapped": []}
    with tempfile.TemporaryDirectory(prefix="memtrace-mapread.") as tmp:
        drain = build(os.path.join(ROOT, "bench/drain.c"), os.path.join(tmp, "drain"))
        for i in range(runs):
            line = f"{i + 1:4}:"
            for name, args in (("read", ()), ("mapped", ("--map",))):
                r = run(tmp, secs, mb, drain, args)
                r["ns"] = r["cpu_ns"] / max(r["events"], 1)
                rows[name].append(r)
                line += (f"  {name} {r['ns']:6.1f} ns/event ({r['events']:,} events, "
                         f"lost {r['lost']})")
            print(line, flush=True)
    ratios = [m["ns"] / r["ns"] for r, m in zip(rows["read"], rows["mapped"])]
    print(f"\nthe bare reader under the storm, {runs} rounds of {secs} s, {mb} MiB on CPU 1:")
    for name in rows:
        print(f"  {name:7} {median([r['ns'] for r in rows[name]]):6.1f} ns/event (median)")
    print(f"mapped / read, CPU per event: {median(ratios):.2f} (median of the rounds' ratios; "
          f"from {min(ratios):.2f} to {max(ratios):.2f})")
    print(f"RESULT mapread_read_ns_per_event {median([r['ns'] for r in rows['read']]):.3f}")
    print(f"RESULT mapread_mapped_ns_per_event {median([r['ns'] for r in rows['mapped']]):.3f}")
    print(f"RESULT mapread_ratio {median(ratios):.3f}")


if __name__ == "__main__":
    main()
