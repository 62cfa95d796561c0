-- Streaming load: iso_begin_load, then the EDN file's lines written to the
-- view iso_jepsen_input (COPY), gives exactly what iso_load_jepsen of the
-- same text gives: the same iso_event rows, history metadata, image and
-- verdicts.  Errors (a bad line, no open load, two loads at once, an
-- aborted load) leave nothing behind, and a role without superuser rights
-- loads this way too.
-- (the NOTICE of a finished load names its history_id, which depends on
-- the tests run before: warnings only)
SET client_min_messages = warning;
\set SHOW_CONTEXT errors

-- the differences between two histories: events, metadata, verdicts
CREATE FUNCTION pg_temp.differences(a bigint, b bigint)
RETURNS TABLE (events bigint, event_diffs bigint, meta_diffs bigint,
               images boolean, level_diffs bigint)
LANGUAGE sql AS $$
  WITH ea AS (SELECT txn_id, process, status, invoke_time, complete_time, pos, op,
                     key, value, read_value, read_list FROM iso_event WHERE history_id = a),
       eb AS (SELECT txn_id, process, status, invoke_time, complete_time, pos, op,
                     key, value, read_value, read_list FROM iso_event WHERE history_id = b)
  SELECT (SELECT count(*) FROM eb),
         (SELECT count(*) FROM ((SELECT * FROM ea EXCEPT ALL SELECT * FROM eb)
                                UNION ALL (SELECT * FROM eb EXCEPT ALL SELECT * FROM ea)) d),
         (SELECT count(*) FROM (SELECT workload, source, skipped, metadata FROM iso_history WHERE history_id = a
                                EXCEPT SELECT workload, source, skipped, metadata FROM iso_history WHERE history_id = b) m),
         (SELECT count(DISTINCT history_id) = 2 FROM iso_history_image WHERE history_id IN (a, b)),
         (SELECT count(*) FROM ((SELECT level, holds, violations, strongest, note, method, search_constraints, search_constraints_pruned, search_solver_calls FROM iso_levels(a)
                                 EXCEPT ALL SELECT level, holds, violations, strongest, note, method, search_constraints, search_constraints_pruned, search_solver_calls FROM iso_levels(b))
                                UNION ALL (SELECT level, holds, violations, strongest, note, method, search_constraints, search_constraints_pruned, search_solver_calls FROM iso_levels(b)
                                 EXCEPT ALL SELECT level, holds, violations, strongest, note, method, search_constraints, search_constraints_pruned, search_solver_calls FROM iso_levels(a))) l)
$$;
CREATE TEMP TABLE compared (file text, events bigint, event_diffs bigint, meta_diffs bigint,
                            images boolean, level_diffs bigint);

------------------------------------------------------------------------------
-- a. Histories from test/data, loaded both ways (multi-line maps, strings
--    with backslashes and quotes, nemesis records, never-completed and
--    paired invocations, a register history, real time)
------------------------------------------------------------------------------
\set edn `cat test/data/rules/jepsen-multiline.edn`
SELECT iso_load_jepsen('whole multiline', :'edn') AS whole \gset
SELECT iso_begin_load('stream multiline');
\copy iso_jepsen_input FROM 'test/data/rules/jepsen-multiline.edn' WITH (FORMAT csv, QUOTE E'\x01', DELIMITER E'\x02')
INSERT INTO compared SELECT 'rules/jepsen-multiline.edn', * FROM pg_temp.differences(:whole,
  (SELECT history_id FROM iso_history WHERE name = 'stream multiline'));

\set edn `cat test/data/rules/jepsen-strings.edn`
SELECT iso_load_jepsen('whole strings', :'edn') AS whole \gset
SELECT iso_begin_load('stream strings');
\copy iso_jepsen_input FROM 'test/data/rules/jepsen-strings.edn' WITH (FORMAT csv, QUOTE E'\x01', DELIMITER E'\x02')
INSERT INTO compared SELECT 'rules/jepsen-strings.edn', * FROM pg_temp.differences(:whole,
  (SELECT history_id FROM iso_history WHERE name = 'stream strings'));

\set edn `cat test/data/rules/jepsen-nemesis.edn`
SELECT iso_load_jepsen('whole nemesis', :'edn') AS whole \gset
SELECT iso_begin_load('stream nemesis');
\copy iso_jepsen_input FROM 'test/data/rules/jepsen-nemesis.edn' WITH (FORMAT csv, QUOTE E'\x01', DELIMITER E'\x02')
INSERT INTO compared SELECT 'rules/jepsen-nemesis.edn', * FROM pg_temp.differences(:whole,
  (SELECT history_id FROM iso_history WHERE name = 'stream nemesis'));

\set edn `cat test/data/rules/jepsen-never-completed.edn`
SELECT iso_load_jepsen('whole never-completed', :'edn') AS whole \gset
SELECT iso_begin_load('stream never-completed');
\copy iso_jepsen_input FROM 'test/data/rules/jepsen-never-completed.edn' WITH (FORMAT csv, QUOTE E'\x01', DELIMITER E'\x02')
INSERT INTO compared SELECT 'rules/jepsen-never-completed.edn', * FROM pg_temp.differences(:whole,
  (SELECT history_id FROM iso_history WHERE name = 'stream never-completed'));

\set edn `cat test/data/rules/jepsen-pairing.edn`
SELECT iso_load_jepsen('whole pairing', :'edn') AS whole \gset
SELECT iso_begin_load('stream pairing');
\copy iso_jepsen_input FROM 'test/data/rules/jepsen-pairing.edn' WITH (FORMAT csv, QUOTE E'\x01', DELIMITER E'\x02')
INSERT INTO compared SELECT 'rules/jepsen-pairing.edn', * FROM pg_temp.differences(:whole,
  (SELECT history_id FROM iso_history WHERE name = 'stream pairing'));

\set edn `cat test/data/register/g-single.edn`
SELECT iso_load_jepsen('whole g-single', :'edn', 'rw-register') AS whole \gset
SELECT iso_begin_load('stream g-single', 'rw-register');
\copy iso_jepsen_input FROM 'test/data/register/g-single.edn' WITH (FORMAT csv, QUOTE E'\x01', DELIMITER E'\x02')
INSERT INTO compared SELECT 'register/g-single.edn', * FROM pg_temp.differences(:whole,
  (SELECT history_id FROM iso_history WHERE name = 'stream g-single'));

\set edn `cat test/data/rules/lvl-realtime.edn`
SELECT iso_load_jepsen('whole realtime', :'edn') AS whole \gset
SELECT iso_begin_load('stream realtime');
\copy iso_jepsen_input FROM 'test/data/rules/lvl-realtime.edn' WITH (FORMAT csv, QUOTE E'\x01', DELIMITER E'\x02')
INSERT INTO compared SELECT 'rules/lvl-realtime.edn', * FROM pg_temp.differences(:whole,
  (SELECT history_id FROM iso_history WHERE name = 'stream realtime'));

-- every file: the same events (none differ), metadata, an image each, verdicts
SELECT * FROM compared ORDER BY file;

-- inline: a history in a vector, several maps on a line, a map over two
-- lines, a blank line, a comment; COPY counts the lines
SELECT iso_load_jepsen('whole inline', E'[{:type :invoke, :process 0, :value [[:append 1 1]]} {:type :ok, :process 0, :value [[:append 1 1]]}\n\n; a comment\n{:type :ok, :process 1,\n :value [[:r 1 [1]]]}]\n') AS whole \gset
SELECT iso_begin_load('stream inline');
COPY iso_jepsen_input FROM STDIN WITH (FORMAT csv, QUOTE E'\x01', DELIMITER E'\x02');
[{:type :invoke, :process 0, :value [[:append 1 1]]} {:type :ok, :process 0, :value [[:append 1 1]]}

; a comment
{:type :ok, :process 1,
 :value [[:r 1 [1]]]}]
\.
SELECT * FROM pg_temp.differences(:whole, (SELECT history_id FROM iso_history WHERE name = 'stream inline'));
-- plain INSERTs work too (one statement: one load)
SELECT iso_begin_load('stream insert');
INSERT INTO iso_jepsen_input VALUES ('{:type :ok, :value [[:append 1 1]]}'), ('{:type :ok, :value [[:r 1 [1]]]}');
SELECT name, workload, (SELECT count(*) FROM iso_event e WHERE e.history_id = h.history_id) AS events
  FROM iso_history h WHERE name = 'stream insert';

------------------------------------------------------------------------------
-- b. Errors leave nothing behind
------------------------------------------------------------------------------
CREATE TEMP TABLE before AS SELECT (SELECT count(*) FROM iso_history) AS histories,
                                   (SELECT count(*) FROM iso_event) AS events;
-- no open load
INSERT INTO iso_jepsen_input VALUES ('{:type :ok, :value [[:append 1 1]]}');
-- a bad line: the error names its line; the load is used up
SELECT iso_begin_load('bad line');
COPY iso_jepsen_input FROM STDIN WITH (FORMAT csv, QUOTE E'\x01', DELIMITER E'\x02');
{:type :ok, :value [[:append 1 1]]}
{:type :ok, :value [[:append 1 2]]}
{:type :ok, :value [[:append 1 1 :x]]}
{:type :ok, :value [[:append 1 3]]}
\.
INSERT INTO iso_jepsen_input VALUES ('{:type :ok, :value [[:append 1 1]]}');
-- the same error as iso_load_jepsen
SELECT iso_load_jepsen('bad line', E'{:type :ok, :value [[:append 1 1]]}\n{:type :ok, :value [[:append 1 2]]}\n{:type :ok, :value [[:append 1 1 :x]]}\n{:type :ok, :value [[:append 1 3]]}\n');
-- a value written twice: a stream names the second write (its bitmaps know
-- that a small integer was written, not where); a string value names the
-- first too; nothing of either load stays
SELECT iso_begin_load('duplicate');
INSERT INTO iso_jepsen_input VALUES ('{:type :ok, :value [[:append 1 1]]}'), ('{:type :ok, :value [[:append 1 2]]}'), ('{:type :ok, :value [[:append 1 1]]}');
SELECT iso_begin_load('duplicate string');
INSERT INTO iso_jepsen_input VALUES ('{:type :ok, :value [[:append 1 "a"]]}'), ('{:type :ok, :value [[:append 1 "a"]]}');
SELECT count(*) AS left_behind FROM iso_history WHERE name LIKE 'duplicate%';
-- a record that never ends
SELECT iso_begin_load('unterminated');
INSERT INTO iso_jepsen_input VALUES ('{:type :ok, :value [[:append 1 1]]}'), ('{:type :ok, :value [[:r 1 [1]]');
-- no workload to tell: the hint says how to give it
SELECT iso_begin_load('no workload');
INSERT INTO iso_jepsen_input VALUES ('{:type :ok, :value [[:r 1 nil]]}');
-- two loads at once
SELECT iso_begin_load('first');
SELECT iso_begin_load('second');
SELECT iso_cancel_load();
SELECT iso_cancel_load();
INSERT INTO iso_jepsen_input VALUES ('{:type :ok, :value [[:append 1 1]]}');
-- a name that exists fails at the first line
SELECT iso_begin_load('stream inline');
INSERT INTO iso_jepsen_input VALUES ('{:type :ok, :value [[:append 1 1]]}');
-- an aborted transaction takes its load along, and the open request too
SELECT iso_begin_load('aborted');
BEGIN;
INSERT INTO iso_jepsen_input VALUES ('{:type :ok, :value [[:append 1 1]]}');
SELECT count(*) AS visible_inside FROM iso_history WHERE name = 'aborted';
ROLLBACK;
INSERT INTO iso_jepsen_input VALUES ('{:type :ok, :value [[:append 1 1]]}');
BEGIN;
SELECT iso_begin_load('begun in an aborted transaction');
ROLLBACK;
INSERT INTO iso_jepsen_input VALUES ('{:type :ok, :value [[:append 1 1]]}');
-- a savepoint rolled back after a failed load: nothing; the next load works
SELECT iso_begin_load('savepoint');
BEGIN;
SAVEPOINT s;
INSERT INTO iso_jepsen_input VALUES ('{:type :ok, :value [[:append 1 1]]}'), ('{:type :ok');
ROLLBACK TO SAVEPOINT s;
SELECT iso_begin_load('savepoint');
INSERT INTO iso_jepsen_input VALUES ('{:type :ok, :value [[:append 1 1]]}');
COMMIT;
-- one history more ('savepoint'), with one event; nothing else
SELECT (SELECT count(*) FROM iso_history) - histories AS new_histories,
       (SELECT count(*) FROM iso_event) - events AS new_events,
       (SELECT string_agg(name, ', ') FROM iso_history WHERE name IN
         ('bad line', 'unterminated', 'no workload', 'first', 'second', 'aborted',
          'begun in an aborted transaction', 'savepoint')) AS names
  FROM before;

-- the line trigger on a relation of another shape is refused, not misread
CREATE VIEW pg_temp.wrong_input AS SELECT 1::int AS line WHERE false;
CREATE TRIGGER wrong_line INSTEAD OF INSERT ON pg_temp.wrong_input
  FOR EACH ROW EXECUTE FUNCTION iso_jepsen_input_line();
SELECT iso_begin_load('wrong shape');
INSERT INTO pg_temp.wrong_input VALUES (42);
SELECT iso_cancel_load();

------------------------------------------------------------------------------
-- c. A role without superuser rights (INSERT on the view, the default grants)
------------------------------------------------------------------------------
CREATE ROLE regress_iso_stream NOLOGIN;
SET ROLE regress_iso_stream;
SELECT iso_begin_load('role stream', 'list-append');
\copy iso_jepsen_input FROM 'test/data/rules/jepsen-pairing.edn' WITH (FORMAT csv, QUOTE E'\x01', DELIMITER E'\x02')
SELECT name, owner, (SELECT count(*) FROM iso_event e WHERE e.history_id = h.history_id) AS events,
       (SELECT count(*) > 0 FROM iso_history_image i WHERE i.history_id = h.history_id) AS has_image
  FROM iso_history h;
SELECT count(*) AS levels FROM iso_levels((SELECT history_id FROM iso_history WHERE name = 'role stream'));
RESET ROLE;
-- without INSERT on the view, no load
REVOKE INSERT ON iso_jepsen_input FROM PUBLIC;
SET ROLE regress_iso_stream;
SELECT iso_begin_load('role denied');
INSERT INTO iso_jepsen_input VALUES ('{:type :ok, :value [[:append 1 1]]}');
SELECT iso_cancel_load();
RESET ROLE;
GRANT INSERT ON iso_jepsen_input TO PUBLIC;
SELECT iso_delete_history(history_id) FROM iso_history WHERE owner = 'regress_iso_stream'::regrole;
DROP OWNED BY regress_iso_stream;
DROP ROLE regress_iso_stream;
SELECT count(iso_delete_history(history_id)) AS deleted FROM iso_history;
