/* sweep_mpi.c -- sweeps spread over the processes of an MPI run
 * (./configure --with-mpi; started as `mpirun -n K cosa map|curve ...`).
 *
 * Every process parses the same command line and builds the same sweep.
 * The grid points are dealt out cyclically (point k to process k mod K: the
 * cost of a point differs up to 5x between stable and unstable ones, and
 * neighbouring points cost alike, so a cyclic deal balances the load); each
 * process evaluates its points with all schemes and macro steps (OpenMP
 * threads inside), and the values are gathered on every process, so that
 * adaptive maps make the same refinement decisions everywhere (each round
 * is one such distributed list).  Only process 0 writes files and prints;
 * the others are silenced (cosa.c).  A failure of the sweep on any process
 * is the failure of all (the worst status, agreed by all).
 * Without MPI (or when not started by mpirun/srun) there is one process and
 * these are the plain library calls. */
#include "config.h"
#include "sweep_cli.h"

#include <stdlib.h>
#include <string.h>

#ifdef HAVE_MPI
#include <mpi.h>
#endif

#ifdef HAVE_MPI
/* 1 if the environment says an MPI launcher started us. */
static int launched(void)
{
    static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK",
                                       "SLURM_STEP_NUM_TASKS"};
    for (size_t i = 0; i < sizeof vars / sizeof *vars; i++)
        if (getenv(vars[i]))
            return 1;
    return 0;
}

/* 1 between MPI_Init and MPI_Finalize. */
static int active(void)
{
    int init = 0, fin = 0;
    MPI_Initialized(&init);
    MPI_Finalized(&fin);
    return init && !fin;
}
#endif

int scli_mpi_init(int *argc, char ***argv)
{
#ifdef HAVE_MPI
    if (launched()) {
        int provided = 0;
        if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS)
            return -1;
    }
#else
    (void)argc;
    (void)argv;
#endif
    return 0;
}

void scli_mpi_finalize(void)
{
#ifdef HAVE_MPI
    if (active())
        MPI_Finalize();
#endif
}

int scli_mpi_rank(void)
{
    int r = 0;
#ifdef HAVE_MPI
    if (active())
        MPI_Comm_rank(MPI_COMM_WORLD, &r);
#endif
    return r;
}

int scli_mpi_size(void)
{
    int n = 1;
#ifdef HAVE_MPI
    if (active())
        MPI_Comm_size(MPI_COMM_WORLD, &n);
#endif
    return n;
}

#ifdef HAVE_MPI
/* The entries of list (n result positions) that process r evaluates: those
 * whose grid point k satisfies k mod K = r. */
static size_t mine(const cosa_sweep_spec *sp, const size_t *list, size_t n, int r, int K,
                   size_t *out)
{
    const size_t npts = sp->x.n * sp->y.n;
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if ((list[i] % npts) % (size_t)K == (size_t)r)
            out[m++] = list[i];
    return m;
}

/* The distributed evaluation of a list; every process ends with all values. */
static cosa_status distributed(const cosa_sweep_spec *sp, const size_t *list, size_t n,
                               double *values, cosa_status *status, size_t *nfailed)
{
    const int K = scli_mpi_size(), r = scli_mpi_rank();
    size_t *own = malloc((n ? n : 1) * sizeof *own), *all = NULL;
    int *counts = malloc((size_t)K * sizeof *counts), *displs = malloc((size_t)K * sizeof *displs);
    double *vbuf = NULL, *vall = NULL;
    int *sbuf = NULL, *sall = NULL;
    cosa_status st = own && counts && displs ? COSA_OK : COSA_ENOMEM;
    size_t m = 0, f = 0;
    if (st == COSA_OK) {
        m = mine(sp, list, n, r, K, own);
        st = m ? cosa_sweep_run_list(sp, own, m, values, status, &f) : COSA_OK;
    }
    /* agree on the outcome: the worst status of any process */
    int code = (int)st, worst = 0;
    MPI_Allreduce(&code, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (worst != COSA_OK) {
        st = (cosa_status)worst;
        goto done;
    }
    /* gather the values (and statuses) of every process on every process */
    vbuf = malloc((m ? m : 1) * sizeof *vbuf);
    sbuf = malloc((m ? m : 1) * sizeof *sbuf);
    vall = malloc((n ? n : 1) * sizeof *vall);
    sall = malloc((n ? n : 1) * sizeof *sall);
    all = malloc((n ? n : 1) * sizeof *all);
    code = vbuf && sbuf && vall && sall && all ? COSA_OK : COSA_ENOMEM;
    MPI_Allreduce(&code, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (worst != COSA_OK) {
        st = (cosa_status)worst;
        goto done;
    }
    for (size_t i = 0; i < m; i++) {
        vbuf[i] = values[own[i]];
        sbuf[i] = status ? (int)status[own[i]] : 0;
    }
    int off = 0;
    for (int q = 0; q < K; q++) {
        counts[q] = (int)mine(sp, list, n, q, K, all); /* the same deal on every process */
        displs[q] = off;
        off += counts[q];
    }
    MPI_Allgatherv(vbuf, (int)m, MPI_DOUBLE, vall, counts, displs, MPI_DOUBLE, MPI_COMM_WORLD);
    MPI_Allgatherv(sbuf, (int)m, MPI_INT, sall, counts, displs, MPI_INT, MPI_COMM_WORLD);
    for (int q = 0; q < K; q++) {
        const size_t mq = mine(sp, list, n, q, K, all);
        for (size_t i = 0; i < mq; i++) {
            values[all[i]] = vall[displs[q] + (int)i];
            if (status)
                status[all[i]] = (cosa_status)sall[displs[q] + (int)i];
        }
    }
    unsigned long long fl = f, ft = 0;
    MPI_Allreduce(&fl, &ft, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (nfailed)
        *nfailed = (size_t)ft;
done:
    free(own);
    free(all);
    free(counts);
    free(displs);
    free(vbuf);
    free(vall);
    free(sbuf);
    free(sall);
    return st;
}
#endif

cosa_status scli_sweep_list(const cosa_sweep_spec *sp, const size_t *list, size_t n,
                            double *values, cosa_status *status, size_t *nfailed, void *data)
{
    (void)data;
#ifdef HAVE_MPI
    if (scli_mpi_size() > 1)
        return distributed(sp, list, n, values, status, nfailed);
#endif
    return cosa_sweep_run_list(sp, list, n, values, status, nfailed);
}

cosa_status scli_sweep_run(const cosa_sweep_spec *sp, double *values, cosa_status *status,
                           size_t *nfailed)
{
#ifdef HAVE_MPI
    if (scli_mpi_size() > 1) {
        const size_t total = cosa_sweep_size(sp);
        if (total == 0)
            return cosa_sweep_run(sp, values, status, nfailed); /* its error */
        size_t *list = malloc(total * sizeof *list);
        if (!list)
            return COSA_ENOMEM;
        /* every result, grid point by grid point (the order the threads like) */
        const size_t npts = sp->x.n * sp->y.n, per = sp->nscheme * sp->ndt;
        for (size_t k = 0, i = 0; k < npts; k++)
            for (size_t j = 0; j < per; j++)
                list[i++] = j * npts + k;
        cosa_status st = distributed(sp, list, total, values, status, nfailed);
        free(list);
        return st;
    }
#endif
    return cosa_sweep_run(sp, values, status, nfailed);
}

cosa_status scli_sweep_adaptive(const cosa_sweep_spec *sp, const cosa_adaptive_opts *o,
                                double *values, cosa_status *status, unsigned char *exact,
                                size_t *nfailed, size_t *nevaluated)
{
    return cosa_sweep_adaptive_with(sp, o, scli_sweep_list, NULL, values, status, exact,
                                    nfailed, nevaluated);
}
