"""The Python package against the command line: the same numbers, bit for bit
(every float compared as its %.17g text, which reads back to the same double),
the errors as cosa.Error with the command's one-line message, no leak, Ctrl-C."""
import json
import math
import os
import re
import signal
import subprocess
import sys
import textwrap
import threading
import time

import numpy as np
import pytest

import cosa


def g17(v):
    """A double as the command line prints computed values (%.17g)."""
    if isinstance(v, float) and math.isnan(v):
        return "nan"
    if isinstance(v, float) and math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return "%.17g" % v


def pairs(text):
    """'name value' lines of point/limit/simulate as a dict of strings."""
    out = {}
    for line in text.splitlines():
        k, _, v = line.partition(" ")
        out.setdefault(k, v)
    return out


# ---- point ------------------------------------------------------------------

@pytest.mark.parametrize("scheme,dt,sets", [
    ("zoh", 1e-3, {}), ("foh+mbcorr", 1e-3, {"ck": 1e6, "dk": 400}),
    ("gs:soh", 2e-3, {}), ("p3+ocorr", 5e-4, {"m1": 3}), ("zoh", 4e-3, {}),
    ("imp:foh", 1e-3, {})])
def test_point_is_cli(cli, scheme, dt, sets):
    m = cosa.Model("twomass", **sets)
    r = cosa.point(m, scheme=scheme, dt=dt)
    args = ["point", "--scheme", scheme, "--dt", repr(dt)]
    for k, v in sets.items():
        args += ["--set", "%s=%r" % (k, v)]
    c = pairs(cli(*args).stdout)
    for k in ("rho", "rho_ref", "e_global", "e_local", "e_local_ref"):
        assert g17(getattr(r, k)) == c[k], k
    assert ("yes" if r.stable else "no") == c["stable"]
    assert str(r.nsteps) == c["nsteps"]
    if "growth" in c:
        assert g17(r.growth) == c["growth"]
    if scheme.startswith("imp:"):
        for k in ("rho_iter", "relax_opt", "rho_iter_opt"):
            assert g17(getattr(r, k)) == c[k], k


def test_point_model_file_of_fmus(cli, netfile):
    r = cosa.point(cosa.Model.from_file(netfile), "foh+mbcorr", 1e-3)
    c = pairs(cli("point", "--model-file", netfile, "--scheme", "foh+mbcorr",
                  "--dt", "1e-3").stdout)
    assert g17(r.rho) == c["rho"] and g17(r.e_global) == c["e_global"]


def test_point_note_where_nrmse_undefined(cli):
    r = cosa.point(cosa.Model("twomass"), "zoh", 0.3)
    c = pairs(cli("point", "--scheme", "zoh", "--dt", "0.3").stdout)
    assert math.isnan(r.e_global) and r.note == c["note"]


# ---- phi ----------------------------------------------------------------------

@pytest.mark.parametrize("scheme,exact", [("zoh", False), ("foh+mbcorr", False),
                                          ("soh", True)])
def test_phi_is_cli(cli, scheme, exact):
    m = cosa.Model("twomass")
    P = cosa.phi(m, scheme=scheme, dt=1e-3, exact=exact)
    out = cli("phi", "--scheme", scheme, "--dt", "1e-3", *(["--ref"] if exact else [])).stdout
    rows = [l.split() for l in out.splitlines() if l and not l.startswith("#")]
    assert P.shape == (len(rows), len(rows)) and P.dtype == np.float64
    assert [[g17(v) for v in row] for row in P.tolist()] == rows
    assert "dim %d" % P.shape[0] in out
    lay = P.layout
    assert lay["dim"] == P.shape[0] and lay["x"] == slice(0, lay["nx"])


def test_phi_layout_blocks_cover_z():
    P = cosa.phi(cosa.Model("twomass"), "foh+mbcorr", 1e-3)
    L = P.layout
    idx = []
    for k, v in L.items():
        if isinstance(v, slice):
            idx += list(range(L["dim"]))[v]
    assert sorted(idx) == list(range(L["dim"]))  # the blocks tile z exactly once
    assert "du" in L and "y1" in L


# ---- limit --------------------------------------------------------------------

@pytest.mark.parametrize("scheme,crit", [("zoh", "stable"), ("foh", "accurate"),
                                         ("soh+mbcorr", "local")])
def test_limit_is_cli(cli, scheme, crit):
    lim = cosa.limit(cosa.Model("twomass"), scheme=scheme, criterion=crit, tol=1e-2)
    c = pairs(cli("limit", "--scheme", scheme, "--criterion", crit, "--tol", "1e-2").stdout)
    assert g17(lim.dt_max) == c["dt_max"]
    cr = ",".join("%.6g:%s" % x for x in lim.crossings) or "none"
    assert cr == c["crossings"]
    assert ("yes" if lim.monotone else "no") == c["monotone"]
    assert str(lim.evaluations) == c["evaluations"]
    assert float(lim) == lim.dt_max


# ---- map ----------------------------------------------------------------------

def read_dat(path):
    rows = [l.split() for l in open(path) if l.strip() and not l.startswith("#")]
    return rows


@pytest.mark.parametrize("metric,threads", [("rho", 1), ("rho", 2), ("e_global", 2)])
def test_map_is_cli(cli, tmp_path, metric, threads):
    m = cosa.Model("twomass")
    g = cosa.map(m, scheme="foh", dt=1e-3, metric=metric, threads=threads,
                 x=("ck", 1, 1e10, "log", 9), y=("dk", 1, 1e7, "log", 7))
    assert g.shape == (7, 9) and len(g.x) == 9 and len(g.y) == 7
    cli("map", "--x", "ck=1:1e10:log:9", "--y", "dk=1:1e7:log:7", "--dt", "1e-3",
        "--scheme", "foh", "--metric", metric, "--threads", threads, "-o", tmp_path)
    rows = read_dat(tmp_path / ("%s_foh.dat" % metric))
    assert len(rows) == 63
    k = 0
    for ix in range(9):            # x-major, as the data file
        for iy in range(7):
            x, y, dt, v = rows[k]
            assert (g17(g.x[ix]), g17(g.y[iy]), g17(g[iy, ix])) == (x, y, v), (ix, iy)
            k += 1


def test_map_one_axis_and_assumed():
    m = cosa.Model("twomass", ck=1e6)
    g = cosa.map(m, "foh+mbcorr", 1e-3, x=("assume.ck", 1e5, 1e7, "log", 5))
    assert g.shape == (1, 5)
    # the assumed ck equal to the true one (1e6, the grid's middle) is the
    # point result of the true model, bit for bit
    assert g[0, 2] == cosa.point(m, "foh+mbcorr", 1e-3).rho


def test_map_in_pieces_is_the_whole_map():
    """More than one piece of rows (1024 points each): the same values as
    point by point."""
    m = cosa.Model("twomass")
    g = cosa.map(m, "zoh", 1e-3, x=("ck", 1e3, 1e8, "log", 70), y=("dk", 1, 1e5, "log", 70))
    for ix, iy in ((0, 0), (69, 69), (58, 3), (59, 3)):
        p = cosa.point(cosa.Model("twomass", ck=g.x[ix], dk=g.y[iy]), "zoh", 1e-3)
        assert g[iy, ix] == p.rho


# ---- advise -------------------------------------------------------------------

def test_advise_is_cli_json(cli):
    a = cosa.advise(cosa.Model("twomass"), tol=1e-3)
    j = json.loads(cli("advise", "--tol", "1e-3", "--format", "json").stdout)
    for k in ("model", "error", "tol", "tend", "dt_range", "cost_mbcorr", "robust", "fmus",
              "notes", "recommendation"):
        assert a[k] == j[k], k
    assert a["candidates"] == j["candidates"]


def test_advise_fmus_is_cli_json(cli, fmudir, tmp_path):
    """A network with the gain FMU of input smoothness 1: the capability list
    and the candidates it cannot run (ranked last), as advise's JSON."""
    p = tmp_path / "gain.cosa"
    p.write_text("model gainnet\ntend 0.3\nfmu I = %s/twomass1_fmi3.fmu\n"
                 "fmu G = %s/gainsmooth_fmi3.fmu\nfmu II = %s/twomass2_fmi3.fmu\n"
                 "connect I.s1 -> G.u\nconnect G.y -> II.s1\nconnect I.v1 -> II.v1\n"
                 "connect II.Fk -> I.Fk\n" % (fmudir, fmudir, fmudir))
    sch = "zoh,soh,foh+mbcorr"
    a = cosa.advise(cosa.Model.from_file(p), tol=1e-2, schemes=sch)
    j = json.loads(cli("advise", "--model-file", p, "--tol", "1e-2", "--schemes", sch,
                       "--format", "json").stdout)
    assert a["fmus"] == j["fmus"] and len(a["fmus"]) == 3
    assert a["candidates"] == j["candidates"] and a["notes"] == j["notes"]
    assert not all(c["runnable"] for c in a["candidates"])
    assert a["recommendation"] == j["recommendation"]


def test_advise_schemes_and_local(cli):
    a = cosa.advise(cosa.Model("twomass", ck=1e5), tol=1e-2, error="local",
                    schemes=["zoh", "foh+mbcorr", "gs:foh"])
    j = json.loads(cli("advise", "--set", "ck=1e5", "--tol", "1e-2", "--error", "local",
                       "--schemes", "zoh,foh+mbcorr,gs:foh", "--format", "json").stdout)
    assert a["candidates"] == j["candidates"] and a["notes"] == j["notes"]


# ---- simulate -----------------------------------------------------------------

def csv_rows(path):
    lines = [l.strip() for l in open(path) if not l.startswith("#")]
    head = lines[0].split(",")
    return head, [l.split(",") for l in lines[1:]]


def check_sim(cli, s, tmp_path, args):
    out = pairs(cli("simulate", *args, "-o", tmp_path).stdout)
    assert g17(s.e_global) == out["e_global"] and s.reference == out["reference"]
    assert s.status == out["status"]
    csv = [f for f in os.listdir(tmp_path) if f.endswith(".csv")][0]
    head, rows = csv_rows(tmp_path / csv)
    for name in s.outputs + [o.replace("y.", "ybar.", 1) for o in s.outputs]:
        col = head.index(name)
        assert [g17(v) for v in s[name][-len(rows):]] == [r[col] for r in rows], name
    tcol = [r[0] for r in rows]
    assert [g17(v) for v in s.t[-len(rows):]] == tcol


def test_simulate_is_cli(cli, tmp_path):
    s = cosa.simulate(cosa.Model("twomass", ck=1e5), scheme="zoh", dt=1e-4, tend=0.05)
    assert s.stats["steps"] == 500 and s.stats["rejected"] == 0
    check_sim(cli, s, tmp_path, ["--set", "ck=1e5", "--scheme", "zoh", "--dt", "1e-4",
                                 "--tend", "0.05"])


def test_simulate_fmus_is_cli(cli, tmp_path, netfile):
    s = cosa.simulate(cosa.Model.from_file(netfile), scheme="foh+mbcorr", dt=1e-3, tend=0.1)
    assert "y.I.s1" in s.keys()
    check_sim(cli, s, tmp_path, ["--model-file", netfile, "--scheme", "foh+mbcorr", "--dt",
                                 "1e-3", "--tend", "0.1"])


def test_simulate_nonlinear_model(cli, tmp_path):
    s = cosa.simulate(cosa.Model("twomass-nl"), scheme="foh", dt=1e-3, tend=0.05)
    check_sim(cli, s, tmp_path, ["--model", "twomass-nl", "--scheme", "foh", "--dt", "1e-3",
                                 "--tend", "0.05"])


def test_simulate_ref_none_is_cli(cli, tmp_path, netfile):
    # no reference: no error figures (NaN here, no e_global line there), the
    # same trajectory as `cosa simulate --ref none` (ZOH starts at t = 0 from
    # the units' own states either way)
    s = cosa.simulate(cosa.Model.from_file(netfile), scheme="zoh", dt=1e-3, tend=0.1, ref="none")
    out = pairs(cli("simulate", "--model-file", netfile, "--scheme", "zoh", "--dt", "1e-3",
                    "--tend", "0.1", "--ref", "none", "-o", tmp_path).stdout)
    assert math.isnan(s.e_global) and "e_global" not in out
    assert s.reference == out["reference"] == "none" and s.status == out["status"]
    csv = [f for f in os.listdir(tmp_path) if f.endswith(".csv")][0]
    head, rows = csv_rows(tmp_path / csv)
    for name in s.outputs:
        col = head.index(name)
        assert [g17(v) for v in s[name][-len(rows):]] == [r[col] for r in rows], name


# ---- models -------------------------------------------------------------------

def test_models_is_cli(cli):
    ms = cosa.models()
    names = [mt.group(1) for mt in (re.match(r"([a-z0-9-]+): ", l)
                                     for l in cli("models").stdout.splitlines()) if mt]
    assert list(ms)[:len(names)] == names[:len(ms)] and "twomass" in ms
    assert ms["twomass"]["params"]["ck"]["value"] == cosa.Model("twomass").params["ck"]
    assert ms["twomass"]["linear"] and not ms["twomass-nl"]["linear"]


# ---- errors -------------------------------------------------------------------

@pytest.mark.parametrize("call,args", [
    ("point", ["--scheme", "bogus", "--dt", "1e-3"]),
    ("point", ["--model", "nomodel", "--scheme", "zoh", "--dt", "1e-3"]),
    ("point", ["--set", "nope=1", "--scheme", "zoh", "--dt", "1e-3"]),
    ("point", ["--set", "m1=-1", "--scheme", "zoh", "--dt", "1e-3"]),
    ("point", ["--scheme", "zoh", "--dt", "1"]),
])
def test_errors_are_the_cli_line(cli, call, args):
    p = cli(call, *args, check=False)
    assert p.returncode == 2
    want = p.stderr.strip().split(": ", 2)[2]
    kw = {}
    name = "twomass"
    scheme, dt = "zoh", 1e-3
    for k, v in zip(args[::2], args[1::2]):
        if k == "--scheme":
            scheme = v
        elif k == "--dt":
            dt = float(v)
        elif k == "--model":
            name = v
        elif k == "--set":
            kk, vv = v.split("=")
            kw[kk] = float(vv)
    with pytest.raises(cosa.Error) as e:
        cosa.point(cosa.Model(name, **kw), scheme, dt)
    # the command names its options (--dt), the call its arguments (dt)
    assert str(e.value) == want.replace("--dt", "dt").replace("--tend", "tend")
    assert isinstance(e.value, ValueError) and "\n" not in str(e.value)


@pytest.mark.parametrize("call", [
    lambda m: cosa.point(m, "zoh", float("nan")),
    lambda m: cosa.point(m, "zoh", -1e-3),
    lambda m: cosa.point(m, "zoh", "1e-3"),
    lambda m: cosa.point(m, 3, 1e-3),
    lambda m: cosa.point("twomass", "zoh", 1e-3),
    lambda m: cosa.point(m, "zoh\0", 1e-3),
    lambda m: cosa.point(m, "zoh", 1e-3, tend=float("inf")),
    lambda m: cosa.phi(m, "zoh", 1e300),
    lambda m: cosa.map(m, "zoh", 1e-3, x=("ck", 1, 10, "log", -5)),
    lambda m: cosa.map(m, "zoh", 1e-3, x=("ck", 1, 10, "log", 0)),
    lambda m: cosa.map(m, "zoh", 1e-3, x=("ck", -1, 10, "log", 5)),
    lambda m: cosa.map(m, "zoh", 1e-3, x=("nope", 1, 10, "log", 5)),
    lambda m: cosa.map(m, "zoh", 1e-3, x=("ck", 1, 10, "log", 5), y=("ck", 1, 10, "log", 5)),
    lambda m: cosa.map(m, "zoh", 1e-3, x=("ck", 1, 10, "cubic", 5)),
    lambda m: cosa.map(m, "zoh", 1e-3, x=("ck", 1, 10, "log", 5), metric="nope"),
    lambda m: cosa.map(m, "zoh", 1e-3, x=("ck", 1, 10, "log", 5), threads=-1),
    lambda m: cosa.map(m, "zoh", 1e-3, x="ck"),
    lambda m: cosa.limit(m, "zoh", criterion="fast"),
    lambda m: cosa.limit(m, "zoh", dt_min=1e-2, dt_max=1e-3),
    lambda m: cosa.limit(m, "zoh", criterion="iteration"),
    lambda m: cosa.advise(m, tol=-1),
    lambda m: cosa.advise(m, tol=1e-3, schemes="zoh,bogus"),
    lambda m: cosa.simulate(m, "zoh", 1e-3, tend=1e9),
    lambda m: cosa.simulate(m, "zoh", 1e-3, integrator="magic"),
    lambda m: cosa.Model("twomass", m1=float("nan")),
    lambda m: cosa.Model(None),
    lambda m: cosa.Model.from_file("/nonexistent/net.cosa"),
    lambda m: m.set("ck", None),
])
def test_bad_arguments_raise_error(call):
    with pytest.raises(cosa.Error) as e:
        call(cosa.Model("twomass"))
    assert str(e.value) and "\n" not in str(e.value)


def test_nonlinear_model_has_no_phi():
    with pytest.raises(cosa.Error, match="nonlinear"):
        cosa.phi(cosa.Model("twomass-nl"), "zoh", 1e-3)


# ---- memory, threads, Ctrl-C --------------------------------------------------

def rss_kb():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") // 1024


def test_no_leak_over_10000_calls():
    """10,000 calls (models, Phi, one-point maps, failed calls, points) after
    a warm-up of 1,000: the resident size settles; a leak of one Phi (7 x 7
    doubles, 392 bytes) per Phi call alone would add 1 MB."""
    def calls(n):
        k = 0
        while k < n:
            m = cosa.Model("twomass", ck=1e6 + k)
            cosa.phi(m, "foh+mbcorr", 1e-3)
            cosa.map(m, "zoh", 1e-3, x=("dk", 1, 2, "lin", 1))
            try:
                cosa.point(m, "bogus", 1e-3)
            except cosa.Error:
                pass
            k += 4
            if k % 40 == 0:
                cosa.point(m, "zoh", 1e-2)
                k += 1
    calls(1000)
    before = rss_kb()
    calls(10000)
    grown = rss_kb() - before
    assert grown < 512, "resident size grew by %d kB over 10,000 calls" % grown


def test_simulation_arrays_own_their_memory():
    s = cosa.simulate(cosa.Model("twomass"), "zoh", 1e-3, tend=0.01)
    t = s.t
    del s
    assert t.flags.owndata or t.base is not None
    assert t[-1] == pytest.approx(0.01, rel=1e-12)


def test_calls_release_the_gil():
    """While a long advise runs in a thread, the main thread keeps running
    Python code."""
    m = cosa.Model("twomass")
    done = threading.Event()

    def work():
        cosa.advise(m, tol=1e-3, schemes="p3,p3+mbcorr,soh", per_decade=40)
        done.set()
    t = threading.Thread(target=work)
    t.start()
    ticks = 0
    while not done.is_set():
        ticks += 1
        time.sleep(0.001)
    t.join()
    # with the GIL held through the C call the main thread could not run a
    # single bytecode until it returned (at most the tick before the thread
    # took the GIL); the call takes ~0.1-0.5 s, hundreds of 1 ms sleeps, so a
    # few ticks show the release even on a loaded machine
    assert ticks >= 3


def _sigint_default():
    """In the child: SIGINT back to its default.  A shell that starts a job
    in the background without job control (`cmd &` in a script, nohup ...
    &) ignores SIGINT for it, the ignoring is inherited, and Python installs
    no KeyboardInterrupt handler for a signal it finds ignored."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


# After the KeyboardInterrupt the child reports whether the model is free
# (its lock: held by a call that still runs), then exits at once: the
# interrupted call has stopped (the library's cancellation flag) and the
# wrapper waited for it, so the exit is clean -- status 0, nothing on stderr
# (before the flag, a process that ended under a call still running could
# see OpenBLAS print "BLAS : Bad memory unallocation!" or crash at exit).
_EXIT_AT_ONCE = """
import sys
print("free %d" % m._lock.acquire(blocking=False), flush=True)
sys.exit(0)
"""


def _interrupt(code, wait):
    """Run code in a child, SIGINT it `wait` s after it printed "start";
    returns (the line after the interrupt, seconds to it, the rest of
    stdout, stderr, exit status)."""
    p = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, env=dict(os.environ),
                         preexec_fn=_sigint_default)
    assert p.stdout.readline().strip() == "start"
    time.sleep(wait)
    t0 = time.time()
    p.send_signal(signal.SIGINT)
    line = p.stdout.readline().strip()
    dt = time.time() - t0
    # (read, not communicate: readline may have buffered the rest of stdout)
    out, err = p.stdout.read(), p.stderr.read()
    return line, dt, out, err, p.wait(timeout=600)


def test_ctrl_c_interrupts_a_long_map():
    """SIGINT to a process running a map of 9e6 points (minutes of CPU):
    KeyboardInterrupt at once, the call stopped and joined, a clean exit."""
    code = textwrap.dedent("""
        import cosa, sys
        m = cosa.Model("twomass")
        print("start", flush=True)
        try:
            g = cosa.map(m, "soh+mbcorr", 1e-3,
                         x=("ck", 1, 1e10, "log", 3000), y=("dk", 1, 1e7, "log", 3000), threads=1)
            print("finished", flush=True)
        except KeyboardInterrupt:
            print("interrupted", flush=True)
    """) + _EXIT_AT_ONCE
    line, dt, out, err, rc = _interrupt(code, 1.0)
    # the map takes minutes of CPU, a grid point well under a millisecond:
    # 30 s tells an interrupt from a finish, also on a loaded machine
    assert line == "interrupted" and dt < 30, (line, dt)
    assert out == "free 1\n" and err == "" and rc == 0, (out, err, rc)


def test_ctrl_c_interrupts_a_long_call():
    """The same for a long advise (several seconds of CPU): its limit scans
    stop at the next evaluation."""
    code = textwrap.dedent("""
        import cosa
        m = cosa.Model("twomass")
        print("start", flush=True)
        try:
            cosa.advise(m, tol=1e-3, per_decade=1000, dt_min=1e-7)
            print("finished", flush=True)
        except KeyboardInterrupt:
            print("interrupted", flush=True)
    """) + _EXIT_AT_ONCE
    line, dt, out, err, rc = _interrupt(code, 0.5)
    # advise at 1000 points per decade over 5 decades takes several seconds
    # of CPU on this kind of machine, one evaluation well under 10 ms: 10 s
    # tells an interrupt from a finish, also on a loaded machine
    assert line == "interrupted" and dt < 10, (line, dt)
    assert out == "free 1\n" and err == "" and rc == 0, (out, err, rc)


def test_ctrl_c_interrupts_a_long_simulation():
    """The same for a simulation of 1e6 macro steps: it stops at the next
    macro step (or, during the reference, before the first)."""
    code = textwrap.dedent("""
        import cosa
        m = cosa.Model("twomass")
        print("start", flush=True)
        try:
            cosa.simulate(m, "zoh", 1e-6, tend=1.0)
            print("finished", flush=True)
        except KeyboardInterrupt:
            print("interrupted", flush=True)
    """) + _EXIT_AT_ONCE
    line, dt, out, err, rc = _interrupt(code, 0.5)
    assert line == "interrupted" and dt < 10, (line, dt)
    assert out == "free 1\n" and err == "" and rc == 0, (out, err, rc)


def test_ctrl_c_in_process_then_the_model_computes_again():
    """Ctrl-C (interrupt_main) during a long map in this process:
    KeyboardInterrupt, no worker thread left, and the model's next call
    gives the same numbers as before (the flag belonged to one call)."""
    import _thread
    m = cosa.Model("twomass")
    a = cosa.point(m, "zoh", 1e-3)
    was = signal.signal(signal.SIGINT, signal.default_int_handler)  # also when run with nohup
    timer = threading.Timer(0.5, _thread.interrupt_main)
    try:
        timer.start()
        t0 = time.time()
        with pytest.raises(KeyboardInterrupt):
            cosa.map(m, "soh+mbcorr", 1e-3, x=("ck", 1, 1e10, "log", 3000),
                     y=("dk", 1, 1e7, "log", 3000), threads=1)
        assert time.time() - t0 < 30
    finally:
        timer.cancel()
        signal.signal(signal.SIGINT, was)
    assert m._lock.acquire(blocking=False)  # the call has ended
    m._lock.release()
    b = cosa.point(m, "zoh", 1e-3)
    assert (a.rho, a.e_global, a.e_local) == (b.rho, b.e_global, b.e_local)


# ---- docs and plotting --------------------------------------------------------

def test_docstrings():
    for name in cosa.__all__:
        obj = getattr(cosa, name)
        assert obj.__doc__ and len(obj.__doc__) > 40, name
    assert "scheme" in cosa.point.__doc__ and "dt" in cosa.point.__doc__


def test_plot_map(tmp_path):
    g = cosa.map(cosa.Model("twomass"), "zoh", 1e-3, x=("ck", 1, 1e10, "log", 20),
                 y=("dk", 1, 1e7, "log", 20))
    try:
        import matplotlib
        matplotlib.use("Agg")
    except ImportError:
        with pytest.raises(cosa.Error, match="matplotlib"):
            cosa.plot_map(g)
        return
    ax = cosa.plot_map(g)
    ax.figure.savefig(tmp_path / "map.png")
    assert (tmp_path / "map.png").stat().st_size > 1000
    assert ax.get_xscale() == "log" and ax.get_xlabel() == "ck"


def test_map_against_an_independent_numpy_route():
    """rho of ZOH over a Fig 4 grid from python/bench_map.py's own numpy route
    (Van Loan by batched Taylor scaling and squaring, numpy eigvals).  The
    routes round differently: scaling and squaring loses about 2^s eps with
    s <= 21 squarings at |A dT| <= 1e6 (ck = 1e10), i.e. ~5e-10 relative;
    the bound 1e-8 leaves a factor 20."""
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
    import bench_map
    g = cosa.map(cosa.Model("twomass"), "zoh", 1e-3, x=("ck", 1, 1e10, "log", 12),
                 y=("dk", 1, 1e7, "log", 10))
    CK, DK = np.meshgrid(g.x, g.y)
    r = bench_map.rho_numpy(CK.ravel(), DK.ravel(), 1e-3).reshape(CK.shape)
    assert np.max(np.abs(r - g) / np.maximum(1.0, g)) < 1e-8
    assert (g > 1).any() and (g < 1).any()   # both sides of the border on the grid


def test_the_guide_examples_run(tmp_path, monkeypatch):
    """doc/python.md's python blocks run as written."""
    doc = os.path.join(os.path.dirname(__file__), "..", "..", "doc", "python.md")
    text = open(doc).read()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert len(blocks) >= 2
    monkeypatch.chdir(tmp_path)
    for b in blocks:
        exec(compile(b, "doc/python.md", "exec"), {})
    assert (tmp_path / "stability_zoh.png").stat().st_size > 1000


def test_threads_sharing_a_model_get_the_same_numbers():
    """Four threads on one Model (its calls are serialised) and on their own:
    the same doubles as one call alone."""
    m = cosa.Model("twomass", ck=1e6)
    want = cosa.point(m, "foh+mbcorr", 1e-3).e_global
    got = []

    def work(own):
        mm = cosa.Model("twomass", ck=1e6) if own else m
        for _ in range(5):
            got.append(cosa.point(mm, "foh+mbcorr", 1e-3).e_global)
    ts = [threading.Thread(target=work, args=(k % 2 == 0,)) for k in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert got == [want] * 20
