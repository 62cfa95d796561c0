#!/usr/bin/env bash
# Demo: install what is missing, build, start a throwaway cluster, load a
# bundled Jepsen history and print which isolation levels it satisfies.
#
#   tools/demo.sh [history.edn]      (default: ArangoDB write-skew history)
. "$(dirname "$0")/common.sh"

history=${1:-$ISO_ROOT/test/data/list-append/arangodb-write-skew.edn}

iso_install_packages
iso_build
iso_cluster_start

psql -X -q -v ON_ERROR_STOP=1 -v history="$history" <<'SQL'
CREATE EXTENSION isograph;
-- report every witness, not the default 3 per anomaly
SET isograph.max_witnesses = 100;
\set edn `cat :'history'`
SELECT iso_load_jepsen('demo', :'edn') AS history_id \gset
\echo
\echo 'Loaded history' :history_id 'from' :history
SELECT status, count(DISTINCT txn_id) AS transactions, count(*) AS micro_ops
  FROM iso_event WHERE history_id = :history_id GROUP BY status ORDER BY status;
\echo 'Isolation levels (iso_levels):'
SELECT level, holds, violations, strongest FROM iso_levels(:history_id);
\echo 'Serializability violations (iso_check(''ser'')):'
\x on
SELECT anomaly, cycle, edge_types, keys, explanation FROM iso_check('ser', :history_id);
SQL
