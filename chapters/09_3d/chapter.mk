# Chapter 09's entry in the workbook's registry, read by the Makefile and tests/ctest_list.sh.
# Keys: uses, libs, sanitizers, battery_blocks, run (one per step, in order); README.md "Adding
# a chapter" says what each means. Dimension and limits come from the program itself (--spec).
uses =
libs =
sanitizers = memcheck racecheck
# the three kernels on 512^3 at the cubes the 2.5D kernel compiles, then a phantom to look at
run = --bench --size 512 --mask-width 3,5,7
run = --data phantom --size 128 --mask gaussian --mask-width 5 --output build/out/ch09_phantom.png
