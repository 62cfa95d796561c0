-- iso_check and iso_levels: level names, witnesses and explanations,
-- all-histories mode, and a 100,000-transaction cycle.
SET client_min_messages = warning;
ALTER TABLE iso_history ALTER COLUMN history_id RESTART WITH 1;

\set edn `cat test/data/register/long-fork.edn`
SELECT iso_load_jepsen('long-fork', :'edn') AS fork \gset
\set wal `cat test/data/register/long-fork.wal.jsonl`
SELECT iso_load_versions(:fork, :'wal');
\set edn `cat test/data/register/lost-update.edn`
SELECT iso_load_jepsen('lost-update', :'edn') AS lost \gset
\set wal `cat test/data/register/lost-update.wal.jsonl`
SELECT iso_load_versions(:lost, :'wal');
-- Four write skews, a history made here: in pair i, two transactions read
-- keys a-i and b-i (both empty) and append to one each.
SELECT string_agg(format('{:type :ok, :f :txn, :value [[:r "a-%1$s" []] [:r "b-%1$s" []] [:append "a-%1$s" 1]]}' || E'\n' ||
                         '{:type :ok, :f :txn, :value [[:r "a-%1$s" []] [:r "b-%1$s" []] [:append "b-%1$s" 1]]}', i),
                  E'\n' ORDER BY i) AS edn
  FROM generate_series(1, 4) i \gset
SELECT iso_load_jepsen('write-skews', :'edn') AS skew \gset
\set edn `cat test/data/register/g1a.edn`
SELECT iso_load_jepsen('g1a', :'edn') AS g1a \gset

-- Witnesses with their explanation, one level at a time.
\x on
SELECT * FROM iso_check('si', :fork);
SELECT * FROM iso_check('psi', :lost);
SELECT * FROM iso_check('serializable', :skew, 1);
SELECT * FROM iso_check('read-committed', :g1a);
\x off

-- Graphviz DOT of a witness: the transactions with their micro-ops, typed edges.
SELECT iso_dot(:fork, cycle) FROM iso_check('si', :fork);
SELECT iso_dot(:fork, '{}');
-- transactions the history does not have are an error, not an empty picture
SELECT iso_dot(:fork, '{0,99,-7}');
SELECT iso_dot(:fork, '{0,NULL}');
-- a witness: its cycle's edges bold and numbered in cycle order, the
-- other edges among its transactions faint
SELECT cycle, edge_types, keys FROM iso_check('si', :fork);
SELECT iso_dot(history_id, cycle, edge_types, keys) FROM iso_check('si', :fork);
SELECT iso_dot(history_id, cycle, edge_types) LIKE '%T0 -> T1 [label="1: wr", color%' AS without_keys
  FROM iso_check('si', :fork);
SELECT iso_dot(history_id, cycle, edge_types[1:1]) FROM iso_check('si', :fork);
SELECT iso_dot(:fork, '{0,1}', '{rw,xx}');

-- The same level under every alias, case-insensitive.
SELECT alias, count(c.level) AS violations, min(c.level) AS canonical
  FROM unnest(ARRAY['pl-1', 'read-uncommitted', 'PL-2', 'read-committed', 'pl-2.99',
                    'Repeatable-Read', 'psi', 'parallel-snapshot-isolation', 'SI',
                    'snapshot-isolation', 'ser', 'serializable', 'pl-3',
                    'strict-serializable', 'strong-session-si',
                    'strong-session-serializable']) AS alias
  LEFT JOIN LATERAL iso_check(alias, :g1a) c ON true
 GROUP BY alias ORDER BY canonical, alias;

-- Every history at once, joined with the user's own metadata.
UPDATE iso_history SET metadata = jsonb_build_object('build', name || '-build');
SELECT h.metadata->>'build' AS build, c.anomaly, c.cycle, c.txns
  FROM iso_check('ser') c JOIN iso_history h USING (history_id)
 WHERE h.name <> 'write-skews'
 ORDER BY c.history_id, c.anomaly, c.cycle;
SELECT count(*) AS write_skews FROM iso_check('ser', :skew, 100);

-- iso_levels, with the strongest level that holds
SELECT * FROM iso_levels(:skew);
SELECT * FROM iso_levels(:g1a);

-- A register history without version order says what it cannot see.
SELECT iso_load_jepsen('no-order', $$
{:type :ok, :value [[:w 1 1]]}
{:type :ok, :value [[:w 1 2]]}
{:type :ok, :value [[:r 1 1]]}
$$) AS noorder \gset
SELECT level, holds, violations, strongest, note, method, search_constraints, search_constraints_pruned, search_solver_calls, search_seconds >= 0 AS timed FROM iso_levels(:noorder);

-- Errors.
SELECT * FROM iso_check('snapshot', :fork);
SELECT * FROM iso_check(NULL, :fork);
SELECT * FROM iso_check('si', :fork, 0);
SELECT * FROM iso_check('si', -1);
SELECT * FROM iso_levels(-1);

-- An empty history and a single transaction hold every level.
SELECT level, holds FROM iso_levels(iso_load_jepsen('empty', '; no operations', 'list-append'));
SELECT bool_and(holds) FROM iso_levels(iso_load_jepsen('single', '{:type :ok, :value [[:append 1 1] [:r 1 [1]]]}'));

-- A 100,000-transaction chain of ww edges that closes into one cycle:
-- T0 appends 0 to k0; Ti appends to k(i-1) and ki; the last txn's key is
-- appended to before T0's by a final read order, closing the chain.
SELECT string_agg(format('{:type :ok, :value [[:append %s %s] [:append %s %s]]}',
                         i, 1, (i + 1) % 100000, 2), E'\n') AS edn
  FROM generate_series(0, 99999) i \gset
SELECT iso_load_jepsen('chain', :'edn' || E'\n' ||
  (SELECT string_agg(format('{:type :ok, :value [[:r %s [2 1]]]}', i), E'\n')
     FROM generate_series(0, 99999) i)) AS chain \gset
SELECT vertices, ww, sccs, largest_scc FROM iso_graph_stats(:chain);
SELECT level, holds, violations FROM iso_levels(:chain);
SELECT anomaly, cardinality(cycle) AS length FROM iso_check('pl-1', :chain);

-- The same verdicts over materialized edges (iso_check_edges) as over the
-- in-memory graph (iso_check), for every hand-made history.
\set edn `cat test/data/register/g0.edn`
SELECT iso_load_jepsen('g0', :'edn') AS g0 \gset
\set wal `cat test/data/register/g0.wal.jsonl`
SELECT iso_load_versions(:g0, :'wal');
SELECT iso_load_jepsen('session-cycle', $$
{:type :ok, :value [[:append 1 1]], :process 0, :index 1}
{:type :ok, :value [[:r 1 []]], :process 0, :index 3}
{:type :ok, :value [[:r 1 [1]]], :process 1, :index 5}
$$) AS sess \gset
SELECT sum(iso_materialize_graph(history_id)) > 0 AS materialized FROM iso_history;
SELECT h.name, l.level,
       EXISTS (SELECT 1 FROM iso_check(l.level, h.history_id) c WHERE cardinality(c.cycle) > 0) AS in_memory,
       EXISTS (SELECT 1 FROM iso_check_edges(l.level, h.history_id)) AS materialized
  FROM iso_history h, iso_levels(h.history_id) l
 WHERE EXISTS (SELECT 1 FROM iso_check(l.level, h.history_id) c WHERE cardinality(c.cycle) > 0)
    <> EXISTS (SELECT 1 FROM iso_check_edges(l.level, h.history_id));
SELECT * FROM iso_check_edges('pl-1', :g0);
SELECT * FROM iso_check_edges('strong-session-si', :sess);
-- edges imported from another tool
INSERT INTO iso_history (name, workload) VALUES ('imported', 'list-append') RETURNING history_id AS imp \gset
INSERT INTO iso_edge (history_id, from_txn, to_txn, type, key) VALUES
  (:imp, 10, 20, 'rw', 'x'), (:imp, 20, 30, 'wr', 'y'), (:imp, 30, 40, 'rw', 'z'), (:imp, 40, 10, 'wr', 'w');
SELECT * FROM iso_check_edges('si', :imp);
SELECT * FROM iso_check_edges('psi', :imp);
-- a history never materialized is not "clean": iso_check_edges says so,
-- unless its events give no edge at all (then there is no cycle to find)
SELECT iso_load_jepsen('not-materialized', $$
{:type :ok, :value [[:append 1 1]]}
{:type :ok, :value [[:r 1 [1]]]}
$$) AS notmat \gset
SELECT * FROM iso_check_edges('ser', :notmat);
SELECT iso_materialize_graph(:notmat) AS edges;
SELECT count(*) FROM iso_check_edges('ser', :notmat);
SELECT iso_load_jepsen('no-edges', $$
{:type :ok, :value [[:append 1 1]]}
$$) AS noedges \gset
SELECT count(*) FROM iso_check_edges('ser', :noedges);
SELECT count(*) AS deleted FROM (SELECT iso_delete_history(history_id) FROM iso_history) d;
