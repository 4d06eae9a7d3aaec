"""Benchmark (make bench-python): cosa.map of the Fig 4 grid for one scheme
against a numpy-batched computation of the same rho.

The grid of Fig 4 of the MBCorr paper: the two-mass oscillator (eq 27) over
ck = 1 .. 1e10 and dk = 1 .. 1e7, 256 x 256 log-spaced points, here for ZOH
(Jacobi) at dT = 1e-3.  The numpy route is written here from the method
(doc/method.md, sections 3-4), independently of libcosa: per grid point the
Van Loan exponential exp([[A_i, B_i], [0, 0]] dT) of each subsystem by
batched scaling and squaring with a degree-18 Taylor polynomial, then the
ZOH step of z = (x, ybar):
    x_{n+1} = A_d x_n + Q_0 L ybar_n,   ybar_{n+1} = C x_{n+1} + D L ybar_n,
and rho = max |eig(Phi)| by numpy's batched eigvals.  It prints both times,
their ratio and the largest difference of the two rho (a check of the
benchmark itself, not a test of cosa).
"""
import math
import os
import sys
import time

import numpy as np

import cosa

N = int(os.environ.get("COSA_BENCH_N", "256"))
DT = 1e-3
P = dict(m1=10.0, m2=10.0, c1=1e6, c2=1e7, d1=1.0, d2=2.0)


def expm_batched(M):
    """exp(M) for a stack of small matrices (n_batch, k, k): scaling by 2^-s
    per matrix (1-norm <= 1/2), Taylor of degree 18, squaring s times."""
    norm = np.abs(M).sum(axis=1).max(axis=1)
    s = np.maximum(0, np.ceil(np.log2(np.maximum(norm, 1e-300)) + 1)).astype(int)
    A = M / (2.0 ** s)[:, None, None]
    k = M.shape[-1]
    E = np.broadcast_to(np.eye(k), M.shape).copy()
    term = E.copy()
    for j in range(1, 19):
        term = term @ A / j
        E += term
    for step in range(int(s.max())):
        sq = E @ E
        E = np.where((s > step)[:, None, None], sq, E)
    return E


def subsystem(A, B, dt):
    """(A_d, Q_0) of the held-input step: the blocks of exp([[A, B], [0, 0]] dt)."""
    nb, nx, _ = A.shape
    nu = B.shape[2]
    M = np.zeros((nb, nx + nu, nx + nu))
    M[:, :nx, :nx] = A * dt
    M[:, :nx, nx:] = B * dt
    E = expm_batched(M)
    return E[:, :nx, :nx], E[:, :nx, nx:]


def rho_numpy(ck, dk, dt):
    nb = ck.size
    z = np.zeros(nb)
    AI = np.broadcast_to(np.array([[0.0, 1.0], [-P["c1"] / P["m1"], -P["d1"] / P["m1"]]]),
                         (nb, 2, 2))
    BI = np.broadcast_to(np.array([[0.0], [1.0 / P["m1"]]]), (nb, 2, 1))
    AII = np.stack([np.stack([z, z + 1.0], -1),
                    np.stack([-(ck + P["c2"]) / P["m2"], -(dk + P["d2"]) / P["m2"]], -1)], 1)
    BII = np.stack([np.stack([z, z], -1), np.stack([ck / P["m2"], dk / P["m2"]], -1)], 1)
    CII = np.stack([ck, dk], -1)[:, None, :]
    DII = np.stack([-ck, -dk], -1)[:, None, :]
    AdI, QI = subsystem(AI, BI, dt)
    AdII, QII = subsystem(AII, BII, dt)
    # z = (s1, v1, s2, v2, ybar = (s1, v1, Fk)); u = L ybar = (Fk | s1, v1)
    Phi = np.zeros((nb, 7, 7))
    Phi[:, 0:2, 0:2] = AdI
    Phi[:, 2:4, 2:4] = AdII
    Phi[:, 0:2, 6:7] = QI                 # Q_0 of I times u_I = Fk = ybar[2]
    Phi[:, 2:4, 4:6] = QII                # Q_0 of II times u_II = (s1, v1)
    # ybar_{n+1}: outputs of I are its states (C = I, D = 0); II: C x + D u
    Phi[:, 4:6, :] = Phi[:, 0:2, :]
    Phi[:, 6:7, :] = CII @ Phi[:, 2:4, :]
    Phi[:, 6:7, 4:6] += DII
    return np.abs(np.linalg.eigvals(Phi)).max(axis=1)


def main():
    m = cosa.Model("twomass")
    x = ("ck", 1, 1e10, "log", N)
    y = ("dk", 1, 1e7, "log", N)
    threads = int(os.environ.get("COSA_BENCH_THREADS", "1"))
    t0 = time.perf_counter()
    g = cosa.map(m, "zoh", DT, x=x, y=y, threads=threads)
    t_cosa = time.perf_counter() - t0
    CK, DK = np.meshgrid(g.x, g.y)          # (ny, nx), as the map
    t0 = time.perf_counter()
    r = rho_numpy(CK.ravel(), DK.ravel(), DT).reshape(CK.shape)
    t_np = time.perf_counter() - t0
    diff = np.max(np.abs(r - np.asarray(g)) / np.maximum(1.0, np.asarray(g)))
    print("grid %d x %d (Fig 4), scheme ZOH, dT %g, cosa threads %d" % (N, N, DT, threads))
    print("cosa.map       %.3f s  (%.2f us/point)" % (t_cosa, 1e6 * t_cosa / N / N))
    print("numpy batched  %.3f s  (%.2f us/point)" % (t_np, 1e6 * t_np / N / N))
    print("ratio numpy/cosa %.2f" % (t_np / t_cosa))
    print("largest |rho_numpy - rho_cosa| / max(1, rho) %.3g" % diff)
    return 0 if diff < 1e-6 else 1


if __name__ == "__main__":
    sys.exit(main())
