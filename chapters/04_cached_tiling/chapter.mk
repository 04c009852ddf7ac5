# Chapter 04's entry in the workbook's registry, read by the Makefile and tests/ctest_list.sh.
# Keys: uses, libs, sanitizers, run (one per step, in order); README.md "Adding a chapter" says
# what each means. Dimension and limits come from the program itself (--spec).
uses = 03_tiled_halo
libs =
sanitizers = memcheck racecheck
# the 1D progression: chapters 04, 03, 02, 01 and the register-tiled kernel on 2^26 floats
run = --bench --mask-width 5,31
