-- Bad input to the loaders: each class gives its own error, and nothing of
-- the history stays behind.
\set VERBOSITY default
-- history ids appear in some messages: make them independent of earlier tests
ALTER TABLE iso_history ALTER COLUMN history_id RESTART WITH 1000;

-- a value written twice to one key (unique writes)
SELECT iso_load_jepsen('bad', '{:type :ok, :value [[:w 1 1]]}
{:type :ok, :value [[:w 1 1]]}');
-- appends and register writes mixed in one history
SELECT iso_load_jepsen('bad', '{:type :ok, :value [[:w 1 1] [:append 1 2]]}');
-- a list read in a register history
SELECT iso_load_jepsen('bad', '{:type :ok, :value [[:w 1 1]]} {:type :ok, :value [[:r 1 [1]]]}');
-- a register read in a list-append history
SELECT iso_load_jepsen('bad', '{:type :ok, :value [[:append 1 1]]} {:type :ok, :value [[:r 1 1]]}');
-- the workload asked for does not match
SELECT iso_load_jepsen('bad', '{:type :ok, :value [[:append 1 1]]}', 'rw-register');
SELECT iso_load_jepsen('bad', '{:type :ok, :value [[:append 1 1]]}', 'set');
-- an unknown micro-op, :type, malformed micro-op
SELECT iso_load_jepsen('bad', '{:type :ok, :value [[:foo 1 1]]}');
SELECT iso_load_jepsen('bad', '{:type :okay, :value [[:w 1 1]]}');
SELECT iso_load_jepsen('bad', '{:type :ok, :value [[:w 1]]}');
SELECT iso_load_jepsen('bad', '{:type :ok, :value [[:w 1 nil]]}');
SELECT iso_load_jepsen('bad', '{:value [[:w 1 1]]}');
SELECT iso_load_jepsen('bad', '{:type :ok, :value 5}');
-- integers outside 64 bits
SELECT iso_load_jepsen('bad', '{:type :ok, :value [[:w 1 99999999999999999999]]}');
SELECT iso_load_jepsen('bad', '{:type :ok, :value [[:w -9223372036854775809 1]]}');
SELECT iso_load_jepsen('bad', '{:type :ok, :index 18446744073709551616, :value [[:w 1 1]]}');
-- nesting deeper than any history needs (must not overflow the stack)
SELECT iso_load_jepsen('bad', '{:type :ok, :value [[:w 1 1]], :error ' || repeat('[', 100000) || '}');
SELECT iso_load_jepsen('bad', repeat('[', 100000));
-- truncated and malformed records (the message names the record and line)
SELECT iso_load_jepsen('bad', '{:type :ok, :value [[:w 1 1]]}
{:type :ok, :value [[:w 2 1]');
SELECT iso_load_jepsen('bad', '{:type :ok, :value [[:w 1 1]]}
{:type :ok :value');
SELECT iso_load_jepsen('bad', '{:type :ok, :value [[:w 1 "abc]]}');
SELECT iso_load_jepsen('bad', '{:type :ok, :value [[:w 1 1]]} }');
SELECT iso_load_jepsen('bad', '{:type :ok, :value [[:w 1 1]] :process}');
SELECT iso_load_jepsen('bad', 'hello');
-- a history with no evidence of its workload
SELECT iso_load_jepsen('bad', '{:type :ok, :value [[:r 1 nil]]}');
-- NULL arguments
SELECT iso_load_jepsen(NULL, '{:type :ok, :value [[:w 1 1]]}');
-- a duplicate name
SELECT iso_load_jepsen('dup', '{:type :ok, :value [[:w 1 1]]}') > 0 AS loaded;
SELECT iso_load_jepsen('dup', '{:type :ok, :value [[:w 1 1]]}');

-- Nothing of the failed loads remains.
SELECT name FROM iso_history WHERE name IN ('bad', 'dup', 'la') ORDER BY name;
SELECT count(*) AS events FROM iso_event e JOIN iso_history h USING (history_id) WHERE h.name <> 'dup';

-- Version logs: bad JSON, a write without value, a value no transaction
-- wrote, a list-append history, twice for one history, a missing history.
SELECT history_id AS dup FROM iso_history WHERE name = 'dup' \gset
SELECT iso_load_versions(:dup, '{"type":2300,"data":{"_key":"1","rwAttr":1}');
SELECT iso_load_versions(:dup, '{"type":2300,"data":{"_key":"1"}}');
SELECT iso_load_versions(:dup, '{"type":2300,"data":{"_key":"1","rwAttr":7}}');
SELECT iso_load_versions(:dup, '{"type":2300,"data":{"_key":"1","rwAttr":1}}
{"type":2300,"data":{"_key":"1","rwAttr":1}}');
SELECT iso_load_versions(:dup, '{"type":2300,"data":{"_key":"1","rwAttr":1}}
{"type":2001,"tid":"5"}');
SELECT iso_load_versions(:dup, '{"type":2300,"data":{"_key":"1","rwAttr":1}}');
SELECT iso_load_versions(-5, '');
SELECT iso_load_versions(iso_load_jepsen('la', '{:type :ok, :value [[:append 1 1]]}'), '');
SELECT count(*) AS versions FROM iso_version;
SELECT iso_delete_history(:dup);
SELECT count(*) AS deleted FROM (SELECT iso_delete_history(history_id) FROM iso_history) d;
