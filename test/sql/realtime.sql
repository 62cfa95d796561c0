-- Real-time order (docs/semantics.md, "so and rt"): where it comes from
-- (:time, the order of records in the file, COPY columns, none), and dense
-- real-time orders, which are checked through time points that no output
-- shows.  Expected results are worked out by hand in the comments.
SET client_min_messages = warning;
ALTER TABLE iso_history ALTER COLUMN history_id RESTART WITH 9100;

CREATE FUNCTION pg_temp.show(h bigint) RETURNS TABLE (edge text)
LANGUAGE sql AS $$
  SELECT format('T%s -%s-> T%s', from_txn, type, to_txn)
         || CASE WHEN key IS NULL THEN '' ELSE format(' key %s', key) END
    FROM iso_build_graph($1) ORDER BY from_txn, to_txn, type
$$;

-- 1. No :time: the order of the records is the real time (as in Elle).
-- Records 0..5; a transaction's id is its completion's position.
--   T1 [:append 1 1] (records 0-1), T3 [:append 1 2] (records 2-3),
--   T5 reads [1] (records 4-5), invoked after T3 completed.
-- Edges: ww T1->T3 and rw T5->T3 (T3's append is unobserved, so after
-- [1]), wr T1->T5; rt T1->T3, T3->T5 (transitive reduction).
-- ser: acyclic.  strict: T5 -rw-> T3 -rt-> T5, G-single-realtime
-- (Elle: G-single-item-realtime).
\set edn '{:type :invoke, :process 0, :value [[:append 1 1]]}\n{:type :ok, :process 0, :value [[:append 1 1]]}\n{:type :invoke, :process 1, :value [[:append 1 2]]}\n{:type :ok, :process 1, :value [[:append 1 2]]}\n{:type :invoke, :process 2, :value [[:r 1 nil]]}\n{:type :ok, :process 2, :value [[:r 1 [1]]]}\n'
SELECT iso_load_jepsen('rt-record-order', E:'edn') AS h \gset
SELECT metadata FROM iso_history WHERE history_id = :h;
SELECT DISTINCT txn_id, invoke_time, complete_time FROM iso_event WHERE history_id = :h ORDER BY txn_id;
SELECT * FROM pg_temp.show(:h);
SELECT level, holds, violations, note FROM iso_levels(:h) WHERE level IN ('ser', 'strict-serializable');
SELECT anomaly, cycle, edge_types, keys, explanation FROM iso_check('strict-serializable', :h);
-- in memory: the same verdicts and notes as load + check
SELECT count(*) AS differences FROM (
  (SELECT * FROM iso_levels(:h) EXCEPT SELECT * FROM iso_levels_jepsen(E:'edn'))
  UNION ALL
  (SELECT * FROM iso_levels_jepsen(E:'edn') EXCEPT SELECT * FROM iso_levels(:h))) d;
SELECT level, holds, note FROM iso_levels_jepsen(E:'edn') WHERE level = 'strict-serializable';

-- 2. The first transaction record decides for the whole file.
-- (a) It has :time: :time is the clock; T3's invocation has none, so T3
-- gets no rt edges: only T1 -> T5 (T1 completed at 20, T5 invoked at 50).
-- T5 -rw-> T3 has no way back: strict holds.
SELECT iso_load_jepsen('rt-time-partial', $$
{:type :invoke, :process 0, :value [[:append 1 1]], :time 10}
{:type :ok, :process 0, :value [[:append 1 1]], :time 20}
{:type :invoke, :process 1, :value [[:append 1 2]]}
{:type :ok, :process 1, :value [[:append 1 2]], :time 40}
{:type :invoke, :process 2, :value [[:r 1 nil]], :time 50}
{:type :ok, :process 2, :value [[:r 1 [1]]], :time 60}
$$) AS h \gset
SELECT metadata FROM iso_history WHERE history_id = :h;
SELECT * FROM pg_temp.show(:h) WHERE edge LIKE '%-rt->%';
SELECT level, holds, violations, note FROM iso_levels(:h) WHERE level = 'strict-serializable';
-- (b) It has none: record order, and a later :time is ignored (the file's
-- :time 1 on T5's invocation would put it first).  Same verdict as case 1.
SELECT iso_load_jepsen('rt-order-partial', $$
{:type :invoke, :process 0, :value [[:append 1 1]]}
{:type :ok, :process 0, :value [[:append 1 1]]}
{:type :invoke, :process 1, :value [[:append 1 2]]}
{:type :ok, :process 1, :value [[:append 1 2]]}
{:type :invoke, :process 2, :value [[:r 1 nil]], :time 1}
{:type :ok, :process 2, :value [[:r 1 [1]]], :time 2}
$$) AS h \gset
SELECT metadata FROM iso_history WHERE history_id = :h;
SELECT level, holds, violations, note FROM iso_levels(:h) WHERE level = 'strict-serializable';
-- (c) Completions only: no invocation, no real time; strict is
-- strong-session-serializable and says so.
SELECT iso_load_jepsen('rt-none', $$
{:type :ok, :value [[:append 1 1]]}
{:type :ok, :value [[:append 1 2]]}
{:type :ok, :value [[:r 1 [1]]]}
$$) AS h \gset
SELECT metadata FROM iso_history WHERE history_id = :h;
SELECT level, holds, violations, note FROM iso_levels(:h) WHERE level IN ('strong-session-serializable', 'strict-serializable');

-- 3. COPY-loaded histories: invoke_time/complete_time are the clock; NULL
-- is unknown.  The shape of case 1 with times, then without.
INSERT INTO iso_history (name, workload) VALUES ('rt-copy-times', 'list-append') RETURNING history_id AS h \gset
INSERT INTO iso_event (history_id, txn_id, process, status, invoke_time, complete_time, pos, op, key, value, read_list) VALUES
  (:h, 1, 0, 'ok', 100, 200, 0, 'append', '1', '1', NULL),
  (:h, 3, 1, 'ok', 300, 400, 0, 'append', '1', '2', NULL),
  (:h, 5, 2, 'ok', 500, 600, 0, 'r', '1', NULL, '{1}');
SELECT level, holds, violations, note FROM iso_levels(:h) WHERE level IN ('ser', 'strict-serializable');
INSERT INTO iso_history (name, workload) VALUES ('rt-copy-null', 'list-append') RETURNING history_id AS h \gset
INSERT INTO iso_event (history_id, txn_id, process, status, invoke_time, complete_time, pos, op, key, value, read_list) VALUES
  (:h, 1, 0, 'ok', NULL, NULL, 0, 'append', '1', '1', NULL),
  (:h, 3, 1, 'ok', NULL, NULL, 0, 'append', '1', '2', NULL),
  (:h, 5, 2, 'ok', NULL, NULL, 0, 'r', '1', NULL, '{1}');
SELECT level, holds, violations, note FROM iso_levels(:h) WHERE level = 'strict-serializable';

-- 4. A dense real-time order: two waves of 64 transactions, every one of
-- the first completing before any of the second is invoked (records 0-63
-- wave-1 invocations, 64-127 their completions = T64..T127, 128-191
-- wave-2 invocations, 192-255 completions = T192..T255).  The reduction
-- has 64 * 64 = 4096 edges > 16 * 128 + 1024, so rt goes through time
-- points.  Wave-1 T(64+p) reads key p, wave-2 T(192+p) appends 1 to it;
-- T64 reads [1]: wr T192 -> T64 against rt T64 -> T192, a G1c-realtime.
-- The other readers read []: rw T(64+p) -> T(192+p), in line with rt.
-- The two waves as EDN; T64 reads first_read of key 0, the other
-- wave-1 readers [] (sections 4 and 5).
CREATE FUNCTION pg_temp.two_waves(first_read text) RETURNS text LANGUAGE sql AS $$
SELECT string_agg(r, E'\n' ORDER BY n) FROM (
  SELECT p AS n, format('{:type :invoke, :process %s, :value [[:r %s nil]]}', p, p) AS r
    FROM generate_series(0, 63) p
  UNION ALL
  SELECT 64 + p, format('{:type :ok, :process %s, :value [[:r %s %s]]}', p, p,
                        CASE WHEN p = 0 THEN first_read ELSE '[]' END)
    FROM generate_series(0, 63) p
  UNION ALL
  SELECT 128 + p, format('{:type :invoke, :process %s, :value [[:append %s 1]]}', 64 + p, p)
    FROM generate_series(0, 63) p
  UNION ALL
  SELECT 192 + p, format('{:type :ok, :process %s, :value [[:append %s 1]]}', 64 + p, p)
    FROM generate_series(0, 63) p) waves
$$;
SELECT pg_temp.two_waves('[1]') AS edn \gset
SELECT iso_load_jepsen('rt-two-waves', :'edn') AS h \gset
SELECT level, holds, violations, note FROM iso_levels(:h) WHERE level IN ('ser', 'strict-serializable');
-- the witness is over transactions only: the hop through points is one rt edge
SELECT anomaly, cycle, edge_types, keys, explanation FROM iso_check('strict-serializable', :h);
-- listings: no rt rows (they would be 4096, or show points); stats say NULL
SELECT type, count(*) FROM iso_build_graph(:h) GROUP BY type ORDER BY type;
SELECT vertices, ww, wr, rw, so, rt, edges, sccs FROM iso_graph_stats(:h);
SELECT iso_materialize_graph(:h) AS stored;
-- iso_dot draws the reduction among the transactions it shows
SELECT iso_dot(:h, '{64,65,192}');
-- in memory: the same
SELECT count(*) AS differences FROM (
  (SELECT * FROM iso_levels(:h) EXCEPT SELECT * FROM iso_levels_jepsen(:'edn'))
  UNION ALL
  (SELECT * FROM iso_levels_jepsen(:'edn') EXCEPT SELECT * FROM iso_levels(:h))) d;

-- 5. A history that holds is decided without making its rt edges (one
-- pass over the graph and the real-time order; docs/semantics.md): the
-- same two waves with every wave-1 reader reading [] (rw T(64+p) ->
-- T(192+p), in line with rt) hold strict-serializable, dense or not.
SELECT pg_temp.two_waves('[]') AS edn \gset
SELECT iso_load_jepsen('rt-two-waves-hold', :'edn') AS h \gset
SELECT level, holds, violations, note FROM iso_levels(:h) WHERE level IN ('ser', 'strict-serializable');
SELECT count(*) AS witnesses FROM iso_check('strict-serializable', :h);
SELECT level, holds, note FROM iso_levels_jepsen(:'edn') WHERE level = 'strict-serializable';
-- not dense: two appends one after the other, then a read.  Reading
-- [1 2] it holds; reading [1] (stale) it is serializable (the reader
-- before the second append) but not strictly: rw reader -> second
-- appender, rt back.  The pass finds that cycle, the rt edges are made,
-- and the witness shows them.
SELECT string_agg(r, E'\n' ORDER BY n) AS edn FROM (VALUES
  (1, '{:type :invoke, :process 0, :value [[:append 1 1]]}'),
  (2, '{:type :ok, :process 0, :value [[:append 1 1]]}'),
  (3, '{:type :invoke, :process 1, :value [[:append 1 2]]}'),
  (4, '{:type :ok, :process 1, :value [[:append 1 2]]}'),
  (5, '{:type :invoke, :process 2, :value [[:r 1 nil]]}'),
  (6, '{:type :ok, :process 2, :value [[:r 1 [1 2]]]}')) v(n, r) \gset
SELECT level, holds, violations FROM iso_levels_jepsen(:'edn') WHERE level IN ('ser', 'strict-serializable');
SELECT string_agg(r, E'\n' ORDER BY n) AS edn FROM (VALUES
  (1, '{:type :invoke, :process 0, :value [[:append 1 1]]}'),
  (2, '{:type :ok, :process 0, :value [[:append 1 1]]}'),
  (3, '{:type :invoke, :process 1, :value [[:append 1 2]]}'),
  (4, '{:type :ok, :process 1, :value [[:append 1 2]]}'),
  (5, '{:type :invoke, :process 2, :value [[:r 1 nil]]}'),
  (6, '{:type :ok, :process 2, :value [[:r 1 [1]]]}')) v(n, r) \gset
SELECT level, holds, violations FROM iso_levels_jepsen(:'edn') WHERE level IN ('ser', 'strict-serializable');
SELECT iso_load_jepsen('rt-stale-read', :'edn') AS h \gset
SELECT anomaly, cycle, edge_types FROM iso_check('strict-serializable', :h);
-- the same two in memory as an ordinary role: the one pass and, for the
-- stale read, the graph built after it, with the role's own memory
CREATE ROLE regress_iso_rt_user;
SET ROLE regress_iso_rt_user;
SELECT level, holds, violations FROM iso_levels_jepsen(
  E'{:type :invoke, :process 0, :value [[:append 1 1]]}\n{:type :ok, :process 0, :value [[:append 1 1]]}\n' ||
  E'{:type :invoke, :process 1, :value [[:r 1 nil]]}\n{:type :ok, :process 1, :value [[:r 1 [1]]]}')
 WHERE level IN ('ser', 'strict-serializable');
SELECT level, holds, violations FROM iso_levels_jepsen(:'edn') WHERE level IN ('ser', 'strict-serializable');
RESET ROLE;
DROP ROLE regress_iso_rt_user;

SELECT count(*) FROM (SELECT iso_delete_history(history_id) FROM iso_history WHERE name LIKE 'rt-%') d;
