"""Fixtures of the Python suite: the command line of the same build (COSA),
a scratch directory, the test FMUs (COSA_FMUDIR)."""
import os
import subprocess

import pytest


@pytest.fixture(scope="session")
def cli():
    """run(*args) -> stdout of the build's cosa command (exit 0 required)."""
    exe = os.environ.get("COSA", "analysis/cosa")

    def run(*args, check=True):
        p = subprocess.run([exe] + [str(a) for a in args], capture_output=True, text=True)
        if check:
            assert p.returncode == 0, p.stderr
        return p
    return run


@pytest.fixture(scope="session")
def fmudir():
    d = os.path.abspath(os.environ.get("COSA_FMUDIR", "tests/fmu"))
    assert os.path.exists(os.path.join(d, "twomass1_fmi3.fmu")), "test FMUs not built in " + d
    return d


@pytest.fixture()
def netfile(tmp_path, fmudir):
    """The two-mass oscillator as two FMUs (FMI 3.0), a model file."""
    p = tmp_path / "net.cosa"
    p.write_text("model twomass-fmu\ntend 0.3\n"
                 "fmu I = %s/twomass1_fmi3.fmu\nfmu II = %s/twomass2_fmi3.fmu\n"
                 "connect I.s1 -> II.s1\nconnect I.v1 -> II.v1\nconnect II.Fk -> I.Fk\n"
                 % (fmudir, fmudir))
    return p
