/*
 * test_split.c
 *	  A history parsed in two parts, cut at a record boundary, and joined
 *	  (edn_stream_stop, iso_edn_history_join: the split parse of
 *	  iso_levels_jepsen_file, src/pg/edn_split.c), against one parse of the
 *	  whole text.
 *
 * For every hand-made history of test/data, the list-append histories of
 * ../shared/data (when there) and generated concurrent histories, at many
 * cuts: where the join succeeds, the history is the one parse's, id for id
 * (transactions, times, micro-ops, keys, values, list elements); where one
 * parse fails (a parse error, a value written twice, a transaction id
 * twice), the split fails too, at the parse of a part, the join, the
 * txn_id order or the inference, never accepting the history.
 *
 *	  build/test_split [DIR...]
 */
#define _POSIX_C_SOURCE 200809L

#include "port.h"
#include "edn.h"
#include "history.h"
#include "history_edn.h"
#include "infer.h"
#include "infer_util.h"
#include "rng.h"
#include "tap.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Parse text[0..len) as a stream fed one block of whole lines, as the server does. */
static bool
parse_part(const char *text, size_t len, IsoEdnHistory *eh, EdnStats *st,
		   bool stop, EdnPending **pending, int32 *n_pending)
{
	IsoParseError err;
	EdnStream  *s = edn_stream_begin(ISO_WORKLOAD_UNKNOWN, iso_edn_history_add, eh, st, &err);
	size_t		whole = len;
	size_t		used = 0;
	bool		ok;

	while (whole > 0 && text[whole - 1] != '\n')
		whole--;
	ok = edn_stream_text(s, text, whole, &used);
	if (ok && stop)
		ok = used == len && edn_stream_stop(s, pending, n_pending);
	else if (ok)
	{
		if (used < len)
			ok = edn_stream_line(s, text + used, len - used);
		ok = ok && edn_stream_finish(s);
	}
	edn_stream_free(s);
	if (!ok && getenv("SPLIT_DEBUG"))
		diag("parse: %s", err.message);
	return ok;
}

/* The whole text at once; false on any error one parse reports. */
static bool
parse_whole(const char *text, size_t len, IsoEdnHistory *eh, EdnStats *st)
{
	int64		dup;

	iso_edn_history_begin(eh);
	if (!parse_part(text, len, eh, st, false, NULL, NULL))
	{
		if (getenv("SPLIT_DEBUG"))
			diag("whole parse failed");
		return false;
	}
	return iso_edn_history_finish(eh, st->workload, &dup);
}

typedef enum
{
	SPLIT_ACCEPTED,				/* joined, finished and inferred */
	SPLIT_PART_FAILED,			/* a part did not parse or stop */
	SPLIT_NOT_JOINED,			/* iso_edn_history_join refused */
	SPLIT_CHECK_FAILED			/* the txn_id order or the inference failed */
} SplitResult;

static SplitResult
parse_split(const char *text, size_t len, size_t cut, IsoEdnHistory *head, EdnStats *hs)
{
	IsoEdnHistory tail;
	EdnStats	ts;
	EdnPending *pending = NULL;
	int32		n_pending = 0;
	SplitResult res = SPLIT_ACCEPTED;
	int64		dup;

	iso_edn_history_begin(head);
	iso_edn_history_begin(&tail);
	tail.keep_orphans = true;
	if (!parse_part(text, cut, head, hs, true, &pending, &n_pending) ||
		!parse_part(text + cut, len - cut, &tail, &ts, false, NULL, NULL))
		res = SPLIT_PART_FAILED;
	else if (!iso_edn_history_join(head, hs, pending, n_pending, &tail, &ts))
		res = SPLIT_NOT_JOINED;
	else if (!iso_edn_history_finish(head, hs->workload, &dup))
		res = SPLIT_CHECK_FAILED;
	else
	{
		IsoInference inf;
		IsoParseError err;
		IsoInferOptions opt;

		memset(&opt, 0, sizeof(opt));
		if (!iso_infer(&head->h, NULL, &opt, &inf, &err))
			res = SPLIT_CHECK_FAILED;
		else
			inference_free(&inf);
	}
	iso_free(pending);
	iso_history_free(&tail.h);
	iso_edn_history_free_parts(&tail);
	iso_edn_history_free_parts(head);
	return res;
}

static bool
same_text(const IsoStrTab *a, uint32 ia, const IsoStrTab *b, uint32 ib)
{
	int32		la,
				lb;
	const char *ta,
			   *tb;

	if (ia == ISO_NONE || ib == ISO_NONE)
		return ia == ib;
	ta = iso_strtab_get(a, ia, &la);
	tb = iso_strtab_get(b, ib, &lb);
	return la == lb && memcmp(ta, tb, (size_t) la) == 0;
}

/* Where a and b differ, or NULL: the same ids and texts, lists element for element. */
static const char *
history_diff(const IsoHistory *a, const IsoHistory *b)
{
	uint32		i;

	if (a->n_txns != b->n_txns || a->n_ops != b->n_ops || a->workload != b->workload)
		return "counts or workload";
	if (a->keys.n != b->keys.n || a->values.n != b->values.n)
		return "number of keys or values";
	for (i = 0; i < a->keys.n; i++)
		if (!same_text(&a->keys, i, &b->keys, i))
			return "a key's id";
	for (i = 0; i < a->values.n; i++)
		if (!same_text(&a->values, i, &b->values, i))
			return "a value's id";
	for (i = 0; i < a->n_txns; i++)
	{
		const IsoTxn *x = &a->txns[i];
		const IsoTxn *y = &b->txns[i];

		if (x->txn_id != y->txn_id || x->process != y->process ||
			x->has_process != y->has_process || x->status != y->status ||
			x->invoke_time != y->invoke_time || x->complete_time != y->complete_time ||
			x->first_op != y->first_op || x->n_ops != y->n_ops)
			return "a transaction";
	}
	for (i = 0; i < a->n_ops; i++)
	{
		const IsoOp *x = &a->ops[i];
		const IsoOp *y = &b->ops[i];
		int32		j;

		if (x->kind != y->kind || x->key != y->key || x->list_len != y->list_len ||
			iso_op_pos(a, i) != iso_op_pos(b, i))
			return "a micro-op";
		if (x->list_len < 0 && x->value != y->value)
			return "a micro-op's value";
		for (j = 0; j < x->list_len; j++)
			if (a->elems[x->list_first + j] != b->elems[y->list_first + j])
				return "a list element";
	}
	return NULL;
}

/* Up to max cuts of text, evenly spread over its record boundaries ("\n{"). */
static int
record_cuts(const char *text, size_t len, size_t *cuts, int max)
{
	size_t		total = 0;
	size_t		i;
	int			n = 0;
	size_t		k = 0;

	for (i = 1; i < len; i++)
		if (text[i - 1] == '\n' && (text[i] == '{' || text[i] == '#'))
			total++;
	for (i = 1; i < len && n < max; i++)
		if (text[i - 1] == '\n' && (text[i] == '{' || text[i] == '#'))
		{
			if (total <= (size_t) max || k % (total / (size_t) max + 1) == 0)
				cuts[n++] = i;
			k++;
		}
	return n;
}

static int	n_accepted = 0;
static int	n_refused = 0;
static int	n_caught = 0;		/* refused by the txn_id order or the inference */

static void
check_text(const char *name, const char *text, size_t len)
{
	IsoEdnHistory whole;
	EdnStats	ws;
	bool		whole_ok = parse_whole(text, len, &whole, &ws);
	size_t		cuts[64];
	int			n = record_cuts(text, len, cuts, 64);
	int			accepted = 0;
	int			wrong = 0;
	const char *diff = NULL;
	size_t		bad_cut = 0;
	int			c;

	if (whole_ok)
	{
		IsoInference inf;
		IsoParseError err;
		IsoInferOptions opt;

		memset(&opt, 0, sizeof(opt));
		whole_ok = iso_infer(&whole.h, NULL, &opt, &inf, &err);
		if (!whole_ok && getenv("SPLIT_DEBUG"))
			diag("whole infer failed: %s", err.message);
		if (whole_ok)
			inference_free(&inf);
	}
	for (c = 0; c < n; c++)
	{
		IsoEdnHistory head;
		EdnStats	hs;
		SplitResult r = parse_split(text, len, cuts[c], &head, &hs);

		if (r == SPLIT_CHECK_FAILED)
			n_caught++;
		if (r == SPLIT_ACCEPTED)
		{
			accepted++;
			if (!whole_ok)
			{
				wrong++;
				diff = "a history one parse refuses";
				bad_cut = cuts[c];
			}
			else
			{
				const char *d = history_diff(&whole.h, &head.h);

				if (d == NULL && (hs.records != ws.records || hs.txns != ws.txns ||
								  hs.events != ws.events || hs.skipped != ws.skipped ||
								  hs.ok != ws.ok || hs.fail != ws.fail || hs.info != ws.info ||
								  hs.workload != ws.workload || hs.time_source != ws.time_source))
					d = "the stats";
				if (d != NULL)
				{
					wrong++;
					diff = d;
					bad_cut = cuts[c];
				}
			}
		}
		iso_history_free(&head.h);
	}
	n_accepted += accepted;
	n_refused += n - accepted;
	ok(wrong == 0, "%s: %d cuts, %d joined, each as one parse%s%s (cut at byte %zu)",
	   name, n, accepted, whole_ok ? "" : " (which refuses it)",
	   diff ? diff : "", bad_cut);
	iso_history_free(&whole.h);
}

static char *
read_file(const char *path, size_t *len)
{
	FILE	   *f = fopen(path, "rb");
	char	   *buf;
	long		n;

	if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0)
	{
		if (f)
			fclose(f);
		return NULL;
	}
	rewind(f);
	buf = malloc((size_t) n + 1);
	*len = fread(buf, 1, (size_t) n, f);
	fclose(f);
	return buf;
}

static int
check_dir(const char *dir)
{
	DIR		   *d = opendir(dir);
	struct dirent *e;
	int			files = 0;

	if (d == NULL)
		return 0;
	while ((e = readdir(d)) != NULL)
	{
		size_t		nl = strlen(e->d_name);
		char		path[4096];
		char	   *text;
		size_t		len;

		if (nl < 4 || strcmp(e->d_name + nl - 4, ".edn") != 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		text = read_file(path, &len);
		if (text == NULL)
			continue;
		check_text(e->d_name, text, len);
		free(text);
		files++;
	}
	closedir(d);
	return files;
}

/*
 * A concurrent list-append history: procs processes invoke and complete
 * transactions in interleaved order, some :info (the process is replaced),
 * some :fail, some never complete; the lists read are each key's appends
 * so far, and a few reads repeat a value (dup: a value appended twice, in
 * far apart records, which one parse refuses).
 */
static char *
generate(uint64 seed, int n_txns, int procs, bool dup, size_t *len_out)
{
	size_t		cap = 1 << 16;
	char	   *b = malloc(cap);
	size_t		len = 0;
	int			keys = 8;
	int		   *count = calloc((size_t) keys, sizeof(int));
	int		   *proc_of = malloc(sizeof(int) * (size_t) procs);
	int		   *key_of = malloc(sizeof(int) * (size_t) procs);	/* -1: idle */
	int		   *value_of = malloc(sizeof(int) * (size_t) procs);
	int			next_proc = procs;
	int64		time = 1000;
	int			index = 0;
	int			done = 0;
	int			p;

	rng_state = seed;
	for (p = 0; p < procs; p++)
	{
		proc_of[p] = p;
		key_of[p] = -1;
	}
	while (done < n_txns)
	{
		int			k;

		if (cap - len < 8192)
			b = realloc(b, cap *= 2);
		p = rnd_int(procs);
		time += 1 + rnd_int(50);
		if (key_of[p] < 0)
		{
			k = key_of[p] = rnd_int(keys);
			value_of[p] = ++count[k];
			len += (size_t) snprintf(b + len, cap - len,
									 "{:type :invoke, :f :txn, :value [[:r %d nil] [:append %d %d]], :time %lld, :process %d, :index %d}\n",
									 k, k, value_of[p], (long long) time, proc_of[p], index++);
			continue;
		}
		k = key_of[p];
		{
			int			kind = rnd_int(10);
			const char *type = kind == 0 ? ":info" : kind == 1 ? ":fail" : ":ok";
			int			j;
			int			v = value_of[p];

			if (dup && done == n_txns / 2)
				v = 1;			/* written before */
			len += (size_t) snprintf(b + len, cap - len, "{:type %s, :f :txn, :value [[:r %d [", type, k);
			for (j = 1; j < v && j < 400; j++)
				len += (size_t) snprintf(b + len, cap - len, "%s%d", j > 1 ? " " : "", j);
			len += (size_t) snprintf(b + len, cap - len, "]] [:append %d %d]], :time %lld, :process %d, :index %d}\n",
									 k, v, (long long) time, proc_of[p], index++);
			key_of[p] = -1;
			if (kind == 0)
				proc_of[p] = next_proc++;	/* Jepsen's crashed process */
			done++;
		}
	}
	free(count);
	free(proc_of);
	free(key_of);
	free(value_of);
	*len_out = len;
	return b;
}

int
main(int argc, char **argv)
{
	int			files = 0;
	int			i;
	int			seed;

	for (i = 1; i < argc; i++)
		files += check_dir(argv[i]);
	if (argc == 1)
	{
		files += check_dir("../data/rules");
		files += check_dir("../data/register");
		files += check_dir("../../../shared/data/list-append");
		files += check_dir("../../../shared/data/register-anomalies");
	}
	ok(files > 0, "%d hand-made histories read", files);

	for (seed = 1; seed <= 20; seed++)
	{
		size_t		len;
		char		name[64];
		char	   *text = generate((uint64) seed, 300, 2 + seed % 7, seed % 5 == 0, &len);

		snprintf(name, sizeof(name), "generated %d%s", seed, seed % 5 == 0 ? " (a value twice)" : "");
		check_text(name, text, len);
		free(text);
	}
	/* not every cut joins (a pending invocation the tail does not complete), most do */
	ok(n_accepted > n_refused, "%d cuts joined, %d parsed whole instead", n_accepted, n_refused);
	/* a value written in both parts: no part sees it, the checker does */
	ok(n_caught > 0, "%d cuts joined histories that the checker then refused", n_caught);
	return tap_done();
}
