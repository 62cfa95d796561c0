#!/usr/bin/env bash
# Cancelling the version-order search: a black-box rw-register history (no
# version log; PolySI's shape, 30000 transactions: since the search makes
# constraints only for the pairs pruning leaves open, 2000 take 0.1 s,
# too short to cancel) whose search runs for about 2 s; statement_timeout
# and pg_cancel_backend stop iso_levels with 57014 within a few seconds
# (isograph.search_timeout left large, so the cancel, not the search's own
# timeout, ends it), the backend stays up and the same session runs the
# next query.  Memory: the search of this
# history takes about 0.4 GB.
. "$(dirname "$0")/lib.sh"

gen_edn "$WORK/blackbox-30000.edn" --workload rw-register --txns 30000 --processes 20 \
	--ops-min 15 --ops-max 15 --read-ratio 0.5 --keys 10000 --distribution zipf \
	--max-writes-per-key 1000000000 --seed 1
bb=$(load_edn hardening-blackbox "$WORK/blackbox-30000.edn")
small=$(q -c "SELECT iso_load_jepsen('hardening-search-small', '{:type :ok, :value [[:r 1 nil] [:w 1 1]]}
{:type :ok, :value [[:r 1 nil] [:w 1 2]]}')")

# the statement: the search three times over (about 2 s each here), so
# that a cancel after 1 s comes long before the end on a fast machine too
three="SELECT (SELECT count(*) FROM iso_levels(:bb)) + (SELECT count(*) FROM iso_levels(:bb)) + (SELECT count(*) FROM iso_levels(:bb));"

# the uncancelled run time: the cancels below must come well before its end
t0=$(now_ms)
psql -X -q -A -t -v ON_ERROR_STOP=1 -v bb="$bb" >/dev/null <<SQL
SET isograph.search_timeout = '10min';
$three
SQL
full=$(( $(now_ms) - t0 ))
diag "iso_levels on the black-box history: $full ms uncancelled"
# how late a cancel may land: a quarter of one search, at most 0.5 s (a
# search that ignores the cancel runs to the end of its call: a second
# and more after the cancel here)
slack=$(( full / 3 / 4 )); [ "$slack" -gt 500 ] && slack=500
if [ "$slack" -lt 100 ]; then
	skip "iso_levels takes only $full ms here: nothing to cancel" 7
	finish; exit
fi

# one session: iso_levels under a 1 s statement_timeout, then the next query
out=$(psql -X -q -A -t -v bb="$bb" -v small="$small" 2>&1 <<SQL
\set ON_ERROR_STOP off
SET isograph.search_timeout = '10min';
SET statement_timeout = '1s';
SELECT pg_catalog.clock_timestamp() AS t0 \gset
$three
\echo SQLSTATE :SQLSTATE
RESET statement_timeout;
SELECT 'elapsed', round(extract(epoch FROM pg_catalog.clock_timestamp() - :'t0'::timestamptz) * 1000);
SELECT 'next', (SELECT count(*) FROM iso_levels(:small) WHERE holds);
SQL
)
state=$(sed -n 's/^SQLSTATE //p' <<<"$out")
elapsed=$(sed -n 's/^elapsed|//p' <<<"$out")
next=$(sed -n 's/^next|//p' <<<"$out")
diag "statement_timeout 1 s: sqlstate $state after ${elapsed} ms; next: $next"
ok $([ "$state" = 57014 ] && echo 0 || echo 1) "the search of a 30000-transaction black-box history is cancelled by statement_timeout (57014)"
ok $([ "${elapsed:-99999}" -lt $(( 1000 + slack )) ] && echo 0 || echo 1) "within $slack ms of the timeout (${elapsed} ms after the start; uncancelled $full ms)"
ok $([ "$next" = 2 ] && echo 0 || echo 1) "the same session runs iso_levels on another history afterwards"

# pg_cancel_backend from another session, 1 s into the search
psql -X -q -A -t -v bb="$bb" -v small="$small" >"$WORK/search-victim.out" 2>&1 <<SQL &
\set ON_ERROR_STOP off
SET application_name = 'hardening-search-victim';
SET isograph.search_timeout = '10min';
$three
\echo SQLSTATE :SQLSTATE
SELECT 'after', round(extract(epoch FROM pg_catalog.clock_timestamp()) * 1000);
SELECT 'next', (SELECT count(*) FROM iso_levels(:small) WHERE holds);
SQL
victim=$!
for i in $(seq 1 100); do
	[ "$(q -c "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'hardening-search-victim' AND state = 'active' AND query LIKE '%iso_levels%'")" = 1 ] && break
	sleep 0.05
done
sleep 1
# server clock when the cancel is sent, and in the victim right after its error
t0=$(q -c "SELECT round(extract(epoch FROM pg_catalog.clock_timestamp()) * 1000) FROM (SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE application_name = 'hardening-search-victim' AND state = 'active') c")
wait "$victim"
t1=$(sed -n 's/^after|//p' "$WORK/search-victim.out")
lat=$(( ${t1:-99999999999999} - ${t0:-0} ))
diag "pg_cancel_backend: $(tr '\n' ' ' <"$WORK/search-victim.out") (${lat} ms)"
ok $(grep -q '^SQLSTATE 57014' "$WORK/search-victim.out" && echo 0 || echo 1) "pg_cancel_backend stops the search (57014)"
ok $([ "$lat" -lt "$slack" ] && echo 0 || echo 1) "the statement ends ${lat} ms after the cancel (< $slack ms)"
ok $(grep -q '^next|2' "$WORK/search-victim.out" && echo 0 || echo 1) "the cancelled session runs the next query"
ok $([ "$(q -c "SELECT count(*) FROM iso_levels($small) WHERE holds")" = 2 ] && echo 0 || echo 1) "the server is up"

q -c "SELECT iso_delete_history($bb), iso_delete_history($small)" >/dev/null 2>&1 || true
finish
