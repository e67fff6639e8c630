# tsmine — PGXS build.
#   make && make install        GPU build when nvcc is found, CPU-only otherwise
#   make WITH_CUDA=no           force the CPU-only build
#   make installcheck           pg_regress suite (sql/, expected/)
#   make unittest               C++ unit tests of the core (test/unit/)
#   make prove                  pgTAP suite (test/pgtap/, needs pg_prove)
#   make bench_motifs bench_outliers bench_discords bench_shapelets   C++ benchmark drivers of the core (bench/*.cpp)
#   scripts/test.sh             everything, on a throwaway cluster

EXTENSION = tsmine
# the version being built: default_version of the control file
EXTVERSION = $(shell sed -n "s/^default_version *= *'\(.*\)'/\1/p" $(EXTENSION).control)
MODULE_big = tsmine

# Debian's PGXS sets with_llvm = yes, which would try to emit LLVM bitcode for
# every object, .cu objects included.  We ship no JIT bitcode.
override with_llvm = no

CUDA_HOME ?= /usr/local/cuda
NVCC ?= $(CUDA_HOME)/bin/nvcc
WITH_CUDA ?= $(if $(wildcard $(NVCC)),yes,no)

GLUE_SRCS   = $(sort $(wildcard src/glue/*.c))
CORE_SRCS   = $(sort $(wildcard src/core/*.cpp))
KERNEL_SRCS = $(sort $(wildcard kernels/*.cu))

CORE_OBJS = $(CORE_SRCS:.cpp=.o)
ifeq ($(WITH_CUDA),yes)
KERNEL_OBJS = $(KERNEL_SRCS:.cu=.o)
endif
OBJS = $(GLUE_SRCS:.c=.o) $(CORE_OBJS) $(KERNEL_OBJS)

# The extension script is assembled from extension/*.sql (one file per feature,
# in name order): that folder is its only source.  versions/ holds the scripts
# of released versions, frozen, and the update scripts between versions.
EXT_PARTS = $(sort $(wildcard extension/*.sql))
DATA_built = $(EXTENSION)--$(EXTVERSION).sql
DATA = $(filter-out versions/$(DATA_built),$(sort $(wildcard versions/$(EXTENSION)--*.sql)))

REGRESS = $(sort $(notdir $(basename $(wildcard sql/*.sql))))
REGRESS_OPTS = --inputdir=. --outputdir=. --load-extension=plpgsql

# ---- the core: C++17, no PostgreSQL headers --------------------------------
TSM_CXX ?= g++
CORE_CXXFLAGS = -std=c++17 -O3 -ffp-contract=off -fPIC -pthread -Wall -Wextra -Wno-unused-parameter -Isrc/core
ifeq ($(WITH_CUDA),yes)
CORE_CXXFLAGS += -DTSMINE_WITH_CUDA -I$(CUDA_HOME)/include
CUDA_ARCH ?= -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90 \
             -gencode arch=compute_90,code=compute_90
NVCC_FLAGS = -std=c++17 -O3 $(CUDA_ARCH) -Xcompiler -fPIC,-Wall -DTSMINE_WITH_CUDA \
             -Isrc/core -Ikernels --expt-relaxed-constexpr
CUDA_LIBS = -L$(CUDA_HOME)/lib64 -lcudart_static -ldl -lrt
endif

SHLIB_LINK += $(CUDA_LIBS) -lstdc++ -lpthread

PG_CPPFLAGS = -Isrc/core -DTSM_VERSION='"$(EXTVERSION)"'
PG_CFLAGS = -Wno-declaration-after-statement

PG_CONFIG ?= pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)


# Objects remember the flavour they were built for: switching WITH_CUDA rebuilds
# them.  The file .flavour always exists and is rewritten (made newer than every
# object) only when the flavour changes; a missing stamp would not do, since
# PGXS declares .SECONDARY, under which make does not remake a missing
# prerequisite for an existing target.
FLAVOUR_FILE = .flavour
ifneq ($(shell cat $(FLAVOUR_FILE) 2>/dev/null),cuda-$(WITH_CUDA))
$(shell echo cuda-$(WITH_CUDA) > $(FLAVOUR_FILE))
endif
$(OBJS): $(FLAVOUR_FILE)

src/core/%.o: src/core/%.cpp $(wildcard src/core/*.h)
	$(TSM_CXX) $(CORE_CXXFLAGS) -c -o $@ $<

kernels/%.o: kernels/%.cu $(wildcard kernels/*.cuh kernels/*.h src/core/*.h)
	$(NVCC) $(NVCC_FLAGS) -c -o $@ $<

$(GLUE_SRCS:.c=.o): $(wildcard src/glue/*.h) src/core/tsm_api.h

$(DATA_built): $(EXT_PARTS)
	cat $(EXT_PARTS) > $@

# ---- C++ unit tests of the core -------------------------------------------
UNIT_SRCS = $(sort $(wildcard test/unit/*.cpp))
UNIT_BIN = test/unit/run_unit_tests
$(UNIT_BIN): $(UNIT_SRCS) $(CORE_OBJS) $(KERNEL_OBJS) $(wildcard test/unit/*.h kernels/*.cuh)
	$(TSM_CXX) $(CORE_CXXFLAGS) -Itest/unit -o $@ $(UNIT_SRCS) $(CORE_OBJS) $(KERNEL_OBJS) $(CUDA_LIBS) -lpthread

.PHONY: unittest unittest_bin prove
unittest_bin: $(UNIT_BIN)
unittest: $(UNIT_BIN)
	$(UNIT_BIN)

prove:
	pg_prove --ext .sql -r test/pgtap

# ---- C++ benchmark drivers: the core alone, no SQL (bench/*.cpp) ----------
# bench/bench_motifs runs on the CPU, and on the GPU in a CUDA build;
# bench/bench_outliers times the GPU kernels and needs a CUDA build.
BENCH_BINS = bench/bench_motifs bench/bench_outliers bench/bench_discords bench/bench_shapelets
.PHONY: bench_motifs bench_outliers bench_discords bench_shapelets
bench_motifs: bench/bench_motifs
bench_discords: bench/bench_discords
bench/bench_discords: bench/bench_discords.cpp bench/series_file.h $(CORE_OBJS) $(KERNEL_OBJS) $(wildcard src/core/*.h)
	$(TSM_CXX) $(CORE_CXXFLAGS) -o $@ $< $(CORE_OBJS) $(KERNEL_OBJS) $(CUDA_LIBS) -lpthread
bench_outliers: bench/bench_outliers
bench_shapelets: bench/bench_shapelets
bench/bench_shapelets: bench/bench_shapelets.cpp $(CORE_OBJS) $(KERNEL_OBJS) $(wildcard src/core/*.h)
	$(TSM_CXX) $(CORE_CXXFLAGS) -o $@ $< $(CORE_OBJS) $(KERNEL_OBJS) $(CUDA_LIBS) -lpthread
bench/bench_motifs: bench/bench_motifs.cpp bench/series_file.h $(CORE_OBJS) $(KERNEL_OBJS) $(wildcard src/core/*.h)
	$(TSM_CXX) $(CORE_CXXFLAGS) -o $@ $< $(CORE_OBJS) $(KERNEL_OBJS) $(CUDA_LIBS) -lpthread
bench/bench_outliers: bench/bench_outliers.cpp $(CORE_OBJS) $(KERNEL_OBJS) $(wildcard src/core/*.h)
ifeq ($(WITH_CUDA),yes)
	$(TSM_CXX) $(CORE_CXXFLAGS) -o $@ $< $(CORE_OBJS) $(KERNEL_OBJS) $(CUDA_LIBS) -lpthread
else
	@echo "bench/bench_outliers times the GPU kernels: it needs a CUDA build (WITH_CUDA=yes, nvcc at NVCC=$(NVCC))" >&2; exit 1
endif

EXTRA_CLEAN = $(UNIT_BIN) $(BENCH_BINS) results regression.diffs regression.out .flavour

# ---- release -----------------------------------------------------------------
# make dist: the release archive tsmine-$(EXTVERSION).zip (what PGXN takes),
# from git: the committed HEAD, every file under tsmine-$(EXTVERSION)/.
DIST = $(EXTENSION)-$(EXTVERSION)
.PHONY: dist print-version
dist:
	@git diff --quiet HEAD -- || echo "make dist: uncommitted changes are not in $(DIST).zip (it is HEAD)" >&2
	git archive --format=zip --prefix=$(DIST)/ --output=$(DIST).zip HEAD
print-version:
	@echo $(EXTVERSION)
