-- Rows written through the view iso_event take no memory that lasts until
-- the end of the statement.  The INSTEAD OF trigger used to hand the view's
-- row back as it got it, and PostgreSQL then kept its own copy of the row
-- in the statement's memory (the executor's for INSERT, the portal's for
-- COPY): some 250 bytes per row, gigabytes for a large COPY.
SET client_min_messages = warning;

-- The largest executor memory of this backend, read in the middle of the
-- statement by the rows that carry it in their value.
CREATE FUNCTION pg_temp.executor_bytes() RETURNS bigint LANGUAGE sql AS
$$SELECT max(total_bytes) FROM pg_backend_memory_contexts WHERE name = 'ExecutorState'$$;

INSERT INTO iso_history (history_id, name, workload) OVERRIDING SYSTEM VALUE
VALUES (41, 'input-memory', 'list-append');
INSERT INTO iso_event (history_id, txn_id, status, pos, op, key, value)
SELECT 41, g, 'ok', 0, 'append', 'k',
       CASE WHEN g % 20000 = 0 THEN pg_temp.executor_bytes()::text ELSE g::text END
  FROM generate_series(1, 100000) g;

-- Read after 20000 rows and after 100000: the same (it grew by 16 MB).
SELECT count(*) AS samples,
       max(value::bigint) - min(value::bigint) < 1024 * 1024 AS memory_flat
  FROM iso_event WHERE history_id = 41 AND txn_id % 20000 = 0;
SELECT count(*) FROM iso_event WHERE history_id = 41;

-- RETURNING still sees the row as written.
INSERT INTO iso_event (history_id, txn_id, status, pos, op, key, value)
VALUES (41, 100001, 'ok', 0, 'append', 'k', 'x') RETURNING txn_id, key, value;

-- A COPY gets a row of NULLs back (it only counts rows), an INSERT
-- its row: RETURNING after a COPY in the same transaction, after a COPY
-- that failed in a savepoint, and COPY without progress reports.
BEGIN;
COPY iso_event (history_id, txn_id, status, pos, op, key, value) FROM STDIN (FORMAT csv);
41,100002,ok,0,append,k,y
41,100003,ok,0,append,k,z
\.
INSERT INTO iso_event (history_id, txn_id, status, pos, op, key, value)
VALUES (41, 100004, 'ok', 0, 'append', 'k', 'v') RETURNING txn_id, key, value;
SAVEPOINT before_copy;
COPY iso_event (history_id, txn_id, status, pos, op, key, value) FROM STDIN (FORMAT csv);
41,100005,ok,0,append,k,w
41,100006,ok,0,bogus,k,w
\.
ROLLBACK TO SAVEPOINT before_copy;
INSERT INTO iso_event (history_id, txn_id, status, pos, op, key, value)
VALUES (41, 100005, 'ok', 0, 'append', 'k', 'w') RETURNING txn_id, key, value;
SET LOCAL track_activities = off;
COPY iso_event (history_id, txn_id, status, pos, op, key, value) FROM STDIN (FORMAT csv);
41,100006,ok,0,append,k,u
\.
COMMIT;
SELECT txn_id, key, value FROM iso_event WHERE history_id = 41 AND txn_id > 100000 ORDER BY txn_id;

-- Another INSTEAD OF trigger after isograph's (added by the view's owner)
-- gets the row, from a COPY too.
CREATE TEMP TABLE seen (txn_id bigint, key text);
CREATE FUNCTION pg_temp.see_row() RETURNS trigger LANGUAGE plpgsql AS
$$BEGIN INSERT INTO seen VALUES (NEW.txn_id, NEW.key); RETURN NEW; END$$;
CREATE TRIGGER zz_see INSTEAD OF INSERT ON iso_event
	FOR EACH ROW EXECUTE FUNCTION pg_temp.see_row();
COPY iso_event (history_id, txn_id, status, pos, op, key, value) FROM STDIN (FORMAT csv);
41,100007,ok,0,append,k,t
\.
DROP TRIGGER zz_see ON iso_event;
SELECT * FROM seen;

SELECT iso_delete_history(41);
