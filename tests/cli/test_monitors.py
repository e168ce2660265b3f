#!/usr/bin/env python3
"""Every monitor of the table (engine/formulations/mbs_monitors.h, MBS_MONITORS) reaches the CLI's
CSV history as a column with a value in every row, and the project as a samples column with the
same values (the plot board's series are checked in tests/ui/test_plot_board.c from the same
table). The keys are read from the table itself, so a monitor added there is checked here.
Prints TAP."""
import csv, math, os, re, sqlite3, subprocess, tempfile

from cli_tap import cli, done, ok, source  # noqa: E402

header = open(os.path.join(source, "engine", "formulations", "mbs_monitors.h")).read()
table = header[header.index("#define MBS_MONITORS(X)"):header.index("#define MBS_MONITOR_MEMBER_")]
keys = re.findall(r'X\(\w+,\s*(?:double|int),\s*"(\w+)"', table)
ok(len(keys) >= 16 and len(set(keys)) == len(keys),
   f"{len(keys)} monitors in the table, each key once: {', '.join(keys)}")

tmp = tempfile.mkdtemp(prefix="esl-monitors-")
history, project = os.path.join(tmp, "h.csv"), os.path.join(tmp, "p.eslabon")
r = subprocess.run([cli, "run", os.path.join(source, "models", "four-bar-spatial.json"), "--step",
                    "0.01", "--duration", "0.1", "--output", history, "--project", project],
                   capture_output=True, text=True, timeout=300)
ok(r.returncode == 0, "the four-bar runs 0.1 s " + r.stderr.strip())
rows = list(csv.DictReader(open(history))) if r.returncode == 0 else []
ok(len(rows) == 11, f"the CSV history has 11 rows ({len(rows)})")
for k in keys:
    values = [row.get(k) for row in rows]
    ok(rows and all(v not in (None, "") and math.isfinite(float(v)) for v in values),
       f"CSV: '{k}' is a column with a finite value in every row")

db = sqlite3.connect(project)
columns = {c[1] for c in db.execute("PRAGMA table_info(samples)")}
stored = db.execute("SELECT " + ", ".join(keys) + " FROM samples ORDER BY seq").fetchall() \
    if set(keys) <= columns else []
ok(set(keys) <= columns, "project: every key is a samples column "
   f"(missing: {sorted(set(keys) - columns)})")
for i, k in enumerate(keys):
    # the CSV prints each monitor with its own precision (mbs_monitors.h): relative 1e-3 covers
    # the coarsest (%.3e for timings, 4 digits), the stored value is exact
    same = len(stored) == len(rows) and all(
        abs(s[i] - float(row[k])) <= 1e-3 * abs(s[i]) + 1e-300 for s, row in zip(stored, rows))
    ok(same, f"project: '{k}' stored as the CSV shows it in all {len(stored)} samples")
db.close()
done()
