#!/usr/bin/env bash
# tools/ssi-race.sh: a deterministic reproduction of a PostgreSQL SERIALIZABLE
# commit race that lets a G2-item (a read-only anomaly) commit.  See
# docs/postgres-ssi-race.md for the analysis.
#
# Three SERIALIZABLE sessions on a table t(k, v) with rows x = 0, y = 0:
#   1. P:     BEGIN; UPDATE t SET v = 1 WHERE k = 'y'
#   2. T_out: BEGIN; UPDATE t SET v = 1 WHERE k = 'x'; COMMIT
#             -- with --pause (the default run), gdb stops T_out's backend at
#             -- ReleasePredicateLocks, inside COMMIT: T_out is already
#             -- visible to new snapshots, its SSI state not yet committed
#   3. T_in:  BEGIN; SELECT v FROM t WHERE k = 'x'           -> 1
#   4. P:     SELECT v FROM t WHERE k = 'x' -> 0; COMMIT
#   5. T_out's COMMIT is resumed and returns
#   6. T_in:  SELECT v FROM t WHERE k = 'y' -> 0; COMMIT
# T_in -rw-> P -rw-> T_out -wr-> T_in is a cycle: no serial order explains
# what the three saw.  First the same schedule runs without the pause (the
# control: PostgreSQL aborts T_in with 40001), then with it (all three
# commit on the affected versions).  Each run is printed step by step and
# stored in isograph as a Jepsen rw-register history, so
# iso_check('ser', id) shows the cycle.
#
# The target server must run on this machine: gdb attaches to a backend
# (root, or the server's user, with ptrace allowed).  Without gdb, ptrace
# or the symbol, the script says why and exits 3 (skipped).
#
# Usage: tools/ssi-race.sh [options]
#   --target DSN    server to test (default: the PG* environment)
#   --pg-bin DIR    instead, start a throwaway cluster from DIR (initdb,
#                   pg_ctl, postgres of any version) and test it
#   --store DSN     database with the isograph extension (default: the
#                   target; with --pg-bin, the PG* environment)
#   --no-store      do not store the histories
#   --name NAME     prefix of the stored histories' names (ssi-race)
#   --edn DIR       also write control.edn and race.edn into DIR
#   --timeout S     limit for each step (10 s)
#   --for-share     read with SELECT ... FOR SHARE (the workaround: the
#                   first-updater-wins rule then aborts P, exit status 4)
# Exit status: 0 the race reproduced (all three committed, cycle stored),
# 4 the server aborted a transaction even with the pause (not affected),
# 3 skipped (no gdb, ptrace or symbol), 2 bad options, 1 any other error.
# Environment: PG* for the target and store, GDB=path of gdb.
set -uo pipefail

TARGET=${PGDATABASE:+dbname=$PGDATABASE}
STORE=
PG_BIN_DIR=
NO_STORE=0
NAME=ssi-race
EDN_DIR=
TIMEOUT=10
TABLE=isograph_ssi_race
READ_LOCK=
GDB=${GDB:-gdb}    # the debugger to use (environment)

die() { echo "ssi-race: $*" >&2; exit 1; }
skip() { echo "ssi-race: SKIPPED: $*" >&2; exit 3; }
# usage [STATUS]: the options; on stdout for --help (0), else on stderr (2)
usage() {
	if [ "${1:-2}" = 0 ]; then help_text; exit 0; fi
	help_text >&2
	exit 2
}
help_text() { sed -n '/^# Usage:/,/^# Environment:/p' "$0" | sed 's/^# \{0,1\}//'; }

while [ $# -gt 0 ]; do
	case $1 in
	--target|--store|--pg-bin|--name|--edn|--timeout)
		[ $# -ge 2 ] || { echo "ssi-race: $1 needs a value" >&2; exit 2; } ;;
	esac
	case $1 in
	--target) TARGET=$2; shift 2 ;;
	--store) STORE=$2; shift 2 ;;
	--pg-bin) PG_BIN_DIR=$2; shift 2 ;;
	--no-store) NO_STORE=1; shift ;;
	--name) NAME=$2; shift 2 ;;
	--edn) EDN_DIR=$2; shift 2 ;;
	--timeout) TIMEOUT=$2; shift 2 ;;
	--for-share) READ_LOCK=' FOR SHARE'; shift ;;
	-h|--help) usage 0 ;;
	*) echo "ssi-race: unknown option \"$1\"" >&2; usage ;;
	esac
done
[[ $TIMEOUT =~ ^[0-9]+$ ]] && [ "$TIMEOUT" -gt 0 ] || { echo "ssi-race: --timeout needs a positive integer" >&2; exit 2; }

WORK=$(mktemp -d /tmp/ssi-race.XXXXXX) || die "cannot create a work directory"
chmod 755 "$WORK"
SESSIONS=()
GDB_PID=
CLUSTER=

# Always leave the backends running and untraced: resume and detach gdb
# (on SIGTERM gdb detaches from attached processes), end the sessions,
# stop a cluster we started.
cleanup() {
	touch "$WORK/resume"
	if [ -n "$GDB_PID" ] && kill -0 "$GDB_PID" 2>/dev/null; then
		for _ in $(seq 1 40); do kill -0 "$GDB_PID" 2>/dev/null || break; sleep 0.05; done
		kill -TERM "$GDB_PID" 2>/dev/null
		wait "$GDB_PID" 2>/dev/null
	fi
	local s
	for s in "${SESSIONS[@]}"; do
		local pid_var=pid_$s
		kill "${!pid_var}" 2>/dev/null
	done
	if [ -n "$CLUSTER" ]; then
		as_owner "$PG_BIN_DIR/pg_ctl" -D "$CLUSTER/data" -m immediate -w stop >/dev/null 2>&1
	fi
	[ -n "${SSI_RACE_KEEP:-}" ] && echo "ssi-race: kept $WORK" >&2 || rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

as_owner() {
	if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

now_ns() { date +%s%N; }
T0=$(now_ns)

# --------------------------------------------------------------- a target
if [ -n "$PG_BIN_DIR" ]; then
	[ -x "$PG_BIN_DIR/postgres" ] || die "no postgres in $PG_BIN_DIR"
	STORE=${STORE:-${PGDATABASE:+dbname=$PGDATABASE}}
	CLUSTER=$WORK/cluster
	mkdir -p "$CLUSTER"
	[ "$(id -u)" -eq 0 ] && chown postgres: "$CLUSTER"
	port=
	for p in $(seq 55420 55520); do
		(exec 3<>/dev/tcp/127.0.0.1/$p) 2>/dev/null || { port=$p; break; }
	done
	[ -n "$port" ] || die "no free port in 55420..55520"
	as_owner "$PG_BIN_DIR/initdb" -D "$CLUSTER/data" -A trust -U postgres --no-sync \
		-E UTF8 --locale=C >"$WORK/initdb.log" 2>&1 || { cat "$WORK/initdb.log" >&2; die "initdb failed"; }
	as_owner "$PG_BIN_DIR/pg_ctl" -D "$CLUSTER/data" -l "$CLUSTER/server.log" -w \
		-o "-p $port -k $CLUSTER -c listen_addresses=''" start >/dev/null ||
		{ cat "$CLUSTER/server.log" >&2; die "the cluster from $PG_BIN_DIR did not start"; }
	TARGET="host=$CLUSTER port=$port user=postgres dbname=postgres"
fi
STORE=${STORE:-$TARGET}

# psql on the target or the store, one command, unaligned
q_target() { psql -X -A -t -q -v ON_ERROR_STOP=1 -d "$TARGET" -c "$1"; }

VERSION=$(q_target 'SELECT version()') || die "cannot connect to the target ($TARGET)"
echo "server: $VERSION"

# --------------------------------------------------------------- can we pause?
command -v "$GDB" >/dev/null || skip "gdb ($GDB) is not installed (Debian: apt-get install gdb)"
command -v psql >/dev/null || die "psql is not installed"

# --------------------------------------------------------------- sessions
# A session is a psql reading a FIFO; every step ends with \echo @@N, and
# the step's output is what psql wrote between @@N-1 and @@N.
sess_start() {
	local s=$1
	rm -f "$WORK/$s.in" "$WORK/$s.out"
	mkfifo "$WORK/$s.in" || die "cannot create a FIFO in $WORK"
	psql -X -A -t -v ON_ERROR_STOP=0 -v VERBOSITY=verbose -v SHOW_CONTEXT=never -d "$TARGET" \
		<"$WORK/$s.in" >"$WORK/$s.out" 2>&1 &
	eval "pid_$s=$!"
	eval "exec {fd_$s}>\"$WORK/$s.in\""
	eval "step_$s=0"
	SESSIONS+=("$s")
}

# sess_send S SQL: send one statement, do not wait
sess_send() {
	local s=$1 fd_var=fd_$1 step_var=step_$1
	eval "step_$s=$((${!step_var} + 1))"
	printf '%s;\n\\echo @@%d\n' "$2" "${!step_var}" >&"${!fd_var}"
}

# sess_end S: quit psql (each psql also holds the other sessions' FIFOs
# open, so end of input alone would not end it), kill it if it hangs
sess_end() {
	local s=$1 fd_var=fd_$1 pid_var=pid_$1 i
	printf '\\q\n' >&"${!fd_var}" 2>/dev/null
	eval "exec {fd_$s}>&-"
	for ((i = 0; i < TIMEOUT * 20; i++)); do
		kill -0 "${!pid_var}" 2>/dev/null || break
		sleep 0.05
	done
	kill "${!pid_var}" 2>/dev/null
	wait "${!pid_var}" 2>/dev/null
}

# sess_done S: true when the last statement sent has finished
sess_done() {
	local step_var=step_$1
	grep -qx "@@${!step_var}" "$WORK/$1.out"
}

# sess_wait S: wait for the last statement and print its output
sess_wait() {
	local s=$1 step_var=step_$1 i
	for ((i = 0; i < TIMEOUT * 20; i++)); do
		if sess_done "$s"; then
			awk -v a="@@$((${!step_var} - 1))" -v b="@@${!step_var}" \
				'BEGIN { on = (a == "@@0") } $0 == b { exit } on { print } $0 == a { on = 1 }' "$WORK/$s.out" |
				sed 's/^psql:[^ ]*: //' | grep -v '^HINT:\|^LOCATION:'
			return 0
		fi
		sleep 0.05
	done
	die "session $s: no answer within $TIMEOUT s to: $(tail -n 3 "$WORK/$s.out")"
}

# sess_run S SQL: send, wait, print "S: SQL -> result", result in $R
sess_run() {
	sess_send "$1" "$2"
	R=$(sess_wait "$1") || exit 1
	R=${R//$'\n'/; }
	printf '  %-5s %-45s -> %s\n' "$1" "$2" "$R"
}

# --------------------------------------------------------------- gdb
# gdb_attach PID: stop PID at its next ReleasePredicateLocks; returns once
# the breakpoint is armed and the backend runs again.
gdb_attach() {
	cat >"$WORK/gdb.cmd" <<-EOF
		set pagination off
		set confirm off
		set breakpoint pending off
		handle SIGUSR1 SIGUSR2 SIGURG SIGALRM SIGPIPE SIGCHLD nostop noprint pass
		break ReleasePredicateLocks
		shell touch $WORK/gdb.armed
		continue
		bt 6
		shell touch $WORK/gdb.stopped
		shell i=0; while [ ! -e $WORK/resume ] && [ \$i -lt $((TIMEOUT * 40)) ]; do sleep 0.05; i=\$((i+1)); done
		delete
		detach
		quit
	EOF
	timeout -s TERM $((TIMEOUT * 4)) "$GDB" -nx -q -batch -x "$WORK/gdb.cmd" -p "$1" >"$WORK/gdb.log" 2>&1 &
	GDB_PID=$!
	local i
	for ((i = 0; i < TIMEOUT * 20; i++)); do
		[ -e "$WORK/gdb.armed" ] && return 0
		kill -0 "$GDB_PID" 2>/dev/null || break
		sleep 0.05
	done
	wait "$GDB_PID" 2>/dev/null
	GDB_PID=
	gdb_diagnose "$WORK/gdb.log" "$1"
	die "gdb did not arm the breakpoint: $(cat "$WORK/gdb.log")"
}

# gdb_diagnose LOG PID: skip with the reason when gdb could not do its job
# for a reason of the environment
gdb_diagnose() {
	if grep -q 'ptrace: Operation not permitted' "$1"; then
		skip "gdb may not attach to the backend (ptrace not permitted: run as root or as the server's user; check /proc/sys/kernel/yama/ptrace_scope)"
	elif grep -q 'Function "ReleasePredicateLocks" not defined' "$1"; then
		skip "the server binary has no symbol ReleasePredicateLocks (nm -D)"
	elif grep -qi 'No such process\|Could not attach\|Unable to attach' "$1"; then
		skip "gdb cannot attach to backend $2 (is the server on this machine?): $(head -n 3 "$1")"
	fi
}

# Before anything runs: can gdb attach to a backend and find the symbol?
gdb_preflight() {
	local pid
	sess_start probe
	sess_run probe 'SELECT pg_backend_pid()' >/dev/null
	pid=$R
	timeout -s TERM $((TIMEOUT * 2)) "$GDB" -nx -q -batch -ex 'set breakpoint pending off' \
		-ex 'break ReleasePredicateLocks' -p "$pid" >"$WORK/preflight.log" 2>&1
	gdb_diagnose "$WORK/preflight.log" "$pid"
	grep -q '^Breakpoint 1 at' "$WORK/preflight.log" ||
		die "gdb could not set a breakpoint in backend $pid: $(cat "$WORK/preflight.log")"
	sess_end probe
	SESSIONS=()
}

wait_file() {
	local i
	for ((i = 0; i < TIMEOUT * 20; i++)); do
		[ -e "$1" ] && return 0
		sleep 0.05
	done
	return 1
}

# --------------------------------------------------------------- one run
# Values read: 0 is the initial row, i.e. Jepsen's nil; 1 the write.
edn_val() { case $1 in 0) echo nil ;; ''|*[!0-9]*) echo nil ;; *) echo "$1" ;; esac; }

# short_err TEXT [FORMAT]: an error as its SQLSTATE ("error 40001"), else TEXT
short_err() {
	if [[ $1 =~ ERROR:\ +([0-9A-Z]{5}) ]]; then
		printf "${2:-%s}" "error ${BASH_REMATCH[1]}"
	elif [ -z "${2:-}" ]; then
		printf '%s' "$1"
	fi
}

# outcome of a COMMIT (and of earlier errors): ok or fail
outcome() {
	case $1 in
	*ERROR*) echo fail ;;
	COMMIT) echo ok ;;
	ROLLBACK) echo fail ;;
	*) echo unknown ;;
	esac
}

# run_schedule race|control: sets OUT_P, OUT_TOUT, OUT_TIN, EDN, STEPS
run_schedule() {
	local mode=$1 tout_pid p_x tin_x tin_y p_commit tout_commit tin_commit tin_err=
	local t_inv_p t_inv_tout t_inv_tin t_ok_p t_ok_tout t_ok_tin

	q_target "SET client_min_messages = warning; DROP TABLE IF EXISTS $TABLE; CREATE TABLE $TABLE (k text PRIMARY KEY, v int NOT NULL);
		INSERT INTO $TABLE VALUES ('x', 0), ('y', 0)" >/dev/null || die "cannot create table $TABLE"
	for s in P T_out T_in; do sess_start "$s"; done
	sess_run T_out 'SELECT pg_backend_pid()' >/dev/null
	tout_pid=$R
	[[ $tout_pid =~ ^[0-9]+$ ]] || die "no backend pid for T_out: $R"

	echo "$mode run:"
	t_inv_p=$(now_ns)
	sess_run P 'BEGIN ISOLATION LEVEL SERIALIZABLE'
	sess_run P "UPDATE $TABLE SET v = 1 WHERE k = 'y'"
	t_inv_tout=$(now_ns)
	sess_run T_out 'BEGIN ISOLATION LEVEL SERIALIZABLE'
	sess_run T_out "UPDATE $TABLE SET v = 1 WHERE k = 'x'"
	if [ "$mode" = race ]; then
		gdb_attach "$tout_pid"
		sess_send T_out 'COMMIT'
		wait_file "$WORK/gdb.stopped" || die "T_out's backend did not stop at ReleasePredicateLocks: $(cat "$WORK/gdb.log")"
		grep -q '^#0 .*ReleasePredicateLocks' "$WORK/gdb.log" ||
			die "gdb stopped T_out elsewhere: $(cat "$WORK/gdb.log")"
		sleep 0.2
		sess_done T_out && die "T_out's COMMIT returned although its backend is stopped"
		printf '  %-5s %-45s -> %s\n' T_out COMMIT "(paused in ReleasePredicateLocks, backend $tout_pid)"
	else
		sess_run T_out 'COMMIT'
		tout_commit=$R
		t_ok_tout=$(now_ns)
	fi
	t_inv_tin=$(now_ns)
	sess_run T_in 'BEGIN ISOLATION LEVEL SERIALIZABLE'
	sess_run T_in "SELECT v FROM $TABLE WHERE k = 'x'$READ_LOCK"
	tin_x=$R
	sess_run P "SELECT v FROM $TABLE WHERE k = 'x'$READ_LOCK"
	p_x=$R
	sess_run P 'COMMIT'
	p_commit=$R
	t_ok_p=$(now_ns)
	if [ "$mode" = race ]; then
		touch "$WORK/resume"
		tout_commit=$(sess_wait T_out) || exit 1
		t_ok_tout=$(now_ns)
		printf '  %-5s %-45s -> %s\n' T_out '(resumed)' "$tout_commit"
		wait "$GDB_PID" 2>/dev/null
		GDB_PID=
		grep -q 'Detaching from\|\[Inferior 1 (process [0-9]*) detached\]' "$WORK/gdb.log" ||
			die "gdb did not detach cleanly: $(cat "$WORK/gdb.log")"
	fi
	sess_run T_in "SELECT v FROM $TABLE WHERE k = 'y'$READ_LOCK"
	tin_y=$R
	[[ $tin_y == *ERROR* ]] && tin_err=$tin_y
	sess_run T_in 'COMMIT'
	tin_commit=$R
	t_ok_tin=$(now_ns)
	for s in P T_out T_in; do sess_end "$s"; done
	SESSIONS=()

	OUT_P=$(outcome "$p_commit")
	OUT_TOUT=$(outcome "$tout_commit")
	OUT_TIN=$(outcome "$tin_err$tin_commit")
	for o in "$OUT_P" "$OUT_TOUT" "$OUT_TIN"; do
		[ "$o" = unknown ] && die "unexpected COMMIT answer (P: $p_commit, T_out: $tout_commit, T_in: $tin_commit)"
	done
	echo "  outcomes: P $OUT_P, T_out $OUT_TOUT, T_in $OUT_TIN$(short_err "$tin_err" ' (%s at its read of y)')"

	# Jepsen rw-register history: P = process 0, T_out = 1, T_in = 2.
	# A failed transaction's reads are unknown (nil), as Jepsen records them.
	local vp="[[:w \"y\" 1] [:r \"x\" $(edn_val "$p_x")]]"
	local vo='[[:w "x" 1]]'
	local vi="[[:r \"x\" $(edn_val "$tin_x")] [:r \"y\" $(edn_val "$tin_y")]]"
	[ "$OUT_P" = fail ] && vp='[[:w "y" 1] [:r "x" nil]]'
	[ "$OUT_TIN" = fail ] && vi='[[:r "x" nil] [:r "y" nil]]'
	EDN=$(
		{
			echo "$((t_inv_p - T0)) 0 :invoke [[:w \"y\" 1] [:r \"x\" nil]]"
			echo "$((t_inv_tout - T0)) 1 :invoke $vo"
			echo "$((t_inv_tin - T0)) 2 :invoke [[:r \"x\" nil] [:r \"y\" nil]]"
			echo "$((t_ok_p - T0)) 0 :$OUT_P $vp"
			echo "$((t_ok_tout - T0)) 1 :$OUT_TOUT $vo"
			echo "$((t_ok_tin - T0)) 2 :$OUT_TIN $vi"
		} | sort -n -k1,1 | awk '{
			t = $1; p = $2; ty = $3; $1 = $2 = $3 = "";
			sub(/^ +/, "");
			printf "{:type %s, :f :txn, :value %s, :process %s, :time %s, :index %d}\n", ty, $0, p, t, NR - 1
		}'
	)
	STEPS="P read x=$(short_err "$p_x"), T_in read x=$(short_err "$tin_x") y=$(short_err "$tin_y")"
	# transaction ids are the completions' :index (Jepsen's convention)
	LEGEND=$(printf '%s\n' "$EDN" | awk '!/:type :invoke/ {
		match($0, /:process [0-9]+/); p = substr($0, RSTART + 9, RLENGTH - 9)
		match($0, /:index [0-9]+/); n[p] = substr($0, RSTART + 7, RLENGTH - 7)
	} END { printf "P = T%s, T_out = T%s, T_in = T%s", n[0], n[1], n[2] }')
}

# --------------------------------------------------------------- store
# store MODE: load $EDN, note the server and outcomes; prints the SER check
store() {
	local mode=$1 id
	id=$(psql -X -A -t -q -v ON_ERROR_STOP=1 -d "$STORE" -v edn="$EDN" -v mode="$mode" \
		-v version="$VERSION" -v op="$OUT_P" -v oo="$OUT_TOUT" -v oi="$OUT_TIN" \
		-v steps="$STEPS" -v legend="$LEGEND" -v read_lock="${READ_LOCK# }" \
		-v name="$NAME-$mode-$(date +%Y%m%dT%H%M%S)-$$" <<-'EOF'
			BEGIN;
			SELECT iso_load_jepsen(:'name', :'edn', 'rw-register') AS id \gset
			UPDATE iso_history SET metadata = metadata || jsonb_build_object('tool', 'ssi-race',
				'schedule', :'mode', 'read_lock', :'read_lock', 'server_version', :'version', 'reads', :'steps',
				'outcomes', jsonb_build_object('P', :'op', 'T_out', :'oo', 'T_in', :'oi'),
				'transactions', :'legend')
			 WHERE history_id = :id;
			COMMIT;
			SELECT :id;
		EOF
	) || die "cannot store the $mode history in the store database ($STORE); is the isograph extension installed there?"
	echo "  stored as history_id $id ($LEGEND); iso_check('ser', $id):"
	psql -X -A -t -F ' | ' -v ON_ERROR_STOP=1 -d "$STORE" -c \
		"SELECT anomaly, cycle, edge_types, keys, explanation FROM iso_check('ser', $id)" | sed 's/^/    /' |
		grep . || echo "    (no violation: SER holds)"
	psql -X -A -t -v ON_ERROR_STOP=1 -d "$STORE" -c \
		"SELECT '  levels: ' || string_agg(level || '=' || CASE WHEN holds THEN 'holds' ELSE 'VIOLATED' END, ', ' ORDER BY level)
		   FROM iso_levels($id) WHERE level IN ('pl-2', 'si', 'ser')"
	STORED_ID=$id
}

run_and_store() {
	run_schedule "$1"
	if [ -n "$EDN_DIR" ]; then
		mkdir -p "$EDN_DIR" && printf '%s\n' "$EDN" >"$EDN_DIR/$1.edn" || die "cannot write $EDN_DIR/$1.edn"
	fi
	[ "$NO_STORE" = 1 ] || store "$1"
}

gdb_preflight
run_and_store control
run_and_store race

if [ "$OUT_P $OUT_TOUT $OUT_TIN" = "ok ok ok" ]; then
	echo "result: REPRODUCED: all three committed a non-serializable history (G2-item)"
	[ "$NO_STORE" = 1 ] || echo "${STORED_ID}"
	exit 0
fi
echo "result: not reproduced: the server aborted a transaction (P $OUT_P, T_out $OUT_TOUT, T_in $OUT_TIN)"
[ "$NO_STORE" = 1 ] || echo "${STORED_ID}"
exit 4
