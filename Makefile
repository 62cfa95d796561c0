# isograph: PGXS build of the extension, its client programs and its tests.

EXTENSION = isograph
EXTVERSION = $(shell sed -n "s/^default_version[[:space:]]*=[[:space:]]*'\([^']*\)'/\1/p" $(EXTENSION).control)

MODULE_big = isograph
# src/core: plain C (parsers, history, graph builder, cycle search, level
# rules), never postgres.h, also built outside the server by the unit tests
# and fuzzers; src/pg: the backend (module, storage, images, SQL functions),
# which is also the core's host (src/pg/host.c; port_standalone.c outside).
CORE_OBJS = $(patsubst %.c,%.o,$(filter-out src/core/port_standalone.c,$(sort $(wildcard src/core/*.c))))
PG_OBJS = $(patsubst %.c,%.o,$(sort $(wildcard src/pg/*.c)))
OBJS = $(CORE_OBJS) $(PG_OBJS)
PG_CPPFLAGS = -I$(srcdir)/src/core -I$(srcdir)/src/pg
# The version-order search's SAT solver: CaDiCaL (Debian: libcadical-dev),
# a C++ library used through its C API (src/core/sat.c).
SHLIB_LINK += -lcadical -lstdc++

DATA = $(wildcard sql/$(EXTENSION)--*.sql)

# pg_regress: inputs in test/sql, expected output in the top-level expected/.
REGRESS = $(patsubst test/sql/%.sql,%,$(sort $(wildcard test/sql/*.sql)))
REGRESS_OPTS = --inputdir=test --load-extension=$(EXTENSION)
# isolation tests (concurrent sessions): test/specs, expected output in expected/
ISOLATION = $(patsubst test/specs/%.spec,%,$(sort $(wildcard test/specs/*.spec)))
ISOLATION_OPTS = --inputdir=test --outputdir=. --load-extension=$(EXTENSION)

EXTRA_CLEAN = results regression.diffs regression.out

PG_CONFIG ?= pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

# headers are shared by every file: rebuild all objects when one changes
# (after the include, so that PGXS's "all" stays the default goal)
$(OBJS): $(wildcard src/core/*.h src/pg/*.h)

# The libpq client, isograph-record (client/), builds and installs with us.
.PHONY: client client-install client-clean
all: client
install: client-install
clean: client-clean
client:
	$(MAKE) -C client
client-install:
	$(MAKE) -C client install
client-clean:
	$(MAKE) -C client clean

# The core/backend boundary: src/core is plain C that the unit tests and
# fuzzers build without the server, so it never includes a server header.
.PHONY: layout
layout:
	@if grep -nE '^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]((postgres|postgres_fe|c|fmgr|funcapi|miscadmin|pgstat)\.h|(access|catalog|commands|common|executor|lib|libpq|nodes|parser|port|storage|tcop|utils)/)' src/core/*.c src/core/*.h; then \
		echo "src/core includes a server header (above): move that code to src/pg"; exit 1; \
	else echo "ok 1 - src/core includes no server header"; fi

# Standalone checks of the C cores (no server needed).
.PHONY: unit fuzz sanitize
unit:
	$(MAKE) -C test/unit -j2 check

sanitize:
	$(MAKE) -C test/unit -j2 check SANITIZE=1
	$(MAKE) -C test/unit -j2 check SANITIZE=thread

fuzz:
	$(MAKE) -C test/fuzz -j2 run

# The same fuzzers for an hour each (or FUZZ_SECONDS), for a scheduled job,
# not for CI; the corpus in test/fuzz/corpus/ grows from run to run.
.PHONY: fuzz-long
fuzz-long:
	$(MAKE) -C test/fuzz run FUZZ_SECONDS=$(if $(filter undefined default,$(origin FUZZ_SECONDS)),3600,$(FUZZ_SECONDS))

# make valgrind, make hardening
include mk/hardening.mk
