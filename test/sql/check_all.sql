-- iso_check over every history (history_id NULL): a history that cannot be
-- checked is one row of its own, anomaly 'uninterpretable' with the error,
-- and the other histories are still checked.
SET client_min_messages = warning;

-- many rows before the bad history (the result spills to a temporary
-- file with a small work_mem, while that history's subtransaction runs):
-- 400 G1c cycles T(2i) -wr-> T(2i+1) -wr-> T(2i)
INSERT INTO iso_history (name, workload) VALUES ('all-0-many', 'rw-register')
  RETURNING history_id AS many \gset
INSERT INTO iso_event (history_id, txn_id, process, status, pos, op, key, value, read_value)
  SELECT :many, 2 * i + j, 2 * i + j, 'ok', p, CASE p WHEN 0 THEN 'w' ELSE 'r' END,
         CASE WHEN (p = 0) = (j = 0) THEN 'x' ELSE 'y' END || i,
         CASE p WHEN 0 THEN '1' END, CASE p WHEN 1 THEN '1' END
    FROM generate_series(1, 400) i, generate_series(0, 1) j, generate_series(0, 1) p;

-- a G1c: T1 writes x and reads T2's y, T2 writes y and reads T1's x
SELECT iso_load_jepsen('all-a-g1c',
  '{:type :ok, :process 0, :value [[:w :x 1] [:r :y 1]]}
   {:type :ok, :process 1, :value [[:w :y 1] [:r :x 1]]}') AS g1c \gset
-- a register history with an append in it: its rows pass the table's
-- constraints, the reader refuses them (docs/input.md)
INSERT INTO iso_history (name, workload) VALUES ('all-b-bad', 'rw-register')
  RETURNING history_id AS bad \gset
INSERT INTO iso_event (history_id, txn_id, process, status, pos, op, key, value)
  VALUES (:bad, 1, 0, 'ok', 0, 'w', 'x', '1'),
         (:bad, 2, 0, 'ok', 0, 'append', 'x', '2');
-- serializable
SELECT iso_load_jepsen('all-c-ok', '{:type :ok, :value [[:w :z 1]]}') AS ok \gset
-- a lost update after the bad one
SELECT iso_load_jepsen('all-d-lost',
  '{:type :ok, :process 0, :value [[:r :k nil] [:w :k 1]]}
   {:type :ok, :process 1, :value [[:r :k nil] [:w :k 2]]}') AS lost \gset

-- alone, the bad history is an ERROR, as before
SELECT * FROM iso_check('ser', :bad);

-- over every history: the bad one's row, and the others' violations
SELECT history_id = :bad AS is_bad, history, level, anomaly, cycle, edge_types, keys, txns
  FROM iso_check('ser') WHERE history LIKE 'all-%' AND history <> 'all-0-many'
 ORDER BY history, anomaly, explanation;
SELECT explanation FROM iso_check('ser') WHERE history_id = :bad;

-- the transaction goes on after it (each history had its own
-- subtransaction), and what it wrote before stays
BEGIN;
INSERT INTO iso_history (name, workload) VALUES ('all-e-in-txn', 'list-append');
SELECT count(*) FILTER (WHERE anomaly = 'uninterpretable') AS uninterpretable,
       count(*) FILTER (WHERE anomaly <> 'uninterpretable') AS violations
  FROM iso_check('ser') WHERE history LIKE 'all-%';
SELECT name FROM iso_history WHERE name = 'all-e-in-txn';
COMMIT;

-- every row arrives, with a small work_mem too
SET work_mem = '64kB';
SET isograph.max_witnesses = 1000;
SELECT history, anomaly, count(*) FROM iso_check('ser')
 WHERE history LIKE 'all-%' GROUP BY history, anomaly ORDER BY history, anomaly;
RESET work_mem;
RESET isograph.max_witnesses;

-- a cancel is not a history's error: it stops the whole check
\set VERBOSITY terse
SET statement_timeout = '1ms';
SELECT count(*) FROM iso_check('ser');
RESET statement_timeout;
\set VERBOSITY default

SELECT count(*) AS deleted FROM (SELECT iso_delete_history(history_id) FROM iso_history
                                  WHERE name LIKE 'all-%') d;
