"""Command line: ``python -m tools.differential {run,compare,record-fixture,show} ...``.

See README.md in this folder.
"""

from __future__ import annotations

import argparse
import collections
import gzip
import json
import os
import sys

from . import compare, runner
from .cases import draw_cases
from .specs import SPECS

FIXTURE = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                       "tests", "differential", "fixture.json.gz")


def cmd_run(a) -> None:
    cases = draw_cases(SPECS, a.cases, a.seed, a.ops.split(",") if a.ops else None)
    if a.ids:  # a part of the run (parts made alike concatenate into the whole: see README)
        lo, hi = (int(v) for v in a.ids.split(":"))
        cases = [c for c in cases if lo <= c["id"] < hi]
    recs = runner.run_cases(a.backend, cases, workers=a.workers, limit_s=a.limit_s,
                            traced_mode=a.traced)
    by_id = {c["id"]: c for c in cases}
    with open(a.out, "w") as f:
        f.write(json.dumps({"backend": a.backend, "seed": a.seed, "cases": a.cases,
                            "ops": a.ops, "traced": a.traced}) + "\n")
        for r in recs:
            r["case"] = by_id[r["id"]]
            f.write(json.dumps(r) + "\n")
    hangs = sum("hang" in r for r in recs)
    print(f"wrote {len(recs)} records ({hangs} hangs) to {a.out}")


def cmd_compare(a) -> None:
    diffs = compare.report(a.ref, a.got, a.report, a.top, a.summary_json)
    if a.report:
        print(f"report: {a.report}")
    if a.summary_json:
        print(f"summary: {a.summary_json}")
    sys.exit(1 if diffs and a.strict else 0)


def _signature(rec: dict) -> str:
    """What kind of answer a TF record is, so a fixture keeps one of each kind per op."""
    if "error" in rec:
        return "error:" + rec["error"][0]
    dts = ",".join(o["tensor"] if o and "tensor" in o else "?" for o in rec.get("result", []))
    return f"ok:{dts}:{'grad' in rec}:{'grad2' in rec}"


def cmd_record_fixture(a) -> None:
    """Pick a representative subset of a TF results file: per op, round-robin over signatures."""
    _, recs = compare.load_records(a.ref)
    by_op: dict[str, dict[str,
                          list]] = collections.defaultdict(lambda: collections.defaultdict(list))
    for r in recs:
        if "hang" not in r:
            by_op[r["op"]][_signature(r)].append(r)
    chosen = []
    for op in sorted(by_op):
        groups = list(by_op[op].values())
        picked, k = [], 0
        while len(picked) < a.per_op and any(k < len(g) for g in groups):
            picked += [g[k] for g in groups if k < len(g)]
            k += 1
        chosen += picked[: a.per_op]
    if a.report:  # also keep a few cases of every difference the report lists
        with open(a.report) as f:
            diffs = json.load(f)["diffs"]
        by_id = {r["id"]: r for r in recs}
        have = {r["id"] for r in chosen}
        per_kind = collections.Counter()
        for d in diffs:
            key = (d["op"], d["kind"])
            if per_kind[key] < a.per_difference and d["id"] not in have:
                per_kind[key] += 1
                chosen.append(by_id[d["id"]])
                have.add(d["id"])
    chosen.sort(key=lambda r: r["id"])
    data = {"about": "TensorFlow 2.21's answers for tools/differential cases "
                     "(python -m tools.differential record-fixture)",
            "records": chosen}
    with gzip.open(a.out, "wt", compresslevel=9) as f:
        json.dump(data, f, separators=(",", ":"))
    print(f"wrote {len(chosen)} cases over {len(by_op)} ops to {a.out} "
          f"({os.path.getsize(a.out) / 1e6:.2f} MB)")


def cmd_show(a) -> None:
    """Print the case and both records for a case id: a reproducer."""
    _, ref = compare.load_records(a.ref)
    got = {r["id"]: r for r in compare.load_records(a.got)[1]} if a.got else {}
    for r in ref:
        if r["id"] in a.ids:
            c = r["case"]
            print(compare.reproducer(c))
            print(f"#{c['id']} {c['op']}(*{compare.describe(c['args'])}, "
                  f"**{ {k: compare.describe(v) for k, v in c['kwargs'].items()} })")
            print("  TF:      ", json.dumps({k: v for k, v in r.items() if k != "case"})[:1500])
            if r["id"] in got:
                g = {k: v for k, v in got[r["id"]].items() if k != "case"}
                print("  tapeflow:", json.dumps(g)[:1500])


def main(argv=None) -> None:
    p = argparse.ArgumentParser(prog="python -m tools.differential")
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="draw cases and run them in one backend")
    r.add_argument("--backend", choices=("tensorflow", "tapeflow"), required=True)
    r.add_argument("--cases", type=int, default=20000)
    r.add_argument("--seed", type=int, default=0)
    r.add_argument("--ops", help="comma-separated op paths (default: all)")
    r.add_argument("--workers", type=int, default=2)
    r.add_argument("--limit-s", type=float, default=30.0, help="per-case time limit")
    r.add_argument("--ids", help="LO:HI: run only the cases with LO <= id < HI")
    r.add_argument("--traced", action="store_true",
                   help="run each op inside tf.function (the compiled path)")
    r.add_argument("--out", required=True)
    c = sub.add_parser("compare", help="compare a tapeflow results file with TF's")
    c.add_argument("ref", help="TF results file")
    c.add_argument("got", help="tapeflow results file")
    c.add_argument("--report", help="write the differing cases as JSON here")
    c.add_argument("--top", type=int, default=40)
    c.add_argument("--strict", action="store_true", help="exit 1 if anything differs")
    c.add_argument("--summary-json", help="write the counts by kind (and by op) as JSON here")
    f = sub.add_parser("record-fixture", help="store a subset of TF's answers for the CI test")
    f.add_argument("ref", help="TF results file (from run --backend tensorflow)")
    f.add_argument("--per-op", type=int, default=16)
    f.add_argument("--out", default=FIXTURE)
    f.add_argument("--report", help="a compare --report: keep a few cases of each difference")
    f.add_argument("--per-difference", type=int, default=3)
    s = sub.add_parser("show", help="print cases and records by id")
    s.add_argument("ref")
    s.add_argument("got", nargs="?")
    s.add_argument("--ids", type=lambda v: [int(x) for x in v.split(",")], required=True)
    a = p.parse_args(argv)
    {"run": cmd_run, "compare": cmd_compare, "record-fixture": cmd_record_fixture,
     "show": cmd_show}[a.cmd](a)


if __name__ == "__main__":
    main()
