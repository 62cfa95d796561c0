/*
 * sat.c
 *	  The SAT solver of the version-order search: CaDiCaL (Debian package
 *	  libcadical-dev), through its C API.  CaDiCaL allocates with C++ new,
 *	  not through the host: the host is told to release it if the search's
 *	  allocation scope ends before iso_sat_free (an ERROR).
 */
#include "port.h"
#include "sat.h"

#include <ccadical.h>

struct IsoSat
{
	CCaDiCaL   *solver;			/* NULL once released */
	bool		(*stop) (void *);
	void	   *arg;
	void		(*on_clause) (void *, const int *, uint32);
	void	   *on_clause_arg;
	int		   *map;			/* iso_sat_compact: variable -> solver's, 0 new */
	uint32		map_n;
	int			map_next;
};

/* The solver's literal of lit (numbering a new variable when asked). */
static int
map_lit(IsoSat *sat, int lit, bool add)
{
	uint32		v = (uint32) (lit < 0 ? -lit : lit);
	int			m;

	if (sat->map == NULL)
		return lit;
	if (v > sat->map_n)
		iso_host_internal_error("SAT variable out of range");
	m = sat->map[v];
	if (m == 0)
	{
		if (!add)
			return 0;
		m = sat->map[v] = ++sat->map_next;
	}
	return lit < 0 ? -m : m;
}

static int
terminate_cb(void *state)
{
	IsoSat	   *sat = (IsoSat *) state;

	return sat->stop != NULL && sat->stop(sat->arg);
}

static void
release_solver(void *solver)
{
	ccadical_release((CCaDiCaL *) solver);
}

IsoSat *
iso_sat_new(bool (*stop) (void *), void *arg)
{
	IsoSat	   *sat = iso_alloc0(sizeof(IsoSat));

	sat->stop = stop;
	sat->arg = arg;
	sat->solver = ccadical_init();
	if (sat->solver == NULL)
		iso_host_internal_error("CaDiCaL could not be initialized");
	iso_host_on_release((void **) &sat->solver, release_solver);
	ccadical_set_terminate(sat->solver, sat, terminate_cb);
	/*
	 * Decide every free variable true first, always: the search orients its
	 * variables so that true is its best guess (search.c, orient_vars).
	 */
	ccadical_set_option(sat->solver, "phase", 1);
	ccadical_set_option(sat->solver, "forcephase", 1);
	/*
	 * No messages: CaDiCaL writes some to stdout even at verbosity 0 (e.g.
	 * "c found falsified original clause" when a clause added is false at
	 * the root), which in the server lands in the log as stray lines.
	 */
	ccadical_set_option(sat->solver, "quiet", 1);
	return sat;
}

void
iso_sat_free(IsoSat *sat)
{
	if (sat->solver != NULL)
		ccadical_release(sat->solver);
	sat->solver = NULL;
	iso_free(sat->map);
	sat->map = NULL;
#ifdef ISOGRAPH_STANDALONE
	iso_free(sat);
#endif
	/* in the server the struct stays: the release hook points into it */
}

void
iso_sat_clause(IsoSat *sat, const int *lits, uint32 n)
{
	uint32		i;

	for (i = 0; i < n; i++)
		ccadical_add(sat->solver, map_lit(sat, lits[i], true));
	ccadical_add(sat->solver, 0);
	if (sat->on_clause != NULL)
		sat->on_clause(sat->on_clause_arg, lits, n);
}

void
iso_sat_on_clause(IsoSat *sat, void (*fn) (void *, const int *, uint32), void *arg)
{
	sat->on_clause = fn;
	sat->on_clause_arg = arg;
}

void
iso_sat_compact(IsoSat *sat, uint32 max_var)
{
	sat->map = iso_alloc0(sizeof(int) * ((Size) max_var + 1));
	sat->map_n = max_var;
	sat->map_next = 0;
}

void
iso_sat_assume(IsoSat *sat, int lit)
{
	ccadical_assume(sat->solver, map_lit(sat, lit, true));
}

bool
iso_sat_failed(IsoSat *sat, int lit)
{
	int			m = map_lit(sat, lit, false);

	return m != 0 && ccadical_failed(sat->solver, m) != 0;
}

IsoSatResult
iso_sat_solve(IsoSat *sat)
{
	int			r = ccadical_solve(sat->solver);

	return r == 10 ? ISO_SAT_SAT : r == 20 ? ISO_SAT_UNSAT : ISO_SAT_UNKNOWN;
}

bool
iso_sat_true(IsoSat *sat, int var)
{
	int			m = map_lit(sat, var, false);

	return m != 0 && ccadical_val(sat->solver, m) > 0;
}

const char *
iso_sat_signature(void)
{
	return ccadical_signature();
}
