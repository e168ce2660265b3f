#!/usr/bin/env python3
"""Files and processes (issue 28): two processes creating one new project both store their
runs; failed writes (a full disk) are errors with a non-zero exit and leave nothing half-made.
Prints TAP."""
import os, sqlite3, subprocess, tempfile

from sens_tap import cli, done, env, models, ok

pendulum = os.path.join(models, "double-pendulum.json")
tmp = tempfile.mkdtemp(prefix="esl-files-")


def run(*args):
    return subprocess.run([cli, *args], capture_output=True, text=True, timeout=300, env=env)


def stored_runs(path):
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return db.execute("SELECT status FROM runs ORDER BY id").fetchall()
    finally:
        db.close()


# Two `run --project NEW` started together: creation is atomic, so both runs are stored (it
# lost one in 43 of 50 tries with "not an Eslabón project" or "duplicate column name").
lost = []
for i in range(20):
    project = os.path.join(tmp, f"new-{i}.eslabon")
    procs = [subprocess.Popen([cli, "run", pendulum, "--duration", "0.02", "--project", project],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                              env=env) for _ in range(2)]
    errors = [p.communicate(timeout=300)[1].strip() for p in procs]
    codes = [p.returncode for p in procs]
    runs = stored_runs(project) if os.path.exists(project) else []
    if codes != [0, 0] or runs != [("finished",), ("finished",)]:
        lost.append(f"round {i}: exits {codes}, runs {runs}, {' | '.join(e for e in errors if e)}")
left = [f for f in os.listdir(tmp) if f.startswith(".")]  # the temporary names
ok(not lost, f"20 rounds of two processes creating one project: both runs stored every time "
   f"{'; '.join(lost[:3])}")
ok(not left, f"no temporary file left beside the projects {left}")

done()
