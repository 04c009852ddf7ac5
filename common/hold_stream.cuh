/* hold_stream.cuh: a kernel that holds its stream for a while, the tests' way of making one step
 * of a pipeline late (chapter 08's strips, chapter 10's halo trade), so that a missing wait lets
 * another step read or overwrite a buffer too early, every time rather than now and then.
 *
 *   hold_stream<<<1, 1, 0, stream>>>(ns)   one thread spins for ns nanoseconds
 */
#ifndef HOLD_STREAM_CUH
#define HOLD_STREAM_CUH

/* Wall-clock time (the GPU's global timer, which keeps counting while another process's work
 * runs), so the hold is as long whoever shares the GPU. */
static __global__ void hold_stream(unsigned long long ns) {
    unsigned long long start, now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    do {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    } while (now - start < ns);
}

#endif
