/* strips.cu: chapter 08, the strip loop: an image in host memory through a few GPU buffers.
 *
 * This file exists twice with the same name: exercises/08_streams/ holds it with TODO blocks
 * for you, solutions/08_streams/ the reference; outside the TODO blocks they are identical (a
 * test checks that). Check yours with `make check CH=08`.
 *
 * Strip s owns output rows [s * strip_rows, ...) and goes through three steps, each queued on
 * a stream and each marked by an event of its buffer:
 *
 *     copy stream s % streams:   upload(s) ---------------------------- download(s)
 *                                     \                                 /
 *     compute stream (in order):       kernel(s) --------------------- /
 *
 * With B buffers, strip s uses buffer s % B, which strip s - B used before it. So:
 *   upload(s)   overwrites the input that kernel(s - B) reads: it waits for computed[b]
 *   kernel(s)   reads what upload(s) brought:                  it waits for uploaded[b]
 *               overwrites the output download(s - B) reads:   it waits for downloaded[b]
 *   download(s) reads what kernel(s) wrote:                    it waits for computed[b]
 * A wait on an event that was never recorded (the first B strips) returns at once. Within one
 * stream the steps run in the order they were queued, so strips that share a copy stream also
 * take turns there.
 */
#include "cuda_check.h"
#include "strips.h"

void strips_run(struct strip_gpu *gpu, const float *h_in, float *h_out, size_t host_pitch) {
    const int strips = (gpu->height + gpu->strip_rows - 1) / gpu->strip_rows;
    (void)h_in, (void)h_out, (void)host_pitch; /* used in TODO 3 */
    for (int s = 0; s < strips; ++s) {
        // ---- TODO 1 begin: the strip's output rows and the input rows they need
        // Strip s owns output rows first = s * gpu->strip_rows up to, not including,
        // first + rows, where rows = gpu->strip_rows except for the last strip, which stops at
        // gpu->height. Output row y reads input rows y - above .. y + below, with
        // above = mask_h / 2 and below = mask_h - 1 - above: so the strip needs input rows from
        // first - above to first + rows - 1 + below, cut to 0 .. height - 1. Call the first of
        // them in_first, their count in_rows, and offset = first - in_first: where the strip's
        // outputs start in its output buffer.
        // ---- TODO 1 end

        // ---- TODO 2 begin: the strip's buffer and copy stream
        // Strips take the buffers in turn (b = s % gpu->buffers) and the copy streams in turn
        // (gpu->copy[s % gpu->streams]).
        // ---- TODO 2 end

        // ---- TODO 3 begin: upload, compute, download, each after what it must wait for
        // strip_upload(gpu, s, b, stream, h_in, host_pitch, in_first, in_rows), then
        // strip_compute(gpu, s, b, in_rows) and strip_download(gpu, s, b, stream, h_out,
        // host_pitch, first, offset, rows). Before each, make its stream wait
        // (cudaStreamWaitEvent(stream, event, 0)) for every event that says its buffer is
        // ready (the kernel needs two): the table at the top of this file. A wait takes the
        // event's latest record at the time of the call, so it goes right before its step. The
        // kernel runs on gpu->compute, not on a copy stream: without a wait it would not know
        // the upload it needs has landed.
        // ---- TODO 3 end
    }
}
