-- ALTER EXTENSION isograph UPDATE from 0.4.0 packs every history's events
-- (one row per micro-operation of iso_event_data until then) into
-- iso_event_chunk: the same events, the same verdicts, and each role still
-- sees only its own.  The events are written again, so the histories'
-- images are outdated; the next check stores new ones.
SET client_min_messages = warning;
SELECT current_database() AS regress_db \gset
DROP DATABASE IF EXISTS isograph_upgraded4;
CREATE DATABASE isograph_upgraded4;
\c isograph_upgraded4
SET client_min_messages = warning;
CREATE EXTENSION isograph VERSION '0.4.0';
DROP ROLE IF EXISTS regress_iso_up4;
CREATE ROLE regress_iso_up4;

-- a role's EDN history (a write skew), with the image the load stores
SET ROLE regress_iso_up4;
SELECT iso_load_jepsen('skew', '{:type :ok, :process 0, :time 10, :value [[:r 1 nil] [:r 2 nil] [:w 1 1]]}
{:type :ok, :process 1, :time 20, :value [[:r 1 nil] [:r 2 nil] [:w 2 1]]}', 'rw-register') AS skew \gset
RESET ROLE;
-- a superuser's history of 18000 events written in no particular order,
-- with a G1c among them (T1 and T2 read each other's appends)
INSERT INTO iso_history (name, workload) VALUES ('written', 'list-append') RETURNING history_id AS written \gset
INSERT INTO iso_event (history_id, txn_id, process, status, invoke_time, complete_time, pos, op, key, value, read_list)
SELECT :written, t, t % 5, 'ok', t * 10, t * 10 + 5, p,
       CASE p WHEN 0 THEN 'append' ELSE 'r' END,
       CASE WHEN t <= 2 AND p = 1 THEN (3 - t)::text ELSE t::text END,
       CASE p WHEN 0 THEN '1' END,
       CASE p WHEN 1 THEN '{1}'::text[] END
  FROM generate_series(1, 9000) t, generate_series(0, 1) p
 ORDER BY (t * 7919 + p * 104729) % 18000;

CREATE TABLE before_update AS
SELECT h.name,
       (SELECT md5(string_agg(concat_ws(' ', txn_id, process, status, invoke_time, complete_time, pos, op,
                                        key, value, read_value, read_list::text), ',' ORDER BY txn_id, pos))
          FROM iso_event e WHERE e.history_id = h.history_id) AS events,
       (SELECT string_agg(level || '=' || holds || '/' || violations, ' ' ORDER BY level)
          FROM iso_levels(h.history_id)) AS verdicts,
       h.events_rev,
       (SELECT count(*) FROM iso_history_image i WHERE i.history_id = h.history_id) AS image_rows
  FROM iso_history h;
SELECT name, verdicts, events_rev, image_rows > 0 AS has_image FROM before_update ORDER BY name;

ALTER EXTENSION isograph UPDATE;
SELECT extversion FROM pg_extension WHERE extname = 'isograph';
SELECT to_regclass('iso_event_data') AS old_table,
       (SELECT extconfig::regclass[] FROM pg_extension WHERE extname = 'isograph') AS dumped;

-- the same events and verdicts, in chunks
SELECT b.name,
       (SELECT md5(string_agg(concat_ws(' ', txn_id, process, status, invoke_time, complete_time, pos, op,
                                        key, value, read_value, read_list::text), ',' ORDER BY txn_id, pos))
          FROM iso_event e WHERE e.history_id = h.history_id) = b.events AS same_events,
       (SELECT count(*) FROM iso_event_chunk c WHERE c.history_id = h.history_id) AS chunks,
       h.events_rev > b.events_rev AS outdated,
       (SELECT count(*) FROM iso_history_image i WHERE i.history_id = h.history_id) AS image_rows
  FROM before_update b JOIN iso_history h USING (name) ORDER BY b.name;
SELECT b.name,
       (SELECT string_agg(level || '=' || holds || '/' || violations, ' ' ORDER BY level)
          FROM iso_levels(h.history_id)) = b.verdicts AS same_verdicts
  FROM before_update b JOIN iso_history h USING (name) ORDER BY b.name;
SELECT name, (SELECT count(*) FROM iso_history_image i WHERE i.history_id = h.history_id) > 0 AS new_image
  FROM iso_history h ORDER BY name;
SELECT anomaly, cycle, keys FROM iso_check('ser', :written);

-- the role sees its history's events, and nothing of the other
SET ROLE regress_iso_up4;
SELECT name FROM iso_history;
SELECT count(*) AS events, count(DISTINCT history_id) AS histories FROM iso_event;
SELECT count(*) AS chunks FROM iso_event_chunk;
SELECT iso_delete_history(:skew);
RESET ROLE;

\c :regress_db
DROP DATABASE isograph_upgraded4;
DROP ROLE regress_iso_up4;
