-- Histories in a table partitioned by history_id (docs/scale-out.md).
--
-- The extension's own tables are plain tables created by its install
-- script: PostgreSQL cannot turn an existing table into a partitioned one,
-- and iso_check reads iso_event itself.  The supported pattern is an
-- archive partitioned by history_id next to iso_event: histories are
-- loaded and checked in iso_event, kept (or shipped) in the archive, and
-- brought back into iso_event to be checked again.  Every row carries its
-- history_id, so one history is one partition key.
SET client_min_messages = warning;

SELECT relkind FROM pg_class WHERE oid = 'iso_event_chunk'::regclass;

-- (one row per event, as the view iso_event shows them)
CREATE TABLE part_archive (LIKE iso_event)
	PARTITION BY HASH (history_id);
CREATE TABLE part_archive_0 PARTITION OF part_archive FOR VALUES WITH (MODULUS 2, REMAINDER 0);
CREATE TABLE part_archive_1 PARTITION OF part_archive FOR VALUES WITH (MODULUS 2, REMAINDER 1);
ALTER TABLE part_archive ADD PRIMARY KEY (history_id, txn_id, pos);
CREATE TEMP TABLE part_ids (name text PRIMARY KEY, old_id bigint, new_id bigint);

-- two histories: write skew (SI holds, serializability does not) and a
-- serial list-append history
INSERT INTO part_ids (name, old_id) SELECT 'part-write-skew', iso_load_jepsen('part-write-skew', $$
{:type :ok, :value [[:r 1 nil] [:r 2 nil] [:w 1 1]]}
{:type :ok, :value [[:r 1 nil] [:r 2 nil] [:w 2 1]]}
$$);
INSERT INTO part_ids (name, old_id) SELECT 'part-serial', iso_load_jepsen('part-serial', $$
{:type :ok, :value [[:append 1 1] [:r 1 [1]]], :process 0, :index 0}
{:type :ok, :value [[:r 1 [1]] [:append 1 2]], :process 1, :index 1}
{:type :ok, :value [[:r 1 [1 2]]], :process 0, :index 2}
$$);
CREATE TEMP TABLE part_before AS
	SELECT p.name, l.level, l.holds, l.violations
	  FROM part_ids p, iso_levels(p.old_id) l;
SELECT name, level, holds, violations FROM part_before
 WHERE level IN ('si', 'ser', 'strict-serializable') ORDER BY name, level;

-- archive: each history lands whole in one partition
INSERT INTO part_archive SELECT e.* FROM iso_event e JOIN part_ids p ON e.history_id = p.old_id;
SELECT p.name, count(*) AS rows, count(DISTINCT a.tableoid) AS partitions
  FROM part_archive a JOIN part_ids p ON a.history_id = p.old_id
 GROUP BY p.name ORDER BY p.name;

-- delete the histories from the extension's tables ...
SELECT name, iso_delete_history(old_id) AS deleted FROM part_ids ORDER BY name;
SELECT count(*) AS events_left FROM iso_event e JOIN part_ids p ON e.history_id = p.old_id;

-- ... and bring them back from the archive under new ids (COPY would do
-- the same from a dump of one partition)
INSERT INTO iso_history (name, workload, source)
	VALUES ('part-write-skew-restored', 'rw-register', 'archive') RETURNING history_id AS ws \gset
INSERT INTO iso_history (name, workload, source)
	VALUES ('part-serial-restored', 'list-append', 'archive') RETURNING history_id AS serial \gset
UPDATE part_ids SET new_id = :ws WHERE name = 'part-write-skew';
UPDATE part_ids SET new_id = :serial WHERE name = 'part-serial';
INSERT INTO iso_event
	SELECT p.new_id, a.txn_id, a.process, a.status, a.invoke_time, a.complete_time,
	       a.pos, a.op, a.key, a.value, a.read_value, a.read_list
	  FROM part_archive a JOIN part_ids p ON a.history_id = p.old_id;

-- same verdicts as before archiving
SELECT p.name, count(*) AS levels,
       count(*) FILTER (WHERE b.holds = l.holds AND b.violations = l.violations) AS same
  FROM part_ids p, iso_levels(p.new_id) l
  JOIN part_before b ON b.level = l.level
 WHERE b.name = p.name
 GROUP BY p.name ORDER BY p.name;

-- clean up
SELECT name, iso_delete_history(new_id) AS deleted FROM part_ids ORDER BY name;
DROP TABLE part_archive;
DROP TABLE part_ids, part_before;
RESET client_min_messages;
