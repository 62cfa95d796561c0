# Shared set-up for tools/demo.sh and tools/test.sh (sourced, not run).
#
# - installs the Debian packages the build and tests need, when missing;
# - builds and installs the extension and its programs;
# - starts a private throwaway PostgreSQL 15 cluster on a free port, in
#   .cluster/ of the checkout, and stops it when the calling script exits.
#
# As root, the cluster runs as the "postgres" user (initdb refuses root).

set -euo pipefail

ISO_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# ISO_DESTDIR=/some/dir: install into a staged copy of the PostgreSQL 15
# tree under that directory and run the cluster from it, leaving the system
# installation alone (several checkouts can then be tested side by side).
ISO_DESTDIR=${ISO_DESTDIR:-}
PG_BIN=$ISO_DESTDIR/usr/lib/postgresql/15/bin
ISO_PACKAGES="make gcc postgresql-15 postgresql-server-dev-15 libpq-dev libcadical-dev \
postgresql-15-pgtap libtap-parser-sourcehandler-pgtap-perl libipc-run-perl graphviz"

iso_log() { printf '==> %s\n' "$*" >&2; }

# Install what is missing (Debian 12; needs root when something is missing).
iso_install_packages() {
	local missing=() p
	for p in $ISO_PACKAGES "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	iso_log "installing: ${missing[*]}"
	if [ "$(id -u)" -ne 0 ]; then
		echo "missing packages: ${missing[*]} (run as root or install them)" >&2
		exit 1
	fi
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq >/dev/null
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# Build and install the extension and the client programs.
iso_build() {
	iso_log "building and installing isograph"
	make -C "$ISO_ROOT" -s -j2 >/dev/null
	if [ -n "$ISO_DESTDIR" ]; then
		iso_stage_postgres
		make -C "$ISO_ROOT" -s install DESTDIR="$ISO_DESTDIR" >/dev/null
	else
		make -C "$ISO_ROOT" -s install >/dev/null
	fi
}

# A private copy of the PostgreSQL 15 server tree under $ISO_DESTDIR (the
# server finds its share and lib directories relative to its binary).
iso_stage_postgres() {
	[ -x "$PG_BIN/postgres" ] && return 0
	iso_log "staging a copy of PostgreSQL 15 in $ISO_DESTDIR"
	mkdir -p "$ISO_DESTDIR/usr/lib/postgresql" "$ISO_DESTDIR/usr/share/postgresql"
	cp -a /usr/lib/postgresql/15 "$ISO_DESTDIR/usr/lib/postgresql/"
	cp -a /usr/share/postgresql/15 "$ISO_DESTDIR/usr/share/postgresql/"
	chmod -R a+rX "$ISO_DESTDIR"
}

# Run a command as the cluster's owner.
iso_as_owner() {
	if [ "$(id -u)" -eq 0 ]; then
		runuser -u postgres -- "$@"
	else
		"$@"
	fi
}

iso_free_port() {
	local port
	for port in $(seq 54320 54420); do
		if ! (exec 3<>/dev/tcp/127.0.0.1/$port) 2>/dev/null; then
			echo "$port"
			return
		fi
	done
	echo "no free port in 54320..54420" >&2
	exit 1
}

# Start a fresh cluster; exports PGHOST, PGPORT, PGUSER, PGDATABASE.  A
# cluster kept by tools/demo.sh --keep is stopped first (same directory).
iso_cluster_start() {
	local dir="$ISO_ROOT/.cluster"
	if [ -f "$ISO_ROOT/.cluster.env" ]; then "$ISO_ROOT/tools/stop.sh" >/dev/null 2>&1 || true; fi
	rm -rf "$dir"
	mkdir -p "$dir"
	if [ "$(id -u)" -eq 0 ]; then
		chown postgres: "$dir"
		# postgres must be able to reach the checkout; else use /tmp
		if ! runuser -u postgres -- test -w "$dir"; then
			rm -rf "$dir"
			dir=$(mktemp -d /tmp/isograph-cluster.XXXXXX)
			chown postgres: "$dir"
		fi
	fi
	ISO_CLUSTER_DIR=$dir
	PGPORT=$(iso_free_port)
	iso_log "starting a throwaway PostgreSQL 15 cluster in $dir on port $PGPORT"
	iso_as_owner "$PG_BIN/initdb" -D "$dir/data" -A trust -U postgres --no-sync \
		-E UTF8 --locale=C >"$dir/initdb.log" 2>&1 ||
		{ cat "$dir/initdb.log" >&2; exit 1; }
	iso_as_owner "$PG_BIN/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w \
		-o "-p $PGPORT -k $dir -c listen_addresses=127.0.0.1 -c fsync=off -c deadlock_timeout=20ms" \
		start >/dev/null
	export PGHOST=$dir PGPORT PGUSER=postgres PGDATABASE=postgres
	trap iso_cluster_stop EXIT
}

# Leave the cluster running when the calling script exits (tools/demo.sh
# --keep): its connection settings go to .cluster.env, which tools/stop.sh
# reads to stop it.
iso_cluster_keep() {
	trap - EXIT
	{
		echo "export PGHOST=$PGHOST PGPORT=$PGPORT PGUSER=$PGUSER PGDATABASE=$PGDATABASE"
		echo "ISO_CLUSTER_DIR=$ISO_CLUSTER_DIR"
		echo "PG_BIN=$PG_BIN"
	} >"$ISO_ROOT/.cluster.env"
}

iso_cluster_stop() {
	if [ -n "${ISO_CLUSTER_DIR:-}" ] && [ -d "$ISO_CLUSTER_DIR/data" ]; then
		iso_as_owner "$PG_BIN/pg_ctl" -D "$ISO_CLUSTER_DIR/data" -m fast -w stop >/dev/null 2>&1 || true
		if [ "${KEEP_CLUSTER:-0}" != 1 ]; then
			rm -rf "$ISO_CLUSTER_DIR"
		fi
	fi
}
