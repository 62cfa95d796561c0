-- iso_load_jepsen_file(name, path): an EDN file on the server loaded as
-- iso_load_jepsen loads the same bytes as a text: the same events, history
-- row and verdicts, or the same error, for every hand-made history and a
-- file of many 1 MB blocks with records cut by their ends, read by a
-- parallel worker and read by the backend itself (no workers); an empty
-- file; who may read one (pg_read_server_files), and that a refused or
-- failed load stores nothing.  Files are written into the data directory
-- with lo_export (exact bytes) and emptied at the end.  A worker reads
-- files and texts of 1 MB or more, so the small ones get a comment of 1 MB
-- at their end; iso_load_jepsen of such a text is compared with and
-- without a worker too.
SET client_min_messages = warning;
\set SHOW_CONTEXT never
SELECT current_setting('data_directory') || '/isograph_regress_load_file.edn' AS path \gset

CREATE FUNCTION pg_temp.put_file(path text, content bytea) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
	o oid := lo_from_bytea(0, content);
BEGIN
	PERFORM lo_export(o, path);
	PERFORM lo_unlink(o);
END $$;

-- What a load stored: the history's row, its events, a digest of its image
-- (a parallel worker's load builds it from the chunks it packed, a serial
-- load from the parsed transactions: the bytes must be the same) and its
-- verdicts, as one text; or its error.
CREATE FUNCTION pg_temp.loaded(load text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	h bigint;
	r text;
BEGIN
	EXECUTE load INTO h;
	SELECT format('%s %s %s %s %s', workload, source, skipped, metadata->>'realtime',
	              iso_history_has_image(history_id))
	  INTO r FROM iso_history WHERE history_id = h;
	r := r || E'\n' || coalesce((SELECT string_agg(format('%s %s %s %s %s %s %s %s %s %s %s', txn_id, process, status,
	                                             invoke_time, complete_time, pos, op, key, value, read_value, read_list),
	                                      E'\n' ORDER BY txn_id, pos)
	                               FROM iso_event WHERE history_id = h), '');
	r := r || E'\n' || coalesce((SELECT md5(string_agg(md5(data), ',' ORDER BY section, part))
	                               FROM iso_history_image WHERE history_id = h), 'no image');
	r := r || E'\n' || (SELECT string_agg(format('%s %s %s', level, holds, violations), E'\n' ORDER BY level)
	                      FROM iso_levels(h));
	PERFORM iso_delete_history(h);
	RETURN r;
EXCEPTION WHEN OTHERS THEN
	RETURN format('ERROR %s: %s', SQLSTATE, SQLERRM);
END $$;

-- The same, read by the backend itself: no parallel worker.
CREATE FUNCTION pg_temp.loaded_serially(load text) RETURNS text
LANGUAGE sql SET max_parallel_workers_per_gather = 0
AS $$ SELECT pg_temp.loaded(load) $$;

\set files `for f in test/data/rules/*.edn test/data/register/*.edn; do printf '%s\t' "${f#test/data/}"; base64 -w0 "$f"; echo; done`
CREATE TEMP TABLE histories AS
SELECT split_part(l, E'\t', 1) AS name,
       decode(split_part(l, E'\t', 2), 'base64') ||
       convert_to(E'\n; ' || repeat('x', 1048576) || E'\n', 'UTF8') AS content
  FROM unnest(string_to_array(:'files', E'\n')) l WHERE l <> '';
CREATE TEMP TABLE compared (name text, text_load text, file_load text, file_load_serial text,
                             text_load_serial text);
DO $$
DECLARE
	h record;
	f text := current_setting('data_directory') || '/isograph_regress_load_file.edn';
BEGIN
	FOR h IN SELECT * FROM histories ORDER BY name LOOP
		PERFORM pg_temp.put_file(f, h.content);
		INSERT INTO compared VALUES (h.name,
			pg_temp.loaded(format('SELECT iso_load_jepsen(%L, %L)', 'load-file ' || h.name, convert_from(h.content, 'UTF8'))),
			pg_temp.loaded(format('SELECT iso_load_jepsen_file(%L, %L)', 'load-file ' || h.name, f)),
			pg_temp.loaded_serially(format('SELECT iso_load_jepsen_file(%L, %L)', 'load-file ' || h.name, f)),
			pg_temp.loaded_serially(format('SELECT iso_load_jepsen(%L, %L)', 'load-file ' || h.name, convert_from(h.content, 'UTF8'))));
	END LOOP;
END $$;
SELECT count(*) > 50 AS many_histories,
       count(*) FILTER (WHERE left(text_load, 6) = 'ERROR ') AS errors,
       count(*) FILTER (WHERE text_load IS DISTINCT FROM file_load) AS different,
       count(*) FILTER (WHERE text_load IS DISTINCT FROM file_load_serial OR
                              text_load IS DISTINCT FROM text_load_serial) AS different_serially
  FROM compared;
SELECT name, text_load FROM compared WHERE left(text_load, 6) = 'ERROR ' ORDER BY name;
-- one whole load, to see that the rows are there
SELECT file_load FROM compared WHERE name = 'rules/lvl-write-skew.edn';

-- A file of many blocks, records cut by their ends (as in levels_jepsen_file)
CREATE TEMP TABLE big AS
SELECT string_agg(format(E'{:type :ok, :process %s,\n :value [[:append %s %s]\n  [:r %s [%s]]]}',
                         i % 10, i, 1, i, 1), E'\n' ORDER BY i)
       || E'\n{:type :ok, :process 1, :value [[:append 0 1] [:r 999999 [1]]]}'
       || E'\n{:type :ok, :process 2, :value [[:append 999999 1] [:r 0 [1]]]}\n' AS edn
  FROM generate_series(1, 160000) i;
SELECT pg_temp.put_file(:'path', convert_to(edn, 'UTF8')) FROM big;
SELECT pg_temp.loaded(format('SELECT iso_load_jepsen_file(%L, %L)', 'big', :'path')) =
       pg_temp.loaded(format('SELECT iso_load_jepsen(%L, %L)', 'big', edn)) AS same,
       pg_temp.loaded_serially(format('SELECT iso_load_jepsen_file(%L, %L)', 'big', :'path')) =
       pg_temp.loaded(format('SELECT iso_load_jepsen(%L, %L)', 'big', edn)) AS same_serially
  FROM big;
-- with the workload given, and its history_id returned
SELECT iso_load_jepsen_file('big, list-append', :'path', 'list-append') AS h \gset
SELECT name, workload, source, (SELECT count(*) FROM iso_event e WHERE e.history_id = h.history_id) AS events
  FROM iso_history h WHERE history_id = :h;
SELECT iso_delete_history(:h);

-- A worker's load stores the image's first parts while it parses: here
-- over 4 MB of micro-ops (a part) come in txn_id order, then a completion
-- with a smaller :index.  The history is sorted at the end, and the parts
-- stored before must give way to the sorted image: the same as a serial
-- load's, and the checks read it.
CREATE TEMP TABLE unsorted AS
SELECT string_agg(format(E'{:type :ok, :process %s, :index %s, :value [[:append %s 1] [:r %s [1]]]}',
                         i % 10, 10 * i, i, i), E'\n' ORDER BY i)
       || E'\n{:type :ok, :process 3, :index 5, :value [[:append 0 1] [:r 0 [1]]]}\n' AS edn
  FROM generate_series(1, 200000) i;
SELECT pg_temp.put_file(:'path', convert_to(edn, 'UTF8')) FROM unsorted;
SELECT iso_load_jepsen_file('unsorted', :'path') AS h \gset
SELECT count(*) FILTER (WHERE section = 2) > 1 AS parts_of_ops,
       (SELECT count(*) FROM iso_levels(:h) WHERE holds) AS levels_that_hold
  FROM iso_history_image WHERE history_id = :h;
SELECT iso_delete_history(:h);
SELECT pg_temp.loaded(format('SELECT iso_load_jepsen_file(%L, %L)', 'unsorted', :'path')) =
       pg_temp.loaded_serially(format('SELECT iso_load_jepsen_file(%L, %L)', 'unsorted', :'path')) AS same_serially;
DROP TABLE unsorted;

-- Errors: nothing is stored by a load that fails.
\set VERBOSITY default
SELECT count(*) AS histories_before FROM iso_history \gset
SELECT iso_load_jepsen_file(NULL, :'path');
SELECT iso_load_jepsen_file('x', NULL);
SELECT iso_load_jepsen_file('x', 'isograph_regress_no_such_file.edn');
SELECT iso_load_jepsen_file('x', '/dev/null');
SELECT pg_temp.put_file(:'path', ''::bytea);
SELECT iso_load_jepsen_file('empty', 'isograph_regress_load_file.edn');
SELECT pg_temp.put_file(:'path', convert_to(E'  \n\n ', 'UTF8'));
SELECT iso_load_jepsen_file('blank', 'isograph_regress_load_file.edn', 'list-append');
SELECT pg_temp.put_file(:'path', convert_to(E'{:type :ok, :value [[:append 1 1]]}\n{:type :ok, :value [[:append 1 @]]}\n; '
                                             || repeat('x', 1048576) || E'\n', 'UTF8'));
-- the error of the EDN, with its context; from a parallel worker, the same
-- error (PostgreSQL adds the context line "parallel worker", not shown)
SET max_parallel_workers_per_gather = 0;
\set SHOW_CONTEXT errors
SELECT iso_load_jepsen_file('bad', :'path');
\set SHOW_CONTEXT never
RESET max_parallel_workers_per_gather;
SELECT iso_load_jepsen_file('bad', :'path');
SELECT iso_load_jepsen('bad', convert_from(pg_read_binary_file(:'path'), 'UTF8'));
-- in a serializable transaction the backend reads the file itself
BEGIN ISOLATION LEVEL SERIALIZABLE;
SELECT iso_load_jepsen_file('bad', :'path');
ROLLBACK;
SELECT count(*) = :histories_before AS nothing_stored FROM iso_history;
\set VERBOSITY terse

-- Who may read a server file: not an ordinary role (nothing is stored);
-- a member of pg_read_server_files, whose history it is.  The file and the
-- text are over 1 MB, so a parallel worker parses them for the role.
SELECT pg_temp.put_file(:'path', convert_to(E'{:type :ok, :value [[:append 1 1]]}\n; '
                                             || repeat('x', 1048576) || E'\n', 'UTF8'));
CREATE ROLE regress_iso_file_loader;
SET ROLE regress_iso_file_loader;
SELECT iso_load_jepsen_file('by a role', :'path');
SELECT iso_load_jepsen_file('by a role', 'isograph_regress_load_file.edn');
SELECT count(*) AS visible FROM iso_history;
-- any role may load a text, big or not
SELECT iso_load_jepsen('text by a role', E'{:type :ok, :value [[:append 1 1] [:r 1 [1]]]}\n; '
                                         || repeat('x', 1048576)) AS h \gset
SELECT name, owner::regrole, (SELECT count(*) FROM iso_event e WHERE e.history_id = h.history_id) AS events
  FROM iso_history h;
SELECT iso_delete_history(:h);
-- a role's big text out of txn_id order: the image parts stored while it
-- was parsed are dropped (as the tables' owner) and the image written
-- whole; the role's check uses it (no warning)
SELECT iso_load_jepsen('unsorted by a role',
       string_agg(format(E'{:type :ok, :process %s, :index %s, :value [[:append %s 1] [:r %s [1]]]}',
                         i % 10, 10 * i, i, i), E'\n' ORDER BY i)
       || E'\n{:type :ok, :process 3, :index 5, :value [[:append 0 1] [:r 0 [1]]]}\n') AS h
  FROM generate_series(1, 200000) i \gset
SELECT (SELECT count(*) FROM iso_levels(:h) WHERE holds) AS levels_that_hold,
       iso_history_has_image(:h) AS has_image;
SELECT iso_delete_history(:h);
RESET ROLE;
GRANT pg_read_server_files TO regress_iso_file_loader;
SET ROLE regress_iso_file_loader;
SELECT iso_load_jepsen_file('by a role', :'path') AS h \gset
SELECT name, owner::regrole, (SELECT count(*) FROM iso_event e WHERE e.history_id = h.history_id) AS events
  FROM iso_history h;
SELECT iso_delete_history(:h);
RESET ROLE;
DROP ROLE regress_iso_file_loader;

SELECT pg_temp.put_file(:'path', ''::bytea);
