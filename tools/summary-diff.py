"""tools/summary-diff.py OLD.csv NEW.csv -- the rows of two summary.csv tables (kb-aggregate)
that differ, keyed by (model, level, condition), over the columns both have; rows only one has
are counted, and listed with --all. Exit 0 when no common row differs, 1 otherwise, 2 on bad usage.
Used to check that `make report` on archived artifacts still gives the archived tables:
    make report PROBLEM=<the archive's problems> ARTIFACTS=results/2026-11-29-demo-models/artifacts TABLES_DIR=/tmp/t PROTOCOL=paper
    python3 tools/summary-diff.py results/2026-11-29-demo-models/tables/paper/summary.csv /tmp/t/summary.csv
"""
import csv
import sys


def rows(path):
    with open(path, newline="") as f:
        r = list(csv.DictReader(f))
    return {(x["model"], x["level"], x["condition"]): x for x in r}, (list(r[0].keys()) if r else [])


def main(argv):
    args = [a for a in argv if a != "--all"]
    if len(args) != 2 or "-h" in argv or "--help" in argv:
        sys.stderr.write(__doc__)
        return 2
    old, oc = rows(args[0])
    new, nc = rows(args[1])
    common = [c for c in oc if c in nc]
    print(f"{len(old)} rows in {args[0]}, {len(new)} in {args[1]}; columns only in the first: "
          f"{[c for c in oc if c not in nc] or 'none'}, only in the second: {[c for c in nc if c not in oc] or 'none'}")
    only_old = sorted(set(old) - set(new))
    only_new = sorted(set(new) - set(old))
    print(f"rows only in the first: {len(only_old)}, only in the second: {len(only_new)}")
    if "--all" in argv:
        for k in only_old:
            print("  only first:", ",".join(k))
        for k in only_new:
            print("  only second:", ",".join(k))
    n = 0
    for k in sorted(set(old) & set(new)):
        d = [(c, old[k][c], new[k][c]) for c in common if old[k][c] != new[k][c]]
        if d:
            n += 1
            print(",".join(k) + ": " + "; ".join(f"{c} {a} -> {b}" for c, a, b in d))
    print(f"common rows that differ: {n} of {len(set(old) & set(new))}")
    return 1 if n else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
