/* ranks.c: the launcher's variables and the unique id's file (ranks.h). */
#define _POSIX_C_SOURCE 200809L
#include "ranks.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "safe_output.h"
#include "workbook.h"

enum { WAIT_SECONDS = 60 };

/* A whole number from 0 to 1 << 20 in the variable, or -1 (unset); -2 when set but not one. */
static long number_in(const char *name) {
    const char *text = getenv(name);
    if (!text || !*text) return -1;
    long long v;
    return wb_parse_whole(text, 0, 1L << 20, &v) ? -2 : (long)v;
}

int ranks_from_env(struct ranks *r, char *err) {
    static const struct {
        const char *launcher, *rank, *world, *local;
    } sets[] = {{"WB", "WB_RANK", "WB_WORLD_SIZE", "WB_LOCAL_RANK"},
                {"Open MPI", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE",
                 "OMPI_COMM_WORLD_LOCAL_RANK"},
                {"MPICH", "PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID"},
                {"Slurm", "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID"},
                {"torchrun", "RANK", "WORLD_SIZE", "LOCAL_RANK"}};
    for (size_t k = 0; k < sizeof sets / sizeof sets[0]; ++k) {
        const long rank = number_in(sets[k].rank), world = number_in(sets[k].world);
        if (rank == -1 && world == -1) continue;
        if (rank < 0 || world < 1 || rank >= world)
            return wb_error(err, "%s=%s and %s=%s are no rank of a world of processes",
                            sets[k].rank, getenv(sets[k].rank) ? getenv(sets[k].rank) : "(unset)",
                            sets[k].world,
                            getenv(sets[k].world) ? getenv(sets[k].world) : "(unset)");
        long local = number_in(sets[k].local);
        if (local == -2)
            return wb_error(err, "%s=%s is not a whole number", sets[k].local,
                            getenv(sets[k].local));
        r->rank = (int)rank, r->world = (int)world;
        r->local_rank = local >= 0 ? (int)local : (int)rank;
        r->launcher = sets[k].launcher;
        return 1;
    }
    return 0;
}

const char *ranks_id_file(const struct ranks *r, char *err) {
    const char *path = getenv("WB_NCCL_ID_FILE");
    if (!path || !*path) {
        wb_error(err, "%d processes (%s): set WB_NCCL_ID_FILE to a path all of them can read, "
                 "fresh for each run (rank 0 writes NCCL's id there)", r->world, r->launcher);
        return NULL;
    }
    struct stat st;
    if (r->rank == 0 && stat(path, &st) == 0) {
        wb_error(err, "WB_NCCL_ID_FILE '%s' exists, perhaps from an earlier run: remove it or "
                 "give a fresh path", path);
        return NULL;
    }
    return path;
}

int ranks_share_id(const struct ranks *r, void *id, size_t size, char *err) {
    const char *path = ranks_id_file(r, err);
    if (!path) return -1;
    struct stat st;
    if (r->rank == 0) {
        struct safe_output out;
        if (safe_output_open(&out, path, err)) return -1;
        const int rc = fwrite(id, 1, size, out.fp) == size ? 0 : -1;
        if (rc) wb_error(err, "cannot write NCCL's id to '%s'", path);
        return safe_output_commit(&out, rc, err);
    }
    /* The others: the file must appear, complete (rank 0 renames it into place), and be newer
     * than this process's start less the wait, so that an old run's id is never taken. */
    const time_t started = time(NULL);
    for (;;) {
        if (stat(path, &st) == 0 && (size_t)st.st_size == size &&
            st.st_mtime >= started - WAIT_SECONDS) {
            FILE *f = fopen(path, "rb");
            const int ok = f && fread(id, 1, size, f) == size;
            if (f) fclose(f);
            if (ok) return 0;
        }
        if (time(NULL) - started > WAIT_SECONDS)
            return wb_error(err, "rank %d: no NCCL id from rank 0 in '%s' within %d s (is "
                            "WB_NCCL_ID_FILE the same path for every process, and did rank 0 "
                            "start?)", r->rank, path, WAIT_SECONDS);
        const struct timespec pause = {0, 50 * 1000 * 1000};
        nanosleep(&pause, NULL);
    }
}
