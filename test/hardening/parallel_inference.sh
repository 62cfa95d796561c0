#!/usr/bin/env bash
# The list-append keys of a large history inferred on two threads
# (isograph.parallel_inference, on by default from 2^18 micro-ops): the
# second thread is used (the DEBUG message), every level's rows are those
# of one thread, row for row and in the same order, on a history with
# anomalies injected all over its keys; and statement timeouts that land
# all along a check (the two threads' part among them) cancel it with
# 57014, the backend stays up, the server does not restart, and the same
# session checks again; so do timeouts in its first 30 ms, while the helper
# groups the ops of a history read from its image (which crashed the
# backend before the helper was joined ahead of the image's memory).
. "$(dirname "$0")/lib.sh"

gen_edn "$WORK/parallel.edn" --txns 50000 --processes 20 --keys 500 --seed 11 \
	--inject G0,G1a,G1b,G1c,G-single,G-nonadjacent,G2-item,lost-update,internal,incompatible-order,duplicate-elements,garbage-read \
	--inject-every 4000
id=$(load_edn hardening-parallel "$WORK/parallel.edn")
levels="pl-1 pl-2 pl-2.99 psi si ser strong-session-si strong-session-serializable strict-serializable"

# rows SETTING: every level's iso_check rows and iso_levels' rows, in order
rows() {
	psql -X -q -A -t -v ON_ERROR_STOP=1 -v id="$id" <<SQL
SET isograph.parallel_inference = $1;
$(for l in $levels; do echo "SELECT '$l', c::text FROM iso_check('$l', :id) c;"; done)
SELECT l::text FROM iso_levels(:id) l;
SQL
}
on=$(rows on)
off=$(rows off)
n_rows=$(grep -c "^ser|" <<<"$on")
diag "iso_check('ser') rows: $n_rows; all rows: $(wc -l <<<"$on")"
ok $([ -n "$on" ] && [ "$on" = "$off" ] && echo 0 || echo 1) \
	"every level's rows on two threads are those of one, in the same order"
ok $([ "$n_rows" -ge 10 ] && echo 0 || echo 1) "and they report violations ($n_rows ser rows)"
# the anomalies injected into keys all over the history, on both threads' keys
names=$(q -c "SELECT string_agg(DISTINCT anomaly, ',' ORDER BY anomaly) FROM iso_check('pl-1', $id)
	UNION ALL SELECT string_agg(DISTINCT anomaly, ',' ORDER BY anomaly) FROM iso_check('ser', $id)" | tr '\n' ',')
diag "anomalies: $names"
ok $(grep -q 'G1a' <<<"$names" && grep -q 'incompatible-order' <<<"$names" &&
	grep -q 'duplicate-elements' <<<"$names" && grep -q 'G2' <<<"$names" && echo 0 || echo 1) \
	"the injected anomalies are reported (G1a, incompatible-order, duplicate-elements, G2)"

# the second thread is used when on, not when off, nor below the size
debug() {
	psql -X -q -A -t -v id="$id" 2>&1 <<SQL
SET isograph.parallel_inference = $1;
SET client_min_messages = debug1;
SELECT count(*) FROM iso_levels($2);
SQL
}
small=$(q -c "SELECT iso_load_jepsen('hardening-parallel-small', '{:type :ok, :value [[:append 1 1] [:append 2 1]]}
{:type :ok, :value [[:r 1 [1]] [:r 2 [1]]]}')")
# (captured first: grep -q ends a pipe early, which pipefail would count)
d_on=$(debug on "$id"); d_off=$(debug off "$id"); d_small=$(debug on "$small")
diag "on: $(grep 'two threads' <<<"$d_on")"
ok $(grep -q 'inferred on two threads' <<<"$d_on" && echo 0 || echo 1) "on: the keys are inferred on two threads"
ok $(grep -q 'inferred on two threads' <<<"$d_off" && echo 1 || echo 0) "off: on one"
ok $(grep -q '^9$' <<<"$d_small" && ! grep -q 'inferred on two threads' <<<"$d_small" && echo 0 || echo 1) \
	"a small history: on one"

# the same as a role without superuser, which loads its own copy: its
# rows on two threads are those of one, and the second thread is used
q -c "DROP ROLE IF EXISTS hardening_parallel_user" >/dev/null 2>&1
q -c "CREATE ROLE hardening_parallel_user LOGIN" >/dev/null
uid=$(PGUSER=hardening_parallel_user load_edn hardening-parallel-user "$WORK/parallel.edn")
u_on=$(id=$uid PGUSER=hardening_parallel_user rows on)
u_off=$(id=$uid PGUSER=hardening_parallel_user rows off)
d_user=$(PGUSER=hardening_parallel_user debug on "$uid")
u_rows=$(grep -c "^ser|" <<<"$u_on")
ok $([ -n "$uid" ] && [ -n "$u_on" ] && [ "$u_on" = "$u_off" ] && [ "$u_rows" -eq "$n_rows" ] &&
	[ "$(q -c "SELECT rolsuper FROM pg_roles WHERE rolname = current_user")" = t ] &&
	[ "$(PGUSER=hardening_parallel_user q -c "SELECT rolsuper FROM pg_roles WHERE rolname = current_user")" = f ] &&
	echo 0 || echo 1) \
	"a role without superuser: its rows on two threads are those of one ($u_rows ser rows)"
ok $(grep -q 'inferred on two threads' <<<"$d_user" && echo 0 || echo 1) \
	"a role without superuser: the keys are inferred on two threads"
PGUSER=hardening_parallel_user q -c "SELECT iso_delete_history($uid)" >/dev/null
q -c "DROP ROLE hardening_parallel_user" >/dev/null

# timed_checks USE_IMAGE MS...: iso_levels(id) under each statement
# timeout, then the small history's check in the same session; counts the
# runs cancelled (57014) and those that went wrong (another state, or no
# next check) in $cancelled and $bad
timed_checks() {
	local use_image=$1 ms out state
	shift
	bad=0 cancelled=0
	for ms in "$@"; do
		out=$(psql -X -q -A -t -v id="$id" -v small="$small" 2>&1 <<SQL
\set ON_ERROR_STOP off
SET isograph.use_image = $use_image;
SET statement_timeout = $ms;
SELECT count(*) FROM iso_levels(:id);
\echo SQLSTATE :SQLSTATE
RESET statement_timeout;
SELECT 'next', (SELECT count(*) FROM iso_levels(:small) WHERE holds);
SQL
		)
		state=$(sed -n 's/^SQLSTATE //p' <<<"$out")
		[ "$state" = 57014 ] && cancelled=$((cancelled + 1))
		if { [ "$state" != 57014 ] && [ "$state" != 00000 ]; } || ! grep -q '^next|9$' <<<"$out"; then
			bad=$((bad + 1)); diag "timeout $ms ms: $out"
		fi
	done
}

# statement timeouts all along one check
start=$(q -c "SELECT pg_postmaster_start_time()")
full=$(fastest_check_ms "$id" 'SET isograph.use_image = off;')
diag "iso_levels from the events: $full ms uncancelled"
timeouts=()
for pct in 10 20 30 40 50 60 70 80 90; do
	ms=$(( full * pct / 100 )); [ "$ms" -lt 1 ] && ms=1
	timeouts+=("$ms")
done
timed_checks off "${timeouts[@]}"
ok $([ "$bad" -eq 0 ] && [ "$cancelled" -ge 5 ] && echo 0 || echo 1) \
	"timeouts at 10-90 % of the check: each cancelled (57014) or done, then the next check runs ($cancelled cancelled)"
# and early, while the helper groups the ops of a history read from its
# image (the image's memory is an older child of the build's context: the
# helper must be joined before it is freed)
q -c "SELECT iso_save_image($id)" >/dev/null
timed_checks on 1 2 3 5 8 12 20 30
ok $([ "$bad" -eq 0 ] && [ "$cancelled" -ge 4 ] && echo 0 || echo 1) \
	"timeouts at 1-30 ms of a check from the image: each cancelled or done, the session goes on ($cancelled cancelled)"
ok $([ "$(q -c "SELECT pg_postmaster_start_time()")" = "$start" ] && echo 0 || echo 1) \
	"the server did not restart"
finish
