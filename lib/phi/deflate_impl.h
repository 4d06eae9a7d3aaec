/* deflate_impl.h -- private: the deflated propagation matrix of a Jacobi
 * scheme, whose eigenvalues are the nonzero eigenvalues of Phi (lib/deflate.c).
 * Used by cosa_evaluate for rho(Phi); tests compare it against Phi. */
#ifndef COSA_DEFLATE_IMPL_H
#define COSA_DEFLATE_IMPL_H

#include "cosa/phi.h"

typedef struct deflate_workspace deflate_workspace;

/* Workspace for systems shaped like sys and Jacobi schemes up to order pmax.
 * NULL on bad arguments or allocation failure. */
deflate_workspace *deflate_workspace_alloc(const cosa_system *sys, int pmax);
void deflate_workspace_free(deflate_workspace *w);

/* Largest order of a deflated matrix (= layout dim of order pmax with du). */
size_t deflate_dim_max(const deflate_workspace *w);

/* The deflated matrix Phi_d (n x n, column-major, ld >= deflate_dim_max)
 * of the Jacobi scheme s at step dt, with n written to *n.  Every nonzero
 * eigenvalue of Phi (cosa_phi_build), with its multiplicity, is an eigenvalue
 * of Phi_d and vice versa, in exact arithmetic (the missing eigenvalues are
 * exact zeros, or 1 - alpha for a state correction).  Status as
 * cosa_phi_build; COSA_EUNSUPPORTED for Gauss-Seidel schemes. */
cosa_status deflate_build(const cosa_system *sys, const cosa_scheme *s, double dt,
                               double *Phid, size_t ld, size_t *n, deflate_workspace *w);

/* rho(Phi) = max |eig(Phi_d)| (LAPACK dgeev on Phi_d). */
cosa_status deflate_rho(const cosa_system *sys, const cosa_scheme *s, double dt,
                             double *rho, deflate_workspace *w);

#endif
