-- Checksums of history images (src/image_store.c): every single-byte
-- change of a stored image is detected, the check falls back to the events
-- (with a WARNING) and gives their verdicts; an image of isograph 0.2.0
-- (format 1, no checksums) is not used either (NOTICE) until
-- iso_save_image rewrites it.  test/hardening/damage.sh flips every byte
-- of larger images and counts the WARNINGs.
SET client_min_messages = warning;
\set VERBOSITY default
-- one image as stored, damaged on purpose: checks must not rewrite it
-- (isograph.save_image_on_check; test/sql/image.sql section f tests that)
SET isograph.save_image_on_check = off;
SELECT last_value AS seq_last, is_called AS seq_called FROM iso_history_history_id_seq \gset
ALTER TABLE iso_history ALTER COLUMN history_id RESTART WITH 3000;

-- Scans of iso_event by this transaction so far: a check that uses the
-- image does not scan it, one that reads the events does.
CREATE FUNCTION pg_temp.event_scans() RETURNS bigint LANGUAGE sql AS $$
  SELECT seq_scan + coalesce(idx_scan, 0) FROM pg_stat_xact_user_tables
   WHERE relid = 'iso_event_chunk'::regclass $$;
-- Every level's verdict and every anomaly of history h, as one text.
CREATE FUNCTION pg_temp.verdicts(h bigint) RETURNS text LANGUAGE sql AS $$
  SELECT string_agg(level || '=' || holds || '/' || violations, ' ' ORDER BY level)
         || ' | ' || coalesce((SELECT string_agg(anomaly || ' ' || cycle::text, '; ' ORDER BY anomaly, cycle::text)
                                 FROM iso_check('strict-serializable', h)), 'none')
    FROM iso_levels(h) $$;

-- A list-append history with processes, times, a failed and an
-- indeterminate transaction, a G-single and a real-time anomaly, so that
-- a changed status, process, time, key, value or list element changes
-- some verdict.
SELECT iso_load_jepsen('checksum', $$
{:type :invoke, :f :txn, :process 0, :time 1, :value [[:append 1 1] [:r 2 nil]]}
{:type :ok, :f :txn, :process 0, :time 2, :value [[:append 1 1] [:r 2 []]]}
{:type :invoke, :f :txn, :process 1, :time 3, :value [[:append 2 1] [:r 1 nil]]}
{:type :ok, :f :txn, :process 1, :time 4, :value [[:append 2 1] [:r 1 [1]]]}
{:type :invoke, :f :txn, :process 2, :time 5, :value [[:r 1 nil] [:r 2 nil]]}
{:type :ok, :f :txn, :process 2, :time 6, :value [[:r 1 [1]] [:r 2 []]]}
{:type :invoke, :f :txn, :process 0, :time 7, :value [[:append 3 1]]}
{:type :fail, :f :txn, :process 0, :time 8, :value [[:append 3 1]]}
{:type :invoke, :f :txn, :process 1, :time 9, :value [[:append 3 2] [:append 1 2]]}
{:type :info, :f :txn, :process 1, :time 10, :value [[:append 3 2] [:append 1 2]]}
{:type :invoke, :f :txn, :process 3, :time 11, :value [[:r 3 nil] [:r 1 nil]]}
{:type :ok, :f :txn, :process 3, :time 12, :value [[:r 3 [2]] [:r 1 [1 2]]]}
$$) AS h \gset

-- the verdicts from the events, and from the intact image (no event scan)
SET isograph.use_image = off;
SELECT pg_temp.verdicts(:h) AS events_verdicts \gset
RESET isograph.use_image;
BEGIN;
SELECT pg_temp.event_scans() AS scans \gset
SELECT pg_temp.verdicts(:h) = :'events_verdicts' AS same_verdicts,
       pg_temp.event_scans() = :scans AS image_used;
COMMIT;
SELECT :'events_verdicts' AS verdicts;

-- 1. One damaged byte per section (the last byte of its first part):
--    WARNING naming the checksum, verdicts of the events.
-- (section 2, the ops: 11 of 12 bytes; section 3, the list elements:
-- key 1's [1] (1), shared by its second [1]; key 3's [2] (1); key 1's
-- [1 2] extends [1] but key 3's region follows it, so it moves to the end
-- with room for 2: 4 elements, 16 bytes)
SELECT section, octet_length(data) AS bytes FROM iso_history_image WHERE history_id = :h ORDER BY section, part;
CREATE TEMP TABLE intact AS SELECT * FROM iso_history_image WHERE history_id = :h;
CREATE FUNCTION pg_temp.damage(h bigint, s int, pos int) RETURNS void LANGUAGE sql AS $$
  UPDATE iso_history_image SET data = set_byte(data, pos, get_byte(data, pos) # 1)
   WHERE history_id = h AND section = s AND part = 0 $$;
CREATE FUNCTION pg_temp.repair(h bigint) RETURNS void LANGUAGE sql AS $$
  UPDATE iso_history_image i SET data = o.data FROM intact o
   WHERE i.history_id = h AND o.history_id = h AND i.section = o.section AND i.part = o.part $$;
SELECT pg_temp.damage(:h, 0, 0);
SELECT pg_temp.verdicts(:h) = :'events_verdicts' AS same_verdicts;
SELECT pg_temp.repair(:h);
SELECT pg_temp.damage(:h, 0, 40);
SELECT pg_temp.verdicts(:h) = :'events_verdicts' AS same_verdicts;
SELECT pg_temp.repair(:h);
SELECT pg_temp.damage(:h, 1, 5);
SELECT pg_temp.verdicts(:h) = :'events_verdicts' AS same_verdicts;
SELECT pg_temp.repair(:h);
SELECT pg_temp.damage(:h, 3, 0);
SELECT pg_temp.verdicts(:h) = :'events_verdicts' AS same_verdicts;
SELECT pg_temp.repair(:h);

-- 2. Every byte of every part (of the two 8 kB hash-slot sections, the
--    first 512 bytes and every 37th after), each with one bit flipped
--    (bit pos % 8): no change goes unnoticed (the check scans the events)
--    and no verdict changes.  test/hardening/damage.sh also counts the
--    WARNINGs; here they are silenced.
CREATE TEMP TABLE damage_result (tried int, unnoticed int, changed int);
SET client_min_messages = error;
DO $$
DECLARE
  h bigint := (SELECT history_id FROM iso_history WHERE name = 'checksum');
  want text;
  p record;
  pos int;
  flip int;
  before bigint;
  got text;
  tried int := 0;
  unnoticed int := 0;
  changed int := 0;
BEGIN
  SET LOCAL isograph.use_image = off;
  want := pg_temp.verdicts(h);
  SET LOCAL isograph.use_image = on;
  FOR p IN SELECT section, part, octet_length(data) AS len FROM intact ORDER BY section, part LOOP
    FOR pos IN 0 .. p.len - 1 LOOP
      CONTINUE WHEN pos >= 512 AND pos % 37 <> 0;
      flip := 1 << (pos % 8);
      UPDATE iso_history_image SET data = set_byte(data, pos, get_byte(data, pos) # flip)
       WHERE history_id = h AND section = p.section AND part = p.part;
      before := pg_temp.event_scans();
      BEGIN
        got := pg_temp.verdicts(h);
      EXCEPTION WHEN OTHERS THEN
        got := 'ERROR: ' || SQLERRM;	-- a damaged image must not break a check either
      END;
      tried := tried + 1;
      IF pg_temp.event_scans() = before THEN unnoticed := unnoticed + 1; END IF;
      IF got IS DISTINCT FROM want THEN changed := changed + 1; END IF;
      UPDATE iso_history_image SET data = set_byte(data, pos, get_byte(data, pos) # flip)
       WHERE history_id = h AND section = p.section AND part = p.part;
    END LOOP;
  END LOOP;
  INSERT INTO damage_result VALUES (tried, unnoticed, changed);
END $$;
SET client_min_messages = warning;
SELECT tried > 1000 AS over_1000_tried, unnoticed, changed FROM damage_result;

-- 3. An image of isograph 0.2.0: a header of format 1 (80 bytes, no
--    checksums).  Not damaged, so a NOTICE, not a WARNING; the events are
--    read; iso_save_image rewrites it and checks use it again.
UPDATE iso_history_image
   SET data = overlay(substring(data from 1 for 80) placing '\x01000000'::bytea from 5)
 WHERE history_id = :h AND section = 0;
SET client_min_messages = notice;
BEGIN;
SELECT pg_temp.event_scans() AS scans \gset
SELECT pg_temp.verdicts(:h) = :'events_verdicts' AS same_verdicts,
       pg_temp.event_scans() > :scans AS events_read;
COMMIT;
SET client_min_messages = warning;
SELECT iso_save_image(:h) > 0 AS saved;
BEGIN;
SELECT pg_temp.event_scans() AS scans \gset
SELECT pg_temp.verdicts(:h) = :'events_verdicts' AS same_verdicts,
       pg_temp.event_scans() = :scans AS image_used;
COMMIT;

SELECT iso_delete_history(:h);
SELECT setval('iso_history_history_id_seq', :seq_last, :'seq_called') IS NOT NULL AS sequence_restored;
