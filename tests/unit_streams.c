/* unit_streams.c: chapter 08's host arithmetic, no GPU: the strips' budget, the pipeline model,
 * the text timeline and its CSV.
 *
 *   build/tests/unit_streams SCRATCH_DIR
 *
 * The chapter's two host files are compiled in here (the Makefile names them as dependencies).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../chapters/08_streams/budget.c"
#include "../chapters/08_streams/timeline.c"
#include "check.h"

static int contains(const char *text, const char *needle) {
    return strstr(text, needle) != NULL;
}

static void test_delays(void) {
    long us[3];
    char err[WB_ERR_LEN];
    unsetenv("WB_STRIPS_DELAY_US");
    CHECK(strips_delay_us(us, err) == 0 && us[0] == 0 && us[1] == 0 && us[2] == 0);
    setenv("WB_STRIPS_DELAY_US", "300", 1);
    CHECK(strips_delay_us(us, err) == 0 && us[0] == 300 && us[1] == 300 && us[2] == 300);
    setenv("WB_STRIPS_DELAY_US", "0,300,7", 1);
    CHECK(strips_delay_us(us, err) == 0 && us[0] == 0 && us[1] == 300 && us[2] == 7);
    static const char *const bad[] = {"5,5", "1,2,3,4", "-1", "100001", "x", "5,", ",5", "1,,2",
                                       "3 ", "1,2,3,"};
    for (size_t k = 0; k < sizeof bad / sizeof *bad; ++k) {
        setenv("WB_STRIPS_DELAY_US", bad[k], 1);
        CHECK(strips_delay_us(us, err) == -1 && contains(err, "is not N or U,C,D") &&
              us[0] == 0 && us[1] == 0 && us[2] == 0);
    }
    unsetenv("WB_STRIPS_DELAY_US");
}

static void test_budget(void) {
    CHECK(strips_pitch(1) == 512);
    CHECK(strips_pitch(128) == 512);
    CHECK(strips_pitch(129) == 1024);
    CHECK(strips_pitch(1000) == 4096); /* 4000 bytes, padded */
    /* two buffers of (rows + 14) padded rows, in and out */
    CHECK(strips_bytes(1000, 1, 15, 2) == (size_t)2 * 2 * 15 * 4096);
    CHECK(strips_bytes(1000, 50, 15, 2) == (size_t)2 * 2 * 64 * 4096);
    size_t minimum = 0;
    /* 1 MiB holds 64 padded rows per buffer pair: 50 outputs and the 14 halo rows */
    CHECK(strips_rows_for((size_t)1 << 20, 1000, 777, 15, 2, &minimum) == 50);
    CHECK(minimum == (size_t)2 * 2 * 15 * 4096);
    CHECK(strips_rows_for(minimum, 1000, 777, 15, 2, &minimum) == 1);
    CHECK(strips_rows_for(minimum - 1, 1000, 777, 15, 2, &minimum) == 0);
    /* never more rows than the image */
    CHECK(strips_rows_for((size_t)1 << 30, 1000, 777, 15, 2, &minimum) == 777);
    /* triple buffering takes half again as much */
    CHECK(strips_rows_for((size_t)3 << 20, 1000, 777, 1, 3, &minimum) == 128);
}

/* n items, each stage taking up, compute, down ms, run one after another or overlapped as a
 * perfect pipeline would. */
static int make_spans(struct span *spans, int n, double up, double compute, double down,
                      int pipelined) {
    int count = 0;
    double t = 0.0, up_free = 0.0, compute_free = 0.0, down_free = 0.0;
    for (int i = 0; i < n; ++i) {
        double a = pipelined ? up_free : t;
        spans[count++] = (struct span){i, STAGE_UPLOAD, i % 2, 0.0, a, a + up};
        up_free = a + up;
        double b = pipelined ? (a + up > compute_free ? a + up : compute_free) : a + up;
        spans[count++] = (struct span){i, STAGE_COMPUTE, -1, 0.0, b, b + compute};
        compute_free = b + compute;
        double c = pipelined ? (b + compute > down_free ? b + compute : down_free) : b + compute;
        spans[count++] = (struct span){i, STAGE_DOWNLOAD, i % 2, 0.0, c, c + down};
        down_free = c + down;
        t = c + down;
    }
    return count;
}

static void test_model(void) {
    struct span spans[30];
    struct pipeline_summary s;
    /* serial: 5 items of 2 + 1 + 3 ms take 30 ms; the ideal is 5 x 3 + 2 + 1 = 18 */
    int count = make_spans(spans, 5, 2.0, 1.0, 3.0, 0);
    pipeline_model(spans, count, NULL, 0.0, &s);
    CHECK(s.items == 5);
    CHECK_NEAR(s.busy_ms[STAGE_UPLOAD], 10.0, 1e-9);
    CHECK_NEAR(s.busy_ms[STAGE_COMPUTE], 5.0, 1e-9);
    CHECK_NEAR(s.busy_ms[STAGE_DOWNLOAD], 15.0, 1e-9);
    CHECK_NEAR(s.fill_ms[STAGE_UPLOAD], 2.0, 1e-9);
    CHECK_NEAR(s.measured_ms, 30.0, 1e-9);
    CHECK_NEAR(s.ideal_ms, 18.0, 1e-9);
    CHECK_NEAR(s.efficiency, 0.6, 1e-9);
    /* a perfect pipeline reaches the ideal */
    count = make_spans(spans, 5, 2.0, 1.0, 3.0, 1);
    pipeline_model(spans, count, NULL, 0.0, &s);
    CHECK_NEAR(s.measured_ms, 18.0, 1e-9);
    CHECK_NEAR(s.efficiency, 1.0, 1e-9);
    /* one item: the ideal is the item's own time */
    count = make_spans(spans, 1, 2.0, 1.0, 3.0, 1);
    pipeline_model(spans, count, NULL, 0.0, &s);
    CHECK_NEAR(s.ideal_ms, 6.0, 1e-9);
    CHECK_NEAR(s.efficiency, 1.0, 1e-9);
    /* two uploads queued on two streams at once, the engine moving one after the other: the
     * marks overlap, and the stage was busy 4 ms, not 6 */
    struct span queued[6] = {
        {0, STAGE_UPLOAD, 0, 0.0, 0.0, 2.0},   {1, STAGE_UPLOAD, 1, 0.0, 0.0, 4.0},
        {0, STAGE_COMPUTE, -1, 0.0, 2.0, 3.0}, {1, STAGE_COMPUTE, -1, 0.0, 4.0, 5.0},
        {0, STAGE_DOWNLOAD, 0, 0.0, 3.0, 4.0}, {1, STAGE_DOWNLOAD, 1, 0.0, 5.0, 6.0}};
    pipeline_model(queued, 6, NULL, 0.0, &s);
    CHECK_NEAR(s.busy_ms[STAGE_UPLOAD], 4.0, 1e-9);
    CHECK_NEAR(s.busy_ms[STAGE_COMPUTE], 2.0, 1e-9);
    CHECK_NEAR(s.ideal_ms, 4.0 + 1.0 + 1.0, 1e-9);
    CHECK_NEAR(s.efficiency, 1.0, 1e-9);
    /* With the link's rates the copies count by their bytes (1 GB/s is 1e6 bytes per ms): 4
     * items of 4e6 bytes up at 0.5 GB/s and 1e6 down at 1 GB/s, kernels of 1 ms. Uploads 32
     * ms, downloads 4, kernels 4; ideal 32 + 1 + 1 = 34 ms. The recorded copy times (made up
     * here, 4 and 2 ms each) no longer matter, and a measured time from a run without marks
     * replaces the record's. */
    const struct link_rates link = {0.5, 1.0};
    count = make_spans(spans, 4, 4.0, 1.0, 2.0, 1);
    for (int k = 0; k < count; ++k)
        spans[k].bytes = spans[k].stage == STAGE_UPLOAD   ? 4e6
                         : spans[k].stage == STAGE_DOWNLOAD ? 1e6
                                                            : 0.0;
    pipeline_model(spans, count, &link, 40.0, &s);
    CHECK_NEAR(s.stage_ms[STAGE_UPLOAD], 32.0, 1e-9);
    CHECK_NEAR(s.stage_ms[STAGE_DOWNLOAD], 4.0, 1e-9);
    CHECK_NEAR(s.stage_ms[STAGE_COMPUTE], 4.0, 1e-9);
    CHECK_NEAR(s.fill_ms[STAGE_DOWNLOAD], 1.0, 1e-9);
    CHECK_NEAR(s.busy_ms[STAGE_UPLOAD], 16.0, 1e-9); /* the record: 4 x 4 ms, back to back */
    CHECK_NEAR(s.ideal_ms, 34.0, 1e-9);
    CHECK_NEAR(s.measured_ms, 40.0, 1e-9);
    CHECK_NEAR(s.efficiency, 0.85, 1e-9);
    /* one item: its stages one after another, 8 + 1 + 1 ms; no time given: the record's own
     * length, 4 + 1 + 2 */
    count = make_spans(spans, 1, 4.0, 1.0, 2.0, 1);
    spans[0].bytes = 4e6, spans[2].bytes = 1e6;
    pipeline_model(spans, count, &link, 0.0, &s);
    CHECK_NEAR(s.ideal_ms, 10.0, 1e-9);
    CHECK_NEAR(s.measured_ms, 7.0, 1e-9);
    /* nothing recorded: all zero, no division by zero */
    pipeline_model(spans, 0, NULL, 0.0, &s);
    CHECK(s.items == 0 && s.efficiency == 0.0);
}

static void read_back(FILE *f, char *text, size_t size) {
    rewind(f);
    size_t n = fread(text, 1, size - 1, f);
    text[n] = '\0';
}

static void test_timeline(const char *scratch) {
    struct span spans[30];
    int count = make_spans(spans, 3, 2.0, 2.0, 2.0, 0); /* 18 ms, 6 per item */
    FILE *f = tmpfile();
    if (f) {
        char text[4096];
        timeline_print(f, spans, count, 18); /* one column per ms */
        read_back(f, text, sizeof text);
        CHECK(contains(text, "upload   |00....11....22....|"));
        CHECK(contains(text, "compute  |..00....11....22..|"));
        CHECK(contains(text, "download |....00....11....22|"));
        fclose(f);
    }
    /* items past 9 take letters, then start again */
    struct span late[2] = {{10, STAGE_COMPUTE, -1, 0.0, 0.0, 1.0}, {36, STAGE_COMPUTE, -1, 0.0, 1.0, 2.0}};
    f = tmpfile();
    if (f) {
        char text[4096];
        timeline_print(f, late, 2, 2);
        read_back(f, text, sizeof text);
        CHECK(contains(text, "compute  |a0|"));
        CHECK(contains(text, "upload   |..|"));
        fclose(f);
    }

    char path[512], err[WB_ERR_LEN];
    snprintf(path, sizeof path, "%s/timeline.csv", scratch);
    remove(path);
    spans[0].bytes = 4096.0;
    struct timeline_run runs[2] = {{"serial, pinned", spans, 3, 12.5, 9.0},
                                   {"pipelined, 2 streams", spans + 3, 2, 10.0, 9.0}};
    CHECK(timeline_write_csv(path, runs, 2, err) == 0);
    f = fopen(path, "r");
    CHECK(f != NULL);
    if (f) {
        char text[4096];
        read_back(f, text, sizeof text);
        CHECK(contains(text, "mode,item,stage,stream,start_ms,end_ms,bytes,measured_ms,ideal_ms\n"));
        CHECK(contains(text, "\"serial, pinned\",0,upload,0,0.000000,2.000000,4096,12.500000,"
                             "9.000000\n"));
        CHECK(contains(text, "\"pipelined, 2 streams\",1,upload,1,6.000000,8.000000,0,10.000000,"
                             "9.000000\n"));
        int lines = 0;
        for (const char *c = text; *c; ++c)
            lines += *c == '\n';
        CHECK(lines == 6);
        fclose(f);
    }
    /* an input of the run is never replaced */
    CHECK(safe_output_protect(path, err) == 0);
    CHECK(timeline_write_csv(path, runs, 1, err) == -1 && contains(err, "refusing to overwrite"));
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: unit_streams SCRATCH_DIR\n");
        return 2;
    }
    mkdir(argv[1], 0777);
    test_budget();
    test_delays();
    test_model();
    test_timeline(argv[1]);
    return check_summary("unit_streams");
}
