/*
 * parse_error.c
 *	  A parser's IsoParseError (edn.c, wal.c) raised as an ERROR: its
 *	  SQLSTATE, message, detail, hint, and the record and line as context;
 *	  for EDN, a hint when the text looks like JSON.
 */
#include "postgres.h"

#include <ctype.h>

#include "isograph.h"

static int
parse_error_code(IsoErrorKind kind)
{
	switch (kind)
	{
		case ISO_PARSE_SYNTAX:
			return ERRCODE_INVALID_TEXT_REPRESENTATION;
		case ISO_PARSE_RANGE:
			return ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE;
		case ISO_PARSE_LIMIT:
			return ERRCODE_PROGRAM_LIMIT_EXCEEDED;
		case ISO_PARSE_DUPLICATE:
			return ERRCODE_UNIQUE_VIOLATION;
		case ISO_PARSE_UNTRANSLATABLE:
			return ERRCODE_UNTRANSLATABLE_CHARACTER;
		case ISO_PARSE_INVALID:
		case ISO_PARSE_OK:
			break;
	}
	return ERRCODE_DATA_EXCEPTION;
}

void
iso_report_parse_error(const IsoParseError *err, const char *what)
{
	char	   *where = err->record > 0 ?
		psprintf("%s record %lld, line %lld", what,
				 (long long) err->record, (long long) err->line) :
		psprintf("%s line %lld", what, (long long) err->line);

	ereport(ERROR,
			(errcode(parse_error_code(err->kind)),
			 errmsg("%s", err->message),
			 err->detail[0] ? errdetail("%s", err->detail) : 0,
			 err->hint[0] ? errhint("%s", err->hint) : 0,
			 errcontext("%s", where)));
	pg_unreachable();
}

/*
 * Whether text starts like JSON ({"... or [{"...): a common mix-up (Jepsen
 * also writes JSON files, and other tools only JSON), worth its own hint.
 */
static bool
looks_like_json(const char *s, size_t len)
{
	const char *end = s + len;

	while (s < end && isspace((unsigned char) *s))
		s++;
	if (s < end && *s == '[')
		for (s++; s < end && isspace((unsigned char) *s); s++)
			;
	if (s >= end || *s != '{')
		return false;
	for (s++; s < end && isspace((unsigned char) *s); s++)
		;
	return s < end && *s == '"';
}

/* iso_report_parse_error for EDN text (whole or one line of it). */
void
iso_report_edn_error(const IsoParseError *err, const char *text, size_t len)
{
	IsoParseError e = *err;

	if (looks_like_json(text, len))
		snprintf(e.hint, sizeof(e.hint), "%s",
				 "The text looks like JSON; isograph reads Jepsen's EDN (history.edn: "
				 "{:type :ok, :value [[:append 1 2]]} per line). Load other formats with COPY into iso_event.");
	iso_report_parse_error(&e, "EDN");
}
