/* isograph--0.2.0--0.3.0.sql: Elle-agreeing inference, hardening */

\echo Use "ALTER EXTENSION isograph UPDATE TO '0.3.0'" to load this file. \quit

-- Checks read under a snapshot of their own that sees what the calling
-- statement loaded before them (a check in the same statement as the load
-- judged 0 events), and they read isograph.* settings, which are lost when
-- the library is first loaded in a parallel query: VOLATILE, PARALLEL
-- UNSAFE (see the install script).
ALTER FUNCTION @extschema@.iso_build_graph(bigint) VOLATILE PARALLEL UNSAFE;
ALTER FUNCTION @extschema@.iso_graph_stats(bigint) VOLATILE PARALLEL UNSAFE;
ALTER FUNCTION @extschema@.iso_anomalies(bigint) VOLATILE PARALLEL UNSAFE;
ALTER FUNCTION @extschema@.iso_check(text, bigint, integer) VOLATILE PARALLEL UNSAFE;
ALTER FUNCTION @extschema@.iso_levels(bigint) VOLATILE PARALLEL UNSAFE;
ALTER FUNCTION @extschema@.iso_dot(bigint, bigint[]) VOLATILE PARALLEL UNSAFE;
ALTER FUNCTION @extschema@.iso_check_edges(text, bigint, integer) VOLATILE PARALLEL UNSAFE;
ALTER FUNCTION @extschema@.iso_levels_jepsen(text, text) PARALLEL UNSAFE;
