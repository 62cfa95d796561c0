#!/usr/bin/env bash
# The README's SQL examples, run as a user pastes them: every ```sql block,
# in order, in one psql session on one fresh database, stopping at the first
# error.  The files the examples name (history.edn, events.csv, ...) are
# made in a scratch directory from the repository's test data, and psql runs
# there.  Needs a running server (PG* environment), as tools/test.sh gives.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
DB=isograph_readme
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# The files the README's examples read.
cp "$ROOT/test/data/register/g0.edn" "$WORK/history.edn"
cp "$ROOT/test/data/register/g0.wal.jsonl" "$WORK/g0.wal.jsonl"
cp "$ROOT/test/readme/events.csv" "$WORK/events.csv"
chmod -R a+rX "$WORK"

# Every ```sql block, each announced by the README line it starts on.
awk '/^```sql/ { inblock = 1; printf "\\echo readme: the sql block at README.md line %d\n", NR; next }
     /^```/ { if (inblock) print ""; inblock = 0; next }
     inblock { print }' "$ROOT/README.md" >"$WORK/readme.sql"
blocks=$(grep -c '^\\echo readme:' "$WORK/readme.sql")

psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB"
echo "1..2"
if (cd "$WORK" && psql -X -q -v ON_ERROR_STOP=1 -d "$DB" -f readme.sql) >"$WORK/out" 2>&1; then
	echo "ok 1 - the README's $blocks sql blocks run as written, in order, in one fresh database"
else
	echo "not ok 1 - the README's sql blocks run as written (the last block announced failed)"
	sed 's/^/# /' "$WORK/out" | tail -n 30
fi
# No example names a fixed history id: ids come from RETURNING / \gset.
if grep -nE "iso_[a-z_]+\((1|7|42)[,)]" "$ROOT/README.md" | grep -v '^\s*|' >"$WORK/fixed"; then
	echo "not ok 2 - README examples use fixed history ids"
	sed 's/^/# /' "$WORK/fixed"
else
	echo "ok 2 - README examples use no fixed history ids"
fi
psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $DB"
