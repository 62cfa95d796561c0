-- iso_levels_jepsen_file of a file of 16 MB or more, and iso_levels_jepsen
-- of a text of 16 MB or more: the backend parses its first half while a
-- parallel worker parses the second, and the two histories are joined
-- (src/pg/edn_split.c).  The outcome (every row, or
-- the error) must be that of one parse, which runs with no parallel worker
-- allowed; a DEBUG message says which way the file was read.  Cases: a
-- concurrent history whose invocations wait across the cut, with a G1c
-- cycle in the second half; a value written in both halves and a
-- transaction id in both (errors only one parse names); an invocation
-- that nothing after the cut completes (the parts cannot join).
SET client_min_messages = warning;
\set SHOW_CONTEXT never
SELECT current_setting('data_directory') || '/isograph_regress_split.edn' AS path \gset

CREATE FUNCTION pg_temp.put_file(path text, content bytea) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
	o oid := lo_from_bytea(0, content);
BEGIN
	PERFORM lo_export(o, path);
	PERFORM lo_unlink(o);
END $$;

-- The outcome of a check of the file: its rows in a fixed order, or its error.
CREATE FUNCTION pg_temp.outcome(path text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	r text;
BEGIN
	SELECT string_agg(format('%s %s %s %s %s %s', level, holds, violations, strongest, note, method),
	                  E'\n' ORDER BY level)
	  INTO r FROM iso_levels_jepsen_file(path);
	RETURN r;
EXCEPTION WHEN OTHERS THEN
	RETURN format('ERROR %s: %s', SQLSTATE, SQLERRM);
END $$;
-- The same read by the backend alone.
CREATE FUNCTION pg_temp.outcome_whole(path text) RETURNS text
LANGUAGE sql SET max_parallel_workers_per_gather = 0
AS $$ SELECT pg_temp.outcome(path) $$;
-- The same for a text.
CREATE FUNCTION pg_temp.outcome_text(edn text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	r text;
BEGIN
	SELECT string_agg(format('%s %s %s %s %s %s', level, holds, violations, strongest, note, method),
	                  E'\n' ORDER BY level)
	  INTO r FROM iso_levels_jepsen(edn);
	RETURN r;
EXCEPTION WHEN OTHERS THEN
	RETURN format('ERROR %s: %s', SQLSTATE, SQLERRM);
END $$;
CREATE FUNCTION pg_temp.outcome_text_whole(edn text) RETURNS text
LANGUAGE sql SET max_parallel_workers_per_gather = 0
AS $$ SELECT pg_temp.outcome_text(edn) $$;

-- Two processes, each invocation completed after the other process's
-- invocation: at any cut an invocation waits for the other half.  Process
-- 0 appends to key 2i and reads key 2i - 1, process 1 the other way round
-- (each read sees the one append before it).  About 18 MB.
CREATE FUNCTION pg_temp.groups(n int) RETURNS text
LANGUAGE sql AS $$
SELECT string_agg(format(E'{:type :invoke, :f :txn, :value [[:append %s 1] [:r %s nil]], :time %s, :process 0, :index %s}\n'
                 '{:type :invoke, :f :txn, :value [[:append %s 1] [:r %s nil]], :time %s, :process 1, :index %s}\n'
                 '{:type :ok, :f :txn, :value [[:append %s 1] [:r %s %s]], :time %s, :process 0, :index %s}\n'
                 '{:type :ok, :f :txn, :value [[:append %s 1] [:r %s %s]], :time %s, :process 1, :index %s}\n',
                 2 * i, 2 * i - 1, 40 * i, 4 * i,
                 2 * i + 1, 2 * i - 2, 40 * i + 10, 4 * i + 1,
                 2 * i, 2 * i - 1, CASE WHEN i > 0 THEN '[1]' ELSE '[]' END, 40 * i + 20, 4 * i + 2,
                 2 * i + 1, 2 * i - 2, CASE WHEN i > 0 THEN '[1]' ELSE '[]' END, 40 * i + 30, 4 * i + 3), '' ORDER BY i)
  FROM generate_series(0, n - 1) i
$$;
-- G1c in the second half: two transactions that read each other's appends
CREATE TEMP TABLE history AS
SELECT pg_temp.groups(40000)
       || E'{:type :invoke, :f :txn, :value [[:append -1 1] [:r -2 nil]], :time 2000000, :process 5, :index 200000}\n'
          '{:type :invoke, :f :txn, :value [[:append -2 1] [:r -1 nil]], :time 2000001, :process 6, :index 200001}\n'
          '{:type :ok, :f :txn, :value [[:append -1 1] [:r -2 [1]]], :time 2000002, :process 5, :index 200002}\n'
          '{:type :ok, :f :txn, :value [[:append -2 1] [:r -1 [1]]], :time 2000003, :process 6, :index 200003}\n' AS edn;
SELECT octet_length(edn) >= 16 * 1024 * 1024 AS over_16_mb FROM history;

SELECT pg_temp.put_file(:'path', convert_to(edn, 'UTF8')) FROM history;
SET client_min_messages = debug1;
SELECT pg_temp.outcome(:'path') AS split \gset
SET client_min_messages = warning;
SELECT :'split' = pg_temp.outcome_whole(:'path') AS same;
SELECT :'split' AS outcome;
-- a role that may read server files (not a superuser): the worker reads
-- as that role
CREATE ROLE regress_iso_split_reader IN ROLE pg_read_server_files;
SET ROLE regress_iso_split_reader;
SET client_min_messages = debug1;
SELECT pg_temp.outcome(:'path') = :'split' AS same_for_the_role;
SET client_min_messages = warning;
RESET ROLE;
DROP ROLE regress_iso_split_reader;

-- isograph.max_memory bounds the worker's part as it bounds the backend's
-- build: a file whose first half is only nemesis records (skipped), so
-- that the worker's part runs out first
SELECT pg_temp.put_file(:'path', convert_to(repeat(E'{:type :info, :f :start, :process :nemesis}\n', 1200000) ||
                                              pg_temp.groups(120000), 'UTF8'));
SET isograph.max_memory = '16MB';
DO $$
DECLARE
	msg text;
	ctx text;
BEGIN
	PERFORM count(*) FROM iso_levels_jepsen_file(current_setting('data_directory') || '/isograph_regress_split.edn');
	RAISE NOTICE 'no error';
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS msg = MESSAGE_TEXT, ctx = PG_EXCEPTION_CONTEXT;
	RAISE WARNING '%: %, in the parallel worker: %', SQLSTATE, msg, ctx LIKE '%parallel worker%';
END $$;
RESET isograph.max_memory;
SELECT pg_temp.put_file(:'path', convert_to(edn, 'UTF8')) FROM history;

-- A value appended in both halves (key 0 gets 1 again at the end): neither
-- part sees it, the check does, and the file is read again in one part,
-- whose parse names the value.
SELECT pg_temp.put_file(:'path', convert_to(edn || E'{:type :ok, :f :txn, :value [[:append 0 1]], :time 3000000, :process 9, :index 300000}\n', 'UTF8'))
  FROM history;
SET client_min_messages = debug1;
SELECT pg_temp.outcome(:'path') AS split \gset
SET client_min_messages = warning;
SELECT :'split' = pg_temp.outcome_whole(:'path') AS same;
SELECT :'split' AS outcome;

-- A transaction id in both halves (a completion's :index is its
-- transaction's id: index 2 again at the end).
SELECT pg_temp.put_file(:'path', convert_to(edn || E'{:type :ok, :f :txn, :value [[:append 7 7]], :time 3000000, :process 9, :index 2}\n', 'UTF8'))
  FROM history;
SET client_min_messages = debug1;
SELECT pg_temp.outcome(:'path') AS split \gset
SET client_min_messages = warning;
SELECT :'split' = pg_temp.outcome_whole(:'path') AS same;
SELECT :'split' AS outcome;

-- An invocation of process 8 at the start that nothing completes: waiting
-- at the cut, it is an :info transaction at the end of one parse, which
-- the second part cannot give; the file is read again in one part.
SELECT pg_temp.put_file(:'path', convert_to(E'{:type :invoke, :f :txn, :value [[:append 8 8]], :time 0, :process 8, :index -1}\n' || edn, 'UTF8'))
  FROM history;
SET client_min_messages = debug1;
SELECT pg_temp.outcome(:'path') AS split \gset
SET client_min_messages = warning;
SELECT :'split' = pg_temp.outcome_whole(:'path') AS same;

-- Errors in the second half: the worker only gives up, and one parse
-- raises the error, not the worker: a bad record, bytes not valid in the
-- database encoding.
SELECT pg_temp.put_file(:'path', convert_to(edn || E'{:type :ok, :value [[:append 1 @]]}\n', 'UTF8'))
  FROM history;
SET client_min_messages = debug1;
SELECT pg_temp.outcome(:'path') AS split \gset
SET client_min_messages = warning;
SELECT :'split' = pg_temp.outcome_whole(:'path') AS same, :'split' AS outcome;
SELECT pg_temp.put_file(:'path', convert_to(edn, 'UTF8') || '\x7b3a74797065203a6f6b2c203a76616c7565205b5b3a7720ff20315d5d7d0a'::bytea)
  FROM history;
SET client_min_messages = debug1;
SELECT pg_temp.outcome(:'path') AS split \gset
SET client_min_messages = warning;
SELECT :'split' = pg_temp.outcome_whole(:'path') AS same, :'split' AS outcome;
-- and with a bad record in the first half too, that one is the error
SELECT pg_temp.put_file(:'path', convert_to(E'{:type :ok, :value [[:append 1 @]]}\n' || edn, 'UTF8') ||
                                 '\x7b3a74797065203a6f6b2c203a76616c7565205b5b3a7720ff20315d5d7d0a'::bytea)
  FROM history;
SELECT pg_temp.outcome(:'path') AS outcome;

-- A text: the same cases, split against one parse of the text, which is
-- also the file's outcome.
CREATE TEMP TABLE texts (name text, edn text);
INSERT INTO texts SELECT 'concurrent, G1c', edn FROM history;
INSERT INTO texts SELECT 'a value in both halves', edn || E'{:type :ok, :f :txn, :value [[:append 0 1]], :time 3000000, :process 9, :index 300000}\n' FROM history;
INSERT INTO texts SELECT 'a transaction id in both halves', edn || E'{:type :ok, :f :txn, :value [[:append 7 7]], :time 3000000, :process 9, :index 2}\n' FROM history;
INSERT INTO texts SELECT 'an invocation nothing completes', E'{:type :invoke, :f :txn, :value [[:append 8 8]], :time 0, :process 8, :index -1}\n' || edn FROM history;
INSERT INTO texts SELECT 'a bad record in the second half', edn || E'{:type :ok, :value [[:append 1 @]]}\n' FROM history;
INSERT INTO texts SELECT 'a bad record in each half', E'{:type :ok, :value [[:append 1 @]]}\n' || edn || E'{:type :ok, :value [[:append 1 ?]]}\n' FROM history;
CREATE TEMP TABLE text_outcomes (name text, edn text, split text);
SET client_min_messages = debug1;
INSERT INTO text_outcomes SELECT name, edn, pg_temp.outcome_text(edn) FROM texts;
SET client_min_messages = warning;
SELECT name, split = pg_temp.outcome_text_whole(edn) AS same, left(split, 5) = 'ERROR' AS error
  FROM text_outcomes ORDER BY name;
SELECT split FROM text_outcomes WHERE name = 'concurrent, G1c';

SELECT pg_temp.put_file(:'path', ''::bytea);
