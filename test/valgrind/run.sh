#!/usr/bin/env bash
# test/valgrind/run.sh: the pg_regress suite once against a throwaway
# cluster whose postmaster (and so every backend) runs under valgrind
# memcheck.  Fails if the regression tests fail or if valgrind reports an
# error whose stack goes through isograph (isograph.so or the checkout's
# src/).  Called by "make valgrind" (mk/hardening.mk); needs root or the
# postgres user, valgrind, and the extension installed (make install).
#
#   VALGRIND_KEEP=1          keep the cluster directory and the logs
#   VALGRIND_SUPP=file       suppressions (default test/valgrind/postgresql.supp)
#   VALGRIND_TESTS="a b"     pg_regress tests to run (default: all of test/sql)
#
# Time: about 18 minutes on 2 shared cores, 16 of them in check.sql (its
# 100,000-transaction histories); VALGRIND_TESTS="bad_input graph ingest
# ingest_errors verdicts" (all but check.sql) takes about 80 s.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."   # the tests read test/data/... relative to the checkout

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
PG_BIN=${PG_BIN:-$(pg_config --bindir 2>/dev/null || echo /usr/lib/postgresql/15/bin)}
PGXS_DIR=$(cd "$(dirname "$(pg_config --pgxs)")/../.." && pwd)
PG_REGRESS=$PGXS_DIR/src/test/regress/pg_regress
SUPP=${VALGRIND_SUPP:-$ROOT/test/valgrind/postgresql.supp}
TESTS=${VALGRIND_TESTS:-$(cd "$ROOT/test/sql" && ls *.sql | sed 's/\.sql$//' | sort | tr '\n' ' ')}

as_owner() { if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
free_port() {
	local p
	for p in $(seq 55700 55799); do
		(exec 3<>/dev/tcp/127.0.0.1/$p) 2>/dev/null || { echo "$p"; return; }
	done
	echo "no free port in 55700..55799" >&2; exit 1
}

command -v valgrind >/dev/null || { echo "valgrind is not installed (apt-get install valgrind)" >&2; exit 1; }
[ -x "$PG_REGRESS" ] || { echo "pg_regress not found at $PG_REGRESS" >&2; exit 1; }

DIR=$(mktemp -d /tmp/isograph-valgrind.XXXXXX)
chmod 755 "$DIR"
[ "$(id -u)" -eq 0 ] && chown postgres: "$DIR"
PORT=$(free_port)
start=$(date +%s)

cleanup() {
	as_owner "$PG_BIN/pg_ctl" -D "$DIR/data" -m fast -w -t 120 stop >/dev/null 2>&1 || true
	if [ "${VALGRIND_KEEP:-0}" != 1 ]; then rm -rf "$DIR"; else echo "kept $DIR"; fi
}
trap cleanup EXIT

echo "==> initdb in $DIR (port $PORT)"
as_owner "$PG_BIN/initdb" -D "$DIR/data" -A trust -U postgres --no-sync -E UTF8 --locale=C \
	>"$DIR/initdb.log" 2>&1 || { cat "$DIR/initdb.log"; exit 1; }
cp "$SUPP" "$DIR/valgrind.supp"; chmod 644 "$DIR/valgrind.supp"

# The postmaster under valgrind; backends are forks of it, so they are
# checked too (--trace-children also follows anything it execs).
echo "==> starting postgres under valgrind memcheck"
as_owner bash -c "exec valgrind --quiet --tool=memcheck --trace-children=yes \
	--leak-check=no --error-exitcode=128 --error-limit=no --num-callers=40 \
	--track-origins=yes --read-var-info=no --fullpath-after= --gen-suppressions=all \
	--suppressions='$DIR/valgrind.supp' --log-file='$DIR/valgrind.%p.log' \
	'$PG_BIN/postgres' -D '$DIR/data' -p $PORT -k '$DIR' -c listen_addresses='' \
	-c fsync=off -c shared_buffers=16MB -c max_connections=20 -c autovacuum=off \
	-c max_parallel_workers_per_gather=0 -c deadlock_timeout=20ms -c jit=off \
	>'$DIR/server.log' 2>&1" &
for i in $(seq 1 240); do
	"$PG_BIN/pg_isready" -q -h "$DIR" -p "$PORT" && break
	sleep 1
done
"$PG_BIN/pg_isready" -q -h "$DIR" -p "$PORT" || { echo "server did not start"; tail -n 30 "$DIR/server.log"; exit 1; }
echo "==> server up after $(( $(date +%s) - start )) s; running pg_regress: $TESTS"

mkdir -p "$DIR/out"
ln -s "$ROOT/expected" "$DIR/out/expected"
chmod -R a+rwX "$DIR/out"
rc=0
PGHOST=$DIR PGPORT=$PORT PGUSER=postgres "$PG_REGRESS" --inputdir="$ROOT/test" \
	--outputdir="$DIR/out" --bindir="$PG_BIN" --dbname=isograph_valgrind \
	--load-extension=isograph $TESTS || rc=$?
if [ $rc -ne 0 ]; then
	echo "==> pg_regress failed (exit $rc); diffs:"
	head -n 100 "$DIR/out/regression.diffs" 2>/dev/null || true
fi

as_owner "$PG_BIN/pg_ctl" -D "$DIR/data" -m fast -w -t 120 stop >/dev/null 2>&1 || true
wait || true
elapsed=$(( $(date +%s) - start ))

# One valgrind error = one block of "==PID== " lines from a description
# line to the next blank "==PID== " line.  Count all, and those whose stack
# mentions isograph.so, or (isograph.so built with debug info) one of
# isograph's source files, wherever it was compiled: ".../src/infer.c:12".
cat "$DIR"/valgrind.*.log > "$DIR/valgrind.all" 2>/dev/null || true
ISO_FILES=$(cd "$ROOT/src" && ls *.c | sed 's/\.c$//' | paste -sd'|')
ISO_RE="isograph\\.so|/src/($ISO_FILES)\\.c:"
read -r total ours < <(awk -v re="$ISO_RE" '
	/^==[0-9]+== *$/ { if (inblk) { n++; if (hit) o++ }; inblk = 0; hit = 0; next }
	/^==[0-9]+== [A-Z]/ && !inblk && !/ERROR SUMMARY|HEAP SUMMARY|LEAK SUMMARY|Memcheck|Copyright|Using Valgrind|Command:|Parent PID/ { inblk = 1 }
	inblk && $0 ~ re { hit = 1 }
	END { if (inblk) { n++; if (hit) o++ }; print n + 0, o + 0 }' "$DIR/valgrind.all")
echo "==> valgrind: $total error(s) reported in $(ls "$DIR"/valgrind.*.log | wc -l) processes, $ours in isograph code; ${elapsed}s in total"
if [ "$ours" -gt 0 ]; then
	awk -v re="$ISO_RE" '
	/^==[0-9]+== *$/ { if (inblk && hit) print blk "\n"; inblk = 0; hit = 0; blk = ""; next }
	/^==[0-9]+== [A-Z]/ && !inblk { inblk = 1 }
	inblk { blk = blk "\n" $0; if ($0 ~ re) hit = 1 }' "$DIR/valgrind.all" | head -n 200
fi
crashed=$(grep -c 'exited with exit code 128' "$DIR/server.log" || true)
[ "$crashed" -gt 0 ] && echo "    $crashed server process(es) exited with valgrind's error exit code 128 (see above)"
if [ "$total" -gt "$ours" ]; then
	echo "    (errors outside isograph do not fail this target; VALGRIND_KEEP=1 keeps the logs)"
fi
[ $rc -eq 0 ] && [ "$ours" -eq 0 ]
