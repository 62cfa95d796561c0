-- Every hand-checked test history, checked at every level against the
-- verdicts worked out by hand in test/data/EXPECTED.md
-- (test/data/expected-verdicts.csv). A mismatch prints a row.
-- (The ArangoDB histories, others' data, are checked by shared_arangodb.sql.)
SET client_min_messages = warning;
CREATE TEMP TABLE expected (file text, level text, holds boolean, anomalies text);
\copy expected FROM 'test/data/expected-verdicts.csv' WITH (FORMAT csv, HEADER true, FORCE_NOT_NULL (anomalies))

\set edn `cat test/data/register/dirty-read.edn`
SELECT iso_load_jepsen('register/dirty-read.edn', :'edn') AS h \gset
\set wal `cat test/data/register/dirty-read.wal.jsonl`
SELECT iso_load_versions(:h, :'wal') > 0 AS versions_loaded;
\set edn `cat test/data/register/g-single.edn`
SELECT iso_load_jepsen('register/g-single.edn', :'edn') AS h \gset
\set wal `cat test/data/register/g-single.wal.jsonl`
SELECT iso_load_versions(:h, :'wal') > 0 AS versions_loaded;
\set edn `cat test/data/register/g0.edn`
SELECT iso_load_jepsen('register/g0.edn', :'edn') AS h \gset
\set wal `cat test/data/register/g0.wal.jsonl`
SELECT iso_load_versions(:h, :'wal') > 0 AS versions_loaded;
\set edn `cat test/data/register/g1a.edn`
SELECT iso_load_jepsen('register/g1a.edn', :'edn') AS h \gset
\set wal `cat test/data/register/g1a.wal.jsonl`
SELECT iso_load_versions(:h, :'wal') > 0 AS versions_loaded;
\set edn `cat test/data/register/g1b-1.edn`
SELECT iso_load_jepsen('register/g1b-1.edn', :'edn') AS h \gset
\set wal `cat test/data/register/g1b-1.wal.jsonl`
SELECT iso_load_versions(:h, :'wal') > 0 AS versions_loaded;
\set edn `cat test/data/register/g1b-2.edn`
SELECT iso_load_jepsen('register/g1b-2.edn', :'edn') AS h \gset
\set wal `cat test/data/register/g1b-2.wal.jsonl`
SELECT iso_load_versions(:h, :'wal') > 0 AS versions_loaded;
\set edn `cat test/data/register/g1c.edn`
SELECT iso_load_jepsen('register/g1c.edn', :'edn') AS h \gset
\set wal `cat test/data/register/g1c.wal.jsonl`
SELECT iso_load_versions(:h, :'wal') > 0 AS versions_loaded;
\set edn `cat test/data/register/long-fork.edn`
SELECT iso_load_jepsen('register/long-fork.edn', :'edn') AS h \gset
\set wal `cat test/data/register/long-fork.wal.jsonl`
SELECT iso_load_versions(:h, :'wal') > 0 AS versions_loaded;
\set edn `cat test/data/register/lost-update.edn`
SELECT iso_load_jepsen('register/lost-update.edn', :'edn') AS h \gset
\set wal `cat test/data/register/lost-update.wal.jsonl`
SELECT iso_load_versions(:h, :'wal') > 0 AS versions_loaded;
\set edn `cat test/data/register/non-repeatable-read.edn`
SELECT iso_load_jepsen('register/non-repeatable-read.edn', :'edn') AS h \gset
\set wal `cat test/data/register/non-repeatable-read.wal.jsonl`
SELECT iso_load_versions(:h, :'wal') > 0 AS versions_loaded;
\set edn `cat test/data/register/write-skew.edn`
SELECT iso_load_jepsen('register/write-skew.edn', :'edn') AS h \gset
\set wal `cat test/data/register/write-skew.wal.jsonl`
SELECT iso_load_versions(:h, :'wal') > 0 AS versions_loaded;
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
\set edn `cat test/data/rules/la-future-read.edn`
SELECT iso_load_jepsen('rules/la-future-read.edn', :'edn', 'list-append') AS h \gset
\set edn `cat test/data/rules/la-own-order.edn`
SELECT iso_load_jepsen('rules/la-own-order.edn', :'edn', 'list-append') AS h \gset
\set edn `cat test/data/rules/la-unobserved.edn`
SELECT iso_load_jepsen('rules/la-unobserved.edn', :'edn') AS h \gset
\set edn `cat test/data/rules/la-nil-write-skew.edn`
SELECT iso_load_jepsen('rules/la-nil-write-skew.edn', :'edn', 'list-append') AS h \gset
\set edn `cat test/data/rules/la-nil-internal.edn`
SELECT iso_load_jepsen('rules/la-nil-internal.edn', :'edn', 'list-append') AS h \gset
\set edn `cat test/data/rules/la-nil-reread.edn`
SELECT iso_load_jepsen('rules/la-nil-reread.edn', :'edn', 'list-append') AS h \gset
\set edn `cat test/data/rules/la-nil-info.edn`
SELECT iso_load_jepsen('rules/la-nil-info.edn', :'edn', 'list-append') AS h \gset
\set edn `cat test/data/rules/la-own-append-read.edn`
SELECT iso_load_jepsen('rules/la-own-append-read.edn', :'edn', 'list-append') AS h \gset
\set edn `cat test/data/rules/la-incompatible-cycle.edn`
SELECT iso_load_jepsen('rules/la-incompatible-cycle.edn', :'edn', 'list-append') AS h \gset
\set edn `cat test/data/rules/la-duplicate-cycle.edn`
SELECT iso_load_jepsen('rules/la-duplicate-cycle.edn', :'edn', 'list-append') AS h \gset
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
SELECT iso_load_versions(:h, :'wal') > 0 AS versions_loaded;
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
SELECT iso_load_versions(:h, :'wal') > 0 AS versions_loaded;
\set edn `cat test/data/rules/reg-wal-skip.edn`
SELECT iso_load_jepsen('rules/reg-wal-skip.edn', :'edn') AS h \gset
\set wal `cat test/data/rules/reg-wal-skip.wal.jsonl`
SELECT iso_load_versions(:h, :'wal') > 0 AS versions_loaded;
\set edn `cat test/data/rules/reg-wfr.edn`
SELECT iso_load_jepsen('rules/reg-wfr.edn', :'edn') AS h \gset

CREATE TEMP TABLE actual AS
SELECT h.name AS file, l.level, l.holds,
       coalesce((SELECT string_agg(DISTINCT c.anomaly, ';' ORDER BY c.anomaly)
                   FROM iso_check(l.level, h.history_id, 100) c), '') AS anomalies
  FROM iso_history h, iso_levels(h.history_id) l;

SELECT count(*) AS expected_rows, count(DISTINCT file) AS histories FROM expected;
-- rows that differ (none expected)
(SELECT 'expected' AS side, * FROM expected EXCEPT SELECT 'expected', * FROM actual)
UNION ALL
(SELECT 'actual', * FROM actual EXCEPT SELECT 'actual', * FROM expected)
ORDER BY file, level, side;

-- iso_levels marks the strongest levels that hold
SELECT file, string_agg(level, ', ' ORDER BY level) AS strongest
  FROM (SELECT h.name AS file, l.level FROM iso_history h, iso_levels(h.history_id) l
         WHERE l.strongest) s
 GROUP BY file ORDER BY file;

-- The cycle verdicts over materialized edges agree with the in-memory ones.
SELECT sum(iso_materialize_graph(history_id)) AS edges FROM iso_history;
-- (iso_check_edges lists the cycles of the evidence; a violation the
-- version-order search found is iso_check's alone)
SELECT h.name, l.level FROM iso_history h, iso_levels(h.history_id) l
 WHERE l.method = 'evidence' AND EXISTS (SELECT 1 FROM iso_check(l.level, h.history_id) c WHERE cardinality(c.cycle) > 0)
    <> EXISTS (SELECT 1 FROM iso_check_edges(l.level, h.history_id));

SELECT count(*) AS deleted FROM (SELECT iso_delete_history(history_id) FROM iso_history) d;

