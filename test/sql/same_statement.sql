-- A check in the same statement as the load (or any earlier write of the
-- transaction) judges the loaded events.  It used to run with the
-- statement's snapshot, taken before the load: it found the history row
-- but none of its events and reported that every level holds, over 0
-- vertices.  Each shape below checks a write-skew history, which violates
-- ser, and must say so.
SET client_min_messages = notice;
\set edn `cat test/data/rules/lvl-write-skew.edn`
\set g1a `cat test/data/rules/la-g1a.edn`
\set redn `cat test/data/register/write-skew.edn`
\set wal `cat test/data/register/write-skew.wal.jsonl`
SELECT set_config('regress.edn', :'edn', false) IS NOT NULL AS edn_set;

-- 1. the load as the argument of each check function
SELECT level, holds, violations FROM iso_levels(iso_load_jepsen('same-levels', :'edn'))
 WHERE level = 'ser';
SELECT level, anomaly, cardinality(cycle) AS length FROM iso_check('ser', iso_load_jepsen('same-check', :'edn'));
SELECT vertices, edges, sccs FROM iso_graph_stats(iso_load_jepsen('same-stats', :'edn'));
SELECT count(*) AS edges FROM iso_build_graph(iso_load_jepsen('same-build', :'edn'));
SELECT anomaly FROM iso_anomalies(iso_load_jepsen('same-anomalies', :'g1a'));
SELECT iso_dot(iso_load_jepsen('same-dot', :'edn'), '{0,1,2}') LIKE '%->%' AS dot_has_edges;
SELECT iso_materialize_graph(iso_load_jepsen('same-materialize', :'edn')) AS materialized;
SELECT iso_save_image(iso_load_jepsen('same-image', :'edn')) > 0 AS image_saved;

-- 2. reading the events, not the image
SET isograph.use_image = off;
SELECT level, holds, violations FROM iso_levels(iso_load_jepsen('same-no-image', :'edn'))
 WHERE level = 'ser';
RESET isograph.use_image;

-- 3. in CTEs: load, then version order, then check; load, materialize,
-- check the stored edges
WITH h AS (SELECT iso_load_jepsen('same-cte', :'edn') AS id)
SELECT l.level, l.holds FROM h, iso_levels(h.id) l WHERE l.level = 'ser';
WITH h AS (SELECT iso_load_jepsen('same-cte-register', :'redn') AS id),
	 v AS (SELECT id, iso_load_versions(id, :'wal') AS versions FROM h)
SELECT v.versions, l.level, l.holds, l.note FROM v, iso_levels(v.id) l WHERE l.level = 'ser';
WITH h AS (SELECT iso_load_jepsen('same-cte-edges', :'edn') AS id),
	 m AS (SELECT id, iso_materialize_graph(id) AS edges FROM h)
SELECT m.edges, c.level, c.anomaly FROM m, iso_check_edges('ser', m.id) c;

-- 4. a DO block and PL/pgSQL functions that load and then check, in one
-- statement and in two
DO $$
DECLARE
	v boolean;
BEGIN
	SELECT holds INTO v FROM iso_levels(iso_load_jepsen('same-do', current_setting('regress.edn')))
	 WHERE level = 'ser';
	RAISE NOTICE 'DO block, one statement: ser holds = %', v;
END
$$;
CREATE FUNCTION pg_temp.load_then_check(name text, edn text, one_statement boolean)
RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
	id bigint;
	n bigint;
BEGIN
	IF one_statement THEN
		SELECT count(*) INTO n FROM iso_check('ser', iso_load_jepsen(name, edn));
	ELSE
		id := iso_load_jepsen(name, edn);
		SELECT count(*) INTO n FROM iso_check('ser', id);
	END IF;
	RETURN n;
END
$$;
SELECT pg_temp.load_then_check('same-plpgsql-1', :'edn', true) AS ser_violations_one_statement,
	   pg_temp.load_then_check('same-plpgsql-2', :'edn', false) AS ser_violations_two_statements;

-- 5. under REPEATABLE READ and SERIALIZABLE: the transaction's snapshot,
-- plus its own writes
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT count(*) AS histories_before FROM iso_history WHERE name = 'same-rr';
SELECT level, holds, violations FROM iso_levels(iso_load_jepsen('same-rr', :'edn'))
 WHERE level = 'ser';
SELECT vertices FROM iso_graph_stats((SELECT history_id FROM iso_history WHERE name = 'same-rr'));
COMMIT;
BEGIN ISOLATION LEVEL SERIALIZABLE;
SELECT level, holds, violations FROM iso_levels(iso_load_jepsen('same-serializable', :'edn'))
 WHERE level = 'ser';
WITH h AS (SELECT iso_load_jepsen('same-serializable-cte', :'edn') AS id)
SELECT c.anomaly FROM h, iso_check('ser', h.id) c;
COMMIT;

-- 6. every history loaded above, checked on its own later: none is empty
SELECT count(*) AS histories, count(*) FILTER (WHERE s.vertices = 0) AS empty
  FROM iso_history h, iso_graph_stats(h.history_id) s
 WHERE h.name LIKE 'same-%';

SET client_min_messages = warning;
SELECT count(*) AS deleted FROM iso_history h, iso_delete_history(h.history_id) d
 WHERE h.name LIKE 'same-%' AND d;
