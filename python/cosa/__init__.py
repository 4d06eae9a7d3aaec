"""cosa for Python: stability and accuracy of co-simulation coupling schemes.

The one-call API of libcosa (doc/one-call-api.md) with numpy arrays in and
out; every number is the command line's (`cosa point`, `phi`, `limit`,
`map`, `advise`, `simulate`), bit for bit.  Guide: doc/python.md.

    >>> import cosa
    >>> m = cosa.Model("twomass", ck=1e6)
    >>> r = cosa.point(m, scheme="foh+mbcorr", dt=1e-3)
    >>> r.stable, r.rho

Errors raise cosa.Error (a ValueError) with the library's one-line message.
Long calls release the GIL; Ctrl-C stops the C call (the library's
cancellation flag) and raises KeyboardInterrupt, no result.
"""
import math
import numbers
import threading

import numpy as np

from ._cosa import ffi, lib

__all__ = ["Error", "Model", "models", "point", "phi", "limit", "map", "advise",
           "simulate", "plot_map", "PointResult", "Phi", "Limit", "Map", "Simulation",
           "version"]

_ERRSIZE = 640


class Error(ValueError):
    """A refused argument or a failed computation: the library's one-line
    message (the command line's, without its 'cosa: CMD: ' prefix); .status
    is the library's status code."""

    def __init__(self, message, status=None):
        super().__init__(message)
        self.status = status


def version():
    """The version of libcosa (as `cosa --version`)."""
    return ffi.string(lib.cosa_version()).decode()


def _check(st, err):
    if st != lib.COSA_OK:
        msg = ffi.string(err).decode(errors="replace")
        raise Error(msg or ffi.string(lib.cosa_strerror(st)).decode(), int(st))


def _text(value, what):
    if not isinstance(value, str):
        raise Error("%s must be a string, got %s" % (what, type(value).__name__))
    if "\0" in value:
        raise Error("%s must not contain NUL characters" % what)
    return value.encode()


def _real(value, what, positive=False, default=None):
    if value is None and default is not None:
        return default
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise Error("%s must be a number, got %s" % (what, type(value).__name__))
    v = float(value)
    if not math.isfinite(v):
        raise Error("%s must be finite, got %r" % (what, v))
    if positive and not v > 0.0:
        raise Error("%s must be positive, got %r" % (what, v))
    return v


def _count(value, what, lo=1, hi=None):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise Error("%s must be an integer, got %s" % (what, type(value).__name__))
    v = int(value)
    if v < lo or (hi is not None and v > hi):
        raise Error("%s must be in %d..%s, got %d" % (what, lo, hi if hi else "", v))
    return v


# How long Ctrl-C waits for the cancelled C call to return: the library
# checks its flag at every grid point, evaluation of a scan and macro step,
# so it returns within one of those (milliseconds for the built-in models;
# one point of a model with hundreds of states can take seconds).
_CANCEL_WAIT = 30.0


def _interruptible(fn, model, alive=()):
    """Run fn() (a C call on model's case that releases the GIL) under the
    model's lock in a worker thread ("cosa-call") with a new cancellation
    flag on the case (cosa_case_set_cancel), and wait for it in small
    slices, so that Ctrl-C interrupts the wait: the flag is then set, the
    call stops at its next check (COSA_ECANCELLED, nothing allocated), the
    wait goes on until the worker is done (at most _CANCEL_WAIT s; a second
    Ctrl-C ends it) and KeyboardInterrupt is raised, no result.  alive: the
    buffers fn uses beyond its closure's, kept as long as the worker runs.
    (The wait is on an Event, not Thread.join: a join interrupted by Ctrl-C
    can leave the thread marked as stopped while it runs, CPython < 3.12.)"""
    box = {"alive": alive}
    done = threading.Event()
    flag = ffi.gc(lib.cosa_cancel_alloc(), lib.cosa_cancel_free)
    if flag == ffi.NULL:
        raise MemoryError("cosa: out of memory")
    case, lock = model._case, model._lock

    def work():
        try:
            with lock:
                lib.cosa_case_set_cancel(case, flag)
                try:
                    box["value"] = fn()
                finally:
                    lib.cosa_case_set_cancel(case, ffi.NULL)
        except BaseException as e:  # re-raised in the caller's thread
            box["error"] = e
        finally:
            done.set()

    threading.Thread(target=work, name="cosa-call", daemon=True).start()
    try:
        while not done.wait(0.05):  # returns as soon as the call is done
            pass
    except KeyboardInterrupt:
        lib.cosa_cancel_request(flag)
        done.wait(_CANCEL_WAIT)
        raise
    if "error" in box:
        raise box["error"]
    return box["value"]


class Model:
    """A model at parameter values: a built-in model by name with parameters
    as keywords (the command's --model NAME --set NAME=VALUE), or a model
    file through Model.from_file.

    >>> m = cosa.Model("twomass", ck=1e6, dk=400)
    >>> m.params      # {'m1': 1.0, ..., 'ck': 1000000.0, ...}
    """

    def __init__(self, name="twomass", **params):
        err = ffi.new("char[]", _ERRSIZE)
        out = ffi.new("cosa_case **")
        _check(lib.cosa_case_builtin(_text(name, "model name"), out, err, _ERRSIZE), err)
        self._init(out[0], params)

    @classmethod
    def from_file(cls, path, **params):
        """A model file: .cosa text, .ssp/.ssd (SSP), OspSystemStructure.xml
        (the command's --model-file PATH), with parameters as keywords."""
        import os
        err = ffi.new("char[]", _ERRSIZE)
        out = ffi.new("cosa_case **")
        p = os.fspath(path) if not isinstance(path, str) else path
        _check(lib.cosa_case_load(_text(p, "model file"), out, err, _ERRSIZE), err)
        self = cls.__new__(cls)
        self._init(out[0], params)
        return self

    def _init(self, case, params):
        self._case = ffi.gc(case, lib.cosa_case_free)
        # one call at a time per model (a model file's FMUs are not
        # reentrant); calls on different models run in parallel
        self._lock = threading.Lock()
        m = lib.cosa_case_model(self._case)
        self.name = ffi.string(m.name).decode()
        for k, v in params.items():
            self.set(k, v)

    def set(self, name, value):
        """Set a parameter or initial state (--set NAME=VALUE); returns self."""
        err = ffi.new("char[]", _ERRSIZE)
        v = _real(value, "parameter %s" % name)
        nm = _text(name, "parameter name")
        with self._lock:
            _check(lib.cosa_case_set(self._case, nm, v, err, _ERRSIZE), err)
        return self

    @property
    def params(self):
        """The parameter values now, {name: value}, in the model's order."""
        m = lib.cosa_case_model(self._case)
        par = lib.cosa_case_par(self._case)
        return {ffi.string(m.params[k].name).decode(): par[k] for k in range(m.nparam)}

    @property
    def tend(self):
        """The model's horizon [s] (the default tend of point, map, simulate)."""
        return lib.cosa_case_model(self._case).tend

    def __repr__(self):
        return "cosa.Model(%r)" % self.name


def _model(m):
    if not isinstance(m, Model):
        raise Error("model must be a cosa.Model, got %s" % type(m).__name__)
    return m


def models():
    """The built-in models: {name: {"doc", "linear", "tend", "params": {name:
    {"value", "unit", "doc", "initial"}}}} (as `cosa models`)."""
    out = {}
    for i in range(lib.cosa_model_count()):
        m = lib.cosa_model_at(i)
        ps = {}
        for k in range(m.nparam):
            p = m.params[k]
            ps[ffi.string(p.name).decode()] = {
                "value": p.value,
                "unit": ffi.string(p.unit).decode() if p.unit else "",
                "doc": ffi.string(p.doc).decode() if p.doc else "",
                "initial": p.kind == lib.COSA_PARAM_INITIAL}
        out[ffi.string(m.name).decode()] = {
            "doc": ffi.string(m.doc).decode() if m.doc else "",
            "linear": bool(lib.cosa_model_is_linear(m)), "tend": m.tend, "params": ps}
    return out


class PointResult:
    """`cosa point`'s figures: rho, rho_ref, stable, tend, nsteps, growth (an
    unstable scheme), e_global, e_local, e_local_ref, note; for imp:/gs-imp:
    schemes also rho_iter, relax_max, relax_opt, rho_iter_opt."""

    def __init__(self, **kw):
        self.__dict__.update(kw)

    def as_dict(self):
        return dict(self.__dict__)

    def __repr__(self):
        return "PointResult(%s)" % ", ".join("%s=%r" % kv for kv in self.__dict__.items())


def point(model, scheme, dt, tend=None):
    """Stability and accuracy of one scheme at macro step dt (cosa point).

    model: a cosa.Model; scheme: "zoh", "foh+mbcorr", "gs:p1", "imp:foh", ...;
    dt: the macro step [s]; tend: the horizon [s] (default: the model's).
    Returns a PointResult with the CLI's names: rho, rho_ref, stable (rho <=
    1 + 1e-12), nsteps, e_global, e_local, e_local_ref (NaN where undefined,
    with note), growth (rho^N for an unstable scheme), the iteration figures
    for iterative schemes.
    """
    m = _model(model)
    sch = _text(scheme, "scheme")
    dtv = _real(dt, "dt", positive=True)
    te = _real(tend, "tend", positive=True, default=0.0) if tend is not None else 0.0
    err = ffi.new("char[]", _ERRSIZE)
    note = ffi.new("char[]", 256)
    r = ffi.new("cosa_point_result *")
    st = _interruptible(lambda: lib.cosa_case_point(m._case, sch, dtv, te, r, note, 256, err,
                                                    _ERRSIZE), m)
    _check(st, err)
    horizon = te if te > 0 else m.tend
    nst = round(horizon / dtv)
    kw = dict(rho=r.rho, rho_ref=r.rho_ref, stable=bool(r.rho <= 1.0 + 1e-12),
              tend=horizon, nsteps=nst, e_global=r.err.e_global, e_local=r.err.e_local,
              e_local_ref=r.err.e_local_ref, note=ffi.string(note).decode() or None)
    if not kw["stable"]:
        kw["growth"] = r.rho ** nst if nst <= 1e15 else math.inf
    if scheme.lower().startswith(("imp:", "gs-imp:")):
        kw.update(rho_iter=r.iter.rho_iter, relax_max=r.iter.relax_max,
                  relax_opt=r.iter.relax_opt, rho_iter_opt=r.iter.rho_iter_opt)
    return PointResult(**kw)


class Phi(np.ndarray):
    """Phi as a numpy (n, n) float64 array with .layout: the blocks of the
    information vector z = (x, ybar_n, ybar_{n-1}, ..., du), a dict of
    slices {"x", "y0", "y1", ..., "du"} plus the sizes nx, ny, nu, dim."""
    layout = None

    def __array_finalize__(self, obj):
        self.layout = getattr(obj, "layout", None)


def phi(model, scheme, dt, exact=False):
    """Phi of scheme at macro step dt (cosa phi), or the exact reference
    Phi* with exact=True (cosa phi --ref): z_{n+1} = Phi z_n."""
    m = _model(model)
    sch = _text(scheme, "scheme")
    dtv = _real(dt, "dt", positive=True)
    err = ffi.new("char[]", _ERRSIZE)
    dim = ffi.new("size_t *")
    lay = ffi.new("cosa_layout *")
    with m._lock:
        _check(lib.cosa_case_phi_dim(m._case, sch, dim, lay, err, _ERRSIZE), err)
        n = dim[0]
        flat = np.empty(n * n, dtype=np.float64)
        buf = ffi.cast("double *", ffi.from_buffer(flat))
        _check(lib.cosa_case_phi(m._case, sch, dtv, 1 if exact else 0, buf, n, err, _ERRSIZE),
               err)
    P = flat.reshape((n, n), order="F").view(Phi)
    blocks = {"x": slice(lay.off_x, lay.off_y)}
    for j in range(lay.nhist):
        blocks["y%d" % j] = slice(lay.off_y + j * lay.ny, lay.off_y + (j + 1) * lay.ny)
    if lay.has_du:
        blocks["du"] = slice(lay.off_du, lay.dim)
    blocks.update(nx=lay.nx, ny=lay.ny, nu=lay.nu, dim=lay.dim)
    P.layout = blocks
    return P


class Limit:
    """`cosa limit`'s figures: dt_max, crossings [(dt, "leaves"|"enters")],
    monotone, never_lost, good_at_min, evaluations."""

    def __init__(self, **kw):
        self.__dict__.update(kw)

    def __float__(self):
        return float(self.dt_max)

    def __repr__(self):
        return "Limit(%s)" % ", ".join("%s=%r" % kv for kv in self.__dict__.items())


_CRITERIA = {"stable": "COSA_CRIT_STABLE", "accurate": "COSA_CRIT_ACCURATE",
             "local": "COSA_CRIT_LOCAL", "iteration": "COSA_CRIT_ITERATION"}


def _criterion(name):
    if name not in _CRITERIA:
        raise Error("criterion must be one of %s, got %r" % (", ".join(_CRITERIA), name))
    return getattr(lib, _CRITERIA[name])


def limit(model, scheme, criterion="stable", tol=0.01, dt_min=1e-9, dt_max=1e-2,
          per_decade=20, tend=None):
    """The largest macro step meeting criterion (cosa limit): "stable"
    (rho <= 1), "accurate" (e_global <= tol), "local" (e_local <= tol) or
    "iteration" (imp:/gs-imp:).  Scans dt_min..dt_max on a log grid
    (per_decade points per decade) and refines every crossing; the windows
    are in .crossings.  Returns a Limit (float(limit) is dt_max)."""
    m = _model(model)
    sch = _text(scheme, "scheme")
    crit = _criterion(criterion)
    tolv = _real(tol, "tol", positive=True)
    lo = _real(dt_min, "dt_min", positive=True)
    hi = _real(dt_max, "dt_max", positive=True)
    pd = _count(per_decade, "per_decade", 1, 1000)
    te = _real(tend, "tend", positive=True) if tend is not None else 0.0
    err = ffi.new("char[]", _ERRSIZE)
    out = ffi.new("cosa_limit *")
    cap = 64
    cross = ffi.new("cosa_crossing[]", cap)
    st = _interruptible(lambda: lib.cosa_case_limit(m._case, sch, crit, tolv, lo, hi, pd, te,
                                                    out, cross, cap, err, _ERRSIZE), m)
    _check(st, err)
    n = min(out.ncross, cap)
    return Limit(dt_max=out.dt_max,
                 crossings=[(cross[k].dt, "enters" if cross[k].enters else "leaves")
                            for k in range(n)],
                 monotone=bool(out.monotone), never_lost=bool(out.never_lost),
                 good_at_min=bool(out.good_at_min), evaluations=out.nevals,
                 criterion=criterion)


class Map(np.ndarray):
    """A map as a numpy (ny, nx) float64 array (row iy, column ix) with .x and
    .y (the axis values), .xname, .yname, .metric, .scheme, .dt and .status
    (the library's status per point, 0 where it was computed)."""

    def __array_finalize__(self, obj):
        for k in ("x", "y", "xname", "yname", "metric", "scheme", "dt", "status", "level"):
            setattr(self, k, getattr(obj, k, None))


def _axis(spec, which, keep):
    if not isinstance(spec, (tuple, list)) or len(spec) != 5:
        raise Error("%s must be (name, lo, hi, 'log'|'lin', n), got %r" % (which, spec))
    name, lo, hi, kind, n = spec
    if kind not in ("log", "lin"):
        raise Error("%s: spacing must be 'log' or 'lin', got %r" % (which, kind))
    buf = ffi.new("char[]", _text(name, "%s parameter" % which))
    keep.append(buf)  # alive as long as the axis is used
    a = ffi.new("cosa_case_axis *")
    a.name = buf
    a.lo = _real(lo, "%s lo" % which)
    a.hi = _real(hi, "%s hi" % which)
    a.log = 1 if kind == "log" else 0
    a.n = _count(n, "%s n" % which, 1, 100000000)
    return a, name


def map(model, scheme, dt, x, y=None, metric="rho", tend=None, threads=0):
    """A metric over a parameter grid (cosa map), one scheme, one dt.

    x, y: (name, lo, hi, "log"|"lin", n) -- a model parameter (or
    "assume.P": the assumed model of the output correction); y may be None
    (a one-parameter map of shape (1, nx)).  metric: "rho" (default),
    "e_global", "e_local", "e_local_ref", "rho_iter", the energy metrics.
    threads: the library's OpenMP threads (0: the OpenMP default).
    Returns a Map, a numpy (ny, nx) array; failed points are NaN (.status).
    Ctrl-C stops the map at its next grid point (KeyboardInterrupt, no
    result).
    """
    m = _model(model)
    sch = _text(scheme, "scheme")
    dtv = _real(dt, "dt", positive=True)
    met = ffi.new("cosa_metric *")
    if lib.cosa_metric_parse(_text(metric, "metric"), met) != lib.COSA_OK:
        raise Error("unknown metric '%s' (expected rho, e_global, e_local, e_local_ref, "
                    "E_ratio, dE, varsigma, mu_measured or rho_iter)" % metric)
    te = _real(tend, "tend", positive=True) if tend is not None else 0.0
    th = _count(threads, "threads", 0, 4096)
    keep = []
    ax, xname = _axis(x, "x", keep)
    ay, yname = _axis(y, "y", keep) if y is not None else (ffi.NULL, None)
    nx, ny = ax.n, (ay.n if y is not None else 1)
    if nx * ny > 2 ** 31:
        raise Error("%d x %d points: too many" % (nx, ny))
    vals = np.empty(nx * ny, dtype=np.float64)
    stat = np.zeros(nx * ny, dtype=np.intc)
    vbuf = ffi.cast("double *", ffi.from_buffer(vals))
    sbuf = ffi.cast("cosa_status *", ffi.from_buffer(stat))
    err = ffi.new("char[]", _ERRSIZE)
    nf = ffi.new("size_t *")
    st = _interruptible(lambda: lib.cosa_case_map(m._case, sch, dtv, met[0], ax, ay, te, th,
                                                  vbuf, sbuf, nf, err, _ERRSIZE), m,
                        alive=(vals, stat, keep))
    _check(st, err)
    xs = np.empty(nx)
    lib.cosa_case_axis_values(ax, ffi.cast("double *", ffi.from_buffer(xs)))
    ys = np.empty(ny)
    if y is not None:
        lib.cosa_case_axis_values(ay, ffi.cast("double *", ffi.from_buffer(ys)))
    else:
        ys[:] = np.nan
    g = np.ascontiguousarray(vals.reshape(nx, ny).T).view(Map)
    g.x, g.y, g.xname, g.yname = xs, ys, xname, yname
    g.metric, g.scheme, g.dt = metric, scheme, dtv
    g.status = stat.reshape(nx, ny).T.copy()
    g.level = 1.0 if metric == "rho" else None
    return g


def advise(model, tol, error="global", schemes=None, tend=None, dt_min=1e-7, dt_max=None,
           per_decade=20, cost_mbcorr=0.2):
    """Which scheme and which macro step (cosa advise): a dict with the content
    of `cosa advise --format json` -- the settings, "fmus" (what each FMU of
    a model file can do), "candidates" in rank order (scheme, rank,
    runnable, dt_stable, dt_accurate, dt, steps, cost, usable, why; None
    where the JSON has null), "notes" and "recommendation"."""
    m = _model(model)
    o = ffi.new("cosa_case_advise_opts *")
    lib.cosa_case_advise_defaults(o)
    if error not in ("global", "local"):
        raise Error("error must be 'global' or 'local', got %r" % (error,))
    o.crit = lib.COSA_CRIT_ACCURATE if error == "global" else lib.COSA_CRIT_LOCAL
    o.tol = _real(tol, "tol", positive=True)
    keep = None
    if schemes is not None:
        if not isinstance(schemes, str):
            schemes = ",".join(schemes)
        keep = ffi.new("char[]", _text(schemes, "schemes"))
        o.schemes = keep
    if tend is not None:
        o.tend = _real(tend, "tend", positive=True)
    o.dt_min = _real(dt_min, "dt_min", positive=True)
    if dt_max is not None:
        o.dt_max = _real(dt_max, "dt_max", positive=True)
    o.per_decade = _count(per_decade, "per_decade", 1, 1000)
    o.cost_corr = _real(cost_mbcorr, "cost_mbcorr")
    if o.cost_corr < 0:
        raise Error("cost_mbcorr must be >= 0, got %r" % cost_mbcorr)
    cap = 64
    adv = ffi.new("cosa_advice[]", cap)
    n = ffi.new("size_t *")
    used = ffi.new("cosa_case_advise_opts *")
    err = ffi.new("char[]", _ERRSIZE)
    st = _interruptible(lambda: lib.cosa_case_advise(m._case, o, adv, cap, n, used, err,
                                                     _ERRSIZE), m, alive=(keep,))
    del keep
    _check(st, err)

    def fin(v):
        return v if math.isfinite(v) else None

    cands = []
    nm = ffi.new("char[]", 64)
    rwhy = ffi.new("char[]", 512)
    for i in range(n[0]):
        a = adv[i]
        lib.cosa_scheme_name(ffi.addressof(a, "scheme"), nm, 64)
        runnable = bool(lib.cosa_case_runnable(m._case, ffi.addressof(a, "scheme"), rwhy, 512))
        ok = runnable and a.status == lib.COSA_OK
        judged = a.status == lib.COSA_OK and bool(a.usable)
        why = None
        if not runnable:
            why = "cannot run on these FMUs: " + ffi.string(rwhy).decode()
        elif not ok:
            why = "not judged: " + ffi.string(lib.cosa_strerror(a.status)).decode()
        elif not a.usable:
            why = "not %s at dt-min %g" % ("stable" if not a.stable.good_at_min else "accurate",
                                           used.dt_min)
        cands.append({
            "scheme": ffi.string(nm).decode(), "rank": i + 1, "runnable": runnable,
            "dt_stable": (fin(a.stable.dt_max) if a.status == lib.COSA_OK and
                          a.stable.good_at_min else None),
            "dt_accurate": (fin(a.accurate.dt_max) if a.status == lib.COSA_OK and
                            a.accurate.good_at_min else None),
            # advise --format json: the figures of a usable advice, also where
            # the FMUs cannot run the scheme (then "usable" is false)
            "dt": fin(a.dt) if judged else None,
            "steps": int(a.steps) if judged else None,
            "cost": fin(a.cost) if judged else None,
            "usable": bool(ok and a.usable), "why": why})
    notes = [_advise_notes(adv[i], c, used) for i, c in enumerate(cands)]
    best = next((c for c in cands if c["usable"]), None)
    return {"cosa": version(), "command": "advise", "model": m.name, "error": error,
            "tol": used.tol, "tend": used.tend, "dt_range": [used.dt_min, used.dt_max],
            "cost_mbcorr": used.cost_corr, "robust": None, "fmus": _fmus(m),
            "candidates": cands, "notes": [n for ns in notes for n in ns],
            "recommendation": ({"scheme": best["scheme"], "dt": best["dt"],
                                "steps": best["steps"]} if best else None)}


def _windows(name, what, lim, cross):
    """advise's note on the crossings above the first loss of one criterion."""
    cap = len(cross)
    n = min(lim.ncross, cap)
    first = 1 if lim.good_at_min else 0
    if n <= first:
        return []
    line = "%s: %s again above the first loss:" % (name, what)
    for k in range(first, n):
        line += " %.4g:%s" % (cross[k].dt, "enters" if cross[k].enters else "leaves")
    if lim.ncross > cap:
        line += " (+%d more)" % (lim.ncross - cap)
    return [line]


def _advise_notes(a, c, used):
    """The note lines advise writes for candidate a (row c), as its JSON."""
    name, dtmin = c["scheme"], used.dt_min
    if not c["runnable"]:
        b = "%.4g" % a.dt if a.status == lib.COSA_OK and a.usable else "-"
        return ["%s: not ranked: cosa simulate cannot run it on these FMUs (%s); dt on the "
                "linearised network %s" % (name, c["why"][len("cannot run on these FMUs: "):], b)]
    if a.status != lib.COSA_OK:
        return ["%s: not judged: %s" % (name, ffi.string(lib.cosa_strerror(a.status)).decode())]
    out = []
    if not a.usable and (not a.stable.good_at_min or not a.accurate.good_at_min):
        out.append("%s: not %s at dt-min %g" % (name, "stable" if not a.stable.good_at_min
                                                 else "accurate", dtmin))
    out += _windows(name, "stable", a.stable, a.cross_stable)
    out += _windows(name, "accurate", a.accurate, a.cross_accurate)
    if a.scheme.implicit:
        if not a.converge.good_at_min:
            out.append("%s: iteration does not converge at dt-min %g" % (name, dtmin))
        out += _windows(name, "convergent", a.converge, a.cross_converge)
        if a.usable:
            out.append("%s: iteration converges up to dt %.17g; %u sweeps per macro step at "
                       "rho_iter_opt %.17g" % (name, a.converge.dt_max, a.iterations,
                                               a.rho_iter_opt))
    if a.usable and a.dt == used.dt_max:
        out.append("%s: good up to dt-max %g (a larger step may be good too)"
                   % (name, used.dt_max))
    return out


def _fmus(m):
    """advise's "fmus": what each FMU of a model file can do."""
    out = []
    mod = lib.cosa_case_model(m._case)
    par = lib.cosa_case_par(m._case)
    i = 0
    while mod.sub_name != ffi.NULL and mod.sub_name(mod, par, i) != ffi.NULL:
        c = lib.cosa_model_file_fmu_capability(mod, i)
        if c != ffi.NULL:
            lin = ffi.new("cosa_linearity *")
            haslin = lib.cosa_model_file_fmu_linearity(mod, par, i, lin) == lib.COSA_OK
            out.append({
                "subsystem": ffi.string(mod.sub_name(mod, par, i)).decode(),
                "path": ffi.string(lib.cosa_model_file_fmu(mod, i)).decode(),
                "fmi": "%d.0" % c.fmi_version, "input_degree_max": c.input_degree_max,
                "directional_derivatives": bool(c.directional), "fmu_state": bool(c.fmu_state),
                "max_output_derivative_order": c.max_output_derivative_order,
                "fixed_internal_step": c.fixed_step if c.fixed_step > 0 else None,
                "default_step": c.default_step if c.default_step > 0 else None,
                "input_smoothness": c.smoothness,
                "input_degree_smoothness_max": lib.cosa_fmu_smoothness_degree(c.smoothness),
                "nonlinear": bool(lin.is_nonlinear) if haslin else None,
                "affine": bool(lin.is_affine) if haslin else None})
        i += 1
    return out


class Simulation:
    """A fixed-step co-simulation (cosa simulate): .t (numpy, the macro
    points), s["y.SUB.NAME"] (raw outputs), s["ybar.SUB.NAME"] (corrected
    outputs), s["ref.SUB.NAME"] (the reference's), .outputs (the names
    y.*), .e_global, .status ("ok", "diverged", ...), .reason, .reference,
    .stats (dict: steps, rejected, attempts, h_min, h_mean, h_max,
    seconds), .defect_out, .defect_conn."""

    def __init__(self, **kw):
        self.__dict__.update(kw)

    def __getitem__(self, name):
        try:
            return self.columns[name]
        except KeyError:
            raise KeyError("%r: no such column (have %s)" % (name, ", ".join(self.columns)))

    def keys(self):
        return self.columns.keys()

    def __repr__(self):
        return "Simulation(status=%r, e_global=%r, steps=%d)" % (
            self.status, self.e_global, self.stats["steps"])


_REFS = {"auto": "COSA_CASE_REF_AUTO", "fine": "COSA_CASE_REF_FINE",
         "none": "COSA_CASE_REF_NONE"}


def simulate(model, scheme, dt, tend=None, ref="auto", integrator=None):
    """Run a fixed-step co-simulation (cosa simulate --scheme S --dt DT
    --tend T [--ref fine] [--integrator I]); FMU subsystems of a model file
    run the FMU itself.  Returns a Simulation (arrays owned by numpy)."""
    m = _model(model)
    sch = _text(scheme, "scheme")
    dtv = _real(dt, "dt", positive=True)
    te = _real(tend, "tend", positive=True) if tend is not None else 0.0
    if ref not in _REFS:
        raise Error("ref must be auto, fine or none, got %r" % (ref,))
    o = ffi.new("cosa_case_sim_opts *")
    o.ref = getattr(lib, _REFS[ref])
    ib = ffi.new("char[]", _text(integrator, "integrator")) if integrator is not None else None
    o.integrator = ib if ib is not None else ffi.NULL
    err = ffi.new("char[]", _ERRSIZE)
    out = ffi.new("cosa_case_sim **")
    def call():  # the result owned at once: freed also if Ctrl-C drops it
        st = lib.cosa_case_simulate(m._case, sch, dtv, te, o, out, err, _ERRSIZE)
        return st, ffi.gc(out[0], lib.cosa_case_sim_free) if st == lib.COSA_OK else None

    st, s = _interruptible(call, m, alive=(ib,))
    _check(st, err)
    try:
        run = s.run
        f = run.fixed
        N = f.nsteps + 1
        ny = f.ny

        def block(p):
            return np.frombuffer(ffi.buffer(p, ny * N * 8), dtype=np.float64).reshape(N, ny).T.copy()

        t = np.frombuffer(ffi.buffer(f.t, N * 8), dtype=np.float64).copy()
        names = [ffi.string(s.yname[k]).decode() for k in range(s.ny)]
        cols = {}
        for pre, p in (("y.", f.y), ("ybar.", f.ybar), ("ref.", f.yref)):
            if p != ffi.NULL:
                b = block(p)
                for k, nm in enumerate(names):
                    cols[pre + nm] = b[k]
        r = run.run
        stats = {"steps": int(r.steps), "rejected": int(r.rejected),
                 "attempts": int(r.attempts), "h_min": r.h_min, "h_mean": r.h_mean,
                 "h_max": r.h_max, "seconds": r.seconds}
        status = ffi.string(lib.cosa_run_status_name(run.status)).decode()
        return Simulation(t=t, columns=cols, outputs=["y." + n for n in names],
                          e_global=run.e_global, status=status,
                          reason=ffi.string(run.reason).decode() or None,
                          reference=ffi.string(s.reference).decode(), stats=stats,
                          defect_out=f.defect_out, defect_conn=f.defect_conn,
                          scheme=scheme, dt=dtv, steps_done=int(f.ndone))
    finally:
        ffi.release(s)


def plot_map(g, ax=None, level=None, **kw):
    """Draw a two-parameter Map with matplotlib: the contour metric = level
    (rho = 1, the stability border, by default) over the axes, shaded where
    the metric is above it; log axes where the grid is log-spaced.  Returns
    the matplotlib Axes.  Needs matplotlib (python3-matplotlib)."""
    if not isinstance(g, Map) or g.ndim != 2 or g.yname is None:
        raise Error("plot_map needs a two-parameter cosa.map result")
    try:
        import matplotlib.pyplot as plt
    except ImportError as e:
        raise Error("plot_map needs matplotlib (apt-get install python3-matplotlib): %s" % e)
    lev = level if level is not None else (g.level if g.level is not None else 1.0)
    if ax is None:
        ax = plt.figure().add_subplot()
    z = np.asarray(g)
    ax.contourf(g.x, g.y, np.where(np.isfinite(z), z, np.nanmax(z) if np.isfinite(z).any()
                                   else 0.0) > lev, levels=[0.5, 1.5], colors=["0.85"])
    ax.contour(g.x, g.y, z, levels=[lev], colors=["k"], **kw)
    for axis, v, setter in ((g.x, g.x, ax.set_xscale), (g.y, g.y, ax.set_yscale)):
        if len(v) > 2 and np.all(v > 0) and not np.allclose(np.diff(v), np.diff(v)[0]):
            setter("log")
    ax.set_xlabel(g.xname)
    ax.set_ylabel(g.yname)
    ax.set_title("%s, %s = %g, dt = %g" % (g.scheme, g.metric, lev, g.dt))
    return ax
