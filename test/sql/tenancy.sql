-- Many roles sharing isograph (0.4.0): every role loads through COPY and
-- the loaders without further grants, sees and changes only its own
-- histories, and can neither disturb nor lock the others' nor learn of them.
-- Histories belong to role oids: a rename keeps them, a new role of a
-- dropped role's name does not inherit them.
--
-- Generated history ids never appear in the output (they depend on the
-- tests run before): errors naming one print it as N.
SET client_min_messages = warning;
DROP ROLE IF EXISTS regress_iso_alice;
DROP ROLE IF EXISTS regress_iso_carol;
DROP ROLE IF EXISTS regress_iso_bob;
CREATE ROLE regress_iso_alice;
CREATE ROLE regress_iso_bob;

-- The error (SQLSTATE, message, detail, hint) of sql with $1 = h, the id
-- replaced by N; 'ok' if it succeeded.  Callable by every role.
CREATE FUNCTION pg_temp.error_of(sql text, h bigint) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  d text;
  hi text;
BEGIN
  EXECUTE sql USING h;
  RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
  GET STACKED DIAGNOSTICS d = PG_EXCEPTION_DETAIL, hi = PG_EXCEPTION_HINT;
  RETURN SQLSTATE || ': ' || replace(SQLERRM, h::text, 'N') || ' / ' || replace(d, h::text, 'N') || ' / ' || hi;
END $$;

------------------------------------------------------------------------------
-- 1. COPY into iso_event as a non-superuser, as the README shows: create
--    the history row, write the CSV with its id, \copy it.
------------------------------------------------------------------------------
SET ROLE regress_iso_alice;
INSERT INTO iso_history (name, workload, source) VALUES ('from-my-tool', 'list-append', 'my-tool')
RETURNING history_id AS alice_h \gset
\pset tuples_only on
\pset format csv
SELECT :alice_h, txn_id, process, status, invoke_time, complete_time, pos, op, key, value,
       NULL, read_list
  FROM (VALUES (1, 0, 'ok', 1000, 1500, 0, 'append', 'x', '1', NULL),
               (1, 0, 'ok', 1000, 1500, 1, 'r', 'y', NULL, '{}'),
               (3, 1, 'ok', 1200, 1800, 0, 'r', 'x', NULL, '{1}'),
               (3, 1, 'ok', 1200, 1800, 1, 'append', 'y', '1', NULL),
               (5, 2, 'fail', 1300, 1400, 0, 'append', 'x', '2', NULL))
       AS v(txn_id, process, status, invoke_time, complete_time, pos, op, key, value, read_list)
\g results/tenancy_events.csv
\pset format aligned
\pset tuples_only off
\copy iso_event FROM 'results/tenancy_events.csv' WITH (FORMAT csv)
SELECT txn_id, process, status, pos, op, key, value, read_value, read_list
  FROM iso_event ORDER BY txn_id, pos;
SELECT count(*) AS levels_that_hold FROM iso_levels(:alice_h) WHERE holds;
-- its image, outdated by a later COPY into the history
SELECT iso_save_image(:alice_h) > 0 AS saved;
SELECT events_rev FROM iso_history;
INSERT INTO iso_event (history_id, txn_id, process, status, pos, op, key, value)
VALUES (:alice_h, 7, 3, 'ok', 0, 'append', 'z', '1');
SELECT events_rev, (SELECT count(*) FROM iso_history_image) AS image_rows FROM iso_history;
-- a statement's rows are checked against the table's constraints
SELECT pg_temp.error_of($$INSERT INTO iso_event (history_id, txn_id, status, pos, op, key)
                          VALUES ($1, 8, 'maybe', 0, 'r', 'x')$$, :alice_h);
SELECT pg_temp.error_of($$INSERT INTO iso_event (history_id, txn_id, status, pos, op, key, value)
                          VALUES ($1, 1, 'ok', 0, 'append', 'x', '1')$$, :alice_h);
-- the loaders, the graph and the version order
SELECT iso_load_jepsen('register', '{:type :ok, :process 0, :value [[:w 1 1]]}
{:type :ok, :process 1, :value [[:w 1 2]]}
{:type :ok, :process 2, :value [[:r 1 2]]}', 'rw-register') AS alice_reg \gset
SELECT iso_load_versions(:alice_reg, '{"tick":"1","type":2300,"db":"rwRegister","tid":"1","data":{"_key":"1","rwAttr":1}}
{"tick":"2","type":2300,"db":"rwRegister","tid":"2","data":{"_key":"1","rwAttr":2}}');
SELECT iso_materialize_graph(:alice_reg) > 0 AS materialized;
INSERT INTO iso_history (name, workload) VALUES ('copied register', 'rw-register')
RETURNING history_id AS alice_reg2 \gset
INSERT INTO iso_event (history_id, txn_id, status, pos, op, key, value, read_value)
SELECT :alice_reg2, txn_id, status, pos, op, key, value, read_value FROM iso_event
 WHERE history_id = :alice_reg;
INSERT INTO iso_version (history_id, key, position, value)
SELECT :alice_reg2, key, position, value FROM iso_version WHERE history_id = :alice_reg;
SELECT version_order, unknown_order_keys FROM iso_graph_stats(:alice_reg2);
SELECT name, owner, source FROM iso_history ORDER BY name;
-- a CSV without a history_id column goes into the history this session
-- created last (the views' default: currval of the id sequence)
INSERT INTO iso_history (name, workload) VALUES ('csv without ids', 'list-append')
RETURNING history_id AS alice_noid \gset
\copy iso_event (txn_id, process, status, pos, op, key, value, read_list) FROM STDIN WITH (FORMAT csv)
1,0,ok,0,append,x,1,
2,1,ok,0,r,x,,{1}
\.
SELECT history_id = :alice_noid AS into_the_new_history, count(*) AS rows
  FROM iso_event WHERE history_id = :alice_noid GROUP BY history_id;
SELECT iso_delete_history(:alice_noid) AS deleted;

------------------------------------------------------------------------------
-- 2. Another role sees none of it, cannot write into it, and learns
--    nothing from the errors: another role's history id is refused exactly
--    like an id that does not exist.
------------------------------------------------------------------------------
SET ROLE regress_iso_bob;
SELECT (SELECT count(*) FROM iso_history) AS histories, (SELECT count(*) FROM iso_event) AS events,
       (SELECT count(*) FROM iso_event_chunk) AS event_chunks, (SELECT count(*) FROM iso_version) AS versions,
       (SELECT count(*) FROM iso_edge) AS edges, (SELECT count(*) FROM iso_history_image) AS images;
SELECT pg_temp.error_of($$INSERT INTO iso_event (history_id, txn_id, status, pos, op, key, value)
                          VALUES ($1, 9, 'ok', 0, 'append', 'x', '9')$$, :alice_h) AS alices;
SELECT pg_temp.error_of($$INSERT INTO iso_event (history_id, txn_id, status, pos, op, key, value)
                          VALUES ($1, 9, 'ok', 0, 'append', 'x', '9')$$, :alice_h + 1000000) AS nonexistent;
SELECT pg_temp.error_of($$INSERT INTO iso_version (history_id, key, position, value)
                          VALUES ($1, '1', 5, '9')$$, :alice_reg) AS alices_versions;
\copy iso_event (history_id, txn_id, status, pos, op, key, value) FROM STDIN WITH (FORMAT csv)
999999999,9,ok,0,append,x,9
\.
-- no table-level write: not on the views, not on the tables
SELECT pg_temp.error_of('UPDATE iso_event SET key = key WHERE history_id = $1', :alice_h);
SELECT pg_temp.error_of('DELETE FROM iso_event WHERE history_id = $1', :alice_h);
SELECT pg_temp.error_of('DELETE FROM iso_event_chunk WHERE history_id = $1', :alice_h);
SELECT pg_temp.error_of($$INSERT INTO iso_event_chunk (history_id, chunk, nrows, first_txn, first_pos, last_txn, last_pos, data)
                          VALUES ($1, 9, 1, 9, 0, 9, 0, '\x')$$, :alice_h);
SELECT pg_temp.error_of('DELETE FROM iso_version WHERE history_id = $1', :alice_reg);
SELECT pg_temp.error_of('DELETE FROM iso_edge WHERE history_id = $1', :alice_reg);
SELECT pg_temp.error_of('DELETE FROM iso_history_image WHERE history_id = $1', :alice_h);
SELECT pg_temp.error_of('DELETE FROM iso_history WHERE history_id = $1', :alice_h);
SELECT pg_temp.error_of('TRUNCATE iso_event_chunk', 0);
-- its own columns of iso_history it may update, of its own rows only
WITH u AS (UPDATE iso_history SET name = 'mine now' WHERE history_id = :alice_h RETURNING 1)
SELECT count(*) AS updated FROM u;
SELECT iso_delete_history(:alice_h) AS deleted_alices;
SELECT pg_temp.error_of('SELECT iso_save_image($1)', :alice_h);
SELECT pg_temp.error_of('SELECT iso_materialize_graph($1)', :alice_h);
SELECT pg_temp.error_of('SELECT iso_load_versions($1, $$$$)', :alice_reg);
SELECT pg_temp.error_of('SELECT * FROM iso_version_order_witness($1, $$ser$$)', :alice_reg);

------------------------------------------------------------------------------
-- 3. History ids are generated, owners are the current role: explicit ids
--    (which would make another role's later loads fail with duplicate
--    keys), owner spoofing and isograph's own columns are refused.
------------------------------------------------------------------------------
SELECT pg_temp.error_of($$INSERT INTO iso_history (history_id, name, workload)
                          VALUES ($1 + 5, 'future', 'list-append')$$, :alice_h);
SELECT pg_temp.error_of($$INSERT INTO iso_history (history_id, name, workload)
                          OVERRIDING SYSTEM VALUE VALUES ($1 + 5, 'future', 'list-append')$$, :alice_h);
SELECT pg_temp.error_of($$INSERT INTO iso_history (name, workload, owner)
                          VALUES ('spoof', 'list-append', 'regress_iso_alice')$$, 0);
SELECT pg_temp.error_of($$INSERT INTO iso_history (name, workload, events_rev)
                          VALUES ('rev', 'list-append', 5)$$, 0);
INSERT INTO iso_history (name, workload) VALUES ('bobs', 'list-append') RETURNING history_id AS bob_h \gset
SELECT pg_temp.error_of($$UPDATE iso_history SET owner = 'regress_iso_alice' WHERE history_id = $1$$, :bob_h);
SELECT pg_temp.error_of($$UPDATE iso_history SET events_rev = 0 WHERE history_id = $1$$, :bob_h);
SELECT pg_temp.error_of($$UPDATE iso_history SET history_id = 1 WHERE history_id = $1$$, :bob_h);
SELECT name, owner FROM iso_history;

------------------------------------------------------------------------------
-- 4. No role can lock a table or view of isograph in a mode above ROW
--    EXCLUSIVE (which would block every other role): LOCK TABLE needs a
--    table-level UPDATE, DELETE or TRUNCATE privilege, which no role has.
------------------------------------------------------------------------------
SELECT c.relname, m.mode,
       pg_temp.error_of(format('LOCK TABLE %I IN %s MODE', c.relname, m.mode), 0) AS result
  FROM pg_class c
 CROSS JOIN unnest(ARRAY['ROW EXCLUSIVE', 'SHARE UPDATE EXCLUSIVE', 'SHARE',
                         'SHARE ROW EXCLUSIVE', 'EXCLUSIVE', 'ACCESS EXCLUSIVE']) WITH ORDINALITY m(mode, n)
 WHERE c.relnamespace = 'public'::regnamespace AND c.relname LIKE 'iso\_%' AND c.relkind IN ('r', 'v')
 ORDER BY c.relname, m.n;

------------------------------------------------------------------------------
-- 5. Owners are role oids: a renamed role keeps its histories.
------------------------------------------------------------------------------
RESET ROLE;
ALTER ROLE regress_iso_alice RENAME TO regress_iso_carol;
SET ROLE regress_iso_carol;
SELECT name, owner FROM iso_history ORDER BY name;
SELECT count(*) AS events FROM iso_event;
SELECT count(*) AS levels_that_hold FROM iso_levels(:alice_h) WHERE holds;

------------------------------------------------------------------------------
-- 6. Names are unique per owner: a superuser may load a history named like
--    another role's.
------------------------------------------------------------------------------
SELECT iso_load_jepsen('shared name', '{:type :ok, :value [[:append 1 1]]}') > 0 AS carol_loaded;
SELECT pg_temp.error_of($$SELECT iso_load_jepsen('shared name', '{:type :ok, :value [[:append 1 1]]}')$$, 0);
RESET ROLE;
SELECT iso_load_jepsen('shared name', '{:type :ok, :value [[:append 1 1]]}') AS su_h \gset
SELECT pg_temp.error_of($$SELECT iso_load_jepsen('shared name', '{:type :ok, :value [[:append 1 1]]}')$$, 0);
SELECT iso_delete_history(:su_h);

------------------------------------------------------------------------------
-- 7. A dropped role's histories stay, owned by its oid, visible to
--    superusers only (who can delete them); a new role of the same name
--    does not inherit them.  (PostgreSQL records no dependency of a table
--    row on a role: DROP ROLE cannot refuse.)
------------------------------------------------------------------------------
DROP ROLE regress_iso_bob;
SELECT name, owner::text ~ '^[0-9]+$' AS owner_is_a_dropped_oid FROM iso_history WHERE history_id = :bob_h;
CREATE ROLE regress_iso_bob;
SET ROLE regress_iso_bob;
SELECT count(*) AS inherited FROM iso_history;
SELECT iso_delete_history(:bob_h) AS deleted_by_new_bob;
RESET ROLE;
SELECT iso_delete_history(:bob_h) AS deleted_by_superuser;

-- clean up
SET ROLE regress_iso_carol;
SELECT count(*) AS deleted FROM (SELECT iso_delete_history(history_id) FROM iso_history) d;
SELECT (SELECT count(*) FROM iso_event) AS events, (SELECT count(*) FROM iso_version) AS versions,
       (SELECT count(*) FROM iso_edge) AS edges;
RESET ROLE;
DROP ROLE regress_iso_carol;
DROP ROLE regress_iso_bob;
