# Chapter 08's entry in the workbook's registry, read by the Makefile and tests/ctest_list.sh.
# Keys: uses, libs, sanitizers, battery_blocks, run (one per step, in order); README.md "Adding
# a chapter" says what each means. Dimension and limits come from the program itself (--spec).
uses = 05_tiled_2d 06_register_prefetch
libs = cufft npp
sanitizers = memcheck racecheck synccheck
# The kernels inside the strips are chapter 06's (or 05's), checked at every block there; here two
# blocks, one smaller than the largest mask, are enough for the loop around them.
battery_blocks = 8 32
# one 8192x8192 image in strips under a quarter of its size, then a batch over 1 to 4 streams
run = --bench --size 8192x8192 --mask-width 5 --gpu-memory-budget 64 --streams 1,2,3
run = --batch 32 --size 4096x4096 --mask-width 5 --streams 1,2,3,4
