/* isograph--0.4.0--0.5.0.sql: events stored packed */

\echo Use "ALTER EXTENSION isograph UPDATE TO '0.5.0'" to load this file. \quit

-- See the install script (isograph--0.5.0.sql): the events move from one
-- row per micro-operation (iso_event_data) to packed chunks
-- (iso_event_chunk); the view iso_event keeps its columns and its
-- INSTEAD OF trigger.  Columns, triggers or indexes an owner added to
-- iso_event_data go with it.

CREATE TABLE @extschema@.iso_event_chunk (
	history_id	bigint NOT NULL,
	chunk		integer NOT NULL CHECK (chunk >= 0),
	nrows		integer NOT NULL CHECK (nrows > 0),
	first_txn	bigint NOT NULL,
	first_pos	integer NOT NULL,
	last_txn	bigint NOT NULL,
	last_pos	integer NOT NULL,
	data		bytea NOT NULL,
	PRIMARY KEY (history_id, chunk)
);
-- Chunks are stored as they are.  Since a list read is packed as the
-- elements it adds to its key's last one (chunk version 2), lz4 makes them
-- only 1.6 times smaller (1M transactions: 103 MB, 65 MB with lz4), and a
-- COPY is faster without it (9.4-9.5 s against 9.6-10.1 s; with version 1
-- chunks, which compressed 3.5 times, lz4 was faster).
ALTER TABLE @extschema@.iso_event_chunk ALTER COLUMN data SET STORAGE EXTERNAL;
COMMENT ON TABLE @extschema@.iso_event_chunk IS 'the events of histories, packed (read and write them through the view iso_event)';

GRANT SELECT ON @extschema@.iso_event_chunk TO PUBLIC;
ALTER TABLE @extschema@.iso_event_chunk ENABLE ROW LEVEL SECURITY;
CREATE POLICY iso_event_owner ON @extschema@.iso_event_chunk FOR SELECT
	USING (history_id IN (SELECT h.history_id FROM @extschema@.iso_history h
						  WHERE h.owner OPERATOR(pg_catalog.=) @extschema@.iso_current_role()));
SELECT pg_catalog.pg_extension_config_dump('@extschema@.iso_event_chunk', '');

DROP VIEW @extschema@.iso_event;
CREATE FUNCTION @extschema@.iso_event_rows(data bytea,
	OUT txn_id bigint, OUT process bigint, OUT status text,
	OUT invoke_time bigint, OUT complete_time bigint, OUT pos integer,
	OUT op text, OUT key text, OUT value text, OUT read_value text,
	OUT read_list text[])
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'iso_event_rows'
LANGUAGE C STRICT IMMUTABLE PARALLEL SAFE ROWS 16384;
COMMENT ON FUNCTION @extschema@.iso_event_rows(bytea) IS
'the events packed in one iso_event_chunk.data, one row per micro-operation';

CREATE VIEW @extschema@.iso_event WITH (security_invoker = true) AS
	SELECT c.history_id, e.txn_id, e.process, e.status, e.invoke_time,
		   e.complete_time, e.pos, e.op, e.key COLLATE "C" AS key,
		   e.value COLLATE "C" AS value, e.read_value COLLATE "C" AS read_value,
		   e.read_list COLLATE "C" AS read_list
	  FROM @extschema@.iso_event_chunk c
	 CROSS JOIN LATERAL @extschema@.iso_event_rows(c.data) e;
COMMENT ON VIEW @extschema@.iso_event IS 'one row per micro-operation of a history (COPY or INSERT here)';

ALTER VIEW @extschema@.iso_event ALTER COLUMN history_id
	SET DEFAULT pg_catalog.currval('@extschema@.iso_history_history_id_seq'::pg_catalog.regclass);
GRANT SELECT, INSERT ON @extschema@.iso_event TO PUBLIC;
CREATE TRIGGER iso_event_input INSTEAD OF INSERT ON @extschema@.iso_event
	FOR EACH ROW EXECUTE FUNCTION @extschema@.iso_input_row();
CREATE TRIGGER iso_event_input_end AFTER INSERT ON @extschema@.iso_event
	FOR EACH STATEMENT EXECUTE FUNCTION @extschema@.iso_input_end();

-- UPDATE and DELETE of events, for the roles granted them (by default the
-- owner and superusers; roles delete whole histories): the history's
-- chunks are written again when the statement ends (event_store.c).
CREATE FUNCTION @extschema@.iso_event_change_row()
RETURNS trigger
AS 'MODULE_PATHNAME', 'iso_event_change_row'
LANGUAGE C;
COMMENT ON FUNCTION @extschema@.iso_event_change_row() IS
'trigger: update or delete an event of iso_event in its packed chunks';
CREATE TRIGGER iso_event_change INSTEAD OF UPDATE OR DELETE ON @extschema@.iso_event
	FOR EACH ROW EXECUTE FUNCTION @extschema@.iso_event_change_row();
CREATE TRIGGER iso_event_change_end AFTER UPDATE OR DELETE ON @extschema@.iso_event
	FOR EACH STATEMENT EXECUTE FUNCTION @extschema@.iso_input_end();

-- iso_event_load: iso_event with read_list as the text of its array
-- literal ('{1,2,3}'), for bulk COPY.  The same CSV loads into either
-- and gives the same events; here the literal is cut into elements by
-- isograph (src/pg/list_input.c) instead of COPY calling array_in for
-- it, which is a quarter of a COPY of a list history.  It is a table of
-- isograph's access method iso_load (src/pg/load_am.c), which gets each
-- row COPY parsed and packs it into iso_event, without the tuple and the
-- trigger call a view's INSTEAD OF trigger costs; it keeps no rows, and
-- reading it returns none (read iso_event).
CREATE FUNCTION @extschema@.iso_load_am_handler(internal)
RETURNS table_am_handler
AS 'MODULE_PATHNAME', 'iso_load_am_handler'
LANGUAGE C;
COMMENT ON FUNCTION @extschema@.iso_load_am_handler(internal) IS
'the table access method iso_load: rows written to iso_event_load are packed into iso_event';
CREATE ACCESS METHOD iso_load TYPE TABLE HANDLER @extschema@.iso_load_am_handler;
COMMENT ON ACCESS METHOD iso_load IS 'isograph''s iso_event_load: rows written to it are packed into iso_event, none kept';
CREATE TABLE @extschema@.iso_event_load (
	history_id bigint DEFAULT pg_catalog.currval('@extschema@.iso_history_history_id_seq'::pg_catalog.regclass),
	txn_id bigint,
	process bigint,
	status text,
	invoke_time bigint,
	complete_time bigint,
	pos integer,
	op text,
	key text COLLATE "C",
	value text COLLATE "C",
	read_value text COLLATE "C",
	read_list text COLLATE "C"
) USING iso_load;
COMMENT ON TABLE @extschema@.iso_event_load IS 'iso_event with read_list as text: the faster COPY target for the same rows (keeps none: read iso_event)';
GRANT SELECT, INSERT ON @extschema@.iso_event_load TO PUBLIC;
CREATE TRIGGER iso_event_load_input_end AFTER INSERT ON @extschema@.iso_event_load
	FOR EACH STATEMENT EXECUTE FUNCTION @extschema@.iso_input_end();

-- Move the events, in key order, through the view's trigger, which packs
-- them (the upgrading superuser sees every history).  Like any write of
-- events, this outdates the histories' images: each history's next check
-- reads its chunks once and stores a new image.
INSERT INTO @extschema@.iso_event
SELECT history_id, txn_id, process, status, invoke_time, complete_time, pos,
	   op, key, value, read_value, read_list
  FROM @extschema@.iso_event_data
 ORDER BY history_id, txn_id, pos;

ALTER EXTENSION isograph DROP TABLE @extschema@.iso_event_data;	-- and from pg_dump's list
DROP TABLE @extschema@.iso_event_data;
CREATE TRIGGER iso_event_inserted AFTER INSERT ON @extschema@.iso_event_chunk
	FOR EACH ROW WHEN (@extschema@.iso_history_has_image(NEW.history_id))
	EXECUTE FUNCTION @extschema@.iso_event_changed();
CREATE TRIGGER iso_event_updated BEFORE UPDATE ON @extschema@.iso_event_chunk
	FOR EACH ROW WHEN (@extschema@.iso_history_has_image(OLD.history_id)
					   OR @extschema@.iso_history_has_image(NEW.history_id))
	EXECUTE FUNCTION @extschema@.iso_event_changed();
CREATE TRIGGER iso_event_deleted BEFORE DELETE ON @extschema@.iso_event_chunk
	FOR EACH ROW WHEN (@extschema@.iso_history_has_image(OLD.history_id))
	EXECUTE FUNCTION @extschema@.iso_event_changed();
CREATE TRIGGER iso_event_truncated AFTER TRUNCATE ON @extschema@.iso_event_chunk
	FOR EACH STATEMENT EXECUTE FUNCTION @extschema@.iso_event_changed();

-- The sections are binary arrays: pglz gains little for its time, lz4
-- 2.5 times (a 1M-transaction image: 105 MB instead of 267 MB, written in
-- less time than the uncompressed bytes take and read as fast).  Without
-- lz4 in the server they are stored as they are.
DO $$
BEGIN
	ALTER TABLE @extschema@.iso_history_image ALTER COLUMN data SET STORAGE EXTENDED;
	ALTER TABLE @extschema@.iso_history_image ALTER COLUMN data SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported THEN
	ALTER TABLE @extschema@.iso_history_image ALTER COLUMN data SET STORAGE EXTERNAL;
END
$$;

-- The streaming load's line trigger pins search_path itself, for the
-- first line only (load.c): a SET clause cost a GUC save and restore per
-- line.
ALTER FUNCTION @extschema@.iso_jepsen_input_line() RESET search_path;

-- iso_levels_jepsen_file: iso_levels_jepsen of a server file read in blocks
CREATE FUNCTION @extschema@.iso_levels_jepsen_file(path text, workload text DEFAULT NULL,
	OUT level text, OUT holds boolean, OUT violations bigint, OUT strongest boolean,
	OUT note text, OUT method text, OUT search_constraints bigint,
	OUT search_constraints_pruned bigint, OUT search_solver_calls integer,
	OUT search_seconds double precision)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'iso_levels_jepsen_file'
LANGUAGE C VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION @extschema@.iso_levels_jepsen_file(text, text) IS
'iso_levels_jepsen of an EDN file on the server, read in blocks (any size; needs pg_read_server_files)';

-- iso_load_jepsen_file: iso_load_jepsen of a server file read in blocks
CREATE FUNCTION @extschema@.iso_load_jepsen_file(name text, path text, workload text DEFAULT NULL)
RETURNS bigint
AS 'MODULE_PATHNAME', 'iso_load_jepsen_file'
LANGUAGE C VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION @extschema@.iso_load_jepsen_file(text, text, text) IS
'iso_load_jepsen of an EDN file on the server, read in blocks (any size; needs pg_read_server_files)';
