#!/usr/bin/env bash
# Stop the cluster that `tools/demo.sh --keep` left running, and delete it.
set -euo pipefail
ISO_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
env_file=$ISO_ROOT/.cluster.env
if [ ! -f "$env_file" ]; then
	echo "no kept cluster here (tools/demo.sh --keep starts one)" >&2
	exit 0
fi
. "$env_file"
if [ -d "$ISO_CLUSTER_DIR/data" ]; then
	if [ "$(id -u)" -eq 0 ]; then
		runuser -u postgres -- "$PG_BIN/pg_ctl" -D "$ISO_CLUSTER_DIR/data" -m fast -w stop >/dev/null 2>&1 || true
	else
		"$PG_BIN/pg_ctl" -D "$ISO_CLUSTER_DIR/data" -m fast -w stop >/dev/null 2>&1 || true
	fi
	rm -rf "$ISO_CLUSTER_DIR"
fi
rm -f "$env_file"
echo "stopped the cluster on port $PGPORT and deleted $ISO_CLUSTER_DIR"
