/* isograph--0.1.0--0.2.0.sql: history images for fast checks; events keep only their primary key */

\echo Use "ALTER EXTENSION isograph UPDATE TO '0.2.0'" to load this file. \quit

-- isograph reads events by history only (the primary key); the key index
-- cost 45% of ingest time.  Users who query events by key can recreate it.
DROP INDEX @extschema@.iso_event_key_idx;

------------------------------------------------------------------------------
-- History images: a compact copy of a history's events that checks read in
-- one piece instead of parsing millions of iso_event rows.  A cache: never
-- dumped, written only by isograph (iso_load_jepsen, iso_save_image), and
-- outdated by any change of the history's events (events_rev, bumped by
-- the iso_event triggers below; the reasoning is in src/image_store.c).
------------------------------------------------------------------------------

ALTER TABLE @extschema@.iso_history
	ADD COLUMN events_rev bigint NOT NULL DEFAULT 0;
COMMENT ON COLUMN @extschema@.iso_history.events_rev IS
'revision of the history''s events, bumped by every change to its iso_event rows (maintained by isograph)';

CREATE TABLE @extschema@.iso_history_image (
	history_id	bigint NOT NULL REFERENCES @extschema@.iso_history ON DELETE CASCADE,
	section		smallint NOT NULL,
	part		integer NOT NULL,
	data		bytea NOT NULL,
	PRIMARY KEY (history_id, section, part)
);
-- the sections are binary arrays that do not compress: no pglz on write
ALTER TABLE @extschema@.iso_history_image ALTER COLUMN data SET STORAGE EXTERNAL;
COMMENT ON TABLE @extschema@.iso_history_image IS
'compact images of histories that checks read instead of iso_event (a cache, see iso_save_image)';

-- Read and delete only: no role may plant an image (isograph writes them).
GRANT SELECT, DELETE ON @extschema@.iso_history_image TO PUBLIC;
ALTER TABLE @extschema@.iso_history_image ENABLE ROW LEVEL SECURITY;
CREATE POLICY iso_history_image_owner ON @extschema@.iso_history_image
	USING (history_id IN (SELECT h.history_id FROM @extschema@.iso_history h
						  WHERE h.owner OPERATOR(pg_catalog.=) CURRENT_USER));

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
CREATE TRIGGER iso_event_inserted AFTER INSERT ON @extschema@.iso_event
	FOR EACH ROW WHEN (@extschema@.iso_history_has_image(NEW.history_id))
	EXECUTE FUNCTION @extschema@.iso_event_changed();
CREATE TRIGGER iso_event_updated BEFORE UPDATE ON @extschema@.iso_event
	FOR EACH ROW WHEN (@extschema@.iso_history_has_image(OLD.history_id)
					   OR @extschema@.iso_history_has_image(NEW.history_id))
	EXECUTE FUNCTION @extschema@.iso_event_changed();
CREATE TRIGGER iso_event_deleted BEFORE DELETE ON @extschema@.iso_event
	FOR EACH ROW WHEN (@extschema@.iso_history_has_image(OLD.history_id))
	EXECUTE FUNCTION @extschema@.iso_event_changed();
CREATE TRIGGER iso_event_truncated AFTER TRUNCATE ON @extschema@.iso_event
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
	OUT note text)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'iso_levels_jepsen'
LANGUAGE C STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp;
COMMENT ON FUNCTION @extschema@.iso_levels_jepsen(text, text) IS
'iso_levels of an EDN history checked in memory, without storing it';
