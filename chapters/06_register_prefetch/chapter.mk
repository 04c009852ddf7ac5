# Chapter 06's entry in the workbook's registry, read by the Makefile and tests/ctest_list.sh.
# Keys: uses, libs, sanitizers, run (one per step, in order); README.md "Adding a chapter" says
# what each means. Dimension and limits come from the program itself (--spec).
uses = 05_tiled_2d
libs = cufft npp
sanitizers = memcheck racecheck
# tune every compiled size on this GPU, then against NPP and cuFFT, then the large masks
run = --tune
run = --bench --mask-width 3,5,7
run = --mask-width 9,15,21,31
