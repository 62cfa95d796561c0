/*
 * sat.h
 *	  A thin wrapper over the SAT solver the version-order search uses
 *	  (CaDiCaL through its C API, ccadical.h; sat.c).  Variables are
 *	  1, 2, ...; a literal is a variable or its negation.
 */
#ifndef ISOGRAPH_SAT_H
#define ISOGRAPH_SAT_H

#include "port.h"

typedef struct IsoSat IsoSat;

typedef enum IsoSatResult
{
	ISO_SAT_UNKNOWN = 0,		/* stopped by the terminate callback */
	ISO_SAT_SAT = 10,
	ISO_SAT_UNSAT = 20
} IsoSatResult;

/*
 * A new solver.  stop(arg) is asked now and then during a solve; when it
 * returns true the solve ends with ISO_SAT_UNKNOWN.  The solver is freed by
 * iso_sat_free, or by the host when the current allocation scope goes
 * away first (an ERROR).
 */
extern IsoSat *iso_sat_new(bool (*stop) (void *), void *arg);
extern void iso_sat_free(IsoSat *sat);
/* Add the clause lits[0] | ... | lits[n-1]. */
extern void iso_sat_clause(IsoSat *sat, const int *lits, uint32 n);
extern IsoSatResult iso_sat_solve(IsoSat *sat);
/*
 * Assume literal lit for the next solve only (several may be assumed).
 * After that solve returns ISO_SAT_UNSAT: whether lit is among the
 * assumptions the proof of unsatisfiability used (an unsatisfiable core).
 */
extern void iso_sat_assume(IsoSat *sat, int lit);
extern bool iso_sat_failed(IsoSat *sat, int lit);
/*
 * Number the variables 1..max_var in the order they first appear in a
 * clause or an assumption, so that the solver's memory (per variable up to
 * the largest) follows the variables used, not max_var.  Before any clause.
 */
extern void iso_sat_compact(IsoSat *sat, uint32 max_var);
/*
 * Have fn(arg, lits, n) told of every clause added from now on (the
 * search's explanation records them, search_explain.c); NULL: none.
 */
extern void iso_sat_on_clause(IsoSat *sat, void (*fn) (void *, const int *, uint32),
							  void *arg);
/* After ISO_SAT_SAT: the model's value of variable var. */
extern bool iso_sat_true(IsoSat *sat, int var);
/* The solver's name and version, for the README and messages. */
extern const char *iso_sat_signature(void);

#endif							/* ISOGRAPH_SAT_H */
