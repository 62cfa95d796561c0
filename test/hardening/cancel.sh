#!/usr/bin/env bash
# Cancellation: statement_timeout stops a check of a big history promptly
# (at several points: reading events, building the graph, searching
# cycles), a cancelled load leaves nothing behind, pg_cancel_backend works
# too, and the next query of the same session runs normally.
. "$(dirname "$0")/lib.sh"

big=$(big_history)
small=$(q -c "SELECT iso_load_jepsen('hardening-cancel-small', '{:type :ok, :value [[:r 1 nil] [:w 1 1]]}
{:type :ok, :value [[:r 1 nil] [:w 1 2]]}')")

# Run time of the check uncancelled, measured in the session as the
# timeouts below are (a client's start-up is no part of it; warm: the
# fastest of three runs).
full=$(fastest_check_ms "$big")
diag "iso_levels on $BIG_TXNS transactions: $full ms uncancelled"

# timeout_session TIMEOUT_MS SQL: one session: timed-out statement, then the
# next queries.  Prints "<elapsed ms>|<sqlstate>|<next query result>".
timeout_session() {
	psql -X -q -A -t -v timeout="$1" -v big="$big" -v small="$small" 2>&1 <<SQL
\set ON_ERROR_STOP off
\set VERBOSITY verbose
SET statement_timeout = :timeout;
SELECT pg_catalog.clock_timestamp() AS t0 \gset
$2
\echo SQLSTATE :SQLSTATE
RESET statement_timeout;
SELECT 'elapsed', round(extract(epoch FROM pg_catalog.clock_timestamp() - :'t0'::timestamptz) * 1000);
SELECT 'next', (SELECT count(*) FROM iso_levels(:small) WHERE holds), (SELECT count(*) FROM iso_check('si', :small));
SQL
}

# timeouts at 1/5, 1/2 and 4/5 of the uncancelled time: reading the events,
# building the graph, searching cycles (the machine's load shifts them)
worst=0
for ms in $(( full / 5 )) $(( full / 2 )) $(( full * 7 / 10 )); do
	out=$(timeout_session "$ms" "SELECT count(*) FROM iso_levels(:big);")
	state=$(sed -n 's/^SQLSTATE //p' <<<"$out")
	elapsed=$(sed -n 's/^elapsed|//p' <<<"$out")
	next=$(sed -n 's/^next|//p' <<<"$out")
	late=$(( ${elapsed:-999999} - ms ))
	[ "$late" -gt "$worst" ] && worst=$late
	diag "timeout ${ms} ms: sqlstate $state after ${elapsed} ms (${late} ms late); next: $next"
	# finished (psql's SQLSTATE is 00000 after a success) before the timeout
	# fired: elapsed also counts the round trips around the statement, so a
	# success up to 25 ms past the timeout finished before it (the check
	# takes a tenth of a second here: the last timeout can meet its end)
	if { [ -z "$state" ] || [ "$state" = 00000 ]; } && [ "${elapsed:-0}" -lt $(( ms + 25 )) ]; then
		skip "iso_levels finished before the ${ms} ms timeout (machine load)" 3
		continue
	fi
	ok $([ "$state" = 57014 ] && echo 0 || echo 1) "iso_levels cancelled by statement_timeout = ${ms}ms (57014)"
	ok $([ "${late}" -lt 1000 ] && echo 0 || echo 1) "cancelled within 1 s of the ${ms} ms timeout (${late} ms late)"
	ok $([ "$next" = "2|1" ] && echo 0 || echo 1) "the same session checks another history afterwards"
done
diag "worst cancellation latency: ${worst} ms"

# the other functions that build the graph: cancel each half-way
for fn in "iso_check('ser', :big)" "iso_build_graph(:big)" "iso_graph_stats(:big)"; do
	t0=$(now_ms)
	q -v big="$big" <<<"SELECT count(*) FROM $fn;" >/dev/null
	half=$(( ($(now_ms) - t0) / 2 ))
	out=$(timeout_session "$half" "SELECT count(*) FROM $fn;")
	state=$(sed -n 's/^SQLSTATE //p' <<<"$out")
	elapsed=$(sed -n 's/^elapsed|//p' <<<"$out")
	if { [ -z "$state" ] || [ "$state" = 00000 ]; } && [ "${elapsed:-99999}" -lt "$half" ]; then
		# the warm run beat half of the cold one: nothing to cancel
		skip "$fn finished before the ${half} ms timeout (machine load)" 1
		continue
	fi
	ok $([ "$state" = 57014 ] && [ "${elapsed:-99999}" -lt $(( half + 1000 )) ] && echo 0 || echo 1) \
		"$fn cancelled at $half ms, half its run time (after ${elapsed} ms)"
done

# A load cancelled part-way leaves no trace.  The timeout is a third of
# the same load's time, measured first in the same session and rolled
# back (the big history loads in about half a second: a fixed timeout let a
# fast machine finish it).
out=$(psql -X -q -A -t -v file="$WORK/big.edn" 2>&1 <<'SQL'
\set ON_ERROR_STOP off
\set edn `cat :file`
BEGIN;
SELECT pg_catalog.clock_timestamp() AS t0 \gset
SELECT iso_load_jepsen('hardening-timed-load', :'edn') IS NOT NULL AS loaded \gset
SELECT greatest(1, round(extract(epoch FROM pg_catalog.clock_timestamp() - :'t0'::timestamptz) * 1000 / 3))::int AS to \gset
ROLLBACK;
\echo timeout :to
SET statement_timeout = :to;
SELECT iso_load_jepsen('hardening-cancelled-load', :'edn');
\echo SQLSTATE :SQLSTATE
RESET statement_timeout;
SELECT 'left', count(*) FROM iso_history WHERE name IN ('hardening-cancelled-load', 'hardening-timed-load');
SQL
)
load_to=$(sed -n 's/^timeout //p' <<<"$out")
state=$(sed -n 's/^SQLSTATE //p' <<<"$out")
if [ "$state" = 00000 ]; then
	skip "iso_load_jepsen of the big history finished before the ${load_to} ms timeout (machine load)" 2
	q -c "SELECT iso_delete_history(history_id) FROM iso_history WHERE name = 'hardening-cancelled-load'" >/dev/null
else
	ok $([ "$state" = 57014 ] && echo 0 || echo 1) "iso_load_jepsen of the big history cancelled at ${load_to} ms, a third of its run time"
	ok $([ "$(sed -n 's/^left|//p' <<<"$out")" = 0 ] && echo 0 || echo 1) "the cancelled load left no history behind"
fi

# iso_levels_jepsen_file cancelled part-way (a third of its run time):
# the file is closed with the statement (no open file of the backend has
# its size afterwards), and the same session then checks it to the end.
t0=$(now_ms)
q -c "SELECT count(*) FROM iso_levels_jepsen_file('$WORK/big.edn')" >/dev/null
file_ms=$(( $(now_ms) - t0 ))
file_to=$(( file_ms / 3 ))
out=$(psql -X -q -A -t -v to="$file_to" -v file="$WORK/big.edn" 2>&1 <<'SQL'
\set ON_ERROR_STOP off
SET statement_timeout = :to;
SELECT count(*) FROM iso_levels_jepsen_file(:'file');
\echo SQLSTATE :SQLSTATE
RESET statement_timeout;
SELECT 'open', count(*) FROM pg_ls_dir('/proc/self/fd') fd
 WHERE (pg_stat_file('/proc/self/fd/' || fd, true)).size = (pg_stat_file(:'file')).size;
SELECT 'then', count(*) FROM iso_levels_jepsen_file(:'file');
SQL
)
state=$(sed -n 's/^SQLSTATE //p' <<<"$out")
diag "iso_levels_jepsen_file of the big history: $file_ms ms; cancelled at $file_to ms: sqlstate $state"
if [ "$state" = 00000 ]; then
	skip "iso_levels_jepsen_file finished before the ${file_to} ms timeout (machine load)" 3
else
	ok $([ "$state" = 57014 ] && echo 0 || echo 1) "iso_levels_jepsen_file cancelled at ${file_to} ms, a third of its run time"
	ok $([ "$(sed -n 's/^open|//p' <<<"$out")" = 0 ] && echo 0 || echo 1) "the cancelled check left the file closed"
	ok $([ "$(sed -n 's/^then|//p' <<<"$out")" = 9 ] && echo 0 || echo 1) "the same session then checks the file to the end (9 levels)"
fi

# A FIFO without a writer is refused at once: opening or reading it would
# block the backend beyond statement_timeout and any cancel.
mkfifo "$WORK/history.fifo"; chmod 644 "$WORK/history.fifo"
t0=$(now_ms)
out=$(timeout 20 psql -X -q -A -t -v file="$WORK/history.fifo" 2>&1 <<'SQL'
SET statement_timeout = '5s';
SELECT count(*) FROM iso_levels_jepsen_file(:'file');
SQL
)
el=$(( $(now_ms) - t0 ))
ok $(grep -q 'is not a regular file' <<<"$out" && [ "$el" -lt 3000 ] && echo 0 || echo 1) \
	"iso_levels_jepsen_file refuses a FIFO without a writer at once (${el} ms): $(head -1 <<<"$out")"

# iso_load_jepsen_file and iso_load_jepsen of a big text have a parallel
# worker parse the EDN (edn_parallel.c): the worker is seen beside its
# backend while the history loads; a load cancelled part-way takes its
# worker with it and stores nothing, and the same session then loads the
# history to the end; with no worker free (max_parallel_workers = 0) the
# backend parses the file itself and stores the same chunks.  The text is
# loaded by an ordinary role, whose worker parses it as that role.
gen_edn "$WORK/par.edn" --txns 200000 --processes 20 --keys 1000 --seed 11
chmod 644 "$WORK/par.edn"
q -v file="$WORK/par.edn" <<'SQL'
SET client_min_messages = warning;
DROP ROLE IF EXISTS hardening_text_loader;
CREATE ROLE hardening_text_loader;
CREATE TABLE public.hardening_par_text AS SELECT pg_read_file(:'file') AS edn;
GRANT SELECT ON public.hardening_par_text TO hardening_text_loader;
CREATE FUNCTION public.hardening_wait_for_worker(app text) RETURNS int
LANGUAGE plpgsql AS $$
DECLARE
	n int := 0;
BEGIN
	FOR i IN 1..10000 LOOP
		PERFORM pg_stat_clear_snapshot();	-- pg_stat_activity anew
		SELECT count(*) INTO n
		  FROM pg_stat_activity w JOIN pg_stat_activity l ON w.leader_pid = l.pid
		 WHERE l.application_name = app AND w.backend_type = 'parallel worker';
		EXIT WHEN n > 0;
		PERFORM pg_sleep(0.002);
	END LOOP;
	RETURN n;
END $$;
SQL
for how in file text; do
	if [ $how = file ]; then load="iso_load_jepsen_file('hardening-parallel-load', :'file')"; role=$(q -c 'SELECT current_user')
	else load="iso_load_jepsen('hardening-parallel-load', (SELECT edn FROM public.hardening_par_text))"; role=hardening_text_loader; fi
	psql -X -q -A -t -v file="$WORK/par.edn" -v role="$role" >"$WORK/par.out" 2>&1 <<SQL &
SET application_name = 'hardening-$how-loader';
SET ROLE :"role";
BEGIN;
SELECT 'loaded', $load > 0, current_user;
ROLLBACK;
SQL
	loader=$!
	seen=$(q -c "SELECT public.hardening_wait_for_worker('hardening-$how-loader')")
	wait $loader
	ok $([ "$seen" = 1 ] && grep -q '^loaded|t' "$WORK/par.out" && echo 0 || echo 1) \
		"the $how load has a parallel worker beside its backend (workers seen: $seen; $(grep -m1 -e '^loaded' -e ERROR "$WORK/par.out"))"

	out=$(psql -X -q -A -t -v file="$WORK/par.edn" 2>&1 <<SQL
\set ON_ERROR_STOP off
BEGIN;
SELECT pg_catalog.clock_timestamp() AS t0 \gset
SELECT $load IS NOT NULL AS loaded \gset
SELECT greatest(1, round(extract(epoch FROM pg_catalog.clock_timestamp() - :'t0'::timestamptz) * 1000 / 2))::int AS to \gset
ROLLBACK;
\echo timeout :to
SET statement_timeout = :to;
SELECT $load;
\echo SQLSTATE :SQLSTATE
RESET statement_timeout;
SELECT 'workers', count(*) FROM pg_stat_activity WHERE leader_pid = pg_backend_pid();
SELECT 'left', count(*) FROM iso_history WHERE name = 'hardening-parallel-load';
BEGIN;
SELECT 'then', $load > 0;
ROLLBACK;
SQL
)
	to=$(sed -n 's/^timeout //p' <<<"$out")
	state=$(sed -n 's/^SQLSTATE //p' <<<"$out")
	if [ "$state" = 00000 ]; then
		skip "the $how load finished before the ${to} ms timeout (machine load)" 3
		q -c "SELECT iso_delete_history(history_id) FROM iso_history WHERE name = 'hardening-parallel-load'" >/dev/null
	else
		ok $([ "$state" = 57014 ] && [ "$(sed -n 's/^workers|//p' <<<"$out")" = 0 ] && echo 0 || echo 1) \
			"the $how load cancelled at ${to} ms, half its run time: no worker of the backend left"
		ok $([ "$(sed -n 's/^left|//p' <<<"$out")" = 0 ] && echo 0 || echo 1) "the cancelled $how load left no history behind"
		ok $([ "$(sed -n 's/^then|//p' <<<"$out")" = t ] && echo 0 || echo 1) "the same session then loads the $how to the end"
	fi
done

out=$(psql -X -q -A -t -v file="$WORK/par.edn" 2>&1 <<'SQL'
BEGIN;
SET LOCAL max_parallel_workers = 0;
SELECT iso_load_jepsen_file('hardening-file-no-worker', :'file') AS serial \gset
RESET max_parallel_workers;
SELECT iso_load_jepsen_file('hardening-file-worker', :'file') AS parallel \gset
SELECT 'same', count(*) > 1 AND bool_and(s.data = p.data AND s.nrows = p.nrows)
  FROM iso_event_chunk s FULL JOIN iso_event_chunk p ON s.chunk = p.chunk
 WHERE s.history_id = :serial AND p.history_id = :parallel;
ROLLBACK;
SQL
)
ok $([ "$(sed -n 's/^same|//p' <<<"$out")" = t ] && echo 0 || echo 1) \
	"with no worker free the backend reads the file itself: the same chunks ($(grep -m1 -e '^same' -e ERROR <<<"$out"))"
# iso_levels_jepsen_file of a file of 16 MB or more reads its two halves at
# once, the second in a parallel worker (edn_split.c): the worker is seen
# beside its backend and the file is read in two parts; a check cancelled
# part-way takes its worker with it, and the same session then checks the
# file to the end, with the rows of a check that had no worker.
psql -X -q -A -t -v file="$WORK/par.edn" >"$WORK/split.out" 2>&1 <<'SQL' &
SET application_name = 'hardening-split-check';
SET client_min_messages = debug1;
SELECT 'levels', count(*) FROM iso_levels_jepsen_file(:'file');
SQL
checker=$!
seen=$(q -c "SELECT public.hardening_wait_for_worker('hardening-split-check')")
wait $checker
ok $([ "$seen" = 1 ] && grep -q '^levels|9' "$WORK/split.out" && grep -q 'parsed in two parts' "$WORK/split.out" && echo 0 || echo 1) \
	"the check of a big file has a parallel worker beside its backend and reads the file in two parts (workers seen: $seen; $(grep -m1 -e 'two parts' -e 'one part' -e ERROR "$WORK/split.out"))"
out=$(psql -X -q -A -t -v file="$WORK/par.edn" 2>&1 <<'SQL'
\set ON_ERROR_STOP off
SELECT pg_catalog.clock_timestamp() AS t0 \gset
SELECT string_agg(level || holds || violations, ',' ORDER BY level) AS whole
  FROM iso_levels_jepsen_file(:'file') \gset
SELECT greatest(1, round(extract(epoch FROM pg_catalog.clock_timestamp() - :'t0'::timestamptz) * 1000 / 3))::int AS to \gset
\echo timeout :to
SET statement_timeout = :to;
SELECT count(*) FROM iso_levels_jepsen_file(:'file');
\echo SQLSTATE :SQLSTATE
RESET statement_timeout;
SELECT 'workers', count(*) FROM pg_stat_activity WHERE leader_pid = pg_backend_pid();
SELECT 'then', string_agg(level || holds || violations, ',' ORDER BY level) = :'whole'
  FROM iso_levels_jepsen_file(:'file');
SET max_parallel_workers = 0;
SELECT 'alone', string_agg(level || holds || violations, ',' ORDER BY level) = :'whole'
  FROM iso_levels_jepsen_file(:'file');
SQL
)
to=$(sed -n 's/^timeout //p' <<<"$out")
state=$(sed -n 's/^SQLSTATE //p' <<<"$out")
if [ "$state" = 00000 ]; then
	skip "the check of the big file finished before the ${to} ms timeout (machine load)" 1
else
	ok $([ "$state" = 57014 ] && [ "$(sed -n 's/^workers|//p' <<<"$out")" = 0 ] && echo 0 || echo 1) \
		"the check of the big file cancelled at ${to} ms, a third of its run time: no worker of the backend left"
fi
ok $([ "$(sed -n 's/^then|//p' <<<"$out")" = t ] && [ "$(sed -n 's/^alone|//p' <<<"$out")" = t ] && echo 0 || echo 1) \
	"the same session then checks the big file to the end, with the rows of a check that had no worker"
q -c "DROP FUNCTION public.hardening_wait_for_worker(text)" -c "DROP TABLE public.hardening_par_text" \
	-c "DROP ROLE hardening_text_loader" >/dev/null

# pg_cancel_backend from another session.  The victim repeats the check so
# that it is surely still running when the cancel arrives (one check of the
# big history can finish within the 0.2 s we wait).
psql -X -q -A -t -c "SET application_name = 'hardening-victim'" \
	-c "SELECT pg_catalog.clock_timestamp()" \
	-c "DO \$\$ BEGIN FOR i IN 1..200 LOOP PERFORM count(*) FROM iso_levels($big); END LOOP; END \$\$" \
	>"$WORK/victim.out" 2>&1 &
victim=$!
for i in $(seq 1 100); do	# wait until it runs the check, then let it work a little
	[ "$(q -c "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'hardening-victim' AND state = 'active' AND query LIKE '%iso_levels%'")" = 1 ] && break
	sleep 0.05
done
sleep 0.2
t0=$(now_ms)
q -c "SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE application_name = 'hardening-victim' AND state = 'active'" >/dev/null
wait "$victim"
lat=$(( $(now_ms) - t0 ))
grep -q "canceling statement due to user request" "$WORK/victim.out"
ok $? "pg_cancel_backend stops a running iso_levels (session gone ${lat} ms after the cancel)"

# iso_dot matches every vertex against every requested txn id,
# O(vertices x ids), with no interrupt check: a long id list ignores the timeout.
t0=$(now_ms)
q -c "SELECT length(iso_dot($big, ARRAY(SELECT DISTINCT txn_id FROM iso_event WHERE history_id = $big ORDER BY 1 LIMIT 2)))" >/dev/null
dot_to=$(( $(now_ms) - t0 + 300 ))	# the build, plus a little of the matching
# (ids of the history: iso_dot refuses ids it does not have)
out=$(timeout_session "$dot_to" "SELECT length(iso_dot(:big, ARRAY(SELECT DISTINCT txn_id FROM iso_event WHERE history_id = :big ORDER BY 1 LIMIT 30000)));")
state=$(sed -n 's/^SQLSTATE //p' <<<"$out")
elapsed=$(sed -n 's/^elapsed|//p' <<<"$out")
diag "iso_dot with 30000 ids: sqlstate $state after ${elapsed} ms (timeout $dot_to ms)"
ok $( { [ "$state" = 57014 ] || [ "$state" = 00000 ]; } && [ "${elapsed:-99999}" -lt $(( dot_to + 1000 )) ] && echo 0 || echo 1) \
	"iso_dot with 30000 transaction ids finishes or is cancelled within 1 s of the timeout"

# pg_cancel_backend while iso_dot writes the DOT text of every transaction
# (after the graph build: the loops over nodes, ops and edges)
all_ids="ARRAY(SELECT DISTINCT txn_id FROM iso_event WHERE history_id = $big)"
t0=$(now_ms); q -c "SELECT length(iso_dot($big, '{1}'))" >/dev/null; dot_build=$(( $(now_ms) - t0 ))
t0=$(now_ms); q -c "SELECT length(iso_dot($big, $all_ids))" >/dev/null; dot_all=$(( $(now_ms) - t0 ))
at=$(( dot_build + (dot_all - dot_build) / 2 ))
psql -X -q -A -t -c "SET application_name = 'hardening-dot-victim'" \
	-c "SELECT length(iso_dot($big, $all_ids))" >"$WORK/dot-victim.out" 2>&1 &
victim=$!
sleep "$(awk "BEGIN { print $at / 1000 }")"
t0=$(now_ms)
q -c "SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE application_name = 'hardening-dot-victim' AND state = 'active'" >/dev/null
wait "$victim"
lat=$(( $(now_ms) - t0 ))
diag "iso_dot of all transactions: build $dot_build ms, whole $dot_all ms; cancelled at $at ms, session gone $lat ms later"
if grep -q "canceling statement due to user request" "$WORK/dot-victim.out"; then
	ok $([ "$lat" -lt 1000 ] && echo 0 || echo 1) "pg_cancel_backend stops iso_dot of every transaction half-way through its output within 1 s (${lat} ms)"
else
	skip "iso_dot finished before the cancel arrived (machine load)"
fi

# A COPY into iso_event_load cancelled part-way stores none of its rows,
# and leaves nothing of its statement to the next: the same session then
# copies the first rows of the same file into the same history, and gets
# exactly them.  (The input trigger keeps per-statement state between rows.)
cols="txn_id, process, status, invoke_time, complete_time, pos, op, key, value, read_value, read_list"
q -c "\copy (SELECT $cols FROM iso_event WHERE history_id = $big ORDER BY txn_id, pos) TO '$WORK/big.csv' WITH (FORMAT csv)"
head -n 5 "$WORK/big.csv" >"$WORK/big-head.csv"
chmod 644 "$WORK"/big*.csv
t0=$(now_ms)
q -c "INSERT INTO iso_history (name, workload) VALUES ('hardening-copy-timed', 'list-append')" \
	-c "\copy iso_event_load ($cols) FROM '$WORK/big.csv' WITH (FORMAT csv)"
copy_ms=$(( $(now_ms) - t0 ))
q -c "SELECT iso_delete_history(history_id) FROM iso_history WHERE name = 'hardening-copy-timed'" >/dev/null
copy_to=$(( copy_ms / 3 ))
out=$(psql -X -q -A -t -v to="$copy_to" 2>&1 <<SQL
\set ON_ERROR_STOP off
INSERT INTO iso_history (name, workload) VALUES ('hardening-cancelled-copy', 'list-append');
SET statement_timeout = :to;
\copy iso_event_load ($cols) FROM '$WORK/big.csv' WITH (FORMAT csv)
RESET statement_timeout;
SELECT 'left', count(*) FROM iso_event WHERE history_id = currval('iso_history_history_id_seq');
\copy iso_event_load ($cols) FROM '$WORK/big-head.csv' WITH (FORMAT csv)
SELECT 'then', count(*), string_agg(txn_id || '/' || pos || '/' || coalesce(read_list::text, value), ' ' ORDER BY txn_id, pos)
  FROM iso_event WHERE history_id = currval('iso_history_history_id_seq');
SQL
)
want=$(q -c "SELECT '5|' || string_agg(txn_id || '/' || pos || '/' || coalesce(read_list::text, value), ' ' ORDER BY txn_id, pos)
  FROM (SELECT * FROM iso_event WHERE history_id = $big ORDER BY txn_id, pos LIMIT 5) e")
diag "COPY of the big history's $(wc -l <"$WORK/big.csv") rows into iso_event_load: $copy_ms ms; cancelled at $copy_to ms"
# (psql's \copy sets no SQLSTATE variable: the error says it)
if grep -q "canceling statement due to statement timeout" <<<"$out"; then
	ok $([ "$(sed -n 's/^left|//p' <<<"$out")" = 0 ] && echo 0 || echo 1) "a COPY into iso_event_load cancelled at ${copy_to} ms stored none of its rows"
	ok $([ "$(sed -n 's/^then|//p' <<<"$out")" = "$want" ] && echo 0 || echo 1) \
		"the same session then copies the file's first rows into that history and stores exactly them"
else
	skip "the COPY finished before the ${copy_to} ms timeout (machine load)" 2
fi
q -c "SELECT iso_delete_history(history_id) FROM iso_history WHERE name = 'hardening-cancelled-copy'" >/dev/null

q -c "SELECT iso_delete_history($small)" >/dev/null
finish
