"""python3 -m ccsim: the package's command line.

    python3 -m ccsim report DIR [--out FILE]   one HTML page (DIR/report.html)
    python3 -m ccsim why DIR                   the sentence under the demo's table
    python3 -m ccsim runs DIR                  the runs table as CSV on stdout
"""
import argparse
import sys

from . import load, report, why
from .groups import PlotError
from .load import ResultsError


def main(argv):
    p = argparse.ArgumentParser(prog="python3 -m ccsim", description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("report", help="write one self-contained HTML page")
    r.add_argument("dir")
    r.add_argument("--out", help="the page (default DIR/report.html)")
    sub.add_parser("why", help="why the winner wins (a compare folder)").add_argument("dir")
    sub.add_parser("runs", help="the runs table as CSV").add_argument("dir")
    a = p.parse_args(argv)
    try:
        if a.cmd == "report":
            print(report(a.dir, a.out))
        elif a.cmd == "why":
            s = why.sentence(load(a.dir))
            if s is None:
                print(f"ccsim: {a.dir}: no sentence: it needs ecmp and another scheduler",
                      file=sys.stderr)
                return 1
            print("\n" + s)
        else:
            load(a.dir).runs.to_csv(sys.stdout, index=False)
    except (ResultsError, PlotError) as e:
        print(f"ccsim: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
