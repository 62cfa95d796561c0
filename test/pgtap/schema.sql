-- The extension's schema contract: tables, columns, keys, functions,
-- pg_dump registration and privileges.
BEGIN;
SELECT plan(100);

SELECT has_table('iso_history');
SELECT has_view('iso_event');
SELECT has_view('iso_version');
SELECT has_table('iso_event_load');
SELECT has_table('iso_event_chunk');
SELECT has_table('iso_version_data');
SELECT has_table('iso_edge');
SELECT has_table('iso_history_image');

SELECT columns_are('iso_history',
  ARRAY['history_id', 'name', 'workload', 'source', 'loaded_at', 'owner', 'skipped', 'metadata',
        'events_rev']);
SELECT columns_are('iso_history_image', ARRAY['history_id', 'section', 'part', 'data']);
SELECT col_is_pk('iso_history_image', ARRAY['history_id', 'section', 'part']);
SELECT col_is_fk('iso_history_image', 'history_id');
SELECT ok((SELECT (attstorage, attcompression) IN (('x', 'l'), ('e', ''))
              FROM pg_attribute WHERE attrelid = 'iso_history_image'::regclass AND attname = 'data'),
          'image parts are compressed with lz4, or stored as they are without it (never pglz)');
SELECT ok((SELECT (attstorage, attcompression) = ('e', '')
              FROM pg_attribute WHERE attrelid = 'iso_event_chunk'::regclass AND attname = 'data'),
          'event chunks are stored as they are (out of line, never compressed)');
SELECT columns_are('iso_event',
  ARRAY['history_id', 'txn_id', 'process', 'status', 'invoke_time', 'complete_time',
        'pos', 'op', 'key', 'value', 'read_value', 'read_list']);
-- iso_event_load: iso_event's columns, in iso_event's order (the same CSV)
SELECT is((SELECT array_agg(attname::text ORDER BY attnum) FROM pg_attribute
            WHERE attrelid = 'iso_event_load'::regclass AND attnum > 0),
          (SELECT array_agg(attname::text ORDER BY attnum) FROM pg_attribute
            WHERE attrelid = 'iso_event'::regclass AND attnum > 0),
          'iso_event_load has the columns of iso_event, in order');
SELECT columns_are('iso_version', ARRAY['history_id', 'key', 'position', 'value']);
SELECT columns_are('iso_edge',
  ARRAY['history_id', 'from_txn', 'to_txn', 'type', 'key', 'from_event', 'to_event']);

-- every table is led by history_id and keyed by it
SELECT col_is_pk('iso_history', 'history_id');
SELECT col_is_pk('iso_event_chunk', ARRAY['history_id', 'chunk']);
SELECT col_is_pk('iso_version_data', ARRAY['history_id', 'key', 'position']);
SELECT col_is_pk('iso_edge', ARRAY['history_id', 'from_txn', 'to_txn', 'type']);
SELECT col_is_unique('iso_history', ARRAY['owner', 'name']);
SELECT hasnt_fk('iso_event_chunk', 'no foreign key on events: the input trigger locks the history row');
SELECT col_is_fk('iso_version_data', 'history_id');
SELECT col_is_fk('iso_edge', 'history_id');
SELECT is((SELECT count(*)::int FROM pg_index WHERE indrelid = 'iso_event_chunk'::regclass), 1,
          'event chunks have only their primary key');
SELECT has_index('iso_edge', 'iso_edge_to_idx', ARRAY['history_id', 'to_txn']);

SELECT col_type_is('iso_event', 'key', 'text');
SELECT col_type_is('iso_event', 'value', 'text');
SELECT col_type_is('iso_event', 'read_list', 'text[]');
SELECT col_type_is('iso_event_load', 'read_list', 'text');
SELECT col_type_is('iso_history', 'metadata', 'jsonb');
SELECT col_not_null('iso_event_chunk', 'data');
SELECT columns_are('iso_event_chunk',
  ARRAY['history_id', 'chunk', 'nrows', 'first_txn', 'first_pos', 'last_txn', 'last_pos', 'data']);
SELECT col_type_is('iso_history', 'owner', 'regrole');

-- constraints reject rows the checker could not interpret
SELECT throws_ok($$INSERT INTO iso_history (name, workload) VALUES ('x', 'bank')$$, '23514');
-- (a positive id: iso_history_has_image, in the triggers' WHEN, refuses ids <= 0 first)
SELECT throws_ok($$INSERT INTO iso_event VALUES (999999999, 1, 0, 'ok', NULL, NULL, 0, 'r', 'k', NULL, NULL, NULL)$$,
                 '23503', NULL, 'events need their history');
SELECT throws_ok($$INSERT INTO iso_history (history_id, name, workload) OVERRIDING SYSTEM VALUE VALUES (-7, 'tap', 'rw-register')$$,
                 '23514', NULL, 'history ids are positive');
SELECT lives_ok($$INSERT INTO iso_history (history_id, name, workload) OVERRIDING SYSTEM VALUE VALUES (900000007, 'tap', 'rw-register')$$);
SELECT throws_ok($$INSERT INTO iso_event VALUES (900000007, 1, 0, 'committed', NULL, NULL, 0, 'r', 'k', NULL, NULL, NULL)$$, '23514');
SELECT throws_ok($$INSERT INTO iso_event VALUES (900000007, 1, 0, 'ok', NULL, NULL, 0, 'w', 'k', NULL, NULL, NULL)$$,
                 '23514', NULL, 'a write needs its value');
SELECT throws_ok($$INSERT INTO iso_event VALUES (900000007, 1, 0, 'ok', NULL, NULL, 0, 'r', 'k', '1', NULL, NULL)$$,
                 '23514', NULL, 'a read has no written value');
SELECT throws_ok($$INSERT INTO iso_event VALUES (900000007, 1, 0, 'ok', NULL, NULL, 0, 'r', 'k', NULL, '1', '{1}')$$,
                 '23514', NULL, 'a read is a register read or a list read');
SELECT throws_ok($$INSERT INTO iso_edge VALUES (900000007, 1, 2, 'xx', NULL, NULL, NULL)$$, '23514');

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
SELECT has_function('iso_levels_jepsen_file', ARRAY['text', 'text']);
SELECT has_function('iso_load_jepsen_file', ARRAY['text', 'text', 'text']);
SELECT is((SELECT prolang = (SELECT oid FROM pg_language WHERE lanname = 'c') AND proconfig IS NULL
             FROM pg_proc WHERE proname = 'iso_history_has_image'), true,
          'iso_history_has_image is C without a SET clause (called per row)');
SELECT function_returns('iso_save_image', ARRAY['bigint'], 'bigint');

-- any change of iso_event outdates the images of the histories it touched
SELECT trigger_is('iso_event_chunk', 'iso_event_inserted', 'iso_event_changed');
SELECT trigger_is('iso_event_chunk', 'iso_event_updated', 'iso_event_changed');
SELECT trigger_is('iso_event_chunk', 'iso_event_deleted', 'iso_event_changed');
SELECT trigger_is('iso_event_chunk', 'iso_event_truncated', 'iso_event_changed');
-- rows written to the views are stored by isograph's trigger
SELECT trigger_is('iso_event', 'iso_event_input', 'iso_input_row');
SELECT trigger_is('iso_version', 'iso_version_input', 'iso_input_row');
SELECT trigger_is('iso_event', 'iso_event_input_end', 'iso_input_end');
SELECT trigger_is('iso_event', 'iso_event_change', 'iso_event_change_row');
SELECT trigger_is('iso_event', 'iso_event_change_end', 'iso_input_end');
SELECT trigger_is('iso_version', 'iso_version_input_end', 'iso_input_end');
SELECT trigger_is('iso_event_load', 'iso_event_load_input_end', 'iso_input_end');
-- iso_event_load: a table of isograph's access method, which packs its rows
SELECT is((SELECT a.amname::text FROM pg_class c JOIN pg_am a ON a.oid = c.relam
            WHERE c.oid = 'iso_event_load'::regclass), 'iso_load',
          'iso_event_load is a table of the access method iso_load');
SELECT is((SELECT amtype::text || ' ' || amhandler::text FROM pg_am WHERE amname = 'iso_load'),
          't iso_load_am_handler', 'iso_load is a table access method with isograph''s handler');
-- users read everything of theirs, write through the views and the
-- column privileges of iso_history; no table-level write (LOCK TABLE)
SELECT table_privs_are('iso_history_image', 'public', ARRAY['SELECT']);
SELECT table_privs_are('iso_history', 'public', ARRAY['SELECT']);
SELECT table_privs_are('iso_event_chunk', 'public', ARRAY['SELECT']);
SELECT table_privs_are('iso_version_data', 'public', ARRAY['SELECT']);
SELECT table_privs_are('iso_edge', 'public', ARRAY['SELECT']);
SELECT table_privs_are('iso_event', 'public', ARRAY['SELECT', 'INSERT']);
SELECT table_privs_are('iso_version', 'public', ARRAY['SELECT', 'INSERT']);
SELECT table_privs_are('iso_event_load', 'public', ARRAY['SELECT', 'INSERT']);
SELECT sequence_privs_are('iso_history_history_id_seq', 'public', ARRAY['SELECT']);
SELECT column_privs_are('iso_history', 'name', 'public', ARRAY['SELECT', 'INSERT', 'UPDATE']);
SELECT column_privs_are('iso_history', 'metadata', 'public', ARRAY['SELECT', 'INSERT', 'UPDATE']);
SELECT column_privs_are('iso_history', 'workload', 'public', ARRAY['SELECT', 'INSERT']);
SELECT column_privs_are('iso_history', 'source', 'public', ARRAY['SELECT', 'INSERT']);
SELECT column_privs_are('iso_history', 'history_id', 'public', ARRAY['SELECT']);
SELECT column_privs_are('iso_history', 'owner', 'public', ARRAY['SELECT']);
SELECT column_privs_are('iso_history', 'events_rev', 'public', ARRAY['SELECT']);

-- pg_dump keeps user rows of every table but the images (a cache)
SELECT set_eq(
  $$SELECT unnest(extconfig)::regclass::text FROM pg_extension WHERE extname = 'isograph'$$,
  ARRAY['iso_history', 'iso_history_history_id_seq', 'iso_event_chunk', 'iso_version_data', 'iso_edge'],
  'all tables are registered with pg_extension_config_dump');

-- every function pins its search_path against a hostile one
SELECT is_empty(
  $$SELECT p.proname FROM pg_proc p JOIN pg_depend d ON d.objid = p.oid
     JOIN pg_extension e ON d.refobjid = e.oid AND e.extname = 'isograph'
    WHERE (p.proconfig IS NULL OR NOT 'search_path=pg_catalog, pg_temp' = ANY (p.proconfig))
      -- called per row by the iso_event triggers, resolves no names: a SET
      -- clause would cost a GUC save and restore per row
      -- (and the policies and the views' row triggers likewise, and the
      -- view iso_event's unpacking, called per chunk; the streaming load's
      -- line trigger pins search_path itself for its first line, load.c;
      -- the handler of the access method iso_load only returns its
      -- callbacks, and the rows it gets are stored by iso_input_row's code)
      AND p.proname NOT IN ('iso_history_has_image', 'iso_current_role', 'iso_input_row',
                            'iso_input_end', 'iso_event_change_row', 'iso_event_rows',
                            'iso_jepsen_input_line', 'iso_load_am_handler')$$,
  'functions set search_path');

-- privileges: functions are executable by everyone
SELECT function_privs_are('iso_check', ARRAY['text', 'bigint', 'integer'], 'public', ARRAY['EXECUTE']);
SELECT function_privs_are('iso_load_jepsen', ARRAY['text', 'text', 'text'], 'public', ARRAY['EXECUTE']);
-- (reading a server file is checked inside: pg_read_server_files, as COPY)
SELECT function_privs_are('iso_levels_jepsen_file', ARRAY['text', 'text'], 'public', ARRAY['EXECUTE']);
SELECT function_privs_are('iso_load_jepsen_file', ARRAY['text', 'text', 'text'], 'public', ARRAY['EXECUTE']);

SELECT * FROM finish();
ROLLBACK;
