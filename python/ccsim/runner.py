"""runner.py - call the ccsim binary from Python and load what it wrote.

Not here: reading results (load.py).

Keyword arguments are the binary's options, `-` written `_`
(`run(sched="crux", topo="fat-tree:k=4", no_fast_forward=True)` runs
`ccsim run --sched=crux --topo=fat-tree:k=4 --no-fast-forward -q`): True
adds a flag, False and None leave it out, a list is joined with commas.
The binary is $CCSIM_BINARY, else build/ccsim of the repository this
package sits in, else `ccsim` on PATH.
"""
import os
import re
import shutil
import subprocess

from .load import load


class CcsimError(Exception):
    """The binary failed: its exit status and its last stderr lines."""

    def __init__(self, argv, status, stderr):
        self.argv, self.status, self.stderr = argv, status, stderr
        tail = "\n".join(stderr.strip().splitlines()[-5:])
        super().__init__(f"{' '.join(argv)} exited {status}:\n{tail}")


def binary():
    """The ccsim binary this package calls."""
    env = os.environ.get("CCSIM_BINARY")
    if env:
        return env
    here = os.path.dirname(os.path.abspath(__file__))
    built = os.path.join(here, "..", "..", "build", "ccsim")
    if os.access(built, os.X_OK):
        return os.path.normpath(built)
    found = shutil.which("ccsim")
    if not found:
        raise CcsimError(["ccsim"], 127, "no ccsim binary: build it (scripts/build.sh) or set "
                         "CCSIM_BINARY")
    return found


def _options(kw):
    argv = []
    for key, value in kw.items():
        if value is None or value is False:
            continue
        opt = "--" + key.replace("_", "-")
        if value is True:
            argv.append(opt)
        elif isinstance(value, (list, tuple)):
            argv.append(f"{opt}={','.join(str(v) for v in value)}")
        else:
            argv.append(f"{opt}={value}")
    return argv


def _call(argv, cwd=None):
    p = subprocess.run(argv, cwd=cwd, capture_output=True, text=True)
    if p.returncode != 0:
        raise CcsimError(argv, p.returncode, p.stderr)
    return p.stdout


def _folder(stdout, out):
    """The output folder: out, else the one ccsim names ("results in DIR/")."""
    if out:
        return out
    m = re.search(r"results in (\S+?)/?\s", stdout + "\n")
    if not m:
        raise CcsimError(["ccsim"], 0, "cannot tell where the results went:\n" + stdout)
    return m.group(1)


def run(out=None, quiet=True, **options):
    """`ccsim run` with options; returns load(the output folder)."""
    stdout = _call([binary(), "run"] + _options(dict(options, out=out, quiet=quiet)))
    return load(_folder(stdout, out))


def compare(out=None, scheds=None, jobs=None, quiet=True, **options):
    """`ccsim compare` (scheds: a list of scheduler names, jobs: -j);
    returns load(the output folder)."""
    argv = [binary(), "compare"] + _options(dict(options, out=out, scheds=scheds, quiet=quiet))
    if jobs is not None:
        argv += ["-j", str(jobs)]
    stdout = _call(argv)
    return load(_folder(stdout, out))


def sweep(sweep_file, out, jobs=None):
    """`ccsim sweep SWEEP_FILE --out OUT [-j JOBS]`; returns load(out)."""
    argv = [binary(), "sweep", sweep_file, "--out", out]
    if jobs is not None:
        argv += ["-j", str(jobs)]
    _call(argv)
    return load(out)
