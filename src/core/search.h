/*
 * search.h
 *	  Deciding a level on a register history whose version orders are
 *	  partly unknown (black-box histories): a search over the version
 *	  orders, after PolySI (Huang et al., VLDB 2023), on a SAT solver.
 *
 * The inference (infer_register.c) keeps the keys whose order the evidence
 * leaves open (IsoInference.unknown).  For a level that the known graph
 * alone does not violate, iso_search_level:
 *
 *  1. builds the known graph: the inferred edges, plus for every pair of
 *	   versions a < b of an open key that the evidence orders (write-follows-
 *	   read, nil first, the opt-in assumptions, transitively) the edges
 *	   ww a -> b and rw from every reader of a to b;
 *  2. considers each pair of versions it leaves unordered: either a before
 *	   b (ww a -> b, rw readers(a) -> b) or b before a;
 *  3. prunes: a side that closes a forbidden cycle with the known graph on
 *	   its own is impossible, so the other side is forced (joins the known
 *	   graph, only where the orders decided so far do not imply it: a
 *	   transitively closed bit matrix per key); repeated to a fixed point.
 *	   Both sides impossible: violated;
 *  4. makes one constraint per pair still unordered and searches them
 *	   lazily: one SAT variable per constraint; solve, build
 *	   the chosen graph, look for forbidden cycles with the level's cycle
 *	   search (cycle.c); none: the level holds with that version order; else
 *	   add a clause forbidding each cycle's choices and solve again.
 *	   Unsatisfiable: every version order violates the level; the proof,
 *	   a core of those clauses, becomes the witness and a case split over
 *	   its cycles (search_explain.h).
 *
 * Sound and complete for the level's forbidden cycles: a cycle is only
 * blocked with the choices that make it, and the loop ends because each
 * clause is new.  The caller checks the non-cycle anomalies first.
 */
#ifndef ISOGRAPH_SEARCH_H
#define ISOGRAPH_SEARCH_H

#include "cycle.h"
#include "history.h"
#include "infer.h"

typedef enum IsoSearchVerdict
{
	ISO_SEARCH_HOLDS = 0,		/* some version order satisfies the level */
	ISO_SEARCH_VIOLATED,		/* every version order violates it */
	ISO_SEARCH_UNDECIDED		/* a limit, the timeout or a cancel stopped it */
} IsoSearchVerdict;

/* How the pruning answers "does this side close a forbidden cycle". */
typedef enum IsoPruneMethod
{
	ISO_PRUNE_AUTO = 0,			/* a reachability closure per round, a BFS per
								 * side where the closure would be too big */
	ISO_PRUNE_BFS,				/* a BFS per side (tests compare the two) */
	ISO_PRUNE_WINDOW,			/* the windowed closure, with a small window
								 * (tests: what it misses is searched) */
} IsoPruneMethod;

typedef struct IsoSearchOptions
{
	double		timeout_seconds;	/* <= 0: no timeout */
	uint64		max_pairs;		/* most ordered-pair bits (sum of m^2 over open
								 * keys, rows rounded up to 64); above:
								 * undecided */
	uint64		max_constraints;	/* most constraints (SAT variables: the pairs
									 * pruning leaves open and the forced ones
									 * whose edges the graph has; checked after
									 * pruning; the solver's memory, about 250
									 * bytes each, is not the host's); 0: no
									 * limit */
	uint32		max_witnesses;	/* witness cycles per kind on a violation */
	bool		prune_only;		/* stop after the pruning: undecided if it leaves choices */
	bool		no_search;		/* iso_decide_levels: the evidence only */
	double		deadline;		/* monotonic seconds the whole call must end
								 * by (iso_decide_levels sets it from
								 * timeout_seconds); 0: timeout_seconds from
								 * each level's start */
	IsoPruneMethod prune_method;
	uint64		max_bytes;		/* most bytes of order bits plus 256 per
								 * variable together, checked after pruning
								 * (both above bound each alone); 0: none */
} IsoSearchOptions;

typedef struct IsoSearchStats
{
	uint64		constraints;	/* unordered version pairs before pruning
								 * (counted, not made) */
	uint64		constraints_left;	/* after pruning (each a variable) */
	uint32		prune_rounds;
	uint32		closure_rounds;	/* of them, by the reachability closure */
	uint64		forced;			/* pairs pruning ordered (forced or implied) */
	uint64		forced_digest;	/* which, and which way (tests compare) */
	uint32		solver_calls;
	uint64		clauses;		/* blocking clauses added */
	double		seconds;
} IsoSearchStats;

/* Where an edge of a search graph comes from (iso_search_edge_origin). */
typedef enum IsoSearchEdgeOrigin
{
	ISO_ORIGIN_KNOWN = 0,		/* the evidence */
	ISO_ORIGIN_FORCED,			/* pruning: the other order closes a cycle */
	ISO_ORIGIN_CHOSEN			/* the solver's choice (every choice failed) */
} IsoSearchEdgeOrigin;

typedef struct IsoSearchState IsoSearchState;

/*
 * A violation the solver proved (every version order closes a forbidden
 * cycle) is explained by a case split over a small unsatisfiable core of
 * its blocking clauses (search_explain.c): each node is
 *  - IF: "if first's version of key precedes second's, then child[0]"
 *	  (the other order of a chosen edge of the witness);
 *  - SPLIT: "if first's precedes second's: child[0]; if not: child[1]";
 *  - LEAF: the choices so far close core cycle cycle;
 *  - CUT: the split goes on but is not shown (a size cap).
 */
typedef enum IsoChoiceKind
{
	ISO_CHOICE_IF = 0,
	ISO_CHOICE_SPLIT,
	ISO_CHOICE_LEAF,
	ISO_CHOICE_CUT
} IsoChoiceKind;

typedef struct IsoChoiceNode
{
	uint8		kind;			/* IsoChoiceKind */
	bool		uses_earlier;	/* IF: the subtree also relies on the witness's
								 * chosen edges before this one */
	uint32		key;
	int32		first_op;		/* IF, SPLIT: "first_op's version of key */
	int32		second_op;		/* precedes second_op's" (write ops) */
	uint32		child[2];
	uint32		cycle;			/* LEAF: index of a proof cycle */
} IsoChoiceNode;

typedef struct IsoSearchResult
{
	IsoSearchVerdict verdict;
	const char *reason;			/* undecided: why (static text) */
	bool		by_pruning;		/* decided without calling the solver */
	IsoSearchStats stats;
	/* violated: witness cycles of graph (edges index graph.edges) */
	IsoGraph	graph;
	IsoCycleList cycles;
	uint8	   *edge_origin;	/* per graph edge: IsoSearchEdgeOrigin */
	/* forced edges' reasons: per graph edge, ISO_NONE or the start of the
	 * cycle the other order closes, in reason_edges (length reason_len) */
	uint32	   *edge_reason;
	IsoEdge    *reason_edges;
	uint32	   *reason_len;		/* indexed like edge_reason's values */
	/* holds: each open key's versions in a satisfying order: write ops
	 * order_op[u->ver_start[s] ..] for open key slot s */
	uint32	   *order_op;

	/*
	 * violated by the solver, when explained (else edge_choice is NULL and
	 * the witnesses are the last round's): per graph edge ISO_NONE or the
	 * IF node of its other order; the case split's nodes; its cycles (the
	 * witness's is cycle 0), cycle i being proof_edges[proof_start[i] ..
	 * proof_start[i + 1]).
	 */
	uint32	   *edge_choice;
	IsoChoiceNode *choice_nodes;
	uint32		n_choice_nodes;
	IsoEdge    *proof_edges;
	uint8	   *proof_forced;	/* per proof edge: an order pruning forced */
	uint32	   *proof_start;
	uint32		n_proof_cycles;
	uint32		core_found;		/* blocking clauses in the solver's first core */
	uint32		core_size;		/* after shrinking it by deletion */
	bool		core_minimal;	/* every clause of it was tried (no time out) */
	bool		proof_cut;		/* the case split has CUT nodes */
	double		explain_seconds;	/* the core and the split took (stats.seconds has it) */
} IsoSearchResult;

/* Whether the search can change a level's verdict (pl-2.99 and above). */
extern bool iso_search_applies(IsoLevel level);

/*
 * Decide the cycle condition of level on inf (which the known graph alone
 * does not violate; the non-cycle anomalies are the caller's).  Fills out.
 * Memory: the host's current allocation scope; iso_search_result_free.
 */
extern IsoSearchVerdict iso_search_level(const IsoHistory *h, const IsoInference *inf,
										 IsoLevel level, const IsoSearchOptions *opt,
										 IsoSearchResult *out);
extern void iso_search_result_free(IsoSearchResult *r);

/* How a level's verdict was reached (iso_decide_levels). */
typedef enum IsoVerdictMethod
{
	ISO_BY_EVIDENCE = 0,		/* the inferred graph and anomalies alone */
	ISO_BY_SEARCH,				/* the version-order search */
	ISO_BY_IMPLICATION,			/* a level it implies / that implies it */
	ISO_NOT_DECIDED				/* the search stopped (timeout, cancel, limit) */
} IsoVerdictMethod;

typedef struct IsoLevelDecision
{
	bool		holds;			/* meaningless when method is ISO_NOT_DECIDED */
	IsoVerdictMethod method;
	IsoLevel	via;			/* by implication: the level that decided it */
	bool		searched;		/* search holds the search's result */
	IsoSearchResult search;
} IsoLevelDecision;

/*
 * Decide the levels in wanted (bits 1 << level) on inf: by the evidence,
 * then (register histories with open keys, pl-2.99 and up) by the search,
 * first pruning only, weakest level first (a violation implies the
 * stronger levels' violation), then the full search strongest first (a
 * level that holds implies the weaker ones).  Levels related to a wanted
 * one by implication may be decided on the way.  cache: the graph's SCC
 * cache, or NULL.
 */
extern void iso_decide_levels(const IsoHistory *h, const IsoInference *inf,
							  uint32 wanted, const IsoSearchOptions *opt,
							  IsoSccCache *cache, IsoLevelDecision out[ISO_LEVEL_COUNT]);

/* Free the search results iso_decide_levels kept. */
extern void iso_level_decisions_free(IsoLevelDecision out[ISO_LEVEL_COUNT]);

/* "evidence", "search", "implied", "not decided" */
extern const char *iso_verdict_method_name(IsoVerdictMethod m);

#endif							/* ISOGRAPH_SEARCH_H */
