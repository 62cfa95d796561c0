-- Loading through COPY, exactly as the README shows, and the psql idioms
-- for large files that need no superuser rights.
SET client_min_messages = warning;

-- The README's worked example: a list-append history from "my tool".
INSERT INTO iso_history (history_id, name, workload, source) OVERRIDING SYSTEM VALUE
VALUES (7, 'from-my-tool', 'list-append', 'my-tool');
\copy iso_event FROM 'test/data/copy/events.csv' WITH (FORMAT csv, HEADER true)
SELECT txn_id, process, status, pos, op, key, value, read_value, read_list
  FROM iso_event WHERE history_id = 7 ORDER BY txn_id, pos;
SELECT * FROM iso_build_graph(7);
SELECT level, holds FROM iso_levels(7) WHERE NOT holds;
-- T1 appended 1 to x and read y = []; T3 read x = [1] and appended 1 to y:
-- T1 -wr-> T3 (x) and T1 -rw-> T3 (y): no cycle, every level holds.
SELECT count(*) AS levels_that_hold FROM iso_levels(7) WHERE holds;

-- A register history and its version order through COPY.
INSERT INTO iso_history (history_id, name, workload) OVERRIDING SYSTEM VALUE VALUES (8, 'copied-register', 'rw-register');
INSERT INTO iso_event (history_id, txn_id, status, pos, op, key, value, read_value) VALUES
  (8, 1, 'ok', 0, 'w', 'k', '1', NULL),
  (8, 2, 'ok', 0, 'w', 'k', '2', NULL),
  (8, 3, 'ok', 0, 'r', 'k', NULL, '1');
\copy iso_version FROM 'test/data/copy/versions.csv' WITH (FORMAT csv, HEADER true)
SELECT * FROM iso_build_graph(8);
SELECT version_order, unknown_order_keys FROM iso_graph_stats(8);

-- Bad rows through COPY: wrong types and NULLs are rejected by the table.
\copy iso_event FROM 'test/data/copy/bad-types.csv' WITH (FORMAT csv, HEADER true)
\copy iso_event (history_id, txn_id, status, pos, op) FROM STDIN WITH (FORMAT csv)
7,9,ok,0,r
\.
INSERT INTO iso_event (history_id, txn_id, status, pos, op, key) VALUES (7, 9, NULL, 0, 'r', 'x');
-- ... and rows the table accepts but the checker cannot interpret are
-- reported when the graph is built.
INSERT INTO iso_event (history_id, txn_id, status, pos, op, key, value) VALUES (7, 11, 'ok', 0, 'w', 'x', '5');
SELECT * FROM iso_build_graph(7);
DELETE FROM iso_event WHERE history_id = 7 AND txn_id = 11;
INSERT INTO iso_event (history_id, txn_id, process, status, pos, op, key, value) VALUES
  (7, 11, 0, 'ok', 0, 'append', 'z', '5'), (7, 11, 1, 'ok', 1, 'append', 'z', '6');
SELECT * FROM iso_build_graph(7);
DELETE FROM iso_event WHERE history_id = 7 AND txn_id = 11;
INSERT INTO iso_event (history_id, txn_id, status, pos, op, key, read_list) VALUES
  (7, 11, 'ok', 0, 'r', 'x', '{1,NULL}');
SELECT * FROM iso_levels(7);
DELETE FROM iso_event WHERE history_id = 7 AND txn_id = 11;

-- Large files from psql without superuser rights or server files:
-- 1. read the file on the client into a variable
\set edn `cat test/data/register/g0.edn`
SELECT iso_load_jepsen('via-variable', :'edn') > 0 AS loaded;
-- 2. a client-side large object, for files of hundreds of megabytes
\o /dev/null
\lo_import test/data/register/g1c.edn
\o
SELECT iso_load_jepsen('via-large-object', convert_from(lo_get(:LASTOID), 'UTF8')) > 0 AS loaded;
\o /dev/null
\lo_unlink :LASTOID
\o
SELECT name, workload, (SELECT count(*) FROM iso_event e WHERE e.history_id = h.history_id) AS events
  FROM iso_history h WHERE name LIKE 'via-%' ORDER BY name;
-- invalid UTF-8 in a file is caught by convert_from before isograph sees it
SELECT iso_load_jepsen('bad-utf8', convert_from('\x7b3a74797065203aff'::bytea, 'UTF8'));

SELECT count(*) AS deleted FROM (SELECT iso_delete_history(history_id) FROM iso_history) d;
