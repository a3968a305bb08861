"""test-report.py SOURCE_DIR: report.py on CSVs of random numbers in
bench-reduce's two formats. Each Markdown cell must be the CSV's ratio of
its row and column, to two places; the plots must be PNG files (where
matplotlib is installed; skipped otherwise, as in CI)."""
import csv
import os
import random
import subprocess
import sys
import tempfile

report = os.path.join(sys.argv[1], "tests", "bench", "report.py")
sizes = [4096 << (2 * k) for k in range(6)]
rng = random.Random()
failures = []


def check(condition, what):
    if not condition:
        failures.append(what)
        print("FAIL:", what)


def run(*args):
    return subprocess.run([sys.executable, report, *args], capture_output=True, text=True,
                          timeout=120)


def table(path):
    """{(first cells...): [cells]} of a Markdown table, header rows left out."""
    rows = {}
    with open(path) as f:
        for line in f.read().splitlines()[2:]:
            cells = [c.strip() for c in line.strip("|").split("|")]
            rows[tuple(cells[:2])] = cells[2:]
    return rows


try:
    import matplotlib  # noqa: F401
    have_plots = True
except ImportError:
    have_plots = False
    print("plots not tested: no matplotlib")

with tempfile.TemporaryDirectory() as d:
    single = os.path.join(d, "single.csv")
    want = {}
    with open(single, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["case", "input", "bytes", "gbps", "cub_sum_gbps", "ratio_cub_sum",
                    "cub_equivalent", "cub_equivalent_gbps", "ratio_cub_equivalent",
                    "copy_gbps", "check"])
        for case, inp in (("sum", "int32"), ("mean_var", "float32")):
            for b in sizes:
                ratio = float("%.4f" % rng.uniform(0.3, 2.5))  # as the CSV has it
                cub = rng.uniform(1, 4000)
                want[(case, inp, b)] = ratio
                w.writerow([case, inp, b, "%.2f" % (ratio * cub), "%.2f" % cub, "%.4f" % ratio,
                            "yes", "%.2f" % cub, "%.4f" % ratio, "%.2f" % (2 * cub), "ok"])
    p = run(single, "--markdown", os.path.join(d, "single.md"),
            *(["--plot", os.path.join(d, "single.png")] if have_plots else []))
    check(p.returncode == 0, f"report.py single: {p.returncode} {p.stderr}")
    got = table(os.path.join(d, "single.md"))
    for (case, inp, b), ratio in want.items():
        cells = got.get((case, inp))
        check(cells is not None and cells[sizes.index(b)] == "%.2f" % ratio,
              f"single {case} {inp} {b}: {cells} lacks {ratio:.2f}")

    channels = os.path.join(d, "channels.csv")
    want = {}
    with open(channels, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["monoid", "input", "channels", "bytes", "gbps", "single_gbps", "ratio",
                    "check"])
        for monoid, inp in (("sum", "float32"), ("sumsq", "int32")):
            for c in (2, 6, 1024):
                for b in sizes:
                    ratio = float("%.4f" % rng.uniform(0.4, 1.3))
                    want[(monoid, inp, c, b)] = ratio
                    w.writerow([monoid, inp, c, b, "%.2f" % (ratio * 100), "100.00",
                                "%.4f" % ratio, "ok"])
    p = run(channels, "--markdown", os.path.join(d, "channels.md"),
            *(["--plot", os.path.join(d, "channels.png")] if have_plots else []))
    check(p.returncode == 0, f"report.py channels: {p.returncode} {p.stderr}")
    got = table(os.path.join(d, "channels.md"))
    for (monoid, inp, c, b), ratio in want.items():
        cells = got.get((f"{monoid}, {inp}", str(c)))
        check(cells is not None and cells[sizes.index(b)] == "%.2f" % ratio,
              f"channels {monoid} {inp} {c} {b}: {cells} lacks {ratio:.2f}")

    if have_plots:
        for name in ("single.png", "channels.png"):
            with open(os.path.join(d, name), "rb") as f:
                head = f.read(8)
            check(head == b"\x89PNG\r\n\x1a\n", f"{name}: {head!r} is not a PNG")

if failures:
    print("report.py: FAILED")
    sys.exit(1)
print("report.py: ok")
