# Chapter 10's entry in the workbook's registry, read by the Makefile and tests/ctest_list.sh.
# Keys: uses, libs, sanitizers, battery_blocks, battery_gpus, guard_args, run (one per step, in
# order); README.md "Adding a chapter" says what each means. Dimension and limits come from the
# program itself (--spec).
uses =
libs = nccl
sanitizers = memcheck racecheck synccheck
# The slab kernel ignores --block: one block is enough for the battery.
battery_blocks = 32
# The battery (the slab kernel, the harness) on one GPU; the splits are tests/chapter_10.sh's,
# which run one at a time (two NCCL processes on one pair of GPUs wait for each other's slices).
battery_gpus = 1
# One slab never calls the exercise (nothing to trade): the guard cuts two, on one GPU.
guard_args = --gpus 1 --slabs 2
# every visible GPU: 10 passes of a 5x5 mask over 8192x8192, then the scaling study
run = --size 8192x8192 --mask-width 5 --iterations 10
