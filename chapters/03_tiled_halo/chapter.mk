# Chapter 03's entry in the workbook's registry, read by the Makefile and tests/ctest_list.sh.
# Keys: uses, libs, sanitizers, run (one per step, in order); README.md "Adding a chapter" says
# what each means. Dimension and limits come from the program itself (--spec).
uses = 02_constant_mask
libs =
sanitizers = memcheck racecheck
