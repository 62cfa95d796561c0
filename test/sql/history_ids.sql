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
