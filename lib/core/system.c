/* system.c -- coupled linear system (eqs 4, 5) and its monolithic reference (eq 35). */
#include "core/system_impl.h"
#include "core/dense.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* I - D L is treated as singular when its reciprocal condition number is
 * below this (an algebraic loop that cannot be solved in double precision). */
#define COSA_ALGLOOP_RCOND (16.0 * DBL_EPSILON)

void cosa_system_free(cosa_system *sys)
{
    if (!sys)
        return;
    free(sys->sub);
    free(sys->A);
    free(sys->B);
    free(sys->C);
    free(sys->D);
    free(sys->L);
    free(sys->work_ny);
    free(sys->work_con);
    free(sys->ipiv_ny);
    free(sys->iwork_ny);
    free(sys->req);
    free(sys->ceq);
    free(sys);
}

static int sub_shape_ok(const cosa_subsystem *s)
{
    if ((s->nx && !s->A) || (s->nx && s->nu && !s->B) || (s->ny && s->nx && !s->C) ||
        (s->ny && s->nu && !s->D))
        return 0;
    return 1;
}

static int sub_finite(const cosa_subsystem *s)
{
    return (!s->nx || dense_isfinite(s->nx, s->nx, s->A, s->nx)) &&
           (!s->nx || !s->nu || dense_isfinite(s->nx, s->nu, s->B, s->nx)) &&
           (!s->ny || !s->nx || dense_isfinite(s->ny, s->nx, s->C, s->ny)) &&
           (!s->ny || !s->nu || dense_isfinite(s->ny, s->nu, s->D, s->ny));
}

/* Copy subsystem i's blocks into the stacked matrices. */
static void sub_store(cosa_system *sys, size_t i, const cosa_subsystem *s)
{
    const struct cosa_sub_info *b = &sys->sub[i];
    if (b->nx)
        dense_copy(b->nx, b->nx, s->A, b->nx, sys->A + b->ox + b->ox * sys->nx, sys->nx);
    if (b->nx && b->nu)
        dense_copy(b->nx, b->nu, s->B, b->nx, sys->B + b->ox + b->ou * sys->nx, sys->nx);
    if (b->ny && b->nx)
        dense_copy(b->ny, b->nx, s->C, b->ny, sys->C + b->oy + b->ox * sys->ny, sys->ny);
    if (b->ny && b->nu)
        dense_copy(b->ny, b->nu, s->D, b->ny, sys->D + b->oy + b->ou * sys->ny, sys->ny);
    sys->sub[i].gen++;
}

/* LU of the equilibrated Ms = R (I - D L) Cq (R, Cq diagonal from dgeequ)
 * into sys->work_ny.  Equilibration matters: for force/displacement
 * coupling I - D L is triangular with entries c_k, d_k up to 1e10, exactly
 * invertible but with a raw condition number ~ c_k^2.  Returns COSA_EALGLOOP
 * when Ms is singular or its reciprocal condition number is below
 * COSA_ALGLOOP_RCOND (not solvable in double precision). */
static cosa_status algloop_factor_raw(cosa_system *sys);

static cosa_status algloop_factor(cosa_system *sys)
{
    cosa_status st = algloop_factor_raw(sys);
    sys->loop_ok = st == COSA_OK;
    sys->loop_stale = 0;
    return st;
}

static cosa_status algloop_factor_raw(cosa_system *sys)
{
    size_t ny = sys->ny;
    if (ny == 0)
        return COSA_OK;
    double *M = sys->work_ny;
    dense_identity(ny, M, ny);
    dense_gemm('N', 'N', ny, ny, sys->nu, -1.0, sys->D, ny, sys->L, sys->nu, 1.0, M, ny);
    double rowcnd, colcnd, amax;
    lapack_int info = LAPACKE_dgeequ_work(LAPACK_COL_MAJOR, (lapack_int)ny, (lapack_int)ny, M,
                                          (lapack_int)ny, sys->req, sys->ceq, &rowcnd, &colcnd,
                                          &amax);
    if (info != 0)
        return COSA_EALGLOOP; /* a zero row or column */
    for (size_t j = 0; j < ny; j++)
        for (size_t i = 0; i < ny; i++)
            M[i + j * ny] *= sys->req[i] * sys->ceq[j];
    double anorm = dense_norm1(ny, ny, M, ny);
    if (dense_lu(ny, M, ny, sys->ipiv_ny) != 0)
        return COSA_EALGLOOP;
    double rcond = dense_lu_rcond(ny, M, ny, anorm, sys->work_con, sys->iwork_ny);
    if (!(rcond >= COSA_ALGLOOP_RCOND))
        return COSA_EALGLOOP;
    return COSA_OK;
}

/* (I - D L)^{-1} B = Cq Ms^{-1} R B. */
void system_algloop_solve(const cosa_system *sys, size_t nrhs, double *B, size_t ldb)
{
    size_t ny = sys->ny;
    for (size_t j = 0; j < nrhs; j++)
        for (size_t i = 0; i < ny; i++)
            B[i + j * ldb] *= sys->req[i];
    dense_lu_solve(ny, nrhs, sys->work_ny, ny, sys->ipiv_ny, B, ldb);
    for (size_t j = 0; j < nrhs; j++)
        for (size_t i = 0; i < ny; i++)
            B[i + j * ldb] *= sys->ceq[i];
}

cosa_status cosa_system_create(cosa_system **out, size_t nsub, const cosa_subsystem *subs,
                               const double *L)
{
    if (!out)
        return COSA_EINVAL;
    *out = NULL;
    if (nsub == 0 || !subs)
        return COSA_EINVAL;
    size_t nx = 0, nu = 0, ny = 0;
    for (size_t i = 0; i < nsub; i++) {
        if (!sub_shape_ok(&subs[i]))
            return COSA_EINVAL;
        nx += subs[i].nx;
        nu += subs[i].nu;
        ny += subs[i].ny;
    }
    if ((nu && ny && !L) || nx == 0)
        return COSA_EINVAL;
    for (size_t i = 0; i < nsub; i++)
        if (!sub_finite(&subs[i]))
            return COSA_ENONFINITE;
    if (nu && ny && !dense_isfinite(nu, ny, L, nu))
        return COSA_ENONFINITE;

    cosa_system *sys = calloc(1, sizeof *sys);
    if (!sys)
        return COSA_ENOMEM;
    sys->nsub = nsub;
    sys->nx = nx;
    sys->nu = nu;
    sys->ny = ny;
    sys->sub = calloc(nsub, sizeof *sys->sub);
    sys->A = calloc(nx * nx, sizeof(double));
    sys->B = calloc(nx * nu + 1, sizeof(double));
    sys->C = calloc(ny * nx + 1, sizeof(double));
    sys->D = calloc(ny * nu + 1, sizeof(double));
    sys->L = calloc(nu * ny + 1, sizeof(double));
    sys->work_ny = calloc(ny * ny + 1, sizeof(double));
    sys->work_con = calloc(4 * ny + 1, sizeof(double));
    sys->ipiv_ny = calloc(ny + 1, sizeof(lapack_int));
    sys->iwork_ny = calloc(ny + 1, sizeof(lapack_int));
    sys->req = calloc(ny + 1, sizeof(double));
    sys->ceq = calloc(ny + 1, sizeof(double));
    if (!sys->sub || !sys->A || !sys->B || !sys->C || !sys->D || !sys->L || !sys->work_ny ||
        !sys->work_con || !sys->ipiv_ny || !sys->iwork_ny || !sys->req || !sys->ceq) {
        cosa_system_free(sys);
        return COSA_ENOMEM;
    }
    size_t ox = 0, ou = 0, oy = 0;
    for (size_t i = 0; i < nsub; i++) {
        sys->sub[i] = (struct cosa_sub_info){subs[i].nx, subs[i].nu, subs[i].ny, ox, ou, oy, 0};
        ox += subs[i].nx;
        ou += subs[i].nu;
        oy += subs[i].ny;
        sub_store(sys, i, &subs[i]);
    }
    if (nu && ny)
        memcpy(sys->L, L, nu * ny * sizeof(double));
    cosa_status st = algloop_factor(sys);
    if (st != COSA_OK) {
        cosa_system_free(sys);
        return st;
    }
    *out = sys;
    return COSA_OK;
}

cosa_status cosa_system_store_subsystem(cosa_system *sys, size_t i, const cosa_subsystem *sub)
{
    if (!sys || !sub || i >= sys->nsub)
        return COSA_EINVAL;
    const struct cosa_sub_info *b = &sys->sub[i];
    if (sub->nx != b->nx || sub->nu != b->nu || sub->ny != b->ny || !sub_shape_ok(sub))
        return COSA_EINVAL;
    if (!sub_finite(sub))
        return COSA_ENONFINITE;
    /* Only a change of a feedthrough block D_i can change I - D L (sweeps
     * rewrite every subsystem at every point, mostly with the same D_i). */
    int same_d = 1;
    for (size_t c = 0; c < b->nu && same_d && b->ny; c++)
        same_d = memcmp(sys->D + b->oy + (b->ou + c) * sys->ny, sub->D + c * b->ny,
                        b->ny * sizeof(double)) == 0;
    if (!same_d)
        sys->loop_stale = 1;
    sub_store(sys, i, sub);
    return COSA_OK;
}

cosa_status cosa_system_validate(cosa_system *sys)
{
    if (!sys)
        return COSA_EINVAL;
    if (!sys->loop_stale)
        return sys->loop_ok ? COSA_OK : COSA_EALGLOOP;
    return algloop_factor(sys);
}

cosa_status cosa_system_set_subsystem(cosa_system *sys, size_t i, const cosa_subsystem *sub)
{
    cosa_status st = cosa_system_store_subsystem(sys, i, sub);
    return st == COSA_OK ? cosa_system_validate(sys) : st;
}

cosa_status cosa_system_set_coupling(cosa_system *sys, const double *L)
{
    if (!sys || (sys->nu && sys->ny && !L))
        return COSA_EINVAL;
    if (sys->nu && sys->ny && !dense_isfinite(sys->nu, sys->ny, L, sys->nu))
        return COSA_ENONFINITE;
    if (sys->nu && sys->ny)
        memcpy(sys->L, L, sys->nu * sys->ny * sizeof(double));
    for (size_t i = 0; i < sys->nsub; i++)
        sys->sub[i].gen++;
    return algloop_factor(sys);
}

size_t cosa_system_nsub(const cosa_system *sys) { return sys ? sys->nsub : 0; }
size_t cosa_system_nx(const cosa_system *sys) { return sys ? sys->nx : 0; }
size_t cosa_system_nu(const cosa_system *sys) { return sys ? sys->nu : 0; }
size_t cosa_system_ny(const cosa_system *sys) { return sys ? sys->ny : 0; }
const double *cosa_system_A(const cosa_system *sys) { return sys ? sys->A : NULL; }
const double *cosa_system_B(const cosa_system *sys) { return sys ? sys->B : NULL; }
const double *cosa_system_C(const cosa_system *sys) { return sys ? sys->C : NULL; }
const double *cosa_system_D(const cosa_system *sys) { return sys ? sys->D : NULL; }
const double *cosa_system_L(const cosa_system *sys) { return sys ? sys->L : NULL; }

double cosa_system_norm_AB(const cosa_system *sys)
{
    const size_t nx = cosa_system_nx(sys), nu = cosa_system_nu(sys);
    const double *A = cosa_system_A(sys), *B = cosa_system_B(sys);
    double norm = 0.0;
    for (size_t i = 0; i < nx; i++) {
        double r = 0.0;
        for (size_t j = 0; j < nx; j++)
            r += fabs(A[i + j * nx]);
        for (size_t j = 0; j < nu; j++)
            r += fabs(B[i + j * nx]);
        norm = r > norm ? r : norm;
    }
    return norm;
}

cosa_status cosa_system_sub_dims(const cosa_system *sys, size_t i, size_t *nx, size_t *nu,
                                 size_t *ny, size_t *ox, size_t *ou, size_t *oy)
{
    if (!sys || i >= sys->nsub)
        return COSA_EINVAL;
    const struct cosa_sub_info *b = &sys->sub[i];
    if (nx) *nx = b->nx;
    if (nu) *nu = b->nu;
    if (ny) *ny = b->ny;
    if (ox) *ox = b->ox;
    if (ou) *ou = b->ou;
    if (oy) *oy = b->oy;
    return COSA_OK;
}

/* eq 35: C* = (I - D L)^{-1} C,  A* = A + B L C*.  work: nx*ny doubles.
 * Read-only: uses the factorisation of I - D L kept current by create and
 * the setters (so several threads may share one system). */
cosa_status system_monolithic_work(const cosa_system *sys, double *Astar, double *Cstar,
                                       double *work)
{
    if (!sys->loop_ok || sys->loop_stale)
        return COSA_EALGLOOP;
    size_t nx = sys->nx, nu = sys->nu, ny = sys->ny;
    dense_copy(ny, nx, sys->C, ny, Cstar, ny);
    system_algloop_solve(sys, nx, Cstar, ny);
    if (Astar) {
        dense_copy(nx, nx, sys->A, nx, Astar, nx);
        if (nu && ny) {
            dense_gemm('N', 'N', nx, ny, nu, 1.0, sys->B, nx, sys->L, nu, 0.0, work, nx);
            dense_gemm('N', 'N', nx, nx, ny, 1.0, work, nx, Cstar, ny, 1.0, Astar, nx);
        }
    }
    return COSA_OK;
}

cosa_status cosa_system_monolithic(const cosa_system *sys, double *Astar, double *Cstar)
{
    if (!sys)
        return COSA_EINVAL;
    size_t nx = sys->nx, ny = sys->ny;
    double *buf = malloc((ny * nx + nx * ny + 1) * sizeof(double));
    if (!buf)
        return COSA_ENOMEM;
    double *Cs = Cstar ? Cstar : buf + nx * ny;
    cosa_status st = system_monolithic_work(sys, Astar, Cs, buf);
    free(buf);
    return st;
}

int cosa_system_is_valid(const cosa_system *sys)
{
    return sys && sys->loop_ok && !sys->loop_stale;
}

size_t cosa_system_kick_flags(const cosa_system *sys, unsigned char *kick)
{
    const size_t NX = cosa_system_nx(sys);
    const double *A = cosa_system_A(sys), *B = cosa_system_B(sys);
    size_t npos = 0;
    for (size_t i = 0; i < cosa_system_nsub(sys); i++) {
        size_t nx, nu, ny, ox, ou, oy;
        cosa_system_sub_dims(sys, i, &nx, &nu, &ny, &ox, &ou, &oy);
        for (size_t r = ox; r < ox + nx; r++) {
            size_t nnz = 0, col = 0;
            double v = 0.0;
            for (size_t c = ox; c < ox + nx; c++)
                if (A[r + c * NX] != 0.0) {
                    nnz++;
                    col = c;
                    v = A[r + c * NX];
                }
            for (size_t c = ou; c < ou + nu; c++)
                if (B[r + c * NX] != 0.0)
                    nnz += 2;
            const int pos = nnz == 1 && col != r && v == 1.0;
            kick[r] = pos ? 0 : 1;
            npos += (size_t)pos;
        }
    }
    return npos;
}
