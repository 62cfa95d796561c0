-- iso_levels_jepsen(edn): the verdicts of an EDN history checked in memory,
-- without storing it, must equal those of loading it and checking the
-- stored history (iso_levels), row for row, for every hand-made history.
-- (Version orders are not loaded here: iso_levels_jepsen has none.)
SET client_min_messages = warning;
-- (no CONTEXT lines while the helper runs: its pg_temp schema's name
-- differs from run to run)
\set SHOW_CONTEXT never
CREATE FUNCTION pg_temp.compare(name text, edn text) RETURNS TABLE (history text, levels bigint, differences bigint)
LANGUAGE plpgsql AS $$
DECLARE
	h bigint := iso_load_jepsen('levels_jepsen ' || name, edn);
BEGIN
	RETURN QUERY
	SELECT name,
	       (SELECT count(*) FROM iso_levels_jepsen(edn)),
	       (SELECT count(*) FROM ((SELECT level, holds, violations, strongest, note, method, search_constraints, search_constraints_pruned, search_solver_calls FROM iso_levels(h)
	                               EXCEPT ALL SELECT level, holds, violations, strongest, note, method, search_constraints, search_constraints_pruned, search_solver_calls FROM iso_levels_jepsen(edn))
	                              UNION ALL
	                              (SELECT level, holds, violations, strongest, note, method, search_constraints, search_constraints_pruned, search_solver_calls FROM iso_levels_jepsen(edn)
	                               EXCEPT ALL SELECT level, holds, violations, strongest, note, method, search_constraints, search_constraints_pruned, search_solver_calls FROM iso_levels(h))) d);
END $$;
CREATE TEMP TABLE compared (history text, levels bigint, differences bigint);
\set edn `cat test/data/rules/jepsen-multiline.edn`
INSERT INTO compared SELECT * FROM pg_temp.compare('rules/jepsen-multiline.edn', :'edn');
\set edn `cat test/data/rules/jepsen-nemesis.edn`
INSERT INTO compared SELECT * FROM pg_temp.compare('rules/jepsen-nemesis.edn', :'edn');
\set edn `cat test/data/rules/jepsen-never-completed.edn`
INSERT INTO compared SELECT * FROM pg_temp.compare('rules/jepsen-never-completed.edn', :'edn');
\set edn `cat test/data/rules/jepsen-pairing.edn`
INSERT INTO compared SELECT * FROM pg_temp.compare('rules/jepsen-pairing.edn', :'edn');
\set edn `cat test/data/rules/jepsen-strings.edn`
INSERT INTO compared SELECT * FROM pg_temp.compare('rules/jepsen-strings.edn', :'edn');
\set edn `cat test/data/rules/la-dirty-update.edn`
INSERT INTO compared SELECT * FROM pg_temp.compare('rules/la-dirty-update.edn', :'edn');
\set edn `cat test/data/rules/la-duplicate.edn`
INSERT INTO compared SELECT * FROM pg_temp.compare('rules/la-duplicate.edn', :'edn');
\set edn `cat test/data/rules/la-empty-read.edn`
INSERT INTO compared SELECT * FROM pg_temp.compare('rules/la-empty-read.edn', :'edn');
\set edn `cat test/data/rules/la-g1a.edn`
INSERT INTO compared SELECT * FROM pg_temp.compare('rules/la-g1a.edn', :'edn');
\set edn `cat test/data/rules/la-g1b.edn`
INSERT INTO compared SELECT * FROM pg_temp.compare('rules/la-g1b.edn', :'edn');
\set edn `cat test/data/rules/la-garbage.edn`
INSERT INTO compared SELECT * FROM pg_temp.compare('rules/la-garbage.edn', :'edn');
\set edn `cat test/data/rules/la-incompatible-order.edn`
INSERT INTO compared SELECT * FROM pg_temp.compare('rules/la-incompatible-order.edn', :'edn');
\set edn `cat test/data/rules/la-info-read.edn`
INSERT INTO compared SELECT * FROM pg_temp.compare('rules/la-info-read.edn', :'edn');
\set edn `cat test/data/rules/la-info-unread.edn`
INSERT INTO compared SELECT * FROM pg_temp.compare('rules/la-info-unread.edn', :'edn');
\set edn `cat test/data/rules/la-internal-ok.edn`
INSERT INTO compared SELECT * FROM pg_temp.compare('rules/la-internal-ok.edn', :'edn');
\set edn `cat test/data/rules/la-internal-violated.edn`
INSERT INTO compared SELECT * FROM pg_temp.compare('rules/la-internal-violated.edn', :'edn');
\set edn `cat test/data/rules/la-known-order.edn`
INSERT INTO compared SELECT * FROM pg_temp.compare('rules/la-known-order.edn', :'edn');
\set edn `cat test/data/rules/la-lost-update-observed.edn`
INSERT INTO compared SELECT * FROM pg_temp.compare('rules/la-lost-update-observed.edn', :'edn');
\set edn `cat test/data/rules/la-lost-update.edn`
INSERT INTO compared SELECT * FROM pg_temp.compare('rules/la-lost-update.edn', :'edn');
\set edn `cat test/data/rules/la-unobserved.edn`
INSERT INTO compared SELECT * FROM pg_temp.compare('rules/la-unobserved.edn', :'edn');
\set edn `cat test/data/rules/lvl-empty.edn`
INSERT INTO compared SELECT * FROM pg_temp.compare('rules/lvl-empty.edn', :'edn');
\set edn `cat test/data/rules/lvl-g-single.edn`
INSERT INTO compared SELECT * FROM pg_temp.compare('rules/lvl-g-single.edn', :'edn');
\set edn `cat test/data/rules/lvl-g0.edn`
INSERT INTO compared SELECT * FROM pg_temp.compare('rules/lvl-g0.edn', :'edn');
\set edn `cat test/data/rules/lvl-g1c.edn`
INSERT INTO compared SELECT * FROM pg_temp.compare('rules/lvl-g1c.edn', :'edn');
\set edn `cat test/data/rules/lvl-info-cycle.edn`
INSERT INTO compared SELECT * FROM pg_temp.compare('rules/lvl-info-cycle.edn', :'edn');
\set edn `cat test/data/rules/lvl-long-fork.edn`
INSERT INTO compared SELECT * FROM pg_temp.compare('rules/lvl-long-fork.edn', :'edn');
\set edn `cat test/data/rules/lvl-realtime.edn`
INSERT INTO compared SELECT * FROM pg_temp.compare('rules/lvl-realtime.edn', :'edn');
\set edn `cat test/data/rules/lvl-rt-reduction.edn`
INSERT INTO compared SELECT * FROM pg_temp.compare('rules/lvl-rt-reduction.edn', :'edn');
\set edn `cat test/data/rules/lvl-session.edn`
INSERT INTO compared SELECT * FROM pg_temp.compare('rules/lvl-session.edn', :'edn');
\set edn `cat test/data/rules/lvl-single.edn`
INSERT INTO compared SELECT * FROM pg_temp.compare('rules/lvl-single.edn', :'edn');
\set edn `cat test/data/rules/lvl-write-skew.edn`
INSERT INTO compared SELECT * FROM pg_temp.compare('rules/lvl-write-skew.edn', :'edn');
\set edn `cat test/data/rules/reg-cyclic-versions.edn`
INSERT INTO compared SELECT * FROM pg_temp.compare('rules/reg-cyclic-versions.edn', :'edn');
\set edn `cat test/data/rules/reg-g1a.edn`
INSERT INTO compared SELECT * FROM pg_temp.compare('rules/reg-g1a.edn', :'edn');
\set edn `cat test/data/rules/reg-g1b.edn`
INSERT INTO compared SELECT * FROM pg_temp.compare('rules/reg-g1b.edn', :'edn');
\set edn `cat test/data/rules/reg-garbage.edn`
INSERT INTO compared SELECT * FROM pg_temp.compare('rules/reg-garbage.edn', :'edn');
\set edn `cat test/data/rules/reg-internal.edn`
INSERT INTO compared SELECT * FROM pg_temp.compare('rules/reg-internal.edn', :'edn');
\set edn `cat test/data/rules/reg-no-order-ambiguous.edn`
INSERT INTO compared SELECT * FROM pg_temp.compare('rules/reg-no-order-ambiguous.edn', :'edn');
\set edn `cat test/data/rules/reg-no-order.edn`
INSERT INTO compared SELECT * FROM pg_temp.compare('rules/reg-no-order.edn', :'edn');
\set edn `cat test/data/rules/reg-wal-order.edn`
INSERT INTO compared SELECT * FROM pg_temp.compare('rules/reg-wal-order.edn', :'edn');
\set edn `cat test/data/rules/reg-wal-skip.edn`
INSERT INTO compared SELECT * FROM pg_temp.compare('rules/reg-wal-skip.edn', :'edn');
\set edn `cat test/data/rules/reg-wfr.edn`
INSERT INTO compared SELECT * FROM pg_temp.compare('rules/reg-wfr.edn', :'edn');
\set edn `cat test/data/register/dirty-read.edn`
INSERT INTO compared SELECT * FROM pg_temp.compare('register/dirty-read.edn', :'edn');
\set edn `cat test/data/register/g-single.edn`
INSERT INTO compared SELECT * FROM pg_temp.compare('register/g-single.edn', :'edn');
\set edn `cat test/data/register/g0.edn`
INSERT INTO compared SELECT * FROM pg_temp.compare('register/g0.edn', :'edn');
\set edn `cat test/data/register/g1a.edn`
INSERT INTO compared SELECT * FROM pg_temp.compare('register/g1a.edn', :'edn');
\set edn `cat test/data/register/g1b-1.edn`
INSERT INTO compared SELECT * FROM pg_temp.compare('register/g1b-1.edn', :'edn');
\set edn `cat test/data/register/g1b-2.edn`
INSERT INTO compared SELECT * FROM pg_temp.compare('register/g1b-2.edn', :'edn');
\set edn `cat test/data/register/g1c.edn`
INSERT INTO compared SELECT * FROM pg_temp.compare('register/g1c.edn', :'edn');
\set edn `cat test/data/register/long-fork.edn`
INSERT INTO compared SELECT * FROM pg_temp.compare('register/long-fork.edn', :'edn');
\set edn `cat test/data/register/lost-update.edn`
INSERT INTO compared SELECT * FROM pg_temp.compare('register/lost-update.edn', :'edn');
\set edn `cat test/data/register/non-repeatable-read.edn`
INSERT INTO compared SELECT * FROM pg_temp.compare('register/non-repeatable-read.edn', :'edn');
\set edn `cat test/data/register/write-skew.edn`
INSERT INTO compared SELECT * FROM pg_temp.compare('register/write-skew.edn', :'edn');
\set SHOW_CONTEXT errors
SELECT count(*) AS histories, sum(levels) AS level_rows, sum(differences) AS differences,
       count(*) FILTER (WHERE levels <> 9) AS without_nine_levels
  FROM compared;
-- the verdicts themselves, for a few (hand-derived in test/data/EXPECTED.md)
\set edn `cat test/data/rules/jepsen-never-completed.edn`
SELECT level, holds, violations, strongest, note FROM iso_levels_jepsen(:'edn');
\set edn `cat test/data/register/g-single.edn`
SELECT level, holds, violations, strongest, note FROM iso_levels_jepsen(:'edn');

-- A history whose transactions arrive out of txn_id order (completions
-- :index 30, 20, 10) and contain a G1c cycle: its image (written by
-- iso_load_jepsen, sorted in memory) must give exactly the witnesses that
-- reading its rows gives, cycle for cycle.
SELECT iso_load_jepsen('out of order', $$
{:type :ok, :f :txn, :value [[:append :x 1] [:r :y [1]]], :index 30, :process 0}
{:type :ok, :f :txn, :value [[:append :y 1] [:r :x [1]]], :index 20, :process 1}
{:type :ok, :f :txn, :value [[:r :x [1]] [:r :y [1]]], :index 10, :process 2}
$$) AS ooo \gset
CREATE TEMP TABLE ooo_image AS
  SELECT c.* FROM iso_levels(:ooo) l, iso_check(l.level, :ooo) c;
SET isograph.use_image = off;
CREATE TEMP TABLE ooo_events AS
  SELECT c.* FROM iso_levels(:ooo) l, iso_check(l.level, :ooo) c;
RESET isograph.use_image;
SELECT (SELECT count(*) FROM ooo_image) AS witness_rows,
       (SELECT count(*) FROM ((TABLE ooo_image EXCEPT ALL TABLE ooo_events)
                              UNION ALL (TABLE ooo_events EXCEPT ALL TABLE ooo_image)) d) AS differences;
SELECT anomaly, cycle, edge_types, keys FROM iso_check('pl-2', :ooo);

-- nothing is stored
SELECT count(*) AS histories_before FROM iso_history \gset
SELECT count(*) AS levels FROM iso_levels_jepsen('{:type :ok, :value [[:append 1 1] [:r 1 [1]]]}');
SELECT count(*) - :histories_before AS histories_added FROM iso_history;

-- the same errors as iso_load_jepsen
SELECT * FROM iso_levels_jepsen(NULL);
SELECT * FROM iso_levels_jepsen('{:type :ok, :value [[:append 1 1]]', 'list-append');
SELECT * FROM iso_levels_jepsen('', 'bank');
SELECT * FROM iso_levels_jepsen('');
SELECT count(*) FILTER (WHERE holds) AS holding FROM iso_levels_jepsen('', 'list-append');
-- two transactions with one id (the second completion has :index 1 again,
-- arriving out of order): iso_load_jepsen's primary key refuses it too
\set VERBOSITY terse
SELECT * FROM iso_levels_jepsen($$
{:type :ok, :value [[:append 1 1]], :index 5}
{:type :ok, :value [[:append 1 2]], :index 1}
{:type :ok, :value [[:append 1 3]], :index 1}
$$);
SELECT iso_load_jepsen('dup', $$
{:type :ok, :value [[:append 1 1]], :index 5}
{:type :ok, :value [[:append 1 2]], :index 1}
{:type :ok, :value [[:append 1 3]], :index 1}
$$);
\set VERBOSITY default

-- Texts read from a table: toasted (out of line and compressed), compressed
-- inline, and short inline.  A detoasted text is the call's own copy,
-- freed once parsed; any other belongs to the executor and must stay as it
-- is.  Each row's verdicts equal those of the same text made anew (t.edn
-- || '': never freed), row for row, and the table reads the same after.
CREATE TEMP TABLE edn_texts (name text, edn text);
INSERT INTO edn_texts
SELECT n || ' txns', string_agg(format('{:type :ok, :value [[:append %s 1] [:r %s [1]] [:r %s nil] [:r %s nil]], :process %s}',
                                       i, i, i + 1, i - 1, i % 3), E'\n' ORDER BY i)
  FROM (VALUES (2000), (60), (1)) v(n), generate_series(1, n) i
 GROUP BY n;
SELECT name, octet_length(edn) AS bytes, pg_column_size(edn) < octet_length(edn) AS compressed
  FROM edn_texts ORDER BY octet_length(edn);
SELECT md5(string_agg(edn, '|' ORDER BY name)) AS texts_md5 FROM edn_texts \gset
SELECT t.name, string_agg(l.level || '=' || l.holds, ' ' ORDER BY l.level) AS verdicts
  FROM edn_texts t, iso_levels_jepsen(t.edn) l
 GROUP BY t.name ORDER BY t.name;
SELECT t.name,
       (SELECT count(*) FROM ((SELECT level, holds, violations, strongest, note FROM iso_levels_jepsen(t.edn)
                               EXCEPT ALL SELECT level, holds, violations, strongest, note FROM iso_levels_jepsen(t.edn || ''))
                              UNION ALL
                              (SELECT level, holds, violations, strongest, note FROM iso_levels_jepsen(t.edn || '')
                               EXCEPT ALL SELECT level, holds, violations, strongest, note FROM iso_levels_jepsen(t.edn))) d) AS differences
  FROM edn_texts t ORDER BY t.name;
SELECT md5(string_agg(edn, '|' ORDER BY name)) = :'texts_md5' AS texts_unchanged,
       sum(length(edn)) AS characters
  FROM edn_texts;

-- leave no histories behind for the files that follow
SELECT count(iso_delete_history(history_id)) AS deleted FROM iso_history
 WHERE name LIKE 'levels_jepsen %' OR name = 'out of order';
