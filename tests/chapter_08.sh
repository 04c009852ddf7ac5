# shellcheck shell=sh disable=SC2154 # sourced by ctest_list.sh, which sets the variables it reads
# chapter_08.sh: chapter 08's own tests, beside the 2D battery (sourced by ctest_list.sh with
# $nn, $solution, $exercise, $fixtures set): strips of every height from one row to the whole
# image, every stream count 1..8, single, double and triple buffering, a budget that decides the
# strip height, chapter 05's kernel as the step, the batch modes on random images and on a
# folder, the timeline file, and the bad inputs that must be refused before any GPU work.
labels="gpu;ch08;solution"

# Bad input: exit 2 and one line, before the GPU is touched (so these run without one too).
usage_error "ch08_budget_too_small" "too small for a 1000x777 image and a mask 15 rows tall: 2 buffers of one row and its halo need at least 0.234 MiB" \
    "$solution" --check --size 1000x777 --mask-width 15 --gpu-memory-budget 0.05
usage_error "ch08_strip_rows_over_budget" "--strip-rows 500 needs" \
    "$solution" --check --size 1000x777 --mask-width 5 --gpu-memory-budget 1 --strip-rows 500
usage_error "ch08_streams_zero" "--streams: 0 is out of range \(1 to 16\)" "$solution" --streams 0
usage_error "ch08_streams_too_many" "--streams: 17 is out of range \(1 to 16\)" "$solution" --streams 17
usage_error "ch08_buffers_four" "--buffers: 4 is out of range \(1 to 3\)" "$solution" --buffers 4
usage_error "ch08_input_dir_bad_png" "batch_bad/b_bad.png' is not a PNG file" \
    "$solution" --input-dir "$fixtures/batch_bad"
usage_error "ch08_input_dir_empty" "holds no .png file" "$solution" --input-dir "$root/common"
usage_error "ch08_input_dir_missing" "cannot open it" "$solution" --input-dir "$fixtures/no_such_folder"
usage_error "ch08_output_dir_is_file" "is a file, not a folder" \
    "$solution" --batch 2 --size 30x20 --output-dir "$fixtures/gray8_13x7.png"
usage_error "ch08_output_dir_without_batch" "goes with --batch or --input-dir" \
    "$solution" --check --output-dir "$b/out/ch08_nowhere"
usage_error "ch08_batch_with_budget" "for one image in strips, not for a batch" \
    "$solution" --batch 2 --gpu-memory-budget 8
usage_error "ch08_timeline_is_input" "refusing to overwrite an input" \
    "$solution" --check --input "$fixtures/gray8_13x7.png" --timeline "$fixtures/gray8_13x7.png"

# Strips: heights from one row to the whole image (65536 is cut to it), on images of one
# pixel, one row, one column and odd sizes, square masks 1..15 and thin ones; each
# --strip-rows x --streams pair is its own kernel in the table, all in one process. Strips of
# one and two rows run on the smaller odd size (777 one-row strips per mask took seconds).
add cost=30 "ch08_solution_strip_heights" "$labels" "$solution" --check --own-kernels \
    --size 1x1,1x300,300x1,67x45 --mask-width "1:15,15x1,1x15,3x7" \
    --strip-rows 1,2,7,64,65536 --streams 1,3
add "ch08_solution_strip_heights_large" "$labels" "$solution" --check --own-kernels \
    --size 1000x777 --mask-width "1:15,15x1,1x15" --strip-rows 7,64,65536 --streams 1,3
add "ch08_solution_stream_counts" "$labels" "$solution" --check --own-kernels \
    --size 1000x777 --mask-width 1,4,15 --strip-rows 16 --streams 1,2,3,4,5,6,7,8
for buffers in 1 3; do
    add "ch08_solution_buffers_$buffers" "$labels" "$solution" --check --own-kernels \
        --buffers $buffers --size 300x1,1000x777 --mask-width 2,5,15 --strip-rows 3,40 --streams 1,2
done
# The budget decides the height: 1 MiB holds 50 rows of a 1000-wide image with a 15-row mask.
add "ch08_solution_budget_strips" "$labels" "$expect" --gpu 0 "strips 50 rows" -- \
    "$solution" --size 1000x777 --mask-width 15 --gpu-memory-budget 1 --reps 20
add "ch08_solution_kernel_ch05" "$labels" "$solution" --check --kernel ch05 --block 16 \
    --size 1000x777,31x33 --mask-width 1:15 --strip-rows 7,200
# Your strip loop's rows at every kind of seam: strips of 1, 2, 9 and 64 rows on heights that
# leave a last strip of one row (45 and 71 in 2s) or of one row short of a full strip (71 in 9s),
# under masks of even height (2, 4, 6, 4x6, 3x8: one halo row more above than below) and odd,
# with three copy streams taken in turn. A strip with one halo row too few or too many, one
# output row too many or too few, or a copy on a stream that is not a copy stream fails here.
# Small images, so it is one of make check's quick tests: the seams are this chapter's own bugs.
add "ch08_exercise_strip_seams" "gpu;ch08;exercise;quick" "$exercise" --check --own-kernels \
    --size 1x1,300x1,67x45,41x71,300x200 --mask-width "1,2,3,4,6,15,4x6,3x8,15x1,1x15" \
    --strip-rows 1,2,9,64 --streams 1,3
# Every wait of the strip loop, tested: WB_STRIPS_DELAY_US=U,C,D holds each upload, kernel or
# download's stream that many microseconds of wall-clock time first (the GPU's global timer: time
# given to other processes counts), one stage late at a time, so a step that does
# not wait for the one it depends on reads a buffer before it is filled, or overwrites it before
# it is read, and the result is wrong every time:
#   late uploads    a kernel that does not wait for its upload
#   late kernels    a download that does not wait for its kernel; an upload that overwrites
#                   the input of the kernel two strips back
#   late downloads  a kernel that overwrites the output the download two strips back reads
# Four copy streams against two buffers (six against three), so that the order within a stream
# does not make the waits for you (with one stream, or as many as buffers, it does); one stream
# as well.
for kind in solution exercise; do
    binary=$solution
    [ $kind = exercise ] && binary=$exercise
    for late in uploads:1000,0,0 kernels:0,1000,0 downloads:0,0,1000; do
        add "ch08_${kind}_strip_waits_late_${late%%:*}" "gpu;ch08;$kind" \
            env WB_STRIPS_DELAY_US=${late#*:} "$binary" --check --own-kernels --size 300x200 \
            --mask-width 1,5,15 --strip-rows 8,33 --streams 1,4
    done
    for late in kernels:0,1000,0 downloads:0,0,1000; do
        add "ch08_${kind}_strip_waits_triple_late_${late%%:*}" "gpu;ch08;$kind" \
            env WB_STRIPS_DELAY_US=${late#*:} "$binary" --check --own-kernels --buffers 3 \
            --size 300x200 --mask-width 5 --strip-rows 8 --streams 6
    done
done
usage_error "ch08_delay_not_number" "WB_STRIPS_DELAY_US='soon' is not N or U,C,D" \
    env WB_STRIPS_DELAY_US=soon "$solution" --check --size 30x20
usage_error "ch08_delay_two_values" "WB_STRIPS_DELAY_US='5,5' is not N or U,C,D" \
    env WB_STRIPS_DELAY_US=5,5 "$solution" --check --size 30x20
# compute-sanitizer on many strips.
for tool in memcheck synccheck; do
    add sanitizer "ch08_solution_strips_$tool" "$labels" env WB_SKIP_NPP=1 \
        "$root/tests/sanitize.sh" $tool "$solution" --check --own-kernels --size 100x37 \
        --mask-width 1,4,15 --strip-rows 1,5 --streams 1,2
done

# Batch: every mode checks every image; a folder of PNGs goes through and its results are
# written; the timeline file holds the steps.
add "ch08_solution_batch_random" "$labels" "$expect" --gpu 0 "pipelined, 3 streams" -- \
    "$solution" --batch 5 --size 300x200 --mask-width 3,15 --streams 1,2,3
add "ch08_solution_batch_folder" "$labels" "$expect" --gpu 0 "wrote 1 image to" -- \
    "$solution" --input-dir "$root/data/images" --output-dir "$b/out/ch08_folder" --streams 2
# images of four sizes and channel counts: the link's samples borrow the largest one's buffers
add "ch08_solution_batch_mixed" "$labels" "$expect" --gpu 0 "pipelined, 2 streams" -- \
    "$solution" --input-dir "$fixtures/batch_mixed" --mask-width 3,5 --streams 1,2
add "ch08_solution_timeline" "$labels" "$expect" --gpu 0 "wrote the timeline to" -- \
    "$solution" --bench --size 1000x777 --mask-width 5 --strip-rows 100 --streams 1,3 \
    --timeline "$b/out/ch08_timeline.csv" --reps 20
