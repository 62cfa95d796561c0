-- History images (iso_history_image, src/image_store.c): a check that reads
-- a history's stored image gives exactly what reading its events gives;
-- every change to the events (INSERT, UPDATE, DELETE, COPY, TRUNCATE) drops
-- the images it outdates; a stale or damaged image is never used; and
-- images follow the row-level security of their histories.
SET client_min_messages = warning;
\set VERBOSITY default
-- images as iso_save_image writes them: until section f, a check
-- never stores one itself (isograph.save_image_on_check)
SET isograph.save_image_on_check = off;
-- history ids appear in WARNINGs: make them independent of earlier tests
-- (the sequence is put back at the end)
SELECT last_value AS seq_last, is_called AS seq_called FROM iso_history_history_id_seq \gset
ALTER TABLE iso_history ALTER COLUMN history_id RESTART WITH 2000;

-- Scans of iso_event by this transaction so far (only reading the events
-- scans it: a check that uses an image does not).
CREATE FUNCTION pg_temp.event_scans() RETURNS bigint LANGUAGE sql AS $$
  SELECT seq_scan + coalesce(idx_scan, 0) FROM pg_stat_xact_user_tables
   WHERE relid = 'iso_event_chunk'::regclass $$;

-- Whether history h is serializable, and whether the check read its events
-- (called alone: its own transaction, as a user's check).
CREATE FUNCTION pg_temp.ser_check(h bigint, OUT holds boolean, OUT events_read boolean)
LANGUAGE plpgsql AS $$
DECLARE
  before bigint := pg_temp.event_scans();
BEGIN
  SELECT l.holds INTO holds FROM iso_levels(h) l WHERE l.level = 'ser';
  events_read := pg_temp.event_scans() > before;
END $$;

-- Everything the checks say about history h, one row per result row as
-- text, numbered in output order.
CREATE FUNCTION pg_temp.results(h bigint)
RETURNS TABLE (what text, ord bigint, result text) LANGUAGE sql AS $$
  SELECT 'iso_check ' || l.level, c.ord, to_jsonb(c)::text
    FROM iso_levels(h) l,
         LATERAL iso_check(l.level, h, 100) WITH ORDINALITY
           c(history_id, history, level, anomaly, cycle, edge_types, keys, explanation, txns, ord)
  UNION ALL
  SELECT 'iso_levels', l.ordinality, (to_jsonb(l) - 'search_seconds')::text FROM iso_levels(h) WITH ORDINALITY l
  UNION ALL
  SELECT 'iso_graph_stats', 1, to_jsonb(s)::text FROM iso_graph_stats(h) s
  UNION ALL
  SELECT 'iso_anomalies', a.ordinality, to_jsonb(a)::text FROM iso_anomalies(h) WITH ORDINALITY a
  UNION ALL
  SELECT 'iso_build_graph', e.ordinality, to_jsonb(e)::text FROM iso_build_graph(h) WITH ORDINALITY e $$;

-- The ser verdict of h, its events_rev and how many image rows it has.
CREATE FUNCTION pg_temp.state(h bigint)
RETURNS TABLE (events_rev bigint, image_rows bigint, ser text) LANGUAGE sql AS $$
  SELECT (SELECT events_rev FROM iso_history WHERE history_id = h),
         (SELECT count(*) FROM iso_history_image WHERE history_id = h),
         coalesce((SELECT string_agg(anomaly || ' ' || cycle::text, '; ' ORDER BY anomaly, cycle::text)
                     FROM iso_check('ser', h)), 'holds') $$;

------------------------------------------------------------------------------
-- a. Every test history, read from its image and from its events.
------------------------------------------------------------------------------
\set edn `cat test/data/rules/jepsen-multiline.edn`
SELECT iso_load_jepsen('rules/jepsen-multiline.edn', :'edn') AS h \gset
\set edn `cat test/data/rules/jepsen-nemesis.edn`
SELECT iso_load_jepsen('rules/jepsen-nemesis.edn', :'edn') AS h \gset
\set edn `cat test/data/rules/jepsen-never-completed.edn`
SELECT iso_load_jepsen('rules/jepsen-never-completed.edn', :'edn') AS h \gset
\set edn `cat test/data/rules/jepsen-pairing.edn`
SELECT iso_load_jepsen('rules/jepsen-pairing.edn', :'edn') AS h \gset
\set edn `cat test/data/rules/jepsen-strings.edn`
SELECT iso_load_jepsen('rules/jepsen-strings.edn', :'edn') AS h \gset
\set edn `cat test/data/rules/la-dirty-update.edn`
SELECT iso_load_jepsen('rules/la-dirty-update.edn', :'edn') AS h \gset
\set edn `cat test/data/rules/la-duplicate.edn`
SELECT iso_load_jepsen('rules/la-duplicate.edn', :'edn') AS h \gset
\set edn `cat test/data/rules/la-empty-read.edn`
SELECT iso_load_jepsen('rules/la-empty-read.edn', :'edn') AS h \gset
\set edn `cat test/data/rules/la-g1a.edn`
SELECT iso_load_jepsen('rules/la-g1a.edn', :'edn') AS h \gset
\set edn `cat test/data/rules/la-g1b.edn`
SELECT iso_load_jepsen('rules/la-g1b.edn', :'edn') AS h \gset
\set edn `cat test/data/rules/la-garbage.edn`
SELECT iso_load_jepsen('rules/la-garbage.edn', :'edn') AS h \gset
\set edn `cat test/data/rules/la-incompatible-order.edn`
SELECT iso_load_jepsen('rules/la-incompatible-order.edn', :'edn') AS h \gset
\set edn `cat test/data/rules/la-info-read.edn`
SELECT iso_load_jepsen('rules/la-info-read.edn', :'edn') AS h \gset
\set edn `cat test/data/rules/la-info-unread.edn`
SELECT iso_load_jepsen('rules/la-info-unread.edn', :'edn') AS h \gset
\set edn `cat test/data/rules/la-internal-ok.edn`
SELECT iso_load_jepsen('rules/la-internal-ok.edn', :'edn') AS h \gset
\set edn `cat test/data/rules/la-internal-violated.edn`
SELECT iso_load_jepsen('rules/la-internal-violated.edn', :'edn') AS h \gset
\set edn `cat test/data/rules/la-known-order.edn`
SELECT iso_load_jepsen('rules/la-known-order.edn', :'edn') AS h \gset
\set edn `cat test/data/rules/la-lost-update-observed.edn`
SELECT iso_load_jepsen('rules/la-lost-update-observed.edn', :'edn') AS h \gset
\set edn `cat test/data/rules/la-lost-update.edn`
SELECT iso_load_jepsen('rules/la-lost-update.edn', :'edn') AS h \gset
\set edn `cat test/data/rules/la-unobserved.edn`
SELECT iso_load_jepsen('rules/la-unobserved.edn', :'edn') AS h \gset
\set edn `cat test/data/rules/lvl-empty.edn`
SELECT iso_load_jepsen('rules/lvl-empty.edn', :'edn', 'list-append') AS h \gset
\set edn `cat test/data/rules/lvl-g-single.edn`
SELECT iso_load_jepsen('rules/lvl-g-single.edn', :'edn') AS h \gset
\set edn `cat test/data/rules/lvl-g0.edn`
SELECT iso_load_jepsen('rules/lvl-g0.edn', :'edn') AS h \gset
\set edn `cat test/data/rules/lvl-g1c.edn`
SELECT iso_load_jepsen('rules/lvl-g1c.edn', :'edn') AS h \gset
\set edn `cat test/data/rules/lvl-info-cycle.edn`
SELECT iso_load_jepsen('rules/lvl-info-cycle.edn', :'edn') AS h \gset
\set edn `cat test/data/rules/lvl-long-fork.edn`
SELECT iso_load_jepsen('rules/lvl-long-fork.edn', :'edn') AS h \gset
\set edn `cat test/data/rules/lvl-realtime.edn`
SELECT iso_load_jepsen('rules/lvl-realtime.edn', :'edn') AS h \gset
\set edn `cat test/data/rules/lvl-rt-reduction.edn`
SELECT iso_load_jepsen('rules/lvl-rt-reduction.edn', :'edn') AS h \gset
\set edn `cat test/data/rules/lvl-session.edn`
SELECT iso_load_jepsen('rules/lvl-session.edn', :'edn') AS h \gset
\set edn `cat test/data/rules/lvl-single.edn`
SELECT iso_load_jepsen('rules/lvl-single.edn', :'edn') AS h \gset
\set edn `cat test/data/rules/lvl-write-skew.edn`
SELECT iso_load_jepsen('rules/lvl-write-skew.edn', :'edn') AS h \gset
\set edn `cat test/data/rules/reg-cyclic-versions.edn`
SELECT iso_load_jepsen('rules/reg-cyclic-versions.edn', :'edn') AS h \gset
\set wal `cat test/data/rules/reg-cyclic-versions.wal.jsonl`
SELECT iso_load_versions(:h, :'wal') > 0 AS versions_loaded \gset
\set edn `cat test/data/rules/reg-g1a.edn`
SELECT iso_load_jepsen('rules/reg-g1a.edn', :'edn') AS h \gset
\set edn `cat test/data/rules/reg-g1b.edn`
SELECT iso_load_jepsen('rules/reg-g1b.edn', :'edn') AS h \gset
\set edn `cat test/data/rules/reg-garbage.edn`
SELECT iso_load_jepsen('rules/reg-garbage.edn', :'edn') AS h \gset
\set edn `cat test/data/rules/reg-internal.edn`
SELECT iso_load_jepsen('rules/reg-internal.edn', :'edn') AS h \gset
\set edn `cat test/data/rules/reg-no-order-ambiguous.edn`
SELECT iso_load_jepsen('rules/reg-no-order-ambiguous.edn', :'edn') AS h \gset
\set edn `cat test/data/rules/reg-no-order.edn`
SELECT iso_load_jepsen('rules/reg-no-order.edn', :'edn') AS h \gset
\set edn `cat test/data/rules/reg-wal-order.edn`
SELECT iso_load_jepsen('rules/reg-wal-order.edn', :'edn') AS h \gset
\set wal `cat test/data/rules/reg-wal-order.wal.jsonl`
SELECT iso_load_versions(:h, :'wal') > 0 AS versions_loaded \gset
\set edn `cat test/data/rules/reg-wal-skip.edn`
SELECT iso_load_jepsen('rules/reg-wal-skip.edn', :'edn') AS h \gset
\set wal `cat test/data/rules/reg-wal-skip.wal.jsonl`
SELECT iso_load_versions(:h, :'wal') > 0 AS versions_loaded \gset
\set edn `cat test/data/rules/reg-wfr.edn`
SELECT iso_load_jepsen('rules/reg-wfr.edn', :'edn') AS h \gset
\set edn `cat test/data/register/dirty-read.edn`
SELECT iso_load_jepsen('register/dirty-read.edn', :'edn') AS h \gset
\set wal `cat test/data/register/dirty-read.wal.jsonl`
SELECT iso_load_versions(:h, :'wal') > 0 AS versions_loaded \gset
\set edn `cat test/data/register/g-single.edn`
SELECT iso_load_jepsen('register/g-single.edn', :'edn') AS h \gset
\set wal `cat test/data/register/g-single.wal.jsonl`
SELECT iso_load_versions(:h, :'wal') > 0 AS versions_loaded \gset
\set edn `cat test/data/register/g0.edn`
SELECT iso_load_jepsen('register/g0.edn', :'edn') AS h \gset
\set wal `cat test/data/register/g0.wal.jsonl`
SELECT iso_load_versions(:h, :'wal') > 0 AS versions_loaded \gset
\set edn `cat test/data/register/g1a.edn`
SELECT iso_load_jepsen('register/g1a.edn', :'edn') AS h \gset
\set wal `cat test/data/register/g1a.wal.jsonl`
SELECT iso_load_versions(:h, :'wal') > 0 AS versions_loaded \gset
\set edn `cat test/data/register/g1b-1.edn`
SELECT iso_load_jepsen('register/g1b-1.edn', :'edn') AS h \gset
\set wal `cat test/data/register/g1b-1.wal.jsonl`
SELECT iso_load_versions(:h, :'wal') > 0 AS versions_loaded \gset
\set edn `cat test/data/register/g1b-2.edn`
SELECT iso_load_jepsen('register/g1b-2.edn', :'edn') AS h \gset
\set wal `cat test/data/register/g1b-2.wal.jsonl`
SELECT iso_load_versions(:h, :'wal') > 0 AS versions_loaded \gset
\set edn `cat test/data/register/g1c.edn`
SELECT iso_load_jepsen('register/g1c.edn', :'edn') AS h \gset
\set wal `cat test/data/register/g1c.wal.jsonl`
SELECT iso_load_versions(:h, :'wal') > 0 AS versions_loaded \gset
\set edn `cat test/data/register/long-fork.edn`
SELECT iso_load_jepsen('register/long-fork.edn', :'edn') AS h \gset
\set wal `cat test/data/register/long-fork.wal.jsonl`
SELECT iso_load_versions(:h, :'wal') > 0 AS versions_loaded \gset
\set edn `cat test/data/register/lost-update.edn`
SELECT iso_load_jepsen('register/lost-update.edn', :'edn') AS h \gset
\set wal `cat test/data/register/lost-update.wal.jsonl`
SELECT iso_load_versions(:h, :'wal') > 0 AS versions_loaded \gset
\set edn `cat test/data/register/non-repeatable-read.edn`
SELECT iso_load_jepsen('register/non-repeatable-read.edn', :'edn') AS h \gset
\set wal `cat test/data/register/non-repeatable-read.wal.jsonl`
SELECT iso_load_versions(:h, :'wal') > 0 AS versions_loaded \gset
\set edn `cat test/data/register/write-skew.edn`
SELECT iso_load_jepsen('register/write-skew.edn', :'edn') AS h \gset
\set wal `cat test/data/register/write-skew.wal.jsonl`
SELECT iso_load_versions(:h, :'wal') > 0 AS versions_loaded \gset

-- jepsen-never-completed.edn delivers its transactions out of txn_id order
-- (an invocation that never completes becomes an info transaction when the
-- file ends, with the invocation's :index as id), so its load made the
-- image from the rows read back in txn_id order.
\set edn `cat test/data/rules/jepsen-never-completed.edn`
SELECT array_agg(txn_id ORDER BY n) AS arrival_order,
       array_agg(status ORDER BY n) AS statuses
  FROM iso_parse_jepsen(:'edn') WITH ORDINALITY
       p(txn_id, process, status, invoke_time, complete_time, pos, op, key, value,
         read_value, read_list, n)
 WHERE pos = 0;

-- 52 histories (24 of them rw-register, 14 with a version order from a
-- WAL); every load stored an image, with its header, and no event has
-- changed since.
SELECT count(*) AS histories,
       count(*) FILTER (WHERE NOT EXISTS (SELECT 1 FROM iso_history_image i
                                           WHERE i.history_id = h.history_id)) AS without_image,
       count(*) FILTER (WHERE workload = 'rw-register') AS register,
       count(*) FILTER (WHERE EXISTS (SELECT 1 FROM iso_version v
                                       WHERE v.history_id = h.history_id)) AS with_versions,
       count(*) FILTER (WHERE events_rev <> 0) AS changed_since_load
  FROM iso_history h;
SELECT count(*) AS images_without_header
  FROM iso_history h
 WHERE NOT EXISTS (SELECT 1 FROM iso_history_image i
                    WHERE i.history_id = h.history_id AND i.section = 0);

CREATE TEMP TABLE results (use_image boolean, history text, what text, ord bigint, result text);
SHOW isograph.use_image;
BEGIN;
SELECT pg_temp.event_scans() AS scans \gset
INSERT INTO results
SELECT true, h.name, r.* FROM iso_history h, pg_temp.results(h.history_id) r;
-- with images, the checks did not read iso_event at all
SELECT pg_temp.event_scans() - :scans AS event_scans;
COMMIT;
SET isograph.use_image = off;
BEGIN;
SELECT pg_temp.event_scans() AS scans \gset
INSERT INTO results
SELECT false, h.name, r.* FROM iso_history h, pg_temp.results(h.history_id) r;
SELECT pg_temp.event_scans() - :scans > 0 AS events_read;
COMMIT;
RESET isograph.use_image;

-- what was compared: rows per kind of result, with and without images
SELECT split_part(what, ' ', 1) AS result,
       count(*) FILTER (WHERE use_image) AS with_image,
       count(*) FILTER (WHERE NOT use_image) AS from_events,
       count(DISTINCT history) AS histories
  FROM results GROUP BY 1 ORDER BY 1;
-- the rows that differ (none expected)
SELECT count(*) AS differences FROM (
  (SELECT history, what, ord, result FROM results WHERE use_image
   EXCEPT ALL SELECT history, what, ord, result FROM results WHERE NOT use_image)
  UNION ALL
  (SELECT history, what, ord, result FROM results WHERE NOT use_image
   EXCEPT ALL SELECT history, what, ord, result FROM results WHERE use_image)) d;
(SELECT 'image' AS side, history, what, ord, result FROM results WHERE use_image
 EXCEPT ALL SELECT 'image', history, what, ord, result FROM results WHERE NOT use_image)
UNION ALL
(SELECT 'events', history, what, ord, result FROM results WHERE NOT use_image
 EXCEPT ALL SELECT 'events', history, what, ord, result FROM results WHERE use_image)
ORDER BY history, what, ord, side LIMIT 10;
-- ... among them jepsen-never-completed.edn
SELECT what, count(*) FILTER (WHERE use_image) AS with_image,
       count(*) FILTER (WHERE NOT use_image) AS from_events
  FROM results WHERE history = 'rules/jepsen-never-completed.edn'
 GROUP BY what ORDER BY what;
-- the histories with violations, so the comparison covered real witnesses
SELECT count(DISTINCT history) AS histories_with_violations,
       count(*) AS violations
  FROM results WHERE use_image AND what LIKE 'iso_check %';
SELECT count(*) AS deleted FROM (SELECT iso_delete_history(history_id) FROM iso_history) d;

------------------------------------------------------------------------------
-- b. Every change to the events drops the images of the histories it
--    touches, and the next check sees the change.
------------------------------------------------------------------------------
-- T0 appends 1 to x and to y; T1 reads x = [1] and y = [1]: T0 -wr-> T1,
-- serializable.  "other" is the same history under another name: changes
-- to "inv" must leave its image alone.
-- (COPY's inline rows below name "other" by its id, 2101)
ALTER TABLE iso_history ALTER COLUMN history_id RESTART WITH 2100;
\set clean '{:type :ok, :value [[:append :x 1] [:append :y 1]]}\n{:type :ok, :value [[:r :x [1]] [:r :y [1]]]}'
SELECT iso_load_jepsen('inv', E:'clean') AS h \gset
SELECT iso_load_jepsen('other', E:'clean') AS other \gset
SELECT :h AS inv, :other AS other;
SELECT txn_id, status, pos, op, key, value, read_list FROM iso_event
 WHERE history_id = :h ORDER BY txn_id, pos;
SELECT * FROM pg_temp.state(:h);
SELECT * FROM pg_temp.state(:other);

-- INSERT: T2 appends 2 to x and reads y = [1 3]; T3 appends 3 to y and reads
-- x = [1 2].  Each read the other's append: T2 -wr-> T3 (x) and
-- T3 -wr-> T2 (y), a G1c cycle.  The image is gone, events_rev went up,
-- and the check sees the cycle.
INSERT INTO iso_event (history_id, txn_id, status, pos, op, key, value, read_list) VALUES
  (:h, 2, 'ok', 0, 'append', ':x', '2', NULL),
  (:h, 2, 'ok', 1, 'r', ':y', NULL, '{1,3}'),
  (:h, 3, 'ok', 0, 'append', ':y', '3', NULL),
  (:h, 3, 'ok', 1, 'r', ':x', NULL, '{1,2}');
SELECT * FROM pg_temp.state(:h);
SELECT anomaly, cycle, edge_types, keys FROM iso_check('ser', :h);
-- the other history kept its image and its revision
SELECT * FROM pg_temp.state(:other);

-- An image of the new events, which the check then reads.
SELECT iso_save_image(:h) > 0 AS saved;
BEGIN;
SELECT pg_temp.event_scans() AS scans \gset
SELECT * FROM pg_temp.state(:h);
SELECT pg_temp.event_scans() - :scans AS event_scans;
COMMIT;

-- DELETE the rows of T2 and T3: serializable again.
DELETE FROM iso_event WHERE history_id = :h AND txn_id IN (2, 3);
SELECT * FROM pg_temp.state(:h);
SELECT iso_save_image(:h) > 0 AS saved;
SELECT * FROM pg_temp.state(:h);

-- UPDATE T1's read of y to [] (it read y before T0's append): T0 -wr-> T1
-- on x and T1 -rw-> T0 on y, a G-single cycle.
UPDATE iso_event SET read_list = '{}' WHERE history_id = :h AND txn_id = 1 AND key = ':y';
SELECT * FROM pg_temp.state(:h);
SELECT anomaly, cycle, edge_types, keys FROM iso_check('ser', :h);
-- an UPDATE that changes no row touches no history
SELECT iso_save_image(:h) > 0 AS saved;
UPDATE iso_event SET pos = pos WHERE history_id = :h AND txn_id = 99;
SELECT * FROM pg_temp.state(:h);
SELECT * FROM pg_temp.state(:other);

-- COPY into the other history: the same T2 and T3 as above, a G1c cycle.
-- Their positions are not 0, 1 (T2: 0 and 7, T3: 3 and 4), which a history
-- then keeps per op, in the image too (section c).
COPY iso_event (history_id, txn_id, status, pos, op, key, value, read_list) FROM STDIN;
2101	2	ok	0	append	:x	2	\N
2101	2	ok	7	r	:y	\N	{1,3}
2101	3	ok	3	append	:y	3	\N
2101	3	ok	4	r	:x	\N	{1,2}
\.
SELECT * FROM pg_temp.state(:other);
SELECT anomaly, cycle, edge_types, keys FROM iso_check('ser', :other);
-- "inv" kept its image
SELECT * FROM pg_temp.state(:h);

------------------------------------------------------------------------------
-- c. iso_save_image after COPY: an image again, read by the checks, with the
--    results of reading the events.
------------------------------------------------------------------------------
SELECT iso_save_image(:other) AS bytes \gset
-- the size returned is that of the rows stored (empty sections have none)
SELECT :bytes > 0 AS saved,
       :bytes = (SELECT sum(octet_length(data)) FROM iso_history_image
                  WHERE history_id = :other) AS size_is_the_rows;
SELECT count(*) AS image_rows, count(DISTINCT section) AS sections,
       min(section) AS first_section, max(section) AS last_section
  FROM iso_history_image WHERE history_id = :other;
-- the last section (12) holds the positions: 8 ops of 4 bytes
SELECT octet_length(data) AS positions_bytes FROM iso_history_image
 WHERE history_id = :other AND section = 12;
-- the edges name the events by their positions, read from the image
SELECT from_txn, from_event, to_txn, to_event, type, key
  FROM iso_build_graph(:other) ORDER BY from_txn, to_txn, type;
TRUNCATE results;
BEGIN;
SELECT pg_temp.event_scans() AS scans \gset
INSERT INTO results SELECT true, 'other', r.* FROM pg_temp.results(:other) r;
SELECT pg_temp.event_scans() - :scans AS event_scans;
COMMIT;
SET isograph.use_image = off;
INSERT INTO results SELECT false, 'other', r.* FROM pg_temp.results(:other) r;
RESET isograph.use_image;
SELECT count(*) FILTER (WHERE use_image) AS rows_with_image,
       count(*) FILTER (WHERE NOT use_image) AS rows_from_events,
       count(*) FILTER (WHERE use_image AND what LIKE 'iso_check %') AS violations
  FROM results;
SELECT count(*) AS differences FROM (
  (SELECT what, ord, result FROM results WHERE use_image
   EXCEPT ALL SELECT what, ord, result FROM results WHERE NOT use_image)
  UNION ALL
  (SELECT what, ord, result FROM results WHERE NOT use_image
   EXCEPT ALL SELECT what, ord, result FROM results WHERE use_image)) d;

------------------------------------------------------------------------------
-- d. A stale image is not used.  With the triggers off (replication role
--    "replica", superuser only) T2 and T3 of "other" are deleted behind
--    the image's back: the image still claims the current events_rev and
--    is believed, which shows that checks read it.  Once events_rev moves
--    on, the checks read the events again.
------------------------------------------------------------------------------
-- (the chunks of a copy of "other" without T2 and T3 take the place of
-- its own: the view's triggers are off too)
SELECT iso_load_jepsen('other without T2 and T3', E:'clean') AS tmp \gset
SET session_replication_role = replica;
DELETE FROM iso_event_chunk WHERE history_id = :other;
INSERT INTO iso_event_chunk (history_id, chunk, nrows, first_txn, first_pos, last_txn, last_pos, data)
SELECT :other, chunk, nrows, first_txn, first_pos, last_txn, last_pos, data
  FROM iso_event_chunk WHERE history_id = :tmp;
RESET session_replication_role;
SELECT iso_delete_history(:tmp);
SELECT * FROM pg_temp.state(:other);
SET isograph.use_image = off;
SELECT * FROM pg_temp.state(:other);
RESET isograph.use_image;
UPDATE iso_history SET events_rev = events_rev + 1 WHERE history_id = :other;
-- the image is still there, but outdated: the answer is the events'
SELECT * FROM pg_temp.state(:other);
BEGIN;
SELECT pg_temp.event_scans() AS scans \gset
SELECT count(*) AS violations FROM iso_check('ser', :other);
SELECT pg_temp.event_scans() - :scans > 0 AS events_read;
COMMIT;
SELECT iso_save_image(:other) > 0 AS saved;
SELECT * FROM pg_temp.state(:other);

------------------------------------------------------------------------------
-- e. A damaged image gives a WARNING and the check reads the events.
--    "inv" has an image of its G-single events (T0 -wr-> T1 -rw-> T0).
------------------------------------------------------------------------------
-- the ops section starts with ops[0].key: 0xffffffff names no key
UPDATE iso_history_image SET data = overlay(data placing '\xffffffff'::bytea from 1)
 WHERE history_id = :h AND section = 2;
SELECT anomaly, cycle, edge_types, keys FROM iso_check('ser', :h);
-- a key hash slot (section 7) naming string 0xffffffff
SELECT iso_save_image(:h) > 0 AS saved;
UPDATE iso_history_image SET data = overlay(data placing '\xffffffff'::bytea from 1)
 WHERE history_id = :h AND section = 7;
SELECT anomaly, cycle, edge_types, keys FROM iso_check('ser', :h);
-- a section with a byte missing
SELECT iso_save_image(:h) > 0 AS saved;
UPDATE iso_history_image SET data = substring(data from 2)
 WHERE history_id = :h AND section = 3;
SELECT anomaly, cycle, edge_types, keys FROM iso_check('ser', :h);
-- a header cut short
SELECT iso_save_image(:h) > 0 AS saved;
UPDATE iso_history_image SET data = substring(data from 1 for 40)
 WHERE history_id = :h AND section = 0;
SELECT anomaly, cycle, edge_types, keys FROM iso_check('ser', :h);
-- no header (the superuser deletes image rows)
DELETE FROM iso_history_image WHERE history_id = :h AND section = 0;
SELECT anomaly, cycle, edge_types, keys FROM iso_check('ser', :h);
-- a part missing
SELECT iso_save_image(:h) > 0 AS saved;
UPDATE iso_history_image SET part = 1 WHERE history_id = :h AND section = 4;
SELECT anomaly, cycle, edge_types, keys FROM iso_check('ser', :h);
-- an image of another workload (the history was relabelled)
SELECT iso_save_image(:h) > 0 AS saved;
UPDATE iso_history SET workload = 'rw-register' WHERE history_id = :h;
SELECT count(*) FROM iso_check('ser', :h);
UPDATE iso_history SET workload = 'list-append' WHERE history_id = :h;
-- rewritten: no WARNING
SELECT iso_save_image(:h) > 0 AS saved;
SELECT * FROM pg_temp.state(:h);

------------------------------------------------------------------------------
-- f. Privileges: nobody inserts or updates images; a role's loads store its
--    images, its checks read them, and it sees no other role's images.
------------------------------------------------------------------------------
CREATE ROLE regress_iso_image NOLOGIN;
SET ROLE regress_iso_image;
SELECT iso_load_jepsen('mine', E:'clean') AS mine \gset
SELECT count(*) AS own_image_rows FROM iso_history_image WHERE history_id = :mine;
-- not even for its own history
INSERT INTO iso_history_image VALUES (:mine, 12, 0, '\x00');
INSERT INTO iso_history_image SELECT history_id, section, 1, data FROM iso_history_image;
UPDATE iso_history_image SET data = '\x00' WHERE history_id = :mine;
BEGIN;
SELECT pg_temp.event_scans() AS scans \gset
SELECT * FROM pg_temp.state(:mine);
SELECT pg_temp.event_scans() - :scans AS event_scans;
COMMIT;
-- the superuser's histories and images are invisible, and stay
SELECT count(*) AS images_visible, count(DISTINCT history_id) AS histories
  FROM iso_history_image;
WITH d AS (DELETE FROM iso_history_image WHERE history_id IN (:h, :other) RETURNING 1)
SELECT count(*) AS deleted FROM d;
SELECT iso_save_image(:h);
-- nor its own image: isograph drops images (a DELETE privilege would also
-- let the role LOCK the table)
DELETE FROM iso_history_image WHERE history_id = :mine;
SELECT * FROM pg_temp.state(:mine);
SELECT iso_save_image(:mine) > 0 AS saved;
SELECT * FROM pg_temp.state(:mine);
RESET ROLE;
SELECT name, CASE WHEN h.owner::text = current_user THEN '(superuser)' ELSE h.owner::text END AS owner,
       count(i.*) > 0 AS has_image
  FROM iso_history h LEFT JOIN iso_history_image i USING (history_id)
 GROUP BY name, h.owner ORDER BY name;
-- the superuser damages the role's image: the role's check warns and reads
-- the events (so it read the image)
UPDATE iso_history_image SET data = overlay(data placing '\xffffffff'::bytea from 1)
 WHERE history_id = :mine AND section = 2;
SET ROLE regress_iso_image;
SELECT * FROM pg_temp.state(:mine);
SELECT iso_delete_history(:mine);
RESET ROLE;
DROP OWNED BY regress_iso_image;
DROP ROLE regress_iso_image;

------------------------------------------------------------------------------
-- b (end). TRUNCATE iso_event_chunk (its owner only): the images of every history are gone.
-- events_rev stays: TRUNCATE locks no history row (image_store.c).
------------------------------------------------------------------------------
SELECT iso_save_image(:h) > 0 AS saved;
SELECT name, events_rev, (SELECT count(*) FROM iso_history_image i
                           WHERE i.history_id = h.history_id) AS image_rows
  FROM iso_history h ORDER BY name;
TRUNCATE iso_event_chunk;
SELECT name, events_rev, (SELECT count(*) FROM iso_history_image i
                           WHERE i.history_id = h.history_id) AS image_rows
  FROM iso_history h ORDER BY name;
SELECT count(*) AS image_rows FROM iso_history_image;
-- no events left: both histories are serializable now
SELECT * FROM pg_temp.state(:h);
SELECT * FROM pg_temp.state(:other);

-- The trigger function refuses other tables (it reads iso_event's first
-- column as history_id) and statement triggers other than TRUNCATE.
CREATE TABLE pg_temp.not_events (label text);
CREATE TRIGGER misplaced AFTER INSERT ON pg_temp.not_events
  FOR EACH ROW EXECUTE FUNCTION iso_event_changed();
INSERT INTO pg_temp.not_events VALUES ('x');
BEGIN;
CREATE TRIGGER per_statement AFTER INSERT ON iso_event_chunk
  FOR EACH STATEMENT EXECUTE FUNCTION iso_event_changed();
INSERT INTO iso_event_chunk (history_id, chunk, nrows, first_txn, first_pos, last_txn, last_pos, data)
  VALUES (:h, 99, 1, 99, 0, 99, 0, '\x');
ROLLBACK;

------------------------------------------------------------------------------
-- f. After COPY no step is needed: the first check reads the events and
--    stores their image (isograph.save_image_on_check, on by default), the
--    next ones read the image.  Never stale: a change drops the image and
--    the next check reads the events again.  It stores nothing where that
--    would be unsound or would write: a transaction snapshot, a read-only
--    transaction (the history's lock held by another session:
--    test/specs/history_locks.spec).
------------------------------------------------------------------------------
RESET isograph.save_image_on_check;
INSERT INTO iso_history (name, workload) VALUES ('auto', 'list-append') RETURNING history_id AS auto \gset
\copy iso_event (txn_id, process, status, pos, op, key, value, read_list) FROM STDIN WITH (FORMAT csv)
1,0,ok,0,append,x,1,
1,0,ok,1,r,y,,{}
2,1,ok,0,append,y,1,
2,1,ok,1,r,x,,{}
\.
SELECT events_rev, (SELECT count(*) FROM iso_history_image WHERE history_id = :auto) AS image_rows
  FROM iso_history WHERE history_id = :auto;
-- in a REPEATABLE READ or read-only transaction the check stores nothing
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT holds FROM iso_levels(:auto) WHERE level = 'ser';
SELECT count(*) AS image_rows FROM iso_history_image WHERE history_id = :auto;
COMMIT;
BEGIN READ ONLY;
SELECT holds FROM iso_levels(:auto) WHERE level = 'ser';
SELECT count(*) AS image_rows FROM iso_history_image WHERE history_id = :auto;
COMMIT;
-- the first check (write skew: serializability fails) stores the image...
BEGIN;
SELECT pg_temp.event_scans() AS scans \gset
SELECT holds FROM iso_levels(:auto) WHERE level = 'ser';
SELECT pg_temp.event_scans() - :scans > 0 AS events_read,
       (SELECT count(*) FROM iso_history_image WHERE history_id = :auto) > 0 AS image_stored;
COMMIT;
-- ... which the next check reads instead of the events
SELECT * FROM pg_temp.ser_check(:auto);
-- T4 appends 2 to x and fails, T3 reads x = [1, 2]: an aborted read
-- (G1a) now, which the stored image does not have: the insert drops it
INSERT INTO iso_event (history_id, txn_id, process, status, pos, op, key, value, read_list)
VALUES (:auto, 4, 3, 'fail', 0, 'append', 'x', '2', NULL),
       (:auto, 3, 2, 'ok', 0, 'r', 'x', NULL, '{1,2}');
SELECT count(*) AS image_rows FROM iso_history_image WHERE history_id = :auto;
SELECT anomaly, cycle FROM iso_check('ser', :auto) ORDER BY anomaly;
SELECT (SELECT count(*) FROM iso_history_image WHERE history_id = :auto) > 0 AS image_stored_again;
-- the stored image gives what the events give
SET isograph.use_image = off;
SELECT anomaly, cycle FROM iso_check('ser', :auto) ORDER BY anomaly;
RESET isograph.use_image;
-- an image a check cannot use (here one byte of its ops changed; an image
-- of a build with another layout, such as 28-byte ops before 24, is
-- refused the same way) is replaced by the next check: it reads the
-- events (WARNING) and stores their image, which the check after reads
UPDATE iso_history_image SET data = set_byte(data, 0, get_byte(data, 0) # 1)
 WHERE history_id = :auto AND section = 2 AND part = 0;
SELECT * FROM pg_temp.ser_check(:auto);
SELECT * FROM pg_temp.ser_check(:auto);

SELECT count(*) AS deleted FROM (SELECT iso_delete_history(history_id) FROM iso_history) d;
SELECT setval('iso_history_history_id_seq', :seq_last, :'seq_called'::boolean) = :seq_last AS sequence_restored;
