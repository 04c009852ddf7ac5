# Chapter 05's entry in the workbook's registry, read by the Makefile and tests/ctest_list.sh.
# Keys: uses, libs, sanitizers, run (one per step, in order); README.md "Adding a chapter" says
# what each means. Dimension and limits come from the program itself (--spec).
uses =
libs =
sanitizers = memcheck racecheck
# the photo blurred, sharpened and edge-detected, then the 2D bench on 8192 x 8192
run = --input data/images/coffee.png --mask gaussian --mask-width 9 --output build/out/coffee_blur.png
run = --input data/images/coffee.png --mask sharpen --mask-width 3 --output build/out/coffee_sharpen.png
run = --input data/images/coffee.png --mask laplacian --mask-width 3 --output build/out/coffee_edges.png
run = --bench --mask-width 3,5,7
