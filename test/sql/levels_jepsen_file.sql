-- iso_levels_jepsen_file(path): the verdicts of an EDN file on the server,
-- read in blocks, must equal iso_levels_jepsen of the same bytes as a text
-- (row for row, or the same error), for every hand-made history; a file
-- of many blocks (1 MB) with records cut by a block's end; the errors of
-- a file; and who may read one (pg_read_server_files, as COPY FROM a file).
--
-- The files are written into the data directory with lo_export (the exact
-- bytes: no final newline, bytes invalid in the encoding), and emptied at
-- the end.
SET client_min_messages = warning;
\set SHOW_CONTEXT never
SELECT current_setting('data_directory') || '/isograph_regress_levels_file.edn' AS path \gset

CREATE FUNCTION pg_temp.put_file(path text, content bytea) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
	o oid := lo_from_bytea(0, content);
BEGIN
	PERFORM lo_export(o, path);
	PERFORM lo_unlink(o);
END $$;

-- The outcome of a check: its rows in a fixed order, or its error.
CREATE FUNCTION pg_temp.outcome(q text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	r text;
BEGIN
	EXECUTE format('SELECT string_agg(format(%L, level, holds, violations, strongest, note, method,
	                       search_constraints, search_constraints_pruned, search_solver_calls), %L ORDER BY level)
	                  FROM %s', '%s %s %s %s %s %s %s %s %s', E'\n', q) INTO r;
	RETURN r;
EXCEPTION WHEN OTHERS THEN
	RETURN format('ERROR %s: %s', SQLSTATE, SQLERRM);
END $$;

-- Every history of test/data/rules and test/data/register, as a file and
-- as a text: the same outcome.
\set files `for f in test/data/rules/*.edn test/data/register/*.edn; do printf '%s\t' "${f#test/data/}"; base64 -w0 "$f"; echo; done`
CREATE TEMP TABLE histories AS
SELECT split_part(l, E'\t', 1) AS name, decode(split_part(l, E'\t', 2), 'base64') AS content
  FROM unnest(string_to_array(:'files', E'\n')) l WHERE l <> '';
SELECT count(*) > 50 AS many_histories FROM histories;
CREATE TEMP TABLE compared (name text, text_outcome text, file_outcome text);
DO $$
DECLARE
	h record;
BEGIN
	FOR h IN SELECT * FROM histories ORDER BY name LOOP
		PERFORM pg_temp.put_file(current_setting('data_directory') || '/isograph_regress_levels_file.edn', h.content);
		INSERT INTO compared VALUES (h.name,
			pg_temp.outcome(format('iso_levels_jepsen(%L)', convert_from(h.content, 'UTF8'))),
			pg_temp.outcome('iso_levels_jepsen_file(current_setting(''data_directory'') || ''/isograph_regress_levels_file.edn'')'));
	END LOOP;
END $$;
SELECT name, left(text_outcome, 6) = 'ERROR ' AS error, text_outcome IS NOT DISTINCT FROM file_outcome AS same
  FROM compared ORDER BY name;
-- one whole outcome, to see that the rows are there
SELECT file_outcome FROM compared WHERE name = 'rules/lvl-write-skew.edn';

-- A relative path is relative to the data directory; the workload can be given.
SELECT pg_temp.put_file(:'path', convert_to(E'{:type :ok, :value [[:w 1 1]]}\n{:type :ok, :value [[:r 1 1]]}\n', 'UTF8'));
SELECT level, holds FROM iso_levels_jepsen_file('isograph_regress_levels_file.edn', 'rw-register') ORDER BY level;
-- no final newline: the last record is read all the same
SELECT pg_temp.put_file(:'path', convert_to(E'{:type :ok, :value [[:append 1 1]]}\n{:type :ok, :value [[:r 1 [1]]]}', 'UTF8'));
SELECT pg_temp.outcome(format('iso_levels_jepsen_file(%L)', :'path')) =
       pg_temp.outcome(format('iso_levels_jepsen(%L)', E'{:type :ok, :value [[:append 1 1]]}\n{:type :ok, :value [[:r 1 [1]]]}')) AS same;
-- an empty file is an empty history, as an empty text is (of the workload given)
SELECT pg_temp.put_file(:'path', ''::bytea);
SELECT count(*) AS levels, bool_and(holds) AS all_hold FROM iso_levels_jepsen_file(:'path', 'list-append');
SELECT pg_temp.outcome(format('iso_levels_jepsen_file(%L)', :'path')) =
       pg_temp.outcome(format('iso_levels_jepsen(%L)', '')) AS same_without_workload;

-- A file of several blocks: 160,000 transactions of three lines each (about
-- 11 MB), so that blocks end inside records, a G1c cycle at the very
-- end, and a :nemesis record, so that the notice counts every record read.
CREATE TEMP TABLE big AS
SELECT string_agg(format(E'{:type :ok, :process %s,\n :value [[:append %s %s]\n  [:r %s [%s]]]}',
                         i % 10, i, 1, i, 1), E'\n' ORDER BY i)
       || E'\n{:type :info, :f :kill, :process :nemesis}'
       || E'\n{:type :ok, :process 1, :value [[:append 0 1] [:r 999999 [1]]]}'
       || E'\n{:type :ok, :process 2, :value [[:append 999999 1] [:r 0 [1]]]}\n' AS edn
  FROM generate_series(1, 160000) i;
-- (blocks end at every MB of the file: how many of them end a line that
-- does not end a record)
SELECT octet_length(edn) / 1048576 AS blocks,
       count(*) FILTER (WHERE substr(edn, k - strpos(reverse(substr(edn, 1, k)), E'\n'), 1) <> '}') AS cut_inside_a_record
  FROM big, generate_series(1048576, octet_length(edn), 1048576) k GROUP BY edn;
SELECT pg_temp.put_file(:'path', convert_to(edn, 'UTF8')) FROM big;
SET client_min_messages = notice;
SELECT level, holds, violations FROM iso_levels_jepsen_file(:'path') ORDER BY level;
SET client_min_messages = warning;
SELECT pg_temp.outcome(format('iso_levels_jepsen_file(%L)', :'path')) = pg_temp.outcome(format('iso_levels_jepsen(%L)', edn)) AS same
  FROM big;

-- Errors.
\set VERBOSITY default
\set SHOW_CONTEXT errors
SELECT * FROM iso_levels_jepsen_file(NULL);
SELECT * FROM iso_levels_jepsen_file('isograph_regress_no_such_file.edn');
SELECT * FROM iso_levels_jepsen_file('.');
-- a device (a FIFO the same: its read could block the backend for good)
SELECT * FROM iso_levels_jepsen_file('/dev/null');
SELECT * FROM iso_levels_jepsen_file(:'path', 'no-such-workload');
-- a bad record on line 3: the same message, record and line as the text's
SELECT pg_temp.put_file(:'path', convert_to(E'{:type :ok, :value [[:append 1 1]]}\n\n{:type :ok, :value [[:append 1 @]]}\n', 'UTF8'));
SELECT * FROM iso_levels_jepsen_file(:'path');
-- JSON instead of EDN gets its hint
SELECT pg_temp.put_file(:'path', convert_to(E'[{"type": "ok", "value": [["append", 1, 1]]}]\n', 'UTF8'));
SELECT * FROM iso_levels_jepsen_file(:'path');
-- bytes that are not UTF8 (the database's encoding), as pg_read_file finds them
SELECT pg_temp.put_file(:'path', '\x7b3a74797065203a6f6b2c203a76616c7565205b5b3a7720ff20315d5d7d0a'::bytea);
SELECT * FROM iso_levels_jepsen_file(:'path');
-- a line longer than 64 MB
SELECT pg_temp.put_file(:'path', convert_to('[' || repeat(' ', 80 * 1024 * 1024), 'UTF8'));
SELECT * FROM iso_levels_jepsen_file('isograph_regress_levels_file.edn');
\set VERBOSITY terse
\set SHOW_CONTEXT never

-- Who may read a server file: not an ordinary role, not even through
-- a relative path; a member of pg_read_server_files may.
SELECT pg_temp.put_file(:'path', convert_to(E'{:type :ok, :value [[:append 1 1]]}\n', 'UTF8'));
CREATE ROLE regress_iso_file_reader;
SET ROLE regress_iso_file_reader;
SELECT count(*) FROM iso_levels_jepsen_file(:'path');
SELECT count(*) FROM iso_levels_jepsen_file('isograph_regress_levels_file.edn');
SELECT count(*) FROM iso_levels_jepsen_file('postgresql.conf');
RESET ROLE;
GRANT pg_read_server_files TO regress_iso_file_reader;
SET ROLE regress_iso_file_reader;
SELECT count(*) AS levels, bool_and(holds) AS all_hold FROM iso_levels_jepsen_file(:'path');
RESET ROLE;
DROP ROLE regress_iso_file_reader;

SELECT pg_temp.put_file(:'path', ''::bytea);
