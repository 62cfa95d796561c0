/*
 * edn_out.c: write the history as a Jepsen EDN file, one record a line,
 * in :index order.  Invocations carry nil reads; ok completions carry what
 * each read returned; fail and info completions carry nil reads (what they
 * read is not evidence).  A transaction's id in isograph is the :index of
 * its completion record, the same id store.c writes.
 */
#include "edn_out.h"

#include <errno.h>
#include <string.h>

static void
write_value(FILE *f, Txn *t, bool completion, WorkloadKind wk)
{
	fputc('[', f);
	for (int i = 0; i < t->nops; i++)
	{
		Op		   *op = &t->ops[i];

		if (i)
			fputc(' ', f);
		switch (op->type)
		{
			case OP_APPEND:
				fprintf(f, "[:append %lld %lld]", (long long) op->key, (long long) op->value);
				break;
			case OP_W:
				fprintf(f, "[:w %lld %lld]", (long long) op->key, (long long) op->value);
				break;
			case OP_R:
				fprintf(f, "[:r %lld ", (long long) op->key);
				if (!completion || t->status != ST_OK || !op->has_read || op->read_nil)
					fputs("nil", f);
				else if (wk == WL_LIST_APPEND)
				{
					fputc('[', f);
					for (int k = 0; k < op->read_len; k++)
						fprintf(f, k ? " %lld" : "%lld", (long long) op->read_list[k]);
					fputc(']', f);
				}
				else
					fprintf(f, "%lld", (long long) op->read_val);
				fputc(']', f);
				break;
		}
	}
	fputc(']', f);
}

bool
edn_write(const char *path, History *h, WorkloadKind wk)
{
	FILE	   *f = strcmp(path, "-") == 0 ? stdout : fopen(path, "w");

	if (!f)
	{
		errmsg_out("cannot write %s: %s", path, strerror(errno));
		return false;
	}
	for (size_t i = 0; i < h->nevents; i++)
	{
		HistEvent  *e = &h->events[i];
		Txn		   *t = e->txn;
		const char *type = !e->completion ? "invoke" :
			t->status == ST_OK ? "ok" : t->status == ST_FAIL ? "fail" : "info";

		fprintf(f, "{:type :%s, :f :txn, :value ", type);
		write_value(f, t, e->completion, wk);
		fprintf(f, ", :time %lld, :process %lld, :index %zu",
				(long long) (e->completion ? t->complete_time : t->invoke_time),
				(long long) t->process, i);
		if (e->completion && t->status != ST_OK && t->error[0])
		{
			fputs(", :error \"", f);
			for (const char *p = t->error; *p; p++)
			{
				if (*p == '"' || *p == '\\')
					fputc('\\', f);
				fputc(*p, f);
			}
			fputc('"', f);
		}
		fputs("}\n", f);
	}
	if (f != stdout)
	{
		if (fclose(f) != 0)
		{
			errmsg_out("cannot write %s: %s", path, strerror(errno));
			return false;
		}
	}
	else
		fflush(f);
	return true;
}
