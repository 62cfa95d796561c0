-- iso_event_load: the same rows as iso_event, with read_list as the text
-- of its array literal, which isograph cuts into elements itself (the
-- common {a,b,c} form) or hands to array_in (every other form).  Whatever
-- the form, a literal must give the events, or the error, that iso_event
-- gives for it.
SET client_min_messages = warning;
DROP ROLE IF EXISTS regress_iso_loader;
DROP ROLE IF EXISTS regress_iso_other;
CREATE ROLE regress_iso_loader;
CREATE ROLE regress_iso_other;

-- The error of writing literal lit into view for history h (ids as N),
-- or 'ok'; a row written into iso_event_load from inside a query; the
-- Gather nodes of a query's plan.
CREATE FUNCTION pg_temp.error_of(view text, h bigint, lit text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  d text;
BEGIN
  EXECUTE format('INSERT INTO %I (history_id, txn_id, status, pos, op, key, read_list) VALUES (%s, 9, ''ok'', 0, ''r'', ''k'', %L)',
                 view, h, lit);
  RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
  GET STACKED DIAGNOSTICS d = PG_EXCEPTION_DETAIL;
  RETURN SQLSTATE || ': ' || regexp_replace(SQLERRM || ' / ' || d, 'history \d+', 'history N');
END $$;
-- The list stored by writing literal lit into view as transaction t of
-- history h, or the error.
CREATE FUNCTION pg_temp.outcome(view text, h bigint, t bigint, lit text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  stored text;
  d text;
BEGIN
  EXECUTE format('INSERT INTO %I (history_id, txn_id, status, pos, op, key, read_list) VALUES (%s, %s, ''ok'', 0, ''r'', ''k'', %L)',
                 view, h, t, lit);
  SELECT read_list::text INTO stored FROM iso_event WHERE history_id = h AND txn_id = t;
  RETURN 'stored ' || stored;
EXCEPTION WHEN OTHERS THEN
  GET STACKED DIAGNOSTICS d = PG_EXCEPTION_DETAIL;
  RETURN SQLSTATE || ': ' || regexp_replace(SQLERRM || ' / ' || d, 'history \d+', 'history N');
END $$;
CREATE FUNCTION pg_temp.load_one(h bigint, t bigint) RETURNS bigint LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO iso_event_load (history_id, txn_id, status, pos, op, key, read_list)
  VALUES (h, t, 'ok', 0, 'r', 'nested', '{' || t || ',' || t + 1 || '}');
  RETURN t;
END $$;
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

-- 1. The same CSV through both views, as a role without any grant.
SET ROLE regress_iso_loader;
INSERT INTO iso_history (name, workload) VALUES ('lists-via-iso_event', 'list-append')
RETURNING history_id AS h_array \gset
\copy iso_event (txn_id, process, status, invoke_time, complete_time, pos, op, key, value, read_value, read_list) FROM 'test/data/copy/lists.csv' WITH (FORMAT csv, HEADER true)
INSERT INTO iso_history (name, workload) VALUES ('lists-via-iso_event_load', 'list-append')
RETURNING history_id AS h_text \gset
\copy iso_event_load (txn_id, process, status, invoke_time, complete_time, pos, op, key, value, read_value, read_list) FROM 'test/data/copy/lists.csv' WITH (FORMAT csv, HEADER true)

-- every event the same, element by element (no row in either difference)
SELECT count(*) AS events,
       (SELECT count(*) FROM iso_event WHERE history_id = :h_text) AS events_via_load
  FROM iso_event WHERE history_id = :h_array;
SELECT 'only via iso_event' AS side, * FROM (
  SELECT txn_id, process, status, invoke_time, complete_time, pos, op, key, value, read_value, read_list
    FROM iso_event WHERE history_id = :h_array
  EXCEPT ALL
  SELECT txn_id, process, status, invoke_time, complete_time, pos, op, key, value, read_value, read_list
    FROM iso_event WHERE history_id = :h_text) d
UNION ALL
SELECT 'only via iso_event_load', * FROM (
  SELECT txn_id, process, status, invoke_time, complete_time, pos, op, key, value, read_value, read_list
    FROM iso_event WHERE history_id = :h_text
  EXCEPT ALL
  SELECT txn_id, process, status, invoke_time, complete_time, pos, op, key, value, read_value, read_list
    FROM iso_event WHERE history_id = :h_array) d;
-- what the lists are: elements, each quoted, and their count
SELECT pos, key, cardinality(read_list) AS n,
       (SELECT string_agg(quote_literal(e), ' ' ORDER BY o) FROM unnest(read_list) WITH ORDINALITY u(e, o)) AS elements
  FROM iso_event WHERE history_id = :h_text AND op = 'r' ORDER BY txn_id, pos;
-- iso_event_load keeps none of them (reading it returns no rows)
SELECT count(*) AS rows_kept_in_iso_event_load FROM iso_event_load;
-- and the checks agree
SELECT a.level, a.holds, b.holds AS holds_via_load
  FROM iso_levels(:h_array) a JOIN iso_levels(:h_text) b USING (level)
 WHERE a.holds IS DISTINCT FROM b.holds OR NOT a.holds;

-- 2. Bad literals: the same error through both views, or none through
--    either.
SELECT lit, e AS error_via_iso_event,
       pg_temp.error_of('iso_event_load', :h_text, lit) = e AS same_via_load
  FROM unnest(ARRAY['{1,NULL}', '{null}', '{NULL,1}', '{{1},{2}}', '{1,,2}', '{,}', '{1,2',
                    '1,2', '{a}b', '{"a}', '[1:2]={1}', '', '{1,2}}', '{1,2}x']) lit,
       LATERAL pg_temp.error_of('iso_event', :h_array, lit) e;
-- nothing of them was stored
SELECT count(*) AS stored_by_bad_literals FROM iso_event WHERE history_id IN (:h_array, :h_text) AND txn_id = 9;

-- 2b. Random literals, most of them in braces, from pieces that array_in
--     reads apart (quotes, backslashes, blanks, NULL in any case, empty
--     elements, nesting, dimensions): each stores the same list through
--     both views, or raises the same error through both.
INSERT INTO iso_history (name, workload) VALUES ('random-via-iso_event', 'list-append')
RETURNING history_id AS h_rand_array \gset
INSERT INTO iso_history (name, workload) VALUES ('random-via-iso_event_load', 'list-append')
RETURNING history_id AS h_rand_text \gset
SELECT setseed(0.25);
CREATE TEMP TABLE random_literal AS
SELECT t, CASE WHEN random() < 0.85 THEN '{' || body || '}' ELSE body END AS lit
  FROM (SELECT t, string_agg((ARRAY['1', '23', 'x', 'é', ',', ',', ',', 'NULL', 'null', 'nUlL', 'NULLS',
                                    '"', '\', ' ', E'\t', '{', '}', '[1:1]=', ''''])
                             [1 + floor(random() * 19)::int], '' ORDER BY i) AS body
          FROM generate_series(1000, 2999) t, LATERAL generate_series(1, 1 + floor(random() * 7)::int + 0 * t) i
         GROUP BY t) b;
-- and literals of more than 8 KB (3000 elements)
INSERT INTO random_literal
SELECT 3000 + v, replace(l, '}', tail)
  FROM (SELECT '{' || string_agg(i::text, ',') || '}' AS l FROM generate_series(1, 3000) i) a,
       unnest(ARRAY['}', ',NULL}', ',,1}', ' }', ',"x"}'], ARRAY[0, 1, 2, 3, 4]) AS t(tail, v);
CREATE TEMP TABLE random_outcome AS
SELECT t, lit, pg_temp.outcome('iso_event', :h_rand_array, t, lit) AS via_iso_event,
       pg_temp.outcome('iso_event_load', :h_rand_text, t, lit) AS via_iso_event_load
  FROM random_literal;
-- both kinds of outcome are well represented, and none differs
SELECT count(*) AS literals,
       count(*) FILTER (WHERE via_iso_event LIKE 'stored %') > 300 AS many_stored,
       count(*) FILTER (WHERE via_iso_event NOT LIKE 'stored %') > 300 AS many_refused,
       count(DISTINCT via_iso_event) FILTER (WHERE via_iso_event NOT LIKE 'stored %') >= 4 AS several_errors
  FROM random_outcome;
SELECT t, lit, via_iso_event, via_iso_event_load FROM random_outcome
 WHERE via_iso_event IS DISTINCT FROM via_iso_event_load ORDER BY t;
-- the long ones: stored; refused (a NULL element, an empty one); stored
-- through array_in (a blank it trims, a quoted element)
SELECT t, left(via_iso_event_load, 40) AS outcome, via_iso_event = via_iso_event_load AS same
  FROM random_outcome WHERE t >= 3000 ORDER BY t;
SELECT iso_delete_history(:h_rand_array) AND iso_delete_history(:h_rand_text) AS deleted_random;
DROP TABLE random_literal, random_outcome;

-- 3. INSERT ... RETURNING gives the row as written.
INSERT INTO iso_event_load (history_id, txn_id, status, pos, op, key, read_list)
VALUES (:h_text, 10, 'ok', 0, 'r', 'k', '{7,8}') RETURNING txn_id, read_list;

-- 4. Another role cannot write into this role's history through
--    iso_event_load; events are changed through iso_event only.
RESET ROLE;
SET ROLE regress_iso_other;
SELECT pg_temp.error_of('iso_event_load', :h_text, '{1}') AS other_role_writes;
SELECT count(*) AS other_role_sees FROM iso_event WHERE history_id = :h_text;
RESET ROLE;
SET ROLE regress_iso_loader;
UPDATE iso_event_load SET key = 'q' WHERE history_id = :h_text;
DELETE FROM iso_event_load WHERE history_id = :h_text;

-- 5. A statement into one events view run between two rows of a statement
--    into the other (a function in the SELECT): each keeps its own way of
--    reading read_list, and every row of both is stored.
INSERT INTO iso_event (history_id, txn_id, status, pos, op, key, read_list)
SELECT :h_array, pg_temp.load_one(:h_text, t), 'ok', 0, 'r', 'outer', ARRAY[t::text]
  FROM generate_series(100, 104) t;
SELECT history_id = :h_text AS via_load, key, count(*), string_agg(read_list::text, ' ' ORDER BY txn_id)
  FROM iso_event WHERE history_id IN (:h_array, :h_text) AND txn_id >= 100
 GROUP BY 1, 2 ORDER BY 1, 2;

-- 6. Read in a parallel plan: still no rows, and no error.
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET force_parallel_mode = on;
SELECT pg_temp.gathers(format('SELECT read_list FROM iso_event_load WHERE history_id = %s', :h_text)) > 0 AS parallel_plan;
SELECT count(*) AS rows_in_parallel FROM iso_event_load WHERE history_id = :h_text;
RESET force_parallel_mode;
RESET max_parallel_workers_per_gather;

-- 7. iso_event_load is a table of the access method iso_load, which gets
--    COPY's rows a batch at a time when the CSV names history_id, one at
--    a time when history_id comes from its default: the same events
--    either way.
SELECT c.relkind, a.amname FROM pg_class c JOIN pg_am a ON a.oid = c.relam
 WHERE c.oid = 'iso_event_load'::regclass;
INSERT INTO iso_history (name, workload) VALUES ('lists-in-batches', 'list-append')
RETURNING history_id AS h_batch \gset
\setenv ISO_H :h_batch
\copy iso_event_load FROM PROGRAM 'sed "1d; s/^/$ISO_H,/" test/data/copy/lists.csv' WITH (FORMAT csv)
SELECT count(*) AS events_in_batches,
       count(*) = (SELECT count(*) FROM iso_event WHERE history_id = :h_text AND txn_id < 9) AS as_many_as_one_by_one
  FROM iso_event WHERE history_id = :h_batch;
SELECT count(*) AS differing FROM (
  (SELECT txn_id, process, status, invoke_time, complete_time, pos, op, key, value, read_value, read_list
     FROM iso_event WHERE history_id = :h_batch
   EXCEPT ALL
   SELECT txn_id, process, status, invoke_time, complete_time, pos, op, key, value, read_value, read_list
     FROM iso_event WHERE history_id = :h_array)
  UNION ALL
  (SELECT txn_id, process, status, invoke_time, complete_time, pos, op, key, value, read_value, read_list
     FROM iso_event WHERE history_id = :h_array AND txn_id < 9
   EXCEPT ALL
   SELECT txn_id, process, status, invoke_time, complete_time, pos, op, key, value, read_value, read_list
     FROM iso_event WHERE history_id = :h_batch)) d;

-- 8. An error names the row's line, also when COPY hands rows over in
--    batches: exactly when each row is one line (line 1502, in the second
--    batch; line 3 after a header, in the last batch), and the lines it
--    is among when rows span lines or WHERE skips some.  Nothing of them
--    is stored.
\copy iso_event_load FROM PROGRAM 'seq 1 2000 | awk -v h=$ISO_H ''{ s = ($1 == 1502) ? "bad" : "ok"; print h "," $1 ",1," s ",1,2,0,append,k," $1 ",," }''' WITH (FORMAT csv)
\copy iso_event_load FROM PROGRAM 'seq 1 10 | awk -v h=$ISO_H ''BEGIN { print "header" } { s = ($1 == 2) ? "bad" : "ok"; print h "," $1 ",1," s ",1,2,0,append,k," $1 ",," }''' WITH (FORMAT csv, HEADER true)
\copy iso_event_load FROM PROGRAM 'seq 1 10 | awk -v h=$ISO_H ''{ s = ($1 == 4) ? "bad" : "ok"; print h "," $1 ",1," s ",1,2,0,append,\"k\n" $1 "\"," $1 ",," }''' WITH (FORMAT csv)
\copy iso_event_load FROM PROGRAM 'seq 1 10 | awk -v h=$ISO_H ''{ s = ($1 == 4) ? "bad" : "ok"; print h "," $1 ",1," s ",1,2,0,append,k," $1 ",," }''' WITH (FORMAT csv) WHERE txn_id % 2 = 0
-- one row at a time (history_id from its default): the line and its text
\copy iso_event_load (txn_id, process, status, invoke_time, complete_time, pos, op, key, value, read_value, read_list) FROM PROGRAM 'seq 1 10 | awk ''{ s = ($1 == 7) ? "bad" : "ok"; print $1 ",1," s ",1,2,0,append,k," $1 ",," }''' WITH (FORMAT csv)
SELECT count(*) AS stored_by_failed_copies FROM iso_event WHERE history_id = :h_batch AND key LIKE 'k%';

-- 8b. A COPY that fails inside a savepoint, then two more in the same
--     transaction: the next ones store their rows, and an error of the
--     last still names its own line (nothing is carried over from the
--     failed COPY's batches).
BEGIN;
SAVEPOINT before_copy;
\copy iso_event_load FROM PROGRAM 'seq 5001 6500 | awk -v h=$ISO_H ''{ s = ($1 == 6200) ? "bad" : "ok"; print h "," $1 ",1," s ",1,2,0,append,k," $1 ",," }''' WITH (FORMAT csv)
ROLLBACK TO SAVEPOINT before_copy;
\copy iso_event_load FROM PROGRAM 'seq 5001 6500 | awk -v h=$ISO_H ''{ print h "," $1 ",1,ok,1,2,0,append,s," $1 ",," }''' WITH (FORMAT csv)
SAVEPOINT after_copy;
\copy iso_event_load FROM PROGRAM 'seq 7001 7300 | awk -v h=$ISO_H ''{ s = ($1 == 7201) ? "bad" : "ok"; print h "," $1 ",1," s ",1,2,0,append,s," $1 ",," }''' WITH (FORMAT csv)
ROLLBACK TO SAVEPOINT after_copy;
SELECT count(*) AS stored_after_the_failed_copy FROM iso_event WHERE history_id = :h_batch AND key = 's';
ROLLBACK;

-- 9. What the table cannot do: it has no rows to change or lock, and
--    the access method stores rows of iso_event_load only.
RESET ROLE;
UPDATE iso_event_load SET key = 'q';
DELETE FROM iso_event_load;
SELECT * FROM iso_event_load FOR UPDATE;
CREATE INDEX ON iso_event_load (txn_id);
ANALYZE iso_event_load;
VACUUM iso_event_load;
-- moved to another tablespace: an empty file there, the old one dropped
SET allow_in_place_tablespaces = on;
CREATE TABLESPACE regress_iso_space LOCATION '';
SELECT pg_relation_filepath('iso_event_load') AS old_file \gset
ALTER TABLE iso_event_load SET TABLESPACE regress_iso_space;
CHECKPOINT;	-- a dropped file stays, empty, until the next checkpoint
SELECT (pg_stat_file(:'old_file', true)).size AS old_file_size,
       (pg_stat_file(pg_relation_filepath('iso_event_load'))).size AS new_file_size;
ALTER TABLE iso_event_load SET TABLESPACE pg_default;
DROP TABLESPACE regress_iso_space;
RESET allow_in_place_tablespaces;
SELECT count(*) AS rows_after_analyze_and_vacuum FROM iso_event_load;
-- a column the owner added, then dropped: rows are still read by name,
-- in batches and one at a time
ALTER TABLE iso_event_load ADD COLUMN regress_note text;
\copy iso_event_load (history_id, txn_id, status, pos, op, key, value, regress_note) FROM PROGRAM 'seq 8001 8003 | awk -v h=$ISO_H ''{ print h "," $1 ",ok,0,append,n," $1 ",x" }''' WITH (FORMAT csv)
ALTER TABLE iso_event_load DROP COLUMN regress_note;
\copy iso_event_load (history_id, txn_id, status, pos, op, key, value) FROM PROGRAM 'seq 8004 8005 | awk -v h=$ISO_H ''{ print h "," $1 ",ok,0,append,n," $1 }''' WITH (FORMAT csv)
INSERT INTO iso_event_load (history_id, txn_id, status, pos, op, key, value) VALUES (:h_batch, 8006, 'ok', 0, 'append', 'n', '8006');
SELECT string_agg(txn_id || ':' || value, ' ' ORDER BY txn_id) AS stored_by_name
  FROM iso_event WHERE history_id = :h_batch AND key = 'n';
CREATE TABLE regress_not_events (history_id bigint, txn_id bigint) USING iso_load;
INSERT INTO regress_not_events VALUES (1, 1);
CREATE INDEX ON regress_not_events (txn_id);
DROP TABLE regress_not_events;
SET ROLE regress_iso_loader;
CREATE TEMP TABLE regress_not_events (history_id bigint) USING iso_load;
INSERT INTO regress_not_events VALUES (:h_text);
\set VERBOSITY sqlstate
INSERT INTO regress_not_events VALUES (:h_text);
\set VERBOSITY default
DROP TABLE regress_not_events;

RESET ROLE;
SELECT count(*) AS deleted FROM (SELECT iso_delete_history(history_id) FROM iso_history) d;
DROP ROLE regress_iso_loader;
DROP ROLE regress_iso_other;
