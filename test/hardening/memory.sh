#!/usr/bin/env bash
# isograph.max_memory: a low setting stops a big check with a clear error
# (54000), the memory comes back, the next query works; bad settings are
# rejected; a sufficient setting lets the check through.
. "$(dirname "$0")/lib.sh"

big=$(big_history)
small=$(q -c "SELECT iso_load_jepsen('hardening-memory-small', '{:type :ok, :value [[:r 1 nil] [:w 1 1]]}
{:type :ok, :value [[:r 1 nil] [:w 1 2]]}')")

out=$(psql -X -q -A -t -v big="$big" -v small="$small" 2>&1 <<'SQL'
\set ON_ERROR_STOP off
\set VERBOSITY default
SELECT 'before', sum(total_bytes) FROM pg_backend_memory_contexts;
SET isograph.max_memory = '16MB';
SELECT count(*) FROM iso_levels(:big);
\echo SQLSTATE1 :SQLSTATE
SELECT count(*) FROM iso_check('ser', :big);
\echo SQLSTATE2 :SQLSTATE
SELECT count(*) FROM iso_build_graph(:big);
\echo SQLSTATE3 :SQLSTATE
SELECT 'after', sum(total_bytes) FROM pg_backend_memory_contexts;
SELECT 'small', count(*) FROM iso_levels(:small) WHERE holds;
SET isograph.max_memory = '1MB';
\echo SQLSTATE4 :SQLSTATE
SET isograph.max_memory = '-1';
\echo SQLSTATE5 :SQLSTATE
SHOW isograph.max_memory;
SET isograph.max_memory = '1GB';
SELECT 'big', count(*) FROM iso_levels(:big) WHERE holds;
SQL
)
st() { sed -n "s/^SQLSTATE$1 //p" <<<"$out"; }
val() { sed -n "s/^$1|//p" <<<"$out"; }
echo "$out" | grep -E '^(ERROR|DETAIL|HINT):' | sort | uniq -c | sed 's/^/# /'

ok $([ "$(st 1)" = 54000 ] && echo 0 || echo 1) "iso_levels over the limit fails with 54000"
grep -q 'ERROR:  isograph needs more than isograph.max_memory (16 MB) for this history' <<<"$out"
ok $? "the error names the setting and its value"
grep -q "HINT:  Raise isograph.max_memory" <<<"$out"
ok $? "the hint says how to raise it"
ok $([ "$(st 2)" = 54000 ] && [ "$(st 3)" = 54000 ] && echo 0 || echo 1) "iso_check and iso_build_graph stop the same way"
before=$(val before); after=$(val after)
diag "backend memory contexts: $before bytes before, $after bytes after three failed checks"
ok $([ $(( after - before )) -lt 4194304 ] && echo 0 || echo 1) "the build memory is freed on error (grew $(( (after - before) / 1024 )) kB)"
ok $([ "$(val small)" = 2 ] && echo 0 || echo 1) "the same session checks another history afterwards"
ok $([ "$(st 4)" = 22023 ] && [ "$(st 5)" = 22023 ] && echo 0 || echo 1) "settings below 16MB are rejected (22023)"
ok $([ "$(val big)" = 9 ] && echo 0 || echo 1) "with 1GB the big history checks fine (9 levels hold)"

q -c "SELECT iso_delete_history($small)" >/dev/null
finish
