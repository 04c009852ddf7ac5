# Chapter 07's entry in the workbook's registry, read by the Makefile and tests/ctest_list.sh.
# Keys: uses, libs, sanitizers, run (one per step, in order); README.md "Adding a chapter" says
# what each means. Dimension and limits come from the program itself (--spec).
uses = 05_tiled_2d 06_register_prefetch
libs = cufft npp
sanitizers = memcheck racecheck
# separable Gaussians from 3x3 to 31x31, then masks of rank 2 and 3 and full rank (direct)
run = --bench --mask gaussian --mask-width 3,7,15,31
run = --bench --mask rank2 --mask-width 15,31
run = --bench --mask rank3 --mask-width 31
run = --bench --mask random --mask-width 15,31
