/* isograph--0.2.0--0.3.0.sql: Elle-agreeing inference, hardening */

\echo Use "ALTER EXTENSION isograph UPDATE TO '0.3.0'" to load this file. \quit

-- Checks read under a snapshot of their own that sees what the calling
-- statement loaded before them (a check in the same statement as the load
-- judged 0 events), and they read isograph.* settings, which are lost when
-- the library is first loaded in a parallel query: VOLATILE, PARALLEL
-- UNSAFE (see the install script).
ALTER FUNCTION @extschema@.iso_build_graph(bigint) VOLATILE PARALLEL UNSAFE;
ALTER FUNCTION @extschema@.iso_graph_stats(bigint) VOLATILE PARALLEL UNSAFE;
ALTER FUNCTION @extschema@.iso_anomalies(bigint) VOLATILE PARALLEL UNSAFE;
ALTER FUNCTION @extschema@.iso_check(text, bigint, integer) VOLATILE PARALLEL UNSAFE;
ALTER FUNCTION @extschema@.iso_levels(bigint) VOLATILE PARALLEL UNSAFE;
ALTER FUNCTION @extschema@.iso_dot(bigint, bigint[]) VOLATILE PARALLEL UNSAFE;
ALTER FUNCTION @extschema@.iso_check_edges(text, bigint, integer) VOLATILE PARALLEL UNSAFE;
ALTER FUNCTION @extschema@.iso_levels_jepsen(text, text) PARALLEL UNSAFE;

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
