-- iso_levels_jepsen_file of a file of 16 MB or more, and iso_levels_jepsen
-- of a text of 16 MB or more: the backend parses its first half while a
-- parallel worker parses the second, and the two histories are joined
-- (src/pg/edn_split.c).  The outcome (every row, or the error) must be
-- that of one parse, which runs with no parallel worker allowed; a DEBUG
-- message says which way each was read.  Cases: a concurrent history whose
-- invocations wait across the cut, with a G1c cycle in the second half; a
-- value written in both halves and a transaction id in both (errors only
-- one parse names); an invocation that nothing after the cut completes
-- (the parts cannot join); errors in either half; records without :time
-- (not split at all).  Also: a reader that is
-- not a superuser, and isograph.max_memory in the worker.
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

-- The outcome of a check (iso_levels_jepsen_file of a path, iso_levels_jepsen
-- of a text): its rows in a fixed order, or its error.
CREATE FUNCTION pg_temp.outcome(check_function text, arg text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	r text;
BEGIN
	EXECUTE format('SELECT string_agg(format(%L, level, holds, violations, strongest, note, method), %L ORDER BY level)
	                  FROM %I($1)', '%s %s %s %s %s %s', E'\n', check_function)
	   INTO r USING arg;
	RETURN r;
EXCEPTION WHEN OTHERS THEN
	RETURN format('ERROR %s: %s', SQLSTATE, SQLERRM);
END $$;
-- The same read by the backend alone.
CREATE FUNCTION pg_temp.outcome_whole(check_function text, arg text) RETURNS text
LANGUAGE sql SET max_parallel_workers_per_gather = 0
AS $$ SELECT pg_temp.outcome(check_function, arg) $$;

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

-- The file cases, each checked split (DEBUG says how it was read) and by
-- the backend alone.
CREATE TEMP TABLE file_cases (name text, content bytea);
INSERT INTO file_cases SELECT 'concurrent, G1c', convert_to(edn, 'UTF8') FROM history;
-- a value appended in both halves (key 0 gets 1 again at the end): neither
-- part sees it, the check does, and the file is read again in one part,
-- whose parse names the value
INSERT INTO file_cases SELECT 'a value in both halves',
  convert_to(edn || E'{:type :ok, :f :txn, :value [[:append 0 1]], :time 3000000, :process 9, :index 300000}\n', 'UTF8') FROM history;
-- a transaction id in both halves (a completion's :index is its
-- transaction's id: index 2 again at the end)
INSERT INTO file_cases SELECT 'a transaction id in both halves',
  convert_to(edn || E'{:type :ok, :f :txn, :value [[:append 7 7]], :time 3000000, :process 9, :index 2}\n', 'UTF8') FROM history;
-- an invocation of process 8 at the start that nothing completes: waiting
-- at the cut, it is an :info transaction at the end of one parse, which
-- the second part cannot give
INSERT INTO file_cases SELECT 'an invocation nothing completes',
  convert_to(E'{:type :invoke, :f :txn, :value [[:append 8 8]], :time 0, :process 8, :index -1}\n' || edn, 'UTF8') FROM history;
-- errors in the second half: the worker only gives up, and one parse
-- raises the error, not the worker: a bad record, bytes not valid in the
-- database encoding; with a bad record in the first half too, that one
INSERT INTO file_cases SELECT 'a bad record in the second half',
  convert_to(edn || E'{:type :ok, :value [[:append 1 @]]}\n', 'UTF8') FROM history;
INSERT INTO file_cases SELECT 'bad bytes in the second half',
  convert_to(edn, 'UTF8') || '\x7b3a74797065203a6f6b2c203a76616c7565205b5b3a7720ff20315d5d7d0a'::bytea FROM history;
INSERT INTO file_cases SELECT 'a bad record in the first half, bad bytes in the second',
  convert_to(E'{:type :ok, :value [[:append 1 @]]}\n' || edn, 'UTF8') ||
  '\x7b3a74797065203a6f6b2c203a76616c7565205b5b3a7720ff20315d5d7d0a'::bytea FROM history;
-- records without :time (the record order is the clock, positions that
-- the halves cannot share): seen in the first records, not split at all
-- (50,000 groups: still over 16 MB without them)
INSERT INTO file_cases SELECT 'no :time',
  convert_to(regexp_replace(pg_temp.groups(50000), ', :time [0-9]+', '', 'g'), 'UTF8');
SELECT octet_length(content) >= 16 * 1024 * 1024 AS over_16_mb FROM file_cases WHERE name = 'no :time';
CREATE TEMP TABLE file_outcomes (name text, split text, whole text);
CREATE FUNCTION pg_temp.check_file_cases(whole boolean) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
	c record;
	f text := current_setting('data_directory') || '/isograph_regress_split.edn';
BEGIN
	FOR c IN SELECT * FROM file_cases ORDER BY name LOOP
		PERFORM pg_temp.put_file(f, c.content);
		IF whole THEN
			UPDATE file_outcomes SET whole = pg_temp.outcome_whole('iso_levels_jepsen_file', f) WHERE name = c.name;
		ELSE
			INSERT INTO file_outcomes VALUES (c.name, pg_temp.outcome('iso_levels_jepsen_file', f));
		END IF;
	END LOOP;
END $$;
SET client_min_messages = debug1;
SELECT pg_temp.check_file_cases(false);
SET client_min_messages = warning;
SELECT pg_temp.check_file_cases(true);
SELECT name, split = whole AS same, CASE WHEN left(split, 5) = 'ERROR' THEN split END AS error
  FROM file_outcomes ORDER BY name;
SELECT split FROM file_outcomes WHERE name = 'concurrent, G1c';

-- a role that may read server files (not a superuser): the worker reads
-- as that role
SELECT pg_temp.put_file(:'path', convert_to(edn, 'UTF8')) FROM history;
SELECT split AS concurrent FROM file_outcomes WHERE name = 'concurrent, G1c' \gset
CREATE ROLE regress_iso_split_reader IN ROLE pg_read_server_files;
SET ROLE regress_iso_split_reader;
SET client_min_messages = debug1;
SELECT pg_temp.outcome('iso_levels_jepsen_file', :'path') = :'concurrent' AS same_for_the_role;
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

-- A text: the same cases (but bytes a text cannot hold), split against
-- one parse of the text.
CREATE TEMP TABLE texts AS
SELECT name, convert_from(content, 'UTF8') AS edn FROM file_cases WHERE name NOT LIKE '%bytes%';
CREATE TEMP TABLE text_outcomes (name text, edn text, split text);
SET client_min_messages = debug1;
INSERT INTO text_outcomes SELECT name, edn, pg_temp.outcome('iso_levels_jepsen', edn) FROM texts;
SET client_min_messages = warning;
SELECT name, split = pg_temp.outcome_whole('iso_levels_jepsen', edn) AS same, left(split, 5) = 'ERROR' AS error
  FROM text_outcomes ORDER BY name;
SELECT split FROM text_outcomes WHERE name = 'concurrent, G1c';

SELECT pg_temp.put_file(:'path', ''::bytea);
