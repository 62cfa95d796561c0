-- The :process rule of the EDN reader (src/edn.c, README "Bad input"): an
-- integer names the client; nil is the same as no :process (kept, no
-- session order); a keyword such as :nemesis marks a record of no client
-- (skipped, counted in the load's NOTICE); anything else is an error in a
-- transaction record.  And EDN has no octal: 0777 is an error, not 777.
SET client_min_messages = notice;
\set VERBOSITY default

\set edn '{:type :ok, :process nil, :value [[:w 1 1]]}\n{:type :ok, :value [[:w 1 2]]}\n{:type :ok, :process :nemesis, :value [[:w 1 3]]}\n{:type :info, :f :kill, :process :nemesis}\n{:type :ok, :process 4, :value [[:w 1 4]]}'
BEGIN;
SELECT iso_load_jepsen('process-rule', :'edn') AS h \gset
SELECT txn_id, process, value FROM iso_event WHERE history_id = :h ORDER BY txn_id, pos;
SELECT skipped FROM iso_history WHERE history_id = :h;
ROLLBACK;
-- the same rule and NOTICE for the functions that only parse
SELECT txn_id, process, value FROM iso_parse_jepsen(:'edn') ORDER BY txn_id, pos;
SELECT count(*) AS levels FROM iso_levels_jepsen(:'edn');

-- not a client: errors, whatever the position of :process in the record
SELECT iso_load_jepsen('bad', '{:type :ok, :process 1.5, :value [[:w 1 1]]}');
SELECT iso_load_jepsen('bad', '{:type :ok, :value [[:w 1 1]], :process "p"}');
SELECT iso_load_jepsen('bad', '{:type :ok, :value [[:w 1 1]]}
{:type :invoke, :process [1], :value [[:w 1 2]]}');
-- ... but not in a record that is no transaction
SELECT count(*) FROM iso_parse_jepsen('{:type :info, :f :start, :process 1.5}
{:type :ok, :value [[:w 1 1]]}');

-- leading zeros
SELECT iso_load_jepsen('bad', '{:type :ok, :value [[:w 1 0777]]}');
SELECT iso_load_jepsen('bad', '{:type :ok, :value [[:append 1 1] [:r 1 [1 -007]]]}');
SELECT count(*) FROM iso_history WHERE name = 'bad';
