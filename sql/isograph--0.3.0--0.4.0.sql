/* isograph--0.3.0--0.4.0.sql: storage and permissions for many roles */

\echo Use "ALTER EXTENSION isograph UPDATE TO '0.4.0'" to load this file. \quit

-- See the install script (isograph--0.4.0.sql) and docs/security.md for
-- the design: owners are role oids (regrole), roles have no table-level
-- INSERT, UPDATE or DELETE (so no LOCK TABLE above ACCESS SHARE), events
-- and version orders are written through the views iso_event and
-- iso_version, whose INSTEAD OF trigger checks and locks the history.

CREATE FUNCTION @extschema@.iso_current_role()
RETURNS regrole
AS 'MODULE_PATHNAME', 'iso_current_role'
LANGUAGE C STRICT STABLE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.iso_current_role() IS
'the current role as regrole (owner of the histories it loads)';

-- The policies name the owner column: drop them while it changes type.
DROP POLICY iso_history_owner ON @extschema@.iso_history;
DROP POLICY iso_event_owner ON @extschema@.iso_event;
DROP POLICY iso_version_owner ON @extschema@.iso_version;
DROP POLICY iso_edge_owner ON @extschema@.iso_edge;
DROP POLICY iso_history_image_owner ON @extschema@.iso_history_image;

-- history_id: generated only; an id someone inserted past the sequence
-- would collide with a later history, so the sequence moves past them.
SELECT pg_catalog.setval('@extschema@.iso_history_history_id_seq', m)
  FROM (SELECT pg_catalog.max(history_id) AS m FROM @extschema@.iso_history) s
 WHERE m OPERATOR(pg_catalog.>) (SELECT last_value FROM @extschema@.iso_history_history_id_seq);
ALTER TABLE @extschema@.iso_history ALTER COLUMN history_id SET GENERATED ALWAYS;
ALTER TABLE @extschema@.iso_history
	ADD CONSTRAINT iso_history_history_id_check CHECK (history_id > 0);

-- owner: the role's oid.  A history whose owner name names no role (the
-- role was dropped) gets owner 0, which is no role: only superusers see it
-- and can delete it (docs/security.md).
ALTER TABLE @extschema@.iso_history ALTER COLUMN owner DROP DEFAULT;
ALTER TABLE @extschema@.iso_history ALTER COLUMN owner TYPE regrole
	USING COALESCE(pg_catalog.to_regrole(pg_catalog.quote_ident(owner::pg_catalog.text)),
							  '0'::pg_catalog.oid::pg_catalog.regrole);
ALTER TABLE @extschema@.iso_history ALTER COLUMN owner SET DEFAULT @extschema@.iso_current_role();

-- The tables that hold events and version orders; the views take their names.
ALTER TABLE @extschema@.iso_event RENAME TO iso_event_data;
ALTER TABLE @extschema@.iso_event_data DROP CONSTRAINT iso_event_history_id_fkey;
COMMENT ON TABLE @extschema@.iso_event_data IS 'one row per micro-operation of a history (write through the view iso_event)';
ALTER TABLE @extschema@.iso_version RENAME TO iso_version_data;
COMMENT ON TABLE @extschema@.iso_version_data IS 'externally supplied version order per key (write through the view iso_version)';

-- Privileges
REVOKE ALL ON @extschema@.iso_history, @extschema@.iso_event_data,
	@extschema@.iso_version_data, @extschema@.iso_edge,
	@extschema@.iso_history_image FROM PUBLIC;
REVOKE ALL ON SEQUENCE @extschema@.iso_history_history_id_seq FROM PUBLIC;
GRANT SELECT ON @extschema@.iso_history, @extschema@.iso_event_data,
	@extschema@.iso_version_data, @extschema@.iso_edge TO PUBLIC;
GRANT INSERT (name, workload, source, metadata) ON @extschema@.iso_history TO PUBLIC;
GRANT UPDATE (name, metadata) ON @extschema@.iso_history TO PUBLIC;
GRANT SELECT ON SEQUENCE @extschema@.iso_history_history_id_seq TO PUBLIC;
GRANT SELECT ON @extschema@.iso_history_image TO PUBLIC;

CREATE POLICY iso_history_owner ON @extschema@.iso_history
	USING (owner OPERATOR(pg_catalog.=) @extschema@.iso_current_role())
	WITH CHECK (owner OPERATOR(pg_catalog.=) @extschema@.iso_current_role());
CREATE POLICY iso_event_owner ON @extschema@.iso_event_data FOR SELECT
	USING (history_id IN (SELECT h.history_id FROM @extschema@.iso_history h
						  WHERE h.owner OPERATOR(pg_catalog.=) @extschema@.iso_current_role()));
CREATE POLICY iso_version_owner ON @extschema@.iso_version_data FOR SELECT
	USING (history_id IN (SELECT h.history_id FROM @extschema@.iso_history h
						  WHERE h.owner OPERATOR(pg_catalog.=) @extschema@.iso_current_role()));
CREATE POLICY iso_edge_owner ON @extschema@.iso_edge FOR SELECT
	USING (history_id IN (SELECT h.history_id FROM @extschema@.iso_history h
						  WHERE h.owner OPERATOR(pg_catalog.=) @extschema@.iso_current_role()));
CREATE POLICY iso_history_image_owner ON @extschema@.iso_history_image FOR SELECT
	USING (history_id IN (SELECT h.history_id FROM @extschema@.iso_history h
						  WHERE h.owner OPERATOR(pg_catalog.=) @extschema@.iso_current_role()));

-- The views roles read and write
CREATE VIEW @extschema@.iso_event WITH (security_invoker = true) AS
	SELECT history_id, txn_id, process, status, invoke_time, complete_time, pos,
		   op, key, value, read_value, read_list
	  FROM @extschema@.iso_event_data;
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
CREATE TRIGGER iso_version_input INSTEAD OF INSERT ON @extschema@.iso_version
	FOR EACH ROW EXECUTE FUNCTION @extschema@.iso_input_row();
CREATE TRIGGER iso_version_input_end AFTER INSERT ON @extschema@.iso_version
	FOR EACH STATEMENT EXECUTE FUNCTION @extschema@.iso_input_end();

-- Deleting: in C, checks as the caller and deletes as the tables' owner.
DROP FUNCTION @extschema@.iso_delete_history(bigint);
CREATE FUNCTION @extschema@.iso_delete_history(history_id bigint)
RETURNS boolean
AS 'MODULE_PATHNAME', 'iso_delete_history'
LANGUAGE C VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION @extschema@.iso_delete_history(bigint) IS
'delete a history with its events, versions and edges; false if there was none';

-- Witness pictures (iso_dot of an iso_check row).
CREATE FUNCTION @extschema@.iso_dot(history_id bigint, cycle bigint[], edge_types text[],
	keys text[] DEFAULT NULL)
RETURNS text
AS 'MODULE_PATHNAME', 'iso_dot'
LANGUAGE C VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION @extschema@.iso_dot(bigint, bigint[], text[], text[]) IS
'Graphviz DOT of a witness (an iso_check row''s cycle, edge_types and keys): the cycle''s edges bold and numbered, the others faint';

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

CREATE FUNCTION @extschema@.iso_jepsen_input_line()
RETURNS trigger
AS 'MODULE_PATHNAME', 'iso_jepsen_input_line'
LANGUAGE C VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp;
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

-- iso_levels and iso_levels_jepsen: how each verdict was reached (the
-- version-order search of black-box register histories); new columns at
-- the end.  iso_version_order_witness: new.
DROP FUNCTION @extschema@.iso_levels(bigint);
DROP FUNCTION @extschema@.iso_levels_jepsen(text, text);
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
