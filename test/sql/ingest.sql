-- Loading Jepsen EDN histories: every example history, with its counts.
SET client_min_messages = warning;

-- One row per transaction status and workload, per history.
CREATE FUNCTION pg_temp.counts(h bigint)
RETURNS TABLE (workload text, status text, txns bigint, events bigint)
LANGUAGE sql AS $$
  SELECT h.workload, e.status, count(DISTINCT e.txn_id), count(*)
    FROM iso_event e JOIN iso_history h USING (history_id)
   WHERE e.history_id = $1
   GROUP BY 1, 2 ORDER BY 1, 2
$$;

-- (The real ArangoDB histories, others' data, are loaded by shared_arangodb.sql.)

-- The hand-made register histories: only completions, no :index, :process or :time.
\set edn `cat test/data/register/dirty-read.edn`
SELECT iso_load_jepsen('dirty-read', :'edn') AS h \gset
SELECT * FROM pg_temp.counts(:h);
SELECT txn_id, process, status, invoke_time, complete_time, pos, op, key, value, read_value, read_list
  FROM iso_event WHERE history_id = :h ORDER BY txn_id, pos;
\set edn `cat test/data/register/g-single.edn`
SELECT * FROM pg_temp.counts(iso_load_jepsen('g-single', :'edn'));
\set edn `cat test/data/register/g0.edn`
SELECT * FROM pg_temp.counts(iso_load_jepsen('g0', :'edn'));
\set edn `cat test/data/register/g1a.edn`
SELECT * FROM pg_temp.counts(iso_load_jepsen('g1a', :'edn'));
\set edn `cat test/data/register/g1b-1.edn`
SELECT * FROM pg_temp.counts(iso_load_jepsen('g1b-1', :'edn'));
\set edn `cat test/data/register/g1b-2.edn`
SELECT * FROM pg_temp.counts(iso_load_jepsen('g1b-2', :'edn'));
\set edn `cat test/data/register/g1c.edn`
SELECT * FROM pg_temp.counts(iso_load_jepsen('g1c', :'edn'));
\set edn `cat test/data/register/long-fork.edn`
SELECT * FROM pg_temp.counts(iso_load_jepsen('long-fork', :'edn'));
\set edn `cat test/data/register/lost-update.edn`
SELECT * FROM pg_temp.counts(iso_load_jepsen('lost-update', :'edn'));
\set edn `cat test/data/register/non-repeatable-read.edn`
SELECT * FROM pg_temp.counts(iso_load_jepsen('non-repeatable-read', :'edn'));
\set edn `cat test/data/register/write-skew.edn`
SELECT * FROM pg_temp.counts(iso_load_jepsen('write-skew', :'edn'));

-- Version order evidence from the write-ahead log.
\set wal `cat test/data/register/g0.wal.jsonl`
SELECT iso_load_versions((SELECT history_id FROM iso_history WHERE name = 'g0'), :'wal');
SELECT key, position, value FROM iso_version v JOIN iso_history h USING (history_id)
 WHERE h.name = 'g0' ORDER BY key, position;
\set wal `cat test/data/register/g1b-1.wal.jsonl`
SELECT iso_load_versions((SELECT history_id FROM iso_history WHERE name = 'g1b-1'), :'wal');

-- A history and its version order loaded in one statement.
\set edn `cat test/data/register/g-single.edn`
\set wal `cat test/data/register/g-single.wal.jsonl`
WITH h AS (SELECT iso_load_jepsen('one-statement', :'edn') AS id)
SELECT iso_load_versions(h.id, :'wal') AS versions FROM h;

-- iso_parse_jepsen shows the rows without storing anything.
SELECT * FROM iso_parse_jepsen('{:type :ok, :value [[:r 1 nil] [:w 1 1]]}');
SELECT count(*) FROM iso_history WHERE name LIKE 'parse%';

-- Jepsen shapes: invoke/complete pairing by process, an invocation that never
-- completes (info), nemesis and non-:txn records (skipped), a wrapped record,
-- strings, keywords, negative numbers.
SELECT * FROM iso_parse_jepsen($$
{:type :invoke, :f :txn, :value [[:append :x 1] [:r "k\"1" nil]], :time 10, :process 0, :index 0}
{:type :invoke, :f :txn, :value [[:append :x 2]], :time 11, :process 1, :index 1}
{:type :info, :f :start-partition, :process :nemesis, :time 12, :index 2}
{:type :ok, :f :txn, :value [[:append :x 1] [:r "k\"1" [-3 "a b"]]],
 :time 13, :process 0, :index 3}
{:type :invoke, :f :read, :value nil, :time 14, :process 2, :index 4}
{:type :fail, :f :txn, :value [[:append :x 2]], :time 15, :process 1, :index 5, :error [:ww-conflict "x"]}
{:type :invoke, :f :txn, :value [[:append :x 3]], :time 16, :process 0, :index 6}
$$) ORDER BY txn_id, pos;

-- The same through the loader: skipped records are counted.
SELECT iso_load_jepsen('shapes', $$
{:type :invoke, :f :txn, :value [[:append 1 1]], :process 0, :index 0}
{:type :info, :f :start-partition, :process :nemesis, :index 1}
{:type :ok, :f :txn, :value [[:append 1 1]], :process 0, :index 2}
$$) AS h \gset
SELECT workload, skipped FROM iso_history WHERE history_id = :h;

-- An explicit workload for a history without writes.
SELECT iso_load_jepsen('reads-only', '{:type :ok, :value [[:r 1 nil]]}', 'rw-register') AS h \gset
SELECT workload FROM iso_history WHERE history_id = :h;

-- Deleting a history removes its events and versions.
SELECT iso_delete_history(history_id) FROM iso_history WHERE name = 'g0';
SELECT iso_delete_history(-1);
SELECT count(*) FROM iso_version v WHERE NOT EXISTS
  (SELECT 1 FROM iso_history h WHERE h.history_id = v.history_id);

-- Leave the database as we found it.
SELECT count(*) AS deleted FROM (SELECT iso_delete_history(history_id) FROM iso_history) d;
