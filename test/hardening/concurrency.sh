#!/usr/bin/env bash
# Concurrency, with real client sessions (psql in the background):
#  1. checks of different histories in parallel sessions give the serial results;
#  2. a load and a check of the same history: the check never sees a
#     half-loaded history (an uncommitted load is invisible; events added
#     in one transaction appear all at once);
#  3. deleting a history while another session checks it: the check
#     finishes on its snapshot with the full result;
#  4. formerly known bugs: iso_check over all histories while one is deleted,
#     and two sessions materializing the same graph.
. "$(dirname "$0")/lib.sh"

# ---- 1. parallel checks of different histories ----
ids=()
for s in 1 2 3 4; do
	gen_edn "$WORK/p$s.edn" --txns 3000 --processes 8 --keys 60 --seed "$s" \
		--inject G1c,G-single,G2-item,lost-update
	ids+=("$(load_edn "hardening-par-$s" "$WORK/p$s.edn")")
done
signature() {	# a digest of everything the checks say about one history
	q -c "SELECT md5(string_agg(x, ';' ORDER BY x)) FROM (
	        SELECT format('%s %s %s', level, holds, violations) FROM iso_levels($1)
	        UNION ALL SELECT format('%s %s %s', anomaly, cycle, explanation) FROM iso_check('ser', $1)
	        UNION ALL SELECT format('%s', s) FROM iso_graph_stats($1) s) t(x)"
}
declare -A want
for id in "${ids[@]}"; do want[$id]=$(signature "$id"); done
pids=()
for id in "${ids[@]}"; do
	( for r in 1 2 3; do signature "$id"; done >"$WORK/par.$id" 2>&1 ) &
	pids+=($!)
done
for p in "${pids[@]}"; do wait "$p"; done
bad=0
for id in "${ids[@]}"; do
	[ "$(sort -u "$WORK/par.$id")" = "${want[$id]}" ] || { bad=1; diag "history $id: $(sort -u "$WORK/par.$id" | head -3)"; }
done
ok $bad "4 sessions x 3 checks of 4 different histories in parallel match the serial results"
viol=$(q -c "SELECT count(*) FROM iso_levels(${ids[0]}) WHERE NOT holds")
ok $([ "$viol" -gt 0 ] && echo 0 || echo 1) "(the histories do have violations: $viol levels fail for the first)"

# ---- 2a. a check while the same history is being loaded ----
gen_edn "$WORK/load.edn" --txns 3000 --processes 8 --keys 60 --seed 11 --inject G2-item
chmod 644 "$WORK/load.edn"
psql -X -q -A -t -v file="$WORK/load.edn" -v idfile="$WORK/load.id" >"$WORK/loader.out" 2>&1 <<'SQL' &
\set edn `cat :file`
BEGIN;
SELECT iso_load_jepsen('hardening-conc-load', :'edn') AS id \gset
\o :idfile
SELECT :id;
\o
SELECT pg_catalog.pg_sleep(3);
COMMIT;
SQL
loader=$!
for i in $(seq 1 100); do [ -s "$WORK/load.id" ] && break; sleep 0.1; done
lid=$(tr -d '[:space:]' <"$WORK/load.id")
during=$(psql -X -q -A -t -c "SELECT count(*) FROM iso_levels($lid)" 2>&1)
all_during=$(q -c "SELECT count(*) FROM iso_check('pl-1') WHERE history_id = $lid")
wait "$loader"
after=$(q -c "SELECT count(*) FROM iso_levels($lid)")
grep -q "history $lid does not exist" <<<"$during"
ok $? "a check during the uncommitted load says the history does not exist (not half of it)"
ok $([ "$all_during" = 0 ] && echo 0 || echo 1) "iso_check over all histories skips the uncommitted one"
ok $([ "$after" = 9 ] && echo 0 || echo 1) "after the load commits, the check sees all of it"

# ---- 2b. events added to a history in one transaction appear at once ----
gen_edn "$WORK/grow.edn" --txns 2000 --processes 8 --keys 60 --seed 12
gid=$(load_edn hardening-conc-grow "$WORK/grow.edn")
v0=$(q -c "SELECT vertices FROM iso_graph_stats($gid)")
psql -X -q -A -t >"$WORK/grower.out" 2>&1 <<SQL &
BEGIN;
INSERT INTO iso_event (history_id, txn_id, process, status, pos, op, key, value)
  SELECT $gid, 1000000 + i, 999, 'ok', 0, 'append', 'hardening-k' || i, '1' FROM generate_series(1, 500) i;
SELECT pg_catalog.pg_sleep(1.5);
INSERT INTO iso_event (history_id, txn_id, process, status, pos, op, key, value)
  SELECT $gid, 2000000 + i, 999, 'ok', 0, 'append', 'hardening-k' || i, '2' FROM generate_series(1, 500) i;
SELECT pg_catalog.pg_sleep(1.5);
COMMIT;
SQL
grower=$!
seen=()
while kill -0 "$grower" 2>/dev/null; do
	seen+=("$(q -c "SELECT vertices FROM iso_graph_stats($gid)")")
done
wait "$grower"
seen+=("$(q -c "SELECT vertices FROM iso_graph_stats($gid)")")
distinct=$(printf '%s\n' "${seen[@]}" | sort -un | tr '\n' ' ')
diag "vertices seen while the events were added: $distinct(before $v0, after $((v0 + 1000)))"
ok $([ "$distinct" = "$v0 $((v0 + 1000)) " ] && echo 0 || echo 1) \
	"${#seen[@]} checks during a two-statement load saw only the old or the complete history"

# ---- 4a. iso_check over all histories while a later one is deleted ----
big=$(big_history)
victim=$(q -c "SELECT iso_load_jepsen('hardening-conc-victim', '{:type :ok, :value [[:r 1 nil] [:w 1 1]]}')")
psql -X -q -A -t -c "SELECT count(*) FROM iso_check('ser')" >"$WORK/all.out" 2>&1 &
checker=$!
sleep 0.4
q -c "SELECT iso_delete_history($victim)" >/dev/null
wait "$checker"; rc=$?
grep -q "does not exist" "$WORK/all.out" && diag "iso_check('ser'): $(head -1 "$WORK/all.out")"
ok $rc "iso_check over all histories survives a concurrent iso_delete_history"

# ---- 4b. two sessions materialize the same graph ----
mid=${ids[1]}
psql -X -q -A -t -c "BEGIN" -c "SELECT iso_materialize_graph($mid)" -c "SELECT pg_catalog.pg_sleep(1.5)" \
	-c "COMMIT" >"$WORK/mat1.out" 2>&1 &
m1=$!
sleep 0.5
psql -X -q -A -t -v ON_ERROR_STOP=1 -c "SELECT iso_materialize_graph($mid)" >"$WORK/mat2.out" 2>&1; rc=$?
wait "$m1"
grep -q "duplicate key" "$WORK/mat2.out" && diag "second session: $(head -1 "$WORK/mat2.out")"
ok $rc "a concurrent iso_materialize_graph of the same history waits and succeeds"

# ---- 4c. a delete racing a materialize leaves orphan edges ----
# writer.c inserts without the foreign-key check, so nothing locks the
# iso_history row against a concurrent iso_delete_history.
oid=${ids[2]}
psql -X -q -A -t -c "BEGIN" -c "SELECT iso_materialize_graph($oid)" -c "SELECT pg_catalog.pg_sleep(1)" \
	-c "COMMIT" >"$WORK/orphan.out" 2>&1 &
m1=$!
sleep 0.4
q -c "SELECT iso_delete_history($oid)" >/dev/null
wait "$m1"
orphans=$(q -c "SELECT count(*) FROM iso_edge e WHERE history_id = $oid AND NOT EXISTS (SELECT FROM iso_history h WHERE h.history_id = e.history_id)")
diag "iso_edge rows left for deleted history $oid: $orphans"
q -c "DELETE FROM iso_edge WHERE history_id = $oid" >/dev/null
ok $([ "$orphans" = 0 ] && echo 0 || echo 1) "a delete racing iso_materialize_graph leaves no orphan iso_edge rows"

# ---- 3. delete a history while another session checks it ----
ref=$(q -c "SELECT count(*) FILTER (WHERE holds) || '/' || sum(violations) FROM iso_levels($big)")
psql -X -q -A -t -c "SELECT count(*) FILTER (WHERE holds) || '/' || sum(violations) FROM iso_levels($big)" \
	>"$WORK/delcheck.out" 2>&1 &
checker=$!
sleep 0.3
t0=$(now_ms)
deleted=$(q -c "SELECT iso_delete_history($big)")
del_ms=$(( $(now_ms) - t0 ))
wait "$checker"; rc=$?
got=$(cat "$WORK/delcheck.out")
diag "delete took $del_ms ms; the running check returned '$got' (alone: '$ref')"
ok $([ "$deleted" = t ] && echo 0 || echo 1) "iso_delete_history commits while another session checks the history"
ok $([ $rc -eq 0 ] && [ "$got" = "$ref" ] && echo 0 || echo 1) "the running check finishes with the full result of its snapshot"
gone=$(psql -X -q -A -t -c "SELECT count(*) FROM iso_levels($big)" 2>&1)
grep -q "does not exist" <<<"$gone"
ok $? "the next check says the history does not exist"

for id in "${ids[@]}" "$lid" "$gid"; do q -c "SELECT iso_delete_history($id)" >/dev/null; done
finish
