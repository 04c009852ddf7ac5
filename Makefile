# Makefile: builds the CUDA convolution workbook into build/. `make help` lists the targets.
#
# Each chapter NN_name has chapters/NN_name/ (lesson README.md, driver main.c, kernel interfaces,
# the chapter's own non-exercise kernels, and chapter.mk, its entry in the registry),
# solutions/NN_name/*.cu (reference kernels) and exercises/NN_name/*.cu (the same files with TODO
# blocks). A chapter is every chapters/NN_*/ folder; its chapter.mk is the one place that says
# what it links and what `make run` runs (README.md, "Adding a chapter"). tests/ctest_list.sh
# writes the test list, build/CTestTestfile.cmake, from the registry and the programs' --spec.
BUILD := build

# One job per core unless -j or JOBS says otherwise: a first build takes a minute on many cores
# instead of several. (clean beside other goals runs them in order.)
ifeq ($(filter -j%,$(MAKEFLAGS)),)
MAKEFLAGS += -j$(if $(filter command line environment,$(origin JOBS)),$(JOBS),$(shell nproc 2>/dev/null || echo 2))
endif
ifneq ($(filter clean,$(MAKECMDGOALS)),)
.NOTPARALLEL:
endif
# A recipe that fails leaves no half-written target behind to pass for a built one next time.
.DELETE_ON_ERROR:

# ---- probes: once per build -------------------------------------------------------------------
# What this machine has (libpng's flags, the GPU's architecture) is asked once: a recursive make
# (make check, make grade's builds, the tests' copies of the tree) inherits the answers through
# the environment instead of asking again at every parse.
ifndef WB_MAKE_PROBED
  export WB_MAKE_PROBED := yes
  export WB_MAKE_PNG_FOUND := $(shell pkg-config --exists libpng 2>/dev/null && echo yes)
  export WB_MAKE_PNG_CFLAGS := $(shell pkg-config --cflags libpng 2>/dev/null)
  export WB_MAKE_PNG_LIBS := $(shell pkg-config --libs libpng 2>/dev/null)
  export WB_MAKE_GPU_SM := $(shell nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n 1 | grep -E '^[0-9]+\.[0-9]+$$' | tr -d .)
endif

# ---- tools: say exactly what is missing ---------------------------------------------------------
NVCC ?= $(or $(shell command -v nvcc 2>/dev/null),$(wildcard /usr/local/cuda/bin/nvcc))
NVCC_BIN := $(shell command -v $(NVCC) 2>/dev/null)
# gcc unless make CC=... or the environment names another C compiler (make's own default, cc,
# does not count: the OpenMP and warning flags below are gcc's and clang's).
ifeq ($(origin CC),default)
  CC := gcc
endif
GOALS := $(or $(MAKECMDGOALS),all)
ifneq ($(filter-out help clean gradescope similarity,$(GOALS)),)
  ifeq ($(NVCC_BIN),)
    $(error nvcc not found: install the CUDA Toolkit 12 or later (https://developer.nvidia.com/cuda-downloads; Debian 12's own nvidia-cuda-toolkit is 11.8, too old) and put its bin/ on PATH, or run make NVCC=/path/to/nvcc)
  endif
  ifneq ($(WB_MAKE_PNG_FOUND),yes)
    $(error libpng not found: install its development files (Debian/Ubuntu: apt-get install libpng-dev pkg-config; Fedora: dnf install libpng-devel pkgconf))
  endif
endif
CUDA_HOME := $(patsubst %/bin/nvcc,%,$(realpath $(NVCC_BIN)))
# NPP ships with the CUDA Toolkit but may be left out of an install: chapter 06 then builds
# without its NPP baseline and says so when it runs.
HAVE_NPP := $(and $(wildcard $(CUDA_HOME)/include/npp.h),$(wildcard $(CUDA_HOME)/lib64/libnppif.so $(CUDA_HOME)/targets/*/lib/libnppif.so))
# NCCL ships with some CUDA installs and as a package (libnccl-dev) on others: chapter 10 then
# runs on one GPU only, and says so when asked for more.
NCCL_HOME := $(firstword $(foreach d,$(CUDA_HOME) /usr /usr/local,$(if $(wildcard $(d)/include/nccl.h),$(d))))
HAVE_NCCL := $(and $(NCCL_HOME),$(wildcard $(NCCL_HOME)/lib64/libnccl.so $(NCCL_HOME)/lib/libnccl.so $(NCCL_HOME)/lib/*/libnccl.so $(NCCL_HOME)/targets/*/lib/libnccl.so))
PNG_CFLAGS := $(WB_MAKE_PNG_CFLAGS)
PNG_LIBS := $(WB_MAKE_PNG_LIBS)

# ---- GPU architecture ---------------------------------------------------------------------------
# SM=90 wins; otherwise ask the GPU; without one, build machine code for the common data-centre
# and desktop GPUs that CUDA 13 supports, plus PTX that newer GPUs can compile at load time.
DETECTED_SM := $(WB_MAKE_GPU_SM)
ifdef SM
  ifeq ($(shell echo '$(SM)' | grep -E '^[0-9]+a?$$'),)
    $(error SM=$(SM) is not an architecture number: use e.g. SM=90 or SM=80)
  endif
  GENCODE := -gencode arch=compute_$(SM),code=sm_$(SM)
else ifneq ($(DETECTED_SM),)
  GENCODE := -gencode arch=compute_$(DETECTED_SM),code=sm_$(DETECTED_SM)
else
  GENCODE := $(foreach sm,75 80 86 89 90,-gencode arch=compute_$(sm),code=sm_$(sm)) \
             -gencode arch=compute_90,code=compute_90
endif

# ---- flags ------------------------------------------------------------------------------------
CFLAGS := -std=c11 -O2 -g -Wall -Wextra -fopenmp -Icommon -I$(CUDA_HOME)/include $(PNG_CFLAGS)
NVCCFLAGS := -O3 -std=c++17 -lineinfo $(GENCODE) -Xcompiler -Wall,-Wextra -Icommon
LDLIBS := -Xcompiler -fopenmp $(PNG_LIBS) -lm
# An unsolved exercise declares variables, takes parameters and offers helper functions that only
# its TODO code uses: those warnings are silenced for exercise files alone.
EXERCISE_FLAGS := -diag-suppress 177 -Xcompiler -Wno-unused-parameter,-Wno-unused-function
# Each object's own header dependencies, written by the compiler beside it (X.dep) and read
# below, so touching a header rebuilds what includes it and nothing else: common/verify.h, 26 of
# the build's 75 compiles; common/cuda_check.h, which nearly every file includes, 53. (An
# exercise object keeps its X.o.d, the grader's record of the files it read, and depends on every
# header.)
DEPFLAGS = -MMD -MP -MF $(basename $@).dep
# Each solution and driver CUDA object's ptxas report (every kernel's registers, shared memory,
# stack and spills, for every architecture built) is kept beside it (X.ptxas): tests/arch_fit.sh
# reads it instead of compiling the kernels again. The compiler's warnings and errors still show.
PTXAS_REPORT = --resource-usage 2>$(basename $@).ptxas; rc=$$?; \
  grep -v -e '^ptxas info' -e '^    [0-9]* bytes stack frame' $(basename $@).ptxas >&2; exit $$rc

# ---- the chapter registry ------------------------------------------------------------------
# Every chapters/NN_*/ folder is a chapter and must have a chapter.mk, an exercises/ folder and,
# in the instructor's tree, a solutions/ folder of the same name: anything less is an error here,
# not a silently smaller build. A student's copy has no solutions/ at all: then only the exercise
# programs are built, and the earlier chapters' kernels they show beside the student's (the
# registry's `uses`) are left out (their drivers declare them weak, and the program skips them).
CHAPTER_DIRS := $(patsubst chapters/%/,%,$(sort $(dir $(wildcard chapters/[0-9][0-9]_*/))))
CHAPTERS := $(patsubst chapters/%/chapter.mk,%,$(wildcard $(CHAPTER_DIRS:%=chapters/%/chapter.mk)))
HAVE_SOLUTIONS := $(wildcard solutions)
# With solutions/, every earlier chapter's kernel a driver shows (WB_EARLIER, workbook.h) must be
# linked: one missing fails the link with its name. A student's copy leaves them out on purpose.
EARLIER_KERNELS := $(if $(HAVE_SOLUTIONS),-DWB_EARLIER_REQUIRED)
KERNEL_DIRS := exercises $(if $(HAVE_SOLUTIONS),solutions)
$(foreach c,$(filter-out $(CHAPTERS),$(CHAPTER_DIRS)),$(error chapters/$(c)/ has no chapter.mk: add its registry entry (README.md, "Adding a chapter")))
$(foreach c,$(CHAPTERS),$(foreach d,$(KERNEL_DIRS),$(if $(wildcard $(d)/$(c)/*.cu),,$(error chapter $(c) has no kernel files in $(d)/$(c)/))))
# Libraries a chapter may name in `libs`: link flags, the define its code tests, and whether this
# toolkit has them. A missing optional library (NPP, NCCL) leaves its code out: the files
# that need it test the define, and the program says what was left out when it runs.
LIBRARIES := cufft npp nccl
LIB_FLAGS.cufft := -lcufft
LIB_FOUND.cufft := yes
LIB_FLAGS.npp := -lnppif -lnppc
LIB_FOUND.npp := $(HAVE_NPP)
LIB_DEFINE.npp := -DWB_HAVE_NPP
LIB_FLAGS.nccl := $(if $(NCCL_HOME),-L$(NCCL_HOME)/lib64 -L$(NCCL_HOME)/lib) -lnccl
LIB_FOUND.nccl := $(HAVE_NCCL)
LIB_DEFINE.nccl := -DWB_HAVE_NCCL $(if $(NCCL_HOME),-I$(NCCL_HOME)/include)
define READ_REGISTRY
uses :=
libs :=
include chapters/$(1)/chapter.mk
$(1).uses := $$(uses)
$(1).libs := $$(libs)
$$(foreach u,$$(uses),$$(if $$(filter $$(u),$$(CHAPTERS)),,$$(error chapters/$(1)/chapter.mk: uses '$$(u)', which is no chapter)))
$$(foreach l,$$(libs),$$(if $$(filter $$(l),$$(LIBRARIES)),,$$(error chapters/$(1)/chapter.mk: libs '$$(l)' is not one of: $$(LIBRARIES))))
$(1).link := $$(foreach l,$$(libs),$$(if $$(LIB_FOUND.$$(l)),$$(LIB_FLAGS.$$(l))))
$(1).defines := $$(foreach l,$$(libs),$$(if $$(LIB_FOUND.$$(l)),$$(LIB_DEFINE.$$(l))))
endef
$(foreach c,$(CHAPTERS),$(eval $(call READ_REGISTRY,$(c))))
# A chapter uses what the chapters it names use, and so on: closed here, so each chapter.mk names
# only the chapters it builds on directly (a cycle stops where it meets a chapter already seen).
uses_closure = $(foreach u,$(filter-out $(2),$($(1).uses)),$(u) $(call uses_closure,$(u),$(2) $(1) $(u)))
$(foreach c,$(CHAPTERS),$(eval $(c).uses := $(sort $(filter-out $(c),$(call uses_closure,$(c),$(c))))))

COMMON_SRC := $(filter-out common/imginfo.c common/devinfo.c,$(wildcard common/*.c))
COMMON_OBJ := $(COMMON_SRC:common/%.c=$(BUILD)/common/%.o)
COMMON_LIB := $(BUILD)/libworkbook.a
UNIT_TESTS := $(patsubst tests/%.c,$(BUILD)/tests/%,$(wildcard tests/unit_*.c))

.PHONY: all run test check compile profile progress mutants mutation grade similarity report clean help fuzz
.DEFAULT_GOAL := all

all: $(COMMON_LIB) $(BUILD)/imginfo $(BUILD)/devinfo $(UNIT_TESTS) $(BUILD)/tests/arch_fit $(BUILD)/CTestTestfile.cmake ## everything: common/, each chapter twice (solution, exercise), the test list

$(BUILD)/common/%.o: common/%.c | $(BUILD)/common
	$(CC) $(CFLAGS) $(DEPFLAGS) -c $< -o $@

# The CPU reference runs on every test's data: -O3 keeps its vectorised sums in registers (2 to 3
# times faster than -O2; common/reference.c says how it is written for that).
$(BUILD)/common/reference.o: CFLAGS += -O3

$(COMMON_LIB): $(COMMON_OBJ)
	ar rcs $@ $^

$(BUILD)/imginfo: common/imginfo.c $(COMMON_LIB)
	$(CC) $(CFLAGS) $(DEPFLAGS) $< $(COMMON_LIB) -o $@ $(PNG_LIBS) -lm

$(BUILD)/devinfo: common/devinfo.c $(COMMON_LIB)
	$(CC) $(CFLAGS) $(DEPFLAGS) $< $(COMMON_LIB) -o $@ -L$(CUDA_HOME)/lib64 -lcudart_static -ldl -lpthread -lrt -lm

# chapter 08's host arithmetic is compiled into its unit test
$(BUILD)/tests/unit_streams: chapters/08_streams/budget.c chapters/08_streams/timeline.c \
    chapters/08_streams/budget.h chapters/08_streams/timeline.h

# tests/arch_fit.c runs chapter 07's and 09's choice functions (it includes their .c files) on
# the compiler's report, for every architecture of common/gpu_limits.h (tests/arch_fit.sh)
$(BUILD)/tests/arch_fit: chapters/07_separable/variant_choice.c chapters/07_separable/variant_choice.h \
    chapters/09_3d/fetch_choice.c chapters/09_3d/fetch_choice.h

$(BUILD)/tests/%: tests/%.c tests/check.h $(COMMON_LIB) | $(BUILD)/tests
	$(CC) $(CFLAGS) $(DEPFLAGS) -Itests $< $(COMMON_LIB) -o $@ -L$(CUDA_HOME)/lib64 -lcudart_static -ldl -lpthread -lrt $(PNG_LIBS) -lz -lm

# One chapter: driver + kernel files, linked once with the solutions and once with the exercise;
# both also link the reference kernels of the chapters it uses (when solutions/ is there).
# EXERCISES and EXERCISE_BUILD say where the student's kernel files are and where their objects
# and programs go (the grader points them at a submission); WITH_SOLUTION=1 also links the
# chapter's own solution, renamed (below), so that one process times the student's kernel and
# the solution's on the same data (grading/grade.py, speed points).
EXERCISES ?= exercises
EXERCISE_BUILD ?= $(if $(filter exercises,$(EXERCISES)),$(BUILD),$(BUILD)/other/$(subst /,_,$(subst .,_,$(EXERCISES))))
solution_objects = $(patsubst solutions/$(1)/%.cu,$(BUILD)/$(1)/solution/%.o,$(wildcard solutions/$(1)/*.cu))
renamed_objects = $(patsubst solutions/$(1)/%.cu,$(BUILD)/$(1)/renamed/%.o,$(wildcard solutions/$(1)/*.cu))
exercise_objects = $(patsubst $(EXERCISES)/$(1)/%.cu,$(EXERCISE_BUILD)/$(1)/exercise/%.o,$(wildcard $(EXERCISES)/$(1)/*.cu))
# An exercise object comes with X.o.d, the files the compiler read: make grade's gate compares a
# student's with the pristine exercise's (grading/RULES.md, files-read).
# Kernels and host code that belong to a chapter's driver rather than to its exercise.
driver_objects = $(patsubst chapters/$(1)/%.cu,$(BUILD)/$(1)/driver/%.o,$(wildcard chapters/$(1)/*.cu)) \
  $(patsubst chapters/$(1)/%.c,$(BUILD)/$(1)/driver/%.o,$(filter-out chapters/$(1)/main.c,$(wildcard chapters/$(1)/*.c)))
used_objects = $(foreach c,$($(1).uses),$(call solution_objects,$(c)) $(call driver_objects,$(c)))
chapter_headers = $(foreach c,$(1) $($(1).uses),$(wildcard chapters/$(c)/*.h))
chapter_includes = $(foreach c,$(1) $($(1).uses),-Ichapters/$(c))
define CHAPTER_RULES
$(BUILD)/$(1)/main.o: chapters/$(1)/main.c | $(BUILD)/$(1)/driver
	$(CC) $(CFLAGS) $$(DEPFLAGS) $($(1).defines) $(EARLIER_KERNELS) $(call chapter_includes,$(1)) -c $$< -o $$@
$(BUILD)/$(1)/solution/%.o: solutions/$(1)/%.cu | $(BUILD)/$(1)/solution
	$(NVCC_BIN) $(NVCCFLAGS) $$(DEPFLAGS) $($(1).defines) -Ichapters/$(1) -c $$< -o $$@ $$(PTXAS_REPORT)
# The solution under other names: every global symbol it defines gets the prefix wb_solution_,
# so it links beside the student's file of the same names (the driver looks for them weakly).
$(BUILD)/$(1)/renamed/%.o: $(BUILD)/$(1)/solution/%.o
	@mkdir -p $$(@D)
	objcopy $$$$(nm --defined-only -g $$< | awk '$$$$3 != "" { printf " --redefine-sym %s=wb_solution_%s", $$$$3, $$$$3 }') $$< $$@
$(BUILD)/$(1)/driver/%.o: chapters/$(1)/%.c | $(BUILD)/$(1)/driver
	$(CC) $(CFLAGS) $$(DEPFLAGS) $($(1).defines) $(call chapter_includes,$(1)) -c $$< -o $$@
$(BUILD)/$(1)/driver/%.o: chapters/$(1)/%.cu | $(BUILD)/$(1)/driver
	$(NVCC_BIN) $(NVCCFLAGS) $$(DEPFLAGS) $($(1).defines) $(call chapter_includes,$(1)) -c $$< -o $$@ $$(PTXAS_REPORT)
$(EXERCISE_BUILD)/$(1)/exercise/%.o $(EXERCISE_BUILD)/$(1)/exercise/%.o.d: $(EXERCISES)/$(1)/%.cu $(wildcard chapters/$(1)/*.h chapters/$(1)/*.cuh common/*.h common/*.cuh)
	@mkdir -p $$(@D)
	$(NVCC_BIN) $(NVCCFLAGS) $($(1).defines) $(EXERCISE_FLAGS) -Ichapters/$(1) -MD -MF $$(@D)/$$*.o.d -c $$< -o $$(@D)/$$*.o
$(BUILD)/ch$(1): $(BUILD)/$(1)/main.o $(call driver_objects,$(1)) $(call solution_objects,$(1)) $(call used_objects,$(1)) $(COMMON_LIB)
	$(NVCC_BIN) $(GENCODE) $$^ -o $$@ $(LDLIBS) $($(1).link)
$(EXERCISE_BUILD)/ch$(1)_exercise: $(BUILD)/$(1)/main.o $(call driver_objects,$(1)) $(call exercise_objects,$(1)) $(call used_objects,$(1)) $(if $(WITH_SOLUTION),$(call renamed_objects,$(1))) $(COMMON_LIB)
	$(NVCC_BIN) $(GENCODE) $$^ -o $$@ $(LDLIBS) $($(1).link)
$(BUILD)/$(1)/solution $(BUILD)/$(1)/driver:
	mkdir -p $$@
all: $(if $(HAVE_SOLUTIONS),$(BUILD)/ch$(1)) $(BUILD)/ch$(1)_exercise $(addsuffix .d,$(call exercise_objects,$(1)))
endef
$(foreach ch,$(CHAPTERS),$(eval $(call CHAPTER_RULES,$(ch))))
# Exactly where the rules above write them: never a file a graded program could have left under
# build/grade/ or build/other/ (make would read it as rules).
-include $(wildcard $(BUILD)/*.dep $(BUILD)/common/*.dep $(BUILD)/tests/*.dep $(foreach c,$(CHAPTERS),$(BUILD)/$(c)/main.dep $(BUILD)/$(c)/solution/*.dep $(BUILD)/$(c)/driver/*.dep))

$(BUILD)/common $(BUILD)/tests $(BUILD)/out:
	mkdir -p $@

# The test list reads the registry and asks each program for its limits (--spec), so it is
# remade whenever a program, a registry entry or a test script changes.
CHAPTER_PROGRAMS := $(foreach c,$(CHAPTERS),$(if $(HAVE_SOLUTIONS),$(BUILD)/ch$(c)) $(BUILD)/ch$(c)_exercise)
$(BUILD)/CTestTestfile.cmake: $(wildcard tests/*.sh) $(CHAPTERS:%=chapters/%/chapter.mk) $(CHAPTER_PROGRAMS) $(UNIT_TESTS) $(BUILD)/tests/arch_fit $(BUILD)/imginfo | $(BUILD)/tests $(BUILD)/out
	sh tests/ctest_list.sh "$(CURDIR)" "$(CHAPTERS)" > $@.tmp && mv $@.tmp $@

# ---- running ----------------------------------------------------------------------------------
# make run: every chapter's `run` steps from its chapter.mk, in chapter order (today: the 1D
# progression from chapter 04, the photo and the 2D bench from chapter 05, then chapter 06's
# tuner, its bench against NPP and cuFFT, and the large masks). Exit 77 from a program means
# "no usable GPU": make run says so and stops without failing.
# In a student's copy (no solutions/) the steps run the exercise programs, and a chapter whose
# kernel does not pass its check yet (exit 1) is listed as not solved, not as a failure.
RUN_SUFFIX := $(if $(HAVE_SOLUTIONS),,_exercise)
run: all | $(BUILD)/out ## the main job: every chapter's run steps (chapters/NN_*/chapter.mk)
	@touch $(BUILD)/.run_started; unsolved=; \
	for ch in $(CHAPTERS); do \
	  sed -n 's/^run *= *//p' chapters/$$ch/chapter.mk | { \
	    while read -r args; do \
	      echo "make run: $(BUILD)/ch$${ch}$(RUN_SUFFIX) $$args"; \
	      $(BUILD)/ch$${ch}$(RUN_SUFFIX) $$args </dev/null || exit $$?; \
	    done; }; \
	  rc=$$?; \
	  if [ $$rc -eq 77 ]; then echo "make run: no usable CUDA device here: the programs were built but not run"; exit 0; fi; \
	  if [ $$rc -eq 1 ] && [ -n "$(RUN_SUFFIX)" ]; then unsolved="$$unsolved $${ch%%_*}"; continue; fi; \
	  if [ $$rc -ne 0 ]; then exit $$rc; fi; \
	done; \
	[ -z "$$unsolved" ] || echo "make run: not solved yet (your kernel fails its check):$$unsolved; make check CH=NN says why"; \
	written=$$(find $(BUILD)/out -newer $(BUILD)/.run_started -type f | sort | tr '\n' ' '); \
	echo "make run: done$${written:+; files written: $$written}"

# ---- fuzzing (not part of make test) ------------------------------------------------------------
# One libFuzzer target per loader and per command line (tests/fuzz/fuzz_load.c lists them), built
# with clang, AddressSanitizer and UndefinedBehaviorSanitizer, and with WB_FUZZ_BUILD defined: in
# that build alone libpng's CRC checks are off (image_io.c). tests/fuzz/fuzz.sh seeds each from the
# fixtures, data/ or tests/fuzz/*.seeds, runs it FUZZ_SECONDS (FUZZ_JOBS targets at a time),
# prints one row per target (executions, edges covered, corpus, findings) and fails when any found
# something, saved as build/fuzz/crash_<target>-*. Everything it writes is under build/fuzz/.
# The chapters' option targets parse with their drivers' own spec (streams_cli.c, multi_gpu_cli.c),
# which calls common/conv2d_harness.c: the rest of common/ then comes, uninstrumented, from the
# workbook's library, with the CUDA runtime (never started) and OpenMP it links.
FUZZ_TARGETS ?= png npy mask_file mask3d_file volume_npy cli ch08_options ch10_options
FUZZ_SECONDS ?= 60
FUZZ_JOBS ?= 1
FUZZ_SOURCES := $(addprefix common/,workbook.c image_io.c masks.c masks3d.c volumes.c cli.c data_gen.c safe_input.c safe_output.c)
FUZZ_CHAPTER.ch08_options := chapters/08_streams/streams_cli.c
FUZZ_CHAPTER.ch10_options := chapters/10_multi_gpu/multi_gpu_cli.c
FUZZ_INCLUDES.ch08_options := $(call chapter_includes,08_streams)
FUZZ_INCLUDES.ch10_options := $(call chapter_includes,10_multi_gpu)
FUZZ_WITH_LIBRARY := $(COMMON_LIB) -L$(CUDA_HOME)/lib64 -lcudart_static -ldl -lpthread -lrt \
  $(shell $(CC) -print-file-name=libgomp.so 2>/dev/null)
CLANG := $(shell command -v clang 2>/dev/null)
$(BUILD)/fuzz/fuzz_ch08_options: $(FUZZ_CHAPTER.ch08_options) $(call chapter_headers,08_streams) $(COMMON_LIB)
$(BUILD)/fuzz/fuzz_ch10_options: $(FUZZ_CHAPTER.ch10_options) $(call chapter_headers,10_multi_gpu) $(COMMON_LIB)
$(BUILD)/fuzz/fuzz_%: tests/fuzz/fuzz_load.c $(FUZZ_SOURCES) $(wildcard common/*.h)
	@if [ -z "$(CLANG)" ]; then echo "clang not found: make fuzz needs it (Debian/Ubuntu: apt-get install clang)"; exit 1; fi
	@mkdir -p $(@D)
	$(CLANG) -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
	  -DWB_FUZZ_BUILD -DFUZZ_$(shell echo $* | tr a-z A-Z) -Icommon $(FUZZ_INCLUDES.$*) \
	  -I$(CUDA_HOME)/include $(PNG_CFLAGS) $< $(FUZZ_SOURCES) $(FUZZ_CHAPTER.$*) -o $@ \
	  $(if $(FUZZ_CHAPTER.$*),$(FUZZ_WITH_LIBRARY)) $(PNG_LIBS) -lm

fuzz: $(FUZZ_TARGETS:%=$(BUILD)/fuzz/fuzz_%) ## FUZZ_SECONDS=60 FUZZ_JOBS=1: fuzz every loader and command line (clang, libFuzzer); not in make test
	@sh tests/fuzz/fuzz.sh "$(CURDIR)" $(BUILD)/fuzz "$(FUZZ_SECONDS)" "$(FUZZ_JOBS)" $(FUZZ_TARGETS)

JOBS ?= $(shell nproc 2>/dev/null || echo 2)
# make test and make check read CTest's results from its JUnit report (--output-junit, CTest 3.21):
# a missing or older ctest is said in one line, with how to get one (make check: before it builds).
define NEED_CTEST
@sh tests/ctest_junit.sh need
endef

# make test's jobs: JOBS where given, else one per core up to 32. Past 32, GPU processes crowd
# the GPUs more than the cores help: with 64 at once on a host of four H100s, tests of 1 s took
# up to 62 s (past their time limit of 60); with 32, 1 to 2 s.
TEST_JOBS := $(if $(filter file,$(origin JOBS)),$(shell n=$(JOBS); [ "$$n" -gt 32 ] && n=32; echo $$n),$(JOBS))
test: all ## CPU tests, solution tests, exercise guards (GPU tests skip, exit 77, without a GPU)
	$(NEED_CTEST)
	@sh tests/run_suite.sh $(BUILD) $(TEST_JOBS)

# make check CH=NN builds only chapter NN's exercise program and its own test list.
CHAPTER = $(filter $(CH)_%,$(CHAPTERS))
define NEED_CH
@if [ -z "$(CH)" ] || [ -z "$(CHAPTER)" ]; then echo "make $@ needs CH=NN, one of: $(foreach c,$(CHAPTERS),$(firstword $(subst _, ,$(c))))"; exit 2; fi
endef
check: ## CH=NN: your exercise for chapter NN: quick tests first (a verdict in seconds), then all
	$(NEED_CTEST)
	$(NEED_CH)
	@$(MAKE) -s -q $(EXERCISE_BUILD)/ch$(CHAPTER)_exercise 2>/dev/null || echo "make check: building chapter $(CHAPTER) first (a minute or two the first time)"
	@$(MAKE) -s $(EXERCISE_BUILD)/ch$(CHAPTER)_exercise $(BUILD)/tests $(BUILD)/out
	@mkdir -p $(BUILD)/check/$(CH)
	@WB_EXERCISE_DIR="$(abspath $(EXERCISE_BUILD))" sh tests/ctest_list.sh "$(CURDIR)" "$(CHAPTER)" > $(BUILD)/check/$(CH)/CTestTestfile.cmake
	@sh tests/check.sh $(BUILD)/check/$(CH) $(CH) $(JOBS) $(EXERCISES)/$(CHAPTER) "$$($(EXERCISE_BUILD)/ch$(CHAPTER)_exercise --spec | sed -n 's/^kernels=//p')"

# make profile CH=NN: Nsight Compute on the student's kernel and the reference, side by side.
profile: ## CH=NN: GPU: the lessons' profiler metrics for your kernel beside the reference's (ncu)
	$(NEED_CH)
	@$(MAKE) -s $(EXERCISE_BUILD)/ch$(CHAPTER)_exercise $(if $(HAVE_SOLUTIONS),$(BUILD)/ch$(CHAPTER))
	@CUDA_HOME="$(CUDA_HOME)" sh tests/profile.sh $(BUILD)/profile/$(CH) $(EXERCISE_BUILD)/ch$(CHAPTER)_exercise $(if $(HAVE_SOLUTIONS),$(BUILD)/ch$(CHAPTER))

# make compile CH=NN: what ptxas makes of the student's kernels, with no GPU and no link.
COMPILE_SM := $(or $(SM),$(DETECTED_SM),90)
compile: ## CH=NN: compile your kernel file alone; registers, spills, shared memory (no GPU needed)
	$(NEED_CH)
	@mkdir -p $(BUILD)/compile/$(CH)
	@for f in $(EXERCISES)/$(CHAPTER)/*.cu; do \
	  echo "make compile: $$f for sm_$(COMPILE_SM)"; \
	  $(NVCC_BIN) $(filter-out -gencode arch=%,$(NVCCFLAGS)) -arch=sm_$(COMPILE_SM) $($(CHAPTER).defines) $(EXERCISE_FLAGS) \
	    -Xptxas -v -Ichapters/$(CHAPTER) -c $$f -o $(BUILD)/compile/$(CH)/$$(basename $$f .cu).o \
	    > $(BUILD)/compile/$(CH)/ptxas.log 2>&1; rc=$$?; \
	  sh tests/ptxas_report.sh $(BUILD)/compile/$(CH)/ptxas.log $(BUILD)/compile/$(CH)/$$(basename $$f .cu).o || exit 1; \
	  [ $$rc -eq 0 ] || exit $$rc; \
	done
	@# make progress reads this: these very files compile (a checksum of them, as make check's verdict)
	@mkdir -p $(BUILD)/check/$(CH) && printf 'compiled %s\n' "$$(cat $(EXERCISES)/$(CHAPTER)/*.cu | cksum | cut -d' ' -f1)" >$(BUILD)/check/$(CH)/compiled

progress: ## where you are: each chapter solved, failing (with its hint) or untouched, and what next
	@sh tests/progress.sh "$(CURDIR)" "$(CHAPTERS)" "$(EXERCISES)" $(JOBS)

# The instructor's targets need the reference solutions (grade, similarity, mutants, handout) or
# measure them (report): a student's copy (make handout) has neither, and says so at once.
INSTRUCTOR_ONLY := $(if $(HAVE_SOLUTIONS),,instructor_only)
.PHONY: instructor_only handout
instructor_only:
	@echo "make $(MAKECMDGOALS): part of the full workbook (it needs the reference solutions); this is a student's copy"; exit 2

# make handout DIR=path: the student's copy (grading/handout.sh says what it holds). DIR reaches
# the script as data, like grade's paths.
unexport DIR
handout: export WB_HANDOUT_DIR := $(value DIR)
handout: $(INSTRUCTOR_ONLY) ## DIR=path: write the student's copy there (no solutions/; a README for students)
	@sh grading/handout.sh "$(CURDIR)"

# make gradescope DIR=path: Gradescope's autograder kit (grading/gradescope.sh says what it holds),
# grading on your GPU machine over SSH (GPU_HOST, GPU_USER, GPU_PORT; SSH_KEY and KNOWN_HOSTS are
# files), within GS_TIMEOUT seconds; LOCAL_GPU=1 adds the workbook for an image with a GPU. The
# paths and names reach the script as data, like grade's.
unexport GPU_HOST GPU_USER GPU_PORT SSH_KEY KNOWN_HOSTS GS_TIMEOUT LOCAL_GPU
.PHONY: gradescope
gradescope: export WB_GS_DIR := $(value DIR)
gradescope: export WB_GS_HOST := $(value GPU_HOST)
gradescope: export WB_GS_USER := $(value GPU_USER)
gradescope: export WB_GS_PORT := $(value GPU_PORT)
gradescope: export WB_GS_KEY := $(value SSH_KEY)
gradescope: export WB_GS_KNOWN_HOSTS := $(value KNOWN_HOSTS)
gradescope: export WB_GS_TIMEOUT := $(value GS_TIMEOUT)
gradescope: export WB_GS_LOCAL_GPU := $(value LOCAL_GPU)
gradescope: $(INSTRUCTOR_ONLY) ## DIR=path GPU_HOST=h SSH_KEY=f KNOWN_HOSTS=f: Gradescope autograder zip, grading on your GPU machine
	@sh grading/gradescope.sh "$(CURDIR)"

mutants: $(or $(INSTRUCTOR_ONLY),all) ## GPU: plant known bugs in the solutions; each must fail with the hint naming it
	@sh tests/mutants.sh; rc=$$?; [ $$rc -eq 77 ] || exit $$rc

# make mutation [CH=NN]: bugs planted mechanically in the solutions' TODO blocks, each built as a
# submission and run against its chapter's student battery (tests/mutation.py says how): long,
# resumable (build/mutation/results.tsv), not part of make test. CH and JOBS reach the script as
# data, as grade's paths do. Without a GPU it says so and stops without failing, as make run does.
mutation: export WB_MUTATION_CH := $(value CH)
mutation: export WB_MUTATION_JOBS := $(if $(filter command line environment,$(origin JOBS)),$(value JOBS))
mutation: $(or $(INSTRUCTOR_ONLY),all) ## GPU: mechanical mutants of the solutions' TODO blocks against each chapter's battery (CH=NN: one)
	@command -v python3 >/dev/null || { echo "make mutation needs python3 (Debian/Ubuntu: apt-get install python3)"; exit 1; }
	@python3 tests/mutation.py; rc=$$?; [ $$rc -eq 77 ] || exit $$rc

# Grading (README.md, "For instructors"): SUBMISSION=DIR grades one student's files, SUBMISSIONS=DIR
# every subfolder; neither: the workbook's own exercises/. RUBRIC=path replaces grading/rubric.txt;
# ROSTER=path (a CSV: folder to student) adds Canvas's and Moodle's gradebooks to a class's.
# The paths reach grading/grade.py as data: each is exported as its unexpanded text ($(value)), and
# never pasted into a recipe, so `...`, $(...), quotes and spaces in them only name a file.
unexport SUBMISSION SUBMISSIONS RUBRIC HIDDEN_TESTS ROSTER
grade: export WB_GRADE_SUBMISSION := $(value SUBMISSION)
grade: export WB_GRADE_SUBMISSIONS := $(value SUBMISSIONS)
grade: export WB_GRADE_RUBRIC := $(value RUBRIC)
grade: export WB_GRADE_HIDDEN_TESTS := $(value HIDDEN_TESTS)
grade: export WB_GRADE_ROSTER := $(value ROSTER)
grade: export WB_GRADE_JOBS := $(if $(filter command line environment,$(origin JOBS)),$(value JOBS))
grade: export WB_GRADE_CHAPTER_LIST := $(CHAPTERS)
grade: export WB_GRADE_SM := $(SM)
grade: $(or $(INSTRUCTOR_ONLY),all) ## grade exercises/, SUBMISSION=DIR or SUBMISSIONS=DIR against RUBRIC (results in build/grade/)
	@command -v python3 >/dev/null || { echo "make grade needs python3 (Debian/Ubuntu: apt-get install python3)"; exit 1; }
	@python3 grading/grade.py

# make similarity SUBMISSIONS=DIR: which students' TODO blocks are near-identical to each other's or
# to the solution's (grading/similarity.py says how), into build/similarity/<class>/. It reads
# the kernel files as text only, so it needs no build (and no nvcc: see the tool checks above).
# SUBMISSIONS and SIMILARITY_THRESHOLD reach the script as data, as grade's paths do.
unexport SIMILARITY_THRESHOLD
similarity: export WB_SIMILARITY_SUBMISSIONS := $(value SUBMISSIONS)
similarity: export WB_SIMILARITY_THRESHOLD := $(value SIMILARITY_THRESHOLD)
similarity: $(INSTRUCTOR_ONLY) ## SUBMISSIONS=DIR: TODO blocks alike between students or like the solution (build/similarity/; SIMILARITY_THRESHOLD=0.6)
	@command -v python3 >/dev/null || { echo "make similarity needs python3 (Debian/Ubuntu: apt-get install python3)"; exit 1; }
	@python3 grading/similarity.py

# The measured report (README.md, "The measured report"): sweeps on the GPU as JSON lines, then
# report/plot.py writes the CSVs, the figures (with matplotlib) and build/report/report.md.
REPORT_SCALE ?= full
report: $(or $(INSTRUCTOR_ONLY),all) ## GPU: measure the sweeps, write build/report/ (CSVs, figures, report.md); REPORT_SCALE=quick is short
	@command -v python3 >/dev/null || { echo "make report needs python3 for the CSVs and the page (Debian/Ubuntu: apt-get install python3)"; exit 1; }
	@python3 -c 'import matplotlib' 2>/dev/null || echo "make report: matplotlib is missing, so no figures (apt-get install python3-matplotlib, or python3 -m pip install matplotlib); the CSVs and the page are still written"
	@sh report/sweeps.sh "$(CURDIR)" $(BUILD)/report $(REPORT_SCALE)
	@python3 report/plot.py $(BUILD)/report

clean: ## remove build/
	rm -rf $(BUILD)

# help reads the "## " notes on the target lines above, so it lists what the rules really are.
help: ## this list
	@awk -F ':.*## ' -v copy="$(if $(HAVE_SOLUTIONS),,student)" '/^[a-z]+:.*## / { \
	  if (copy && $$1 ~ /^(grade|report|mutants|mutation|handout|gradescope|similarity)$$/) next; \
	  if (copy && $$1 == "all") $$2 = "your exercise programs and the test list"; \
	  if (copy && $$1 == "run") $$2 = "each chapter\047s main job on your kernels; unsolved chapters are listed"; \
	  if (copy && $$1 == "test") $$2 = "CPU tests and every chapter\047s checks on your kernels (GPU tests skip without a GPU)"; \
	  printf "  make %-7s %s\n", $$1, $$2 }' \
	  $(firstword $(MAKEFILE_LIST))
	@echo "  make with SM=90 builds for one GPU architecture (default: the GPU's own, else a list)"
	@echo "  chapters: $(CHAPTERS)"
