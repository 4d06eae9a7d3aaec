/* tables.c -- interpolation/extrapolation coefficient tables shared by the
 * Phi engine (lib/phi/) and the time-domain master (lib/td/): Lagrange basis
 * polynomials on equidistant nodes, the extrapolation weights e_j = l_j(1),
 * the weights w_m of the output-correction integral and kappa_p of the
 * state correction (doc/method.md, sections 4-6).  Exact small rationals,
 * computed in double. */
#include "cosa/core.h"

/* Coefficients of prod_k (s - r_k) for roots r (n of them) into c[0..n]. */
static void poly_from_roots(int n, const double *r, double *c)
{
    c[0] = 1.0;
    for (int k = 1; k <= n; k++)
        c[k] = 0.0;
    for (int k = 0; k < n; k++) {
        /* multiply by (s - r_k) */
        for (int m = k + 1; m >= 1; m--)
            c[m] = c[m - 1] - r[k] * c[m];
        c[0] = -r[k] * c[0];
    }
}

void cosa_lagrange_table(int p, double first, double *lag)
{
    double roots[COSA_ORDER_MAX + 2] = {0}, c[COSA_ORDER_MAX + 3] = {0};
    for (int j = 0; j <= p; j++) {
        int nr = 0;
        double denom = 1.0;
        for (int k = 0; k <= p; k++) {
            if (k == j)
                continue;
            roots[nr++] = first - (double)k;
            denom *= (double)(k - j); /* (first - j) - (first - k) */
        }
        poly_from_roots(nr, roots, c);
        for (int m = 0; m <= p; m++)
            lag[j * (p + 1) + m] = c[m] / denom;
    }
}

void cosa_lagrange_nodes(int p, const double *s, double *lag)
{
    double roots[COSA_ORDER_MAX + 2] = {0}, c[COSA_ORDER_MAX + 3] = {0};
    for (int j = 0; j <= p; j++) {
        int nr = 0;
        double denom = 1.0;
        for (int k = 0; k <= p; k++) {
            if (k == j)
                continue;
            roots[nr++] = s[k];
            denom *= s[j] - s[k];
        }
        poly_from_roots(nr, roots, c);
        for (int m = 0; m <= p; m++)
            lag[j * (p + 1) + m] = c[m] / denom;
    }
}

double cosa_order_tables(int p, double *lag, double *e, double *w)
{
    double roots[COSA_ORDER_MAX + 2] = {0}, c[COSA_ORDER_MAX + 3] = {0};
    /* Lagrange basis on nodes s = 0, -1, ..., -p. */
    cosa_lagrange_table(p, 0.0, lag);
    for (int j = 0; j <= p; j++) {
        /* e_j = l_j(1) = (-1)^j binom(p+1, j+1), exact in integer arithmetic */
        double b = 1.0;
        for (int k = 1; k <= j + 1; k++)
            b = b * (double)(p + 2 - k) / (double)k;
        e[j] = (j % 2 ? -1.0 : 1.0) * b;
    }
    /* w_p(s) = s (s+1) ... (s+p-1) / p!: roots 0, -1, ..., -(p-1). */
    double fact = 1.0;
    for (int k = 0; k < p; k++) {
        roots[k] = -(double)k;
        fact *= (double)(k + 1);
    }
    poly_from_roots(p, roots, c);
    for (int m = 0; m <= p; m++)
        w[m] = c[m] / fact;
    /* kappa_p = int_0^1 w_{p+1}(s) ds */
    fact *= (double)(p + 1);
    roots[p] = -(double)p;
    poly_from_roots(p + 1, roots, c);
    double kappa = 0.0;
    for (int m = 0; m <= p + 1; m++)
        kappa += c[m] / fact / (double)(m + 1);
    return kappa;
}

