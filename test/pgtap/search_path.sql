-- The functions are safe against a hostile search_path: a role creates, in
-- a schema searched before the extension's (and before pg_catalog), tables
-- named like the extension's and operators and functions that would be
-- picked by any unqualified reference, each of them recording that it ran.
-- The extension's functions must still use their own objects: correct
-- results, nothing recorded, the shadow tables untouched.
BEGIN;
SELECT plan(24);

CREATE ROLE iso_mallory LOGIN;
CREATE SCHEMA evil AUTHORIZATION iso_mallory;
SET ROLE iso_mallory;

CREATE TABLE evil.trap_log (what text);
GRANT INSERT, SELECT ON evil.trap_log TO PUBLIC;
CREATE FUNCTION evil.trap(what text) RETURNS boolean LANGUAGE sql AS
  $$ INSERT INTO evil.trap_log VALUES (what) RETURNING true $$;

-- shadow tables, one row each
CREATE TABLE evil.iso_history (history_id bigint, name text, workload text, source text,
  loaded_at timestamptz, owner name, skipped bigint, metadata jsonb);
INSERT INTO evil.iso_history VALUES (1, 'shadow', 'list-append', 'evil', now(), 'iso_mallory', 0, '{}');
CREATE TABLE evil.iso_event (LIKE public.iso_event);
INSERT INTO evil.iso_event (history_id, txn_id, status, pos, op, key, value) VALUES (1, 1, 'ok', 0, 'w', 'x', 'evil');
CREATE TABLE evil.iso_version (LIKE public.iso_version);
CREATE TABLE evil.iso_edge (LIKE public.iso_edge);
GRANT ALL ON evil.iso_history, evil.iso_event, evil.iso_version, evil.iso_edge TO PUBLIC;
GRANT USAGE ON SCHEMA evil TO PUBLIC;

-- operators that win over pg_catalog's when evil comes first in the path
CREATE FUNCTION evil.eq_int8(bigint, bigint) RETURNS boolean LANGUAGE sql AS
  $$ SELECT evil.trap('int8 =') AND $1 OPERATOR(pg_catalog.=) $2 $$;
CREATE OPERATOR evil.= (LEFTARG = bigint, RIGHTARG = bigint, FUNCTION = evil.eq_int8);
CREATE FUNCTION evil.eq_text(text, text) RETURNS boolean LANGUAGE sql AS
  $$ SELECT evil.trap('text =') AND $1 OPERATOR(pg_catalog.=) $2 $$;
CREATE OPERATOR evil.= (LEFTARG = text, RIGHTARG = text, FUNCTION = evil.eq_text);
CREATE FUNCTION evil.gt_int8(bigint, bigint) RETURNS boolean LANGUAGE sql AS
  $$ SELECT evil.trap('int8 >') AND $1 OPERATOR(pg_catalog.>) $2 $$;
CREATE OPERATOR evil.> (LEFTARG = bigint, RIGHTARG = bigint, FUNCTION = evil.gt_int8);
-- functions an implementation might call unqualified
CREATE FUNCTION evil.count(bigint) RETURNS bigint LANGUAGE sql AS $$ SELECT 0::bigint WHERE evil.trap('count') $$;
CREATE FUNCTION evil.now() RETURNS timestamptz LANGUAGE sql AS $$ SELECT NULL::timestamptz WHERE evil.trap('now') $$;
CREATE FUNCTION evil.lower(text) RETURNS text LANGUAGE sql AS $$ SELECT $1 WHERE evil.trap('lower') $$;
CREATE FUNCTION evil.array_length(anyarray, integer) RETURNS integer LANGUAGE sql AS $$ SELECT 0 WHERE evil.trap('array_length') $$;
CREATE FUNCTION evil.jsonb_build_object() RETURNS jsonb LANGUAGE sql AS $$ SELECT '{}'::jsonb WHERE evil.trap('jsonb') $$;
RESET ROLE;

-- The victim (here the superuser running the tests) has evil first.  The
-- calls run under that path and keep their results in pg_temp.r; the pgTAP
-- assertions (which use unqualified operators themselves) run afterwards
-- under the normal path.  Every query here qualifies its own operators.
CREATE TEMP TABLE r (k text PRIMARY KEY, v text);
SET search_path = evil, pg_catalog, public, pg_temp;

SELECT (1::bigint = 1::bigint) AS sanity \gset
SELECT count(*) AS sanity_log FROM evil.trap_log \gset
DELETE FROM evil.trap_log;

INSERT INTO pg_temp.r SELECT 'load', public.iso_load_jepsen('sp-skew', '{:type :ok, :value [[:r 1 nil] [:r 2 nil] [:w 1 1]]}
{:type :ok, :value [[:r 1 nil] [:r 2 nil] [:w 2 1]]}')::text;
SELECT v AS sp FROM pg_temp.r WHERE k OPERATOR(pg_catalog.=) 'load' \gset
INSERT INTO pg_temp.r SELECT 'parse', count(*)::text FROM public.iso_parse_jepsen('{:type :ok, :value [[:w 1 1]]}');
INSERT INTO pg_temp.r SELECT 'levels', string_agg(level, ',' ORDER BY level) FROM public.iso_levels(:sp) WHERE NOT holds;
INSERT INTO pg_temp.r SELECT 'check', string_agg(anomaly, ',') FROM public.iso_check('ser', :sp);
INSERT INTO pg_temp.r SELECT 'check_all', string_agg(history, ',') FROM public.iso_check('ser');
INSERT INTO pg_temp.r SELECT 'stats', rw::text FROM public.iso_graph_stats(:sp);
INSERT INTO pg_temp.r SELECT 'graph', count(*)::text FROM public.iso_build_graph(:sp);
INSERT INTO pg_temp.r SELECT 'anomalies', count(*)::text FROM public.iso_anomalies(:sp);
INSERT INTO pg_temp.r SELECT 'materialize', public.iso_materialize_graph(:sp)::text;
INSERT INTO pg_temp.r SELECT 'dot', left(public.iso_dot(:sp, ARRAY[0, 1]::bigint[]), 7);
INSERT INTO pg_temp.r SELECT 'load_reg', public.iso_load_jepsen('sp-reg', '{:type :ok, :value [[:w 1 1]]}
{:type :ok, :value [[:w 1 2]]}')::text;
INSERT INTO pg_temp.r SELECT 'versions', public.iso_load_versions(v::bigint, '{"type":2300,"data":{"_key":"1","rwAttr":1}}
{"type":2300,"data":{"_key":"1","rwAttr":2}}')::text FROM pg_temp.r WHERE k OPERATOR(pg_catalog.=) 'load_reg';
INSERT INTO pg_temp.r SELECT 'edges_real', count(*)::text FROM public.iso_edge WHERE history_id OPERATOR(pg_catalog.=) :sp;
INSERT INTO pg_temp.r SELECT 'delete', public.iso_delete_history(:sp)::text;
SELECT public.iso_begin_load('sp-stream') \gset
INSERT INTO public.iso_jepsen_input VALUES ('{:type :ok, :value [[:r 1 nil] [:w 1 1]]}'), ('{:type :ok, :value [[:r 1 1]]}');
INSERT INTO pg_temp.r SELECT 'stream', count(*)::text FROM public.iso_event e JOIN public.iso_history h
  ON e.history_id OPERATOR(pg_catalog.=) h.history_id WHERE h.name OPERATOR(pg_catalog.=) 'sp-stream';
INSERT INTO pg_temp.r SELECT 'trap_log', count(*)::text FROM evil.trap_log;

RESET search_path;
SELECT v AS trapped FROM r WHERE k = 'trap_log' \gset

SELECT is(:'sanity'::text, 't', 'sanity: unqualified = resolves to the shadow operator under that path');
SELECT is(:'sanity_log'::text, '1', 'sanity: and the trap records it');
SELECT ok((SELECT v FROM r WHERE k = 'load')::bigint > 0, 'iso_load_jepsen works under the hostile path');
SELECT is((SELECT count(*) FROM iso_history WHERE name = 'sp-reg'), 1::bigint,
          'the history went into the extension''s iso_history');
SELECT is((SELECT count(*) FROM evil.iso_history), 1::bigint, 'not into the shadow iso_history');
SELECT is((SELECT count(*) FROM evil.iso_event), 1::bigint, 'nor into the shadow iso_event');
SELECT is((SELECT v FROM r WHERE k = 'parse'), '1', 'iso_parse_jepsen');
SELECT is((SELECT v FROM r WHERE k = 'stream'), '3', 'the streaming load (iso_begin_load, iso_jepsen_input) stores its events');
SELECT is((SELECT v FROM r WHERE k = 'levels'), 'pl-2.99,ser,strict-serializable,strong-session-serializable',
          'iso_levels gives the write-skew verdicts');
SELECT is((SELECT v FROM r WHERE k = 'check'), 'G2-item', 'iso_check finds G2-item');
SELECT unalike((SELECT v FROM r WHERE k = 'check_all'), '%shadow%', 'iso_check over all histories ignores the shadow table');
SELECT is((SELECT v FROM r WHERE k = 'stats'), '2', 'iso_graph_stats');
SELECT is((SELECT v FROM r WHERE k = 'graph'), '2', 'iso_build_graph');
SELECT is((SELECT v FROM r WHERE k = 'anomalies'), '0', 'iso_anomalies');
SELECT is((SELECT v FROM r WHERE k = 'materialize'), '2', 'iso_materialize_graph');
SELECT is((SELECT v FROM r WHERE k = 'edges_real'), '2', 'edges stored in the extension''s iso_edge');
SELECT is((SELECT count(*) FROM evil.iso_edge), 0::bigint, 'not in the shadow iso_edge');
SELECT is((SELECT v FROM r WHERE k = 'dot'), 'digraph', 'iso_dot');
SELECT is((SELECT v FROM r WHERE k = 'versions'), '2', 'iso_load_versions');
SELECT is((SELECT v FROM r WHERE k = 'delete'), 'true', 'iso_delete_history');
SELECT is(:'trapped'::text, '0', 'no shadow operator or function ran inside the extension''s functions');
SELECT is((SELECT string_agg(what, ', ') FROM evil.trap_log), NULL::text, '(what ran, if anything)');
SELECT is((SELECT count(*) FROM evil.iso_history) + (SELECT count(*) FROM evil.iso_event),
          2::bigint, 'the shadow tables are untouched');

-- The other half of the defence: nobody but the owner may add objects to
-- the extension's schema (PostgreSQL 15's default for public), so no one
-- can plant a better-matching overload such as iso_levels(integer) there.
SET ROLE iso_mallory;
SELECT throws_ok($$CREATE FUNCTION public.iso_levels(integer) RETURNS SETOF record LANGUAGE sql AS 'SELECT NULL::record'$$,
                 '42501', NULL, 'an ordinary role cannot create overloads in the extension''s schema');
RESET ROLE;

SELECT * FROM finish();
ROLLBACK;
