#!/usr/bin/env bash
# Damage and drift that must never change a verdict silently:
#  - damaged history images: every byte of every part of an image flipped
#    in turn (of parts over 2 kB an even sample); each must give its
#    WARNING and the verdicts the events give;
#  - columns added to or moved in iso_event by its owner: loads still write
#    the same events (and the checks give the same verdicts);
#  - the :process rule and integers with leading zeros.
# About 60 s on 2 shared cores.  Parts over 2 kB (the ops and the two 8 kB
# hash-slot sections) get DAMAGE_SAMPLES (400) damages spread evenly;
# DAMAGE_SAMPLES=100000 damages every byte (a few minutes).
. "$(dirname "$0")/lib.sh"

STEP=${DAMAGE_SAMPLES:-400}

# ---- 1. damaged images --------------------------------------------------
# damage_all H: flip one bit of each byte in turn; prints the plpgsql
# summary "tried|unnoticed|changed" on stdout, the WARNINGs on stderr.
damage_all() {
	psql -X -q -A -t -v h="$1" -v step="$STEP" <<'SQL'
\set ON_ERROR_STOP on
SET client_min_messages = warning;
-- the damaged image must stay as damaged: no check rewrites it
SET isograph.save_image_on_check = off;
CREATE TEMP TABLE intact AS SELECT * FROM iso_history_image WHERE history_id = :h;
CREATE FUNCTION pg_temp.verdicts(h bigint) RETURNS text LANGUAGE sql AS $$
  SELECT string_agg(level || '=' || holds || '/' || violations, ' ' ORDER BY level)
    FROM iso_levels(h) $$;
SET isograph.use_image = off;
SELECT pg_temp.verdicts(:h) AS want \gset
RESET isograph.use_image;
CREATE TEMP TABLE result (tried int, unnoticed int, changed int);
-- psql does not expand variables inside $$: pass them as settings
SELECT set_config('damage.h', :'h', false), set_config('damage.want', :'want', false),
       set_config('damage.step', :'step', false) \gset
DO $$
DECLARE
  h bigint := current_setting('damage.h')::bigint;
  want text := current_setting('damage.want');
  step int := current_setting('damage.step')::int;
  p record;
  pos int;
  flip int;
  got text;
  tried int := 0;
  changed int := 0;
BEGIN
  FOR p IN SELECT section, part, octet_length(data) AS len FROM intact ORDER BY section, part LOOP
    FOR pos IN 0 .. p.len - 1 LOOP
      CONTINUE WHEN p.len > 2048 AND pos % greatest(p.len / step, 1) <> 0;
      flip := 1 << (pos % 8);
      UPDATE iso_history_image SET data = set_byte(data, pos, get_byte(data, pos) # flip)
       WHERE history_id = h AND section = p.section AND part = p.part;
      BEGIN
        -- one read of the image per damage: one WARNING
        SELECT string_agg(level || '=' || holds || '/' || violations, ' ' ORDER BY level)
          INTO got FROM iso_levels(h);
      EXCEPTION WHEN OTHERS THEN
        got := 'ERROR: ' || SQLERRM;
      END;
      tried := tried + 1;
      IF got IS DISTINCT FROM want THEN changed := changed + 1; END IF;
      UPDATE iso_history_image SET data = set_byte(data, pos, get_byte(data, pos) # flip)
       WHERE history_id = h AND section = p.section AND part = p.part;
    END LOOP;
  END LOOP;
  INSERT INTO result VALUES (tried, NULL, changed);
END $$;
-- the intact image is used again, without a WARNING
SELECT 'intact', pg_temp.verdicts(:h) = :'want';
SELECT 'result', tried, changed FROM result;
SQL
}

check_damage() {	# check_damage NAME HISTORY_ID
	local out warnings tried changed intact
	out=$(damage_all "$2" 2>"$WORK/damage.err")
	tried=$(sed -n 's/^result|\([0-9]*\)|.*/\1/p' <<<"$out")
	changed=$(sed -n 's/^result|[0-9]*|\([0-9]*\)$/\1/p' <<<"$out")
	intact=$(sed -n 's/^intact|//p' <<<"$out")
	warnings=$(grep -c "^WARNING:  not using the stored image of history $2: " "$WORK/damage.err")
	diag "$1: $tried damaged images, $warnings WARNINGs, $changed changed verdicts; other stderr: $(grep -v '^WARNING:  not using\|^HINT:  SELECT iso_save_image' "$WORK/damage.err" | head -3)"
	ok $([ -n "$tried" ] && [ "$tried" -gt 100 ] && echo 0 || echo 1) "$1: the image's bytes damaged in turn (${tried:-0} times; $STEP samples of each part over 2 kB)"
	ok $([ "${changed:-1}" = 0 ] && echo 0 || echo 1) "$1: no damage changed a verdict or broke a check"
	ok $([ -n "$tried" ] && [ "$warnings" -eq "$tried" ] && echo 0 || echo 1) "$1: every damage gave its WARNING ($warnings of $tried)"
	ok $([ "$intact" = t ] && echo 0 || echo 1) "$1: the repaired image gives the events' verdicts"
}

gen_edn "$WORK/damage-la.edn" --txns 30 --processes 4 --keys 5 --seed 3 \
	--inject G1c,G-single,G2-item,lost-update,G1a,internal
gen_edn "$WORK/damage-rr.edn" --workload rw-register --txns 16 --processes 4 --keys 5 --seed 4 \
	--inject G0,G-single,G2-item,lost-update,G1b
la=$(load_edn hardening-damage-la "$WORK/damage-la.edn")
rr=$(load_edn hardening-damage-rr "$WORK/damage-rr.edn")
check_damage "list-append image" "$la"
check_damage "rw-register image" "$rr"

# ---- 2. iso_event_chunk with columns added, dropped and re-added -----------
gen_edn "$WORK/layout.edn" --txns 3000 --processes 10 --keys 50 --seed 5 --inject G-single,G2-item
chmod 644 "$WORK/layout.edn"
# layout_load DDL: in one transaction, change iso_event, load, and print
# a digest of the rows (our columns, in order) and the verdicts; rolled back.
layout_load() {
	psql -X -q -A -t -v file="$WORK/layout.edn" 2>&1 <<SQL
\set ON_ERROR_STOP on
\set edn \`cat :file\`
SET client_min_messages = warning;
BEGIN;
$1
SELECT iso_load_jepsen('hardening-layout', :'edn') AS h \gset
SELECT 'rows', count(*), md5(string_agg(concat_ws(' ', txn_id, process, status, invoke_time, complete_time, pos, op, key, value, read_value, read_list::text), ',' ORDER BY txn_id, pos))
  FROM iso_event WHERE history_id = :h;
SELECT 'verdicts', string_agg(level || '=' || holds || '/' || violations, ' ' ORDER BY level) FROM iso_levels(:h);
$2
ROLLBACK;
SQL
}
base=$(layout_load "" "")
for ddl in "ALTER TABLE iso_event_chunk ADD COLUMN x int NOT NULL DEFAULT 5;|SELECT 'extra', count(*) FILTER (WHERE x = 5) = count(*) FROM iso_event_chunk WHERE history_id = :h;" \
	"ALTER TABLE iso_event_chunk ADD COLUMN note text;|SELECT 'extra', count(note) = 0 FROM iso_event_chunk WHERE history_id = :h;" \
	"ALTER TABLE iso_event_chunk DROP COLUMN first_txn; ALTER TABLE iso_event_chunk ADD COLUMN first_txn bigint; ALTER TABLE iso_event_chunk DROP COLUMN last_pos; ALTER TABLE iso_event_chunk ADD COLUMN last_pos integer;|SELECT 'extra', true;"; do
	out=$(layout_load "${ddl%%|*}" "${ddl#*|}")
	name=${ddl%%;*}
	ok $([ "$(grep -v '^extra' <<<"$out")" = "$base" ] && grep -q '^extra|t$' <<<"$out" && echo 0 || echo 1) \
		"after '$name': the load writes the same events, the checks give the same verdicts"
	grep -q '^rows' <<<"$out" || diag "$out"
done
out=$(layout_load "ALTER TABLE iso_event_chunk DROP COLUMN nrows;" "" 2>&1)
ok $(grep -q 'cannot write into table "iso_event_chunk": its column "nrows" is missing' <<<"$out" && echo 0 || echo 1) \
	"without one of our columns the load is refused with a clear error"

# ---- 3. the :process rule and leading zeros ----------------------------
# load_text EDN: prints the NOTICE/ERROR lines and the events loaded
load_text() {
	psql -X -q -A -t -v edn="$1" 2>&1 <<'SQL'
\set VERBOSITY verbose
SET client_min_messages = notice;
BEGIN;
SELECT iso_load_jepsen('hardening-process', :'edn') AS h \gset
SELECT 'txns', count(DISTINCT txn_id), count(process) FROM iso_event WHERE history_id = :h;
ROLLBACK;
SQL
}
out=$(load_text '{:type :ok, :process nil, :value [[:w 1 1]]}
{:type :ok, :value [[:w 1 2]]}
{:type :ok, :process :nemesis, :value [[:w 1 3]]}
{:type :info, :f :kill, :process :nemesis}
{:type :ok, :process 4, :value [[:w 1 4]]}')
ok $(grep -q '^txns|3|1$' <<<"$out" && echo 0 || echo 1) ":process nil kept like no :process, :nemesis skipped (3 txns, 1 with a process)"
ok $(grep -q 'skipped 2 of 5 records' <<<"$out" && grep -q '1 with an :f other than :txn, 1 with a keyword :process' <<<"$out" && echo 0 || echo 1) \
	"the load's NOTICE counts the skipped records by reason"
for bad in '1.5' '"p"' '[1]' 'true'; do
	out=$(load_text "{:type :ok, :process $bad, :value [[:w 1 1]]}")
	ok $(grep -q 'ERROR:  22000: :process .* is not an integer' <<<"$out" && echo 0 || echo 1) ":process $bad is an error (22000), not a skipped record"
done
out=$(load_text '{:type :ok, :value [[:w 1 0777]]}')
ok $(grep -q "ERROR:  22P02: invalid integer '0777', expected no leading zero" <<<"$out" && echo 0 || echo 1) "0777 is an error (22P02), not 777"

q -c "SELECT iso_delete_history($la), iso_delete_history($rr)" >/dev/null
finish
