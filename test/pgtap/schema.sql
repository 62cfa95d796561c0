-- The extension's schema contract: tables, columns, keys, functions,
-- pg_dump registration and privileges.
BEGIN;
SELECT plan(64);

SELECT has_table('iso_history');
SELECT has_table('iso_event');
SELECT has_table('iso_version');
SELECT has_table('iso_edge');
SELECT has_table('iso_history_image');

SELECT columns_are('iso_history',
  ARRAY['history_id', 'name', 'workload', 'source', 'loaded_at', 'owner', 'skipped', 'metadata',
        'events_rev']);
SELECT columns_are('iso_history_image', ARRAY['history_id', 'section', 'part', 'data']);
SELECT col_is_pk('iso_history_image', ARRAY['history_id', 'section', 'part']);
SELECT col_is_fk('iso_history_image', 'history_id');
SELECT is((SELECT attstorage FROM pg_attribute
            WHERE attrelid = 'iso_history_image'::regclass AND attname = 'data'), 'e',
          'image parts are stored uncompressed (STORAGE EXTERNAL)');
SELECT columns_are('iso_event',
  ARRAY['history_id', 'txn_id', 'process', 'status', 'invoke_time', 'complete_time',
        'pos', 'op', 'key', 'value', 'read_value', 'read_list']);
SELECT columns_are('iso_version', ARRAY['history_id', 'key', 'position', 'value']);
SELECT columns_are('iso_edge',
  ARRAY['history_id', 'from_txn', 'to_txn', 'type', 'key', 'from_event', 'to_event']);

-- every table is led by history_id and keyed by it
SELECT col_is_pk('iso_history', 'history_id');
SELECT col_is_pk('iso_event', ARRAY['history_id', 'txn_id', 'pos']);
SELECT col_is_pk('iso_version', ARRAY['history_id', 'key', 'position']);
SELECT col_is_pk('iso_edge', ARRAY['history_id', 'from_txn', 'to_txn', 'type']);
SELECT col_is_unique('iso_history', ARRAY['owner', 'name']);
SELECT col_is_fk('iso_event', 'history_id');
SELECT col_is_fk('iso_version', 'history_id');
SELECT col_is_fk('iso_edge', 'history_id');
SELECT hasnt_index('iso_event', 'iso_event_key_idx', 'events have only their primary key (ingest speed)');
SELECT has_index('iso_edge', 'iso_edge_to_idx', ARRAY['history_id', 'to_txn']);

SELECT col_type_is('iso_event', 'key', 'text');
SELECT col_type_is('iso_event', 'value', 'text');
SELECT col_type_is('iso_event', 'read_list', 'text[]');
SELECT col_type_is('iso_history', 'metadata', 'jsonb');
SELECT col_not_null('iso_event', 'status');
SELECT col_is_null('iso_event', 'process');

-- constraints reject rows the checker could not interpret
SELECT throws_ok($$INSERT INTO iso_history (name, workload) VALUES ('x', 'bank')$$, '23514');
SELECT throws_ok($$INSERT INTO iso_event VALUES (-1, 1, 0, 'ok', NULL, NULL, 0, 'r', 'k', NULL, NULL, NULL)$$,
                 '23503', NULL, 'events need their history');
SELECT lives_ok($$INSERT INTO iso_history (history_id, name, workload) OVERRIDING SYSTEM VALUE VALUES (-7, 'tap', 'rw-register')$$);
SELECT throws_ok($$INSERT INTO iso_event VALUES (-7, 1, 0, 'committed', NULL, NULL, 0, 'r', 'k', NULL, NULL, NULL)$$, '23514');
SELECT throws_ok($$INSERT INTO iso_event VALUES (-7, 1, 0, 'ok', NULL, NULL, 0, 'w', 'k', NULL, NULL, NULL)$$,
                 '23514', NULL, 'a write needs its value');
SELECT throws_ok($$INSERT INTO iso_event VALUES (-7, 1, 0, 'ok', NULL, NULL, 0, 'r', 'k', '1', NULL, NULL)$$,
                 '23514', NULL, 'a read has no written value');
SELECT throws_ok($$INSERT INTO iso_event VALUES (-7, 1, 0, 'ok', NULL, NULL, 0, 'r', 'k', NULL, '1', '{1}')$$,
                 '23514', NULL, 'a read is a register read or a list read');
SELECT throws_ok($$INSERT INTO iso_edge VALUES (-7, 1, 2, 'xx', NULL, NULL, NULL)$$, '23514');

-- functions
SELECT has_function('iso_load_jepsen', ARRAY['text', 'text', 'text']);
SELECT function_returns('iso_load_jepsen', ARRAY['text', 'text', 'text'], 'bigint');
SELECT has_function('iso_parse_jepsen', ARRAY['text']);
SELECT function_returns('iso_parse_jepsen', ARRAY['text'], 'setof record');
SELECT has_function('iso_load_versions', ARRAY['bigint', 'text']);
SELECT has_function('iso_delete_history', ARRAY['bigint']);
SELECT has_function('iso_build_graph', ARRAY['bigint']);
SELECT has_function('iso_materialize_graph', ARRAY['bigint']);
SELECT has_function('iso_graph_stats', ARRAY['bigint']);
SELECT has_function('iso_anomalies', ARRAY['bigint']);
SELECT has_function('iso_check', ARRAY['text', 'bigint', 'integer']);
SELECT has_function('iso_levels', ARRAY['bigint']);
SELECT has_function('iso_dot', ARRAY['bigint', 'bigint[]']);
SELECT has_function('iso_check_edges', ARRAY['text', 'bigint', 'integer']);
SELECT has_function('iso_save_image', ARRAY['bigint']);
SELECT has_function('iso_levels_jepsen', ARRAY['text', 'text']);
SELECT is((SELECT prolang = (SELECT oid FROM pg_language WHERE lanname = 'c') AND proconfig IS NULL
             FROM pg_proc WHERE proname = 'iso_history_has_image'), true,
          'iso_history_has_image is C without a SET clause (called per row)');
SELECT function_returns('iso_save_image', ARRAY['bigint'], 'bigint');

-- any change of iso_event outdates the images of the histories it touched
SELECT trigger_is('iso_event', 'iso_event_inserted', 'iso_event_changed');
SELECT trigger_is('iso_event', 'iso_event_updated', 'iso_event_changed');
SELECT trigger_is('iso_event', 'iso_event_deleted', 'iso_event_changed');
SELECT trigger_is('iso_event', 'iso_event_truncated', 'iso_event_changed');
-- images can be read and dropped, never written, by users
SELECT table_privs_are('iso_history_image', 'public', ARRAY['SELECT', 'DELETE']);

-- pg_dump keeps user rows of every table but the images (a cache)
SELECT set_eq(
  $$SELECT unnest(extconfig)::regclass::text FROM pg_extension WHERE extname = 'isograph'$$,
  ARRAY['iso_history', 'iso_history_history_id_seq', 'iso_event', 'iso_version', 'iso_edge'],
  'all tables are registered with pg_extension_config_dump');

-- every function pins its search_path against a hostile one
SELECT is_empty(
  $$SELECT p.proname FROM pg_proc p JOIN pg_depend d ON d.objid = p.oid
     JOIN pg_extension e ON d.refobjid = e.oid AND e.extname = 'isograph'
    WHERE (p.proconfig IS NULL OR NOT 'search_path=pg_catalog, pg_temp' = ANY (p.proconfig))
      -- called per row by the iso_event triggers, resolves no names: a SET
      -- clause would cost a GUC save and restore per row
      AND p.proname <> 'iso_history_has_image'$$,
  'functions set search_path');

-- privileges: functions are executable by everyone
SELECT function_privs_are('iso_check', ARRAY['text', 'bigint', 'integer'], 'public', ARRAY['EXECUTE']);
SELECT function_privs_are('iso_load_jepsen', ARRAY['text', 'text', 'text'], 'public', ARRAY['EXECUTE']);

SELECT * FROM finish();
ROLLBACK;
