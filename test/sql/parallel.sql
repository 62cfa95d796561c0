-- isograph.* settings in parallel queries.  The library is loaded by a
-- session's first isograph call; when that call ran during a parallel
-- operation (in a worker, or in the leader once the executor entered
-- parallel mode), PostgreSQL could not apply the session's settings and
-- they silently kept their defaults: a join with a 100k-row table counted
-- every witness three times, and a role's max_memory cap was ignored.
SET client_min_messages = warning;

-- 1. Parallel safety and volatility of every function of the extension:
-- only iso_parse_jepsen, which reads no setting and no table, is SAFE;
-- the checks read with a snapshot of their own: VOLATILE.
SELECT p.oid::regprocedure AS function, p.proparallel, p.provolatile, p.proisstrict
  FROM pg_proc p
  JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid
  JOIN pg_extension e ON e.oid = d.refobjid
 WHERE d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e' AND e.extname = 'isograph'
 ORDER BY 1::text;

-- Four write skews, a history made here: in pair i, two transactions read
-- keys a-i and b-i (both empty) and append to one each.
SELECT string_agg(format('{:type :ok, :f :txn, :value [[:r "a-%1$s" []] [:r "b-%1$s" []] [:append "a-%1$s" 1]]}' || E'\n' ||
                         '{:type :ok, :f :txn, :value [[:r "a-%1$s" []] [:r "b-%1$s" []] [:append "b-%1$s" 1]]}', i),
                  E'\n' ORDER BY i) AS edn
  FROM generate_series(1, 4) i \gset
SELECT current_user AS regress_user \gset
SELECT iso_load_jepsen('parallel-skew', :'edn') AS h \gset
CREATE TABLE regress_runs AS
	SELECT g AS id, 'parallel-skew'::text AS history_name FROM generate_series(1, 100000) g;
ANALYZE regress_runs;
SELECT count(*) AS witnesses_by_default FROM iso_check('ser', :h);

-- 2. The README's join with test metadata, in fresh sessions whose first
-- isograph call is in the query: one witness per history asked for, so
-- one row per run (100000)
\c
SET client_min_messages = warning;
SET isograph.max_witnesses = 1;
SET force_parallel_mode = on;
SELECT count(*) AS runs_joined FROM regress_runs r JOIN iso_check('ser', :h) c ON c.history = r.history_name;
\c
SET client_min_messages = warning;
SET isograph.max_witnesses = 1;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
-- no parallel plan: the check is PARALLEL UNSAFE
CREATE FUNCTION pg_temp.gathers(query text) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
	line text;
	n bigint := 0;
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || query LOOP
		n := n + (line LIKE '%Gather%')::int;
	END LOOP;
	RETURN n;
END
$$;
SELECT pg_temp.gathers(format('SELECT count(*) FROM regress_runs r JOIN iso_check(%L, %s) c ON c.history = r.history_name', 'ser', :h)) AS gather_nodes;
SELECT count(*) AS runs_joined FROM regress_runs r JOIN iso_check('ser', :h) c ON c.history = r.history_name;
-- the same settings do make a parallel plan of the table alone
SELECT pg_temp.gathers('SELECT count(*) FROM regress_runs r') AS gather_nodes;
SHOW isograph.max_witnesses;

-- 3. A role's max_memory cap holds in a fresh session's parallel query:
-- a history whose check needs more than 16MB, owned by the role
CREATE ROLE regress_iso_parallel LOGIN;
GRANT SELECT ON regress_runs TO regress_iso_parallel;
ALTER ROLE regress_iso_parallel SET isograph.max_memory = '16MB';
INSERT INTO iso_history (name, workload, source, owner)
	VALUES ('parallel-big', 'list-append', 'test', 'regress_iso_parallel')
	RETURNING history_id AS big \gset
INSERT INTO iso_event (history_id, txn_id, process, status, pos, op, key, value)
	SELECT :big, g, g % 10, 'ok', 0, 'append', (g % 100)::text, g::text
	  FROM generate_series(1, 200000) g;
\c - regress_iso_parallel
SET client_min_messages = warning;
SET force_parallel_mode = on;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
\set VERBOSITY terse
SELECT count(*) FROM regress_runs r JOIN iso_check('ser', :big) c ON c.history = r.history_name;
\set VERBOSITY default
SHOW isograph.max_memory;
-- without the cap the same check runs
SET isograph.max_memory = '1GB';
SELECT count(*) AS big_violations FROM iso_check('ser', :big);
\c - :regress_user

-- 4. A caller's own function mislabelled PARALLEL RESTRICTED still runs
-- isograph in a parallel query, and may load the library there: the check
-- refuses to run with settings it could not apply, and the next call
-- outside parallel mode applies them
CREATE FUNCTION regress_witnesses(h bigint) RETURNS bigint
LANGUAGE plpgsql PARALLEL RESTRICTED AS $$
BEGIN
	RETURN (SELECT count(*) FROM iso_check('ser', h));
END
$$;
\c
SET client_min_messages = warning;
SET isograph.max_witnesses = 1;
SET force_parallel_mode = on;
SELECT regress_witnesses(:h) FROM (SELECT count(*) FROM regress_runs) s;
RESET force_parallel_mode;
-- applied in a transaction that rolls back: applied again by the next call
BEGIN;
SELECT regress_witnesses(:h) AS witnesses;
ROLLBACK;
SELECT regress_witnesses(:h) AS witnesses;
SHOW isograph.max_witnesses;
-- a value SET after the library was loaded wins over the pending one
\c
SET client_min_messages = warning;
SET isograph.max_witnesses = 1;
SET force_parallel_mode = on;
SELECT regress_witnesses(:h) FROM (SELECT count(*) FROM regress_runs) s;
RESET force_parallel_mode;
SET isograph.max_witnesses = 2;
SELECT regress_witnesses(:h) AS witnesses;
-- every setting's value is kept so, isograph.search_timeout's too (it was
-- left out of the list, and lost with a WARNING)
\c
SET client_min_messages = warning;
SET isograph.search_timeout = '5s';
SET force_parallel_mode = on;
SELECT regress_witnesses(:h) FROM (SELECT count(*) FROM regress_runs) s;
RESET force_parallel_mode;
SELECT regress_witnesses(:h) AS witnesses;
SHOW isograph.search_timeout;

SELECT iso_delete_history(:h);
SELECT iso_delete_history(:big);
DROP FUNCTION regress_witnesses(bigint);
DROP TABLE regress_runs;
DROP OWNED BY regress_iso_parallel;
DROP ROLE regress_iso_parallel;
