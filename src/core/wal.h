/*
 * wal.h
 *	  Reader for version-order evidence in write-ahead-log JSON lines.
 *
 * One JSON object per line.  Lines with "type": 2300 are document writes in
 * commit order; data._key is the key and data.rwAttr the value written.
 * Other lines (transaction markers and the like) are skipped.  No backend
 * dependencies, errors returned, never thrown (see edn.h).
 */
#ifndef ISOGRAPH_WAL_H
#define ISOGRAPH_WAL_H

#include "edn.h"

typedef struct WalVersion
{
	IsoSlice	key;			/* canonical text, as in EdnOp */
	IsoSlice	value;
	int64		line;			/* 1-based line of the write */
} WalVersion;

/* Called for every write in log order; return false to stop. */
typedef bool (*WalVersionCallback) (const WalVersion *version, void *arg);

extern bool wal_parse(const char *text, size_t len,
					  WalVersionCallback callback, void *arg,
					  int64 *skipped_lines, IsoParseError *err);

#define WAL_DOCUMENT_WRITE 2300

#endif							/* ISOGRAPH_WAL_H */
