/*
 * test_realtime.c
 *	  Unit tests for realtime.c (standalone build, TAP output).
 *
 *	1. brute force on random small interval sets (ties, unknown times,
 *	   info/fail transactions, completions before invocations): reachability
 *	   among transactions through the edges made, in both forms (transitive
 *	   reduction and time points), equals the full relation "T1 completed
 *	   before T2 was invoked"; the reduction's size is what was counted; the
 *	   point form has at most 3n edges;
 *	2. random data edges plus real time: the strict-serializable verdict
 *	   over the point form equals the verdict over the full n^2 relation,
 *	   and every witness, collapsed, is a simple cycle over transactions
 *	   whose rt edges are real-time pairs and whose other edges exist;
 *	3. the two-wave shape: n^2/4 reduction edges, built through points
 *	   with a few edges per transaction;
 *	4. the order kept as events (iso_realtime_order_*): with random data
 *	   edges, "no cycle in the data edges plus real time" is exactly what
 *	   brute force over the full relation says, with the graph sorted or
 *	   not; its info and, asked for, its edges are iso_realtime_edges'.
 */
#include "port.h"
#include "history.h"
#include "graph.h"
#include "cycle.h"
#include "realtime.h"

#include <stdio.h>

#include "history_util.h"
#include "tap.h"

#define MAXN 12

static uint64 rng = 0x9E3779B97F4A7C15ull;

static uint32
rnd(uint32 n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32) (rng % n);
}

typedef struct Case
{
	uint32		n;
	IsoHistory	h;
	uint32		vt[MAXN];		/* vertex -> txn: identity */
	bool		rt[MAXN][MAXN];	/* the full relation */
} Case;

static void
make_case(Case *c, uint32 n, uint32 span)
{
	uint32		i,
				j;

	c->n = n;
	iso_history_init(&c->h, ISO_WORKLOAD_LIST_APPEND);
	for (i = 0; i < n; i++)
	{
		int64		inv = rnd(span);
		int64		comp = inv + rnd(span / 2 + 1);
		uint32		r = rnd(20);
		IsoStatus	st = r == 0 ? ISO_STATUS_FAIL : r == 1 ? ISO_STATUS_INFO : ISO_STATUS_OK;

		if (rnd(15) == 0)
			inv = ISO_NO_TIME;
		if (rnd(15) == 0)
			comp = ISO_NO_TIME;
		else if (rnd(25) == 0 && inv != ISO_NO_TIME)
			comp = inv - 1 - rnd(3);	/* bad data: completes before invoked */
		iso_history_add_txn(&c->h, i, st, false, 0, inv, comp);
		c->vt[i] = i;
	}
	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++)
		{
			const IsoTxn *a = &c->h.txns[i];
			const IsoTxn *b = &c->h.txns[j];

			c->rt[i][j] = i != j && a->status == ISO_STATUS_OK &&
				a->invoke_time != ISO_NO_TIME && a->complete_time != ISO_NO_TIME &&
				a->complete_time >= a->invoke_time &&
				b->invoke_time != ISO_NO_TIME && a->complete_time < b->invoke_time;
		}
}

static void
case_free(Case *c)
{
	history_free(&c->h);
}

/* reach[i][j]: a path of >= 1 edges from i to j among nv vertices. */
static void
closure(const IsoEdge *e, uint64 ne, uint32 nv, bool *reach)
{
	uint64		i;
	uint32		k,
				a,
				b;

	memset(reach, 0, (size_t) nv * nv);
	for (i = 0; i < ne; i++)
		reach[e[i].from * nv + e[i].to] = true;
	for (k = 0; k < nv; k++)
		for (a = 0; a < nv; a++)
			if (reach[a * nv + k])
				for (b = 0; b < nv; b++)
					if (reach[k * nv + b])
						reach[a * nv + b] = true;
}

/* Part 1: both forms reach exactly the full relation. */
static void
test_random_forms(int rounds)
{
	int			bad_reach = 0,
				bad_count = 0,
				bad_size = 0,
				bad_sound = 0,
				dense_seen = 0;
	int			r;
	bool	   *reach = malloc(4 * MAXN * MAXN);

	for (r = 0; r < rounds; r++)
	{
		Case		c;
		uint32		n = 1 + rnd(MAXN);
		int			form;

		make_case(&c, n, 4 + rnd(20));
		for (form = 0; form < 2; form++)
		{
			IsoEdgeBuf	buf;
			IsoRealtimeInfo info;
			uint32		nv,
						i,
						j;
			uint64		k,
						expect_red = 0;

			iso_edgebuf_init(&buf, 16);
			/* form 0: the reduction; form 1: points (limit 0) */
			iso_realtime_edges(&c.h, c.vt, NULL, n, form == 0 ? UINT64_MAX : 0,
							   n, true, &buf, &info);
			nv = n + info.n_points;
			if (info.dense)
				dense_seen++;
			if (form == 0 && buf.n != info.n_reduction)
				bad_count++;
			if (form == 1 && info.n_reduction > 0 && buf.n > 3 * (uint64) n)
				bad_size++;
			for (k = 0; k < buf.n; k++)
				if (buf.edges[k].from < n && buf.edges[k].to < n &&
					!c.rt[buf.edges[k].from][buf.edges[k].to])
					bad_sound++;
			closure(buf.edges, buf.n, nv, reach);
			for (i = 0; i < n; i++)
				for (j = 0; j < n; j++)
					if (reach[i * nv + j] != c.rt[i][j])
						bad_reach++;
			/* the reduction: pairs with no intermediate transaction */
			for (i = 0; i < n && form == 0; i++)
				for (j = 0; j < n; j++)
				{
					bool		direct = c.rt[i][j];
					uint32		m;

					for (m = 0; m < n && direct; m++)
						if (c.rt[i][m] && c.rt[m][j])
							direct = false;
					expect_red += direct;
				}
			if (form == 0 && expect_red != info.n_reduction)
				bad_count++;
			iso_free(buf.edges);
		}
		case_free(&c);
	}
	ok(bad_reach == 0, "random intervals: reachability through rt edges = full relation, both forms (%d mismatches)", bad_reach);
	ok(bad_count == 0, "random intervals: reduction size counted = edges made = brute-force reduction (%d mismatches)", bad_count);
	ok(bad_size == 0, "random intervals: point form has at most 3n edges (%d over)", bad_size);
	ok(bad_sound == 0, "random intervals: every rt edge between transactions is a real-time pair (%d not)", bad_sound);
	ok(dense_seen > 0, "random intervals: the point form was exercised (%d times)", dense_seen);
	free(reach);
}

/* Part 2: strict verdicts and witnesses over the point form. */
static void
test_random_cycles(int rounds)
{
	int			bad_verdict = 0,
				bad_witness = 0,
				violations = 0,
				through_points = 0,
				walks = 0;
	int			r;
	bool	   *reach = malloc(MAXN * MAXN);

	for (r = 0; r < rounds; r++)
	{
		Case		c;
		uint32		n = 2 + rnd(MAXN - 1);
		IsoEdgeBuf	buf;
		IsoEdgeBuf	full;
		IsoRealtimeInfo info;
		IsoGraph	g;
		IsoCycleList list;
		uint32		nd = rnd(n + 1),
					i,
					j;
		bool		expect = false;
		bool		got;
		IsoEdge		data[MAXN + 1];

		make_case(&c, n, 4 + rnd(20));
		iso_edgebuf_init(&buf, 16);
		iso_edgebuf_init(&full, 16);
		for (i = 0; i < nd; i++)
		{
			uint32		a = rnd(n),
						b = rnd(n);
			uint8		t = (uint8) rnd(3);	/* ww, wr, rw */

			if (a == b)			/* self-edges are dropped by the graph */
				b = (a + 1) % n;

			data[i].from = a;
			data[i].to = b;
			data[i].type = t;
			iso_edgebuf_add(&buf, a, b, t, 0, ISO_NO_OP, ISO_NO_OP);
			iso_edgebuf_add(&full, a, b, t, 0, ISO_NO_OP, ISO_NO_OP);
		}
		for (i = 0; i < n; i++)
			for (j = 0; j < n; j++)
				if (c.rt[i][j])
					iso_edgebuf_add(&full, i, j, ISO_EDGE_RT, ISO_NO_KEY, ISO_NO_OP, ISO_NO_OP);
		closure(full.edges, full.n, n, reach);
		for (i = 0; i < n; i++)
			if (reach[i * n + i])
				expect = true;
		iso_free(full.edges);

		iso_realtime_edges(&c.h, c.vt, NULL, n, 0, n, true, &buf, &info);
		iso_graph_finish(&g, n + info.n_points, &buf, NULL);
		memset(&list, 0, sizeof(list));
		got = iso_find_cycles(&g, ISO_LEVEL_STRICT_SER, 4, &list);
		if (got != expect)
			bad_verdict++;
		violations += got;
		for (i = 0; i < list.n; i++)
		{
			const IsoCycle *cy = &list.cycles[i];
			IsoEdge		out[4 * MAXN + 8];
			bool		seen[MAXN];
			uint8		raw_seen[4 * MAXN + 8];
			bool		raw_simple;
			uint32		len,
						k;
			bool		good = true;

			if (cy->length > 4 * MAXN + 8)
			{
				bad_witness++;
				continue;
			}
			/* cycle.c may return closed walks (not simple): collapsing must
			 * keep simple ones simple and make no walk worse */
			raw_simple = true;
			memset(raw_seen, 0, sizeof(raw_seen));
			for (k = 0; k < cy->length; k++)
			{
				uint32		f = g.edges[cy->edges[k]].from;

				if (f < 4 * MAXN + 8 && raw_seen[f]++)
					raw_simple = false;
			}
			if (!raw_simple)
				walks++;
			len = iso_rt_collapse_cycle(&g, n, cy->edges, cy->length, out);
			if (len < cy->length)
				through_points++;
			memset(seen, 0, sizeof(seen));
			for (k = 0; k < len && good; k++)
			{
				const IsoEdge *e = &out[k];

				if (e->from >= n || e->to >= n || (raw_simple && seen[e->from]) ||
					e->to != out[(k + 1) % len].from)
					good = false;
				else if (e->type == ISO_EDGE_RT)
					good = c.rt[e->from][e->to];
				else
				{
					uint32		d;

					good = false;
					for (d = 0; d < nd; d++)
						if (data[d].from == e->from && data[d].to == e->to &&
							data[d].type == e->type)
							good = true;
				}
				if (e->from < n)
					seen[e->from] = true;
			}
			if (!good || len == 0)
			{
				bad_witness++;
				if (getenv("RT_DEBUG"))
				{
					uint32		q;

					printf("# bad witness (raw %u):", cy->length);
					for (q = 0; q < cy->length; q++)
						printf(" %u-%u>%u", g.edges[cy->edges[q]].from,
							   g.edges[cy->edges[q]].type, g.edges[cy->edges[q]].to);
					printf(" | collapsed:");
					for (q = 0; q < len; q++)
						printf(" %u-%u>%u", out[q].from, out[q].type, out[q].to);
					printf("\n");
				}
			}
		}
		iso_cycle_list_free(&list);
		iso_free(g.edges);
		iso_free(g.out_start);
		case_free(&c);
	}
	ok(bad_verdict == 0, "random graphs: strict-serializable verdict through time points = verdict with the full rt relation (%d mismatches, %d violations)",
	   bad_verdict, violations);
	ok(bad_witness == 0, "random graphs: collapsed witnesses are closed walks of real edges over transactions, simple when the raw witness was (%d bad; %d raw witnesses were not simple)",
	   bad_witness, walks);
	ok(through_points > 0, "random graphs: some witnesses went through time points (%d)", through_points);
	free(reach);
}

/* Part 3: two waves of w transactions each. */
static void
test_two_waves(uint32 w)
{
	IsoHistory	h;
	uint32	   *vt = malloc(sizeof(uint32) * 2 * w);
	IsoEdgeBuf	buf;
	IsoRealtimeInfo info;
	uint32		i;

	iso_history_init(&h, ISO_WORKLOAD_LIST_APPEND);
	for (i = 0; i < 2 * w; i++)
	{
		/* wave 1: invoked at 0..w-1, completed at w..2w-1; wave 2 after */
		int64		base = i < w ? 0 : 2 * (int64) w;
		uint32		k = i % w;

		iso_history_add_txn(&h, i, ISO_STATUS_OK, false, 0, base + k, base + w + k);
		vt[i] = i;
	}
	iso_edgebuf_init(&buf, 16);
	iso_realtime_edges(&h, vt, NULL, 2 * w, ISO_RT_LIMIT(2 * w), 2 * w, true, &buf, &info);
	ok(info.n_reduction == (uint64) w * w,
	   "two waves of %u: the reduction has w^2 = %llu edges (counted %llu)", w,
	   (unsigned long long) w * w, (unsigned long long) info.n_reduction);
	if ((uint64) w * w <= ISO_RT_LIMIT(2 * w))
		ok(!info.dense && info.n_points == 0 && buf.n == (uint64) w * w,
		   "two waves of %u: small enough to keep the reduction (%llu edges)", w,
		   (unsigned long long) buf.n);
	else
		ok(info.dense && info.n_points == 2 && buf.n == 3 * (uint64) w + 1,
		   "two waves of %u: built through %u points with %llu edges (3w + 1)", w,
		   info.n_points, (unsigned long long) buf.n);
	iso_free(buf.edges);
	history_free(&h);
	free(vt);
}

/*
 * Invocations far from time order: n transactions of disjoint intervals
 * (spacing 10, each 5 long), txn k invoked at slot[k] * 10.  The
 * reduction is the chain in time order.  Reversed slots pass the insertion
 * sort's budget (collect_events falls back to qsort); pairwise swapped ones
 * stay within it.
 */
static bool
chain_in_time_order(const uint32 *slot, uint32 n)
{
	IsoHistory	h;
	IsoEdgeBuf	buf;
	IsoRealtimeInfo info;
	uint32	   *vt = malloc(sizeof(uint32) * n);
	uint32	   *by_slot = malloc(sizeof(uint32) * n);
	bool	   *seen = calloc(n, sizeof(bool));
	bool		good;
	uint32		k;
	uint64		e;

	iso_history_init(&h, ISO_WORKLOAD_LIST_APPEND);
	for (k = 0; k < n; k++)
	{
		iso_history_add_txn(&h, k, ISO_STATUS_OK, false, 0,
							(int64) slot[k] * 10, (int64) slot[k] * 10 + 5);
		vt[k] = k;
		by_slot[slot[k]] = k;
	}
	iso_edgebuf_init(&buf, 16);
	iso_realtime_edges(&h, vt, NULL, n, UINT64_MAX, n, true, &buf, &info);
	good = buf.n == (uint64) n - 1 && info.n_points == 0;
	for (e = 0; good && e < buf.n; e++)
	{
		uint32		from = buf.edges[e].from;

		/* from is in slot s: its edge goes to the transaction in slot s + 1 */
		good = from < n && !seen[from] && slot[from] + 1 < n &&
			buf.edges[e].to == by_slot[slot[from] + 1];
		if (good)
			seen[from] = true;
	}
	iso_free(buf.edges);
	history_free(&h);
	free(vt);
	free(by_slot);
	free(seen);
	return good;
}

static void
test_unsorted_invocations(void)
{
	uint32		n = 3000;
	uint32	   *slot = malloc(sizeof(uint32) * n);
	uint32		k;

	for (k = 0; k < n; k++)
		slot[k] = n - 1 - k;
	ok(chain_in_time_order(slot, n),
	   "invocations in reverse time order (past the insertion sort's budget): the chain in time order");
	for (k = 0; k < n; k++)
		slot[k] = k ^ 1;
	ok(chain_in_time_order(slot, n),
	   "invocations pairwise swapped (within the budget): the chain in time order");
	for (k = 0; k < n; k++)
		slot[k] = k;
	ok(chain_in_time_order(slot, n), "invocations in time order: the chain");
	free(slot);
}

/* Part 4: the order without edges decides the same as the full relation. */
static void
test_order_acyclic(int rounds)
{
	int			bad_verdict = 0,
				bad_info = 0,
				bad_edges = 0,
				cyclic = 0,
				rt_only = 0,
				acyclic = 0,
				rounds_two_threads = 0;
	int			r;
	bool	   *reach = malloc(MAXN * MAXN);

	for (r = 0; r < rounds; r++)
	{
		Case		c;
		uint32		n = 1 + rnd(MAXN);
		uint32		nd = rnd(2 * n + 1);
		uint64		limit = rnd(2) ? UINT64_MAX : rnd(3);
		IsoEdgeBuf	data,
					full,
					direct,
					later;
		IsoRealtimeOrder order;
		IsoRealtimeInfo info,
					info_direct;
		IsoGraph	g;
		bool		expect = false,
					data_cycle = false;
		int			two_threads;
		uint32		i,
					j;
		uint64		k;

		make_case(&c, n, 4 + rnd(20));
		iso_edgebuf_init(&data, 16);
		iso_edgebuf_init(&full, 16);
		for (i = 0; i < nd && n > 1; i++)
		{
			uint32		a = rnd(n),
						b = rnd(n);

			if (a == b)
				b = (a + 1) % n;
			iso_edgebuf_add(&data, a, b, (IsoEdgeType) rnd(4), 0, ISO_NO_OP, ISO_NO_OP);
			iso_edgebuf_add(&full, a, b, ISO_EDGE_WW, 0, ISO_NO_OP, ISO_NO_OP);
		}
		closure(full.edges, full.n, n, reach);
		for (i = 0; i < n; i++)
			data_cycle |= reach[i * n + i];
		for (i = 0; i < n; i++)
			for (j = 0; j < n; j++)
				if (c.rt[i][j])
					iso_edgebuf_add(&full, i, j, ISO_EDGE_RT, ISO_NO_KEY, ISO_NO_OP, ISO_NO_OP);
		closure(full.edges, full.n, n, reach);
		for (i = 0; i < n; i++)
			expect |= reach[i * n + i];
		iso_free(full.edges);

		iso_realtime_order_build(&c.h, c.vt, n, limit, &order, &info);
		/* half the rounds group the edges on two threads */
		two_threads = rnd(2);
		if (two_threads)
			order.two_threads_from = 0;
		if (rnd(2))
			iso_graph_finish(&g, n, &data, NULL);
		else
			iso_graph_finish_unsorted(&g, n, &data, NULL);
		if (iso_realtime_order_acyclic(&order, g.edges, g.n_edges) != !expect)
			bad_verdict++;
		rounds_two_threads += two_threads;
		cyclic += expect;
		rt_only += expect && !data_cycle;
		acyclic += !expect;

		/* asked for, the edges are those iso_realtime_edges makes */
		iso_edgebuf_init(&direct, 16);
		iso_edgebuf_init(&later, 16);
		iso_realtime_edges(&c.h, c.vt, NULL, n, limit, n, true, &direct, &info_direct);
		if (info.n_timed != info_direct.n_timed || info.n_reduction != info_direct.n_reduction ||
			info.dense != info_direct.dense || info.n_points != 0)
			bad_info++;
		iso_realtime_order_edges(&order, &later, &info);
		if (later.n != direct.n || info.n_points != info_direct.n_points ||
			info.dense != info_direct.dense)
			bad_edges++;
		for (k = 0; k < later.n && k < direct.n; k++)
			if (later.edges[k].from != direct.edges[k].from ||
				later.edges[k].to != direct.edges[k].to ||
				later.edges[k].type != direct.edges[k].type)
			{
				bad_edges++;
				break;
			}
		iso_free(direct.edges);
		iso_free(later.edges);
		iso_realtime_order_free(&order);
		iso_graph_free(&g);
		case_free(&c);
	}
	ok(bad_verdict == 0,
	   "order without edges: acyclic with the data edges exactly when the full relation is (%d differ; %d cyclic, %d of them through real time alone, %d acyclic)",
	   bad_verdict, cyclic, rt_only, acyclic);
	ok(rt_only > 0 && acyclic > 0, "order without edges: both verdicts seen, and cycles that need real time");
	ok(rounds_two_threads > rounds / 4, "order without edges: %d rounds grouped the edges on two threads", rounds_two_threads);
	ok(bad_info == 0, "order without edges: its info is iso_realtime_edges' (%d differ)", bad_info);
	ok(bad_edges == 0, "order without edges: the edges it makes when asked are iso_realtime_edges' (%d differ)", bad_edges);
	free(reach);
}

int
main(void)
{
	test_random_forms(3000);
	test_random_cycles(3000);
	test_two_waves(10);
	test_two_waves(100000);
	test_unsorted_invocations();
	test_order_acyclic(5000);
	return tap_done();
}
