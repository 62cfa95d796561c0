#!/usr/bin/env bash
# test/hardening/tenancy.sh: roles that are not superusers share isograph
# (0.4.0).  pg_dump --enable-row-security by such a role succeeds and holds
# that role's histories only; the dump restores (as a superuser) into a
# database where the histories give the same verdicts.  (pg_regress cannot
# run pg_dump: the rest of the tenancy rules are in test/sql/tenancy.sql.)
. "$(dirname "$0")/lib.sh"

alice=iso_dump_alice
bob=iso_dump_bob
restore=isograph_dump_restore
cleanup_roles() {
	psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $restore WITH (FORCE)" >/dev/null 2>&1
	q -c "SELECT iso_delete_history(history_id) FROM iso_history
	       WHERE owner::text IN ('$alice', '$bob')" >/dev/null 2>&1
	psql -X -q -d postgres -c "DROP ROLE IF EXISTS $alice" -c "DROP ROLE IF EXISTS $bob" >/dev/null 2>&1
}
cleanup_roles
psql -X -q -d postgres -c "CREATE ROLE $alice LOGIN" -c "CREATE ROLE $bob LOGIN"

# alice: an EDN load and a COPY load; bob: one history
q -U $alice -c "SELECT iso_load_jepsen('alice-skew', '{:type :ok, :value [[:r 1 nil] [:r 2 nil] [:w 1 1]]}
{:type :ok, :value [[:r 1 nil] [:r 2 nil] [:w 2 1]]}')" >/dev/null
h=$(q -U $alice -c "INSERT INTO iso_history (name, workload) VALUES ('alice-copied', 'list-append') RETURNING history_id")
printf '%s,1,0,ok,1,2,0,append,x,1,,\n%s,2,1,ok,3,4,0,r,x,,,{1}\n' "$h" "$h" |
	q -U $alice -c "\\copy iso_event FROM STDIN WITH (FORMAT csv)"
ok $? "a non-superuser copies events into iso_event"
q -U $bob -c "SELECT iso_load_jepsen('bob-secret', '{:type :ok, :value [[:append 7 7]]}')" >/dev/null

pg_dump -U $alice --enable-row-security -f "$WORK/alice.sql" 2>"$WORK/alice.err"
rc=$?
ok $rc "pg_dump --enable-row-security as a non-superuser succeeds"
[ $rc -eq 0 ] || diag "$(cat "$WORK/alice.err")"
grep -q 'alice-skew' "$WORK/alice.sql" && grep -q 'alice-copied' "$WORK/alice.sql"
ok $? "the dump holds the role's histories"
grep -q 'bob-secret' "$WORK/alice.sql"
ok $((1 - $?)) "the dump holds no other role's history"
chunks=$(awk '/^COPY .*iso_event_chunk /{on=1; next} /^\\\.$/{on=0} on' "$WORK/alice.sql" | wc -l)
mine=$(q -U $alice -c "SELECT count(*) FROM iso_event_chunk")
[ "$chunks" -eq "$mine" ] && [ "$mine" -gt 0 ]
ok $? "the dump holds the role's events only ($chunks chunks, the role sees $mine)"
pg_dump -U $alice -f /dev/null 2>"$WORK/norls.err"
[ $? -ne 0 ] && grep -q 'row-level security' "$WORK/norls.err"
ok $? "without --enable-row-security pg_dump refuses, as PostgreSQL does for tables with row-level security"

# the dump restores; the histories give the same verdicts
levels() { q -d "$1" -c "SELECT h.name || ':' || string_agg(l.level || '=' || l.holds, ',' ORDER BY l.level)
                           FROM iso_history h, iso_levels(h.history_id) l
                          WHERE h.name LIKE 'alice-%' GROUP BY h.name ORDER BY h.name"; }
psql -X -q -d postgres -c "CREATE DATABASE $restore" &&
	psql -X -q -v ON_ERROR_STOP=1 -d $restore -f "$WORK/alice.sql" >/dev/null 2>"$WORK/restore.err"
ok $? "the dump restores"
[ -s "$WORK/restore.err" ] && diag "$(head -5 "$WORK/restore.err")"
before=$(levels "$PGDATABASE")
after=$(levels $restore)
[ -n "$before" ] && [ "$before" = "$after" ]
ok $? "the restored histories give the same verdicts"
[ "$(q -d $restore -c "SELECT string_agg(DISTINCT owner::text, ',') FROM iso_history")" = "$alice" ]
ok $? "the restored histories are owned by the role (by name)"

cleanup_roles
finish
