/* ranks.h: one process per GPU, started by a launcher (mpirun, srun, torchrun or by hand):
 * which rank this process is, of how many, and NCCL's unique id handed from rank 0 to the rest.
 *
 *   ranks_from_env    rank, world size and local rank from the launcher's variables, first
 *                     found of: WB_RANK / WB_WORLD_SIZE / WB_LOCAL_RANK (by hand);
 *                     OMPI_COMM_WORLD_RANK / _SIZE / _LOCAL_RANK (Open MPI);
 *                     PMI_RANK / PMI_SIZE / MPI_LOCALRANKID (MPICH, Intel MPI);
 *                     SLURM_PROCID / SLURM_NTASKS / SLURM_LOCALID (srun);
 *                     RANK / WORLD_SIZE / LOCAL_RANK (torchrun)
 *   ranks_id_file     WB_NCCL_ID_FILE, refused early when unset or (rank 0) already there
 *   ranks_share_id    rank 0 writes the id to WB_NCCL_ID_FILE (a path every process can read:
 *                     a shared file system across nodes); the others wait for it, 60 s at most
 *
 * Without any of these variables the program is one process driving every GPU it is given.
 */
#ifndef RANKS_H
#define RANKS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

struct ranks {
    int rank, world, local_rank;
    const char *launcher; /* which variables gave them: "WB", "Open MPI", ... */
};

/* 1 and fills r when a launcher's variables are set (world > 1 or not); 0 when none are; -1 with
 * a one-line message in err when they are set but make no sense (a rank outside the world). */
int ranks_from_env(struct ranks *r, char *err);

/* WB_NCCL_ID_FILE's path, or NULL with a one-line message in err: unset, or (rank 0) a file that
 * exists already. Checked before any GPU work, and again by ranks_share_id. */
const char *ranks_id_file(const struct ranks *r, char *err);

/* id: `size` bytes; rank 0's are written to the file, the others' read from it. 0, or -1 with a
 * one-line message in err (no WB_NCCL_ID_FILE, a file that cannot be written, or no id within
 * 60 s). Rank 0 refuses a file that exists already (an earlier run's id would be taken by the
 * others): give each run a fresh path. */
int ranks_share_id(const struct ranks *r, void *id, size_t size, char *err);

#ifdef __cplusplus
}
#endif
#endif
