#!/usr/bin/env bash
# SQL call shapes an adversarial review found wrong: NULL arguments (one
# crashed the server), a check in the same statement as the load (it judged
# 0 events and said every level holds), and parallel queries (the session's
# isograph.* settings were dropped when the library was first loaded in
# one).  Every function of the extension is found through pg_depend, so
# functions added later are called too.
. "$(dirname "$0")/lib.sh"

# A crashed backend makes the postmaster end every session: a watcher
# session that must outlive the whole test tells whether that happened
# (pg_postmaster_start_time() does not change on such a restart).
PGAPPNAME=hardening-watch psql -X -q -c "SELECT pg_sleep(3600)" >/dev/null 2>&1 &
watcher=$!
for _ in $(seq 1 50); do
	[ "$(q -c "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'hardening-watch'")" = 1 ] && break
	sleep 0.1
done
no_restart() {	# the watcher session is still there
	kill -0 "$watcher" 2>/dev/null &&
		[ "$(q -c "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'hardening-watch'" 2>/dev/null)" = 1 ]
}
role=hardening_shapes
q -c "DROP ROLE IF EXISTS $role" -c "CREATE ROLE $role LOGIN" >/dev/null 2>&1

# --- NULL arguments ---------------------------------------------------------
# Each function with NULL in one argument and with NULL in all of them, as
# the superuser and as an ordinary role; a sample value elsewhere.
q >/dev/null <<'SQL'
CREATE OR REPLACE FUNCTION hardening_null_calls(h bigint) RETURNS SETOF text
LANGUAGE plpgsql AS $f$
DECLARE
	edn constant text := '{:type :ok, :value [[:r 1 []] [:r 2 []] [:append 1 1]]} {:type :ok, :value [[:r 1 []] [:r 2 []] [:append 2 2]]}';
	p record;
	i int;
	j int;
	args text[];
	outcome text;
BEGIN
	FOR p IN
		SELECT pr.oid::regprocedure AS sig, pr.proname, pr.pronargs,
			   (SELECT array_agg(t ORDER BY o) FROM unnest(pr.proargtypes::oid[]) WITH ORDINALITY u(t, o)) AS types
		  FROM pg_depend d JOIN pg_extension e ON e.oid = d.refobjid JOIN pg_proc pr ON pr.oid = d.objid
		 WHERE d.classid = 'pg_proc'::regclass AND d.refclassid = 'pg_extension'::regclass
		   AND d.deptype = 'e' AND e.extname = 'isograph' AND pr.prorettype <> 'trigger'::regtype
		   AND pr.pronargs > 0
	LOOP
		-- i = 0: every argument NULL
		FOR i IN 0..p.pronargs LOOP
			args := '{}';
			FOR j IN 1..p.pronargs LOOP
				args := args || CASE
					WHEN i = 0 OR j = i THEN format('NULL::%s', format_type(p.types[j], NULL))
					WHEN p.types[j] = 'bigint'::regtype THEN h::text
					WHEN p.types[j] = 'integer'::regtype THEN '1'
					WHEN p.types[j] = 'bigint[]'::regtype THEN '''{1,2}''::bigint[]'
					WHEN j = 1 AND p.proname IN ('iso_check', 'iso_check_edges') THEN '''ser'''
					WHEN p.proname = 'iso_load_jepsen' AND j = 1 THEN quote_literal('hardening-nulls-' || current_user || '-' || i)
					WHEN p.proname = 'iso_load_jepsen' AND j = 3 THEN '''list-append'''
					-- the server file functions: a file that exists (not EDN)
					WHEN p.proname = 'iso_load_jepsen_file' AND j = 1 THEN quote_literal('hardening-nulls-file-' || current_user || '-' || i)
					WHEN (p.proname = 'iso_levels_jepsen_file' AND j = 1) OR (p.proname = 'iso_load_jepsen_file' AND j = 2) THEN '''PG_VERSION'''
					WHEN p.proname LIKE 'iso_%_jepsen_file' THEN '''list-append'''
					WHEN p.types[j] = 'text'::regtype THEN quote_literal(edn)
					ELSE format('NULL::%s', format_type(p.types[j], NULL)) END;
			END LOOP;
			BEGIN
				EXECUTE format('SELECT count(*) FROM %s(%s)', p.proname, array_to_string(args, ', '));
				outcome := 'ok';
			EXCEPTION WHEN OTHERS THEN
				outcome := SQLSTATE;
			END;
			RETURN NEXT format('%s arg %s: %s', p.sig, i, outcome);
		END LOOP;
	END LOOP;
END
$f$;
SQL
edn_skew='{:type :ok, :value [[:r 1 []] [:r 2 []] [:append 1 1]]}
{:type :ok, :value [[:r 1 []] [:r 2 []] [:append 2 2]]}
{:type :ok, :value [[:r 1 [1]] [:r 2 [2]]]}'
for who in superuser "$role"; do
	setrole=""; [ "$who" = "$role" ] && setrole="SET ROLE $role;"
	out=$(psql -X -q -A -t -v edn="$edn_skew" 2>&1 <<SQL
$setrole
SELECT iso_load_jepsen('hardening-nulls-base-$who', :'edn') AS h \gset
SELECT hardening_null_calls(:h);
SQL
)
	calls=$(grep -c ' arg ' <<<"$out")
	bad=$(grep -E ' arg [0-9]+: (XX|58)' <<<"$out")
	diag "$who: $calls calls; outcomes: $(sed -n 's/.* arg [0-9]*: //p' <<<"$out" | sort | uniq -c | tr '\n' ' ')"
	ok $([ "$calls" -ge 30 ] && echo 0 || echo 1) "$who: every function called with NULL arguments ($calls calls)"
	ok $([ -z "$bad" ] && ! grep -q "connection to server was lost\|terminated abnormally" <<<"$out" && echo 0 || echo 1) \
		"$who: each call gives a result or a clear SQLSTATE (no internal error, no crash)${bad:+: $bad}"
done
no_restart; ok $? "no session was lost to a server restart (NULL calls)"

# --- load and check in one statement ---------------------------------------
gen_edn "$WORK/shapes.edn" --txns 3000 --processes 10 --keys 20 --seed 11
chmod 644 "$WORK/shapes.edn"
for iso in "READ COMMITTED" "REPEATABLE READ" "SERIALIZABLE"; do
	tag=${iso// /-}
	out=$(psql -X -q -A -t -v file="$WORK/shapes.edn" -v edn="$edn_skew" 2>&1 <<SQL
\set gen \`cat :file\`
BEGIN ISOLATION LEVEL $iso;
SELECT 'same', string_agg(level || ':' || holds || ':' || violations, ',' ORDER BY level)
  FROM iso_levels(iso_load_jepsen('hardening-same-$tag', :'gen'));
SELECT 'stats', vertices FROM iso_graph_stats(iso_load_jepsen('hardening-same-stats-$tag', :'gen'));
SELECT 'skew', holds FROM iso_levels(iso_load_jepsen('hardening-skew-$tag', :'edn')) WHERE level = 'ser';
COMMIT;
SELECT 'later', string_agg(level || ':' || holds || ':' || violations, ',' ORDER BY level)
  FROM iso_history h, iso_levels(h.history_id) WHERE h.name = 'hardening-same-$tag';
SELECT 'memory', string_agg(level || ':' || holds || ':' || violations, ',' ORDER BY level)
  FROM iso_levels_jepsen(:'gen');
SQL
)
	val() { sed -n "s/^$1|//p" <<<"$out"; }
	ok $([ -n "$(val same)" ] && [ "$(val same)" = "$(val later)" ] && [ "$(val same)" = "$(val memory)" ] && echo 0 || echo 1) \
		"$iso: iso_levels in the load's statement = in a later one = in memory"
	ok $([ "$(val stats)" -gt 0 ] 2>/dev/null && echo 0 || echo 1) "$iso: iso_graph_stats in the load's statement sees $(val stats) vertices"
	ok $([ "$(val skew)" = f ] && echo 0 || echo 1) "$iso: a write skew loaded and checked in one statement violates ser"
done

# --- settings in parallel queries ------------------------------------------
# Fresh sessions, so that the query is the session's first isograph call;
# parallel plans forced and made cheap.
par="-c force_parallel_mode=on -c parallel_setup_cost=0 -c parallel_tuple_cost=0 -c min_parallel_table_scan_size=0 -c max_parallel_workers_per_gather=2"
# a history with several witnesses of one anomaly, and 400k runs joined to it
gen_edn "$WORK/shapes-skew.edn" --txns 1200 --processes 20 --keys 100 --seed 9 --inject G2-item --inject-every 300
big=$(load_edn hardening-shapes-skew "$WORK/shapes-skew.edn")
witnesses=$(q -c "SELECT count(*) FROM iso_check('ser', $big)")
q -c "DROP TABLE IF EXISTS hardening_runs" \
  -c "CREATE TABLE hardening_runs AS SELECT g AS id, 'hardening-shapes-skew'::text AS history_name FROM generate_series(1, 400000) g" \
  -c "ANALYZE hardening_runs" -c "GRANT SELECT ON hardening_runs TO $role" >/dev/null
diag "the write-skew history has $witnesses ser witnesses by default"
for opts in "-c force_parallel_mode=on" "$par"; do
	n=$(PGOPTIONS="$opts" q -c "SET isograph.max_witnesses = 1" \
		-c "SELECT count(*) FROM hardening_runs r JOIN iso_check('ser', $big) c ON c.history = r.history_name" 2>&1)
	ok $([ "$n" = 400000 ] && echo 0 || echo 1) "README join under PGOPTIONS='$opts': 400000 rows with max_witnesses = 1 (got $n)"
done

# a role's max_memory cap (ALTER ROLE ... SET) in a fresh parallel session
q -c "ALTER ROLE $role SET isograph.max_memory = '16MB'" >/dev/null
# (40000: since the list inference sizes its scratch by the largest key, not
# by all the ops, a check of 20000 fits in 16MB)
gen_edn "$WORK/shapes-role.edn" --txns 40000 --processes 10 --keys 200 --seed 5
chmod 644 "$WORK/shapes-role.edn"
if psql -X -q -U "$role" -c "SELECT 1" >/dev/null 2>&1; then
	rid=$(psql -X -q -A -t -U "$role" -v file="$WORK/shapes-role.edn" 2>&1 <<'SQL'
SET isograph.max_memory = '1GB';
SET client_min_messages = warning;
\set edn `cat :file`
SELECT iso_load_jepsen('hardening-role-cap', :'edn');
SQL
)
	out=$(PGOPTIONS="$par" psql -X -q -A -t -U "$role" -v ON_ERROR_STOP=0 2>&1 <<SQL
SELECT count(*) FROM hardening_runs r JOIN iso_levels($rid) l ON l.level = r.history_name;
\echo SQLSTATE :SQLSTATE
SHOW isograph.max_memory;
SQL
)
	ok $(grep -q '^SQLSTATE 54000' <<<"$out" && echo 0 || echo 1) "ALTER ROLE ... SET isograph.max_memory = '16MB' holds in a fresh parallel session (54000)"
	ok $(grep -q '^16MB' <<<"$out" && echo 0 || echo 1) "and the session still shows 16MB afterwards"
else
	skip "cannot log in as $role (authentication)" 2
fi

# a caller's function mislabelled PARALLEL RESTRICTED: never a wrong count
q >/dev/null <<SQL
CREATE OR REPLACE FUNCTION hardening_witnesses(h bigint) RETURNS bigint
LANGUAGE plpgsql PARALLEL RESTRICTED AS \$\$ BEGIN RETURN (SELECT count(*) FROM iso_check('ser', h)); END \$\$;
SQL
out=$(PGOPTIONS="$par" psql -X -q -A -t -v ON_ERROR_STOP=0 2>&1 <<SQL
SET isograph.max_witnesses = 1;
SELECT 'wrapped', hardening_witnesses($big) FROM (SELECT count(*) FROM hardening_runs) s;
\echo SQLSTATE :SQLSTATE
SET force_parallel_mode = off;
SET parallel_setup_cost = 1000;
SELECT 'after', hardening_witnesses($big);
SQL
)
w=$(sed -n 's/^wrapped|//p' <<<"$out"); a=$(sed -n 's/^after|//p' <<<"$out")
grep -E '^(ERROR|WARNING):' <<<"$out" | sed 's/^/# /'
ok $( { [ "$w" = 1 ] || grep -q '^SQLSTATE 25000' <<<"$out"; } && [ "$a" = 1 ] && echo 0 || echo 1) \
	"a PARALLEL RESTRICTED wrapper gets 1 witness or a 25000 error, never the default 3 (got '${w:-error}', then $a)"

no_restart; ok $? "no session was lost to a server restart (whole test)"
q -c "SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE application_name = 'hardening-watch'" >/dev/null 2>&1
wait "$watcher" 2>/dev/null

q -c "DROP TABLE hardening_runs" -c "DROP FUNCTION hardening_witnesses(bigint)" -c "DROP FUNCTION hardening_null_calls(bigint)" \
  -c "SELECT count(iso_delete_history(history_id)) FROM iso_history WHERE name LIKE 'hardening-nulls-%' OR name LIKE 'hardening-same-%' OR name LIKE 'hardening-skew-%' OR name IN ('hardening-role-cap', 'hardening-shapes-skew')" \
  -c "DROP OWNED BY $role" -c "DROP ROLE $role" >/dev/null 2>&1
finish
