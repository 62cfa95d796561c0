# test/hardening/lib.sh: shared helpers of the hardening tests (sourced).
#
# Each test talks to the server in PGHOST/PGPORT/PGUSER (extension
# installed in PGDATABASE, default postgres), prints TAP lines and exits
# non-zero when a check failed.  "not ok ... # TODO" lines are known bugs:
# reported, not counted as failures.
set -uo pipefail

HARDENING_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ISO_ROOT=$(cd "$HARDENING_DIR/../.." && pwd)
GEN=$ISO_ROOT/bench/isograph-gen
export PGDATABASE=${PGDATABASE:-postgres}
WORK=${HARDENING_WORK:-$(mktemp -d /tmp/isograph-hardening.XXXXXX)}
chmod 755 "$WORK"
[ -n "${HARDENING_WORK:-}" ] || trap 'rm -rf "$WORK"' EXIT

# Size of the big history (transactions): big enough that a check takes
# a few seconds on 2 cores, small enough to load in ~10 s.
BIG_TXNS=${HARDENING_BIG_TXNS:-60000}

tap_n=0
tap_fail=0
ok() {	# ok COND-EXIT-STATUS DESCRIPTION
	tap_n=$((tap_n + 1))
	if [ "$1" -eq 0 ]; then echo "ok $tap_n - $2"
	else echo "not ok $tap_n - $2"; tap_fail=$((tap_fail + 1)); fi
}
todo() {	# todo COND DESCRIPTION REASON: a known bug, not a failure
	tap_n=$((tap_n + 1))
	if [ "$1" -eq 0 ]; then echo "ok $tap_n - $2 # TODO $3 (passes now: drop the TODO)"
	else echo "not ok $tap_n - $2 # TODO $3"; fi
}
skip() {	# skip REASON [COUNT]
	local i
	for i in $(seq 1 "${2:-1}"); do tap_n=$((tap_n + 1)); echo "ok $tap_n # SKIP $1"; done
}
diag() { echo "# $*"; }
finish() { echo "1..$tap_n"; [ "$tap_fail" -eq 0 ]; }

q() { psql -X -q -A -t -v ON_ERROR_STOP=1 "$@"; }	# one query, bare output
now_ms() { date +%s%3N; }

# fastest_check_ms ID [SETTING]: the fastest of three iso_levels(ID) runs,
# in ms, measured in the session as statement timeouts are (a client's
# start-up is no part of it); SETTING: a SET statement run first
fastest_check_ms() {
	local full=999999 t i
	for i in 1 2 3; do
		t=$(psql -X -q -A -t -v id="$1" <<SQL | sed -n 's/^elapsed|//p'
${2:-}
SELECT pg_catalog.clock_timestamp() AS t0 \gset
SELECT count(*) FROM iso_levels(:id) \g /dev/null
SELECT 'elapsed', round(extract(epoch FROM pg_catalog.clock_timestamp() - :'t0'::timestamptz) * 1000);
SQL
		)
		[ -n "$t" ] && [ "$t" -lt "$full" ] && full=$t
	done
	echo "$full"
}

# gen_edn FILE ARGS...: a generated EDN history (builds the generator once)
gen_edn() {
	local f=$1; shift
	[ -x "$GEN" ] || make -s -C "$ISO_ROOT/bench" gen >/dev/null
	[ -s "$f" ] || "$GEN" "$@" --output "$f"
}

# load_edn NAME FILE: load through iso_load_jepsen; prints the history_id
load_edn() {
	chmod 644 "$2"
	psql -X -q -A -t -v ON_ERROR_STOP=1 -v name="$1" -v file="$2" <<'SQL'
\set edn `cat :file`
SELECT iso_load_jepsen(:'name', :'edn');
SQL
}

# big_history: id of the shared big list-append history, loaded once
# (name hardening-big) and kept for the other tests; run.sh deletes it.
big_history() {
	local id
	id=$(q -c "SELECT history_id FROM iso_history WHERE name = 'hardening-big'")
	if [ -z "$id" ]; then
		gen_edn "$WORK/big.edn" --txns "$BIG_TXNS" --processes 20 --keys 1000 --seed 7
		id=$(load_edn hardening-big "$WORK/big.edn")
	fi
	echo "$id"
}
