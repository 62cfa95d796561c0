/*
 * search_explain.h
 *	  Explaining a violation the version-order search's SAT loop proved
 *	  (search.c, solve_rest): a small unsatisfiable core of the clauses it
 *	  added, and a case split over that core whose every branch ends in a
 *	  forbidden cycle, for iso_check's witness row.
 *
 * The loop's solver hands every blocking clause it is given to the log
 * (iso_sat_on_clause); the forced orders and the transitivity of each
 * key's order are added again as they are (add_hard).  When the loop ends unsatisfiable, iso_explain_unsat
 * solves the logged clauses again on a fresh solver, each under a selector
 * literal assumed true, takes the selectors the proof used (the core) and
 * shrinks it by deletion (solve without one clause: still unsatisfiable,
 * drop it), until the search's deadline.  Then the witness is the core's
 * clause with the fewest choices, as a cycle of the known graph plus those
 * choices, and for each of its chosen edges the other order is split on
 * the core's variables (a DPLL over the core clauses) until each branch's
 * choices close a core clause's cycle, or (all core clauses satisfied) a
 * cycle of one key's versions, which the transitivity clauses forbid.
 */
#ifndef ISOGRAPH_SEARCH_EXPLAIN_H
#define ISOGRAPH_SEARCH_EXPLAIN_H

#include "cycle.h"
#include "sat.h"
#include "search.h"

/* The clauses given to the loop's solver. */
typedef struct IsoExplainLog
{
	int		   *lits;
	uint64		n_lits;
	uint64		cap_lits;
	uint64	   *start;			/* clause i: lits[start[i] .. start[i + 1]) */
	uint32		n_clauses;
	uint32		cap_clauses;
	bool		overflow;		/* past the log's cap: nothing to explain with */
} IsoExplainLog;

extern void iso_explain_log_init(IsoExplainLog *log);
/* iso_sat_on_clause's callback: arg is the log */
extern void iso_explain_log_clause(void *arg, const int *lits, uint32 n);
extern void iso_explain_log_free(IsoExplainLog *log);

/* What the explanation needs of the search. */
typedef struct IsoExplainHost
{
	void	   *arg;
	uint32		n_vars;			/* variables 1..n_vars are constraints */
	const int8 *var_forced;		/* per variable: 0 open, else fixed by pruning */
	bool		(*stop) (void *arg);	/* the search's deadline or a cancel */
	/*
	 * add the clauses that are no choice: forced orders, and transitivity
	 * for the keys of the variables marked in var_used (the logged clauses'
	 * variables: another key's order is free, and never needed)
	 */
	void		(*add_hard) (void *arg, IsoSat *sat, const uint8 *var_used);

	/*
	 * A finished graph of the known and forced edges plus the side of each
	 * literal in lits (all true), and its shortest forbidden cycle found;
	 * false when it has none.
	 */
	bool		(*cycle_of) (void *arg, const int *lits, uint32 n, IsoGraph *g,
							 IsoCycle *c);
	/* the open literal an edge of such a graph stands for, 0 if none */
	int			(*edge_lit) (void *arg, const IsoEdge *e);
	/* whether such an edge is an order pruning forced (NULL: none is) */
	bool		(*edge_forced) (void *arg, const IsoEdge *e);
	/* literal lit: "first_op's version of key precedes second_op's" */
	void		(*describe) (void *arg, int lit, uint32 *key, int32 *first_op,
							 int32 *second_op);
} IsoExplainHost;

/*
 * After the loop's solver said unsatisfiable: fill out's graph and cycles
 * (one witness) and its proof fields (search.h).  false when it cannot
 * (the log overflowed, the deadline came before a first core, or the
 * logged clauses are not unsatisfiable): out is then unchanged.
 */
extern bool iso_explain_unsat(const IsoExplainHost *host, const IsoExplainLog *log,
							  IsoSearchResult *out);

/*
 * When there is no proof to show: a witness all the same, the cycle of the
 * last logged clause that has one (the loop's last round may have added
 * its clauses from the per-constraint scan, which keeps no cycles), in
 * out's graph and cycles when they have none.  false: none found.
 */
extern bool iso_explain_witness(const IsoExplainHost *host, const IsoExplainLog *log,
								IsoSearchResult *out);

#endif							/* ISOGRAPH_SEARCH_EXPLAIN_H */
