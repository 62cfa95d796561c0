#!/usr/bin/env bash
# Database encodings: every string isograph stores is valid in the database
# encoding, so a dump restores exactly.  In databases of encoding UTF8,
# LATIN1 and EUC_JP (template0, C collation), each:
#  - loads an EDN history whose strings hold \u escapes of characters the
#    encoding has (a surrogate pair in UTF8, e with acute in LATIN1, kanji
#    in EUC_JP) and raw characters of the encoding, plus a version order
#    (iso_load_versions) and, in LATIN1, a row through COPY;
#  - checks the stored text is those characters (not their UTF-8 bytes),
#    and that iso_parse_jepsen / iso_levels_jepsen return them too;
#  - rejects a history with an escape the encoding lacks (22P05, the escape
#    named, DETAIL with the line, HINT) and lone surrogates and \u0000
#    (22P02), leaving nothing behind;
#  - dumps with pg_dump -Fc, restores with pg_restore into a fresh database
#    of the same encoding, and compares the events, histories, version
#    orders and check results byte for byte.
# Before the fix a \u escape was stored as UTF-8 bytes whatever the
# encoding: garbled text in LATIN1, and in EUC_JP a dump whose COPY of
# iso_event failed on restore; raw non-UTF-8 characters were rejected.
# About 10 s.
. "$(dirname "$0")/lib.sh"

DBS=()
cleanup_dbs() {
	local d
	for d in "${DBS[@]}"; do
		psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $d WITH (FORCE)" >/dev/null 2>&1
	done
}
trap 'cleanup_dbs; [ -n "${HARDENING_WORK:-}" ] || rm -rf "$WORK"' EXIT

# eq GOT WANT DESCRIPTION
eq() {
	if [ "$1" = "$2" ]; then ok 0 "$3"
	else ok 1 "$3"; diag "got:  $1"; diag "want: $2"; fi
}

# qe DB SQL...: a query with client encoding UTF8 (the server converts, and
# checks, every text it sends); stderr kept
qe() { local d=$1; shift; PGCLIENTENCODING=UTF8 psql -X -q -A -t -v ON_ERROR_STOP=1 -d "$d" "$@"; }

# qv DB VAR VALUE SQL: a query using :'VAR' (psql -c does not interpolate)
qv() { printf '%s\n' "$4" | PGCLIENTENCODING=UTF8 psql -X -q -A -t -v ON_ERROR_STOP=1 -v VERBOSITY=verbose -d "$1" -v "$2=$3"; }

# load DB NAME FILE: iso_load_jepsen of a UTF-8 file (converted by the
# server into the database encoding); prints the history_id or the error
load() {
	chmod 644 "$3"
	PGCLIENTENCODING=UTF8 psql -X -q -A -t -v ON_ERROR_STOP=1 -v VERBOSITY=verbose \
		-d "$1" -v name="$2" -v file="$3" 2>&1 <<'SQL'
\set edn `cat :file`
SELECT iso_load_jepsen(:'name', :'edn');
SQL
}

# snapshot DB: everything a restore must keep, in the database's own bytes
# (client encoding = server encoding: no conversion), and the checks
snapshot() {
	local d=$1 enc
	enc=$(q -d "$d" -c "SHOW server_encoding")
	PGCLIENTENCODING=$enc psql -X -q -A -t -v ON_ERROR_STOP=1 -d "$d" <<'SQL'
COPY (SELECT history_id, name, workload, source, owner, skipped, metadata, events_rev
        FROM iso_history ORDER BY history_id) TO STDOUT;
COPY (SELECT * FROM iso_event ORDER BY history_id, txn_id, pos) TO STDOUT;
COPY (SELECT * FROM iso_version ORDER BY history_id, key, position) TO STDOUT;
COPY (SELECT h.history_id, l.level, l.holds, l.violations, l.strongest, l.note, l.method,
              l.search_constraints, l.search_constraints_pruned, l.search_solver_calls
         FROM iso_history h, iso_levels(h.history_id) l
       ORDER BY 1, 2) TO STDOUT;
COPY (SELECT h.history_id, c.* FROM iso_history h, iso_check('serializable', h.history_id) c
       ORDER BY 1, 2, 3, 4) TO STDOUT;
SQL
}

# A list-append history with a G2-item (two transactions each read the
# other's key empty) on keys K1 and K2, values V1 and V2; the last
# transaction reads both lists.
history() {	# K1 K2 V1 V2
	cat <<EOF
{:type :invoke, :process 0, :value [[:append "$1" "$3"] [:r "$2" nil]], :time 1}
{:type :invoke, :process 1, :value [[:append "$2" "$4"] [:r "$1" nil]], :time 2}
{:type :ok, :process 0, :value [[:append "$1" "$3"] [:r "$2" []]], :time 3}
{:type :ok, :process 1, :value [[:append "$2" "$4"] [:r "$1" []]], :time 4}
{:type :invoke, :process 2, :value [[:r "$1" nil] [:r "$2" nil]], :time 5}
{:type :ok, :process 2, :value [[:r "$1" ["$3"]] [:r "$2" ["$4"]]], :time 6}
EOF
}

# A register history with a version order from a WAL: key K, values V1 V2.
reg_history() {	# K V1 V2
	cat <<EOF
{:type :ok, :process 0, :value [[:w "$1" "$2"]], :time 1}
{:type :ok, :process 1, :value [[:w "$1" "$3"]], :time 2}
{:type :ok, :process 2, :value [[:r "$1" "$3"]], :time 3}
EOF
}
wal() {	# K V1 V2 (JSON escapes)
	cat <<EOF
{"tick":"1","type":2300,"db":"rwRegister","tid":"1","data":{"_key":"$1","rwAttr":"$2"}}
{"tick":"2","type":2300,"db":"rwRegister","tid":"2","data":{"_key":"$1","rwAttr":"$3"}}
EOF
}

# One encoding: ENC, then for the characters the encoding has: the \u
# escapes of K1, K2, V1, V2, the same four as U&'' literals, a raw
# (UTF-8 written, converted by the server) key, and one escape it lacks
# ("" for UTF8, which has every character).
run_encoding() {
	local enc=$1 ek1=$2 ek2=$3 ev1=$4 ev2=$5 uk1=$6 uk2=$7 uv1=$8 uv2=$9 raw=${10} lacks=${11}
	local db=iso_enc_${enc,,} rdb=iso_enc_${enc,,}_restored
	local h h2 out err want before after sqlstate
	DBS+=("$db" "$rdb")
	diag "--- $enc"
	psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $db WITH (FORCE)" -c "DROP DATABASE IF EXISTS $rdb WITH (FORCE)" \
		-c "CREATE DATABASE $db TEMPLATE template0 ENCODING '$enc' LC_COLLATE 'C' LC_CTYPE 'C'" \
		-c "CREATE DATABASE $rdb TEMPLATE template0 ENCODING '$enc' LC_COLLATE 'C' LC_CTYPE 'C'" >/dev/null &&
		q -d "$db" -c "CREATE EXTENSION isograph" >/dev/null
	ok $? "$enc: databases created, extension installed"

	# 1. escapes the encoding has
	history "$ek1" "$ek2" "$ev1" "$ev2" >"$WORK/$enc-esc.edn"
	h=$(load "$db" esc "$WORK/$enc-esc.edn")
	[[ $h =~ ^[0-9]+$ ]]; ok $? "$enc: history with \\u escapes loads"
	[[ $h =~ ^[0-9]+$ ]] || diag "$h"
	out=$(qe "$db" -c "SELECT count(*) FILTER (WHERE key = U&'$uk1' AND value = U&'$uv1'),
	                          count(*) FILTER (WHERE key = U&'$uk2' AND value = U&'$uv2'),
	                          count(*) FILTER (WHERE read_list = ARRAY[U&'$uv1']),
	                          count(*) FILTER (WHERE read_list = ARRAY[U&'$uv2'])
	                     FROM iso_event WHERE history_id = ${h:-0}" 2>&1)
	eq "$out" "1|1|1|1" "$enc: escapes stored as the characters, in keys, values and read lists"
	out=$(qe "$db" -c "SELECT string_agg(DISTINCT encode(convert_to(key, '$enc'), 'hex'), ' ')
	                     FROM iso_event WHERE history_id = ${h:-0}" 2>&1)
	want=$(qe "$db" -c "SELECT string_agg(DISTINCT encode(convert_to(k, '$enc'), 'hex'), ' ')
	                      FROM unnest(ARRAY[U&'$uk1', U&'$uk2']) k" 2>&1)
	eq "$out" "$want" "$enc: stored bytes are the encoding's ($want)"
	out=$(qv "$db" edn "$(cat "$WORK/$enc-esc.edn")" "SELECT count(*) FILTER (WHERE key = U&'$uk1'),
	             count(*) FILTER (WHERE value = U&'$uv2') FROM iso_parse_jepsen(:'edn')" 2>&1)
	eq "$out" "3|1" "$enc: iso_parse_jepsen returns the characters"
	out=$(qv "$db" edn "$(cat "$WORK/$enc-esc.edn")" "SELECT string_agg(level || '=' || holds || '/' || violations, ' ' ORDER BY level)
	             FROM iso_levels_jepsen(:'edn')" 2>&1)
	want=$(qe "$db" -c "SELECT string_agg(level || '=' || holds || '/' || violations, ' ' ORDER BY level)
	             FROM iso_levels(${h:-0})" 2>&1)
	[[ $want == *=false/* ]] && eq "$out" "$want" "$enc: iso_levels_jepsen in memory = iso_levels of the stored history (a G2-item)"

	# 2. raw characters of the encoding (the server converted the UTF-8 file)
	history "$raw" "r2$raw" "$raw" "v$raw" >"$WORK/$enc-raw.edn"
	h=$(load "$db" raw "$WORK/$enc-raw.edn")
	[[ $h =~ ^[0-9]+$ ]]; ok $? "$enc: history with raw characters of the encoding loads"
	[[ $h =~ ^[0-9]+$ ]] || diag "$h"
	out=$(qe "$db" -c "SELECT count(*) FROM iso_event WHERE history_id = ${h:-0} AND key = '$raw'" 2>&1)
	eq "$out" "3" "$enc: raw characters stored intact"

	# 3. a version order through iso_load_versions, \u escapes in the WAL
	reg_history "$ek1" "$ev1" "$ev2" >"$WORK/$enc-reg.edn"
	h=$(load "$db" reg "$WORK/$enc-reg.edn")
	out=$(qv "$db" wal "$(wal "$ek1" "$ev1" "$ev2")" "SELECT iso_load_versions(${h:-0}, :'wal');
		    SELECT string_agg(position || ':' || (key = U&'$uk1') || ':' || (value = U&'$uv1' OR value = U&'$uv2'), ' ' ORDER BY position)
		      FROM iso_version WHERE history_id = ${h:-0}" 2>&1 | tail -1)
	eq "$out" "0:true:true 1:true:true" "$enc: WAL \\u escapes stored as the characters"
	reg_history x 1 2 >"$WORK/$enc-reg2.edn"
	h2=$(load "$db" reg2 "$WORK/$enc-reg2.edn")

	# 4. escapes the encoding lacks, lone surrogates, \u0000: nothing stored
	before=$(q -d "$db" -c "SELECT (SELECT count(*) FROM iso_history) || '/' || (SELECT count(*) FROM iso_event)")
	if [ -n "$lacks" ]; then
		history "$lacks" 2 1 2 >"$WORK/$enc-lacks.edn"
		err=$(load "$db" lacks "$WORK/$enc-lacks.edn")
		sqlstate=$(grep -o 'ERROR:  [0-9A-Z]\{5\}' <<<"$err" | head -1)
		eq "$sqlstate" "ERROR:  22P05" "$enc: escape the encoding lacks: 22P05"
		grep -qF "escape '$lacks' in string '\"$lacks\"' has no equivalent in encoding \"$enc\"" <<<"$err"
		ok $? "$enc: the message names the escape and the encoding"
		grep -q "DETAIL:  The string is at line 1 of the history" <<<"$err" && grep -q "HINT:  " <<<"$err" &&
			grep -q "CONTEXT:  EDN record 1, line 1" <<<"$err"
		ok $? "$enc: DETAIL with the history line, HINT, CONTEXT"
		head -3 <<<"$err" | sed 's/^/# /'
		err=$(qv "$db" edn "$(cat "$WORK/$enc-lacks.edn")" "SELECT count(*) FROM iso_parse_jepsen(:'edn')" 2>&1)
		grep -q "ERROR:  22P05" <<<"$err"; ok $? "$enc: iso_parse_jepsen rejects it too"
		err=$(qv "$db" wal "$(wal "$lacks" 1 2)" "SELECT iso_load_versions(${h2:-0}, :'wal')" 2>&1)
		grep -q "ERROR:  22P05" <<<"$err" && grep -qF "escape '$lacks' in JSON string" <<<"$err"
		ok $? "$enc: iso_load_versions rejects it too"
	fi
	history '\udc00' 2 1 2 >"$WORK/$enc-lone.edn"
	err=$(load "$db" lone "$WORK/$enc-lone.edn")
	grep -q "ERROR:  22P02: unpaired surrogate escape '\\\\udc00'" <<<"$err"; ok $? "$enc: lone surrogate: 22P02"
	history 'a\u0000' 2 1 2 >"$WORK/$enc-nul.edn"
	err=$(load "$db" nul "$WORK/$enc-nul.edn")
	grep -q "ERROR:  22P02: string '\"a\\\\u0000\"' contains the NUL character" <<<"$err"; ok $? "$enc: \\u0000: 22P02"
	after=$(q -d "$db" -c "SELECT (SELECT count(*) FROM iso_history) || '/' || (SELECT count(*) FROM iso_event)")
	eq "$after" "$before" "$enc: rejected loads left nothing behind"

	# 5. LATIN1: a row through COPY with a non-ASCII value
	if [ "$enc" = LATIN1 ]; then
		out=$(PGCLIENTENCODING=UTF8 psql -X -q -A -t -v ON_ERROR_STOP=1 -d "$db" 2>&1 <<'SQL'
INSERT INTO iso_history (name, workload, source) VALUES ('copied', 'rw-register', 'copy');
COPY iso_event (txn_id, process, status, pos, op, key, value) FROM STDIN;
1	0	ok	0	w	clé	crème brûlée
\.
SELECT encode(convert_to(key || '|' || value, 'LATIN1'), 'hex') FROM iso_event
 WHERE history_id = (SELECT history_id FROM iso_history WHERE name = 'copied');
SQL
)
		eq "$out" "$(printf 'cl\xe9|cr\xe8me br\xfbl\xe9e' | od -An -tx1 | tr -d ' \n')" "LATIN1: COPY row with non-ASCII text stored in LATIN1"
	fi

	# 5b. a list read with characters of the encoding through iso_event and
	#     iso_event_load (which cuts the literal itself): the same elements
	out=$(qe "$db" 2>&1 <<SQL
INSERT INTO iso_history (name, workload) VALUES ('list-array', 'list-append');
COPY iso_event (txn_id, status, pos, op, key, read_list) FROM STDIN WITH (FORMAT csv);
1,ok,0,r,k,"{a,$raw,$raw$raw}"
2,ok,0,r,k,"{""$raw b"",$raw}"
\\.
INSERT INTO iso_history (name, workload) VALUES ('list-text', 'list-append');
COPY iso_event_load (txn_id, status, pos, op, key, read_list) FROM STDIN WITH (FORMAT csv);
1,ok,0,r,k,"{a,$raw,$raw$raw}"
2,ok,0,r,k,"{""$raw b"",$raw}"
\\.
SELECT string_agg(a.read_list[2] || '/' || cardinality(a.read_list) || '/' || (a.read_list = t.read_list), ' ' ORDER BY a.txn_id)
  FROM iso_event a JOIN iso_history ha ON ha.history_id = a.history_id AND ha.name = 'list-array'
  JOIN iso_event t ON t.txn_id = a.txn_id
  JOIN iso_history ht ON ht.history_id = t.history_id AND ht.name = 'list-text';
SQL
)
	eq "$out" "$raw/3/true $raw/2/true" "$enc: list literals with characters of the encoding: the same elements through iso_event_load"

	# 6. dump, restore into a fresh database of the encoding, compare
	before=$(snapshot "$db" 2>&1)
	pg_dump -Fc -d "$db" -f "$WORK/$enc.dump" 2>"$WORK/$enc.dump.err"
	ok $? "$enc: pg_dump -Fc"
	pg_restore --exit-on-error -d "$rdb" "$WORK/$enc.dump" >"$WORK/$enc.restore.err" 2>&1
	ok $? "$enc: pg_restore succeeds"
	[ -s "$WORK/$enc.restore.err" ] && diag "$(head -5 "$WORK/$enc.restore.err")"
	after=$(snapshot "$rdb" 2>&1)
	[ -n "$before" ] && [ "$before" = "$after" ]
	ok $? "$enc: events, histories, version orders and checks identical after the restore ($(wc -l <<<"$before") lines)"
	[ "$before" = "$after" ] || diff <(echo "$before") <(echo "$after") | head -20 | sed 's/^/# /'
	out=$(qe "$rdb" -c "SELECT count(*) FROM iso_event WHERE key = U&'$uk1'" 2>&1)
	eq "$out" "6" "$enc: restored keys are the characters"
}

#            enc    \u escapes: K1 K2 V1 V2                                 U& literals: K1 K2 V1 V2                                  raw   lacks
run_encoding UTF8   'k\u6f22\ud83d\ude00' 'k\u00e9' 'v\u5b57' 'v\uD83D\uDE00' 'k\6F22\+01F600' 'k\00E9' 'v\5B57' 'v\+01F600' 'ü漢' ''
run_encoding LATIN1 'caf\u00e9' 'cr\u00e8me' 'na\u00efve' '\u00c9t\u00e9'     'caf\00E9' 'cr\00E8me' 'na\00EFve' '\00C9t\00E9'        'ü'   '\u6f22'
run_encoding EUC_JP 'k\u6f22' 'k\u5b57' 'v\u6771' 'v\u4eac'                 'k\6F22' 'k\5B57' 'v\6771' 'v\4EAC'                     '漢字' '\ud83d\ude00'

# SQL_ASCII has no conversion from UTF-8: a non-ASCII escape is rejected
# (as PostgreSQL's own U&'' and JSON do there), ASCII escapes and raw bytes load
diag "--- SQL_ASCII"
db=iso_enc_sql_ascii
DBS+=("$db")
psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $db WITH (FORCE)" \
	-c "CREATE DATABASE $db TEMPLATE template0 ENCODING 'SQL_ASCII' LC_COLLATE 'C' LC_CTYPE 'C'" >/dev/null &&
	q -d "$db" -c "CREATE EXTENSION isograph" >/dev/null
ok $? "SQL_ASCII: database created, extension installed"
history 'caf\u00e9' 2 1 2 >"$WORK/ascii-lacks.edn"
err=$(load "$db" lacks "$WORK/ascii-lacks.edn")
grep -qF "ERROR:  22P05: escape '\u00e9' in string '\"caf\u00e9\"' has no equivalent in encoding \"SQL_ASCII\"" <<<"$err"
ok $? "SQL_ASCII: non-ASCII escape: 22P05"
history 'k\u0041' 'café' 1 2 >"$WORK/ascii-ok.edn"
h=$(load "$db" ok "$WORK/ascii-ok.edn")
out=$(q -d "$db" -c "SELECT count(*) FROM iso_event WHERE history_id = ${h:-0} AND key IN ('kA', 'café')" 2>&1)
eq "$out" "6" "SQL_ASCII: ASCII escapes and raw bytes load"

finish
