#!/usr/bin/env bash
# Demo: install what is missing, build, start a throwaway cluster, load a
# Jepsen history and print which isolation levels it satisfies, with the
# witnesses of what it violates.
#
#   tools/demo.sh                 a list-append history made here by
#                                 bench/isograph-gen: 1000 transactions of
#                                 10 clients, with one write skew planted
#   tools/demo.sh history.edn     a Jepsen EDN history of your own
#   tools/demo.sh --keep [...]    the same, and leave the cluster running
#                                 (with the demo history loaded) for psql
#                                 and isograph-record; tools/stop.sh ends it
. "$(dirname "$0")/common.sh"

keep=0
if [ "${1:-}" = --keep ]; then
	keep=1
	shift
fi

iso_install_packages
iso_build
iso_cluster_start

if [ $# -ge 1 ]; then
	history=$1
	planted=""
else
	# The generator's history is strict-serializable but for what --inject
	# plants; it goes to the cluster's directory, removed with the cluster.
	make -C "$ISO_ROOT/bench" -s gen >/dev/null
	history=$ISO_CLUSTER_DIR/demo-write-skew.edn
	planted=$("$ISO_ROOT/bench/isograph-gen" --workload list-append --txns 1000 \
		--processes 10 --keys 50 --seed 1 --inject G2-item --verbose \
		--output "$history" 2>&1 | sed -n 's/^inject /planted: /p')
fi

psql -X -q -v ON_ERROR_STOP=1 -v history="$history" -v planted="$planted" <<'SQL'
CREATE EXTENSION isograph;
-- report every witness, not the default 3 per anomaly
SET isograph.max_witnesses = 100;
\set edn `cat :'history'`
SELECT iso_load_jepsen('demo', :'edn') AS history_id \gset
\echo
\echo 'Loaded history' :history_id 'from' :history
\echo :planted
SELECT status, count(DISTINCT txn_id) AS transactions, count(*) AS micro_ops
  FROM iso_event WHERE history_id = :history_id GROUP BY status ORDER BY status;
\echo 'Isolation levels (iso_levels):'
SELECT level, holds, violations, strongest FROM iso_levels(:history_id);
\echo 'Serializability violations (iso_check(''ser'')):'
\x on
SELECT anomaly, cycle, edge_types, keys, explanation FROM iso_check('ser', :history_id);
SQL

if [ "$keep" = 1 ]; then
	make -C "$ISO_ROOT/client" -s >/dev/null
	iso_cluster_keep
	cat <<EOF

The cluster keeps running (PostgreSQL 15, port $PGPORT, socket in $PGHOST).
Connect to it from this shell with:

  . $ISO_ROOT/.cluster.env
  psql                                  # the demo history is loaded there
  $ISO_ROOT/client/isograph-record --target dbname=postgres --store dbname=postgres --check

Stop and delete it with: tools/stop.sh
EOF
fi
