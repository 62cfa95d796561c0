-- Every function of the extension called with NULL in each argument, as a
-- superuser and as an ordinary role: a clear result or a clear error, never
-- a crash (iso_check_edges(NULL, 1) used to crash the server).  The calls
-- are generated from pg_proc through pg_depend on the extension, so a
-- function added later is called too (and shows up in this output).
-- Other arguments get a valid value chosen by name, else by type.
SET client_min_messages = warning;

CREATE FUNCTION regress_null_calls(h bigint, tag text) RETURNS SETOF text
LANGUAGE plpgsql AS $f$
DECLARE
	edn constant text := '{:type :ok, :value [[:r 1 []] [:r 2 []] [:append 1 1]]} '
		'{:type :ok, :value [[:r 1 []] [:r 2 []] [:append 2 2]]} '
		'{:type :ok, :value [[:r 1 [1]] [:r 2 [2]]]}';
	p record;
	i int;
	j int;
	args text[];
	call text;
	n bigint;
	res_null boolean;
	outcome text;
BEGIN
	FOR p IN
		SELECT pr.oid::regprocedure AS sig, pr.proname, pr.pronargs, pr.proretset,
			   pr.prorettype,
			   (SELECT array_agg(t ORDER BY o) FROM unnest(pr.proargtypes::oid[]) WITH ORDINALITY u(t, o)) AS types,
			   (SELECT array_agg(nm ORDER BY o) FROM unnest(pr.proargnames, coalesce(pr.proargmodes, array_fill('i'::"char", ARRAY[pr.pronargs])))
					WITH ORDINALITY u(nm, md, o) WHERE md IN ('i', 'b', 'v')) AS names
		  FROM pg_depend d
		  JOIN pg_extension e ON e.oid = d.refobjid
		  JOIN pg_proc pr ON pr.oid = d.objid
		 WHERE d.classid = 'pg_proc'::regclass AND d.refclassid = 'pg_extension'::regclass
		   AND d.deptype = 'e' AND e.extname = 'isograph'
		 ORDER BY pr.oid::regprocedure::text
	LOOP
		IF p.prorettype = 'trigger'::regtype THEN
			RETURN NEXT format('%s: trigger function, only callable as a trigger', p.sig);
			CONTINUE;
		END IF;
		FOR i IN 1..p.pronargs LOOP
			args := '{}';
			FOR j IN 1..p.pronargs LOOP
				args := args || CASE
					WHEN j = i THEN format('NULL::%s', format_type(p.types[j], NULL))
					WHEN p.names[j] = 'level' THEN quote_literal('ser')
					WHEN p.names[j] = 'history_id' THEN h::text
					WHEN p.names[j] = 'max_witnesses' THEN '1'
					WHEN p.names[j] = 'edn' THEN quote_literal(edn)
					WHEN p.names[j] = 'name' THEN quote_literal(format('nullcalls-%s-%s', tag, i))
					WHEN p.names[j] = 'workload' THEN quote_literal('list-append')
					WHEN p.names[j] = 'wal' THEN quote_literal('')
					WHEN p.types[j] = 'bigint'::regtype THEN h::text
					WHEN p.types[j] = 'integer'::regtype THEN '1'
					WHEN p.types[j] = 'text'::regtype THEN quote_literal('x')
					WHEN p.types[j] = 'bigint[]'::regtype THEN quote_literal('{0,1}') || '::bigint[]'
					WHEN p.types[j] = 'text[]'::regtype THEN quote_literal('{rw,rw}') || '::text[]'
					ELSE NULL END;
				IF args[j] IS NULL THEN
					RAISE EXCEPTION 'no sample value for argument % (%) of %: add one to this test',
						j, format_type(p.types[j], NULL), p.sig;
				END IF;
			END LOOP;
			call := format('%s(%s)', p.proname, array_to_string(args, ', '));
			BEGIN
				IF p.proretset THEN
					EXECUTE format('SELECT count(*) FROM %s', call) INTO n;
					-- every history: the superuser sees other tests' histories too
					outcome := CASE WHEN tag = 'role' THEN n || ' row(s)' ELSE 'rows' END;
				ELSE
					EXECUTE format('SELECT f IS NULL FROM %s f', call) INTO res_null;
					outcome := CASE WHEN res_null THEN 'null' ELSE 'a value' END;
				END IF;
			EXCEPTION WHEN OTHERS THEN
				outcome := format('ERROR %s: %s', SQLSTATE, regexp_replace(SQLERRM, '\d+', 'N', 'g'));
			END;
			RETURN NEXT format('%s, NULL argument %s: %s', p.sig, i, outcome);
		END LOOP;
	END LOOP;
END
$f$;

\set edn `cat test/data/rules/lvl-write-skew.edn`
SELECT iso_load_jepsen('nullcalls-superuser', :'edn') AS h \gset
SELECT regress_null_calls(:h, 'superuser');

-- the server is still up, and the history is intact
SELECT holds FROM iso_levels(:h) WHERE level = 'ser';

-- the same calls as an ordinary role, on a history of its own
CREATE ROLE regress_iso_nulls NOLOGIN;
SET ROLE regress_iso_nulls;
SELECT iso_load_jepsen('nullcalls-role', :'edn') AS h \gset
SELECT regress_null_calls(:h, 'role');

-- a NULL history_id of iso_check means every history the caller sees:
-- the role's two write-skew histories, one witness each
SELECT h.name, c.anomaly FROM iso_check('ser', NULL, 1) c JOIN iso_history h USING (history_id)
 ORDER BY h.name;
RESET ROLE;

SELECT iso_delete_history(history_id) FROM iso_history WHERE name LIKE 'nullcalls-%' ORDER BY name;
DROP ROLE regress_iso_nulls;
DROP FUNCTION regress_null_calls(bigint, text);
