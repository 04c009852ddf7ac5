# Makefile: builds the CUDA convolution workbook into build/.
#
#   make               everything: common/, each chapter twice (solution and exercise), tests
#   make run           the main job: the 1D progression table (chapters 01-04), the photo
#                      blurred/sharpened/edge-detected into build/out/, the 2D benches (chapter
#                      05; chapter 06 tuned for this GPU, against NPP and cuFFT)
#   make test          CPU tests, solution tests and the exercise guards (GPU tests skip, exit 77,
#                      on a machine without a GPU)
#   make check CH=01   your own exercise's tests for one chapter
#   make clean         remove build/
#   make help          this list
#   SM=90              build for one GPU architecture (default: the GPU's own, else a list)
#
# Each chapter NN_name has chapters/NN_name/main.c (driver), solutions/NN_name/*.cu (reference
# kernels) and exercises/NN_name/*.cu (the same files with TODO blocks). The test list lives in
# tests/ctest_list.sh, which writes build/CTestTestfile.cmake.

CHAPTERS := 01_basic_1d 02_constant_mask 03_tiled_halo 04_cached_tiling 05_tiled_2d 06_register_prefetch
# Earlier chapters whose reference kernels a chapter's program runs beside its own.
USES_02_constant_mask := 01_basic_1d
USES_03_tiled_halo := 02_constant_mask 01_basic_1d
USES_04_cached_tiling := 03_tiled_halo 02_constant_mask 01_basic_1d
USES_06_register_prefetch := 05_tiled_2d
# Libraries a chapter links (only that chapter): 06 measures itself against cuFFT and NPP.
LIBS_06_register_prefetch = -lcufft $(if $(HAVE_NPP),-lnppif -lnppc)
CFLAGS_06_register_prefetch = $(if $(HAVE_NPP),-DWB_HAVE_NPP)
BUILD := build

# ---- tools: say exactly what is missing ---------------------------------------------------------
NVCC ?= $(or $(shell command -v nvcc 2>/dev/null),$(wildcard /usr/local/cuda/bin/nvcc))
NVCC_BIN := $(shell command -v $(NVCC) 2>/dev/null)
CC := gcc
GOALS := $(or $(MAKECMDGOALS),all)
ifneq ($(filter-out help clean,$(GOALS)),)
  ifeq ($(NVCC_BIN),)
    $(error nvcc not found: install the CUDA Toolkit 12 or later (https://developer.nvidia.com/cuda-downloads; Debian 12's own nvidia-cuda-toolkit is 11.8, too old) and put its bin/ on PATH, or run make NVCC=/path/to/nvcc)
  endif
  ifneq ($(shell pkg-config --exists libpng 2>/dev/null && echo yes),yes)
    $(error libpng not found: install its development files (Debian/Ubuntu: apt-get install libpng-dev pkg-config; Fedora: dnf install libpng-devel pkgconf))
  endif
endif
CUDA_HOME := $(patsubst %/bin/nvcc,%,$(realpath $(NVCC_BIN)))
# NPP ships with the CUDA Toolkit but may be left out of an install: chapter 06 then builds
# without its NPP baseline and says so when it runs.
HAVE_NPP := $(and $(wildcard $(CUDA_HOME)/include/npp.h),$(wildcard $(CUDA_HOME)/lib64/libnppif.so $(CUDA_HOME)/targets/*/lib/libnppif.so))
PNG_CFLAGS := $(shell pkg-config --cflags libpng 2>/dev/null)
PNG_LIBS := $(shell pkg-config --libs libpng 2>/dev/null)

# ---- GPU architecture ---------------------------------------------------------------------------
# SM=90 wins; otherwise ask the GPU; without one, build machine code for the common data-centre
# and desktop GPUs that CUDA 13 supports, plus PTX that newer GPUs can compile at load time.
DETECTED_SM := $(shell nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n 1 | grep -E '^[0-9]+\.[0-9]+$$' | tr -d .)
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
# An unsolved exercise declares variables and takes parameters that only its TODO code uses:
# those two warnings are silenced for exercise files alone.
EXERCISE_FLAGS := -diag-suppress 177 -Xcompiler -Wno-unused-parameter

COMMON_SRC := $(filter-out common/imginfo.c,$(wildcard common/*.c))
COMMON_OBJ := $(COMMON_SRC:common/%.c=$(BUILD)/common/%.o)
COMMON_LIB := $(BUILD)/libworkbook.a
UNIT_TESTS := $(patsubst tests/%.c,$(BUILD)/tests/%,$(wildcard tests/unit_*.c))
chapter_number = $(firstword $(subst _, ,$(1)))

.PHONY: all run test check clean help
.DEFAULT_GOAL := all

all: $(COMMON_LIB) $(BUILD)/imginfo $(UNIT_TESTS) $(BUILD)/CTestTestfile.cmake

$(BUILD)/common/%.o: common/%.c $(wildcard common/*.h) | $(BUILD)/common
	$(CC) $(CFLAGS) -c $< -o $@

$(COMMON_LIB): $(COMMON_OBJ)
	ar rcs $@ $^

$(BUILD)/imginfo: common/imginfo.c $(COMMON_LIB)
	$(CC) $(CFLAGS) $< $(COMMON_LIB) -o $@ $(PNG_LIBS) -lm

$(BUILD)/tests/%: tests/%.c tests/check.h $(COMMON_LIB) | $(BUILD)/tests
	$(CC) $(CFLAGS) -Itests $< $(COMMON_LIB) -o $@ -L$(CUDA_HOME)/lib64 -lcudart_static -ldl -lpthread -lrt $(PNG_LIBS) -lz -lm

# One chapter: driver + kernel files, linked once with the solutions and once with the exercise;
# both also link the reference kernels of the chapters in USES_<chapter>.
solution_objects = $(patsubst solutions/$(1)/%.cu,$(BUILD)/$(1)/solution/%.o,$(wildcard solutions/$(1)/*.cu))
exercise_objects = $(patsubst exercises/$(1)/%.cu,$(BUILD)/$(1)/exercise/%.o,$(wildcard exercises/$(1)/*.cu))
# Kernels that belong to a chapter's driver rather than to its exercise (chapters/NN/*.cu).
driver_objects = $(patsubst chapters/$(1)/%.cu,$(BUILD)/$(1)/driver/%.o,$(filter-out $(if $(HAVE_NPP),,chapters/$(1)/baseline_npp.cu),$(wildcard chapters/$(1)/*.cu))) \
  $(patsubst chapters/$(1)/%.c,$(BUILD)/$(1)/driver/%.o,$(filter-out chapters/$(1)/main.c,$(wildcard chapters/$(1)/*.c)))
chapter_headers = $(foreach c,$(1) $(USES_$(1)),$(wildcard chapters/$(c)/*.h))
define CHAPTER_RULES
ch$(call chapter_number,$(1))_DIR := $(1)
$(BUILD)/$(1)/main.o: chapters/$(1)/main.c $(call chapter_headers,$(1)) $(wildcard common/*.h) | $(BUILD)/$(1)/solution $(BUILD)/$(1)/exercise
	$(CC) $(CFLAGS) $(CFLAGS_$(1)) $(foreach c,$(1) $(USES_$(1)),-Ichapters/$(c)) -c $$< -o $$@
$(BUILD)/$(1)/solution/%.o: solutions/$(1)/%.cu $(wildcard chapters/$(1)/*.h) $(wildcard common/*.h) $(wildcard common/*.cuh) | $(BUILD)/$(1)/solution
	$(NVCC_BIN) $(NVCCFLAGS) -Ichapters/$(1) -c $$< -o $$@
$(BUILD)/$(1)/driver/%.o: chapters/$(1)/%.c $(call chapter_headers,$(1)) $(wildcard common/*.h) | $(BUILD)/$(1)/driver
	$(CC) $(CFLAGS) $(foreach c,$(1) $(USES_$(1)),-Ichapters/$(c)) -c $$< -o $$@
$(BUILD)/$(1)/driver/%.o: chapters/$(1)/%.cu $(wildcard chapters/$(1)/*.h) $(wildcard common/*.h) $(wildcard common/*.cuh) | $(BUILD)/$(1)/driver
	$(NVCC_BIN) $(NVCCFLAGS) -Ichapters/$(1) -c $$< -o $$@
$(BUILD)/$(1)/exercise/%.o: exercises/$(1)/%.cu $(wildcard chapters/$(1)/*.h) $(wildcard common/*.h) $(wildcard common/*.cuh) | $(BUILD)/$(1)/exercise
	$(NVCC_BIN) $(NVCCFLAGS) $(EXERCISE_FLAGS) -Ichapters/$(1) -c $$< -o $$@
$(BUILD)/ch$(1): $(BUILD)/$(1)/main.o $(call driver_objects,$(1)) $(call solution_objects,$(1)) $(foreach c,$(USES_$(1)),$(call solution_objects,$(c)) $(call driver_objects,$(c))) $(COMMON_LIB)
	$(NVCC_BIN) $(GENCODE) $$^ -o $$@ $(LDLIBS) $(LIBS_$(1))
$(BUILD)/ch$(1)_exercise: $(BUILD)/$(1)/main.o $(call driver_objects,$(1)) $(call exercise_objects,$(1)) $(foreach c,$(USES_$(1)),$(call solution_objects,$(c)) $(call driver_objects,$(c))) $(COMMON_LIB)
	$(NVCC_BIN) $(GENCODE) $$^ -o $$@ $(LDLIBS) $(LIBS_$(1))
$(BUILD)/$(1)/solution $(BUILD)/$(1)/exercise $(BUILD)/$(1)/driver:
	mkdir -p $$@
all: $(BUILD)/ch$(1) $(BUILD)/ch$(1)_exercise
endef
$(foreach ch,$(CHAPTERS),$(eval $(call CHAPTER_RULES,$(ch))))

$(BUILD)/common $(BUILD)/tests $(BUILD)/out:
	mkdir -p $@

$(BUILD)/CTestTestfile.cmake: tests/ctest_list.sh tests/chapter_1d.sh tests/chapter_2d.sh tests/chapter_06.sh Makefile | $(BUILD)/tests $(BUILD)/out
	sh tests/ctest_list.sh "$(CURDIR)" "$(CHAPTERS)" > $@.tmp && mv $@.tmp $@

# ---- running ----------------------------------------------------------------------------------
# The main job. 1D: chapters 04, 03, 02 and 01 (and the register-tiled kernel) timed on the same
# 2^26 floats, mask widths 5 and 31. 2D: the default photo blurred, sharpened and edge-detected
# into build/out/, chapter 05 against the naive kernel on 8192 x 8192 with masks 3, 5, 7; then
# chapter 06: the autotuner on this GPU (saves build/ch06_tuned.csv), the tuned kernels against
# chapter 05, NPP and cuFFT for masks 3, 5, 7, and the larger masks where cuFFT catches up.
# Exit 77 means "no usable GPU": say so instead of failing.
PHOTO := data/images/coffee.png
CH05 := $(BUILD)/ch05_tiled_2d
CH06 := $(BUILD)/ch06_register_prefetch
RUN_STEPS := \
  "$(BUILD)/ch04_cached_tiling --bench --mask-width 5,31" \
  "$(CH05) --input $(PHOTO) --mask gaussian --mask-width 9 --output $(BUILD)/out/coffee_blur.png" \
  "$(CH05) --input $(PHOTO) --mask sharpen --mask-width 3 --output $(BUILD)/out/coffee_sharpen.png" \
  "$(CH05) --input $(PHOTO) --mask laplacian --mask-width 3 --output $(BUILD)/out/coffee_edges.png" \
  "$(CH05) --bench --mask-width 3,5,7" \
  "$(CH06) --tune --mask-width 2:7,9,11,13,15,21,25,31" \
  "$(CH06) --bench --mask-width 3,5,7" \
  "$(CH06) --mask-width 9,15,21,31"
run: all | $(BUILD)/out
	@for step in $(RUN_STEPS); do \
	  echo "make run: $$step"; $$step; rc=$$?; \
	  if [ $$rc -eq 77 ]; then echo "make run: no usable CUDA device here: the programs were built but not run"; exit 0; fi; \
	  if [ $$rc -ne 0 ]; then exit $$rc; fi; \
	done; \
	echo "make run: the filtered photos are $(BUILD)/out/coffee_blur.png, coffee_sharpen.png and coffee_edges.png"

CTEST := $(shell command -v ctest 2>/dev/null)
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
define NEED_CTEST
@if [ -z "$(CTEST)" ]; then echo "ctest not found: install CMake, which provides it (Debian/Ubuntu: apt-get install cmake; or pip install cmake)"; exit 1; fi
endef

test: all
	$(NEED_CTEST)
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS) --label-exclude '^exercise$$'

check: all
	$(NEED_CTEST)
	@if [ -z "$(CH)" ] || [ -z "$(ch$(CH)_DIR)" ]; then echo "make check needs CH=NN, one of: $(foreach c,$(CHAPTERS),$(call chapter_number,$(c)))"; exit 2; fi
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS) --label-regex '^exercise$$' --tests-regex '^ch$(CH)_'

clean:
	rm -rf $(BUILD)

help:
	@sed -n '3,12s/^# \{0,1\}//p' Makefile
