-- Agreement with Elle: the history-level cases of Elle's own test suite
-- (jepsen-io/elle, test/elle/list_append_test.clj, rw_register_test.clj,
-- txn_test.clj, core_test.clj), transcribed by hand into EDN, checked with
-- isograph, and compared with what Elle's tests assert.
--
-- One row of elle_case per Elle assertion: the history, the Elle options the
-- assertion used (mapped to an isograph level, a scope of anomaly names, or
-- an edge comparison), and Elle's :valid? and :anomaly-types. isograph's
-- answer is computed below, never written down; expected/elle.out records
-- it. Why a case differs is in elle_reason (keyed by case name, easy to
-- edit); cases Elle's files hold that are about Elle's internals are listed
-- in elle_skipped.
--
-- Transcription conventions (ours, not Elle's):
-- - Elle's op helpers write [:r :x] for a read of nothing: we write
--   [:r :x nil]. Their :time 0 is dropped: Elle takes real-time order from
--   the order of records, never from :time.
-- - Records keep Elle's :process, :index and :type; txn ids are the
--   completion's :index, else its 0-based record position (isograph's rule),
--   which is how the expected edges below name transactions.
SET client_min_messages = warning;
\set SHOW_CONTEXT never

-- Elle's anomaly names and isograph's. ignored: an Elle-only status, not an
-- anomaly, dropped before comparing. isograph NULL and not ignored: Elle
-- finds something isograph has no name (and no check) for.
CREATE TEMP TABLE elle_name (
	elle     text PRIMARY KEY,
	isograph text,
	ignored  boolean NOT NULL DEFAULT false,
	note     text
);
INSERT INTO elle_name VALUES
	('G0',                          'G0',                     false, NULL),
	('G0-process',                  'G0-process',             false, NULL),
	('G0-realtime',                 'G0-realtime',            false, NULL),
	('G1a',                         'G1a',                    false, NULL),
	('G1b',                         'G1b',                    false, NULL),
	('G1c',                         'G1c',                    false, NULL),
	('G1c-process',                 'G1c-process',            false, NULL),
	('G1c-realtime',                'G1c-realtime',           false, NULL),
	('G-single',                    'G-single',               false, 'rw-register cycles with one rw edge'),
	('G-single-item',               'G-single',               false, 'list-append: item (non-predicate) rw edges; isograph has no predicates, so every cycle is an item cycle'),
	('G-single-process',            'G-single-process',       false, NULL),
	('G-single-item-process',       'G-single-process',       false, NULL),
	('G-single-realtime',           'G-single-realtime',      false, NULL),
	('G-single-item-realtime',      'G-single-realtime',      false, NULL),
	('G-nonadjacent',               'G-nonadjacent',          false, NULL),
	('G-nonadjacent-item',          'G-nonadjacent',          false, NULL),
	('G-nonadjacent-process',       'G-nonadjacent-process',  false, NULL),
	('G-nonadjacent-item-process',  'G-nonadjacent-process',  false, NULL),
	('G-nonadjacent-realtime',      'G-nonadjacent-realtime', false, NULL),
	('G-nonadjacent-item-realtime', 'G-nonadjacent-realtime', false, NULL),
	('G2-item',                     'G2-item',                false, NULL),
	('G2-item-process',             'G2-item-process',        false, NULL),
	('G2-item-realtime',            'G2-item-realtime',       false, NULL),
	('G2',                          'G2-item',                false, 'Elle: a G2 cycle with predicate edges; isograph histories have no predicates'),
	('lost-update',                 'lost-update',            false, NULL),
	('internal',                    'internal',               false, NULL),
	('dirty-update',                'dirty-update',           false, NULL),
	('incompatible-order',          'incompatible-order',     false, NULL),
	('duplicate-elements',          'duplicate-elements',     false, NULL),
	('cyclic-versions',             'cyclic-versions',        false, NULL),
	('future-read',                 'future-read',            false, NULL),
	('empty-transaction-graph',     NULL,                     true,  'Elle-only: makes :valid? :unknown when no transaction has an edge; isograph just checks the empty graph'),
	('garbage-read',                'garbage-read',           false, 'isograph-only name: Elle''s tests have no such anomaly');

-- Elle's :consistency-models and isograph's levels. Elle's default ({}) is
-- strict-serializable.
CREATE TEMP TABLE elle_model (model text PRIMARY KEY, level text NOT NULL);
INSERT INTO elle_model VALUES
	('read-uncommitted', 'pl-1'), ('read-committed', 'pl-2'),
	('repeatable-read', 'pl-2.99'), ('snapshot-isolation', 'si'),
	('serializable', 'ser'),
	('strong-session-snapshot-isolation', 'strong-session-si'),
	('strict-serializable', 'strict-serializable');

-- Scopes: the Elle anomaly names an assertion can see when it asks for
-- :anomalies instead of a model (Elle reports every anomaly implying one
-- asked for, per elle.consistency-model's implied-anomalies), or when it
-- calls one detector or analyzer directly. isograph checks at ser (no so or
-- rt edges, as Elle adds none for these) and keeps only these names.
CREATE TEMP TABLE elle_scope (scope text, elle text, PRIMARY KEY (scope, elle));
INSERT INTO elle_scope
SELECT s, unnest(a) FROM (VALUES
	(':anomalies [:G0]',       '{G0}'::text[]),
	(':anomalies [:G1]',       '{G0,G1a,G1b,G1c,incompatible-order,dirty-update,future-read}'),
	(':anomalies [:G2]',       '{G-single,G-single-item,G-nonadjacent,G-nonadjacent-item,G2-item,G2,lost-update}'),
	(':anomalies [:G-single]', '{G-single,G-single-item}'),
	(':anomalies [:internal]', '{internal}'),
	(':anomalies [:dirty-update]', '{dirty-update}'),
	('g1a-cases',              '{G1a}'),
	('g1b-cases',              '{G1b}'),
	('internal-cases',         '{internal,future-read}'),
	('wr-graph analyzer',      '{G1c}'),
	('graph analyzer',         '{G0,G1c,G-single,G-nonadjacent,G2-item}')
) v(s, a);

-- The cases. Exactly one of model / scope / edges says what is compared:
--   model: Elle's :consistency-models; isograph's anomalies at those levels
--   scope: see elle_scope
--   edges: Elle asserts a graph; isograph's edges of these types, as
--          'from->to' txn ids
-- gucs: Elle's :sequential-keys? / :linearizable-keys?, run with isograph's
-- isograph.assume_sequential_keys / assume_linearizable_keys.
-- elle: Elle's :anomaly-types (Elle's names), or its edges, or '{error}'.
CREATE TEMP TABLE elle_case (
	ord        serial,
	name       text PRIMARY KEY,
	deftest    text NOT NULL,
	workload   text NOT NULL,
	model      text,  -- Elle model names, space-separated (elle_model)
	scope      text,
	edges      text[],
	gucs       text CHECK (gucs IN ('sequential-keys', 'linearizable-keys')),
	elle_valid text NOT NULL CHECK (elle_valid IN ('true', 'false', 'unknown', 'error', 'graph')),
	elle       text[] NOT NULL,
	edn        text NOT NULL,
	CHECK (num_nonnulls(model, scope, edges) = 1)
);

------------------------------------------------------------------------
-- list_append_test.clj
------------------------------------------------------------------------
-- ww-graph-test: ax1, ax2, rx12 -> ww {t1 -> t2}
INSERT INTO elle_case (name, deftest, workload, edges, elle_valid, elle, edn) VALUES
('la ww-graph', 'list_append_test/ww-graph-test write-write', 'list-append', '{ww}', 'graph', '{0->1}', $$
{:process 0, :type :ok, :f :txn, :value [[:append :x 1]]}
{:process 0, :type :ok, :f :txn, :value [[:append :x 2]]}
{:process 0, :type :ok, :f :txn, :value [[:r :x [1 2]]]}
$$),
-- wr-graph-test: ax1, rx1, ax2, rx12 -> wr {t1 -> t2, t3 -> t4}
('la wr-graph basic read', 'list_append_test/wr-graph-test basic read', 'list-append', '{wr}', 'graph', '{0->1,2->3}', $$
{:process 0, :type :ok, :f :txn, :value [[:append :x 1]]}
{:process 0, :type :ok, :f :txn, :value [[:r :x [1]]]}
{:process 0, :type :ok, :f :txn, :value [[:append :x 2]]}
{:process 0, :type :ok, :f :txn, :value [[:r :x [1 2]]]}
$$),
-- graph-test: Elle's list-append `graph` analyzer (ww + wr + rw)
('la graph empty history', 'list_append_test/graph-test empty history', 'list-append', '{ww,wr,rw}', 'graph', '{}', ''),
('la graph one append', 'list_append_test/graph-test one append', 'list-append', '{ww,wr,rw}', 'graph', '{}', $$
{:process 0, :type :ok, :value [[:append :x 1]]}
$$),
('la graph empty read', 'list_append_test/graph-test empty read', 'list-append', '{ww,wr,rw}', 'graph', '{}', $$
{:process 0, :type :ok, :value [[:r :x nil]]}
$$),
('la graph one append one read', 'list_append_test/graph-test one append one read', 'list-append', '{ww,wr,rw}', 'graph', '{0->1}', $$
{:process 0, :type :ok, :value [[:append :x 1]]}
{:process 0, :type :ok, :value [[:r :x [1]]]}
$$),
('la graph read empty, append, read', 'list_append_test/graph-test read empty, append, read', 'list-append', '{ww,wr,rw}', 'graph', '{0->1,1->2}', $$
{:process 0, :type :ok, :value [[:r :x nil]]}
{:process 0, :type :ok, :value [[:append :x 1]]}
{:process 0, :type :ok, :value [[:r :x [1]]]}
$$),
('la graph append, append, read', 'list_append_test/graph-test append, append, read', 'list-append', '{ww,wr,rw}', 'graph', '{0->2,1->0}', $$
{:process 0, :type :ok, :value [[:append :x 2]]}
{:process 0, :type :ok, :value [[:append :x 1]]}
{:process 0, :type :ok, :value [[:r :x [1 2]]]}
$$),
('la graph Adya figure 3', 'list_append_test/graph-test serializable figure 3 from Adya, Liskov, O''Neil', 'list-append', '{ww,wr,rw}', 'graph', '{0->1,0->2,1->2,2->3}', $$
{:process 0, :type :ok, :value [[:append :z 1] [:append :x 1] [:append :y 1]]}
{:process 0, :type :ok, :value [[:r :x [1]] [:append :y 2]]}
{:process 0, :type :ok, :value [[:r :y [1 2]] [:append :z 3]]}
{:process 0, :type :ok, :value [[:r :z [1 3]]]}
$$),
('la graph G0', 'list_append_test/graph-test G0: write cycle', 'list-append', '{ww,wr,rw}', 'graph', '{0->1,0->2,1->0,1->2}', $$
{:process 0, :type :ok, :value [[:append :x 1] [:append :y 1]]}
{:process 0, :type :ok, :value [[:append :x 2] [:append :y 2]]}
{:process 0, :type :ok, :value [[:r :x [1 2]] [:r :y [2 1]]]}
$$),
('la graph G1c', 'list_append_test/graph-test G1c: circular information flow', 'list-append', '{ww,wr,rw}', 'graph', '{0->1,1->0,1->2}', $$
{:process 0, :type :ok, :value [[:append :x 1] [:r :y [1]]]}
{:process 0, :type :ok, :value [[:append :x 2] [:append :y 1]]}
{:process 0, :type :ok, :value [[:r :x [1 2]]]}
$$),
('la graph G2', 'list_append_test/graph-test G2: anti-dependency cycle (graph)', 'list-append', '{ww,wr,rw}', 'graph', '{0->1,0->2,1->0,1->2}', $$
{:process 0, :type :ok, :value [[:r :x nil] [:append :y 1]]}
{:process 0, :type :ok, :value [[:r :y nil] [:append :x 1]]}
{:process 0, :type :ok, :value [[:r :x [1]] [:r :y [1]]]}
$$),
('la graph info reads', 'list_append_test/graph-test info reads', 'list-append', '{ww,wr,rw}', 'graph', '{0->2,1->0,1->2}', $$
{:type :info, :value [[:append :x 2] [:r :y nil]]}
{:type :ok,   :value [[:append :x 1] [:append :y 1]]}
{:type :ok,   :value [[:r :x [1 2]] [:r :y [1]]]}
$$),
('la graph single appends without reads', 'list_append_test/graph-test single appends without reads', 'list-append', '{ww,wr,rw}', 'graph', '{0->1}', $$
{:process 0, :type :ok, :value [[:r :x nil]]}
{:process 0, :type :ok, :value [[:append :x 1]]}
$$),
('la graph multiple appends without reads', 'list_append_test/graph-test multiple appends without reads', 'list-append', '{ww,wr,rw}', 'graph', '{0->1,0->2}', $$
{:process 0, :type :ok, :value [[:r :x nil]]}
{:process 0, :type :ok, :value [[:append :x 1]]}
{:process 0, :type :ok, :value [[:append :x 2]]}
$$);
-- graph-test "G2", second assertion: (elle/check {:analyzer graph}) finds
-- one cycle; its explanation is two rw edges (G2-item)
INSERT INTO elle_case (name, deftest, workload, scope, elle_valid, elle, edn) VALUES
('la graph G2 check', 'list_append_test/graph-test G2: anti-dependency cycle (elle/check)', 'list-append', 'graph analyzer', 'false', '{G2-item}', $$
{:process 0, :type :ok, :value [[:r :x nil] [:append :y 1]]}
{:process 0, :type :ok, :value [[:r :y nil] [:append :x 1]]}
{:process 0, :type :ok, :value [[:r :x [1]] [:r :y [1]]]}
$$);
-- graph-test "duplicate inserts attempts": Elle throws :duplicate-appends
INSERT INTO elle_case (name, deftest, workload, edges, elle_valid, elle, edn) VALUES
('la graph duplicate appends', 'list_append_test/graph-test duplicate inserts attempts', 'list-append', '{ww,wr,rw}', 'error', '{error}', $$
{:index 0, :type :invoke, :value [[:append :x 1] [:r :y nil]]}
{:index 1, :type :invoke, :value [[:append :y 2] [:append :x 1]], :f nil, :time -1, :process nil}
$$);

-- g1a-cases-test, g1b-cases-test, internal-cases-test: Elle calls one
-- detector; we compare only the anomaly it detects.
INSERT INTO elle_case (name, deftest, workload, scope, elle_valid, elle, edn) VALUES
('la g1a-cases empty', 'list_append_test/g1a-cases-test empty', 'list-append', 'g1a-cases', 'true', '{}', ''),
('la g1a-cases valid and invalid reads', 'list_append_test/g1a-cases-test valid and invalid reads', 'list-append', 'g1a-cases', 'false', '{G1a}', $$
{:process 0, :type :ok, :value [[:r :x [1]] [:append :x 2]]}
{:process 0, :type :ok, :value [[:r :x [1 2]] [:r :y [3]]]}
{:process 0, :type :fail, :value [[:append :x 1]]}
$$),
('la g1b-cases empty', 'list_append_test/g1b-cases-test empty', 'list-append', 'g1b-cases', 'true', '{}', ''),
('la g1b-cases valid and invalid reads', 'list_append_test/g1b-cases-test valid and invalid reads', 'list-append', 'g1b-cases', 'false', '{G1b}', $$
{:process 0, :type :ok, :value [[:r :x [1]]]}
{:process 0, :type :ok, :value [[:r :x [1 2]] [:r :y [3]]]}
{:process 0, :type :ok, :value [[:append :x 1] [:append :x 2]]}
{:process 0, :type :ok, :value [[:r :x [1 2 3]]]}
$$),
('la g1b-cases internal reads', 'list_append_test/g1b-cases-test internal reads', 'list-append', 'g1b-cases', 'true', '{}', $$
{:process 0, :type :ok, :value [[:append :x 1] [:r :x [1]] [:append :x 2]]}
$$),
('la internal-cases empty', 'list_append_test/internal-cases-test empty', 'list-append', 'internal-cases', 'true', '{}', ''),
('la internal-cases good', 'list_append_test/internal-cases-test good', 'list-append', 'internal-cases', 'true', '{}', $$
{:process 0, :type :ok, :value [[:r :y [5 6]] [:append :x 3] [:r :x [1 2 3]] [:append :x 4] [:r :x [1 2 3 4]]]}
$$),
-- read-append-read and append-read reuse [:append :x 3] in every
-- transaction (Elle checks each transaction on its own): one history each
('la internal-cases read-append-read stale', 'list_append_test/internal-cases-test read-append-read (stale)', 'list-append', 'internal-cases', 'false', '{internal}', $$
{:process 0, :type :ok, :value [[:r :x [1 2]] [:append :x 3] [:r :x [1 2]]]}
$$),
('la internal-cases read-append-read bad-prefix', 'list_append_test/internal-cases-test read-append-read (bad-prefix)', 'list-append', 'internal-cases', 'false', '{internal}', $$
{:process 0, :type :ok, :value [[:r :x [1 2]] [:append :x 3] [:r :x [0 2 3]]]}
$$),
('la internal-cases read-append-read extension', 'list_append_test/internal-cases-test read-append-read (extension)', 'list-append', 'internal-cases', 'false', '{internal}', $$
{:process 0, :type :ok, :value [[:r :x [1 2]] [:append :x 3] [:r :x [1 2 3 4]]]}
$$),
('la internal-cases read-append-read short-read', 'list_append_test/internal-cases-test read-append-read (short-read)', 'list-append', 'internal-cases', 'false', '{internal}', $$
{:process 0, :type :ok, :value [[:r :x [1 2]] [:append :x 3] [:r :x [1]]]}
$$),
('la internal-cases append-read disagreement', 'list_append_test/internal-cases-test append-read (disagreement)', 'list-append', 'internal-cases', 'false', '{internal}', $$
{:process 0, :type :ok, :value [[:append :x 3] [:r :x [1 2 3 4]]]}
$$),
('la internal-cases append-read short-read', 'list_append_test/internal-cases-test append-read (short-read)', 'list-append', 'internal-cases', 'false', '{internal}', $$
{:process 0, :type :ok, :value [[:append :x 3] [:r :x []]]}
$$),
('la internal-cases FaunaDB example', 'list_append_test/internal-cases-test FaunaDB example', 'list-append', 'internal-cases', 'false', '{internal}', $$
{:type :invoke, :f :txn, :value [[:append 0 6] [:r 0 nil]], :process 1, :index 20, :time 1}
{:type :ok, :f :txn, :value [[:append 0 6] [:r 0 nil]], :process 1, :index 21, :time 2}
$$),
('la internal-cases future read external', 'list_append_test/internal-cases-test future read external', 'list-append', 'internal-cases', 'false', '{future-read}', $$
{:process 0, :type :invoke, :value [[:r :x nil] [:append :x 1]]}
{:process 0, :type :ok, :value [[:r :x [0 1 2]] [:append :x 1]]}
$$),
('la internal-cases future read internal', 'list_append_test/internal-cases-test future read internal', 'list-append', 'internal-cases', 'false', '{future-read}', $$
{:process 0, :type :invoke, :value [[:append :x 1] [:r :x nil] [:append :x 0] [:append :x 3]]}
{:process 0, :type :ok, :value [[:append :x 1] [:r :x [0 1]] [:append :x 0] [:append :x 3]]}
$$);

-- checker-test: one history per testing block, one case per assertion
CREATE TEMP TABLE la_h (h text PRIMARY KEY, edn text);
INSERT INTO la_h VALUES
('G0', $$
{:process 0, :type :ok, :value [[:append :x 1] [:append :y 1]]}
{:process 0, :type :ok, :value [[:append :x 2] [:append :y 2]]}
{:process 0, :type :ok, :value [[:r :x [1 2]] [:r :y [2 1]]]}
$$),
('G1a', $$
{:process 0, :type :fail, :value [[:append :x 1]]}
{:process 0, :type :ok, :value [[:r :x [1]]]}
$$),
('G1b', $$
{:process 0, :type :invoke, :value [[:append :x 1] [:append :x 2]]}
{:process 0, :type :ok, :value [[:append :x 1] [:append :x 2]]}
{:process 0, :type :invoke, :value [[:r :x nil]]}
{:process 0, :type :ok, :value [[:r :x [1]]]}
$$),
('G1c', $$
{:process 0, :type :ok, :value [[:append :x 1] [:r :y [1]]]}
{:process 0, :type :ok, :value [[:append :x 2] [:append :y 1]]}
{:process 0, :type :ok, :value [[:r :x [1 2]] [:r :y [1]]]}
$$),
('G-single', $$
{:process 0, :type :ok, :value [[:append :x 1] [:append :y 1]]}
{:process 0, :type :ok, :value [[:append :x 2] [:r :y nil]]}
{:process 0, :type :ok, :value [[:r :x [1 2]]]}
$$),
('G2', $$
{:process 0, :type :ok, :value [[:append :x 1] [:r :y nil]]}
{:process 0, :type :ok, :value [[:append :y 1] [:r :x nil]]}
$$),
('Strong SI violation', $$
{:process 0, :index 0, :type :invoke, :value [[:append :x 1]]}
{:process 0, :index 1, :type :ok,     :value [[:append :x 1]]}
{:process 1, :index 2, :type :invoke, :value [[:append :x 2]]}
{:process 1, :index 3, :type :ok,     :value [[:append :x 2]]}
{:process 2, :index 4, :type :invoke, :value [[:r :x nil]]}
{:process 2, :index 5, :type :ok,     :value [[:r :x [1]]]}
{:process 3, :index 6, :type :invoke, :value [[:r :x nil]]}
{:process 3, :index 7, :type :ok,     :value [[:r :x [1 2]]]}
$$),
('Strong Session SI violation', $$
{:process 0, :index 0, :type :invoke, :value [[:append :x 1]]}
{:process 0, :index 1, :type :ok,     :value [[:append :x 1]]}
{:process 1, :index 2, :type :invoke, :value [[:append :x 2]]}
{:process 1, :index 3, :type :ok,     :value [[:append :x 2]]}
{:process 1, :index 4, :type :invoke, :value [[:r :x nil]]}
{:process 1, :index 5, :type :ok,     :value [[:r :x [1]]]}
{:process 2, :index 6, :type :invoke, :value [[:r :x nil]]}
{:process 2, :index 7, :type :ok,     :value [[:r :x [1 2]]]}
$$),
('G-nonadjacent-process', $$
{:process 0, :index 0, :type :invoke, :value [[:r :x nil] [:r :z nil]]}
{:process 0, :index 1, :type :ok,     :value [[:r :x nil] [:r :z [1]]]}
{:process 1, :index 2, :type :invoke, :value [[:append :x 1]]}
{:process 1, :index 3, :type :ok,     :value [[:append :x 1]]}
{:process 1, :index 4, :type :invoke, :value [[:r :z nil]]}
{:process 1, :index 5, :type :ok,     :value [[:r :z nil]]}
{:process 2, :index 6, :type :invoke, :value [[:append :z 1]]}
{:process 2, :index 7, :type :ok,     :value [[:append :z 1]]}
$$),
('contradictory read orders', $$
{:process 0, :type :ok, :value [[:append :x 1] [:r :y [1]]]}
{:process 0, :type :ok, :value [[:append :x 2]]}
{:process 0, :type :ok, :value [[:append :x 3] [:append :y 1]]}
{:process 0, :type :ok, :value [[:r :x [1 3]]]}
{:process 0, :type :ok, :value [[:r :x [1 2 3]]]}
$$),
('dirty update none', $$
{:process 0, :type :fail, :value [[:append :x 1]]}
$$),
('dirty update direct', $$
{:process 0, :type :fail, :value [[:append :x 1]]}
{:process 1, :type :ok,   :value [[:append :x 2]]}
{:process 2, :type :ok,   :value [[:r :x [1 2]]]}
$$),
('dirty update indirect', $$
{:process 0, :type :fail, :value [[:append :x 1]]}
{:process 1, :type :info, :value [[:append :x 2]]}
{:process 2, :type :ok,   :value [[:append :x 3]]}
{:process 3, :type :ok,   :value [[:r :x [1 2 3]]]}
$$),
('duplicated elements', $$
{:process 0, :type :ok, :value [[:append :x 1] [:r :y [1]]]}
{:process 0, :type :ok, :value [[:append :x 2] [:append :y 1]]}
{:process 0, :type :ok, :value [[:r :x [1 2 1]]]}
$$),
('internal consistency violation', $$
{:process 0, :type :ok, :value [[:append :x 1] [:append :x 2] [:append :x 4]]}
{:process 0, :type :ok, :value [[:append :x 3] [:r :x [1 2 3 4]]]}
$$);

INSERT INTO elle_case (name, deftest, workload, model, scope, elle_valid, elle, edn)
SELECT 'la checker ' || c.h || ' ' || c.opts, 'list_append_test/checker-test ' || c.h, 'list-append',
       c.model, c.scope, c.valid, c.elle, la_h.edn
  FROM (SELECT v.*, row_number() OVER () AS n FROM (VALUES
	('G0', '{:anomalies [:G0]}', NULL, ':anomalies [:G0]', 'false', '{G0}'::text[]),
	('G0', '{:anomalies [:G1]}', NULL, ':anomalies [:G1]', 'false', '{G0}'),
	('G0', '{:anomalies [:G2]}', NULL, ':anomalies [:G2]', 'true', '{}'),
	('G1a', '{:consistency-models [:read-uncommitted]}', 'read-uncommitted', NULL, 'unknown', '{empty-transaction-graph}'),
	('G1a', '{:consistency-models [:read-committed]}', 'read-committed', NULL, 'false', '{G1a,empty-transaction-graph}'),
	('G1a', '{:anomalies [:G2]}', NULL, ':anomalies [:G2]', 'unknown', '{empty-transaction-graph}'),
	('G1a', '{:consistency-models [:repeatable-read]}', 'repeatable-read', NULL, 'false', '{G1a,empty-transaction-graph}'),
	('G1b', '{:anomalies [:G0]}', NULL, ':anomalies [:G0]', 'true', '{}'),
	('G1b', '{:anomalies [:G1]}', NULL, ':anomalies [:G1]', 'false', '{G1b}'),
	('G1b', '{:anomalies [:G2]}', NULL, ':anomalies [:G2]', 'false', '{G-single-item}'),
	('G1b', '{:consistency-models [:strict-serializable]}', 'strict-serializable', NULL, 'false', '{G-single-item,G1b}'),
	('G1c', '{:anomalies [:G0]}', NULL, ':anomalies [:G0]', 'true', '{}'),
	('G1c', '{:anomalies [:G1]}', NULL, ':anomalies [:G1]', 'false', '{G1c}'),
	('G1c', '{:anomalies [:G2]}', NULL, ':anomalies [:G2]', 'true', '{}'),
	('G-single', '{:anomalies [:G0]}', NULL, ':anomalies [:G0]', 'true', '{}'),
	('G-single', '{:anomalies [:G1]}', NULL, ':anomalies [:G1]', 'true', '{}'),
	('G-single', '{:anomalies [:G-single]}', NULL, ':anomalies [:G-single]', 'false', '{G-single-item}'),
	('G-single', '{:anomalies [:G2]}', NULL, ':anomalies [:G2]', 'false', '{G-single-item}'),
	('G2', '{:anomalies [:G0]}', NULL, ':anomalies [:G0]', 'true', '{}'),
	('G2', '{:anomalies [:G1]}', NULL, ':anomalies [:G1]', 'true', '{}'),
	('G2', '{:consistency-models [:read-committed]}', 'read-committed', NULL, 'true', '{}'),
	('G2', '{:anomalies [:G2]}', NULL, ':anomalies [:G2]', 'false', '{G2-item}'),
	('G2', '{:consistency-models [:serializable]}', 'serializable', NULL, 'false', '{G2-item}'),
	('G2', '{:consistency-models [:repeatable-read]}', 'repeatable-read', NULL, 'false', '{G2-item}'),
	('Strong SI violation', '{:anomalies [:G2]}', NULL, ':anomalies [:G2]', 'true', '{}'),
	('Strong SI violation', '{:consistency-models [:serializable]}', 'serializable', NULL, 'true', '{}'),
	('Strong SI violation', '{:consistency-models [:strict-serializable]}', 'strict-serializable', NULL, 'false', '{G-single-item-realtime}'),
	('Strong Session SI violation', '{:consistency-models [:serializable]}', 'serializable', NULL, 'true', '{}'),
	('Strong Session SI violation', '{:consistency-models [:strong-session-snapshot-isolation]}', 'strong-session-snapshot-isolation', NULL, 'false', '{G-single-item-process}'),
	('G-nonadjacent-process', '{:consistency-models [:serializable]}', 'serializable', NULL, 'true', '{}'),
	('G-nonadjacent-process', '{:consistency-models [:strong-session-snapshot-isolation]}', 'strong-session-snapshot-isolation', NULL, 'false', '{G-nonadjacent-item-process}'),
	('contradictory read orders', '{:anomalies [:G1]}', NULL, ':anomalies [:G1]', 'false', '{G1c,incompatible-order}'),
	('dirty update none', '{:anomalies [:dirty-update]}', NULL, ':anomalies [:dirty-update]', 'unknown', '{empty-transaction-graph}'),
	('dirty update direct', '{:anomalies [:dirty-update]}', NULL, ':anomalies [:dirty-update]', 'false', '{dirty-update}'),
	('dirty update indirect', '{:anomalies [:dirty-update]}', NULL, ':anomalies [:dirty-update]', 'false', '{dirty-update}'),
	('duplicated elements', '{:consistency-models [:read-committed]}', 'read-committed', NULL, 'false', '{G1c,duplicate-elements}'),
	('internal consistency violation', '{:anomalies [:internal]}', NULL, ':anomalies [:internal]', 'false', '{internal}')
  ) v(h, opts, model, scope, valid, elle)) c
  JOIN la_h USING (h)
 ORDER BY c.n;

INSERT INTO elle_case (name, deftest, workload, model, elle_valid, elle, edn) VALUES
-- unobserved-write-test: five concurrent transactions. Elle's pair helper
-- leaves all of them on process 0 with five pending invocations; a Jepsen
-- process runs one transaction at a time (isograph pairs invocations with
-- completions by process), so each gets its own process here.
('la unobserved-write {:consistency-models [:serializable]}', 'list_append_test/unobserved-write-test', 'list-append', 'serializable', 'false', '{G-single-item,G0}', $$
{:process 0, :type :invoke, :value [[:append :x 1] [:append :y 1]]}
{:process 1, :type :invoke, :value [[:append :x 2] [:append :y 2]]}
{:process 2, :type :invoke, :value [[:append :x 3] [:append :y 3]]}
{:process 3, :type :invoke, :value [[:r :x nil]]}
{:process 4, :type :invoke, :value [[:r :y nil]]}
{:process 0, :type :ok, :value [[:append :x 1] [:append :y 1]]}
{:process 1, :type :ok, :value [[:append :x 2] [:append :y 2]]}
{:process 2, :type :ok, :value [[:append :x 3] [:append :y 3]]}
{:process 3, :type :ok, :value [[:r :x [1 2]]]}
{:process 4, :type :ok, :value [[:r :y [2]]]}
$$),
-- repeatable-read-test
('la repeatable-read {:consistency-models [:read-committed]}', 'list_append_test/repeatable-read-test', 'list-append', 'read-committed', 'true', '{}', $$
{:process 0, :type :ok, :value [[:r :x nil] [:append :y 1]]}
{:process 0, :type :ok, :value [[:r :y nil] [:append :x 1]]}
$$),
('la repeatable-read {:consistency-models [:repeatable-read]}', 'list_append_test/repeatable-read-test', 'list-append', 'repeatable-read', 'false', '{G2-item}', $$
{:process 0, :type :ok, :value [[:r :x nil] [:append :y 1]]}
{:process 0, :type :ok, :value [[:r :y nil] [:append :x 1]]}
$$),
-- G-nonadjacent-test
('la G-nonadjacent {}', 'list_append_test/G-nonadjacent-test (first history)', 'list-append', 'strict-serializable', 'false', '{G-nonadjacent-item}', $$
{:process 0, :type :invoke, :value [[:append :x 1]]}
{:process 0, :type :ok, :value [[:append :x 1]]}
{:process 0, :type :invoke, :value [[:r :x nil] [:r :y nil]]}
{:process 0, :type :ok, :value [[:r :x [1]] [:r :y nil]]}
{:process 0, :type :invoke, :value [[:append :y 1]]}
{:process 0, :type :ok, :value [[:append :y 1]]}
{:process 0, :type :invoke, :value [[:r :y nil] [:r :x nil]]}
{:process 0, :type :ok, :value [[:r :y [1]] [:r :x nil]]}
$$),
('la G-nonadjacent adjacent rw {:consistency-models [:snapshot-isolation]}', 'list_append_test/G-nonadjacent-test (rw rw wr rw wr)', 'list-append', 'snapshot-isolation', 'true', '{}', $$
{:process 0, :type :invoke, :value [[:r :x nil] [:append :y 1]]}
{:process 0, :type :ok, :value [[:r :x [5]] [:append :y 1]]}
{:process 0, :type :invoke, :value [[:r :y nil] [:append :z 2]]}
{:process 0, :type :ok, :value [[:r :y nil] [:append :z 2]]}
{:process 0, :type :invoke, :value [[:r :z nil] [:append :t 3]]}
{:process 0, :type :ok, :value [[:r :z nil] [:append :t 3]]}
{:process 0, :type :invoke, :value [[:r :t nil] [:append :u 4]]}
{:process 0, :type :ok, :value [[:r :t [3]] [:append :u 4]]}
{:process 0, :type :invoke, :value [[:r :u nil] [:append :x 5]]}
{:process 0, :type :ok, :value [[:r :u nil] [:append :x 5]]}
$$),
-- lost-update-test
('la lost-update {}', 'list_append_test/lost-update-test', 'list-append', 'strict-serializable', 'false', '{G2-item,lost-update}', $$
{:process 0, :type :invoke, :value [[:append :x 0]]}
{:process 0, :type :ok, :value [[:append :x 0]]}
{:process 0, :type :invoke, :value [[:r :x nil] [:append :x 1]]}
{:process 0, :type :ok, :value [[:r :x [0]] [:append :x 1]]}
{:process 0, :type :invoke, :value [[:r :x nil] [:append :x 2]]}
{:process 0, :type :ok, :value [[:r :x [0]] [:append :x 2]]}
$$),
('la lost-update one txn, double write {}', 'list_append_test/lost-update-test one txn, double write', 'list-append', 'strict-serializable', 'true', '{}', $$
{:process 0, :type :invoke, :value [[:r :x nil] [:append :x 1] [:append :x 2]]}
{:process 0, :type :ok, :value [[:r :x nil] [:append :x 1] [:append :x 2]]}
{:process 0, :type :invoke, :value [[:r :x nil]]}
{:process 0, :type :ok, :value [[:r :x [1 2]]]}
$$),
-- wr-process-test (Elle issue 21); the invocations' [:r :x] become [:r :x nil]
('la wr-process {:consistency-models [:strong-session-snapshot-isolation]}', 'list_append_test/wr-process-test', 'list-append', 'strong-session-snapshot-isolation', 'false', '{G1c-process}', $$
{:process 1, :type :invoke, :f :txn, :value [[:r :x nil] [:append :y 1]], :index 0}
{:process 1, :type :ok, :f :txn, :value [[:r :x [1]] [:append :y 1]], :index 1}
{:process 2, :type :invoke, :f :txn, :value [[:r :y nil]], :index 2}
{:process 2, :type :ok, :f :txn, :value [[:r :y [1]]], :index 3}
{:process 2, :type :invoke, :f :txn, :value [[:append :x 1]], :index 4}
{:process 2, :type :ok, :f :txn, :value [[:append :x 1]], :index 5}
$$),
-- rr-g-single-item-test
('la rr-g-single-item {:consistency-models [:repeatable-read]}', 'list_append_test/rr-g-single-item-test', 'list-append', 'repeatable-read', 'false', '{G-single-item}', $$
{:process 0, :type :invoke, :value [[:append :x 1] [:append :y 1]]}
{:process 0, :type :ok, :value [[:append :x 1] [:append :y 1]]}
{:process 0, :type :invoke, :value [[:r :x nil] [:r :y nil]]}
{:process 0, :type :ok, :value [[:r :x [1]] [:r :y nil]]}
$$),
-- rr-g-nonadjacent-item-test
('la rr-g-nonadjacent-item {:consistency-models [:repeatable-read]}', 'list_append_test/rr-g-nonadjacent-item-test', 'list-append', 'repeatable-read', 'false', '{G-nonadjacent-item}', $$
{:process 0, :type :invoke, :value [[:append :x 1] [:append :t 1]]}
{:process 0, :type :ok, :value [[:append :x 1] [:append :t 1]]}
{:process 0, :type :invoke, :value [[:r :x nil] [:r :y nil]]}
{:process 0, :type :ok, :value [[:r :x [1]] [:r :y nil]]}
{:process 0, :type :invoke, :value [[:append :y 1] [:append :z 2]]}
{:process 0, :type :ok, :value [[:append :y 1] [:append :z 2]]}
{:process 0, :type :invoke, :value [[:r :z nil] [:r :t nil]]}
{:process 0, :type :ok, :value [[:r :z [2]] [:r :t nil]]}
$$),
-- intermediate-sequential-extension-test: Elle's file
-- histories/si-without-g-single.edn, transcribed as it is (with its :time 0)
('la intermediate-sequential-extension {:consistency-models [:snapshot-isolation :repeatable-read]}', 'list_append_test/intermediate-sequential-extension-test', 'list-append', 'snapshot-isolation repeatable-read', 'false', '{G2-item}', $$
{:index 10, :time 0, :type :invoke, :process 2, :f :txn, :value [[:append 9 2]]}
{:index 11, :time 0, :type :ok, :process 2, :f :txn, :value [[:append 9 2]]}
{:index 20, :time 0, :type :invoke, :process 4, :f :txn, :value [[:append 8 1] [:r 9 nil]]}
{:index 21, :time 0, :type :ok, :process 4, :f :txn, :value [[:append 8 1] [:r 9 nil]]}
{:index 30, :time 0, :type :invoke, :process 7, :f :txn, :value [[:r 6 nil] [:r 8 nil] [:append 9 5]]}
{:index 31, :time 0, :type :ok, :process 7, :f :txn, :value [[:r 6 nil] [:r 8 nil] [:append 9 5]]}
{:index 40, :time 0, :type :invoke, :process 9, :f :txn, :value [[:append 6 2] [:r 9 nil]]}
{:index 41, :time 0, :type :ok, :process 9, :f :txn, :value [[:append 6 2] [:r 9 [2]]]}
$$),
-- future-read-test
('la future-read {:consistency-models [:read-committed]}', 'list_append_test/future-read-test', 'list-append', 'read-committed', 'false', '{empty-transaction-graph,future-read}', $$
{:process 0, :type :invoke, :f :txn, :value [[:r :x [1]] [:append :x 1]]}
{:process 0, :type :ok,     :f :txn, :value [[:r :x [1]] [:append :x 1]]}
$$);

------------------------------------------------------------------------
-- rw_register_test.clj (its op helper: :process 0, :type :ok)
------------------------------------------------------------------------
INSERT INTO elle_case (name, deftest, workload, scope, elle_valid, elle, edn) VALUES
('rw internal-cases empty', 'rw_register_test/internal-cases-test empty', 'rw-register', 'internal-cases', 'true', '{}', ''),
('rw internal-cases good', 'rw_register_test/internal-cases-test good', 'rw-register', 'internal-cases', 'true', '{}', $$
{:process 0, :type :ok, :value [[:r :y 2] [:w :x 2] [:r :x 2] [:w :x 1] [:r :x 1]]}
$$),
('rw internal-cases stale', 'rw_register_test/internal-cases-test stale', 'rw-register', 'internal-cases', 'false', '{internal}', $$
{:process 0, :type :ok, :value [[:r :x 1] [:w :x 2] [:r :x 1]]}
$$),
('rw g1a-cases empty', 'rw_register_test/g1a-cases-test empty', 'rw-register', 'g1a-cases', 'true', '{}', ''),
('rw g1a-cases good', 'rw_register_test/g1a-cases-test good', 'rw-register', 'g1a-cases', 'true', '{}', $$
{:process 0, :type :ok, :value [[:w :x 1]]}
{:process 0, :type :ok, :value [[:r :x 1]]}
$$),
('rw g1a-cases bad', 'rw_register_test/g1a-cases-test bad', 'rw-register', 'g1a-cases', 'false', '{G1a}', $$
{:process 0, :type :ok, :value [[:r :x 2]]}
{:process 0, :type :fail, :value [[:w :x 2]]}
$$),
('rw g1b-cases empty', 'rw_register_test/g1b-cases-test empty', 'rw-register', 'g1b-cases', 'true', '{}', ''),
('rw g1b-cases good', 'rw_register_test/g1b-cases-test good', 'rw-register', 'g1b-cases', 'true', '{}', $$
{:process 0, :type :ok, :value [[:w :x 1] [:w :x 2]]}
{:process 0, :type :ok, :value [[:r :x nil] [:r :x 2]]}
$$),
('rw g1b-cases bad', 'rw_register_test/g1b-cases-test bad', 'rw-register', 'g1b-cases', 'false', '{G1b}', $$
{:process 0, :type :ok, :value [[:r :x 2]]}
{:process 0, :type :ok, :value [[:w :x 2] [:w :x 1]]}
$$),
-- wr-graph-test: (elle/check {:analyzer wr-graph}); each txn is an
-- invoke/ok pair on process 0 with the same value
('rw wr-graph empty history', 'rw_register_test/wr-graph-test empty history', 'rw-register', 'wr-graph analyzer', 'true', '{}', $$
{:process 0, :type :invoke, :f :txn, :value []}
{:process 0, :type :ok, :f :txn, :value []}
$$),
('rw wr-graph write and read', 'rw_register_test/wr-graph-test write and read', 'rw-register', 'wr-graph analyzer', 'true', '{}', $$
{:process 0, :type :invoke, :f :txn, :value [[:w :x 0]]}
{:process 0, :type :ok, :f :txn, :value [[:w :x 0]]}
{:process 0, :type :invoke, :f :txn, :value [[:w :x 0]]}
{:process 0, :type :ok, :f :txn, :value [[:w :x 0]]}
$$),
('rw wr-graph chain on one register', 'rw_register_test/wr-graph-test chain on one register', 'rw-register', 'wr-graph analyzer', 'false', '{G1c}', $$
{:process 0, :type :invoke, :f :txn, :value [[:r :x 0] [:w :x 1]]}
{:process 0, :type :ok, :f :txn, :value [[:r :x 0] [:w :x 1]]}
{:process 0, :type :invoke, :f :txn, :value [[:r :x 1] [:w :x 0]]}
{:process 0, :type :ok, :f :txn, :value [[:r :x 1] [:w :x 0]]}
$$),
('rw wr-graph chain across two registers', 'rw_register_test/wr-graph-test chain across two registers', 'rw-register', 'wr-graph analyzer', 'false', '{G1c}', $$
{:process 0, :type :invoke, :f :txn, :value [[:r :x 0] [:w :y 1]]}
{:process 0, :type :ok, :f :txn, :value [[:r :x 0] [:w :y 1]]}
{:process 0, :type :invoke, :f :txn, :value [[:r :y 1] [:w :x 0]]}
{:process 0, :type :ok, :f :txn, :value [[:r :y 1] [:w :x 0]]}
$$),
('rw wr-graph write skew', 'rw_register_test/wr-graph-test write skew', 'rw-register', 'wr-graph analyzer', 'true', '{}', $$
{:process 0, :type :invoke, :f :txn, :value [[:r :x 0] [:r :y 0] [:w :x 1]]}
{:process 0, :type :ok, :f :txn, :value [[:r :x 0] [:r :y 0] [:w :x 1]]}
{:process 0, :type :invoke, :f :txn, :value [[:r :x 0] [:r :y 0] [:w :y 1]]}
{:process 0, :type :ok, :f :txn, :value [[:r :x 0] [:r :y 0] [:w :y 1]]}
$$);

-- checker-test
INSERT INTO elle_case (name, deftest, workload, model, scope, gucs, elle_valid, elle, edn) VALUES
('rw checker read of a value nobody wrote {strict-serializable, linearizable-keys}', 'rw_register_test/checker-test Read doesn''t return what was just been written', 'rw-register',
 'strict-serializable', NULL, 'linearizable-keys', 'true', '{}', $$
{:process 0, :type :invoke, :value [[:w :x 1]]}
{:process 0, :type :ok, :value [[:w :x 1]]}
{:process 0, :type :invoke, :value [[:r :x nil]]}
{:process 0, :type :ok, :value [[:r :x 2]]}
$$),
('rw checker read read {strict-serializable, linearizable-keys}', 'rw_register_test/checker-test Read read returns what was just been written', 'rw-register',
 'strict-serializable', NULL, 'linearizable-keys', 'false', '{cyclic-versions}', $$
{:process 0, :type :invoke, :value [[:w :x 1]]}
{:process 0, :type :ok, :value [[:w :x 1]]}
{:process 0, :type :invoke, :value [[:r :x nil]]}
{:process 0, :type :ok, :value [[:r :x 2]]}
{:process 0, :type :invoke, :value [[:r :x nil]]}
{:process 0, :type :ok, :value [[:r :x 1]]}
$$),
-- "G0", first assertion: the history is the two invocations alone
('rw checker G0 invocations only {:anomalies [:G0]}', 'rw_register_test/checker-test G0 (invocations only)', 'rw-register',
 NULL, ':anomalies [:G0]', NULL, 'unknown', '{empty-transaction-graph}', $$
{:process 0, :type :invoke, :value [[:w :x 1] [:w :y 2]]}
{:process 1, :type :invoke, :value [[:w :x 2] [:w :y 1]]}
$$),
('rw checker G0 {:anomalies [:G0], sequential-keys}', 'rw_register_test/checker-test G0 (with reads, sequential keys)', 'rw-register',
 NULL, ':anomalies [:G0]', 'sequential-keys', 'false', '{G0}', $$
{:process 0, :type :invoke, :value [[:w :x 1] [:w :y 2]]}
{:process 0, :type :ok, :value [[:w :x 1] [:w :y 2]]}
{:process 1, :type :invoke, :value [[:w :x 2] [:w :y 1]]}
{:process 1, :type :ok, :value [[:w :x 2] [:w :y 1]]}
{:process 0, :type :invoke, :value [[:r :x nil]]}
{:process 0, :type :ok, :value [[:r :x 2]]}
{:process 1, :type :invoke, :value [[:r :y nil]]}
{:process 1, :type :ok, :value [[:r :y 2]]}
$$),
('rw checker G1a {:anomalies [:G1]}', 'rw_register_test/checker-test G1a', 'rw-register',
 NULL, ':anomalies [:G1]', NULL, 'false', '{G1a,empty-transaction-graph}', $$
{:process 0, :type :ok, :value [[:r :x 1]]}
{:process 0, :type :fail, :value [[:w :x 1]]}
$$),
('rw checker G1b {:anomalies [:G0]}', 'rw_register_test/checker-test G1b', 'rw-register',
 NULL, ':anomalies [:G0]', NULL, 'unknown', '{empty-transaction-graph}', $$
{:process 0, :type :ok, :value [[:w :x 1] [:w :x 2]]}
{:process 0, :type :ok, :value [[:r :x 1]]}
$$),
('rw checker G1b {:anomalies [:G1]}', 'rw_register_test/checker-test G1b', 'rw-register',
 NULL, ':anomalies [:G1]', NULL, 'false', '{G1b,empty-transaction-graph}', $$
{:process 0, :type :ok, :value [[:w :x 1] [:w :x 2]]}
{:process 0, :type :ok, :value [[:r :x 1]]}
$$),
('rw checker G1b {:consistency-models [:repeatable-read]}', 'rw_register_test/checker-test G1b', 'rw-register',
 'repeatable-read', NULL, NULL, 'false', '{G1b,empty-transaction-graph}', $$
{:process 0, :type :ok, :value [[:w :x 1] [:w :x 2]]}
{:process 0, :type :ok, :value [[:r :x 1]]}
$$),
('rw checker internal {:anomalies [:internal]}', 'rw_register_test/checker-test internal', 'rw-register',
 NULL, ':anomalies [:internal]', NULL, 'false', '{empty-transaction-graph,internal}', $$
{:process 0, :type :ok, :value [[:r :x 1] [:r :x 2]]}
$$),
-- "initial state": t1 is invoked, t2 runs inside it; Elle puts both on
-- process 0, we give t2 process 1 (a process runs one txn at a time)
('rw checker initial state {:consistency-models [:serializable]}', 'rw_register_test/checker-test initial state', 'rw-register',
 'serializable', NULL, NULL, 'false', '{G-single}', $$
{:process 0, :type :invoke, :value [[:r :x nil] [:r :y nil]]}
{:process 1, :type :invoke, :value [[:w :y 1] [:w :x 2]]}
{:process 1, :type :ok, :value [[:w :y 1] [:w :x 2]]}
{:process 0, :type :ok, :value [[:r :x nil] [:r :y 1]]}
$$),
('rw checker wfr {:wfr-keys? false, serializable}', 'rw_register_test/checker-test wfr (without write-follows-read)', 'rw-register',
 'serializable', NULL, NULL, 'true', '{}', $$
{:process 0, :type :ok, :value [[:r :y 1] [:w :x 1] [:w :y 2]]}
{:process 0, :type :ok, :value [[:r :x 1] [:r :y 1]]}
$$),
('rw checker wfr {:wfr-keys? true, serializable}', 'rw_register_test/checker-test wfr (with write-follows-read)', 'rw-register',
 'serializable', NULL, NULL, 'false', '{G-single}', $$
{:process 0, :type :ok, :value [[:r :y 1] [:w :x 1] [:w :y 2]]}
{:process 0, :type :ok, :value [[:r :x 1] [:r :y 1]]}
$$),
('rw checker cyclic version order {sequential-keys}', 'rw_register_test/checker-test cyclic version order', 'rw-register',
 'strict-serializable', NULL, 'sequential-keys', 'false', '{cyclic-versions}', $$
{:process 0, :type :invoke, :value [[:w :x 1]]}
{:process 0, :type :ok, :value [[:w :x 1]]}
{:process 0, :type :invoke, :value [[:w :x 2]]}
{:process 0, :type :ok, :value [[:w :x 2]]}
{:process 0, :type :invoke, :value [[:r :x nil]]}
{:process 0, :type :ok, :value [[:r :x 1]]}
$$),
('rw lost-update {}', 'rw_register_test/lost-update-test', 'rw-register',
 'strict-serializable', NULL, NULL, 'false', '{lost-update}', $$
{:process 0, :type :invoke, :value [[:r :x nil] [:w :x 1]]}
{:process 0, :type :ok, :value [[:r :x 0] [:w :x 1]]}
{:process 1, :type :invoke, :value [[:r :x nil] [:w :x 2]]}
{:process 1, :type :ok, :value [[:r :x 0] [:w :x 2]]}
$$);
-- checker-test "G1c": one history, six assertions
INSERT INTO elle_case (name, deftest, workload, model, scope, elle_valid, elle, edn)
SELECT 'rw checker G1c ' || opts, 'rw_register_test/checker-test G1c', 'rw-register', model, scope, valid, elle, $$
{:process 0, :type :ok, :value [[:w :x 1] [:r :y 1]]}
{:process 0, :type :ok, :value [[:w :y 1] [:r :x 1]]}
$$
  FROM (SELECT v0.*, row_number() OVER () AS n FROM (VALUES
	('{:anomalies [:G0]}', NULL, ':anomalies [:G0]', 'true', '{}'::text[]),
	('{:consistency-models [:read-uncommitted]}', 'read-uncommitted', NULL, 'true', '{}'),
	('{:anomalies [:G1]}', NULL, ':anomalies [:G1]', 'false', '{G1c}'),
	('{:consistency-models [:read-committed]}', 'read-committed', NULL, 'false', '{G1c}'),
	('{:anomalies [:G2]}', NULL, ':anomalies [:G2]', 'true', '{}'),
	('{:consistency-models [:serializable]}', 'serializable', NULL, 'false', '{G1c}')
  ) v0(opts, model, scope, valid, elle)) v
 ORDER BY v.n;
-- checker-test "G2-item": only the read-committed assertion is an `is`
INSERT INTO elle_case (name, deftest, workload, model, gucs, elle_valid, elle, edn) VALUES
('rw checker G2-item {read-committed, linearizable-keys}', 'rw_register_test/checker-test G2-item', 'rw-register',
 'read-committed', 'linearizable-keys', 'true', '{}', $$
{:process 0, :type :invoke, :value [[:r :x nil] [:r :y nil]]}
{:process 0, :type :ok, :value [[:r :x 1] [:r :y 1]]}
{:process 1, :type :invoke, :value [[:r :x nil] [:w :y 2]]}
{:process 2, :type :invoke, :value [[:r :y nil] [:w :x 2]]}
{:process 2, :type :ok, :value [[:r :y 1] [:w :x 2]]}
{:process 1, :type :ok, :value [[:r :x 1] [:w :y 2]]}
$$);

------------------------------------------------------------------------
-- core_test.clj: process and real-time graphs. Elle's ops there are
-- {:f :read, :value 1}; each becomes a one-read transaction here (only the
-- so / rt edges are compared).
------------------------------------------------------------------------
INSERT INTO elle_case (name, deftest, workload, edges, elle_valid, elle, edn) VALUES
('core process-graph', 'core_test/process-graph-test', 'list-append', '{so}', 'graph', '{0->3,1->2}', $$
{:index 0, :process 1, :type :ok, :value [[:r :k nil]]}
{:index 1, :process 2, :type :ok, :value [[:r :k nil]]}
{:index 2, :process 2, :type :ok, :value [[:r :k nil]]}
{:index 3, :process 1, :type :ok, :value [[:r :k nil]]}
$$),
('core realtime-graph empty history', 'core_test/realtime-graph-test empty history', 'list-append', '{rt}', 'graph', '{}', ''),
('core realtime-graph single op', 'core_test/realtime-graph-test single op', 'list-append', '{rt}', 'graph', '{}', $$
{:type :invoke, :process 1, :value [[:r :a nil]]}
{:type :ok, :process 1, :value [[:r :a nil]]}
$$),
('core realtime-graph two sequential ops', 'core_test/realtime-graph-test two sequential ops', 'list-append', '{rt}', 'graph', '{1->3}', $$
{:type :invoke, :process 1, :value [[:r :a nil]]}
{:type :ok, :process 1, :value [[:r :a nil]]}
{:type :invoke, :process 2, :value [[:r :b nil]]}
{:type :ok, :process 2, :value [[:r :b nil]]}
$$),
('core realtime-graph three ops in a row', 'core_test/realtime-graph-test three ops in a row', 'list-append', '{rt}', 'graph', '{1->3,3->5}', $$
{:type :invoke, :process 1, :value [[:r :a nil]]}
{:type :ok, :process 1, :value [[:r :a nil]]}
{:type :invoke, :process 2, :value [[:r :b nil]]}
{:type :ok, :process 2, :value [[:r :b nil]]}
{:type :invoke, :process 3, :value [[:r :c nil]]}
{:type :ok, :process 3, :value [[:r :c nil]]}
$$),
('core realtime-graph one followed by two concurrent', 'core_test/realtime-graph-test one followed by two concurrent', 'list-append', '{rt}', 'graph', '{1->4,1->5}', $$
{:type :invoke, :process 1, :value [[:r :a nil]]}
{:type :ok, :process 1, :value [[:r :a nil]]}
{:type :invoke, :process 2, :value [[:r :b nil]]}
{:type :invoke, :process 3, :value [[:r :c nil]]}
{:type :ok, :process 3, :value [[:r :c nil]]}
{:type :ok, :process 2, :value [[:r :b nil]]}
$$),
('core realtime-graph two concurrent followed by one', 'core_test/realtime-graph-test two concurrent followed by one', 'list-append', '{rt}', 'graph', '{2->5,3->5}', $$
{:type :invoke, :process 1, :value [[:r :a nil]]}
{:type :invoke, :process 2, :value [[:r :b nil]]}
{:type :ok, :process 1, :value [[:r :a nil]]}
{:type :ok, :process 2, :value [[:r :b nil]]}
{:type :invoke, :process 3, :value [[:r :c nil]]}
{:type :ok, :process 3, :value [[:r :c nil]]}
$$),
('core realtime-graph two concurrent followed by two concurrent', 'core_test/realtime-graph-test two concurrent followed by two concurrent', 'list-append', '{rt}', 'graph', '{2->6,2->7,3->6,3->7}', $$
{:type :invoke, :process 1, :value [[:r :a nil]]}
{:type :invoke, :process 2, :value [[:r :b nil]]}
{:type :ok, :process 2, :value [[:r :b nil]]}
{:type :ok, :process 1, :value [[:r :a nil]]}
{:type :invoke, :process 3, :value [[:r :c nil]]}
{:type :invoke, :process 4, :value [[:r :d nil]]}
{:type :ok, :process 3, :value [[:r :c nil]]}
{:type :ok, :process 4, :value [[:r :d nil]]}
$$),
('core realtime-graph complex', 'core_test/realtime-graph-test complex', 'list-append', '{rt}', 'graph', '{1->4,1->6,4->7,6->9,7->9}', $$
{:type :invoke, :process 1, :value [[:r :a nil]]}
{:type :ok, :process 1, :value [[:r :a nil]]}
{:type :invoke, :process 2, :value [[:r :b nil]]}
{:type :invoke, :process 4, :value [[:r :d nil]]}
{:type :ok, :process 2, :value [[:r :b nil]]}
{:type :invoke, :process 3, :value [[:r :c nil]]}
{:type :ok, :process 4, :value [[:r :d nil]]}
{:type :ok, :process 3, :value [[:r :c nil]]}
{:type :invoke, :process 5, :value [[:r :e nil]]}
{:type :ok, :process 5, :value [[:r :e nil]]}
$$);

-- Tests in those files that are about Elle's internals, with the reason.
CREATE TEMP TABLE elle_skipped (deftest text PRIMARY KEY, reason text NOT NULL);
INSERT INTO elle_skipped VALUES
	('list_append_test/op-test', 'Elle''s op-string parser'),
	('list_append_test/checker-test contradictory read orders (HTML file)', 'the HTML file Elle writes; the verdict is a case above'),
	('list_append_test/huge-scc-test', 'performance, on Elle''s history file, asserting Elle''s cycle-search timeout'),
	('list_append_test/unfindable-g-single', 'Elle''s cycle-search timeout and cycle-exists fallback (anomaly names PL-SI-cycle-exists, cycle-search-timeout)'),
	('list_append_test/scc-search-perf-test, perfect-perf-test, sloppy-perf-test', 'performance (random 1M-operation histories)'),
	('rw_register_test/op-test', 'Elle''s op-string parser'),
	('rw_register_test/ext-index-test', 'Elle''s index of external writes'),
	('rw_register_test/ext-key-graph-test', 'a graph data structure (input is a graph, not a history)'),
	('rw_register_test/transaction-graph->version-graphs-test', 'a graph data structure (input is a graph, not a history)'),
	('rw_register_test/version-graphs->transaction-graphs-test', 'a graph data structure (input is version graphs)'),
	('rw_register_test/checker-test writing files', 'the explanation text file Elle writes; the verdict is the G1c case above'),
	('rw_register_test/type-sanity', 'JVM integer types (Short vs Long)'),
	('rw_register_test/e-graph-test-perf, perfect-perf-test', 'performance'),
	('txn_test/wr-txns-test', 'Elle''s transaction generator'),
	('txn_test/cycle-exists-subgraph-test', 'graph algebra over hand-built graphs (union, composition, extension)'),
	('txn_test/cycle-exists-cases-G-single-test', 'Elle''s cycle-exists anomaly (PL-SI-cycle-exists) over a hand-built graph'),
	('core_test/monotonic-key-graph-test', 'the monotonic-key analyzer: non-transactional :read ops of counters'),
	('core_test/checker-test', 'the monotonic-key analyzer: non-transactional :read/:inc ops'),
	('core_test/monotonic+process-test', 'the monotonic-key analyzer combined with process order'),
	('core_test/stackoverflow-test, collapse-graph-test-perf', 'performance / stack depth of Elle''s graph code');

-- Why a case differs, for every case that does: keyed by case name, one
-- line each (the README counts them by cause).
CREATE TEMP TABLE elle_reason (name text PRIMARY KEY, reason text NOT NULL);
INSERT INTO elle_reason VALUES
	('la graph duplicate appends',
	 'the second record has :f nil: isograph skips records whose :f is not :txn (as Elle''s checker does, through h/client-ops), so no duplicate append remains; Elle''s test calls its graph analyzer directly and sees one'),
	('la G-nonadjacent {}',
	 'isograph also reports G-single-process: T4 reads x = nil after T1, on its process, appended 1. Elle''s search finds that cycle too, but its explainer names it by its data edges and drops it, as in la lost-update {}'),
	('la lost-update {}',
	 'isograph also reports G-single-process: T1 -so-> T2 -rw-> T1 (T2, on T1''s process, read [0] after T1 appended 1). Elle''s search finds that cycle too, but its explainer prefers the rw edge to the process or real-time edge, names the cycle G2-item and drops it (Elle''s own comment: g-single-misattribution-test)'),
	('rw wr-graph write and read',
	 'isograph requires unique writes and rejects the history (x = 0 written twice, SQLSTATE 23505); Elle''s wr-graph analyzer accepts it'),
	('rw checker read of a value nobody wrote {strict-serializable, linearizable-keys}',
	 'isograph reports garbage-read (x = 2 was never written); Elle''s test itself marks its :valid? true as a bug ("TODO: this represents a bug!")'),
	('rw checker read read {strict-serializable, linearizable-keys}',
	 'garbage-read (x = 2 was never written) instead of cyclic-versions: isograph.assume_linearizable_keys orders writes only, Elle''s :linearizable-keys? also orders the read value 2 (1 < 2 < 1)'),
	('rw checker G0 {:anomalies [:G0], sequential-keys}',
	 'isograph.assume_sequential_keys orders a process''s writes only; Elle''s :sequential-keys? also uses the process''s reads (process 0 wrote x = 1, then read x = 2, so 1 < 2), which gives the ww edges of the G0'),
	('rw checker wfr {:wfr-keys? false, serializable}',
	 'garbage-read: y = 1 is read but never written (also: isograph always uses write-follows-read, Elle''s :wfr-keys? true; nothing turns it off)'),
	('rw checker wfr {:wfr-keys? true, serializable}',
	 'garbage-read instead of G-single: y = 1 is never written; isograph derives no version and no rw edge from a value nobody wrote, Elle orders it before 2'),
	('rw checker cyclic version order {sequential-keys}',
	 'isograph.assume_sequential_keys orders writes only (1 < 2), so the read of 1 after the process wrote 2 is a stale read, G-single-process; Elle''s sequential keys also order that read (2 < 1): cyclic-versions. Both invalid'),
	('rw lost-update {}',
	 'garbage-read instead of lost-update: both transactions read x = 0, which nobody wrote; isograph''s lost-update needs a version both read'),
	('rw checker G2-item {read-committed, linearizable-keys}',
	 'garbage-read: x = 1 and y = 1 are read but never written (Elle''s test reads them as initial values)');

------------------------------------------------------------------------
-- Run isograph on every case
------------------------------------------------------------------------
CREATE FUNCTION pg_temp.isograph_says(c elle_case) RETURNS text[]
LANGUAGE plpgsql AS $$
DECLARE
	h bigint;
	r text[];
BEGIN
	PERFORM set_config('isograph.assume_sequential_keys',
	                   CASE WHEN c.gucs = 'sequential-keys' THEN 'on' ELSE 'off' END, true);
	PERFORM set_config('isograph.assume_linearizable_keys',
	                   CASE WHEN c.gucs = 'linearizable-keys' THEN 'on' ELSE 'off' END, true);
	-- an empty Elle history goes in as a comment: iso_load_jepsen refuses a
	-- blank text (what a failed file read gives), not an empty history
	h := iso_load_jepsen('elle ' || c.name,
						 CASE WHEN btrim(c.edn, E' \n\t') = '' THEN '; empty history' ELSE c.edn END,
						 c.workload);
	IF c.edges IS NOT NULL THEN
		SELECT coalesce(array_agg(e ORDER BY e), '{}') INTO r
		  FROM (SELECT DISTINCT g.from_txn || '->' || g.to_txn AS e
		          FROM iso_build_graph(h) g WHERE g.type = ANY (c.edges)) d;
	ELSE
		SELECT coalesce(array_agg(a ORDER BY a), '{}') INTO r
		  FROM (SELECT DISTINCT k.anomaly AS a
		          FROM (SELECT level FROM elle_model
		                 WHERE model = ANY (string_to_array(c.model, ' '))
		                UNION SELECT 'ser' WHERE c.model IS NULL) l,
		               iso_check(l.level, h, 1) k
		         WHERE c.scope IS NULL
		            OR k.anomaly IN (SELECT n.isograph FROM elle_scope s JOIN elle_name n USING (elle)
		                              WHERE s.scope = c.scope)) d;
	END IF;
	RETURN r;
EXCEPTION WHEN others THEN
	RETURN ARRAY['error'];
END $$;

CREATE TEMP TABLE elle_result AS
SELECT c.ord, c.name,
       c.elle_valid,
       c.elle,
       -- Elle's answer in isograph's names (Elle-only statuses dropped)
       CASE WHEN c.edges IS NOT NULL OR c.elle = '{error}' THEN c.elle
            ELSE ARRAY(SELECT DISTINCT coalesce(n.isograph, e)
                         FROM unnest(c.elle) e LEFT JOIN elle_name n ON n.elle = e
                        WHERE NOT coalesce(n.ignored, false) ORDER BY 1) END AS elle_mapped,
       pg_temp.isograph_says(c) AS isograph
  FROM elle_case c;

------------------------------------------------------------------------
-- Consistency of the tables themselves
------------------------------------------------------------------------
-- every Elle name used is in the mapping table
SELECT DISTINCT e AS unmapped_elle_name
  FROM elle_case c, unnest(c.elle) e
 WHERE c.edges IS NULL AND c.elle <> '{error}'
   AND e NOT IN (SELECT elle FROM elle_name)
UNION
SELECT elle FROM elle_scope WHERE elle NOT IN (SELECT elle FROM elle_name);
-- every model named is in elle_model
SELECT DISTINCT m AS unknown_elle_model
  FROM elle_case c, unnest(string_to_array(c.model, ' ')) m
 WHERE m NOT IN (SELECT model FROM elle_model);
-- reasons for cases that do not exist
SELECT name AS reason_for_unknown_case FROM elle_reason
 WHERE name NOT IN (SELECT name FROM elle_case);

------------------------------------------------------------------------
-- Results
------------------------------------------------------------------------
SELECT deftest AS skipped_elle_test, reason FROM elle_skipped ORDER BY 1;

SELECT format('%s of %s Elle test cases agree; the rest differ for these documented reasons',
              count(*) FILTER (WHERE elle_mapped = isograph), count(*)) AS summary
  FROM elle_result;
\pset format unaligned
\pset fieldsep ' | '
SELECT count(*) AS cases, coalesce(d.reason, '(no documented reason)') AS reason
  FROM elle_result r LEFT JOIN elle_reason d USING (name)
 WHERE r.elle_mapped <> r.isograph
 GROUP BY 2 ORDER BY 1 DESC, 2;

SELECT r.name AS "case",
       CASE WHEN r.elle_valid = 'graph' THEN 'edges ' ELSE r.elle_valid || ' ' END
         || array_to_string(r.elle, ' ') AS elle,
       array_to_string(r.isograph, ' ') AS isograph,
       CASE WHEN r.elle_mapped = r.isograph THEN 'agree' ELSE 'differ' END AS verdict,
       CASE WHEN r.elle_mapped = r.isograph THEN coalesce(d.reason, '')
            ELSE coalesce(d.reason, '(no documented reason)') END AS reason
  FROM elle_result r LEFT JOIN elle_reason d USING (name)
 ORDER BY r.ord;
\pset format aligned

-- leave no histories behind
SELECT count(iso_delete_history(history_id)) > 0 AS deleted FROM iso_history WHERE name LIKE 'elle %';
