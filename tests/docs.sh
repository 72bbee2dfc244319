#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# docs.sh - check the documentation against the program: memtrace.8 and README.md
# against `memtrace --help` and `--version`, and the Makefile's VERSION; README.md and
# docs/*.md: size, links, every option, and every sample output (tests/docsamples.py).
#
# Run from the project root, as any user: ./tests/docs.sh
# Prints "ok - ...", "not ok - ..." or "SKIP: ..." per check, then "N passed, N failed, N skipped";
# exits 1 if a check failed. The files checked can be swapped for copies (to
# see that a check fails on a broken copy): MEMTRACE, MANPAGE, README, MAKEFILE, DOCS;
# DOCS_KEEP=1 keeps the parsed lists in /tmp/memtrace-docs.*.
set -u
export LC_ALL=C

# overrides are relative to where the script was started; the defaults to the project
abs() { case $1 in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }
for v in MEMTRACE MANPAGE README MAKEFILE DOCS; do
	[ -n "${!v:-}" ] && printf -v "$v" '%s' "$(abs "${!v}")"
done
cd "$(dirname "$0")/.." || exit 1
MEMTRACE=${MEMTRACE:-./memtrace}
MANPAGE=${MANPAGE:-memtrace.8}
README=${README:-README.md}
MAKEFILE=${MAKEFILE:-Makefile}

pass=0 fail=0 skip=0
ok() { pass=$((pass + 1)); echo "ok - $*"; }
notok() { fail=$((fail + 1)); echo "not ok - $*"; }
check() { local name=$1; shift; if "$@"; then ok "$name"; else notok "$name"; fi; }
skip() { skip=$((skip + 1)); echo "SKIP: $*"; }
# indented detail lines under a check (stay out of the ok/not ok count)
detail() { sed 's/^/#   /'; }

T=$(mktemp -d /tmp/memtrace-docs.XXXXXX) || exit 1
trap '[ -n "${DOCS_KEEP:-}" ] || rm -rf "$T"' EXIT

finish() {
	echo "$pass passed, $fail failed, $skip skipped"
	[ "$fail" -eq 0 ]
	exit
}

# ------------------------------------------------------------------ inputs --

if [ ! -x "$MEMTRACE" ]; then
	notok "$MEMTRACE is executable (run: make memtrace)"
	finish
fi
if [ ! -r "$MANPAGE" ]; then
	notok "$MANPAGE is readable"
	finish
fi
"$MEMTRACE" --help > "$T/help" 2> "$T/help.err"
check "memtrace --help exits 0 and writes nothing on stderr" \
	test $? -eq 0 -a ! -s "$T/help.err"

# The lines of a section of the man page: from ".SH NAME" up to the next .SH.
man_section() {
	awk -v want="$1" '
		/^\.SH[ \t]/ {
			name = $0
			sub(/^\.SH[ \t]+/, "", name)
			gsub(/"/, "", name)
			sub(/[ \t]+$/, "", name)
			insec = (name == want)
			next
		}
		insec { print }
	' "$MANPAGE"
}

# Roff input lines to plain text: font macros (.B, .BR, .BI, ...) with their
# arguments joined as troff joins them, escapes for hyphens and fonts removed.
roff_text() {
	awk '
		function args(s, out, n, i, c, q, cur, have) {
			n = 0; q = 0; cur = ""; have = 0
			for (i = 1; i <= length(s); i++) {
				c = substr(s, i, 1)
				if (c == "\"") {
					if (q && substr(s, i + 1, 1) == "\"") { cur = cur "\""; i++; continue }
					q = !q; have = 1; continue
				}
				if (!q && (c == " " || c == "\t")) {
					if (have) { out[++n] = cur; cur = ""; have = 0 }
					continue
				}
				cur = cur c; have = 1
			}
			if (have) out[++n] = cur
			return n
		}
		function unescape(s) {
			gsub(/\\-/, "-", s)
			gsub(/\\\(aq/, "\047", s)
			gsub(/\\\(em/, "--", s)
			gsub(/\\f\[[^]]*\]/, "", s)
			gsub(/\\f\(../, "", s)
			gsub(/\\f./, "", s)
			gsub(/\\[&c|^]/, "", s)
			gsub(/\\ /, " ", s)
			gsub(/\\e/, "\\", s)
			return s
		}
		{
			line = $0
			if (line !~ /^\./) { print unescape(line); next }
			mac = line; sub(/[ \t].*$/, "", mac); sub(/^\./, "", mac)
			rest = line; sub(/^\.[^ \t]*[ \t]*/, "", rest)
			n = args(rest, a)
			text = ""
			for (i = 1; i <= n; i++) {
				if (mac ~ /^(BR|BI|IB|IR|RB|RI)$/) text = text a[i]
				else text = text (i > 1 ? " " : "") a[i]
			}
			print unescape(text)
		}
	'
}

# The tags of the .TP/.TQ/.IP entries of a section, as plain text.
man_tags() {
	man_section "$1" | awk '
		tag { print; tag = 0; next }
		/^\.(TP|TQ)([ \t]|$)/ { tag = 1; next }
		/^\.IP[ \t]/ { sub(/^\.IP[ \t]+/, ""); print ".IP " $0 }
	' | sed 's/^\.IP \("[^"]*"\|[^ ]*\).*/.B \1/' | roff_text
}

# Option specs ("-o, --output FILE", "--pid N, --comm NAME") to one line per
# long option: "--long<TAB>ARG<TAB>-s" (ARG and -s may be empty).
spec_records() {
	awk -F', ' '
		{
			short = ""
			for (i = 1; i <= NF; i++) {
				item = $i
				sub(/^[ \t]+/, "", item); sub(/[ \t]+$/, "", item)
				if (item ~ /^-[A-Za-z0-9]$/) { short = item; continue }
				if (item !~ /^--[A-Za-z0-9]/) continue
				opt = item; sub(/[ \t].*$/, "", opt)
				arg = item; sub(/^[^ \t]*[ \t]*/, "", arg)
				# an optional value: "--kmsg[=LEVEL]" is --kmsg with "[=LEVEL]"
				if (opt ~ /\[=/) { arg = substr(opt, index(opt, "[")); sub(/\[.*$/, "", opt) }
				printf "%s\t%s\t%s\n", opt, arg, short
				short = ""
			}
			if (short != "") printf "\t\t%s\n", short
		}
	'
}

# --help: the option column of the lines that start (indented) with a dash,
# cut where two spaces start the description.
grep -E '^ {1,8}-' "$T/help" | sed -E 's/^ +//; s/ {2,}.*$//' | spec_records > "$T/help.opts"
man_tags OPTIONS | grep -E '^-' | spec_records > "$T/man.opts"

longs() { cut -f1 "$1" | grep -v '^$' | sort -u; }
shorts() { awk -F'\t' '$3 != "" { print $3 " " $1 }' "$1" | sort -u; }
longs "$T/help.opts" > "$T/help.long"
longs "$T/man.opts" > "$T/man.long"

# --------------------------------------------------------------- man page --

if command -v groff > /dev/null 2>&1; then
	groff -man -ww -z "$MANPAGE" > "$T/groff.out" 2>&1
	if [ -s "$T/groff.out" ]; then
		notok "groff -man -ww -z $MANPAGE prints no warnings"
		detail < "$T/groff.out"
	else
		ok "groff -man -ww -z $MANPAGE prints no warnings"
	fi
else
	skip "groff not installed"
fi

check "--help lists options ($(wc -l < "$T/help.long") long ones)" test -s "$T/help.long"
check "$MANPAGE has option entries in OPTIONS ($(wc -l < "$T/man.long") long ones)" \
	test -s "$T/man.long"

while read -r opt; do
	check "--help option $opt has an entry in $MANPAGE OPTIONS" grep -qxF -- "$opt" "$T/man.long"
done < "$T/help.long"
while read -r opt; do
	check "$MANPAGE OPTIONS entry $opt is in --help" grep -qxF -- "$opt" "$T/help.long"
done < "$T/man.long"

# short options: each one given with the same long option in both
shorts "$T/help.opts" > "$T/help.short"
shorts "$T/man.opts" > "$T/man.short"
check "--help has short options ($(cut -d' ' -f1 "$T/help.short" | tr '\n' ' ' | sed 's/ $//'))" \
	test -s "$T/help.short"
while read -r s l; do
	check "short option $s (${l:-no long form}) is the same in --help and $MANPAGE" \
		grep -qxF -- "$s $l" "$T/man.short"
done < "$T/help.short"
while read -r s l; do
	grep -qxF -- "$s $l" "$T/help.short" ||
		notok "$MANPAGE short option $s (${l:-no long form}) is not in --help"
done < "$T/man.short"

# the argument names, where an option is in both
join -t "$(printf '\t')" <(grep -v '^	' "$T/help.opts" | cut -f1,2 | sort) \
	<(grep -v '^	' "$T/man.opts" | cut -f1,2 | sort) |
	awk -F'\t' '$2 != $3 { print $1 ": --help \"" $2 "\", man page \"" $3 "\"" }' > "$T/args.diff"
if [ -s "$T/args.diff" ]; then
	notok "option arguments are named the same in --help and $MANPAGE OPTIONS"
	detail < "$T/args.diff"
else
	ok "option arguments are named the same in --help and $MANPAGE OPTIONS"
fi

# exit statuses: the numbers of --help's "Exit status:" sentence ("0 ok, 1 runtime
# failure, ..."), each a .TP entry in EXIT STATUS
awk '/Exit status:/ { f = 1 } f { printf "%s ", $0 } f && /\./ { exit }' "$T/help" |
	sed -E 's/^.*Exit status://; s/\.( .*)?$//' |
	grep -oE '(^|[ ,;])[0-9]+ +[A-Za-z]' | grep -oE '[0-9]+' > "$T/help.exit"
man_tags "EXIT STATUS" | grep -oE '^[0-9]+' | sort -u > "$T/man.exit"
check "--help has an Exit status line with numbers ($(tr '\n' ' ' < "$T/help.exit" | sed 's/ $//'))" \
	test -s "$T/help.exit"
while read -r n; do
	check "exit status $n of --help is in $MANPAGE EXIT STATUS" grep -qxF "$n" "$T/man.exit"
	# ... and a row of the README's table ("| 3 | ... |"): a user reads that one first
	check "exit status $n of --help is a row of README.md's exit status table" \
		grep -qE "^\| $n \| " "$README"
done < "$T/help.exit"

# ----------------------------------------------------------------- version --

version=$("$MEMTRACE" --version 2>&1)
check "memtrace --version prints \"memtrace X.Y.Z\" ($version)" \
	grep -qxE 'memtrace [0-9]+\.[0-9]+\.[0-9]+' <<< "$version"
make_version=$(sed -nE 's/^VERSION[[:space:]]*:=[[:space:]]*([^[:space:]]+).*$/\1/p' "$MAKEFILE" | head -1)
check "--version matches the Makefile's VERSION := ${make_version:-(none)}" \
	test "$version" = "memtrace ${make_version:-?}"
th=$(grep -m1 '^\.TH[ \t]' "$MANPAGE" | sed -E 's/^\.TH[ \t]+//' | awk '
	{
		n = 0; q = 0; cur = ""; have = 0
		for (i = 1; i <= length($0); i++) {
			c = substr($0, i, 1)
			if (c == "\"") { q = !q; have = 1; continue }
			if (!q && (c == " " || c == "\t")) { if (have) { a[++n] = cur; cur = ""; have = 0 } continue }
			cur = cur c; have = 1
		}
		if (have) a[++n] = cur
		print a[4]
	}')
check "$MANPAGE .TH names the same version (${th:-none})" test "$th" = "$version"

# ---------------------------------------------------------- --help's shape --

width=$(expand "$T/help" | awk '{ if (length($0) > w) w = length($0) } END { print w + 0 }')
check "--help is at most 80 columns wide ($width)" test "$width" -le 80
lines=$(wc -l < "$T/help")
check "--help is at most 50 lines long ($lines)" test "$lines" -le 50

# ------------------------------------------------------- README and docs/ --

# the pages: README.md and docs/*.md (DOCS: another directory of pages)
DOCS=${DOCS:-docs}
pages=()
[ -r "$README" ] && pages+=("$README") || notok "$README is readable"
for f in "$DOCS"/*.md; do [ -r "$f" ] && pages+=("$f"); done
if [ -r "$README" ]; then
	n=$(wc -l < "$README")
	check "$README is a user's page of at most 350 lines ($n)" test "$n" -le 350
	for f in "$DOCS"/*.md; do
		[ -r "$f" ] || continue
		check "$README links to $f" grep -qF "]($f" "$README"
	done
fi
# every option is documented for users somewhere (the man page is the full reference)
while read -r opt; do
	check "--help option $opt is in $README or $DOCS/" \
		grep -qE -- "(^|[^A-Za-z0-9-])$opt([^A-Za-z0-9-]|\$)" "${pages[@]}"
done < "$T/help.long"
# what the pages show comes out of the program (tests/docsamples.py: the sample markers)
if ! command -v python3 > /dev/null 2>&1; then
	skip "python3 not installed: the samples of the pages are not checked"
elif [ "${#pages[@]}" -gt 0 ]; then
	python3 tests/docsamples.py "$MEMTRACE" "$T/help.long" "${pages[@]}" > "$T/samples" 2>&1
	rc=$?
	while IFS= read -r line; do
		case $line in
		"ok - "*) pass=$((pass + 1)); echo "$line" ;;
		"not ok - "*) fail=$((fail + 1)); echo "$line" ;;
		*) echo "$line" ;;
		esac
	done < "$T/samples"
	grep -q '^not ok - ' "$T/samples" || [ "$rc" = 0 ] ||
		notok "tests/docsamples.py exits 0 when every check passed (exit $rc)"
fi

finish
