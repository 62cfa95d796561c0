#!/usr/bin/env bash
# Real-time order stays linear: a two-wave history (n/2 overlapping
# transactions that all complete before the other n/2 are invoked) has a
# real-time reduction of n^2/4 edges; isograph builds it through time
# points instead (docs/semantics.md, "so and rt").  With 20000 transactions
# and isograph.max_memory = 32MB every graph function must finish (or stop
# with 54000), and the backend's peak RSS must stay small.  Before the
# change: 100M rt edges, 4.7 GB in a standalone build (docs/performance.md).
. "$(dirname "$0")/lib.sh"

TXNS=${HARDENING_WAVES_TXNS:-20000}
make -s -C "$ISO_ROOT/bench" gen >/dev/null	# an older build has no --shape
gen_edn "$WORK/waves.edn" --shape two-waves --txns "$TXNS"
id=$(load_edn hardening-waves "$WORK/waves.edn")
chmod 644 "$WORK/waves.edn"

out=$(psql -X -q -A -t -v id="$id" -v file="$WORK/waves.edn" 2>&1 <<'SQL'
\set ON_ERROR_STOP off
\set edn `cat :file`
SELECT 'hwm0|' || substring(pg_read_file('/proc/self/status') from 'VmHWM:\s*(\d+) kB');
SET isograph.max_memory = '32MB';
SELECT 'levels|' || string_agg(level || '=' || holds, ',' ORDER BY level) FROM iso_levels(:id);
\echo SQLSTATE1 :SQLSTATE
SELECT 'jepsen|' || string_agg(level || '=' || holds, ',' ORDER BY level) FROM iso_levels_jepsen(:'edn');
\echo SQLSTATE2 :SQLSTATE
SELECT 'check|' || count(*) FROM iso_check('strict-serializable', :id);
\echo SQLSTATE3 :SQLSTATE
SELECT 'graph|' || count(*) FILTER (WHERE type = 'rt') || '/' || count(*) FROM iso_build_graph(:id);
\echo SQLSTATE4 :SQLSTATE
SELECT 'stats|' || coalesce(rt::text, 'null') || '/' || vertices FROM iso_graph_stats(:id);
\echo SQLSTATE5 :SQLSTATE
-- 101 transactions of each wave (ids: completion :index): dense again
SELECT 'dot|' || (iso_dot(:id, ARRAY(SELECT g FROM generate_series(10000, 10100) g UNION ALL
                                     SELECT g FROM generate_series(30000, 30100) g)::bigint[])
                  ~ 'real-time order among these 202 transactions not drawn');
\echo SQLSTATE6 :SQLSTATE
SELECT 'hwm|' || substring(pg_read_file('/proc/self/status') from 'VmHWM:\s*(\d+) kB');
SQL
)
val() { sed -n "s/^$1|//p" <<<"$out" | head -1; }
st() { sed -n "s/^SQLSTATE$1 //p" <<<"$out"; }
echo "$out" | grep -E '^(ERROR|DETAIL|HINT):' | sort | uniq -c | sed 's/^/# /'
hwm0_kb=$(val hwm0)
hwm_kb=$(val hwm)

limit_ok() { [ "$1" = 00000 ] || [ "$1" = 54000 ]; }
all=1
for i in 1 2 3 4 5 6; do limit_ok "$(st $i)" || all=0; done
ok $([ $all = 1 ] && echo 0 || echo 1) "with max_memory 32MB every graph function finishes or stops with 54000"
levels=$(val levels)
ok $([ -n "$levels" ] && grep -q 'strict-serializable=true' <<<"$levels" && echo 0 || echo 1) "iso_levels: the two waves are strict-serializable ($levels)"
ok $([ "$(val jepsen)" = "$levels" ] && echo 0 || echo 1) "iso_levels_jepsen gives the same verdicts in memory"
ok $([ "$(val check)" = 0 ] && echo 0 || echo 1) "iso_check('strict-serializable') finds nothing"
graph=$(val graph)
ok $([ "${graph%%/*}" = 0 ] && echo 0 || echo 1) "iso_build_graph lists no rt edge for the dense order ($graph rt/all)"
ok $([ "$(val stats)" = "null/$TXNS" ] && echo 0 || echo 1) "iso_graph_stats.rt is NULL ($(val stats))"
ok $([ "$(val dot)" = true ] && echo 0 || echo 1) "iso_dot of 202 transactions says their dense real-time order is not drawn"
if [ -n "$hwm_kb" ]; then
	diag "backend peak RSS (VmHWM): $((hwm0_kb / 1024)) MB at the start, $((hwm_kb / 1024)) MB after every function"
	ok $([ "$hwm_kb" -lt $((512 * 1024)) ] && echo 0 || echo 1) "the backend's peak RSS stays under 512 MB"
else
	skip "cannot read the backend's /proc/self/status (not Linux, or not a superuser)"
fi
q -c "SELECT iso_delete_history($id)" >/dev/null
finish
