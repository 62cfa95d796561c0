/*
 * list_input.c
 *	  A read_list's elements as slices, without copying them: from a text[]
 *	  (the view iso_event, the reader of 0.4.0's rows) or from the array
 *	  literal as text (the table iso_event_load).
 *
 * Why the literal: COPY into iso_event parses each read_list with
 * array_in, which calls textin for every element and builds the array --
 * a quarter of a COPY of a list-append history (docs/performance.md).
 * iso_event_load takes the same column as text, and the common literal
 * ({a,b,c}: no quotes, backslashes, blanks, NULLs or empty elements) is
 * cut at its commas here; anything else goes through array_in, so both
 * targets read every literal the same way.
 */
#include "postgres.h"

#include "access/tupmacs.h"
#include "catalog/pg_type.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/memutils.h"

#include "isograph.h"

/*
 * The elements of a read_list (text[]) as slices into the array, without
 * deconstruct_array's copies; the slices are allocated in the current
 * context.  A list read is one-dimensional and has no NULL element: the
 * result says which rule the array breaks, if any.
 */
IsoListCheck
iso_text_array_slices(Datum d, IsoSlice **elems, int *n)
{
	ArrayType  *arr = DatumGetArrayTypeP(d);
	IsoSlice   *e;
	char	   *p;
	int			i;

	if (ARR_NDIM(arr) > 1)
		return ISO_LIST_DIMENSIONS;
	if (ARR_HASNULL(arr) && array_contains_nulls(arr))
		return ISO_LIST_NULL_ELEMENT;
	*n = ArrayGetNItems(ARR_NDIM(arr), ARR_DIMS(arr));
	e = palloc(sizeof(IsoSlice) * Max(*n, 1));
	p = ARR_DATA_PTR(arr);
	for (i = 0; i < *n; i++)
	{
		e[i].ptr = VARDATA_ANY(p);
		e[i].len = VARSIZE_ANY_EXHDR(p);
		p = att_addlength_pointer(p, -1, p);
		p = (char *) att_align_nominal(p, TYPALIGN_INT);
	}
	*elems = e;
	return ISO_LIST_OK;
}

/*
 * Bytes that end the fast path: array_in gives them a meaning (quoting,
 * escapes, nesting, blanks it trims).  Every server encoding keeps ASCII
 * bytes out of its multibyte characters, so a byte test is enough.
 */
static inline bool
literal_special(unsigned char c)
{
	return c == '"' || c == '\\' || c == '{' || c == '}' || c == ' ' ||
		c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/*
 * The elements of {a,b,c}, when the literal has that plain form: every
 * element non-empty and not NULL (any case).  False if it has another.
 */
static bool
plain_literal_slices(const char *s, int len, IsoSlice **elems, int *n)
{
	const char *body = s + 1;
	int			blen = len - 2;
	int			commas = 0;
	IsoSlice   *e;
	int			start;
	int			k;
	int			i;

	if (len < 2 || s[0] != '{' || s[len - 1] != '}')
		return false;
	for (i = 0; i < blen; i++)
	{
		if (body[i] == ',')
			commas++;
		else if (literal_special((unsigned char) body[i]))
			return false;
	}
	if (commas >= MaxArraySize)
		return false;			/* array_in's "array size exceeds ..." */
	if (blen == 0)
	{
		*elems = palloc(sizeof(IsoSlice));
		*n = 0;
		return true;
	}
	e = palloc(sizeof(IsoSlice) * (commas + 1));
	start = 0;
	k = 0;
	for (i = 0; i <= blen; i++)
	{
		if (i < blen && body[i] != ',')
			continue;
		/* an empty element is array_in's error; NULL its NULL element */
		if (i == start ||
			(i - start == 4 && pg_strncasecmp(body + start, "null", 4) == 0))
		{
			pfree(e);
			return false;
		}
		e[k].ptr = body + start;
		e[k].len = i - start;
		k++;
		start = i + 1;
	}
	*elems = e;
	*n = k;
	return true;
}

/*
 * The elements of a read_list given as the text of its array literal
 * ('{1,2,3}'), as slices into d or into the array array_in makes of it;
 * the same elements, and the same errors, as the literal cast to text[].
 */
IsoListCheck
iso_list_literal_slices(Datum d, IsoSlice **elems, int *n)
{
	text	   *t = DatumGetTextPP(d);

	if (plain_literal_slices(VARDATA_ANY(t), VARSIZE_ANY_EXHDR(t), elems, n))
		return ISO_LIST_OK;
	return iso_text_array_slices(OidInputFunctionCall(F_ARRAY_IN, text_to_cstring(t),
													  TEXTOID, -1),
								 elems, n);
}
