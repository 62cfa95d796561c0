#!/usr/bin/env bash
# The whole test suite: install what is missing, build, start a throwaway
# cluster, then run pg_regress (expected/) and the isolation specs
# (test/specs), the pgTAP specs (test/pgtap),
# the standalone C unit tests (test/unit), a bounded fuzz run (test/fuzz)
# and the client's tests (test/client).  Ends with "N passed, N failed".
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

# run NAME COMMAND...: one suite; its output goes to .cluster/NAME.log
run() {
	local name=$1
	shift
	iso_log "$name"
	if "$@" >"$ISO_CLUSTER_DIR/$name.log" 2>&1; then
		passed=$((passed + 1))
		printf '    ok   %s\n' "$name" >&2
	else
		failed=$((failed + 1))
		failures+=("$name")
		printf '    FAIL %s (log follows; kept in failed-logs/%s.log)\n' "$name" "$name" >&2
		mkdir -p "$ISO_ROOT/failed-logs"
		cp "$ISO_CLUSTER_DIR/$name.log" "$ISO_ROOT/failed-logs/" 2>/dev/null || true
		# the failed checks first (TAP), then the end of the log
		grep -n -A4 '^not ok' "$ISO_CLUSTER_DIR/$name.log" | head -n 60 >&2 || true
		tail -n 60 "$ISO_CLUSTER_DIR/$name.log" >&2
		[ -f "$ISO_ROOT/regression.diffs" ] && [ "$name" = regress ] && head -n 200 "$ISO_ROOT/regression.diffs" >&2
	fi
	return 0
}

pgtap() {
	psql -X -q -v ON_ERROR_STOP=1 -c "CREATE DATABASE isograph_tap" &&
		psql -X -q -v ON_ERROR_STOP=1 -d isograph_tap \
			-c "CREATE EXTENSION pgtap; CREATE EXTENSION isograph" &&
		pg_prove -d isograph_tap "$ISO_ROOT"/test/pgtap/*.sql
}

cd "$ISO_ROOT"
run layout make -s layout
run regress make -s installcheck
run pgtap pgtap
run unit make -s unit
run sanitize make -s sanitize
run fuzz make -s fuzz FUZZ_SECONDS="${FUZZ_SECONDS:-30}"
run hardening test/hardening/run.sh
if [ -d test/client ]; then
	run client make -s -C client check
fi

echo
[ ${#failures[@]} -gt 0 ] && echo "failed suites: ${failures[*]}"
echo "suites: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
