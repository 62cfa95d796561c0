-- Events stored packed (0.5.0): iso_event_chunk holds up to 16384 events
-- per row, in (txn_id, pos) order; the view iso_event unpacks them.
-- Rows written out of order are sorted when the statement ends, a repeated
-- key is refused, UPDATE and DELETE rewrite the chunks, and damaged chunks
-- are errors, never crashes.  Chunks carry their database encoding.
SET client_min_messages = warning;

-- a history's chunks: numbers from 0, keys in order within and across
CREATE FUNCTION pg_temp.chunks(h bigint) RETURNS TABLE (chunk int, nrows int, first text, last text)
LANGUAGE sql AS $$
  SELECT chunk, nrows, first_txn || '/' || first_pos, last_txn || '/' || last_pos
    FROM iso_event_chunk WHERE history_id = h ORDER BY chunk $$;
CREATE FUNCTION pg_temp.in_order(h bigint) RETURNS boolean LANGUAGE sql AS $$
  SELECT bool_and(ok) FROM (
    SELECT (txn_id, pos) > lag((txn_id, pos)) OVER (ORDER BY n) OR lag(txn_id) OVER (ORDER BY n) IS NULL AS ok
      FROM (SELECT e.txn_id, e.pos, row_number() OVER () AS n
              FROM (SELECT data FROM iso_event_chunk WHERE history_id = h ORDER BY chunk) c,
                   iso_event_rows(c.data) e) r) o $$;

------------------------------------------------------------------------------
-- 1. Out of order, in one statement and across statements.
------------------------------------------------------------------------------
INSERT INTO iso_history (history_id, name, workload) OVERRIDING SYSTEM VALUE
  VALUES (7001, 'chunks-order', 'list-append');
INSERT INTO iso_event (history_id, txn_id, status, pos, op, key, value, read_list) VALUES
  (7001, 2, 'ok', 1, 'append', 'y', '1', NULL),
  (7001, 2, 'ok', 0, 'r', 'x', NULL, '{1}'),
  (7001, 1, 'ok', 0, 'append', 'x', '1', NULL);
SELECT * FROM pg_temp.chunks(7001);
-- in order: a new chunk after the last
INSERT INTO iso_event (history_id, txn_id, status, pos, op, key, read_list) VALUES
  (7001, 3, 'ok', 0, 'r', 'y', '{1}');
SELECT * FROM pg_temp.chunks(7001);
-- before the first: the history's chunks are written again, in order
INSERT INTO iso_event (history_id, txn_id, status, pos, op, key, read_list) VALUES
  (7001, 0, 'ok', 0, 'r', 'y', '{}');
SELECT * FROM pg_temp.chunks(7001);
SELECT txn_id, pos, op, key, value, read_list FROM iso_event WHERE history_id = 7001;
SELECT pg_temp.in_order(7001) AS in_order;
SELECT level, holds FROM iso_levels(7001) WHERE level IN ('ser', 'strict-serializable');

------------------------------------------------------------------------------
-- 2. A key twice: refused like the primary key of 0.4.0, whether it repeats
--    a stored event or one of the same statement, in order or not; the
--    statement leaves nothing behind.
------------------------------------------------------------------------------
\set VERBOSITY default
INSERT INTO iso_event (history_id, txn_id, status, pos, op, key, value) VALUES
  (7001, 3, 'ok', 0, 'append', 'z', '9');
INSERT INTO iso_event (history_id, txn_id, status, pos, op, key, value) VALUES
  (7001, 9, 'ok', 0, 'append', 'z', '9'), (7001, 9, 'ok', 0, 'append', 'z', '8');
INSERT INTO iso_event (history_id, txn_id, status, pos, op, key, value) VALUES
  (7001, 9, 'ok', 0, 'append', 'z', '9'), (7001, 8, 'ok', 0, 'append', 'z', '8'),
  (7001, 9, 'ok', 0, 'append', 'z', '7');
\set VERBOSITY terse
SELECT * FROM pg_temp.chunks(7001);

------------------------------------------------------------------------------
-- 3. Many events: chunks of at most 16384, the same bytes whatever the
--    order they were written in (one statement in reverse order, and
--    three statements of which the second goes back).
------------------------------------------------------------------------------
INSERT INTO iso_history (history_id, name, workload) OVERRIDING SYSTEM VALUE
  VALUES (7002, 'chunks-forward', 'list-append'), (7003, 'chunks-backward', 'list-append'),
         (7004, 'chunks-pieces', 'list-append');
CREATE TEMP TABLE many AS
  SELECT t AS txn_id, p AS pos, (t % 7)::bigint AS process, t * 10 AS invoke_time, t * 10 + 5 AS complete_time,
         CASE WHEN p = 0 THEN 'append' ELSE 'r' END AS op, (t % 50)::text AS key,
         CASE WHEN p = 0 THEN t::text END AS value,
         CASE WHEN p = 1 THEN ARRAY[t::text] END AS read_list
    FROM generate_series(1, 20000) t, generate_series(0, 1) p;
INSERT INTO iso_event (history_id, txn_id, process, status, invoke_time, complete_time, pos, op, key, value, read_list)
  SELECT 7002, txn_id, process, 'ok', invoke_time, complete_time, pos, op, key, value, read_list
    FROM many ORDER BY txn_id, pos;
INSERT INTO iso_event (history_id, txn_id, process, status, invoke_time, complete_time, pos, op, key, value, read_list)
  SELECT 7003, txn_id, process, 'ok', invoke_time, complete_time, pos, op, key, value, read_list
    FROM many ORDER BY txn_id DESC, pos DESC;
INSERT INTO iso_event (history_id, txn_id, process, status, invoke_time, complete_time, pos, op, key, value, read_list)
  SELECT 7004, txn_id, process, 'ok', invoke_time, complete_time, pos, op, key, value, read_list
    FROM many WHERE txn_id > 10000 ORDER BY txn_id, pos;
INSERT INTO iso_event (history_id, txn_id, process, status, invoke_time, complete_time, pos, op, key, value, read_list)
  SELECT 7004, txn_id, process, 'ok', invoke_time, complete_time, pos, op, key, value, read_list
    FROM many WHERE txn_id <= 5000 ORDER BY txn_id, pos;
INSERT INTO iso_event (history_id, txn_id, process, status, invoke_time, complete_time, pos, op, key, value, read_list)
  SELECT 7004, txn_id, process, 'ok', invoke_time, complete_time, pos, op, key, value, read_list
    FROM many WHERE txn_id > 5000 AND txn_id <= 10000 ORDER BY txn_id, pos;
SELECT history_id, count(*) AS chunks, sum(nrows) AS events, max(nrows) AS largest,
       md5(string_agg(md5(data), ',' ORDER BY chunk)) = (SELECT md5(string_agg(md5(data), ',' ORDER BY chunk))
                                                          FROM iso_event_chunk WHERE history_id = 7002) AS same_bytes
  FROM iso_event_chunk WHERE history_id IN (7002, 7003, 7004) GROUP BY history_id ORDER BY history_id;
-- the view gives back exactly what was written
SELECT count(*) AS differences FROM (
  (SELECT txn_id, pos, process, invoke_time, complete_time, op, key, value, read_list FROM iso_event WHERE history_id = 7003
   EXCEPT ALL SELECT txn_id, pos, process, invoke_time, complete_time, op, key, value, read_list FROM many)
  UNION ALL
  (SELECT txn_id, pos, process, invoke_time, complete_time, op, key, value, read_list FROM many
   EXCEPT ALL SELECT txn_id, pos, process, invoke_time, complete_time, op, key, value, read_list FROM iso_event WHERE history_id = 7003)) d;
SELECT pg_temp.in_order(7004) AS in_order;
SELECT count(*) FILTER (WHERE holds) AS levels_that_hold FROM iso_levels(7004);
-- a history's rows come from its chunks only (the planner uses the key)
EXPLAIN (COSTS OFF) SELECT count(*) FROM iso_event WHERE history_id = 7002;

------------------------------------------------------------------------------
-- 4. UPDATE and DELETE (the owner, a superuser here) write the history's
--    chunks again and outdate its image.
------------------------------------------------------------------------------
SELECT iso_save_image(7001) > 0 AS saved;
-- T0's read of y becomes [1]: the image is outdated, the chunk rewritten
UPDATE iso_event SET read_list = '{1}' WHERE history_id = 7001 AND txn_id = 0;
SELECT events_rev, (SELECT count(*) FROM iso_history_image i WHERE i.history_id = 7001) AS image_rows
  FROM iso_history WHERE history_id = 7001;
SELECT txn_id, pos, op, key, value, read_list FROM iso_event WHERE history_id = 7001;
SELECT * FROM pg_temp.chunks(7001);
-- T1 appended x = 1: without it, T2's read of x = [1] reads a value nobody wrote
DELETE FROM iso_event WHERE history_id = 7001 AND txn_id = 1;
SELECT txn_id, pos, op, key FROM iso_event WHERE history_id = 7001;
SELECT anomaly FROM iso_check('pl-1', 7001);
-- an UPDATE that keeps the key and one that moves the event
UPDATE iso_event SET value = '2' WHERE history_id = 7001 AND txn_id = 2 AND pos = 1;
UPDATE iso_event SET txn_id = 5 WHERE history_id = 7001 AND txn_id = 3;
SELECT txn_id, pos, op, key, value, read_list FROM iso_event WHERE history_id = 7001;
SELECT pg_temp.in_order(7001) AS in_order;
-- an UPDATE onto an existing key is refused
UPDATE iso_event SET txn_id = 2 WHERE history_id = 7001 AND txn_id = 5;
-- rows of several histories in one statement
DELETE FROM iso_event WHERE history_id IN (7002, 7003) AND txn_id > 100;
SELECT history_id, count(*) AS chunks, sum(nrows) AS events FROM iso_event_chunk
 WHERE history_id IN (7002, 7003) GROUP BY history_id ORDER BY history_id;

------------------------------------------------------------------------------
-- 5. Damage: a changed byte, a cut chunk, chunks out of order.  Errors
--    with SQLSTATE XX001, never a crash.
------------------------------------------------------------------------------
\set VERBOSITY default
BEGIN;
UPDATE iso_event_chunk SET data = set_byte(data, 0, 0) WHERE history_id = 7002;
SELECT count(*) FROM iso_event WHERE history_id = 7002;
ROLLBACK;
BEGIN;
UPDATE iso_event_chunk SET data = substr(data, 1, length(data) - 3) WHERE history_id = 7002;
SET LOCAL isograph.use_image = off;
SELECT count(*) FROM iso_levels(7002);
ROLLBACK;
BEGIN;
INSERT INTO iso_event_chunk SELECT 7002, 1, nrows, first_txn, first_pos, last_txn, last_pos, data
  FROM iso_event_chunk WHERE history_id = 7003;
SET LOCAL isograph.use_image = off;
SELECT count(*) FROM iso_levels(7002);
ROLLBACK;
SELECT count(*) FROM iso_event_rows('\x4945ff');
SELECT count(*) FROM iso_event_rows('\x4945010600000001');
\set VERBOSITY terse

------------------------------------------------------------------------------
-- 6. Another encoding: a chunk written in UTF8 read in a LATIN1 database
--    (what a dump restored there carries) gives the same text.
------------------------------------------------------------------------------
INSERT INTO iso_history (history_id, name, workload) OVERRIDING SYSTEM VALUE
  VALUES (7005, 'chunks-encoding', 'list-append');
INSERT INTO iso_event (history_id, txn_id, status, pos, op, key, value, read_list) VALUES
  (7005, 1, 'ok', 0, 'append', 'clé', 'été', NULL),
  (7005, 2, 'ok', 0, 'r', 'clé', NULL, '{été}');
SELECT encode(data, 'hex') AS chunk_hex FROM iso_event_chunk WHERE history_id = 7005 \gset
SELECT current_database() AS regress_db \gset
DROP DATABASE IF EXISTS isograph_latin1;
CREATE DATABASE isograph_latin1 TEMPLATE template0 ENCODING 'LATIN1' LC_COLLATE 'C' LC_CTYPE 'C';
\c isograph_latin1
SET client_min_messages = warning;
SET client_encoding = 'UTF8';
CREATE EXTENSION isograph;
INSERT INTO iso_history (history_id, name, workload) OVERRIDING SYSTEM VALUE
  VALUES (7005, 'chunks-encoding', 'list-append');
INSERT INTO iso_event_chunk (history_id, chunk, nrows, first_txn, first_pos, last_txn, last_pos, data)
  VALUES (7005, 0, 2, 1, 0, 2, 0, decode(:'chunk_hex', 'hex'));
SELECT txn_id, key, value, read_list, octet_length(key) AS key_bytes FROM iso_event WHERE history_id = 7005;
SELECT count(*) FILTER (WHERE holds) AS levels_that_hold FROM iso_levels(7005);
\c :regress_db
DROP DATABASE isograph_latin1;

SELECT iso_delete_history(h) FROM unnest(ARRAY[7001, 7002, 7003, 7004, 7005]) h;
SELECT count(*) AS chunks_left FROM iso_event_chunk WHERE history_id BETWEEN 7001 AND 7005;

------------------------------------------------------------------------------
-- 7. The same as a role that is not a superuser: its out-of-order rows are
--    sorted (the rewrite deletes chunks with the tables' owner's rights,
--    after the role's own checks), a repeated key is refused, single events
--    cannot be changed, and iso_event_rows refuses a hostile chunk.
------------------------------------------------------------------------------
SET client_min_messages = warning;
DROP ROLE IF EXISTS regress_iso_chunks;
CREATE ROLE regress_iso_chunks;
SET ROLE regress_iso_chunks;
INSERT INTO iso_history (name, workload) VALUES ('chunks-role', 'list-append') RETURNING history_id AS mine \gset
INSERT INTO iso_event (txn_id, status, pos, op, key, value, read_list) VALUES
  (2, 'ok', 0, 'r', 'x', NULL, '{1}'), (1, 'ok', 0, 'append', 'x', '1', NULL);
INSERT INTO iso_event (txn_id, status, pos, op, key, value) VALUES (0, 'ok', 0, 'append', 'y', '1');
SELECT chunk, nrows, first_txn, last_txn FROM iso_event_chunk WHERE history_id = :mine;
SELECT txn_id, op, key FROM iso_event WHERE history_id = :mine;
INSERT INTO iso_event (txn_id, status, pos, op, key, value) VALUES (1, 'ok', 0, 'append', 'z', '1');
UPDATE iso_event SET key = 'z' WHERE history_id = :mine;
DELETE FROM iso_event WHERE history_id = :mine;
-- one read of key 'k' whose list claims 2^40 elements, in a 20-byte chunk:
-- refused before any allocation
\set VERBOSITY default
SELECT count(*) FROM iso_event_rows('\x494501060100000024000000016b808080808020'::bytea);
-- version 2: a read of 'k' that keeps 1 element of the key's last list,
-- with no list of 'k' before it; then the same delta after a list of one
-- element, keeping 2
SELECT count(*) FROM iso_event_rows('\x494502060100000064000000016b0100'::bytea);
SELECT count(*) FROM iso_event_rows('\x494502060200000024000000016b0101316001016b0200'::bytea);
-- and kept right (1 element): both rows read {1}
SELECT txn_id, pos, key, read_list FROM iso_event_rows('\x494502060200000024000000016b0101316001016b0100'::bytea);
-- 12 kB whose 1100 deltas each keep the 4096 empty elements of the first
-- read: 4.5M elements kept, past the bound of 2^22 plus the chunk's
-- length; refused at the row that crosses it
SELECT octet_length(c) AS bytes, count(*)
  FROM (SELECT decode('494502064d040000' || '24000000016b8020' || repeat('00', 4096) ||
                      repeat('6000016b802000', 1100), 'hex') AS c) s,
       LATERAL iso_event_rows(c) GROUP BY 1;
\set VERBOSITY terse
SELECT count(*) FROM iso_event_rows(NULL);
SELECT iso_delete_history(:mine);
RESET ROLE;
DROP ROLE regress_iso_chunks;
