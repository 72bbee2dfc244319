#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
# streamcheck.py - read memtrace --stream lines and print what they hold as one JSON
# object, for tests/stream.sh to check: every line parsed on its own, the fleet
# tracer's field names checked on each, counts and bytes per evt_type, processes.
# Usage: tests/streamcheck.py FILE
import datetime
import json
import re
import sys

EVT = ("pageAllocate", "pageFree", "memoryMap", "memoryUnmap", "pageFault")
TS = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z$")
DAY = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")


def utc(ts):
    d = datetime.datetime.strptime(ts[:19], "%Y-%m-%dT%H:%M:%S")
    return d.replace(tzinfo=datetime.timezone.utc).timestamp() + int(ts[20:29]) / 1e9


out = {"lines": 0, "invalid": 0, "bad_shape": [], "types": {}, "evt": {},
       "pids": [], "names": [], "procs": {}, "lost": {"queue": 0, "kernel": 0},
       "map64": 0, "unmap64": 0, "summaries": [], "ts_min": None, "ts_max": None,
       "failed_calls": 0, "syscalls": {}, "owners": 0, "unsorted": 0}
pids, names, last = set(), set(), 0.0
with open(sys.argv[1], "rb") as f:
    for raw in f:
        out["lines"] += 1
        try:
            d = json.loads(raw)
        except ValueError:
            out["invalid"] += 1
            continue
        t = d.get("type")
        out["types"][t] = out["types"].get(t, 0) + 1
        if t == "memtrace.lost":
            if set(d) != {"type", "count", "source", "total", "timestamp", "src"}:
                out["bad_shape"].append(sorted(d))
            out["lost"][d["source"]] += d["count"]
            continue
        if set(d) != {"timestamp", "type", "data", "src"} or \
                set(d["src"]) != {"hostname", "name"} or d["src"]["name"] != "memtrace" or \
                not TS.match(d["timestamp"]):
            out["bad_shape"].append(sorted(d))
            continue
        e, when = d["data"], utc(d["timestamp"])
        out["ts_min"] = when if out["ts_min"] is None else min(out["ts_min"], when)
        out["ts_max"] = when if out["ts_max"] is None else max(out["ts_max"], when)
        p = e["process"]
        # every line the same shape: a fact not known is null (issue 24, 5)
        for k in ("pid", "ppid", "name", "cmd", "exe", "ns", "startedAt"):
            if k not in p:
                out["bad_shape"].append("process without " + k)
        if p.get("startedAt") is not None and not DAY.match(p["startedAt"]):
            out["bad_shape"].append("startedAt " + p["startedAt"])
        out["procs"][str(p["pid"])] = p
        if t == "memtrace.summary":
            out["summaries"].append({k: e[k] for k in e if k != "process"})
            continue
        if t != "memtrace":
            out["bad_shape"].append("type " + str(t))
            continue
        if when < last - 0.01:		# the CPUs are merged in time order
            out["unsorted"] += 1
        last = max(last, when)
        ev = e["evt_type"]
        for k in ("evt_type", "size", "pid", "tid", "process"):
            if k not in e:
                out["bad_shape"].append("data without " + k)
        if ev not in EVT or e["pid"] != p["pid"]:
            out["bad_shape"].append("evt_type %s pid %s/%s" % (ev, e["pid"], p["pid"]))
        c = out["evt"].setdefault(ev, {"count": 0, "bytes": 0})
        c["count"] += 1
        c["bytes"] += e["size"]
        pids.add(e["pid"])
        names.add(p["name"])
        if ev in ("memoryMap", "memoryUnmap"):
            out["syscalls"][e["syscall"]] = out["syscalls"].get(e["syscall"], 0) + 1
            out["failed_calls"] += bool(e.get("failed"))
            if e["size"] == 64 << 20:
                out["map64" if ev == "memoryMap" else "unmap64"] += 1
        if ev == "pageFree" and "owner" in e:
            out["owners"] += 1
out["pids"] = sorted(pids)
out["names"] = sorted(names)
print(json.dumps(out))
