# mk/hardening.mk: hardening targets, included from the top-level Makefile.
# Self-contained: needs nothing from the including Makefile.
#
#   make valgrind   the pg_regress suite once on a throwaway cluster whose
#                   postgres runs under valgrind memcheck; fails on valgrind
#                   errors in isograph code (test/valgrind/run.sh).  Run
#                   "make install" first: the server loads the installed
#                   isograph.so.  About 18 minutes on 2 shared cores
#                   (16 in check.sql); VALGRIND_TESTS="bad_input graph ingest
#                   ingest_errors verdicts" (all but check.sql): ~80 s.
#   make hardening  cancellation, memory-limit, concurrency, SQL-shape and damage tests
#                   (test/hardening/run.sh) against the server in
#                   PGHOST/PGPORT/PGUSER, extension installed.

ISO_HARDENING_ROOT := $(patsubst %/mk/,%,$(dir $(abspath $(lastword $(MAKEFILE_LIST)))))

.PHONY: valgrind hardening
valgrind:
	$(ISO_HARDENING_ROOT)/test/valgrind/run.sh

hardening:
	$(ISO_HARDENING_ROOT)/test/hardening/run.sh
