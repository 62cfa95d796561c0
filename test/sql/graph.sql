-- The dependency graph of every hand-made history: edges in full,
-- non-cycle anomalies and statistics.  The expected edges are worked out by
-- hand in test/data/EXPECTED.md.
SET client_min_messages = warning;
ALTER TABLE iso_history ALTER COLUMN history_id RESTART WITH 1;

CREATE FUNCTION pg_temp.show(h bigint) RETURNS TABLE (edge text)
LANGUAGE sql AS $$
  SELECT format('T%s -%s-> T%s', from_txn, type, to_txn)
         || CASE WHEN key IS NULL THEN ''
                 ELSE format(' key %s (pos %s -> %s)', key, from_event, to_event) END
    FROM iso_build_graph($1) ORDER BY from_txn, to_txn, type
$$;


-- register/dirty-read.edn
\set edn `cat test/data/register/dirty-read.edn`
SELECT iso_load_jepsen('register/dirty-read.edn', :'edn') AS h \gset
\set wal `cat test/data/register/dirty-read.wal.jsonl`
SELECT iso_load_versions(:h, :'wal') AS versions;
SELECT * FROM pg_temp.show(:h);
SELECT anomaly, txns, events, key, explanation FROM iso_anomalies(:h);
SELECT vertices, aborted, indeterminate, ww, wr, rw, so, rt, edges, sccs, largest_scc, unknown_order_keys, version_order FROM iso_graph_stats(:h);

-- register/g-single.edn
\set edn `cat test/data/register/g-single.edn`
SELECT iso_load_jepsen('register/g-single.edn', :'edn') AS h \gset
\set wal `cat test/data/register/g-single.wal.jsonl`
SELECT iso_load_versions(:h, :'wal') AS versions;
SELECT * FROM pg_temp.show(:h);
SELECT anomaly, txns, events, key, explanation FROM iso_anomalies(:h);
SELECT vertices, aborted, indeterminate, ww, wr, rw, so, rt, edges, sccs, largest_scc, unknown_order_keys, version_order FROM iso_graph_stats(:h);

-- register/g0.edn
\set edn `cat test/data/register/g0.edn`
SELECT iso_load_jepsen('register/g0.edn', :'edn') AS h \gset
\set wal `cat test/data/register/g0.wal.jsonl`
SELECT iso_load_versions(:h, :'wal') AS versions;
SELECT * FROM pg_temp.show(:h);
SELECT anomaly, txns, events, key, explanation FROM iso_anomalies(:h);
SELECT vertices, aborted, indeterminate, ww, wr, rw, so, rt, edges, sccs, largest_scc, unknown_order_keys, version_order FROM iso_graph_stats(:h);

-- register/g1a.edn
\set edn `cat test/data/register/g1a.edn`
SELECT iso_load_jepsen('register/g1a.edn', :'edn') AS h \gset
\set wal `cat test/data/register/g1a.wal.jsonl`
SELECT iso_load_versions(:h, :'wal') AS versions;
SELECT * FROM pg_temp.show(:h);
SELECT anomaly, txns, events, key, explanation FROM iso_anomalies(:h);
SELECT vertices, aborted, indeterminate, ww, wr, rw, so, rt, edges, sccs, largest_scc, unknown_order_keys, version_order FROM iso_graph_stats(:h);

-- register/g1b-1.edn
\set edn `cat test/data/register/g1b-1.edn`
SELECT iso_load_jepsen('register/g1b-1.edn', :'edn') AS h \gset
\set wal `cat test/data/register/g1b-1.wal.jsonl`
SELECT iso_load_versions(:h, :'wal') AS versions;
SELECT * FROM pg_temp.show(:h);
SELECT anomaly, txns, events, key, explanation FROM iso_anomalies(:h);
SELECT vertices, aborted, indeterminate, ww, wr, rw, so, rt, edges, sccs, largest_scc, unknown_order_keys, version_order FROM iso_graph_stats(:h);

-- register/g1b-2.edn
\set edn `cat test/data/register/g1b-2.edn`
SELECT iso_load_jepsen('register/g1b-2.edn', :'edn') AS h \gset
\set wal `cat test/data/register/g1b-2.wal.jsonl`
SELECT iso_load_versions(:h, :'wal') AS versions;
SELECT * FROM pg_temp.show(:h);
SELECT anomaly, txns, events, key, explanation FROM iso_anomalies(:h);
SELECT vertices, aborted, indeterminate, ww, wr, rw, so, rt, edges, sccs, largest_scc, unknown_order_keys, version_order FROM iso_graph_stats(:h);

-- register/g1c.edn
\set edn `cat test/data/register/g1c.edn`
SELECT iso_load_jepsen('register/g1c.edn', :'edn') AS h \gset
\set wal `cat test/data/register/g1c.wal.jsonl`
SELECT iso_load_versions(:h, :'wal') AS versions;
SELECT * FROM pg_temp.show(:h);
SELECT anomaly, txns, events, key, explanation FROM iso_anomalies(:h);
SELECT vertices, aborted, indeterminate, ww, wr, rw, so, rt, edges, sccs, largest_scc, unknown_order_keys, version_order FROM iso_graph_stats(:h);

-- register/long-fork.edn
\set edn `cat test/data/register/long-fork.edn`
SELECT iso_load_jepsen('register/long-fork.edn', :'edn') AS h \gset
\set wal `cat test/data/register/long-fork.wal.jsonl`
SELECT iso_load_versions(:h, :'wal') AS versions;
SELECT * FROM pg_temp.show(:h);
SELECT anomaly, txns, events, key, explanation FROM iso_anomalies(:h);
SELECT vertices, aborted, indeterminate, ww, wr, rw, so, rt, edges, sccs, largest_scc, unknown_order_keys, version_order FROM iso_graph_stats(:h);

-- register/lost-update.edn
\set edn `cat test/data/register/lost-update.edn`
SELECT iso_load_jepsen('register/lost-update.edn', :'edn') AS h \gset
\set wal `cat test/data/register/lost-update.wal.jsonl`
SELECT iso_load_versions(:h, :'wal') AS versions;
SELECT * FROM pg_temp.show(:h);
SELECT anomaly, txns, events, key, explanation FROM iso_anomalies(:h);
SELECT vertices, aborted, indeterminate, ww, wr, rw, so, rt, edges, sccs, largest_scc, unknown_order_keys, version_order FROM iso_graph_stats(:h);

-- register/non-repeatable-read.edn
\set edn `cat test/data/register/non-repeatable-read.edn`
SELECT iso_load_jepsen('register/non-repeatable-read.edn', :'edn') AS h \gset
\set wal `cat test/data/register/non-repeatable-read.wal.jsonl`
SELECT iso_load_versions(:h, :'wal') AS versions;
SELECT * FROM pg_temp.show(:h);
SELECT anomaly, txns, events, key, explanation FROM iso_anomalies(:h);
SELECT vertices, aborted, indeterminate, ww, wr, rw, so, rt, edges, sccs, largest_scc, unknown_order_keys, version_order FROM iso_graph_stats(:h);

-- register/write-skew.edn
\set edn `cat test/data/register/write-skew.edn`
SELECT iso_load_jepsen('register/write-skew.edn', :'edn') AS h \gset
\set wal `cat test/data/register/write-skew.wal.jsonl`
SELECT iso_load_versions(:h, :'wal') AS versions;
SELECT * FROM pg_temp.show(:h);
SELECT anomaly, txns, events, key, explanation FROM iso_anomalies(:h);
SELECT vertices, aborted, indeterminate, ww, wr, rw, so, rt, edges, sccs, largest_scc, unknown_order_keys, version_order FROM iso_graph_stats(:h);

-- rules/jepsen-multiline.edn
\set edn `cat test/data/rules/jepsen-multiline.edn`
SELECT iso_load_jepsen('rules/jepsen-multiline.edn', :'edn') AS h \gset
SELECT * FROM pg_temp.show(:h);
SELECT anomaly, txns, events, key, explanation FROM iso_anomalies(:h);
SELECT vertices, aborted, indeterminate, ww, wr, rw, so, rt, edges, sccs, largest_scc, unknown_order_keys, version_order FROM iso_graph_stats(:h);

-- rules/jepsen-nemesis.edn
\set edn `cat test/data/rules/jepsen-nemesis.edn`
SELECT iso_load_jepsen('rules/jepsen-nemesis.edn', :'edn') AS h \gset
SELECT * FROM pg_temp.show(:h);
SELECT anomaly, txns, events, key, explanation FROM iso_anomalies(:h);
SELECT vertices, aborted, indeterminate, ww, wr, rw, so, rt, edges, sccs, largest_scc, unknown_order_keys, version_order FROM iso_graph_stats(:h);

-- rules/jepsen-never-completed.edn
\set edn `cat test/data/rules/jepsen-never-completed.edn`
SELECT iso_load_jepsen('rules/jepsen-never-completed.edn', :'edn') AS h \gset
SELECT * FROM pg_temp.show(:h);
SELECT anomaly, txns, events, key, explanation FROM iso_anomalies(:h);
SELECT vertices, aborted, indeterminate, ww, wr, rw, so, rt, edges, sccs, largest_scc, unknown_order_keys, version_order FROM iso_graph_stats(:h);

-- rules/jepsen-pairing.edn
\set edn `cat test/data/rules/jepsen-pairing.edn`
SELECT iso_load_jepsen('rules/jepsen-pairing.edn', :'edn') AS h \gset
SELECT * FROM pg_temp.show(:h);
SELECT anomaly, txns, events, key, explanation FROM iso_anomalies(:h);
SELECT vertices, aborted, indeterminate, ww, wr, rw, so, rt, edges, sccs, largest_scc, unknown_order_keys, version_order FROM iso_graph_stats(:h);

-- rules/jepsen-strings.edn
\set edn `cat test/data/rules/jepsen-strings.edn`
SELECT iso_load_jepsen('rules/jepsen-strings.edn', :'edn') AS h \gset
SELECT * FROM pg_temp.show(:h);
SELECT anomaly, txns, events, key, explanation FROM iso_anomalies(:h);
SELECT vertices, aborted, indeterminate, ww, wr, rw, so, rt, edges, sccs, largest_scc, unknown_order_keys, version_order FROM iso_graph_stats(:h);

-- rules/la-dirty-update.edn
\set edn `cat test/data/rules/la-dirty-update.edn`
SELECT iso_load_jepsen('rules/la-dirty-update.edn', :'edn') AS h \gset
SELECT * FROM pg_temp.show(:h);
SELECT anomaly, txns, events, key, explanation FROM iso_anomalies(:h);
SELECT vertices, aborted, indeterminate, ww, wr, rw, so, rt, edges, sccs, largest_scc, unknown_order_keys, version_order FROM iso_graph_stats(:h);

-- rules/la-duplicate.edn
\set edn `cat test/data/rules/la-duplicate.edn`
SELECT iso_load_jepsen('rules/la-duplicate.edn', :'edn') AS h \gset
SELECT * FROM pg_temp.show(:h);
SELECT anomaly, txns, events, key, explanation FROM iso_anomalies(:h);
SELECT vertices, aborted, indeterminate, ww, wr, rw, so, rt, edges, sccs, largest_scc, unknown_order_keys, version_order FROM iso_graph_stats(:h);

-- rules/la-empty-read.edn
\set edn `cat test/data/rules/la-empty-read.edn`
SELECT iso_load_jepsen('rules/la-empty-read.edn', :'edn') AS h \gset
SELECT * FROM pg_temp.show(:h);
SELECT anomaly, txns, events, key, explanation FROM iso_anomalies(:h);
SELECT vertices, aborted, indeterminate, ww, wr, rw, so, rt, edges, sccs, largest_scc, unknown_order_keys, version_order FROM iso_graph_stats(:h);

-- rules/la-g1a.edn
\set edn `cat test/data/rules/la-g1a.edn`
SELECT iso_load_jepsen('rules/la-g1a.edn', :'edn') AS h \gset
SELECT * FROM pg_temp.show(:h);
SELECT anomaly, txns, events, key, explanation FROM iso_anomalies(:h);
SELECT vertices, aborted, indeterminate, ww, wr, rw, so, rt, edges, sccs, largest_scc, unknown_order_keys, version_order FROM iso_graph_stats(:h);

-- rules/la-g1b.edn
\set edn `cat test/data/rules/la-g1b.edn`
SELECT iso_load_jepsen('rules/la-g1b.edn', :'edn') AS h \gset
SELECT * FROM pg_temp.show(:h);
SELECT anomaly, txns, events, key, explanation FROM iso_anomalies(:h);
SELECT vertices, aborted, indeterminate, ww, wr, rw, so, rt, edges, sccs, largest_scc, unknown_order_keys, version_order FROM iso_graph_stats(:h);

-- rules/la-garbage.edn
\set edn `cat test/data/rules/la-garbage.edn`
SELECT iso_load_jepsen('rules/la-garbage.edn', :'edn') AS h \gset
SELECT * FROM pg_temp.show(:h);
SELECT anomaly, txns, events, key, explanation FROM iso_anomalies(:h);
SELECT vertices, aborted, indeterminate, ww, wr, rw, so, rt, edges, sccs, largest_scc, unknown_order_keys, version_order FROM iso_graph_stats(:h);

-- rules/la-incompatible-order.edn
\set edn `cat test/data/rules/la-incompatible-order.edn`
SELECT iso_load_jepsen('rules/la-incompatible-order.edn', :'edn') AS h \gset
SELECT * FROM pg_temp.show(:h);
SELECT anomaly, txns, events, key, explanation FROM iso_anomalies(:h);
SELECT vertices, aborted, indeterminate, ww, wr, rw, so, rt, edges, sccs, largest_scc, unknown_order_keys, version_order FROM iso_graph_stats(:h);

-- rules/la-nil-write-skew.edn
\set edn `cat test/data/rules/la-nil-write-skew.edn`
SELECT iso_load_jepsen('rules/la-nil-write-skew.edn', :'edn', 'list-append') AS h \gset
SELECT * FROM pg_temp.show(:h);
SELECT anomaly, txns, events, key, explanation FROM iso_anomalies(:h);
SELECT vertices, aborted, indeterminate, ww, wr, rw, so, rt, edges, sccs, largest_scc, unknown_order_keys, version_order FROM iso_graph_stats(:h);

-- rules/la-nil-internal.edn
\set edn `cat test/data/rules/la-nil-internal.edn`
SELECT iso_load_jepsen('rules/la-nil-internal.edn', :'edn', 'list-append') AS h \gset
SELECT * FROM pg_temp.show(:h);
SELECT anomaly, txns, events, key, explanation FROM iso_anomalies(:h);
SELECT vertices, aborted, indeterminate, ww, wr, rw, so, rt, edges, sccs, largest_scc, unknown_order_keys, version_order FROM iso_graph_stats(:h);

-- rules/la-nil-reread.edn
\set edn `cat test/data/rules/la-nil-reread.edn`
SELECT iso_load_jepsen('rules/la-nil-reread.edn', :'edn', 'list-append') AS h \gset
SELECT * FROM pg_temp.show(:h);
SELECT anomaly, txns, events, key, explanation FROM iso_anomalies(:h);
SELECT vertices, aborted, indeterminate, ww, wr, rw, so, rt, edges, sccs, largest_scc, unknown_order_keys, version_order FROM iso_graph_stats(:h);

-- rules/la-nil-info.edn
\set edn `cat test/data/rules/la-nil-info.edn`
SELECT iso_load_jepsen('rules/la-nil-info.edn', :'edn', 'list-append') AS h \gset
SELECT * FROM pg_temp.show(:h);
SELECT anomaly, txns, events, key, explanation FROM iso_anomalies(:h);
SELECT vertices, aborted, indeterminate, ww, wr, rw, so, rt, edges, sccs, largest_scc, unknown_order_keys, version_order FROM iso_graph_stats(:h);

-- rules/la-own-append-read.edn
\set edn `cat test/data/rules/la-own-append-read.edn`
SELECT iso_load_jepsen('rules/la-own-append-read.edn', :'edn', 'list-append') AS h \gset
SELECT * FROM pg_temp.show(:h);
SELECT anomaly, txns, events, key, explanation FROM iso_anomalies(:h);
SELECT vertices, aborted, indeterminate, ww, wr, rw, so, rt, edges, sccs, largest_scc, unknown_order_keys, version_order FROM iso_graph_stats(:h);

-- rules/la-incompatible-cycle.edn
\set edn `cat test/data/rules/la-incompatible-cycle.edn`
SELECT iso_load_jepsen('rules/la-incompatible-cycle.edn', :'edn', 'list-append') AS h \gset
SELECT * FROM pg_temp.show(:h);
SELECT anomaly, txns, events, key, explanation FROM iso_anomalies(:h);
SELECT vertices, aborted, indeterminate, ww, wr, rw, so, rt, edges, sccs, largest_scc, unknown_order_keys, version_order FROM iso_graph_stats(:h);

-- rules/la-duplicate-cycle.edn
\set edn `cat test/data/rules/la-duplicate-cycle.edn`
SELECT iso_load_jepsen('rules/la-duplicate-cycle.edn', :'edn', 'list-append') AS h \gset
SELECT * FROM pg_temp.show(:h);
SELECT anomaly, txns, events, key, explanation FROM iso_anomalies(:h);
SELECT vertices, aborted, indeterminate, ww, wr, rw, so, rt, edges, sccs, largest_scc, unknown_order_keys, version_order FROM iso_graph_stats(:h);

-- rules/la-future-read.edn
\set edn `cat test/data/rules/la-future-read.edn`
SELECT iso_load_jepsen('rules/la-future-read.edn', :'edn', 'list-append') AS h \gset
SELECT * FROM pg_temp.show(:h);
SELECT anomaly, txns, events, key, explanation FROM iso_anomalies(:h);
SELECT vertices, aborted, indeterminate, ww, wr, rw, so, rt, edges, sccs, largest_scc, unknown_order_keys, version_order FROM iso_graph_stats(:h);

-- rules/la-own-order.edn
\set edn `cat test/data/rules/la-own-order.edn`
SELECT iso_load_jepsen('rules/la-own-order.edn', :'edn', 'list-append') AS h \gset
SELECT * FROM pg_temp.show(:h);
SELECT anomaly, txns, events, key, explanation FROM iso_anomalies(:h);
SELECT vertices, aborted, indeterminate, ww, wr, rw, so, rt, edges, sccs, largest_scc, unknown_order_keys, version_order FROM iso_graph_stats(:h);

-- rules/la-info-read.edn
\set edn `cat test/data/rules/la-info-read.edn`
SELECT iso_load_jepsen('rules/la-info-read.edn', :'edn') AS h \gset
SELECT * FROM pg_temp.show(:h);
SELECT anomaly, txns, events, key, explanation FROM iso_anomalies(:h);
SELECT vertices, aborted, indeterminate, ww, wr, rw, so, rt, edges, sccs, largest_scc, unknown_order_keys, version_order FROM iso_graph_stats(:h);

-- rules/la-info-unread.edn
\set edn `cat test/data/rules/la-info-unread.edn`
SELECT iso_load_jepsen('rules/la-info-unread.edn', :'edn') AS h \gset
SELECT * FROM pg_temp.show(:h);
SELECT anomaly, txns, events, key, explanation FROM iso_anomalies(:h);
SELECT vertices, aborted, indeterminate, ww, wr, rw, so, rt, edges, sccs, largest_scc, unknown_order_keys, version_order FROM iso_graph_stats(:h);

-- rules/la-internal-ok.edn
\set edn `cat test/data/rules/la-internal-ok.edn`
SELECT iso_load_jepsen('rules/la-internal-ok.edn', :'edn') AS h \gset
SELECT * FROM pg_temp.show(:h);
SELECT anomaly, txns, events, key, explanation FROM iso_anomalies(:h);
SELECT vertices, aborted, indeterminate, ww, wr, rw, so, rt, edges, sccs, largest_scc, unknown_order_keys, version_order FROM iso_graph_stats(:h);

-- rules/la-internal-violated.edn
\set edn `cat test/data/rules/la-internal-violated.edn`
SELECT iso_load_jepsen('rules/la-internal-violated.edn', :'edn') AS h \gset
SELECT * FROM pg_temp.show(:h);
SELECT anomaly, txns, events, key, explanation FROM iso_anomalies(:h);
SELECT vertices, aborted, indeterminate, ww, wr, rw, so, rt, edges, sccs, largest_scc, unknown_order_keys, version_order FROM iso_graph_stats(:h);

-- rules/la-known-order.edn
\set edn `cat test/data/rules/la-known-order.edn`
SELECT iso_load_jepsen('rules/la-known-order.edn', :'edn') AS h \gset
SELECT * FROM pg_temp.show(:h);
SELECT anomaly, txns, events, key, explanation FROM iso_anomalies(:h);
SELECT vertices, aborted, indeterminate, ww, wr, rw, so, rt, edges, sccs, largest_scc, unknown_order_keys, version_order FROM iso_graph_stats(:h);

-- rules/la-lost-update-observed.edn
\set edn `cat test/data/rules/la-lost-update-observed.edn`
SELECT iso_load_jepsen('rules/la-lost-update-observed.edn', :'edn') AS h \gset
SELECT * FROM pg_temp.show(:h);
SELECT anomaly, txns, events, key, explanation FROM iso_anomalies(:h);
SELECT vertices, aborted, indeterminate, ww, wr, rw, so, rt, edges, sccs, largest_scc, unknown_order_keys, version_order FROM iso_graph_stats(:h);

-- rules/la-lost-update.edn
\set edn `cat test/data/rules/la-lost-update.edn`
SELECT iso_load_jepsen('rules/la-lost-update.edn', :'edn') AS h \gset
SELECT * FROM pg_temp.show(:h);
SELECT anomaly, txns, events, key, explanation FROM iso_anomalies(:h);
SELECT vertices, aborted, indeterminate, ww, wr, rw, so, rt, edges, sccs, largest_scc, unknown_order_keys, version_order FROM iso_graph_stats(:h);

-- rules/la-unobserved.edn
\set edn `cat test/data/rules/la-unobserved.edn`
SELECT iso_load_jepsen('rules/la-unobserved.edn', :'edn') AS h \gset
SELECT * FROM pg_temp.show(:h);
SELECT anomaly, txns, events, key, explanation FROM iso_anomalies(:h);
SELECT vertices, aborted, indeterminate, ww, wr, rw, so, rt, edges, sccs, largest_scc, unknown_order_keys, version_order FROM iso_graph_stats(:h);

-- rules/lvl-empty.edn
\set edn `cat test/data/rules/lvl-empty.edn`
SELECT iso_load_jepsen('rules/lvl-empty.edn', :'edn', 'list-append') AS h \gset
SELECT * FROM pg_temp.show(:h);
SELECT anomaly, txns, events, key, explanation FROM iso_anomalies(:h);
SELECT vertices, aborted, indeterminate, ww, wr, rw, so, rt, edges, sccs, largest_scc, unknown_order_keys, version_order FROM iso_graph_stats(:h);

-- rules/lvl-g-single.edn
\set edn `cat test/data/rules/lvl-g-single.edn`
SELECT iso_load_jepsen('rules/lvl-g-single.edn', :'edn') AS h \gset
SELECT * FROM pg_temp.show(:h);
SELECT anomaly, txns, events, key, explanation FROM iso_anomalies(:h);
SELECT vertices, aborted, indeterminate, ww, wr, rw, so, rt, edges, sccs, largest_scc, unknown_order_keys, version_order FROM iso_graph_stats(:h);

-- rules/lvl-g0.edn
\set edn `cat test/data/rules/lvl-g0.edn`
SELECT iso_load_jepsen('rules/lvl-g0.edn', :'edn') AS h \gset
SELECT * FROM pg_temp.show(:h);
SELECT anomaly, txns, events, key, explanation FROM iso_anomalies(:h);
SELECT vertices, aborted, indeterminate, ww, wr, rw, so, rt, edges, sccs, largest_scc, unknown_order_keys, version_order FROM iso_graph_stats(:h);

-- rules/lvl-g1c.edn
\set edn `cat test/data/rules/lvl-g1c.edn`
SELECT iso_load_jepsen('rules/lvl-g1c.edn', :'edn') AS h \gset
SELECT * FROM pg_temp.show(:h);
SELECT anomaly, txns, events, key, explanation FROM iso_anomalies(:h);
SELECT vertices, aborted, indeterminate, ww, wr, rw, so, rt, edges, sccs, largest_scc, unknown_order_keys, version_order FROM iso_graph_stats(:h);

-- rules/lvl-info-cycle.edn
\set edn `cat test/data/rules/lvl-info-cycle.edn`
SELECT iso_load_jepsen('rules/lvl-info-cycle.edn', :'edn') AS h \gset
SELECT * FROM pg_temp.show(:h);
SELECT anomaly, txns, events, key, explanation FROM iso_anomalies(:h);
SELECT vertices, aborted, indeterminate, ww, wr, rw, so, rt, edges, sccs, largest_scc, unknown_order_keys, version_order FROM iso_graph_stats(:h);

-- rules/lvl-long-fork.edn
\set edn `cat test/data/rules/lvl-long-fork.edn`
SELECT iso_load_jepsen('rules/lvl-long-fork.edn', :'edn') AS h \gset
SELECT * FROM pg_temp.show(:h);
SELECT anomaly, txns, events, key, explanation FROM iso_anomalies(:h);
SELECT vertices, aborted, indeterminate, ww, wr, rw, so, rt, edges, sccs, largest_scc, unknown_order_keys, version_order FROM iso_graph_stats(:h);

-- rules/lvl-realtime.edn
\set edn `cat test/data/rules/lvl-realtime.edn`
SELECT iso_load_jepsen('rules/lvl-realtime.edn', :'edn') AS h \gset
SELECT * FROM pg_temp.show(:h);
SELECT anomaly, txns, events, key, explanation FROM iso_anomalies(:h);
SELECT vertices, aborted, indeterminate, ww, wr, rw, so, rt, edges, sccs, largest_scc, unknown_order_keys, version_order FROM iso_graph_stats(:h);

-- rules/lvl-rt-reduction.edn
\set edn `cat test/data/rules/lvl-rt-reduction.edn`
SELECT iso_load_jepsen('rules/lvl-rt-reduction.edn', :'edn') AS h \gset
SELECT * FROM pg_temp.show(:h);
SELECT anomaly, txns, events, key, explanation FROM iso_anomalies(:h);
SELECT vertices, aborted, indeterminate, ww, wr, rw, so, rt, edges, sccs, largest_scc, unknown_order_keys, version_order FROM iso_graph_stats(:h);

-- rules/lvl-session.edn
\set edn `cat test/data/rules/lvl-session.edn`
SELECT iso_load_jepsen('rules/lvl-session.edn', :'edn') AS h \gset
SELECT * FROM pg_temp.show(:h);
SELECT anomaly, txns, events, key, explanation FROM iso_anomalies(:h);
SELECT vertices, aborted, indeterminate, ww, wr, rw, so, rt, edges, sccs, largest_scc, unknown_order_keys, version_order FROM iso_graph_stats(:h);

-- rules/lvl-single.edn
\set edn `cat test/data/rules/lvl-single.edn`
SELECT iso_load_jepsen('rules/lvl-single.edn', :'edn') AS h \gset
SELECT * FROM pg_temp.show(:h);
SELECT anomaly, txns, events, key, explanation FROM iso_anomalies(:h);
SELECT vertices, aborted, indeterminate, ww, wr, rw, so, rt, edges, sccs, largest_scc, unknown_order_keys, version_order FROM iso_graph_stats(:h);

-- rules/lvl-write-skew.edn
\set edn `cat test/data/rules/lvl-write-skew.edn`
SELECT iso_load_jepsen('rules/lvl-write-skew.edn', :'edn') AS h \gset
SELECT * FROM pg_temp.show(:h);
SELECT anomaly, txns, events, key, explanation FROM iso_anomalies(:h);
SELECT vertices, aborted, indeterminate, ww, wr, rw, so, rt, edges, sccs, largest_scc, unknown_order_keys, version_order FROM iso_graph_stats(:h);

-- rules/reg-cyclic-versions.edn
\set edn `cat test/data/rules/reg-cyclic-versions.edn`
SELECT iso_load_jepsen('rules/reg-cyclic-versions.edn', :'edn') AS h \gset
\set wal `cat test/data/rules/reg-cyclic-versions.wal.jsonl`
SELECT iso_load_versions(:h, :'wal') AS versions;
SELECT * FROM pg_temp.show(:h);
SELECT anomaly, txns, events, key, explanation FROM iso_anomalies(:h);
SELECT vertices, aborted, indeterminate, ww, wr, rw, so, rt, edges, sccs, largest_scc, unknown_order_keys, version_order FROM iso_graph_stats(:h);

-- rules/reg-g1a.edn
\set edn `cat test/data/rules/reg-g1a.edn`
SELECT iso_load_jepsen('rules/reg-g1a.edn', :'edn') AS h \gset
SELECT * FROM pg_temp.show(:h);
SELECT anomaly, txns, events, key, explanation FROM iso_anomalies(:h);
SELECT vertices, aborted, indeterminate, ww, wr, rw, so, rt, edges, sccs, largest_scc, unknown_order_keys, version_order FROM iso_graph_stats(:h);

-- rules/reg-g1b.edn
\set edn `cat test/data/rules/reg-g1b.edn`
SELECT iso_load_jepsen('rules/reg-g1b.edn', :'edn') AS h \gset
SELECT * FROM pg_temp.show(:h);
SELECT anomaly, txns, events, key, explanation FROM iso_anomalies(:h);
SELECT vertices, aborted, indeterminate, ww, wr, rw, so, rt, edges, sccs, largest_scc, unknown_order_keys, version_order FROM iso_graph_stats(:h);

-- rules/reg-garbage.edn
\set edn `cat test/data/rules/reg-garbage.edn`
SELECT iso_load_jepsen('rules/reg-garbage.edn', :'edn') AS h \gset
SELECT * FROM pg_temp.show(:h);
SELECT anomaly, txns, events, key, explanation FROM iso_anomalies(:h);
SELECT vertices, aborted, indeterminate, ww, wr, rw, so, rt, edges, sccs, largest_scc, unknown_order_keys, version_order FROM iso_graph_stats(:h);

-- rules/reg-internal.edn
\set edn `cat test/data/rules/reg-internal.edn`
SELECT iso_load_jepsen('rules/reg-internal.edn', :'edn') AS h \gset
SELECT * FROM pg_temp.show(:h);
SELECT anomaly, txns, events, key, explanation FROM iso_anomalies(:h);
SELECT vertices, aborted, indeterminate, ww, wr, rw, so, rt, edges, sccs, largest_scc, unknown_order_keys, version_order FROM iso_graph_stats(:h);

-- rules/reg-no-order-ambiguous.edn
\set edn `cat test/data/rules/reg-no-order-ambiguous.edn`
SELECT iso_load_jepsen('rules/reg-no-order-ambiguous.edn', :'edn') AS h \gset
SELECT * FROM pg_temp.show(:h);
SELECT anomaly, txns, events, key, explanation FROM iso_anomalies(:h);
SELECT vertices, aborted, indeterminate, ww, wr, rw, so, rt, edges, sccs, largest_scc, unknown_order_keys, version_order FROM iso_graph_stats(:h);

-- rules/reg-no-order.edn
\set edn `cat test/data/rules/reg-no-order.edn`
SELECT iso_load_jepsen('rules/reg-no-order.edn', :'edn') AS h \gset
SELECT * FROM pg_temp.show(:h);
SELECT anomaly, txns, events, key, explanation FROM iso_anomalies(:h);
SELECT vertices, aborted, indeterminate, ww, wr, rw, so, rt, edges, sccs, largest_scc, unknown_order_keys, version_order FROM iso_graph_stats(:h);

-- rules/reg-wal-order.edn
\set edn `cat test/data/rules/reg-wal-order.edn`
SELECT iso_load_jepsen('rules/reg-wal-order.edn', :'edn') AS h \gset
\set wal `cat test/data/rules/reg-wal-order.wal.jsonl`
SELECT iso_load_versions(:h, :'wal') AS versions;
SELECT * FROM pg_temp.show(:h);
SELECT anomaly, txns, events, key, explanation FROM iso_anomalies(:h);
SELECT vertices, aborted, indeterminate, ww, wr, rw, so, rt, edges, sccs, largest_scc, unknown_order_keys, version_order FROM iso_graph_stats(:h);

-- rules/reg-wal-skip.edn
\set edn `cat test/data/rules/reg-wal-skip.edn`
SELECT iso_load_jepsen('rules/reg-wal-skip.edn', :'edn') AS h \gset
\set wal `cat test/data/rules/reg-wal-skip.wal.jsonl`
SELECT iso_load_versions(:h, :'wal') AS versions;
SELECT * FROM pg_temp.show(:h);
SELECT anomaly, txns, events, key, explanation FROM iso_anomalies(:h);
SELECT vertices, aborted, indeterminate, ww, wr, rw, so, rt, edges, sccs, largest_scc, unknown_order_keys, version_order FROM iso_graph_stats(:h);

-- rules/reg-wfr.edn
\set edn `cat test/data/rules/reg-wfr.edn`
SELECT iso_load_jepsen('rules/reg-wfr.edn', :'edn') AS h \gset
SELECT * FROM pg_temp.show(:h);
SELECT anomaly, txns, events, key, explanation FROM iso_anomalies(:h);
SELECT vertices, aborted, indeterminate, ww, wr, rw, so, rt, edges, sccs, largest_scc, unknown_order_keys, version_order FROM iso_graph_stats(:h);

-- A value written twice is rejected by the loader (EDN) ...
\set edn `cat test/data/rules/reg-duplicate-write.edn`
SELECT iso_load_jepsen('dup', :'edn');
-- ... and by the graph builder when it arrives through COPY.
INSERT INTO iso_history (history_id, name, workload) OVERRIDING SYSTEM VALUE VALUES (900, 'copied-dup', 'rw-register');
INSERT INTO iso_event (history_id, txn_id, status, pos, op, key, value) VALUES
  (900, 1, 'ok', 0, 'w', 'x', '1'), (900, 2, 'ok', 0, 'w', 'x', '1');
SELECT * FROM iso_build_graph(900);

-- The statistics agree with the edges, row for row.
SELECT h.name FROM iso_history h, iso_graph_stats(h.history_id) s
 WHERE h.history_id <> 900 AND ROW(s.ww, s.wr, s.rw, s.so, s.rt) IS DISTINCT FROM
   (SELECT ROW(count(*) FILTER (WHERE type = 'ww'), count(*) FILTER (WHERE type = 'wr'),
               count(*) FILTER (WHERE type = 'rw'), count(*) FILTER (WHERE type = 'so'),
               count(*) FILTER (WHERE type = 'rt'))
      FROM iso_build_graph(h.history_id));

-- Materializing stores exactly the same edges in iso_edge.
SELECT sum(iso_materialize_graph(history_id)) AS stored FROM iso_history WHERE history_id <> 900;
SELECT count(*) AS differences FROM (
  (SELECT e.* FROM iso_history h, iso_build_graph(h.history_id) e WHERE h.history_id <> 900
   EXCEPT SELECT * FROM iso_edge)
  UNION ALL
  (SELECT * FROM iso_edge EXCEPT
   SELECT e.* FROM iso_history h, iso_build_graph(h.history_id) e WHERE h.history_id <> 900)) d;
-- again: replaces, does not add
SELECT iso_materialize_graph(history_id) AS stored,
       (SELECT count(*) FROM iso_edge e WHERE e.history_id = h.history_id) AS rows
  FROM iso_history h WHERE name = 'register/g0.edn';

-- Register keys opt-in assumptions: session order orders writes.
SELECT iso_load_jepsen('sequential', $$
{:type :ok, :value [[:w 1 1]], :process 0, :index 0}
{:type :ok, :value [[:w 1 2]], :process 0, :index 1}
{:type :ok, :value [[:r 1 1]], :process 1, :index 2}
$$) AS h \gset
SELECT * FROM pg_temp.show(:h);
SELECT unknown_order_keys, version_order FROM iso_graph_stats(:h);
SET isograph.assume_sequential_keys = on;
SELECT * FROM pg_temp.show(:h);
SELECT unknown_order_keys, version_order FROM iso_graph_stats(:h);
RESET isograph.assume_sequential_keys;
-- ... and real-time order does.
SELECT iso_load_jepsen('linearizable', $$
{:type :invoke, :value [[:w 1 1]], :process 0, :time 10, :index 0}
{:type :ok, :value [[:w 1 1]], :process 0, :time 20, :index 1}
{:type :invoke, :value [[:w 1 2]], :process 1, :time 30, :index 2}
{:type :ok, :value [[:w 1 2]], :process 1, :time 40, :index 3}
{:type :invoke, :value [[:r 1 nil]], :process 2, :time 50, :index 4}
{:type :ok, :value [[:r 1 1]], :process 2, :time 60, :index 5}
$$) AS h \gset
SELECT * FROM pg_temp.show(:h);
SET isograph.assume_linearizable_keys = on;
SELECT * FROM pg_temp.show(:h);
RESET isograph.assume_linearizable_keys;

SELECT iso_build_graph(-1);
SELECT count(*) AS deleted FROM (SELECT iso_delete_history(history_id) FROM iso_history) d;

