#!/usr/bin/env bash
# Streaming load (iso_begin_load + COPY into iso_jepsen_input): the backend
# does not hold the text.  Two files hold the same generated history; in
# the second every record carries an extra :pad string of 5,000 bytes (a
# field the reader skips), so that its text is some 200 MB, about 20 times
# the first.  Loaded in a fresh backend each, the streaming load's peak
# private memory must not grow with the text (it holds the history being
# built and one line), while iso_load_jepsen of the padded text, which
# takes it as one value, must peak above the text's size (the measure
# sees a held text).  Both loads give the same events.
. "$(dirname "$0")/lib.sh"

txns=${HARDENING_STREAM_TXNS:-20000}
gen_edn "$WORK/stream.edn" --txns "$txns" --processes 20 --keys 1000 --seed 11
pad=$(head -c 5000 /dev/zero | tr '\0' x)
awk -v pad="$pad" '{ sub(/}$/, ", :pad \"" pad "\"}"); print }' "$WORK/stream.edn" >"$WORK/padded.edn"
chmod 644 "$WORK/stream.edn" "$WORK/padded.edn"
small_bytes=$(stat -c %s "$WORK/stream.edn")
big_bytes=$(stat -c %s "$WORK/padded.edn")
diag "texts: $((small_bytes / 1048576)) MB and, padded, $((big_bytes / 1048576)) MB; $txns transactions each"
ok $([ "$big_bytes" -gt $((150 * 1048576)) ] && echo 0 || echo 1) "the padded text is over 150 MB"

# peak private memory of the current backend, kB (VmHWM minus touched shared memory)
PEAK="SELECT (regexp_match(s, 'VmHWM:\s+(\d+)'))[1]::bigint - coalesce((regexp_match(s, 'RssShmem:\s+(\d+)'))[1]::bigint, 0) FROM pg_read_file('/proc/self/status') AS s"

# stream NAME FILE: load through COPY in a fresh backend; prints "ms peak_kb"
stream() {
	psql -X -q -A -t -F ' ' -v ON_ERROR_STOP=1 -v name="$1" 2>&1 <<SQL
SET client_min_messages = warning;
SELECT extract(epoch FROM clock_timestamp()) * 1000 AS t0 \gset
SELECT iso_begin_load(:'name', 'list-append');
\copy iso_jepsen_input FROM '$2' WITH (FORMAT csv, QUOTE E'\x01', DELIMITER E'\x02')
SELECT round(extract(epoch FROM clock_timestamp()) * 1000 - :t0), ($PEAK);
SQL
}

read -r small_ms small_kb <<<"$(stream hardening-stream-small "$WORK/stream.edn" | tail -n 1)"
read -r big_ms big_kb <<<"$(stream hardening-stream-padded "$WORK/padded.edn" | tail -n 1)"
diag "streaming load: $small_ms ms, peak $small_kb kB (small text); $big_ms ms, peak $big_kb kB (padded text)"
ok $([[ "$small_kb" =~ ^[0-9]+$ && "$big_kb" =~ ^[0-9]+$ ]] && echo 0 || echo 1) "both streaming loads ran"
events() { q -c "SELECT count(*) FROM iso_event e JOIN iso_history h USING (history_id) WHERE h.name = '$1'"; }
small_events=$(events hardening-stream-small)
ok $([ "$small_events" -gt 0 ] && [ "$small_events" = "$(events hardening-stream-padded)" ] && echo 0 || echo 1) \
	"the padded text loads the same $small_events events"
ok $([ $((big_kb - small_kb)) -lt 16384 ] && echo 0 || echo 1) \
	"20 times the text, not more memory: the padded load's peak is within 16 MB of the small one's ($(( (big_kb - small_kb) / 1024 )) MB more)"
ok $([ "$big_kb" -lt $((big_bytes / 1024 / 4)) ] && echo 0 || echo 1) \
	"the padded load's peak ($((big_kb / 1024)) MB) is under a quarter of its text ($((big_bytes / 1048576)) MB)"

# the measure sees a held text: iso_load_jepsen of the padded text peaks above it
whole=$(psql -X -q -A -t -F ' ' -v ON_ERROR_STOP=1 -v file="$WORK/padded.edn" 2>&1 <<SQL
SET client_min_messages = warning;
\set edn \`cat :file\`
SELECT iso_load_jepsen('hardening-stream-whole', :'edn', 'list-append') IS NOT NULL AS loaded \gset
\unset edn
SELECT ($PEAK);
SQL
)
diag "iso_load_jepsen of the padded text: peak $whole kB"
ok $([[ "$whole" =~ ^[0-9]+$ ]] && [ "$whole" -gt $((big_bytes / 1024)) ] && echo 0 || echo 1) \
	"iso_load_jepsen of the padded text peaks above the text's size"

q -c "SELECT count(iso_delete_history(history_id)) FROM iso_history WHERE name LIKE 'hardening-stream-%'" >/dev/null
finish
