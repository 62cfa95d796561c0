-- A role with nothing but LOGIN can load and check histories without
-- further grants, and sees only its own histories, events, edges and results.
BEGIN;
SELECT plan(16);

CREATE ROLE iso_alice LOGIN;
CREATE ROLE iso_bob LOGIN;

SET ROLE iso_alice;
SELECT lives_ok($$SELECT iso_load_jepsen('mine', '{:type :ok, :value [[:r 1 nil] [:w 1 1]]}
{:type :ok, :value [[:r 1 nil] [:w 1 2]]}')$$, 'alice loads a history');
SELECT is((SELECT count(*) FROM iso_history), 1::bigint, 'alice sees her history');
SELECT is((SELECT owner::text FROM iso_history), 'iso_alice', 'owned by alice');
SELECT isnt_empty($$SELECT * FROM iso_check('si')$$, 'alice checks it (lost update)');
SELECT lives_ok($$SELECT iso_materialize_graph(history_id) FROM iso_history$$, 'alice materializes its graph');

SET ROLE iso_bob;
SELECT is_empty($$SELECT * FROM iso_history$$, 'bob does not see alice''s history');
SELECT is_empty($$SELECT * FROM iso_event$$, 'nor its events');
SELECT is_empty($$SELECT * FROM iso_edge$$, 'nor its edges');
SELECT is_empty($$SELECT * FROM iso_check('si')$$, 'nor its check results');
SELECT lives_ok($$SELECT iso_load_jepsen('mine', '{:type :ok, :value [[:w 1 1]]}')$$,
                'bob may use the same name');
SELECT is((SELECT count(*) FROM iso_history), 1::bigint, 'bob sees only his own');
SELECT throws_ok($$INSERT INTO iso_history (name, workload, owner) VALUES ('x', 'rw-register', 'iso_alice')$$,
                 '42501', NULL, 'bob cannot create a history owned by alice');
SELECT is((SELECT count(*) FROM (SELECT iso_delete_history(h.history_id)
             FROM (SELECT min(history_id) AS history_id FROM iso_event) h) d WHERE false), 0::bigint,
          'bob cannot delete what he cannot see');

RESET ROLE;
SELECT is((SELECT count(*) FROM iso_history WHERE owner IN ('iso_alice'::regrole, 'iso_bob'::regrole)), 2::bigint,
          'the superuser sees both');
SELECT history_id AS alice_id FROM iso_history WHERE owner = 'iso_alice'::regrole \gset
SET ROLE iso_bob;
SELECT throws_ok('SELECT iso_graph_stats(' || :alice_id || ')',
                 '42704', NULL, 'bob cannot read alice''s graph even by id');
RESET ROLE;
SELECT is((SELECT count(*) FROM iso_event e JOIN iso_history h USING (history_id) WHERE h.owner = 'iso_alice'::regrole),
          4::bigint, 'alice''s events are intact');

SELECT * FROM finish();
ROLLBACK;
