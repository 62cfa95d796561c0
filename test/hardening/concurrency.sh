#!/usr/bin/env bash
# Concurrency, with real client sessions (psql in the background):
#  1. checks of different histories in parallel sessions give the serial results;
#  2. a load and a check of the same history: the check never sees a
#     half-loaded history (an uncommitted load is invisible; events added
#     in one transaction appear all at once);
#  3. deleting a history while another session checks it: the check
#     finishes on its snapshot with the full result;
#  4. formerly known bugs: iso_check over all histories while one is deleted,
#     and two sessions materializing the same graph;
#  5. 8 sessions mixing iso_save_image, iso_delete_history,
#     iso_materialize_graph, loads, COPY and INSERTs into iso_event on shared
#     and separate histories (CONC_SECONDS, default 15): no deadlock, and
#     every image is current at the end.
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

# ---- 5. 8 sessions: saves, deletes, graphs, loads and COPY, no deadlock ----
# Every writer of a history's rows locks its iso_history row first
# (src/pg/image_store.c); iso_save_image used to take a SHARE lock on
# iso_event before it, and deadlocked with iso_delete_history,
# iso_materialize_graph and user transactions that write events.
conc_edn='{:type :ok, :process 0, :value [[:append :a 1] [:r :b []]]} {:type :ok, :process 1, :value [[:append :b 1] [:r :a [1]]]}'
for n in conc5-s1 conc5-s2 conc5-churn conc5-own-{0..7}; do
	q -v edn="$conc_edn" <<<"SELECT iso_load_jepsen('$n', :'edn')" >/dev/null
done
q -c "SELECT count(iso_save_image(history_id)) FROM iso_history WHERE name LIKE 'conc5-%'" >/dev/null
deadlocks0=$(q -c "SELECT deadlocks FROM pg_stat_database WHERE datname = current_database()")
conc_seconds=${CONC_SECONDS:-15}
declare -A conc_id
for n in conc5-s1 conc5-s2 conc5-own-{0..7}; do
	conc_id[$n]=$(q -c "SELECT history_id FROM iso_history WHERE name = '$n'")
done
# conc_script I: a psql script of random operations for session I, each run
# only in the first conc_seconds (one session, one connection)
conc_script() {
	local i=$1 n name h ins view
	RANDOM=$((i * 7919 + 17))
	echo "\\set edn '$conc_edn'"
	echo "SELECT clock_timestamp() + interval '$conc_seconds s' AS end_at \\gset"
	for n in $(seq 1 3000); do
		case $((RANDOM % 4)) in
			0) name=conc5-s1 ;; 1) name=conc5-s2 ;; 2) name=conc5-churn ;; *) name=conc5-own-$i ;;
		esac
		h="(SELECT history_id FROM iso_history WHERE name = '$name')"
		# a new transaction appending a new value to a new key: the history stays valid
		ins="INSERT INTO iso_event (history_id, txn_id, process, status, pos, op, key, value)
  SELECT history_id, $((i * 10000000 + n * 10)) + k, $i, 'ok', 0, 'append', 'c$i-$n-' || k, '1'
    FROM iso_history, generate_series(1, 3) k WHERE name = '$name';"
		echo "SELECT clock_timestamp() < :'end_at' AS go \\gset"
		echo "\\if :go"
		echo "\\echo op"
		case $((RANDOM % 9)) in
		0) echo "SELECT iso_save_image($h);" ;;
		1) echo "BEGIN; SELECT iso_save_image($h); SELECT pg_catalog.pg_sleep(0.05); COMMIT;" ;;
		2) echo "$ins" ;;
		3)	# COPY, as a loader does, into either events view (the churn
			# history's id changes: INSERT there)
			if [ "$name" = conc5-churn ]; then echo "$ins"; else
				if [ $((n % 2)) = 0 ]; then view=iso_event; else view=iso_event_load; fi
				echo "COPY $view (history_id, txn_id, process, status, pos, op, key, value, read_list) FROM STDIN WITH (FORMAT csv);"
				echo "${conc_id[$name]},$((i * 10000000 + n * 10)),$i,ok,0,append,c$i-$n-copy,1,"
				echo "${conc_id[$name]},$((i * 10000000 + n * 10 + 1)),$i,ok,0,append,c$i-$n-copy,2,"
				echo "${conc_id[$name]},$((i * 10000000 + n * 10 + 2)),$i,ok,0,r,c$i-$n-copy,,\"{1,2}\""
				echo '\.'
			fi ;;
		4) echo "SELECT iso_materialize_graph($h);" ;;
		5) echo "BEGIN; SELECT iso_materialize_graph($h);"; echo "$ins"; echo "COMMIT;" ;;
		6) echo "BEGIN;"; echo "$ins"; echo "SELECT iso_save_image($h); COMMIT;" ;;
		7)	# delete and re-create the shared churn history, or load, check
			# and delete a history of its own
			if [ $((RANDOM % 2)) = 0 ]; then
				echo "SELECT iso_delete_history(history_id) FROM iso_history WHERE name = 'conc5-churn';"
				echo "SELECT iso_load_jepsen('conc5-churn', :'edn');"
			else
				echo "SELECT count(*) FROM iso_levels(iso_load_jepsen('conc5-tmp-$i-$n', :'edn'));"
				echo "SELECT iso_delete_history(history_id) FROM iso_history WHERE name = 'conc5-tmp-$i-$n';"
			fi ;;
		*) echo "SELECT count(*) FROM iso_check('ser', $h); SELECT vertices FROM iso_graph_stats($h);" ;;
		esac
		echo "\\endif"
	done
}
for i in 0 1 2 3 4 5 6 7; do conc_script "$i" >"$WORK/conc5.$i.sql"; done
conc_session() {	# conc_session I: its script, in one connection
	psql -X -q -A -t -f "$WORK/conc5.$1.sql" 2>"$WORK/conc5.$1.err" | grep -c '^op$' >"$WORK/conc5.$1.ops"
}
pids=()
for i in 0 1 2 3 4 5 6 7; do conc_session "$i" & pids+=($!); done
for p in "${pids[@]}"; do wait "$p"; done
ops=$(cat "$WORK"/conc5.*.ops | paste -sd+ | bc)
cat "$WORK"/conc5.*.err >"$WORK/conc5.err"
diag "8 sessions, ${conc_seconds} s: $ops operations; errors by kind:"
grep -o 'ERROR: .*' "$WORK/conc5.err" | sed -E 's/[0-9]+/N/g' | sort | uniq -c | sort -rn | head -8 | while read -r l; do diag "  $l"; done
sleep 1	# the sessions' statistics reach pg_stat_database as they exit
deadlocks=$(q -c "SELECT pg_catalog.pg_stat_clear_snapshot(); SELECT deadlocks - $deadlocks0 FROM pg_stat_database WHERE datname = current_database()" | tail -1)
seen=$(grep -c 'deadlock detected' "$WORK/conc5.err")
diag "deadlocks: $seen reported to the sessions, $deadlocks counted by the server"
ok $([ "$seen" = 0 ] && [ "$deadlocks" = 0 ] && echo 0 || echo 1) "8 sessions mixing saves, deletes, graphs, loads and COPY: no deadlock"
other=$(grep 'ERROR: ' "$WORK/conc5.err" | grep -vc 'does not exist\|already exists\|violates foreign key\|owner_name_key\|transaction is aborted\|deadlock detected')
ok $([ "$other" = 0 ] && echo 0 || echo 1) "no error but of a history deleted or re-created by another session ($other others)"
# the COPYs of both views arrived whole: each copied read kept its list
copied=$(q -c "SELECT count(*) FILTER (WHERE split_part(key, '-', 2)::int % 2 = 0) || '/' ||
                      count(*) FILTER (WHERE split_part(key, '-', 2)::int % 2 = 1) || '/' ||
                      count(*) FILTER (WHERE read_list IS DISTINCT FROM '{1,2}')
                 FROM iso_event WHERE key LIKE 'c%-copy' AND op = 'r'")
diag "reads copied through iso_event / iso_event_load / with another list: $copied"
ok $(awk -F/ '{ exit !($1 > 0 && $2 > 0 && $3 == 0) }' <<<"$copied" && echo 0 || echo 1) \
	"COPYs into iso_event and iso_event_load among them stored their lists whole"
# every image is of the history's current events: a check with it equals a
# check from the events
stale=0
imaged=0
for id in $(q -c "SELECT history_id FROM iso_history WHERE name LIKE 'conc5-%'"); do
	sig="SELECT md5(string_agg(x, ';' ORDER BY x)) FROM (
	       SELECT format('%s %s', anomaly, cycle) FROM iso_check('ser', $id)
	       UNION ALL SELECT format('%s', s) FROM iso_graph_stats($id) s) t(x)"
	with=$(q -c "$sig")
	from=$(q -c "SET isograph.use_image = off" -c "$sig")
	[ "$with" = "$from" ] || { stale=$((stale + 1)); diag "history $id: the image and the events differ"; }
	[ "$(q -c "SELECT count(*) > 0 FROM iso_history_image WHERE history_id = $id")" = t ] && imaged=$((imaged + 1))
done
diag "$imaged histories have an image at the end"
ok $stale "every image is current: checks with it and from the events agree"
q -c "SELECT count(iso_delete_history(history_id)) FROM iso_history WHERE name LIKE 'conc5-%'" >/dev/null

for id in "${ids[@]}" "$lid" "$gid"; do q -c "SELECT iso_delete_history($id)" >/dev/null; done
finish
