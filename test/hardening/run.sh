#!/usr/bin/env bash
# test/hardening/run.sh: the cancellation, memory-limit, concurrency, two-thread inference and
# SQL-shape (NULL arguments, load and check in one statement, parallel
# queries), damage and encodings (databases of encoding UTF8, LATIN1 and
# EUC_JP, dumped and restored) tests against the server in PGHOST/PGPORT/PGUSER (a superuser; the
# extension must be installed on the server: make install).  They run in a
# fresh database isograph_hardening (CREATE EXTENSION isograph), dropped at
# the end.  Ends with "N passed, N failed" (TAP checks; "# TODO" lines are
# known bugs, listed but not counted as failures; "# SKIP" lines are timing
# cases the machine's load made moot).  About 3 minutes on 2 shared cores.
# Generates its histories with bench/isograph-gen (built if missing).
#
#   test/hardening/run.sh                 all tests
#   test/hardening/run.sh cancel memory   some of them (also: concurrency sql_shapes damage encodings tenancy stream_memory parallel_inference)
set -uo pipefail
DIR=$(cd "$(dirname "$0")" && pwd)
export HARDENING_WORK
HARDENING_WORK=$(mktemp -d /tmp/isograph-hardening.XXXXXX)
chmod 755 "$HARDENING_WORK"
export PGDATABASE=isograph_hardening
cleanup() {
	psql -X -q -d postgres -c "DROP DATABASE IF EXISTS isograph_hardening WITH (FORCE)" >/dev/null 2>&1
	rm -rf "$HARDENING_WORK"
}
trap cleanup EXIT
psql -X -q -d postgres -c "DROP DATABASE IF EXISTS isograph_hardening WITH (FORCE)" -c "CREATE DATABASE isograph_hardening" &&
	psql -X -q -v ON_ERROR_STOP=1 -c "CREATE EXTENSION isograph" ||
	{ echo "cannot create database isograph_hardening with the extension"; echo "0 passed, 1 failed"; exit 1; }

tests=("$@")
[ ${#tests[@]} -gt 0 ] || tests=(cancel search_cancel memory realtime_memory concurrency sql_shapes damage encodings tenancy stream_memory parallel_inference)
passed=0 failed=0 todo=0 broken=()
start=$(date +%s)
for t in "${tests[@]}"; do
	echo "# --- $t"
	t0=$(date +%s)
	out=$("$DIR/$t.sh" 2>&1); rc=$?
	echo "$out"
	p=$(grep -c '^ok ' <<<"$out")
	f=$(grep '^not ok ' <<<"$out" | grep -vc '# TODO')
	d=$(grep '^not ok ' <<<"$out" | grep -c '# TODO')
	passed=$((passed + p)); failed=$((failed + f)); todo=$((todo + d))
	# a script that died without a failed check still counts as a failure
	if [ $rc -ne 0 ] && [ "$f" -eq 0 ]; then failed=$((failed + 1)); broken+=("$t"); fi
	echo "# $t: $(( $(date +%s) - t0 )) s"
done
echo "# total $(( $(date +%s) - start )) s; $todo known bug(s) marked TODO${broken:+; scripts that failed: ${broken[*]}}"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
