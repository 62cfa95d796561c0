/* isograph--0.5.0.sql: full install script */

\echo Use "CREATE EXTENSION isograph" to load this file. \quit

------------------------------------------------------------------------------
-- Tables.  Every table is led by history_id so histories can be partitioned
-- or distributed by history.
------------------------------------------------------------------------------

-- The role a history belongs to: the current role's oid as regrole (an oid
-- survives ALTER ROLE ... RENAME; it dumps as the role's name, quoted as
-- needed).  The default of iso_history.owner and the key of every policy.
CREATE FUNCTION @extschema@.iso_current_role()
RETURNS regrole
AS 'MODULE_PATHNAME', 'iso_current_role'
LANGUAGE C STRICT STABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.iso_current_role() IS
'the current role as regrole (owner of the histories it loads)';

CREATE TABLE @extschema@.iso_history (
	history_id	bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY CHECK (history_id > 0),
	name		text NOT NULL,
	workload	text NOT NULL CHECK (workload IN ('list-append', 'rw-register')),
	source		text NOT NULL DEFAULT 'copy',
	loaded_at	timestamptz NOT NULL DEFAULT pg_catalog.now(),
	owner		regrole NOT NULL DEFAULT @extschema@.iso_current_role(),
	skipped		bigint NOT NULL DEFAULT 0 CHECK (skipped >= 0),
	metadata	jsonb NOT NULL DEFAULT '{}',
	events_rev	bigint NOT NULL DEFAULT 0,
	UNIQUE (owner, name)
);
COMMENT ON TABLE @extschema@.iso_history IS 'one row per loaded history';

-- The events are stored packed, up to 16384 in one row of iso_event_chunk
-- (src/core/event_chunk.h: a few bytes per event instead of a heap tuple,
-- an index entry and their WAL), and written and read through the view
-- iso_event (below), one row per micro-operation.  Its INSTEAD OF trigger
-- checks that the history is the caller's, locks its row, checks each row
-- as the table's constraints did until 0.4.0 and packs it
-- (src/pg/event_input.c, event_store.c).  A history's chunks hold its
-- events in (txn_id, pos) order, each key once: a statement that writes
-- them in another order has the history's chunks rewritten in order when
-- it ends, which is also where a repeated (txn_id, pos) is refused.
-- first_txn .. last_pos are the chunk's first and last keys.  No foreign
-- key to iso_history: the input trigger locks the history row before
-- writing, and iso_delete_history deletes the chunks explicitly.
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

CREATE TABLE @extschema@.iso_version_data (
	history_id	bigint NOT NULL,
	key			text COLLATE "C" NOT NULL,
	position	integer NOT NULL CONSTRAINT iso_version_position_check CHECK (position >= 0),
	value		text COLLATE "C" NOT NULL,
	CONSTRAINT iso_version_pkey PRIMARY KEY (history_id, key, position),
	CONSTRAINT iso_version_history_id_key_value_key UNIQUE (history_id, key, value),
	CONSTRAINT iso_version_history_id_fkey FOREIGN KEY (history_id)
		REFERENCES @extschema@.iso_history ON DELETE CASCADE
);
COMMENT ON TABLE @extschema@.iso_version_data IS 'externally supplied version order per key (write through the view iso_version)';

CREATE TABLE @extschema@.iso_edge (
	history_id	bigint NOT NULL REFERENCES @extschema@.iso_history ON DELETE CASCADE,
	from_txn	bigint NOT NULL,
	to_txn		bigint NOT NULL,
	type		text NOT NULL CHECK (type IN ('ww', 'wr', 'rw', 'so', 'rt')),
	key			text COLLATE "C",
	from_event	integer,
	to_event	integer,
	PRIMARY KEY (history_id, from_txn, to_txn, type)
);
COMMENT ON TABLE @extschema@.iso_edge IS 'materialized dependency edges (see iso_materialize_graph)';
CREATE INDEX iso_edge_to_idx ON @extschema@.iso_edge (history_id, to_txn);

SELECT pg_catalog.pg_extension_config_dump('@extschema@.iso_history', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.iso_history_history_id_seq', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.iso_version_data', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.iso_edge', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.iso_event_chunk', '');

------------------------------------------------------------------------------
-- Privileges: every role may load and check histories, and sees only the
-- histories it owns (row-level security keyed on iso_history.owner, the
-- role's oid).  Superusers and the extension owner see all.
--
-- No role but the owner has table-level INSERT, UPDATE, DELETE or TRUNCATE
-- on any table: LOCK TABLE accepts those for the modes above ACCESS SHARE
-- (it ignores column privileges), so nobody can lock a table others use.
-- Roles create histories with column-level INSERT on iso_history, write
-- events and version orders through the views iso_event and iso_version,
-- and delete with iso_delete_history; the rest is written by isograph's
-- functions (docs/security.md).
------------------------------------------------------------------------------

GRANT SELECT ON @extschema@.iso_history, @extschema@.iso_event_chunk,
	@extschema@.iso_version_data, @extschema@.iso_edge TO PUBLIC;
GRANT INSERT (name, workload, source, metadata) ON @extschema@.iso_history TO PUBLIC;
GRANT UPDATE (name, metadata) ON @extschema@.iso_history TO PUBLIC;
-- pg_dump reads the sequence; its value tells how many histories were ever
-- created (docs/security.md).  Identity columns need no USAGE.
GRANT SELECT ON SEQUENCE @extschema@.iso_history_history_id_seq TO PUBLIC;

ALTER TABLE @extschema@.iso_history ENABLE ROW LEVEL SECURITY;
ALTER TABLE @extschema@.iso_event_chunk ENABLE ROW LEVEL SECURITY;
ALTER TABLE @extschema@.iso_version_data ENABLE ROW LEVEL SECURITY;
ALTER TABLE @extschema@.iso_edge ENABLE ROW LEVEL SECURITY;

CREATE POLICY iso_history_owner ON @extschema@.iso_history
	USING (owner OPERATOR(pg_catalog.=) @extschema@.iso_current_role())
	WITH CHECK (owner OPERATOR(pg_catalog.=) @extschema@.iso_current_role());
CREATE POLICY iso_event_owner ON @extschema@.iso_event_chunk FOR SELECT
	USING (history_id IN (SELECT h.history_id FROM @extschema@.iso_history h
						  WHERE h.owner OPERATOR(pg_catalog.=) @extschema@.iso_current_role()));
CREATE POLICY iso_version_owner ON @extschema@.iso_version_data FOR SELECT
	USING (history_id IN (SELECT h.history_id FROM @extschema@.iso_history h
						  WHERE h.owner OPERATOR(pg_catalog.=) @extschema@.iso_current_role()));
CREATE POLICY iso_edge_owner ON @extschema@.iso_edge FOR SELECT
	USING (history_id IN (SELECT h.history_id FROM @extschema@.iso_history h
						  WHERE h.owner OPERATOR(pg_catalog.=) @extschema@.iso_current_role()));

------------------------------------------------------------------------------
-- iso_event and iso_version: the views every role reads and writes
-- (COPY ... FROM, INSERT).  Reads go through the tables' row-level
-- security as the caller (security_invoker); an INSTEAD OF trigger in C
-- checks that each row's history is the caller's (once per statement and
-- history), locks the history's row FOR NO KEY UPDATE, checks the table's
-- constraints and inserts the row (src/pg/event_input.c).  Events and
-- version orders are not updated or deleted row by row: delete the history
-- (iso_delete_history) and load it again.
------------------------------------------------------------------------------

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

CREATE VIEW @extschema@.iso_version WITH (security_invoker = true) AS
	SELECT history_id, key, position, value
	  FROM @extschema@.iso_version_data;
COMMENT ON VIEW @extschema@.iso_version IS 'externally supplied version order per key (register histories; COPY or INSERT here)';

GRANT SELECT, INSERT ON @extschema@.iso_event, @extschema@.iso_version TO PUBLIC;

-- Rows written without a history_id go into the history this session
-- created last (any tool's CSV, without an id column: README).
ALTER VIEW @extschema@.iso_event ALTER COLUMN history_id
	SET DEFAULT pg_catalog.currval('@extschema@.iso_history_history_id_seq'::pg_catalog.regclass);
ALTER VIEW @extschema@.iso_version ALTER COLUMN history_id
	SET DEFAULT pg_catalog.currval('@extschema@.iso_history_history_id_seq'::pg_catalog.regclass);

CREATE FUNCTION @extschema@.iso_input_row()
RETURNS trigger
AS 'MODULE_PATHNAME', 'iso_input_row'
LANGUAGE C;
COMMENT ON FUNCTION @extschema@.iso_input_row() IS
'trigger: insert a row written to iso_event or iso_version into its table, for the history''s owner';

CREATE FUNCTION @extschema@.iso_input_end()
RETURNS trigger
AS 'MODULE_PATHNAME', 'iso_input_end'
LANGUAGE C;
COMMENT ON FUNCTION @extschema@.iso_input_end() IS
'trigger: release what iso_input_row kept for the statement';

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
CREATE TRIGGER iso_version_input INSTEAD OF INSERT ON @extschema@.iso_version
	FOR EACH ROW EXECUTE FUNCTION @extschema@.iso_input_row();
CREATE TRIGGER iso_version_input_end AFTER INSERT ON @extschema@.iso_version
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

------------------------------------------------------------------------------
-- Ingest
------------------------------------------------------------------------------

CREATE FUNCTION @extschema@.iso_parse_jepsen(edn text,
	OUT txn_id bigint, OUT process bigint, OUT status text,
	OUT invoke_time bigint, OUT complete_time bigint, OUT pos integer,
	OUT op text, OUT key text, OUT value text, OUT read_value text,
	OUT read_list text[])
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'iso_parse_jepsen'
LANGUAGE C STRICT VOLATILE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION @extschema@.iso_parse_jepsen(text) IS
'parse a Jepsen EDN history and return its micro-operations as iso_event rows, without storing them';

CREATE FUNCTION @extschema@.iso_load_jepsen(name text, edn text, workload text DEFAULT NULL)
RETURNS bigint
AS 'MODULE_PATHNAME', 'iso_load_jepsen'
LANGUAGE C VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION @extschema@.iso_load_jepsen(text, text, text) IS
'parse a Jepsen EDN history, store it in iso_history and iso_event, and return its history_id';

CREATE FUNCTION @extschema@.iso_load_jepsen_file(name text, path text, workload text DEFAULT NULL)
RETURNS bigint
AS 'MODULE_PATHNAME', 'iso_load_jepsen_file'
LANGUAGE C VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION @extschema@.iso_load_jepsen_file(text, text, text) IS
'iso_load_jepsen of an EDN file on the server, read in blocks (any size; needs pg_read_server_files)';

CREATE FUNCTION @extschema@.iso_load_versions(history_id bigint, wal text)
RETURNS bigint
AS 'MODULE_PATHNAME', 'iso_load_versions'
LANGUAGE C STRICT VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION @extschema@.iso_load_versions(bigint, text) IS
'store the per-key version order of a register history from write-ahead-log JSON lines; returns the number of versions stored';

-- C: it checks as the caller that the history is visible (its own, or any
-- for a superuser), locks its row, and deletes as the tables' owner (no
-- role has DELETE on the tables).  NULL: false, as for an unknown id.
CREATE FUNCTION @extschema@.iso_delete_history(history_id bigint)
RETURNS boolean
AS 'MODULE_PATHNAME', 'iso_delete_history'
LANGUAGE C VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION @extschema@.iso_delete_history(bigint) IS
'delete a history with its events, versions and edges; false if there was none';

------------------------------------------------------------------------------
-- Dependency graph
--
-- The graph and check functions below are VOLATILE and PARALLEL UNSAFE:
-- each reads the history under a snapshot of its own that sees what the
-- calling statement loaded before it (src/snapshot.c), and they read
-- isograph.* settings, which PostgreSQL cannot apply when the library is
-- first loaded during a parallel query (src/isograph.c).  iso_parse_jepsen
-- reads neither and stays PARALLEL SAFE.
------------------------------------------------------------------------------

CREATE FUNCTION @extschema@.iso_build_graph(history_id bigint,
	OUT history_id bigint, OUT from_txn bigint, OUT to_txn bigint, OUT type text,
	OUT key text, OUT from_event integer, OUT to_event integer)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'iso_build_graph'
LANGUAGE C STRICT VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION @extschema@.iso_build_graph(bigint) IS
'the dependency graph of a history: one row per (from_txn, to_txn, type) edge';

CREATE FUNCTION @extschema@.iso_materialize_graph(history_id bigint)
RETURNS bigint
AS 'MODULE_PATHNAME', 'iso_materialize_graph'
LANGUAGE C STRICT VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION @extschema@.iso_materialize_graph(bigint) IS
'replace the history''s rows in iso_edge with its dependency graph; returns the number of edges';

CREATE FUNCTION @extschema@.iso_graph_stats(history_id bigint,
	OUT history_id bigint, OUT vertices bigint, OUT aborted bigint, OUT indeterminate bigint,
	OUT ww bigint, OUT wr bigint, OUT rw bigint, OUT so bigint, OUT rt bigint,
	OUT edges bigint, OUT density double precision, OUT sccs bigint, OUT largest_scc bigint,
	OUT anomalies bigint, OUT unknown_order_keys bigint, OUT version_order text)
RETURNS record
AS 'MODULE_PATHNAME', 'iso_graph_stats'
LANGUAGE C STRICT VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION @extschema@.iso_graph_stats(bigint) IS
'size and shape of a history''s dependency graph';

CREATE FUNCTION @extschema@.iso_anomalies(history_id bigint,
	OUT history_id bigint, OUT anomaly text, OUT txns bigint[], OUT events integer[],
	OUT key text, OUT explanation text)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'iso_anomalies'
LANGUAGE C STRICT VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION @extschema@.iso_anomalies(bigint) IS
'non-cycle anomalies found while building the graph (G1a, G1b, internal, garbage reads, ...)';

------------------------------------------------------------------------------
-- Checks
------------------------------------------------------------------------------

CREATE FUNCTION @extschema@.iso_check(level text, history_id bigint DEFAULT NULL,
	max_witnesses integer DEFAULT NULL,
	OUT history_id bigint, OUT history text, OUT level text, OUT anomaly text,
	OUT cycle bigint[], OUT edge_types text[], OUT keys text[], OUT explanation text,
	OUT txns bigint[])
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'iso_check'
LANGUAGE C VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION @extschema@.iso_check(text, bigint, integer) IS
'violations of an isolation level in one history (or in every history when history_id is null)';

CREATE FUNCTION @extschema@.iso_levels(history_id bigint,
	OUT level text, OUT holds boolean, OUT violations bigint, OUT strongest boolean,
	OUT note text, OUT method text, OUT search_constraints bigint,
	OUT search_constraints_pruned bigint, OUT search_solver_calls integer,
	OUT search_seconds double precision)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'iso_levels'
LANGUAGE C STRICT VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION @extschema@.iso_levels(bigint) IS
'which isolation levels a history satisfies, weakest first';

CREATE FUNCTION @extschema@.iso_version_order_witness(history_id bigint, level text,
	OUT key text, OUT "position" integer, OUT value text, OUT txn_id bigint)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'iso_version_order_witness'
LANGUAGE C STRICT VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION @extschema@.iso_version_order_witness(bigint, text) IS
'a version order of the register keys whose order is unknown under which the level holds';

CREATE FUNCTION @extschema@.iso_dot(history_id bigint, txns bigint[])
RETURNS text
AS 'MODULE_PATHNAME', 'iso_dot'
LANGUAGE C STRICT VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION @extschema@.iso_dot(bigint, bigint[]) IS
'Graphviz DOT of the given transactions of a history and the dependency edges between them';

CREATE FUNCTION @extschema@.iso_dot(history_id bigint, cycle bigint[], edge_types text[],
	keys text[] DEFAULT NULL)
RETURNS text
AS 'MODULE_PATHNAME', 'iso_dot'
LANGUAGE C VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION @extschema@.iso_dot(bigint, bigint[], text[], text[]) IS
'Graphviz DOT of a witness (an iso_check row''s cycle, edge_types and keys): the cycle''s edges bold and numbered, the others faint';

CREATE FUNCTION @extschema@.iso_check_edges(level text, history_id bigint,
	max_witnesses integer DEFAULT NULL,
	OUT history_id bigint, OUT level text, OUT anomaly text,
	OUT cycle bigint[], OUT edge_types text[], OUT keys text[])
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'iso_check_edges'
LANGUAGE C VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION @extschema@.iso_check_edges(text, bigint, integer) IS
'the cycle checks of a level over the edges stored in iso_edge (materialized or imported)';

------------------------------------------------------------------------------
-- History images: a compact copy of a history's events that checks read in
-- one piece instead of parsing millions of iso_event rows.  A cache: never
-- dumped, written only by isograph (iso_load_jepsen, iso_save_image), and
-- outdated by any change of the history's events (events_rev, bumped by
-- the iso_event triggers below; the reasoning is in src/image_store.c).
------------------------------------------------------------------------------

COMMENT ON COLUMN @extschema@.iso_history.events_rev IS
'revision of the history''s events, bumped by every change to its iso_event rows (maintained by isograph)';

CREATE TABLE @extschema@.iso_history_image (
	history_id	bigint NOT NULL REFERENCES @extschema@.iso_history ON DELETE CASCADE,
	section		smallint NOT NULL,
	part		integer NOT NULL,
	data		bytea NOT NULL,
	PRIMARY KEY (history_id, section, part)
);
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
COMMENT ON TABLE @extschema@.iso_history_image IS
'compact images of histories that checks read instead of iso_event (a cache, see iso_save_image)';

-- Read only: no role may plant or remove an image (isograph writes and
-- drops them; a DELETE privilege would also let any role LOCK the table).
GRANT SELECT ON @extschema@.iso_history_image TO PUBLIC;
ALTER TABLE @extschema@.iso_history_image ENABLE ROW LEVEL SECURITY;
CREATE POLICY iso_history_image_owner ON @extschema@.iso_history_image FOR SELECT
	USING (history_id IN (SELECT h.history_id FROM @extschema@.iso_history h
						  WHERE h.owner OPERATOR(pg_catalog.=) @extschema@.iso_current_role()));

CREATE FUNCTION @extschema@.iso_event_changed()
RETURNS trigger
AS 'MODULE_PATHNAME', 'iso_event_changed'
LANGUAGE C
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION @extschema@.iso_event_changed() IS
'trigger: outdate and drop the images of the histories whose events changed';

-- Called for every row written to iso_event (the triggers' WHEN clauses), so
-- no SET clause: it is C and resolves no names.
CREATE FUNCTION @extschema@.iso_history_has_image(history_id bigint)
RETURNS boolean
AS 'MODULE_PATHNAME', 'iso_history_has_image'
LANGUAGE C STRICT VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION @extschema@.iso_history_has_image(bigint) IS
'whether the history has a stored image (latest committed state; for the iso_event triggers)';

-- Row triggers, but only for rows of histories that have an image: a COPY
-- of a new history costs one cached test per row and queues nothing.
-- UPDATE and DELETE fire BEFORE (nothing queued); INSERT fires AFTER,
-- which keeps COPY's batched inserts.
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

CREATE FUNCTION @extschema@.iso_save_image(history_id bigint)
RETURNS bigint
AS 'MODULE_PATHNAME', 'iso_save_image'
LANGUAGE C STRICT VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION @extschema@.iso_save_image(bigint) IS
'read a history''s events once and store the image checks read instead (after COPY); returns its size in bytes';

CREATE FUNCTION @extschema@.iso_levels_jepsen(edn text, workload text DEFAULT NULL,
	OUT level text, OUT holds boolean, OUT violations bigint, OUT strongest boolean,
	OUT note text, OUT method text, OUT search_constraints bigint,
	OUT search_constraints_pruned bigint, OUT search_solver_calls integer,
	OUT search_seconds double precision)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'iso_levels_jepsen'
LANGUAGE C STABLE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION @extschema@.iso_levels_jepsen(text, text) IS
'iso_levels of an EDN history checked in memory, without storing it';

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

-- ---------------------------------------------------------------------
-- Streaming load (for histories of any size, e.g. over 1 GB of EDN):
--   SELECT iso_begin_load('h1', 'list-append');
--   \copy iso_jepsen_input FROM 'history.edn' WITH (FORMAT csv, QUOTE E'\x01', DELIMITER E'\x02')
-- The statement that writes the lines to iso_jepsen_input creates, fills
-- and finishes the history, exactly as iso_load_jepsen of the same text;
-- the backend holds no more of the text than one unfinished record.
-- (This block is self-contained: iso_begin_load, iso_cancel_load,
-- iso_jepsen_input_line, iso_jepsen_input_end, the view iso_jepsen_input,
-- its two triggers and its grant.)
-- ---------------------------------------------------------------------

CREATE FUNCTION @extschema@.iso_begin_load(name text, workload text DEFAULT NULL)
RETURNS void
AS 'MODULE_PATHNAME', 'iso_begin_load'
LANGUAGE C VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION @extschema@.iso_begin_load(text, text) IS
'name the history (and its workload) that the next statement writing lines to iso_jepsen_input loads';

CREATE FUNCTION @extschema@.iso_cancel_load()
RETURNS boolean
AS 'MODULE_PATHNAME', 'iso_cancel_load'
LANGUAGE C VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION @extschema@.iso_cancel_load() IS
'give up the load opened by iso_begin_load; returns whether one was open';

-- No SET clause: it runs for every line (a GUC save and restore per line
-- was an eighth of a streaming load), and it pins search_path itself for
-- the statement's first line, where all of its queries run (load.c).
CREATE FUNCTION @extschema@.iso_jepsen_input_line()
RETURNS trigger
AS 'MODULE_PATHNAME', 'iso_jepsen_input_line'
LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION @extschema@.iso_jepsen_input_line() IS
'trigger: one line of the history being loaded through iso_jepsen_input';

CREATE FUNCTION @extschema@.iso_jepsen_input_end()
RETURNS trigger
AS 'MODULE_PATHNAME', 'iso_jepsen_input_end'
LANGUAGE C VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION @extschema@.iso_jepsen_input_end() IS
'trigger: the end of the history being loaded through iso_jepsen_input (checks it and stores it)';

CREATE VIEW @extschema@.iso_jepsen_input AS
	SELECT NULL::pg_catalog.text AS line WHERE false;
COMMENT ON VIEW @extschema@.iso_jepsen_input IS
'write a Jepsen EDN history here line by line (COPY) after iso_begin_load(); reading it returns nothing';
CREATE TRIGGER iso_jepsen_input_line INSTEAD OF INSERT ON @extschema@.iso_jepsen_input
	FOR EACH ROW EXECUTE FUNCTION @extschema@.iso_jepsen_input_line();
CREATE TRIGGER iso_jepsen_input_end AFTER INSERT ON @extschema@.iso_jepsen_input
	FOR EACH STATEMENT EXECUTE FUNCTION @extschema@.iso_jepsen_input_end();
GRANT SELECT, INSERT ON @extschema@.iso_jepsen_input TO PUBLIC;
