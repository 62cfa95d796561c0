/*
 * quote.h
 *	  Quoting offending input in error messages; UTF-8 validation.
 */
#ifndef ISOGRAPH_QUOTE_H
#define ISOGRAPH_QUOTE_H

#include "port.h"

#define ISO_QUOTE_CHARS 40		/* characters of offending text quoted */
#define ISO_QUOTE_BUF	200		/* buffer iso_quote_text needs */

extern int	iso_utf8_seq_len(const unsigned char *s, const unsigned char *end);
extern const char *iso_quote_text(char *buf, const char *s, const char *end);

#endif							/* ISOGRAPH_QUOTE_H */
