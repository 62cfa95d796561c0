#!/usr/bin/env bash
# The whole test suite: install what is missing, build, start a throwaway
# cluster, then run pg_regress (expected/) and the isolation specs
# (test/specs), the pgTAP specs (test/pgtap),
# the standalone C unit tests (test/unit), a bounded fuzz run (test/fuzz),
# the client's tests (test/client) and the README's examples (test/readme).
# Prints each suite's passed/total checks and seconds (e.g. "ok   regress
# 22/22 (40 s)") and ends with "N passed, N failed".  unit and sanitize
# use both cores (make -j2); the fuzzers, which need no cluster, run one at
# a time beside the cluster's suites, which use about one core.
#
#   tools/test.sh                  everything
#   FUZZ_SECONDS=10 tools/test.sh  shorter fuzzing (default 30 s per target)
#
# Others' example histories are not in the repository: the tests that use
# them read them in place from ../shared/data beside the checkout, or from
# $ISO_SHARED_DATA, and print a SKIPPED line where they are absent.
. "$(dirname "$0")/common.sh"

# gdb: the client tests replay PostgreSQL's SSI commit race (tools/ssi-race.sh)
iso_install_packages clang libclang-rt-14-dev gdb
iso_build
iso_cluster_start

passed=0
failed=0
failures=()

# counts LOG: "passed/total" of the checks a suite's log reports, from the
# forms it has: unit-test summaries ("# name: N passed, M failed"),
# pg_regress lines ("test name ... ok"), pg_prove's "Files=F, Tests=N"
# (with "Failed M/N subtests"), or bare TAP lines ("ok N", "not ok N").
counts() {
	awk '
		/^# [^ ]+: [0-9]+ passed, [0-9]+ failed/ { sp += $3; sf += $5; next }
		/^(test|     ) *[^ ]+ +\.\.\. ok/ { sp++; next }
		/^(test|     ) *[^ ]+ +\.\.\. FAILED/ { sf++; next }
		/^Files=[0-9]+, Tests=[0-9]+/ { split($2, a, "="); pt += a[2] + 0; next }
		/Failed [0-9]+\/[0-9]+ subtests/ { match($0, /Failed [0-9]+/); pf += substr($0, RSTART + 7, RLENGTH - 7); next }
		/^ok [0-9]+( |$)/ || /^ok - / { tp++; next }
		/^not ok [0-9]+( |$)/ || /^not ok - / { if ($0 ~ /# TODO/) tp++; else tf++; next }
		END {
			# prove summarises the TAP lines it shows: count one or the other
			if (pt > 0) { p = sp + pt - pf; f = sf + pf } else { p = sp + tp; f = sf + tf }
			if (p + f > 0) printf "%d/%d", p, p + f
		}' "$1"
}

# report NAME RC SECONDS: count a suite that ended with exit code RC
report() {
	local name=$1 rc=$2 secs=$3
	if [ "$rc" -eq 0 ]; then
		passed=$((passed + 1))
		printf '    ok   %s %s (%d s)\n' "$name" "$(counts "$ISO_CLUSTER_DIR/$name.log")" "$secs" >&2
	else
		failed=$((failed + 1))
		failures+=("$name")
		printf '    FAIL %s %s (%d s; log follows; kept in failed-logs/%s.log)\n' "$name" \
			"$(counts "$ISO_CLUSTER_DIR/$name.log")" "$secs" "$name" >&2
		mkdir -p "$ISO_ROOT/failed-logs"
		cp "$ISO_CLUSTER_DIR/$name.log" "$ISO_ROOT/failed-logs/" 2>/dev/null || true
		# the failed checks first (TAP), then the end of the log
		grep -n -A4 '^not ok' "$ISO_CLUSTER_DIR/$name.log" | head -n 60 >&2 || true
		tail -n 60 "$ISO_CLUSTER_DIR/$name.log" >&2
		[ -f "$ISO_ROOT/regression.diffs" ] && [ "$name" = regress ] && head -n 200 "$ISO_ROOT/regression.diffs" >&2
	fi
	return 0
}

# run NAME COMMAND...: one suite; its output goes to .cluster/NAME.log
run() {
	local name=$1 start=$SECONDS rc=0
	shift
	iso_log "$name"
	"$@" >"$ISO_CLUSTER_DIR/$name.log" 2>&1 || rc=$?
	report "$name" "$rc" $((SECONDS - start))
}

# start_background NAME COMMAND...: a suite that needs no cluster, run on
# the second core while the cluster's suites (about one core) go on;
# finish_background NAME waits for it and counts it.
declare -A bg_pid bg_start
start_background() {
	local name=$1
	shift
	iso_log "$name (in the background)"
	bg_start[$name]=$SECONDS
	"$@" >"$ISO_CLUSTER_DIR/$name.log" 2>&1 &
	bg_pid[$name]=$!
}
finish_background() {
	local name=$1 rc=0
	wait "${bg_pid[$name]}" || rc=$?
	report "$name" "$rc" $((SECONDS - bg_start[$name]))
}

pgtap() {
	psql -X -q -v ON_ERROR_STOP=1 -c "CREATE DATABASE isograph_tap" &&
		psql -X -q -v ON_ERROR_STOP=1 -d isograph_tap \
			-c "CREATE EXTENSION pgtap; CREATE EXTENSION isograph" &&
		pg_prove -d isograph_tap "$ISO_ROOT"/test/pgtap/*.sql
}

cd "$ISO_ROOT"
run layout make -s layout
# the standalone suites first, two cores each (make -j2); then the fuzzers,
# one at a time, beside the suites that use the cluster
run unit make -s unit
run sanitize make -s sanitize
start_background fuzz make -s -C test/fuzz run FUZZ_SECONDS="${FUZZ_SECONDS:-30}"
run regress make -s installcheck
run pgtap pgtap
run hardening test/hardening/run.sh
if [ -d test/client ]; then
	run client make -s -C client check
fi
run readme test/readme/run.sh
finish_background fuzz

echo
[ ${#failures[@]} -gt 0 ] && echo "failed suites: ${failures[*]}"
echo "suites: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
