-- History ids are positive.  No negative id means "every history": a
-- superuser's iso_save_image(-5) on a history planted with id -5 once
-- deleted the images of every other history.  Every function that takes a
-- history_id refuses one <= 0 with an ERROR.
\set VERBOSITY default
SET client_min_messages = warning;

SELECT iso_load_jepsen('ids-a', '{:type :ok, :value [[:append :x 1]]}') AS a \gset
SELECT iso_load_jepsen('ids-b', '{:type :ok, :value [[:append :y 1]]}') AS b \gset
SELECT iso_save_image(:b) > 0 AS saved;
SELECT history_id = :a AS is_a, count(*) > 0 AS has_image_rows
  FROM iso_history_image WHERE history_id IN (:a, :b) GROUP BY history_id ORDER BY 1;

-- plant a history with id -5, as a superuser could while nothing refused
-- it (a CHECK on iso_history refuses it where there is one: then nothing
-- is planted, and the calls below are refused all the same)
DO $$
BEGIN
  INSERT INTO iso_history (history_id, name, workload) OVERRIDING SYSTEM VALUE
  VALUES (-5, 'ids-planted', 'list-append');
EXCEPTION WHEN check_violation THEN NULL;
END $$;

SELECT iso_save_image(-5);
SELECT iso_save_image(0);
-- the images of a and b are still there
SELECT history_id = :a AS is_a, count(*) > 0 AS has_image_rows
  FROM iso_history_image WHERE history_id IN (:a, :b) GROUP BY history_id ORDER BY 1;
SELECT count(*) AS planted_image_rows FROM iso_history_image WHERE history_id <= 0;

-- every function that takes a history_id
SELECT iso_history_has_image(-5);
SELECT iso_load_versions(-5, '');
SELECT * FROM iso_build_graph(-5);
SELECT iso_materialize_graph(-5);
SELECT * FROM iso_graph_stats(0);
SELECT * FROM iso_anomalies(-5);
SELECT * FROM iso_check('ser', -5);
SELECT * FROM iso_check_edges('ser', -5);
SELECT * FROM iso_levels(0);
SELECT * FROM iso_version_order_witness(-5, 'ser');
SELECT iso_dot(-5, ARRAY[1]);
-- the triggers on iso_event call iso_history_has_image for every row
INSERT INTO iso_event (history_id, txn_id, status, pos, op, key, value)
  VALUES (-5, 1, 'ok', 0, 'append', 'x', '1');

-- and every function of the extension with a history_id argument, found
-- through pg_depend (so a function added later is tried too), called with
-- -5 and with 0: each must refuse both with 22023 before it reads anything
CREATE TEMP TABLE id_sweep (sig text, history_id bigint, outcome text);
DO $$
DECLARE
  p record;
  bad bigint;
  call text;
  outcome text;
BEGIN
  FOR p IN
    SELECT pr.oid::regprocedure AS sig, pr.proname, pr.proretset,
           (SELECT array_agg(t ORDER BY o) FROM unnest(pr.proargtypes::oid[]) WITH ORDINALITY u(t, o)) AS types,
           (SELECT array_agg(nm ORDER BY o) FROM unnest(pr.proargnames, coalesce(pr.proargmodes, array_fill('i'::"char", ARRAY[pr.pronargs])))
              WITH ORDINALITY u(nm, md, o) WHERE md IN ('i', 'b', 'v')) AS names
      FROM pg_depend d
      JOIN pg_extension e ON e.oid = d.refobjid
      JOIN pg_proc pr ON pr.oid = d.objid
     WHERE d.classid = 'pg_proc'::regclass AND d.refclassid = 'pg_extension'::regclass
       AND d.deptype = 'e' AND e.extname = 'isograph'
       AND 'history_id' = ANY (pr.proargnames)
     ORDER BY pr.oid::regprocedure::text
  LOOP
    FOREACH bad IN ARRAY ARRAY[-5, 0] LOOP
      SELECT format('%s(%s)', p.proname, string_agg(CASE
               WHEN nm = 'history_id' THEN bad::text
               WHEN nm = 'level' THEN quote_literal('ser')
               WHEN nm = 'wal' THEN quote_literal('')
               WHEN t = 'bigint[]'::regtype THEN quote_literal('{1,2}') || '::bigint[]'
               WHEN t = 'text[]'::regtype THEN quote_literal('{wr,wr}') || '::text[]'
               WHEN t = 'integer'::regtype THEN '1'
               WHEN t = 'bigint'::regtype THEN '1'
               WHEN t = 'text'::regtype THEN quote_literal('x')
               WHEN t = 'boolean'::regtype THEN 'false'
             END, ', ' ORDER BY o))
        INTO call
        FROM unnest(p.names, p.types) WITH ORDINALITY u(nm, t, o);
      IF call IS NULL THEN
        RAISE EXCEPTION 'no sample value for an argument of %: add one to this test', p.sig;
      END IF;
      BEGIN
        IF p.proretset THEN
          EXECUTE format('SELECT count(*) FROM %s', call);
        ELSE
          EXECUTE format('SELECT %s', call);
        END IF;
        outcome := 'accepted';
      EXCEPTION WHEN OTHERS THEN
        outcome := SQLSTATE;
      END;
      INSERT INTO id_sweep VALUES (p.sig::text, bad, outcome);
    END LOOP;
  END LOOP;
END $$;
SELECT sig, string_agg(history_id || ': ' || outcome, ', ' ORDER BY history_id) AS outcomes
  FROM id_sweep GROUP BY sig ORDER BY sig;

DELETE FROM iso_history WHERE history_id <= 0;
SELECT count(*) AS deleted FROM (SELECT iso_delete_history(history_id) FROM iso_history
                                  WHERE name LIKE 'ids-%') d;

-- iso_history_has_image locks the history's row for a writer of its
-- events; a read-only transaction writes none, and may still call it
SELECT iso_load_jepsen('ids-ro', '{:type :ok, :value [[:append :x 1]]}') AS ro \gset
BEGIN TRANSACTION READ ONLY;
SELECT iso_history_has_image(:ro);
COMMIT;
SELECT iso_delete_history(:ro);
