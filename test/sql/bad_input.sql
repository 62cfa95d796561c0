-- The bad-input catalogue (docs/bad-input.md): one case per class that
-- test/sql/ingest_errors.sql and graph.sql do not already cover.  Every
-- case must give a clear error (or, where noted, an anomaly), and nothing
-- of a failed load may stay behind.
\set VERBOSITY default
SET client_min_messages = warning;
ALTER TABLE iso_history ALTER COLUMN history_id RESTART WITH 500;

-- 1. Malformed EDN at each nesting level
-- top level: a stray closing bracket, a list of non-maps, a tagged literal
-- (one list or vector around all records is accepted, as Clojure prints seqs)
SELECT iso_load_jepsen('bad', ']');
SELECT iso_load_jepsen('bad', '(1 2 3) {:type :ok, :value [[:w 1 1]]}');
SELECT count(*) AS records FROM iso_parse_jepsen('({:type :ok, :value [[:w 1 1]]})');
SELECT iso_load_jepsen('bad', '#inst "2024-01-01" {:type :ok, :value [[:w 1 1]]}');
-- record (map) level: odd number of forms, a non-keyword :type
SELECT iso_load_jepsen('bad', '{:type :ok, :value [[:w 1 1]], :process 1 2}');
SELECT iso_load_jepsen('bad', '{:type "ok", :value [[:w 1 1]]}');
-- :value level: a map, a list of non-vectors
SELECT iso_load_jepsen('bad', '{:type :ok, :value {:w 1}}');
SELECT iso_load_jepsen('bad', '{:type :ok, :value [:w 1 1]}');
-- micro-op level: four elements, a vector as key, a map as value, a float
SELECT iso_load_jepsen('bad', '{:type :ok, :value [[:w 1 1 1]]}');
SELECT iso_load_jepsen('bad', '{:type :ok, :value [[:w [1] 1]]}');
SELECT iso_load_jepsen('bad', '{:type :ok, :value [[:w 1 {:a 1}]]}');
SELECT iso_load_jepsen('bad', '{:type :ok, :value [[:w 1 1.5]]}');
-- list-read element level: nil and a nested vector inside a list read
SELECT iso_load_jepsen('bad', '{:type :ok, :value [[:append 1 1]]} {:type :ok, :value [[:r 1 [1 nil]]]}');
SELECT iso_load_jepsen('bad', '{:type :ok, :value [[:append 1 1]]} {:type :ok, :value [[:r 1 [[1]]]]}');

-- 2. Truncated input: inside a number, a keyword, right after '{', empty
SELECT iso_load_jepsen('bad', '{:type :ok, :value [[:w 1 12');
SELECT iso_load_jepsen('bad', '{:type :o');
SELECT iso_load_jepsen('bad', '{');
SELECT iso_load_jepsen('bad', '');
-- ... also with the workload given (it used to store an empty history),
-- and streamed; checked in memory, an empty text is a valid empty history
-- (as for Elle), and a comment makes a deliberately empty one
SELECT iso_load_jepsen('bad', '', 'list-append');
SELECT count(*) FILTER (WHERE holds) AS levels_that_hold FROM iso_levels_jepsen('   ', 'rw-register');
SELECT iso_delete_history(iso_load_jepsen('bad-but-commented', '; nothing happened', 'list-append'));
SELECT iso_begin_load('bad-stream', 'list-append');
COPY iso_jepsen_input FROM STDIN;
\.
SELECT count(*) AS bad_histories FROM iso_history WHERE name LIKE 'bad%';
-- JSON instead of EDN: the hint says so
SELECT iso_load_jepsen('bad', '{"type": "ok", "value": [["append", 1, 2]]}');
SELECT iso_load_jepsen('bad', '[ {"type": "ok"} ]');
SELECT * FROM iso_levels_jepsen(E'\n{"type":"ok","value":[]}');
SELECT iso_load_jepsen('bad', '   ');

-- 3. Invalid UTF-8 and NUL bytes never reach the parser: the server
-- rejects them when the text value is made
SELECT iso_load_jepsen('bad', convert_from('\x7b3a74797065203a6f6b2c203a76616c7565205b5b3a772031202261ff225d5d7d'::bytea, 'UTF8'));
SELECT iso_load_jepsen('bad', E'{:type :ok, :value [[:w 1 "a\xff"]]}');
SELECT iso_load_jepsen('bad', '{:type :ok, :value [[:w 1 "a' || chr(0) || '"]]}');
-- valid multi-byte UTF-8 is fine, and stays intact
SELECT iso_load_jepsen('utf8', '{:type :ok, :value [[:w "ключ" "värde-✓"]]}') > 0 AS loaded;
SELECT key, value FROM iso_event WHERE history_id = (SELECT history_id FROM iso_history WHERE name = 'utf8');

-- 4. Enormous integers: 1000 digits, in :process and :time
SELECT iso_load_jepsen('bad', '{:type :ok, :value [[:w 1 ' || repeat('9', 1000) || ']]}');
SELECT iso_load_jepsen('bad', '{:type :ok, :process 99999999999999999999, :value [[:w 1 1]]}');
SELECT iso_load_jepsen('bad', '{:type :ok, :time -99999999999999999999, :value [[:w 1 1]]}');
-- the extremes of 64 bits are fine
SELECT iso_load_jepsen('int64', '{:type :ok, :process 9223372036854775807, :time -9223372036854775808, :value [[:w -9223372036854775808 9223372036854775807]]}') > 0 AS loaded;

-- 5. Deep nesting: 64 levels are accepted in an ignored field, 65 are not
SELECT iso_load_jepsen('deep64', '{:type :ok, :value [[:w 1 1]], :error ' || repeat('[', 63) || repeat(']', 63) || '}') > 0 AS loaded;
SELECT iso_load_jepsen('bad', '{:type :ok, :value [[:w 1 1]], :error ' || repeat('[', 64) || repeat(']', 64) || '}');
SELECT iso_load_jepsen('bad', '{:type :ok, :value [[:w 1 1]], :error ' || repeat('{:a ', 100000) || '}');

-- 6. Duplicate written values: an append repeated in list-append (also
-- within one transaction); the same value on two keys is fine
SELECT iso_load_jepsen('bad', '{:type :ok, :value [[:append 1 5]]} {:type :fail, :value [[:append 1 5]]}');
SELECT iso_load_jepsen('bad', '{:type :ok, :value [[:append 1 5] [:append 1 5]]}');
SELECT iso_load_jepsen('two-keys', '{:type :ok, :value [[:w 1 5] [:w 2 5]]}') > 0 AS loaded;

-- 7. Rows through COPY that the checker cannot interpret: the first
-- function that builds the graph reports them
INSERT INTO iso_history (history_id, name, workload) OVERRIDING SYSTEM VALUE VALUES (900, 'copy-register', 'rw-register');
COPY iso_event (history_id, txn_id, process, status, pos, op, key, value, read_value, read_list) FROM stdin WITH (FORMAT csv);
900,1,0,ok,0,w,x,1,,
900,2,0,ok,0,append,x,2,,
\.
SELECT count(*) FROM iso_build_graph(900);
DELETE FROM iso_event WHERE history_id = 900 AND op = 'append';
-- a list read in a register history
INSERT INTO iso_event (history_id, txn_id, status, pos, op, key, read_list) VALUES (900, 3, 'ok', 0, 'r', 'x', '{1}');
SELECT count(*) FROM iso_graph_stats(900);
DELETE FROM iso_event WHERE history_id = 900 AND txn_id = 3;
-- one transaction's rows disagree on status / process / times
INSERT INTO iso_event (history_id, txn_id, process, status, pos, op, key, value) VALUES
  (900, 4, 0, 'ok', 0, 'w', 'y', '1'), (900, 4, 0, 'fail', 1, 'w', 'y', '2');
SELECT count(*) FROM iso_check('ser', 900);
DELETE FROM iso_event WHERE history_id = 900 AND txn_id = 4;
INSERT INTO iso_event (history_id, txn_id, process, status, pos, op, key, value) VALUES
  (900, 4, 0, 'ok', 0, 'w', 'y', '1'), (900, 4, NULL, 'ok', 1, 'w', 'y', '2');
SELECT count(*) FROM iso_levels(900);
DELETE FROM iso_event WHERE history_id = 900 AND txn_id = 4;
-- list-append: a NULL element and a two-dimensional read_list
INSERT INTO iso_history (history_id, name, workload) OVERRIDING SYSTEM VALUE VALUES (901, 'copy-list', 'list-append');
INSERT INTO iso_event (history_id, txn_id, status, pos, op, key, value, read_list) VALUES
  (901, 1, 'ok', 0, 'append', 'x', '1', NULL), (901, 2, 'ok', 0, 'r', 'x', NULL, '{1,NULL}');
SELECT count(*) FROM iso_build_graph(901);
UPDATE iso_event SET read_list = '{{1},{2}}' WHERE history_id = 901 AND txn_id = 2;
SELECT count(*) FROM iso_build_graph(901);
-- a register write in a list-append history
UPDATE iso_event SET op = 'w', read_list = NULL, value = '3' WHERE history_id = 901 AND txn_id = 2;
SELECT count(*) FROM iso_build_graph(901);

-- 8. NULLs and wrong types through COPY: the table's constraints
COPY iso_event (history_id, txn_id, status, pos, op, key, value) FROM stdin WITH (FORMAT csv);
901,5,,0,append,x,9
\.
COPY iso_event (history_id, txn_id, status, pos, op, key, value) FROM stdin WITH (FORMAT csv);
901,5,maybe,0,append,x,9
\.
COPY iso_event (history_id, txn_id, status, pos, op, key, value) FROM stdin WITH (FORMAT csv);
901,five,ok,0,append,x,9
\.
COPY iso_event (history_id, txn_id, status, pos, op, key, value) FROM stdin WITH (FORMAT csv);
901,5,ok,-1,append,x,9
\.
COPY iso_event (history_id, txn_id, status, pos, op, key, value) FROM stdin WITH (FORMAT csv);
901,5,ok,0,delete,x,9
\.
COPY iso_event (history_id, txn_id, status, pos, op, key, value) FROM stdin WITH (FORMAT csv);
901,5,ok,0,append,,9
\.
COPY iso_event (history_id, txn_id, status, pos, op, key, value) FROM stdin WITH (FORMAT csv);
901,5,ok,0,append,x,
\.
COPY iso_event (history_id, txn_id, status, pos, op, key, value, read_value, read_list) FROM stdin WITH (FORMAT csv);
901,5,ok,0,r,x,,1,{1}
\.
COPY iso_event (history_id, txn_id, status, pos, op, key, value) FROM stdin WITH (FORMAT csv);
999999,5,ok,0,append,x,9
\.
COPY iso_event (history_id, txn_id, status, pos, op, key, value) FROM stdin WITH (FORMAT csv);
901,1,ok,0,append,x,9
\.
COPY iso_event (history_id, txn_id, status, pos, op, key, value) FROM stdin WITH (FORMAT csv);
901,99999999999999999999,ok,0,append,x,9
\.
\set VERBOSITY terse
INSERT INTO iso_history (name, workload) VALUES ('bad', 'set');
INSERT INTO iso_history (name, workload) VALUES (NULL, 'list-append');
\set VERBOSITY default

-- 9. Reads of unknown keys and values are anomalies, not errors
SELECT iso_load_jepsen('unknown-reads', '{:type :ok, :value [[:w 1 1]]}
{:type :ok, :value [[:r 2 7] [:r 1 8]]}') AS h \gset
SELECT anomaly, txns, key, explanation FROM iso_anomalies(:h) ORDER BY key;
SELECT iso_load_jepsen('unknown-list-reads', '{:type :ok, :value [[:append 1 1]]}
{:type :ok, :value [[:r 2 [4]] [:r 3 []]]}') AS h \gset
SELECT anomaly, txns, key FROM iso_anomalies(:h) ORDER BY key;

-- 10. Version orders: unknown values, duplicates, and a cycle with the
-- history's own evidence
SELECT iso_load_jepsen('versions', '{:type :ok, :value [[:r 1 nil] [:w 1 1]]}
{:type :ok, :value [[:r 1 1] [:w 1 2]]}') AS h \gset
-- a value nobody wrote, from a WAL log: an error ...
SELECT iso_load_versions(:h, '{"type":2300,"data":{"_key":"1","rwAttr":9}}');
-- ... through COPY: ignored (no edge can use it); so is an unknown key
INSERT INTO iso_version (history_id, key, position, value) VALUES (:h, '1', 0, '9'), (:h, 'nokey', 0, '1');
SELECT ww, wr, rw, anomalies, version_order FROM iso_graph_stats(:h);
-- the same value twice for one key, two values at one position
INSERT INTO iso_version (history_id, key, position, value) VALUES (:h, '1', 5, '9');
INSERT INTO iso_version (history_id, key, position, value) VALUES (:h, '1', 0, '2');
-- a log that contradicts write-follows-read (2 before 1): cyclic-versions
DELETE FROM iso_version WHERE history_id = :h;
INSERT INTO iso_version (history_id, key, position, value) VALUES (:h, '1', 0, '2'), (:h, '1', 1, '1');
SELECT anomaly, txns, key, explanation FROM iso_anomalies(:h);
SELECT level, holds FROM iso_levels(:h) WHERE level IN ('pl-1', 'ser');
-- versions for a history that does not exist, or a negative position
INSERT INTO iso_version (history_id, key, position, value) VALUES (999999, '1', 0, '1');
INSERT INTO iso_version (history_id, key, position, value) VALUES (:h, '1', -1, '7');

-- Nothing of the failed loads remains; clean up.
SELECT count(*) AS bad FROM iso_history WHERE name = 'bad';
SELECT count(*) AS deleted FROM (SELECT iso_delete_history(history_id) FROM iso_history) d;
SELECT count(*) AS events_left FROM iso_event;
RESET client_min_messages;
