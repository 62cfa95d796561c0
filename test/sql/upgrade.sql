-- ALTER EXTENSION isograph UPDATE from 0.1.0, and from 0.3.0, to the latest
-- version gives the same objects as CREATE EXTENSION isograph, and a
-- history stored under 0.1.0 keeps working: no image, checks read its
-- events, iso_save_image and the iso_event triggers work on it.  From
-- 0.3.0 (0.4.0: owners are role oids), a role's histories stay its own and
-- a history whose owner role is gone becomes an orphan (owner 0).
SET client_min_messages = warning;
SELECT current_database() AS regress_db \gset
DROP DATABASE IF EXISTS isograph_upgraded;
DROP DATABASE IF EXISTS isograph_fresh;
DROP DATABASE IF EXISTS isograph_upgraded3;
CREATE DATABASE isograph_upgraded;
CREATE DATABASE isograph_upgraded3;
CREATE DATABASE isograph_fresh;

-- What is compared, one line per fact (definitions as md5: they are long;
-- the installing role, a superuser of any name, shows as OWNER).
SELECT $query$
SELECT regexp_replace(line, '\s+', ' ', 'g') AS line FROM (
  SELECT 'member ' || pg_describe_object(d.classid, d.objid, d.objsubid) AS line
    FROM pg_depend d JOIN pg_extension e ON d.refobjid = e.oid
   WHERE d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
     AND e.extname = 'isograph'
  UNION ALL
  SELECT format('column %s.%s #%s %s%s%s%s storage %s collation %s comment %s acl %s',
                c.relname, a.attname, a.attnum, format_type(a.atttypid, a.atttypmod),
                CASE WHEN a.attnotnull THEN ' not null' ELSE '' END,
                ' default ' || pg_get_expr(ad.adbin, ad.adrelid),
                CASE WHEN a.attidentity <> '' THEN ' identity ' || a.attidentity::text END,
                a.attstorage, co.collname, col_description(c.oid, a.attnum),
                replace(a.attacl::text, current_user, 'OWNER'))
    FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid
    LEFT JOIN pg_attrdef ad ON ad.adrelid = c.oid AND ad.adnum = a.attnum
    LEFT JOIN pg_collation co ON co.oid = a.attcollation
   WHERE c.relnamespace = 'public'::regnamespace AND c.relname LIKE 'iso\_%'
     AND c.relkind IN ('r', 'v') AND a.attnum > 0 AND NOT a.attisdropped
  UNION ALL
  SELECT format('relation %s kind %s rls %s force %s acl %s comment %s', c.relname,
                c.relkind, c.relrowsecurity, c.relforcerowsecurity,
                replace(c.relacl::text, current_user, 'OWNER'),
                obj_description(c.oid, 'pg_class'))
    FROM pg_class c
   WHERE c.relnamespace = 'public'::regnamespace AND c.relname LIKE 'iso\_%'
  UNION ALL
  SELECT format('constraint %s on %s: %s', conname, conrelid::regclass, pg_get_constraintdef(oid))
    FROM pg_constraint
   WHERE connamespace = 'public'::regnamespace AND conrelid <> 0
  UNION ALL
  SELECT 'index ' || pg_get_indexdef(i.indexrelid)
    FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid
   WHERE c.relnamespace = 'public'::regnamespace AND c.relname LIKE 'iso\_%'
  UNION ALL
  SELECT format('policy %s on %s: cmd %s roles %s using %s check %s', polname,
                polrelid::regclass, polcmd, polroles::regrole[],
                pg_get_expr(polqual, polrelid), pg_get_expr(polwithcheck, polrelid))
    FROM pg_policy
  UNION ALL
  SELECT 'trigger ' || pg_get_triggerdef(t.oid) || ' enabled ' || t.tgenabled::text
    FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
   WHERE c.relnamespace = 'public'::regnamespace AND c.relname LIKE 'iso\_%'
     AND NOT t.tgisinternal
  UNION ALL
  SELECT format('view %s md5 %s options %s', c.relname, md5(pg_get_viewdef(c.oid)), c.reloptions)
    FROM pg_class c
   WHERE c.relnamespace = 'public'::regnamespace AND c.relname LIKE 'iso\_%' AND c.relkind = 'v'
  UNION ALL
  SELECT format('function %s acl %s comment %s', p.oid::regprocedure,
                replace(p.proacl::text, current_user, 'OWNER'),
                obj_description(p.oid, 'pg_proc'))
    FROM pg_proc p
   WHERE p.pronamespace = 'public'::regnamespace AND p.proname LIKE 'iso\_%'
  UNION ALL
  SELECT format('definition %s md5 %s', p.oid::regprocedure, md5(pg_get_functiondef(p.oid)))
    FROM pg_proc p
   WHERE p.pronamespace = 'public'::regnamespace AND p.proname LIKE 'iso\_%'
  UNION ALL
  SELECT format('extension %s config %s condition %s', extversion,
                extconfig::regclass[], extcondition)
    FROM pg_extension WHERE extname = 'isograph'
) facts
$query$ AS catalog \gset

-- Under 0.1.0: the catalog, and a history stored through plain INSERTs.
\c isograph_upgraded
SET client_min_messages = warning;
CREATE EXTENSION isograph VERSION '0.1.0';
SELECT string_agg(line, E'\n' ORDER BY line) AS v010 FROM (:catalog) c \gset
INSERT INTO iso_history (name, workload) VALUES ('from 0.1.0', 'list-append');
-- T1 appends 1 to x and reads y = []; T2 reads x = [1] and appends 1 to y:
-- T1 -wr-> T2 (x) and T1 -rw-> T2 (y), no cycle.
INSERT INTO iso_event (history_id, txn_id, status, pos, op, key, value, read_list) VALUES
  (1, 1, 'ok', 0, 'append', 'x', '1', NULL),
  (1, 1, 'ok', 1, 'r', 'y', NULL, '{}'),
  (1, 2, 'ok', 0, 'r', 'x', NULL, '{1}'),
  (1, 2, 'ok', 1, 'append', 'y', '1', NULL);

-- Until the update, the new library serves the 0.1.0 schema: loads write
-- no image and checks read the events.
SELECT count(*) AS ser_violations_before_update FROM iso_check('ser', 1);
SELECT iso_load_jepsen('loaded under 0.1.0',
  '{:type :ok, :f :txn, :value [[:append 1 1] [:r 1 [1]]]}') AS loaded_id;
SELECT count(*) AS levels_before_update FROM iso_levels(2) WHERE holds;

ALTER EXTENSION isograph UPDATE;
SELECT extversion FROM pg_extension WHERE extname = 'isograph';
SELECT string_agg(line, E'\n' ORDER BY line) AS upgraded FROM (:catalog) c \gset

-- The old history: revision 0, no image; the check reads its events.
SELECT history_id, name, events_rev,
       (SELECT count(*) FROM iso_history_image i WHERE i.history_id = h.history_id) AS image_rows
  FROM iso_history h;
SELECT count(*) AS ser_violations FROM iso_check('ser', 1);
SELECT iso_save_image(1) > 0 AS saved;
SELECT count(*) AS image_rows FROM iso_history_image WHERE history_id = 1;
-- T1's read of y becomes [1], T2's append: T2 -wr-> T1 on y and
-- T1 -wr-> T2 on x, a G1c cycle, seen through the new trigger.
UPDATE iso_event SET read_list = '{1}' WHERE history_id = 1 AND txn_id = 1 AND key = 'y';
SELECT events_rev, (SELECT count(*) FROM iso_history_image WHERE history_id = 1) AS image_rows
  FROM iso_history WHERE history_id = 1;
SELECT anomaly, cycle, edge_types, keys FROM iso_check('ser', 1);
-- a load under 0.2.0 stores an image
SELECT iso_load_jepsen('loaded', '{:type :ok, :value [[:append 1 1]]}') AS h \gset
SELECT count(*) > 0 AS has_image FROM iso_history_image WHERE history_id = :h;

-- From 0.3.0: owners were role names.  A role's history, and one whose
-- owner name names no role any more.
\c isograph_upgraded3
SET client_min_messages = warning;
CREATE EXTENSION isograph VERSION '0.3.0';
DROP ROLE IF EXISTS regress_iso_up;
CREATE ROLE regress_iso_up;
SET ROLE regress_iso_up;
SELECT iso_load_jepsen('role''s', '{:type :ok, :value [[:append 1 1] [:r 1 [1]]]}') AS role_history \gset
RESET ROLE;
INSERT INTO iso_history (name, workload, owner) VALUES ('orphan', 'list-append', 'regress_iso_gone');
ALTER EXTENSION isograph UPDATE;
SELECT extversion FROM pg_extension WHERE extname = 'isograph';
SELECT string_agg(line, E'\n' ORDER BY line) AS upgraded3 FROM (:catalog) c \gset
SELECT name, owner, pg_typeof(owner) FROM iso_history ORDER BY name;
SET ROLE regress_iso_up;
SELECT name FROM iso_history;
SELECT count(*) AS events FROM iso_event;
SELECT count(*) AS levels_that_hold FROM iso_levels(:role_history) WHERE holds;
SELECT iso_delete_history(history_id) FROM iso_history;
RESET ROLE;
SELECT iso_delete_history(history_id) FROM iso_history WHERE owner = 0;
SELECT count(*) AS histories_left FROM iso_history;
\c :regress_db
DROP DATABASE isograph_upgraded3;
DROP ROLE regress_iso_up;

-- A fresh install of the latest version.
\c isograph_fresh
SET client_min_messages = warning;
CREATE EXTENSION isograph;
SELECT extversion FROM pg_extension WHERE extname = 'isograph';
SELECT string_agg(line, E'\n' ORDER BY line) AS fresh FROM (:catalog) c \gset

\c :regress_db
SET client_min_messages = warning;
CREATE TEMP TABLE facts AS
SELECT 'v010' AS side, line FROM unnest(string_to_array(:'v010', E'\n')) line
UNION ALL
SELECT 'upgraded', line FROM unnest(string_to_array(:'upgraded', E'\n')) line
UNION ALL
SELECT 'fresh', line FROM unnest(string_to_array(:'fresh', E'\n')) line
UNION ALL
SELECT 'upgraded3', line FROM unnest(string_to_array(:'upgraded3', E'\n')) line;

-- facts per kind: the upgraded and the fresh install have as many
SELECT split_part(line, ' ', 1) AS kind,
       count(*) FILTER (WHERE side = 'v010') AS v010,
       count(*) FILTER (WHERE side = 'upgraded') AS upgraded,
       count(*) FILTER (WHERE side = 'upgraded3') AS upgraded3,
       count(*) FILTER (WHERE side = 'fresh') AS fresh
  FROM facts GROUP BY 1 ORDER BY 1;
-- upgraded vs fresh, both ways (none expected)
(SELECT 'only upgraded' AS side, line FROM facts WHERE side = 'upgraded'
 EXCEPT ALL SELECT 'only upgraded', line FROM facts WHERE side = 'fresh')
UNION ALL
(SELECT 'only fresh', line FROM facts WHERE side = 'fresh'
 EXCEPT ALL SELECT 'only fresh', line FROM facts WHERE side = 'upgraded')
ORDER BY 2, 1;
-- upgraded from 0.3.0 vs fresh, both ways (none expected)
(SELECT 'only upgraded3' AS side, line FROM facts WHERE side = 'upgraded3'
 EXCEPT ALL SELECT 'only upgraded3', line FROM facts WHERE side = 'fresh')
UNION ALL
(SELECT 'only fresh', line FROM facts WHERE side = 'fresh'
 EXCEPT ALL SELECT 'only fresh', line FROM facts WHERE side = 'upgraded3')
ORDER BY 2, 1;
-- what 0.2.0 added or changed: the upgrade script, fact by fact (function
-- definitions, as md5s, and the extension's version line left out)
SELECT line FROM facts WHERE side = 'fresh'
   AND line NOT LIKE 'definition %' AND line NOT LIKE 'extension %'
EXCEPT
SELECT line FROM facts WHERE side = 'v010'
ORDER BY 1;
-- ... and what it removed or changed from 0.1.0: the key index on iso_event;
-- 0.3.0 made the graph and check functions VOLATILE PARALLEL UNSAFE
SELECT line FROM facts WHERE side = 'v010' AND line NOT LIKE 'extension %'
EXCEPT
SELECT line FROM facts WHERE side = 'fresh'
ORDER BY 1;

DROP DATABASE isograph_upgraded;
DROP DATABASE isograph_fresh;
