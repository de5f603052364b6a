"""ccsim - load, run and report ccsim results in Python (docs/python.md).

    import ccsim
    res = ccsim.load("results/demo")      # a run, compare or sweep folder
    res.runs                              # one row per run: configuration, results, gains
    res.jobs, res.timeseries, res.links   # every run's file, configuration merged in
    ccsim.compare(scheds=["ecmp", "crux"], scenario="examples/scenario-4hosts.json")
    ccsim.report("results/demo")          # results/demo/report.html

Pure Python: the standard library, pandas (Debian's python3-pandas) and,
for figures and reports, matplotlib (python3-matplotlib).
"""
try:
    import pandas  # noqa: F401
except ImportError as e:  # say what to install, and for which python
    import sys
    raise ImportError(f"ccsim needs pandas, which {sys.executable} lacks: install Debian's "
                      "python3-pandas and run /usr/bin/python3") from e

from .groups import PlotError, plan  # noqa: E402
from .load import Results, ResultsError, load  # noqa: E402
from .runner import CcsimError, compare, run, sweep  # noqa: E402


def report(path, out=None, **kw):
    """Write one self-contained HTML page on the results in path (default
    PATH/report.html) and return its path (report.py)."""
    from .report import write_report
    return write_report(path, out, **kw)


__all__ = ["load", "Results", "ResultsError", "run", "compare", "sweep", "report", "plan",
           "PlotError", "CcsimError"]
