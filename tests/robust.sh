#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# robust.sh - memtrace against hostile input: broken recordings, hostile task names,
# bad option values, and a log path that is planted, unwritable or on a full filesystem
#
#   tests/robust.sh                                   # plain build
#   MEMTRACE_ASAN=/tmp/mt-asan/memtrace tests/robust.sh   # also the replays under ASan/UBSan
#
# Needs root and a tracefs for the live parts; each test says SKIP with a reason when it
# cannot run. Live tests use instances named memtrace-rb$$*, never touch top-level
# settings, leave tracefs as found (tfs_state) and kill only what they start.
# A hang, crash or sanitizer report in a replay saves the broken input under
# /tmp/robust-findings/ (override with ROBUST_FINDINGS=DIR).
set -u
cd "$(dirname "$0")/.." || exit 1
MT=$PWD/memtrace
MT_HOOKS=$PWD/build/tests/memtrace-hooks	# the test build: MEMTRACE_TEST_* fault hooks
WL=$PWD/build/tests/workload
ASAN=${MEMTRACE_ASAN:-}
FINDINGS=${ROBUST_FINDINGS:-/tmp/robust-findings}
T=$(mktemp -d /tmp/memtrace-rb.XXXXXX)
INST=memtrace-rb$$
. "$PWD/tests/lib.sh"
T0=$(date +%s%N)

is_child() {	# is_child PID: a process (or zombie) of ours, not a reused pid
	local s
	s=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
	s=${s##*) }
	set -- $s
	[ "${2:-}" = $$ ]
}

cleanup() {
	local p
	for p in "${PIDS[@]}"; do is_child "$p" && kill -KILL "$p" 2>/dev/null; done
	for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null; done
	undo_ours
	chmod -R u+rwx "$T" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

TS=$T0
lap() { local now; now=$(date +%s%N); echo "# $1: $(( (now - TS) / 1000000 )) ms"; TS=$now; }

# Everything memtrace could change, top level and our instances

# those of the instances NAME... that exist: only names a test gives (ours, $INST*, are in
# tfs_state); the rest of instances/ is anyone's, and changes under a shared machine
own_instances() {
	local n
	for n in "$@"; do [ -d "$TFS/instances/$n" ] && echo "$n"; done
}

# start_named NAME [ARGS]: memtrace in the background on instance $INST-NAME;
# MTPID, stdout in $T/NAME.out, stderr in $T/NAME.err
start_named() {
	local name=$1 i; shift
	"$MT" --instance "$INST-$name" "$@" > "$T/$name.out" 2> "$T/$name.err" &
	MTPID=$!
	PIDS+=("$MTPID")
	for i in $(seq 200); do
		grep -q "tracing in" "$T/$name.err" 2>/dev/null && return 0
		kill -0 "$MTPID" 2>/dev/null || return 1
		sleep 0.025
	done
	return 1
}

# ---------------------------------------------------------------- python helpers
cat > "$T/rb.py" <<'PY'
import json, os, random, re, struct, sys

def layout(d):
    """sub-buffer layout from DIR/events/header_page"""
    f = {}
    for line in open(os.path.join(d, "events/header_page"), errors="replace"):
        m = re.search(r"field:.*?(\w+);\s*offset:(\d+);\s*size:(\d+);", line)
        if m and m.group(1) not in f:
            f[m.group(1)] = (int(m.group(2)), int(m.group(3)))
    return {"ts": f["timestamp"][0], "coff": f["commit"][0], "csz": f["commit"][1],
            "doff": f["data"][0], "dsz": f["data"][1], "sub": f["data"][0] + f["data"][1]}

def commit(buf, L, i):
    o = i * L["sub"] + L["coff"]
    return int.from_bytes(buf[o:o + L["csz"]], sys.byteorder)

def set_commit(buf, L, i, v):
    o = i * L["sub"] + L["coff"]
    buf[o:o + L["csz"]] = v.to_bytes(L["csz"], sys.byteorder)

def cmd_sub(d):
    print(layout(d)["sub"])

def cmd_randpage(d, cpu, seed, what):
    """random bytes over one sub-buffer of cpuN (whole, or its data only); one at least
    half full, so that it surely held records (a reader's wakeup can leave sub-buffers
    of one record, and random bytes over a short commit can decode as padding)"""
    L = layout(d)
    p = os.path.join(d, "per_cpu/cpu%s/trace_pipe_raw" % cpu)
    buf = bytearray(open(p, "rb").read())
    r = random.Random(int(seed))
    full = [i for i in range(len(buf) // L["sub"])
            if commit(buf, L, i) & 0x07ffffff >= L["dsz"] // 2]
    if not full:
        sys.exit("no sub-buffer of cpu%s is half full" % cpu)
    i = r.choice(full)
    start = i * L["sub"] + (L["doff"] if what == "data" else 0)
    end = (i + 1) * L["sub"]
    buf[start:end] = bytes(r.getrandbits(8) for _ in range(end - start))
    open(p, "wb").write(buf)
    print(i)

def cmd_fullpage(d, cpu, start, need):
    """the first sub-buffer of cpuN from index START on (wrapping) whose data is longer
    than NEED bytes, so that cutting the file NEED bytes into it truncates a record"""
    L = layout(d)
    buf = open(os.path.join(d, "per_cpu/cpu%s/trace_pipe_raw" % cpu), "rb").read()
    n = len(buf) // L["sub"]
    for k in range(n):
        i = (int(start) + k) % n
        if commit(buf, L, i) & 0x07ffffff > int(need):
            print(i)
            return
    sys.exit("no sub-buffer of cpu%s holds more than %s bytes" % (cpu, need))

def cmd_flip(d, cpu, seed, count):
    p = os.path.join(d, "per_cpu/cpu%s/trace_pipe_raw" % cpu)
    buf = bytearray(open(p, "rb").read())
    r = random.Random(int(seed))
    for _ in range(int(count)):
        buf[r.randrange(len(buf))] = r.getrandbits(8)
    open(p, "wb").write(buf)

def cmd_randfile(path, seed, size):
    r = random.Random(int(seed))
    open(path, "wb").write(bytes(r.getrandbits(8) for _ in range(int(size))))

def cmd_lost(d, mode):
    """flag sub-buffers as having lost events: unknown (no count), a stored count of
    1000 on one page, or 2^63 on two pages (a sum that wraps a u64 to 0)"""
    L = layout(d)
    pages = []
    for cpu in sorted(os.listdir(os.path.join(d, "per_cpu"))):
        p = os.path.join(d, "per_cpu", cpu, "trace_pipe_raw")
        buf = bytearray(open(p, "rb").read())
        for i in range(len(buf) // L["sub"]):
            size = commit(buf, L, i) & 0x07ffffff
            pages.append((p, i, size))
    if mode == "unknown":
        p, i, size = pages[0]
        buf = bytearray(open(p, "rb").read())
        set_commit(buf, L, i, commit(buf, L, i) | (1 << 31))
        open(p, "wb").write(buf)
        return print("ok")
    room = [x for x in pages if x[2] + L["csz"] <= L["dsz"] and x[2] > 0]
    want, count = (1, 1000) if mode == "1000" else (2, 1 << 63)
    if len(room) < want:
        return print("noroom")
    for p, i, size in room[:want]:
        buf = bytearray(open(p, "rb").read())
        set_commit(buf, L, i, commit(buf, L, i) | (3 << 30))
        o = i * L["sub"] + L["doff"] + size
        buf[o:o + L["csz"]] = count.to_bytes(L["csz"], sys.byteorder)
        open(p, "wb").write(buf)
    print("ok")

def cmd_manyfields(path, n):
    text = open(path).read()
    extra = "".join("\tfield:int extra%d;\toffset:%d;\tsize:4;\tsigned:1;\n" % (k, 8 + 4 * k)
                    for k in range(int(n)))
    open(path, "w").write(text.replace("\nprint fmt", extra + "\nprint fmt", 1))

def load(f):
    try:
        return json.load(open(f, encoding="utf-8"))
    except Exception as e:
        return None

def flat(o, path=""):
    if isinstance(o, dict):
        for k, v in o.items():
            if k in ("boot_buffer", "tasks", "modules", "processes"):
                continue
            yield from flat(v, path + "." + k)
    elif isinstance(o, (int, float)) and not isinstance(o, bool):
        yield path, o

def skipped(d):
    """every counter of input that was dropped: malformed/unknown records, corrupt or
    truncated sub-buffers, under whatever name the report gives them"""
    e = d["events"]
    n = e.get("malformed", 0) + e.get("unknown_ids", 0)
    for k, v in flat(d):
        last = k.rsplit(".", 1)[-1]
        if last in ("malformed", "unknown_ids"):
            continue
        if re.search(r"corrupt|truncat|malformed|bad|skipped|short|invalid|partial|dropped", last):
            n += v
    return n

def check(base, out, errf, expr):
    """evaluate a case's expectation: (ok, the numbers)"""
    b, d = load(base), load(out)
    E = open(errf, errors="replace").read()
    if d is None:
        return False, "the JSON does not parse"
    if b is None:
        return False, "the intact recording's JSON does not parse"
    P = lambda x: x["events"]["processed"]
    K = lambda x, k: x["events"]["by_kind"][k]
    U = lambda x: x["events"]["unknown_ids"]
    M = lambda x: x["events"]["malformed"]
    L = lambda x: x["lost_events"]
    LU = lambda x: x.get("lost_unknown_subbuffers", 0)
    SA = lambda x: x["self_allocs"]     # memtrace's own allocations: read, not counted
    R = lambda x: P(x) + SA(x)          # every event read: damage to a sub-buffer that held
                                        # only memtrace's own allocations lowers R, not P
    S = skipped
    miss = lambda x: {m["event"] for m in x["events"]["missing"]}
    m = re.search(r"memtrace: (\d+) malformed lines", E)
    BADLINES = int(m.group(1)) if m else 0
    same = lambda x, y: P(x) == P(y) and x["events"]["by_kind"] == y["events"]["by_kind"]
    try:
        ok = bool(eval(expr))
    except Exception as e:
        ok, expr = False, "%s raised %r" % (expr, e)
    return ok, ("processed %d (recording %d), own %d (recording %d), unknown_ids %d, malformed %d, other skipped %d, "
                "lost %d, lost_unknown_subbuffers %d, seed tasks %d, malformed meta/seed lines %d" %
                (P(d), P(b), SA(d), SA(b), U(d), M(d), S(d) - U(d) - M(d), L(d), LU(d), d["seed"]["tasks"], BADLINES))

def ctl_bytes(data):
    return sorted({c for c in data if (c < 0x20 and c != 0x0a) or c >= 0x7f})

def cmd_verify(manifest, outdir, findings):
    """judge every replay of the manifest (case, tag, allowed exits, timeout, expectation);
    print ok/bad lines, and a finding line per hang, crash or sanitizer report"""
    base = os.path.join(outdir, "intact.plain.json")
    for line in open(manifest):
        case, tag, allow, tmo, expect = line.rstrip("\n").split("\t")
        name = "replay %s [%s]" % (case, tag)
        probs, summary, rcs = [], "", {}
        for f in ("json", "text"):
            o = os.path.join(outdir, "%s.%s.%s" % (case, tag, f))
            rc = int(open(o + ".rc").read())
            rcs[f] = rc
            err = open(o + ".err", "rb").read()
            errt = err.decode("utf-8", "replace")
            what = None
            if rc == 124:
                what = "hang: no exit within %s s" % tmo
            elif rc >= 128:
                what = "crash: exit %d (signal %d)" % (rc, rc - 128)
            else:
                m = re.search(r".*(Sanitizer|runtime error:).*", errt)
                if m:
                    what = "sanitizer report: " + m.group(0)[:200]
            if what:
                probs.append("-f %s: %s (input saved in %s/replay-%s)" % (f, what, findings, case))
                print("finding\t%s %s %s %s" % (case, tag, f, what))
                continue
            if str(rc) not in allow or len(str(rc)) != 1:
                probs.append("-f %s: exit %d, want %s: %r" % (f, rc, " or ".join(allow), errt[:300]))
                if rc != 0:
                    continue
            if rc != 0:
                lines = err.split(b"\n")[:-1] if err.endswith(b"\n") else err.split(b"\n")
                if len(lines) != 1 or not lines[0].startswith(b"memtrace: "):
                    probs.append("-f %s: exit %d needs one clear 'memtrace:' line on stderr, got %r"
                                 % (f, rc, errt[:400]))
                continue
            bad = [l for l in err.split(b"\n")[:-1] if not l.startswith(b"memtrace:")
                   or any(c < 0x20 or c == 0x7f for c in l)]
            if bad:
                probs.append("-f %s: stray stderr line %r" % (f, bad[0][:160]))
            out = open(o + ".out", "rb").read()
            if f == "json":
                res = check(base + ".out", o + ".out", o + ".err", expect)
                summary = res[1]
                if not res[0]:
                    probs.append("report inconsistent with the damage (%s): %s" % (expect, res[1]))
            else:
                c = ctl_bytes(out)
                if c:
                    probs.append("-f text: raw control/non-ASCII bytes in the report: %s"
                                 % " ".join("%02x" % x for x in c))
                d = load(o[:-4] + "json.out") if rcs.get("json") == 0 else None
                if d and d["events"]["unknown_ids"] + d["events"]["malformed"] and \
                   not re.search(rb"(?m)^records skipped: ", out):
                    probs.append("-f text: the JSON counts skipped records, the text report does not say so")
        if rcs.get("json") != rcs.get("text"):
            probs.append("exit %s with -f json but %s with -f text" % (rcs.get("json"), rcs.get("text")))
        for p in probs:
            print("bad\t%s %s" % (name, p))
        if not probs:
            print("ok\t%s: exit %s%s" % (name, rcs["json"], ", " + summary if summary else ""))
        sys.stdout.flush()

def cmd_ctl(path):
    """raw control bytes (other than newline) or bytes >= 0x7f in a text report"""
    print(" ".join("%02x" % c for c in ctl_bytes(open(path, "rb").read())))

# ---- hostile names
def json_expect(b):
    """the README's JSON decoding: valid UTF-8 kept, invalid bytes U+FFFD each"""
    out, i = [], 0
    while i < len(b):
        c = b[i]
        n = 1 if c < 0x80 else 2 if 0xc2 <= c <= 0xdf else 3 if 0xe0 <= c <= 0xef \
            else 4 if 0xf0 <= c <= 0xf4 else 0
        try:
            if n == 0:
                raise ValueError
            s = b[i:i + n].decode("utf-8")
            if len(s) != 1:
                raise ValueError
            out.append(s)
            i += n
        except (ValueError, UnicodeDecodeError):
            out.append("\ufffd")
            i += 1
    return "".join(out)

def text_decode(s):
    """the README's text escaping: printable ASCII raw, a backslash doubled, else \\xNN"""
    out, i = bytearray(), 0
    while i < len(s):
        if s.startswith("\\\\", i):
            out.append(0x5c)
            i += 2
            continue
        if s[i] == "\\":
            m = re.match(r"\\x([0-9a-fA-F]{2})", s[i:i + 4])
            if not m:
                raise ValueError("'\\' not followed by xNN at %d in %r" % (i, s))
            out.append(int(m.group(1), 16))
            i += 4
        else:
            if not (0x20 <= ord(s[i]) < 0x7f):
                raise ValueError("raw byte %r in %r" % (s[i], s))
            out.append(ord(s[i]))
            i += 1
    return bytes(out)

def names(spec):
    """PID=HEX,... -> {pid: bytes}"""
    return {int(p): bytes.fromhex(h) for p, h in (x.split("=") for x in spec.split(","))}

def table(lines, head_re, nfixed):
    """rows after a header matching head_re: (fixed columns, comm text); the comm is
    what follows the two spaces after the last fixed column (not the header's COMM
    position: a wide number, a time past 99999 s, shifts the row)"""
    rows, head = [], False
    row = re.compile(r"^\s*((?:\S+\s+){%d}\S+)  (.*)$" % (nfixed - 1), re.S)
    for line in lines:
        if not head:
            if re.match(head_re, line):
                head = True
                pos = line.index("COMM")
                if len(line[:pos].replace("#", " ").split()) != nfixed:
                    raise ValueError("header has %d columns before COMM" % len(line[:pos].split()))
            continue
        if not line.strip():
            break
        if line.startswith("#"):
            continue
        m = row.match(line)
        # a row without the columns and the two spaces: no fixed columns, for the caller
        rows.append((m.group(1).split(), m.group(2), line) if m else ([], "", line))
    if not head:
        raise ValueError("no table header")
    return rows

def comm_problems(pid, comm, want):
    """what is wrong with a text comm of a pid in want: [] when it decodes to its name"""
    try:
        got = text_decode(comm)
    except ValueError as e:
        return ["pid %d: %s" % (pid, e)]
    if got != want[pid]:
        return ["pid %d: comm %r decodes to %r, want %r" % (pid, comm, got, want[pid])]
    return []

def cmd_names_text(path, spec):
    want = names(spec)
    lines = open(path, encoding="ascii", errors="replace").read().split("\n")
    probs, seen = [], set()
    rows = table(lines, r"^\s+PID\s+TGID\s+PPID\s+PEAK_PAGES.*\sCOMM$", 9)
    for fixed, comm, line in rows:
        if len(fixed) != 9 or not all(x.lstrip("-").isdigit() for x in fixed[:7]) \
           or fixed[7] not in ("alive", "exited", "pseudo") or not re.match(r"^\d+\.\d+$", fixed[8]):
            probs.append("row with %d columns before COMM: %r" % (len(fixed), line[:160]))
            continue
        pid = int(fixed[0])
        if pid in want:
            seen.add(pid)
            probs += comm_problems(pid, comm, want)
            if int(fixed[3]) < 2048:
                probs.append("pid %d: peak %s pages < 2048" % (pid, fixed[3]))
    for pid in sorted(set(want) - seen):
        probs.append("pid %d (%r) not in the task table" % (pid, want[pid]))
    print("ok %d rows" % len(rows) if not probs else "; ".join(probs))

def cmd_names_json(path, spec):
    want = names(spec)
    d = json.load(open(path, encoding="utf-8"))
    probs = []
    by = {t["pid"]: t for t in d["tasks"]}
    for pid, name in sorted(want.items()):
        t = by.get(pid)
        if not t:
            probs.append("pid %d (%r) not in tasks" % (pid, name))
        elif t["comm"] != json_expect(name):
            probs.append("pid %d: comm %r, want %r" % (pid, t["comm"], json_expect(name)))
        elif t["peak_pages"] < 2048:
            probs.append("pid %d: peak %d pages < 2048" % (pid, t["peak_pages"]))
    print("ok" if not probs else "; ".join(probs))

def cmd_exits_text(path, spec):
    want = names(spec)
    lines = open(path, encoding="ascii", errors="replace").read().split("\n")
    probs, seen = [], set()
    rows = table(lines, r"^#\s+TIME_S\s+PID.*\sCOMM$", 6)
    for fixed, comm, line in rows:
        if len(fixed) != 6:
            probs.append("row with %d columns before COMM: %r" % (len(fixed), line[:160]))
            continue
        pid = int(fixed[1])
        if pid in want:
            seen.add(pid)
            probs += comm_problems(pid, comm, want)
    for pid in sorted(set(want) - seen):
        probs.append("pid %d (%r) has no exit line" % (pid, want[pid]))
    print("ok %d rows" % len(rows) if not probs else "; ".join(probs))

def cmd_lost_said(*paths):
    """what the --exits outputs said they lost (text "# N ..." notes, JSON one-key objects)"""
    said = []
    for path in paths:
        lost = shown = 0
        for line in open(path, "rb").read().decode("ascii", "replace").split("\n"):
            m = re.match(r"^# (\d+) events lost so far", line) or \
                re.match(r'^\{"lost_events":(\d+)\}$', line)
            if m:
                lost = max(lost, int(m.group(1)))
            m = re.match(r"^# (\d+) process exits not shown", line) or \
                re.match(r'^\{"exits_not_shown":(\d+)\}$', line)
            if m:
                shown += int(m.group(1))
        if lost or shown:
            said.append("%s: %d events lost, %d exits not shown" % (os.path.basename(path), lost, shown))
    print("; ".join(said))

def cmd_exits_json(path, spec):
    want = names(spec)
    probs, seen = [], set()
    for n, line in enumerate(open(path, "rb").read().split(b"\n")):
        if not line:
            continue
        try:
            o = json.loads(line.decode("utf-8"))
        except Exception as e:
            probs.append("line %d does not parse: %r" % (n + 1, line[:120]))
            continue
        if o.get("pid") in want:
            seen.add(o["pid"])
            if o["comm"] != json_expect(want[o["pid"]]):
                probs.append("pid %d: comm %r, want %r" % (o["pid"], o["comm"],
                                                           json_expect(want[o["pid"]])))
    for pid in sorted(set(want) - seen):
        probs.append("pid %d (%r) has no exit line" % (pid, want[pid]))
    print("ok" if not probs else "; ".join(probs))

globals()["cmd_" + sys.argv[1]](*sys.argv[2:])
PY
rb() { python3 "$T/rb.py" "$@"; }

# ================================================================ 1. replay
REC=
make_recording() {
	local before after rc
	REC=$T/rec
	if ! can_trace "live recording (replaying a copy of tests/fixtures/debian-6.1-boot)"; then
		cp -a tests/fixtures/debian-6.1-boot "$REC" 2>/dev/null
		return 0
	fi
	before=$(tfs_state)
	start_named rec --record "$REC" -f json -n 0 -o "$T/rec-live.json" ||
		{ bad "recording: memtrace did not start: $(head -3 "$T/rec.err")"; return 1; }
	# a workload on each CPU: the cases that break the busiest CPU's buffer still have
	# events on another to report (else the replay rightly says nothing decoded: exit 1)
	local c
	for c in $(seq 0 $(( $(nproc) - 1 ))); do
		taskset -c "$c" "$WL" 4 50 2>/dev/null || "$WL" 4 50
	done
	sleep 0.2
	kill -TERM "$MTPID"; wait_exit "$MTPID"; rc=$?
	after=$(tfs_state)
	check "recording: --record exits 0 on SIGTERM" test "$rc" = 0
	check "recording: tracefs identical afterwards" test "$before" = "$after"
	check "recording has raw buffers, formats, meta and seed" test -s "$REC/events/header_page" -a \
		-n "$(find "$REC/per_cpu" -name trace_pipe_raw -size +0)" -a -s "$REC/memtrace.meta" -a \
		-s "$REC/memtrace.seed"
	# a busy machine records a lot: keep the first 64 sub-buffers of each CPU, so that
	# ~75 cases x 4 replays stay fast (the intact copy is the reference for all of them)
	local f sub; sub=$(rb sub "$REC") || sub=4096
	for f in "$REC"/per_cpu/cpu*/trace_pipe_raw; do
		[ "$(stat -c %s "$f")" -gt $((64 * sub)) ] && truncate -s $((64 * sub)) "$f"
	done
	return 0
}

declare -A ALLOW EXPECT TMO
CASES=()
# newcase NAME ALLOWED_EXITS [EXPECTATION]: a copy of the recording to break in $C.
# ALLOWED_EXITS: 0 (must report), 1 (must refuse), 01 (either); 5 is accepted where a
# required format is broken (README: exit 5 = required tracepoint missing).
# EXPECTATION: python on the reports when it exits 0, b = the recording's, d = this one's.
newcase() {
	C=$T/cases/$1
	rm -rf "$C"
	cp -a "$REC" "$C"
	CASES+=("$1")
	ALLOW[$1]=$2
	EXPECT[$1]=${3:-True}
	TMO[$1]=20
}
fmtfile() { echo "$C/events/$1/format"; }
setfield() {	# setfield EVENT FIELD NEW-OFFSET NEW-SIZE
	sed -i -E "s/(field:[^;]*[ *]$2(\[[0-9]*\])?;[[:space:]]*offset:)[0-9-]+;([[:space:]]*size:)[0-9-]+;/\1$3;\3$4;/" \
		"$(fmtfile "$1")"
}
hdrfield() {	# hdrfield FIELD OFFSET SIZE in header_page
	sed -i -E "s/(field:[^;]* $1;[[:space:]]*offset:)[0-9-]+;([[:space:]]*size:)[0-9-]+;/\1$2;\2$3;/" \
		"$C/events/header_page"
}
raw() { echo "$C/per_cpu/cpu$1/trace_pipe_raw"; }

build_cases() {
	local sub n i cpus s BIG
	sub=$(rb sub "$REC") || { bad "cannot read the recording's header_page"; return 1; }
	cpus=$(ls "$REC/per_cpu")
	# the raw buffers are broken on the CPU that recorded the most
	BIG=$(cd "$REC/per_cpu" && ls -S cpu*/trace_pipe_raw | head -1 | sed 's/^cpu\([0-9]*\).*/\1/')

	newcase intact 0 'same(d, b) and U(d) == U(b) and M(d) == M(b) and L(d) == L(b)'
	newcase empty-busiest-cpu 0 'R(d) < R(b) and S(d) == S(b) and L(d) == L(b)'
	: > "$(raw $BIG)"
	newcase empty-all 0 'R(d) == 0 and S(d) == 0'
	for s in $cpus; do : > "$C/per_cpu/$s/trace_pipe_raw"; done
	n=$(stat -c %s "$REC/per_cpu/cpu$BIG/trace_pipe_raw")
	newcase truncated-odd-mid 0 'R(d) < R(b) and S(d) > S(b)'
	# cut 1235 bytes into a sub-buffer near the middle that holds more than that:
	# a sub-buffer whose data ends before the cut is complete and replays whole
	i=$(rb fullpage "$REC" "$BIG" $(( n / sub / 2 )) 1235 2>&1) ||
		{ bad "truncated-odd-mid: $i"; i=$(( n / sub / 2 )); }
	truncate -s $(( i * sub + 1235 )) "$(raw $BIG)"
	newcase truncated-1-byte 0 'R(d) < R(b) and S(d) > S(b)'
	truncate -s 1 "$(raw $BIG)"
	newcase truncated-page-plus-17 0 'R(d) < R(b) and S(d) > S(b)'
	truncate -s $(( sub + 17 )) "$(raw $BIG)"
	for s in 1 2 3 4; do
		newcase random-subbuffer-seed$s 0 'R(d) < R(b) and S(d) > S(b)'
		rb randpage "$C" "$BIG" "$s" all > "$C.page" || bad "random-subbuffer-seed$s: no page to break"
	done
	for s in 5 6; do
		newcase random-data-seed$s 0 'S(d) > S(b)'
		rb randpage "$C" "$BIG" "$s" data > "$C.page" || bad "random-data-seed$s: no page to break"
	done
	newcase flipped-bytes 0
	rb flip "$C" "$BIG" 7 64
	newcase random-file 0 'S(d) > S(b) or R(d) < R(b)'
	rb randfile "$(raw $BIG)" 8 65536
	newcase lost-flag-no-count 0 'same(d, b) and LU(d) == LU(b) + 1 and L(d) == L(b) + 1'
	rb lost "$C" unknown > /dev/null
	newcase lost-count-1000 0 'same(d, b) and L(d) == L(b) + 1000'
	[ "$(rb lost "$C" 1000)" = ok ] || { unset 'CASES[-1]'; skip "lost-count-1000: no sub-buffer with room for a count"; }
	newcase lost-count-2x2^63 0 'same(d, b) and L(d) >= 2**63'
	[ "$(rb lost "$C" overflow)" = ok ] || { unset 'CASES[-1]'; skip "lost-count-2x2^63: no two sub-buffers with room"; }

	if [ "$(python3 -c 'import sys; print(sys.byteorder)')" = little ] &&
	   grep -q 'commit;.*size:8;' "$REC/events/header_page"; then
		newcase header-commit-size-4 0 'same(d, b) and S(d) == S(b)'
		hdrfield commit 8 4
	fi
	newcase header-commit-size-16 1
	hdrfield commit 8 16
	newcase header-commit-size-0 01 'S(d) > S(b) or R(d) < R(b)'
	hdrfield commit 8 0
	newcase header-commit-size-3 01 'S(d) > S(b) or R(d) < R(b)'
	hdrfield commit 8 3
	newcase header-data-offset-24 01 'S(d) > S(b)'
	hdrfield data 24 4080
	newcase header-data-size-4G 01 'S(d) > S(b) or R(d) < R(b)'
	hdrfield data 16 4294967295
	newcase header-data-size-0 01 'R(d) == 0'
	hdrfield data 16 0
	newcase header-timestamp-past-data 01 'R(d) == 0 or S(d) > S(b)'
	hdrfield timestamp 5000 8
	newcase header-garbage 1
	rb randfile "$C/events/header_page" 9 300
	newcase header-missing 1
	rm "$C/events/header_page"

	newcase format-swap-sizes 01 'same(d, b) and S(d) == S(b)'
	setfield kmem/mm_page_alloc pfn 8 4; setfield kmem/mm_page_alloc order 16 8
	# order now reads the pfn's low half: absurd orders, each to be counted as skipped
	newcase format-swap-offsets 01 'S(d) >= S(b) + K(b, "page_alloc")'
	setfield kmem/mm_page_alloc pfn 16 8; setfield kmem/mm_page_alloc order 8 4
	newcase format-offset-past-record 0 'M(d) == M(b) + K(b, "page_alloc") + SA(b) and K(d, "page_alloc") == 0'
	setfield kmem/mm_page_alloc order 200 4
	newcase format-field-crosses-end 0 'M(d) == M(b) + K(b, "page_free") and K(d, "page_free") == 0'
	setfield kmem/mm_page_free pfn 36 8
	newcase format-size-3 15
	setfield kmem/mm_page_alloc pfn 8 3
	newcase format-offset-huge 15
	setfield kmem/mm_page_alloc pfn 99999999999 8
	newcase format-offset-negative 15
	setfield kmem/mm_page_alloc pfn -8 8
	newcase format-common-type-moved 15
	setfield kmem/mm_page_alloc common_type 2 2
	newcase format-comm-size-4096 0 'same(d, b)'
	setfield task/task_rename newcomm 12 4096
	newcase format-dataloc-past-record 0 'P(d) == P(b)'
	sed -i -E 's/(__data_loc char\[\] filename;[[:space:]]*offset:)[0-9]+;/\1200;/' "$(fmtfile sched/sched_process_exec)"
	newcase format-60-fields-optional 0 '"sched:sched_process_fork" in miss(d) and U(d) == U(b) + K(b, "fork")'
	rb manyfields "$(fmtfile sched/sched_process_fork)" 60
	newcase format-60-fields-required 15
	rb manyfields "$(fmtfile kmem/mm_page_free)" 60
	newcase format-garbage-optional 0 '"task:task_rename" in miss(d) and U(d) == U(b) + K(b, "rename")'
	rb randfile "$(fmtfile task/task_rename)" 10 2000
	newcase id-undefined 0 'U(d) == U(b) + K(b, "page_free") and K(d, "page_free") == 0 and P(d) == P(b) - K(b, "page_free")'
	sed -i 's/^ID: .*/ID: 65000/' "$(fmtfile kmem/mm_page_free)"
	newcase id-out-of-range 15
	sed -i 's/^ID: .*/ID: 70000/' "$(fmtfile kmem/mm_page_alloc)"
	newcase id-duplicate-optional 0 'U(d) == U(b) + K(b, "newtask") and K(d, "newtask") == 0'
	sed -i "s/^ID: .*/$(grep '^ID:' "$REC/events/sched/sched_process_fork/format")/" "$(fmtfile task/task_newtask)"
	newcase format-missing-optional 0 '"sched:sched_process_fork" in miss(d) and U(d) == U(b) + K(b, "fork")'
	rm "$(fmtfile sched/sched_process_fork)"
	newcase format-missing-required 15
	rm "$(fmtfile kmem/mm_page_alloc)"
	newcase format-empty-required 15
	: > "$(fmtfile kmem/mm_page_free)"

	# the meta's self_pid is gone with it: memtrace's own allocations count as a task's
	newcase meta-binary 0 'P(d) == P(b) + SA(b) and K(d, "page_alloc") == K(b, "page_alloc") + SA(b) and SA(d) == 0 and BADLINES > 0'
	rb randfile "$C/memtrace.meta" 11 4096
	newcase meta-huge-numbers 0 'same(d, b) and d["page_size"] == 4096'
	cat >> "$C/memtrace.meta" <<-'EOF'
	page_size 99999999999999999999999
	max_pfn 18446744073709551616
	cpu_lost 0 18446744073709551616
	uptime 1e999
	initmod 18446744073709551615 18446744073709551615
	rename_events 99999999999999999999999
	module_kib memtrace_nomod 18446744073709551615
	module_untraced huge 18446744073709551615
	modules_not_listed 4294967295
	boot_buffer 18446744073709551615 18446744073709551615 4294967295 1 2 3 4 4294967295
	EOF
	newcase meta-cpu-lost-2x2^63 0 'same(d, b) and (L(d) >= 2**63 or (L(d) == L(b) and BADLINES == 2))'
	sed -i '/^cpu_lost/d' "$C/memtrace.meta"
	printf 'cpu_lost 0 9223372036854775808\ncpu_lost 1 9223372036854775808\n' >> "$C/memtrace.meta"
	newcase meta-max-pfn-2^40 01 'same(d, b)'
	echo "max_pfn 1099511627776" >> "$C/memtrace.meta"
	newcase meta-negative-5-lines 0 'same(d, b) and BADLINES == 5 and d["page_size"] == 4096'
	printf 'page_size -4096\ncpu_lost -1 -5\nmax_pfn -1\nuptime -5\ninitmod -1 -2\n' >> "$C/memtrace.meta"
	newcase meta-long-lines 0 'same(d, b) and BADLINES >= 2'
	{ printf 'cpu_lost 0 %0600d\n' 5; head -c 100000 /dev/zero | tr '\0' 'x'; echo; } >> "$C/memtrace.meta"
	newcase seed-binary 0 'same(d, b) and BADLINES > 0'
	rb randfile "$C/memtrace.seed" 12 4096
	newcase seed-huge-numbers 0 'd["seed"]["tasks"] == 3 and d["seed"]["pages"] == 3 * 2**40 and BADLINES == 2'
	printf 'seed 1000001 1000001 1 0 1099511627776 0 61\nseed 1000002 1000002 1 0 1099511627776 0 62\nseed 1000003 1000003 1 0 1099511627776 0 63\nseed 1000004 1000004 1 0 18446744073709551615 0 64\nseed 99999999999 5 1 0 1 0 65\n' > "$C/memtrace.seed"
	newcase seed-negative 0 'd["seed"]["tasks"] == 0 and BADLINES == 3'
	printf 'seed -1 -1 -1 0 5 0 61\nseed 5 5 1 0 -5 0 62\nseed 6 6 1 0 5 -1 63\n' > "$C/memtrace.seed"
	newcase seed-long-lines 0 'BADLINES >= 2'
	{ printf 'seed 7 7 1 0 5 0 %01000d\n' 6; head -c 2000000 /dev/zero | tr '\0' 'y'; echo; } > "$C/memtrace.seed"
	newcase seed-20000-tasks 0 'd["seed"]["tasks"] <= 16384 + 2 and BADLINES == 0 and "3619 tasks of" in E and "did not fit the task table" in E'
	python3 -c 'print("\n".join("seed %d %d 1 0 1 0 6162" % (i, i) for i in range(2000000, 2020000)))' > "$C/memtrace.seed"

	newcase cpus-100-empty-dirs 0 'same(d, b) and S(d) == S(b)'
	for i in $(seq 1000 1099); do mkdir "$C/per_cpu/cpu$i"; done
	newcase cpus-100-empty-files 0 'same(d, b) and S(d) == S(b)'
	for i in $(seq 1000 1099); do mkdir "$C/per_cpu/cpu$i"; : > "$(raw $i)"; done
	newcase cpu-name-with-leading-0 0 'same(d, b) and d["double_allocs"] == b["double_allocs"]'
	mkdir "$C/per_cpu/cpu0$BIG"; cp "$REC/per_cpu/cpu$BIG/trace_pipe_raw" "$C/per_cpu/cpu0$BIG/"
	newcase cpu-odd-names 0 'same(d, b)'
	for s in cpu-1 cpu99999999999 cpu1x cpu "cpu 1" cpu+1; do mkdir "$C/per_cpu/$s"; cp "$REC/per_cpu/cpu$BIG/trace_pipe_raw" "$C/per_cpu/$s/"; done
	: > "$C/per_cpu/cpu77"
	newcase raw-is-a-directory 0 'R(d) < R(b)'
	rm "$(raw $BIG)"; mkdir "$(raw $BIG)"
	newcase per-cpu-missing 01 'R(d) == 0'
	rm -r "$C/per_cpu"
	newcase dir-is-a-file 1
	rm -rf "$C"; echo x > "$C"
	newcase dir-does-not-exist 1
	rm -rf "$C"
	# special files: a recording from someone else may hold anything
	newcase raw-is-a-fifo 01; TMO[raw-is-a-fifo]=2
	rm "$(raw $BIG)"; mkfifo "$(raw $BIG)"
	newcase raw-is-dev-zero 01; TMO[raw-is-dev-zero]=2
	rm "$(raw $BIG)"; ln -s /dev/zero "$(raw $BIG)"
	newcase header-is-a-fifo 1; TMO[header-is-a-fifo]=2
	rm "$C/events/header_page"; mkfifo "$C/events/header_page"
	newcase format-is-a-fifo 01; TMO[format-is-a-fifo]=2
	rm "$(fmtfile sched/sched_process_exit)"; mkfifo "$(fmtfile sched/sched_process_exit)"
	newcase meta-is-a-fifo 01; TMO[meta-is-a-fifo]=2
	rm "$C/memtrace.meta"; mkfifo "$C/memtrace.meta"
	# a symlink in a recording is refused (issue 21, item 7: it may lead to live files)
	newcase seed-is-dev-urandom 1; TMO[seed-is-dev-urandom]=2
	rm "$C/memtrace.seed"; ln -s /dev/urandom "$C/memtrace.seed"
	newcase events-dir-is-a-symlink 1
	mv "$C/events" "$C/events.real"; ln -s events.real "$C/events"
}

# The refusal of a symlinked directory names the directory, not the first file read through
# it (issue 36: "events/header_page" was blamed for a symlinked events/)
symlink_named_test() {
	local e=$T/out/events-dir-is-a-symlink.plain.json.err
	check "replay of a recording whose events/ is a symlink: the message names events/ ($(head -c 200 "$e"))" \
		grep -q "/events: a symbolic link: refused" "$e"
}

# rp_run CASE TAG BIN FMT: one replay; files $T/out/CASE.TAG.FMT.{out,err,rc}
rp_run() {
	local o=$T/out/$1.$2.$4
	ASAN_OPTIONS=detect_leaks=1:exitcode=86 UBSAN_OPTIONS=print_stacktrace=1:exitcode=87 \
		timeout "${TMO[$1]}" "$3" --replay "$T/cases/$1" -f "$4" -n 0 > "$o.out" 2> "$o.err"
	echo $? > "$o.rc"
}

save_finding() {	# save_finding CASE TAG FMT WHAT: the input, stderr, how to run it
	local dst=$FINDINGS/replay-$1 o=$T/out/$1.$2.$3 bin=$MT
	[ "$2" = asan ] && bin=$ASAN
	mkdir -p "$FINDINGS" || return
	if [ ! -e "$dst/input" ] && [ ! -L "$dst/input" ]; then
		rm -rf "$dst"; mkdir -p "$dst"
		cp -a "$T/cases/$1" "$dst/input" 2>/dev/null
		echo "# found by tests/robust.sh, $(date -u +%FT%TZ), $("$MT" --version 2>/dev/null | head -1)" > "$dst/README"
	fi
	cp "$o.err" "$dst/stderr.$2.$3"
	echo "$4: timeout ${TMO[$1]} $bin --replay $dst/input -f $3 -n 0  (exit $(cat "$o.rc"))" >> "$dst/README"
}

replay_tests() {
	local c tag bin jobs=0 t0 t1 kind msg rest before
	make_recording || return
	mkdir -p "$T/cases" "$T/out"
	before=$(cd "$REC" && find . -type f -print0 | sort -z | xargs -0 md5sum)
	build_cases
	check "replay: the cases were built without changing the recording" \
		test "$before" = "$(cd "$REC" && find . -type f -print0 | sort -z | xargs -0 md5sum)"
	rm -rf "$FINDINGS"/replay-*
	: > "$T/manifest"
	t0=$(date +%s%N)
	for tag in plain asan; do
		bin=$MT
		if [ "$tag" = asan ]; then
			if [ -z "$ASAN" ]; then
				skip "replays under ASan/UBSan: set MEMTRACE_ASAN to an ASan/UBSan build (see the header)"
				continue
			fi
			[ -x "$ASAN" ] || { bad "MEMTRACE_ASAN=$ASAN is not executable"; continue; }
			bin=$ASAN
		fi
		for c in "${CASES[@]}"; do
			printf '%s\t%s\t%s\t%s\t%s\n' "$c" "$tag" "${ALLOW[$c]}" "${TMO[$c]}" "${EXPECT[$c]}" >> "$T/manifest"
			for f in json text; do
				rp_run "$c" "$tag" "$bin" "$f" &
				jobs=$((jobs + 1))
				if [ "$jobs" -ge 8 ]; then wait -n; jobs=$((jobs - 1)); fi
			done
		done
	done
	wait
	t1=$(date +%s%N)
	echo "# ${#CASES[@]} broken recordings replayed in $(( (t1 - t0) / 1000000 )) ms ($(du -sh "$REC" | cut -f1) recording, $(json "$T/out/intact.plain.json.out" 'd["events"]["processed"]' 2>/dev/null) events)"
	while IFS=$'\t' read -r kind msg; do
		case $kind in
		ok) ok "$msg" ;;
		bad) bad "$msg" ;;
		finding) read -r c tag f rest <<< "$msg"; save_finding "$c" "$tag" "$f" "$rest" ;;
		*) bad "replay verifier: $kind $msg" ;;
		esac
	done < <(rb verify "$T/manifest" "$T/out" "$FINDINGS" 2>&1)
}

# ================================================================ 2. hostile task names

HNAMES=(
	'new\nline'			# a newline
	'\e[31mred\e[0m'		# ESC colour sequence
	'\e]0;ti\atle\a'		# OSC title sequence with BEL
	'q"uo'"'"'te"'			# quotes
	'back\\slash\\'			# backslashes
	'bad\xff\xfeutf\x80'		# invalid UTF-8
	'\xed\xa0\x80surrogate'		# UTF-16 surrogate in UTF-8 (invalid)
	'\xc0\xafover\xf4\x90\x80\x80'	# overlong, beyond U+10FFFF
	'exactly15bytes!'		# the longest comm
	'tab\there\rcr\x7f'		# TAB, CR, DEL
	'c1\xc2\x85\xc2\x9bnel'		# C1 controls in valid UTF-8
	'caf\xc3\xa9 \xe2\x9c\x93'	# valid UTF-8 and a space
	' lead  sp '			# leading, double and trailing spaces
)

hexname() { printf '%b' "$1" | od -An -tx1 | tr -d ' \n'; }

# start_helpers TAG: one helper per hostile name, all on the CPU $HCPU (when set); SPEC, HPIDS
start_helpers() {
	local i hex p
	for i in "${!HNAMES[@]}"; do
		hex=$(hexname "${HNAMES[i]}")
		${HCPU:+taskset -c "$HCPU"} python3 tests/hostile.py "$hex" "$T/ready.$1.$i" 60 &
		p=$!
		PIDS+=("$p"); HPIDS+=("$p")
		SPEC+="${SPEC:+,}$p=$hex"
	done
	for i in "${!HNAMES[@]}"; do
		wait_for 10 test -e "$T/ready.$1.$i" || { bad "names: helper $i ($1) not ready"; return 1; }
	done
}

# The buffer per CPU of the names tests' memtraces, KiB. The 26 helpers end at once, on one
# CPU: about 3 MB of page-free records in its buffer (2.9-3.1 MB, 102-108 thousand records
# in per_cpu/cpuN/stats, measured), more than the default 2048 KiB. The --exits memtraces
# do not read meanwhile (frozen, as a loaded machine may leave them): the buffer alone must
# hold it all, with room for the machine's other events. With 2048 KiB, on a loaded machine
# the kernel dropped events, exits among them (said: "# N events lost so far"), and an exit
# line was missing (issue 36, 10).
NAMES_BUFFER_KB=8192

names_tests() {
	local before after rc res p i hex pt pj pe pf comm bad_comm=0 lost HCPU
	before=$(tfs_state)
	HPIDS=() SPEC=
	# the helpers on one CPU: their exits' burst in one buffer, not split as it happens to be
	HCPU=$(taskset -cp $$ 2>/dev/null | sed -n 's/.*: *\([0-9]*\).*/\1/p')
	# seeded: renamed before memtrace starts (comm read from /proc)
	start_helpers seeded || return
	for p in "${HPIDS[@]}"; do
		i=${SPEC#*"$p="}; hex=${i%%,*}
		comm=$(od -An -tx1 < "/proc/$p/comm" | tr -d ' \n')
		[ "$comm" = "${hex}0a" ] || { bad_comm=1; bad "names: /proc/$p/comm is $comm, want ${hex}0a"; }
	done
	[ "$bad_comm" = 0 ] && ok "names: ${#HNAMES[@]} helpers renamed (/proc/PID/comm checked)"
	start_named ntext -f text -n 0 -b "$NAMES_BUFFER_KB" -o "$T/names.txt" || { bad "names: memtrace (text) did not start: $(head -2 "$T/ntext.err")"; return; }
	pt=$MTPID
	start_named njson -f json -n 0 -b "$NAMES_BUFFER_KB" -o "$T/names.json" || { bad "names: memtrace (json) did not start"; return; }
	pj=$MTPID
	start_named nexits --exits -f text -b "$NAMES_BUFFER_KB" || { bad "names: memtrace --exits did not start"; return; }
	pe=$MTPID
	start_named nexitsj --exits -f json -b "$NAMES_BUFFER_KB" || { bad "names: memtrace --exits -f json did not start"; return; }
	pf=$MTPID
	# live: renamed while traced (task_rename events)
	start_helpers live || return
	# every helper renamed and touched its pages before its ready file: in the buffers,
	# which the stop drains to the end
	kill -TERM "$pt" "$pj"
	wait_exit "$pt"; rc=$?
	check "names: text memtrace exits 0" test "$rc" = 0
	wait_exit "$pj"; rc=$?
	check "names: json memtrace exits 0" test "$rc" = 0
	# the --exits memtraces do not read while the helpers end (SIGSTOP): what a loaded
	# machine may do to them at any time, here for certain. Each exit is in the buffers
	# when wait returns, and must be in the output: the stop drains them to the end.
	kill -STOP "$pe" "$pf"
	for p in "${HPIDS[@]}"; do kill -TERM "$p" 2>/dev/null; done
	for p in "${HPIDS[@]}"; do wait "$p" 2>/dev/null; done
	kill -TERM "$pe" "$pf"
	kill -CONT "$pe" "$pf"
	wait_exit "$pe"; wait_exit "$pf"

	res=$(rb ctl "$T/names.txt")
	check "names: text report has no raw control or non-ASCII bytes${res:+ (found: $res)}" test -z "$res"
	res=$(rb names_text "$T/names.txt" "$SPEC" 2>&1 | tail -1)
	check "names: text task rows have the header's columns and the names, README-escaped (${res:0:900})" \
		test "${res%% *}" = ok
	res=$(rb names_json "$T/names.json" "$SPEC" 2>&1 | tail -1)
	check "names: JSON parses and holds the names as README decodes them (${res:0:900})" test "$res" = ok
	lost=$(rb lost_said "$T/nexits.out" "$T/nexitsj.out")
	check "names: the --exits memtraces lost no events (their buffers hold the helpers' exits${lost:+; $lost})" \
		test -z "$lost"
	res=$(rb ctl "$T/nexits.out")
	check "names: --exits text has no raw control or non-ASCII bytes${res:+ (found: $res)}" test -z "$res"
	res=$(rb exits_text "$T/nexits.out" "$SPEC" 2>&1 | tail -1)
	check "names: --exits text rows have the header's columns and the names (${res:0:900})" \
		test "${res%% *}" = ok
	res=$(rb exits_json "$T/nexitsj.out" "$SPEC" 2>&1 | tail -1)
	check "names: --exits -f json lines parse and hold the names (${res:0:900})" test "$res" = ok
	after=$(tfs_state)
	check "names: tracefs identical afterwards" test "$before" = "$after"
}

# ================================================================ 3. bad option values
opts_tests() {
	local a rc before after made lines first second
	local -a args
	local long; long=$(printf 'a%.0s' $(seq 300))
	if [ -n "${TFS:-}" ]; then before=$(tfs_state); fi
	while IFS= read -r a; do
		[ -n "$a" ] || continue
		eval "args=($a)"
		case $a in
		*--instance*) ;;
		*) args=(--instance "$INST-opt" "${args[@]}") ;;
		esac
		timeout -s TERM 5 "$MT" "${args[@]}" > "$T/usage.out" 2> "$T/usage.err" < /dev/null; rc=$?
		lines=$(wc -l < "$T/usage.err")
		first=$(sed -n 1p "$T/usage.err"); second=$(sed -n 2p "$T/usage.err")
		if [ "$rc" = 2 ] && [ "$lines" = 2 ] && [[ "$first" == "memtrace: "* ]] &&
		   [ "$second" = "Try 'memtrace --help' for more information." ]; then
			ok "bad option $a: exit 2, '$first'"
		else
			bad "bad option $a: want exit 2 and one 'memtrace:' line + the Try line; got exit $rc: $(head -c 300 "$T/usage.err" | tr '\n' '|')"
		fi
		case $a in
		--bogus|-z|--help=x|--version=1)
			grep -qF -- "${a%%=*}" <<< "$first" ||
				bad "bad option $a: the message does not name the option as given: $first" ;;
		esac
	done <<-EOF
	-b 0
	-b abc
	-b 99999999999
	-b ''
	-b -5
	-n -1
	-n 1x
	-n 99999999999999999999
	-f xml
	-f ''
	--max-tasks 1
	--max-tasks 4294967297
	--max-modules 0
	--max-modules -1
	--instance ../x
	--instance ''
	--instance .
	--instance ..
	--instance $long
	--exits --pid 0
	--exits --pid -3
	--exits --comm ''
	--exits --comm 0123456789abcdef
	--by thread
	--by ''
	--no-wait
	--
	--bogus
	-z
	--help=x
	--version=1
	-o ''
	--pidfile ''
	--record ''
	--replay ''
	--pid 5
	--output
	EOF
	if [ -n "${TFS:-}" ]; then
		after=$(tfs_state)
		check "bad options: tracefs identical afterwards, no $INST-opt instance" \
			test "$before" = "$after"
		# the names the bad options give outside $INST*: 300 a's (a cut of them, if any)
		made=$(own_instances "$long" "${long:0:60}" "${long:0:255}" | cut -c1-20 | tr '\n' ' ')
		check "bad options: no instance of the names they give created${made:+ (there: $made)}" \
			test -z "$made"
	else
		skip_live "bad options: no tracefs to compare"
	fi
}

# ================================================================ 4. the log path
log_symlink_test() {
	local before after rc
	before=$(tfs_state)
	printf 'precious\n' > "$T/victim"; printf 'precious2\n' > "$T/victim2"
	ln -s "$T/victim" "$T/sym.log"
	start_named sym -n 3 -o "$T/sym.log" || { bad "log symlink: memtrace did not start"; return; }
	kill -USR2 "$MTPID"
	wait_for 5 grep -q 'trigger: SIGUSR2' "$T/sym.log" 2>/dev/null
	check "log symlink: SIGUSR2 leaves the symlink's target unchanged" \
		test "$(cat "$T/victim")" = precious
	check "log symlink: the log path is now a regular file with the report" \
		test -f "$T/sym.log" -a ! -L "$T/sym.log"
	check "log symlink: mode 0600" test "$(stat -c %a "$T/sym.log")" = 600
	# planted again between two reports, and a hard link to another file
	rm -f "$T/sym.log"; ln -s "$T/victim2" "$T/sym.log"
	kill -TERM "$MTPID"; wait_exit "$MTPID"; rc=$?
	check "log symlink: SIGTERM exits 0" test "$rc" = 0
	check "log symlink: the final report does not follow a symlink planted after the first" \
		test "$(cat "$T/victim")" = precious -a "$(cat "$T/victim2")" = precious2
	check "log symlink: the final report replaced the symlink" \
		test -f "$T/sym.log" -a ! -L "$T/sym.log" -a -n "$(grep -l 'trigger: SIGTERM' "$T/sym.log")"
	printf 'precious3\n' > "$T/victim3"; ln "$T/victim3" "$T/hard.log"
	start_named hard -n 3 -o "$T/hard.log" || { bad "log hard link: memtrace did not start"; return; }
	kill -TERM "$MTPID"; wait_exit "$MTPID"
	check "log hard link: the other name's content is unchanged" test "$(cat "$T/victim3")" = precious3
	after=$(tfs_state)
	check "log symlink: tracefs identical afterwards" test "$before" = "$after"
}

# out_refused NAME WHAT MESSAGE ARGS...: memtrace ARGS with an output it cannot write (the
# test build, its setup held 1.5 s: an instance made is seen): exit 1 at once with MESSAGE
# (fixed text) on stderr, its instance never made, a COMMAND (touch $T/NAME.ran) never run,
# the good log $T/NAME.log not made, no temporary file left in $T. Before: the daemon
# traced until TERM and lost its report (exit 0), command mode ran COMMAND first.
out_refused() {
	local name=$1 what=$2 msg=$3 rc seen=0 i pid; shift 3
	MEMTRACE_TEST_SETUP_DELAY_MS=1500 "$MT_HOOKS" --instance "$INST-$name" "$@" \
		> "$T/$name.out" 2> "$T/$name.err" < /dev/null &
	pid=$!
	PIDS+=("$pid")
	for ((i = 0; i < 300; i++)); do
		[ -d "$TFS/instances/$INST-$name" ] && seen=1
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.01
	done
	kill -TERM "$pid" 2>/dev/null
	wait_exit "$pid"; rc=$?
	check "refused before tracing: $what: exit 1 ($rc: $(head -1 "$T/$name.err" | cut -c1-200))" \
		test "$rc" = 1
	check "refused before tracing: $what: said, the option and path named" \
		grep -qF -- "$msg" "$T/$name.err"
	check "refused before tracing: $what: its instance never made" \
		test "$seen" = 0 -a ! -d "$TFS/instances/$INST-$name"
	check "refused before tracing: $what: no COMMAND run, no log made, no temporary file left" \
		test ! -e "$T/$name.ran" -a ! -e "$T/$name.log" -a -z "$(find "$T" -maxdepth 1 -name '.*')"
}

# Every output path is checked before tracing starts (issue 23, 1)
out_refused_tests() {
	local before after ro M=$T/missing
	before=$(tfs_state)
	echo regular > "$T/afile"
	mkdir "$T/isdir.log"
	out_refused o-missing "daemon -o in a missing directory" \
		"-o $M/log: cannot create a file in $M: No such file or directory" -n 3 -o "$M/log"
	out_refused o-notdir "daemon -o below a regular file" \
		"-o $T/afile/log: cannot create a file in $T/afile: Not a directory" -o "$T/afile/log"
	out_refused o-isdir "daemon -o a directory" "-o $T/isdir.log: $T/isdir.log: is a directory" \
		-o "$T/isdir.log"
	ro=$T/ro; mkdir "$ro"
	if mount --bind "$ro" "$ro" 2>/dev/null; then
		MOUNTS+=("$ro")
		if mount -o remount,bind,ro "$ro" 2>/dev/null && ! touch "$ro/probe" 2>/dev/null; then
			out_refused o-rofs "daemon -o on a read-only bind mount" \
				"-o $ro/log: cannot create a file in $ro: Read-only file system" -o "$ro/log"
		else
			skip "log on a read-only mount: cannot remount a bind mount read-only here"
		fi
		umount "$ro" && unset 'MOUNTS[-1]'
	else
		skip "log on a read-only mount: mount --bind not permitted"
	fi
	ln -s "$T/afile" "$T/sym.jsonl"
	out_refused o-jsonl-symlink "daemon --interval -f json -o a symlink" \
		"-o $T/sym.jsonl: appending to $T/sym.jsonl: is a symlink: not followed" \
		--interval 1 -f json -o "$T/sym.jsonl"
	out_refused prom "--prometheus in a missing directory" \
		"--prometheus $M/m.prom: cannot create a file in $M" \
		--prometheus "$M/m.prom" -o "$T/prom.log"
	out_refused record "--record in a missing directory" \
		"--record $M/rec: cannot make a directory in $M" --record "$M/rec" -o "$T/record.log"
	out_refused stream "--stream -o in a missing directory" "$M/s.jsonl: No such file" \
		--stream --all -o "$M/s.jsonl"
	out_refused pidfile "--daemon --pidfile in a missing directory" \
		"--pidfile $M/pid: cannot create a file in $M" --daemon --pidfile "$M/pid" \
		-o "$T/pidfile.log"
	out_refused cmd "command mode -o in a missing directory" \
		"-o $M/r.txt: cannot create a file in $M" -o "$M/r.txt" -- touch "$T/cmd.ran"
	out_refused cmd-stream "--stream -o in a missing directory with a COMMAND" \
		"$M/s.jsonl: No such file" --stream -o "$M/s.jsonl" -- touch "$T/cmd-stream.ran"
	check "refused before tracing: the symlink's target untouched" test "$(cat "$T/afile")" = regular
	after=$(tfs_state)
	check "refused before tracing: tracefs identical afterwards" test "$before" = "$after"
}

# The log's directory removed during the run: the final report goes to stderr, after the
# line that says so, and memtrace exits 1 (issue 23, 1). Before: lost, exit 0.
out_gone_tests() {
	local before after rc D=$T/gone n_note n_rep pid f
	before=$(tfs_state)
	mkdir "$D"
	start_named gone -n 3 -o "$D/log" || { bad "log removed: memtrace did not start: $(head -2 "$T/gone.err")"; return; }
	rm -rf "$D"
	kill -TERM "$MTPID"; wait_exit "$MTPID"; rc=$?
	check "log removed, daemon: SIGTERM exits 1 ($rc)" test "$rc" = 1
	n_note=$(grep -n -m1 "final report not written: cannot create a file in $D: No such file or directory; it follows on stderr instead" "$T/gone.err" | cut -d: -f1)
	n_rep=$(grep -n -m1 "report (trigger: SIGTERM, live)" "$T/gone.err" | cut -d: -f1)
	check "log removed, daemon: said, then the whole final report on stderr (lines ${n_note:-none}, ${n_rep:-none})" \
		eval '[ -n "$n_note" ] && [ -n "$n_rep" ] && [ "$n_note" -lt "$n_rep" ] && grep -q "^memtrace itself: " "$T/gone.err"'
	# command mode, the directory removed by the command itself: exit 1, not its 0
	mkdir "$D"
	"$MT" --instance "$INST-gonec" -o "$D/r.txt" -- sh -c 'rm -rf "$1"' sh "$D" \
		> "$T/gonec.out" 2> "$T/gonec.err"; rc=$?
	check "log removed, command mode: exit 1 instead of the command's 0 ($rc)" test "$rc" = 1
	n_note=$(grep -n -m1 "command report not written: cannot create a file in $D: No such file or directory; it follows on stderr instead" "$T/gonec.err" | cut -d: -f1)
	n_rep=$(grep -n -m1 "^memtrace .* command report$" "$T/gonec.err" | cut -d: -f1)
	check "log removed, command mode: said, then the command report on stderr (lines ${n_note:-none}, ${n_rep:-none})" \
		eval '[ -n "$n_note" ] && [ -n "$n_rep" ] && [ "$n_note" -lt "$n_rep" ] && grep -q "^exit status: 0$" "$T/gonec.err"'
	# --daemon with its stderr a pipe (let go at the start, /dev/null since): the report in
	# a new file in $TMPDIR, and the kernel log says where
	mkdir "$D" "$T/tmpd"
	TMPDIR=$T/tmpd "$MT" --daemon --instance "$INST-goned" --pidfile "$T/goned.pid" -n 3 \
		-o "$D/log" 2>&1 | cat > "$T/goned.out"
	pid=$(cat "$T/goned.pid" 2> /dev/null)
	if [ -z "$pid" ]; then
		bad "log removed, --daemon: did not start: $(head -2 "$T/goned.out")"
	else
		rm -rf "$D"
		kill -TERM "$pid"
		wait_for 20 eval '! kill -0 "$pid" 2> /dev/null'
		f=$(ls "$T/tmpd"/memtrace-final.* 2> /dev/null | head -1)
		check "log removed, --daemon (stderr let go): the final report in \$TMPDIR/memtrace-final.* (${f:-none})" \
			eval '[ -n "$f" ] && grep -q "report (trigger: SIGTERM, live)" "$f" && grep -q "^memtrace itself: " "$f"'
		check "log removed, --daemon: the kernel log says where" \
			eval 'dmesg 2> /dev/null | grep -qF "final report not written: cannot create a file in $D: No such file or directory; it is in $f instead"'
	fi
	after=$(tfs_state)
	check "log removed: tracefs identical afterwards" test "$before" = "$after"
}

# --replay DIR -o FILE: the report in FILE, replaced atomically as the log file, nothing on
# stdout (issue 23, 5); FILE unwritable: exit 1 before the replay, nothing on stdout.
# Before: -o was ignored, the report on stdout.
replay_out_test() {
	local R=tests/fixtures/debian-6.1-boot rc
	echo regular > "$T/afile"
	"$MT" --replay "$R" -n 3 > "$T/rp-std.out" 2> /dev/null
	ln -s "$T/afile" "$T/rp.txt"
	"$MT" --replay "$R" -n 3 -o "$T/rp.txt" > "$T/rp.out" 2> "$T/rp.err"; rc=$?
	check "replay -o: exit 0 ($rc: $(head -1 "$T/rp.err"))" test "$rc" = 0
	check "replay -o: nothing on stdout ($(wc -c < "$T/rp.out") bytes)" test ! -s "$T/rp.out"
	check "replay -o: the report in FILE" grep -q "^memtrace .* report (trigger: replay, replay)$" "$T/rp.txt"
	check "replay -o: the events processed as on stdout ($(grep -m1 "^events processed" "$T/rp.txt" | cut -c1-60))" \
		test -n "$(grep -m1 "^events processed" "$T/rp.txt")" -a \
		"$(grep -m1 "^events processed" "$T/rp.txt")" = "$(grep -m1 "^events processed" "$T/rp-std.out")"
	check "replay -o: written as the log file (a symlink there replaced, not followed; mode 0600)" \
		test ! -L "$T/rp.txt" -a "$(stat -c %a "$T/rp.txt")" = 600 -a "$(cat "$T/afile")" = regular
	"$MT" --replay "$R" -f json -o "$T/rp.json" > "$T/rp.out" 2> "$T/rp.err"; rc=$?
	check "replay -f json -o: exit 0, nothing on stdout, JSON in FILE ($rc)" \
		eval 'test "$rc" = 0 -a ! -s "$T/rp.out" -a "$(json "$T/rp.json" "d[\"trigger\"]")" = replay'
	"$MT" --replay "$R" -o "$T/missing/rp.txt" > "$T/rp.out" 2> "$T/rp.err"; rc=$?
	check "replay -o in a missing directory: exit 1, said, nothing on stdout ($rc: $(head -1 "$T/rp.err"))" \
		eval 'test "$rc" = 1 -a ! -s "$T/rp.out" && grep -qF -- "-o $T/missing/rp.txt: cannot create a file in $T/missing" "$T/rp.err"'
}

log_full_test() {
	local before after F=$T/full rc sum
	before=$(tfs_state)
	mkdir "$F"
	if ! mount -t tmpfs -o size=64k,nr_inodes=32,mode=0755 tmpfs "$F" 2>/dev/null; then
		skip "log on a full filesystem: cannot mount a tmpfs"; return
	fi
	MOUNTS+=("$F")
	start_named full -n 5 -o "$F/log" || { bad "log full fs: memtrace did not start"; umount "$F"; unset 'MOUNTS[-1]'; return; }
	kill -USR2 "$MTPID"
	wait_for 5 grep -q 'trigger: SIGUSR2' "$F/log" 2>/dev/null
	check "log full fs: a good log written while there is room" grep -q 'trigger: SIGUSR2' "$F/log"
	sum=$(md5sum < "$F/log")
	dd if=/dev/zero of="$F/fill" bs=4096 2>/dev/null
	dd if=/dev/zero of="$F/fill2" bs=1 2>/dev/null
	check "log full fs: the filesystem is full ($(df -k "$F" | awk 'NR==2 { print $4 }') KiB free)" \
		test "$(df -k "$F" | awk 'NR==2 { print $4 }')" = 0
	cp "$T/full.err" "$T/full.err.before"
	kill -USR2 "$MTPID"
	wait_for 5 eval "[ \$(grep -c '$F/log' '$T/full.err') -gt \$(grep -c '$F/log' '$T/full.err.before') ]"
	check "log full fs: SIGUSR2 gives a clear error ($(grep "$F" "$T/full.err" | tail -1 | cut -c1-160))" \
		grep -q "^memtrace: .*$F.*\(No space\|space\)" "$T/full.err"
	sleep 0.2
	check "log full fs: memtrace still running" kill -0 "$MTPID"
	check "log full fs: the earlier log is intact" test "$(md5sum < "$F/log")" = "$sum"
	check "log full fs: no temporary file left" test -z "$(find "$F" -name '.log.*')"
	kill -TERM "$MTPID"; wait_exit "$MTPID"; rc=$?
	check "log full fs: SIGTERM exits 1: the final report is not in the log file ($rc)" test "$rc" = 1
	check "log full fs: the final report did not replace the good log by a partial one" \
		test "$(md5sum < "$F/log")" = "$sum"
	check "log full fs: ... it is on stderr, after the line that says why" \
		eval 'grep -A1 "final report not written: .*$F.*; it follows on stderr instead" "$T/full.err" |
			grep -q "report (trigger: SIGTERM, live)"' 
	check "log full fs: no temporary file left after the final report" test -z "$(find "$F" -name '.log.*')"
	umount "$F" && unset 'MOUNTS[-1]'
	after=$(tfs_state)
	check "log full fs: tracefs identical afterwards" test "$before" = "$after"
}

# ================================================================ main
if [ ! -x "$MT" ] || [ ! -x "$MT_HOOKS" ]; then
	echo "build memtrace first (make memtrace build/tests/memtrace-hooks build/tests/workload)"
	exit 1
fi
find_tracefs
replay_tests; symlink_named_test; lap "replays"
opts_tests; lap "bad options"
replay_out_test; lap "replay -o"
if can_trace "hostile names and log path tests"; then
	names_tests; lap "hostile names"
	log_symlink_test
	out_refused_tests
	out_gone_tests
	log_full_test; lap "log path"
fi
echo "# runtime $(( ($(date +%s%N) - T0) / 1000000 )) ms"
summary
[ "$fail" = 0 ]
