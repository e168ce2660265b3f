#!/usr/bin/env python3
"""eslabon-cli sensitivity end to end: paper 001 Table 1 by fd, penalty direct against fd on
every bundled model with objectives and parameters, --json keys, clear refusals. Prints TAP."""
import os, subprocess, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cli_tap import (cli, models, env, ok, sens, worst_relative, done,  # noqa: E402
                     five_bar_still_lengths)


# Paper 001 Table 1, reference column (IFToMM benchmark): rows psi1..3, columns Ls1, Ls2, m_A1,
# xG_A1, L_A1.
table1 = [[-4.2288, 3.2116, 0.31866, 0.44235, 3.3598],
          [-15.452, 50.309, 0.97012, 0.74560, -27.359],
          [221.64, 2436.6, -32.497, -85.657, -2546.6]]
r, fd = sens("five-bar.json", "--formulation", "penalty", "--method", "fd", "--step", "0.0005",
             "--duration", "5", "--newton-tolerance", "1e-12")
ok(r.returncode == 0, "five-bar fd runs " + r.stderr.strip())
ok(fd.get("objectives") == ["psi1", "psi2", "psi3"] and
   fd.get("parameters") == ["Ls1", "Ls2", "m_A1", "xG_A1", "L_A1"],
   f"objectives and parameters in the file's order: {fd.get('objectives')} {fd.get('parameters')}")
ok(all(k in fd for k in ["psi", "gradient", "time_dynamics", "time_sensitivity", "steps"]),
   "--json has psi, gradient, the wall times and the steps")
if fd:
    # The table prints 5 significant digits; h = 0.5 ms is within 1e-4 of the converged values
    # (the table's two m_A1/xG_A1 entries of psi2 differ by 5e-5 and 1.2e-4 between its own
    # columns, which bounds how well any integration reproduces them).
    err = worst_relative(fd["gradient"], table1, 1e-9)
    ok(err < 1.5e-4, f"fd at h = 0.5 ms reproduces paper 001 Table 1 (worst relative {err:.2e})")

# penalty direct against fd of the same discrete simulation.
# Tolerances: what is left is the terms direct leaves out (engine/sens_penalty.c: the
# projections' weight differentiated only in its alpha part), the same at any alpha since the
# alpha-weighted terms' parameter derivatives are expanded (Phi_rho, Phi_zrho differenced at a
# fixed state): measured five-bar 3.1e-5, slider-crank 3e-10, the spatial four-bar 3.6e-5 at
# alpha = 1e7 and 9.9e-6 at the default 1e9 (it was 2e-2 when alpha Phi_z^T Phi was differenced
# as a whole: alpha times its truncation).
cases = [("five-bar.json", ["--step", "0.01", "--duration", "5"], 2e-4),
         ("slider-crank.json", ["--step", "0.002", "--duration", "1"], 1e-4),
         ("four-bar-spatial.json", ["--step", "0.002", "--duration", "1", "--alpha", "1e7"], 2e-4),
         ("four-bar-spatial.json", ["--step", "0.002", "--duration", "1"], 2e-4)]
for model, args, tol in cases:
    rd, direct = sens(model, "--formulation", "penalty", "--method", "direct", *args)
    rf, fdiff = sens(model, "--formulation", "penalty", "--method", "fd", *args)
    ok(rd.returncode == 0 and rf.returncode == 0, f"{model}: direct and fd run " + rd.stderr + rf.stderr)
    if direct and fdiff:
        ok(direct["psi"] == fdiff["psi"], f"{model}: the same psi (the same nominal run)")
        scale = max(abs(x) for row in fdiff["gradient"] for x in row)
        err = worst_relative(direct["gradient"], fdiff["gradient"], 1e-3 * scale)
        ok(err < tol, f"{model} {' '.join(args)}: penalty direct = fd within {tol:g} (worst relative {err:.2e})")

# The running gradient (--history): one row per step, the last equal to the final gradient.
hist = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"esl-sens-{os.getpid()}.csv")
r, d = sens("five-bar.json", "--method", "direct", "--step", "0.01", "--duration", "1",
            "--objectives", "psi1", "--parameters", "Ls1,Ls2", "--history", hist)
rows = open(hist).read().splitlines() if r.returncode == 0 else []
ok(len(rows) == 102 and rows[0] == "time,psi1,dpsi1/dLs1,dpsi1/dLs2",
   f"--history: header and 101 rows ({len(rows)})")
if rows and d:
    last = [float(x) for x in rows[-1].split(",")]
    ok(last[1] == d["psi"][0] and last[2:] == d["gradient"][0], "its last row is psi and the gradient")
    os.remove(hist)

# --project: the run, psi, the gradient and the running history stored (schema 7) exactly as
# printed; the stored history's last row is the final gradient; fd stores no history.
import sqlite3, struct
proj = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"esl-sens-{os.getpid()}.eslabon")
r, d = sens("five-bar.json", "--method", "direct", "--step", "0.01", "--duration", "1",
            "--parameters", "Ls1,Ls2", "--project", proj)
rf, dfd = sens("five-bar.json", "--method", "fd", "--step", "0.01", "--duration", "1",
               "--objectives", "psi1", "--parameters", "Ls1", "--project", proj)
ok(r.returncode == 0 and rf.returncode == 0, "--project: direct and fd runs stored " + r.stderr + rf.stderr)


def doubles(blob):
    return list(struct.unpack(f"<{len(blob) // 8}d", blob)) if blob is not None else None


if d and dfd:
    db = sqlite3.connect(proj)
    rows = db.execute("SELECT r.status, r.formulation, r.step, s.method, s.objectives, s.parameters,"
                      " s.psi, s.gradient, (SELECT count(*) FROM sensitivity_history h"
                      " WHERE h.run_id = r.id) FROM runs r JOIN sensitivities s ON s.run_id = r.id"
                      " ORDER BY r.id").fetchall()
    ok(len(rows) == 2 and rows[0][:6] == ("finished", "penalty", 0.01, "direct",
                                          '["psi1","psi2","psi3"]', '["Ls1","Ls2"]'),
       f"--project: the direct run with its names and settings ({rows[0][:6] if rows else None})")
    flat = [x for row in d["gradient"] for x in row]
    ok(rows and doubles(rows[0][6]) == d["psi"] and doubles(rows[0][7]) == flat,
       "--project: stored psi and gradient = printed, bit for bit")
    last = db.execute("SELECT time, psi, gradient FROM sensitivity_history WHERE run_id ="
                      " (SELECT min(run_id) FROM sensitivities) ORDER BY seq DESC LIMIT 1").fetchone()
    ok(rows and rows[0][8] == 101 and last and abs(last[0] - 1.0) < 1e-12 and
       doubles(last[1]) == d["psi"] and doubles(last[2]) == flat,
       f"--project: 101 history rows, the last at t = 1 s equal to the result ({rows[0][8] if rows else 0})")
    ok(len(rows) == 2 and rows[1][3] == "fd" and doubles(rows[1][7]) == dfd["gradient"][0] and
       rows[1][8] == 0, "--project: the fd run stores its gradient and no history")
    db.close()
    for suffix in ["", "-wal", "-shm"]:
        if os.path.exists(proj + suffix):
            os.remove(proj + suffix)

r, _ = sens("five-bar.json", "--formulation", "ssode", "--method", "direct", "--duration", "0.1")
ok(r.returncode != 0 and "has no direct sensitivity method" in r.stderr,
   "a method the formulation lacks is refused: " + r.stderr.strip())
r, _ = sens("five-bar.json", "--parameters", "Lx", "--duration", "0.1")
ok(r.returncode != 0 and "'Lx' is not a parameter" in r.stderr, "unknown parameter refused")
r, _ = sens("double-pendulum.json", "--duration", "0.1")
ok(r.returncode != 0 and "declares no objectives" in r.stderr, "a model without objectives refused")

# Optimisation (NLopt L-BFGS with bounds, penalty direct gradients): the spring natural lengths
# that keep the five-bar still, psi1 -> 0, within a bounded number of evaluations.
r = subprocess.run([cli, "optimize", os.path.join(models, "five-bar.json"), "--objective", "psi1",
                    "--parameters", "Ls1,Ls2", "--lower", "1.5,1.5", "--upper", "3,3",
                    "--step", "0.01", "--duration", "5", "--max-evaluations", "25"],
                   capture_output=True, text=True, timeout=900, env=env)
last = r.stdout.strip().splitlines()[-1] if r.stdout.strip() else ""
ok(r.returncode == 0 and last.startswith("converged"), "optimize converges: " + last + r.stderr)
try:
    psi_end = float(last.split("psi = ")[1].split()[0])
    ls1 = float(last.split("Ls1 = ")[1].split()[0])
    ls2 = float(last.split("Ls2 = ")[1].split()[0])
except (IndexError, ValueError):
    psi_end, ls1, ls2 = 1.0, 0.0, 0.0
ok(psi_end < 1e-10, f"psi1 from 0.727 down to {psi_end:g}")
ref1, ref2 = five_bar_still_lengths()
TOL_LS = 3e-8  # 10 times the difference measured (2.5e-9; the CLI prints 10 digits)
ok(abs(ls1 - ref1) < TOL_LS and abs(ls2 - ref2) < TOL_LS,
   f"natural lengths of the still mechanism: Ls1 = {ls1}, Ls2 = {ls2}; statics: {ref1:.10g}, "
   f"{ref2:.10g}")

# --state-history: d q / d rho of every coordinate at every step as CSV, the same numbers the
# project stores for the window (schema 8, column per parameter), for penalty, ali3p and
# matrix-r direct;
# refused (exit 2, nothing written) for a method that does not step them.
import csv, sqlite3, struct, tempfile  # noqa: E402
tmp = tempfile.mkdtemp(prefix="esl-state-history-")
for formulation, n, extra in (("penalty", 4, ()), ("ali3p", 48, ()),
                              ("matrix-r", 4, ("--integrator", "trapezoidal"))):
    path, project = os.path.join(tmp, formulation + ".csv"), os.path.join(tmp, formulation + ".eslabon")
    r, _ = sens("five-bar.json", "--formulation", formulation, "--method", "direct", "--step",
                "0.01", "--duration", "1", "--parameters", "Ls1,Ls2", "--objectives", "psi1",
                "--state-history", path, "--project", project, *extra)
    rows = list(csv.reader(open(path))) if r.returncode == 0 else [[]]
    header, body = rows[0], rows[1:]
    ok(r.returncode == 0 and len(header) == 1 + 2 * n and header[1] == "dq1/dLs1"
       and header[1 + n] == "dq1/dLs2" and len(body) == 101,
       f"{formulation}: --state-history has time and {2 * n} columns (dq_i/drho_k), 101 rows "
       f"({len(header)} columns, {len(body)} rows) {r.stderr.strip()}")
    with sqlite3.connect(project) as db:
        blobs = [b for (b,) in db.execute("SELECT state_sensitivity FROM sensitivity_history "
                                          "ORDER BY seq")]
    stored = [list(struct.unpack("<%dd" % (len(b) // 8), b)) for b in blobs if b]
    same = len(stored) == len(body) and all(
        [float(x) for x in row[1:]] == s for row, s in zip(body, stored))
    ok(same, f"{formulation}: the CSV and the project's stored d q / d rho agree bit for bit "
       f"({len(stored)} stored rows)")
path = os.path.join(tmp, "refused.csv")
r = subprocess.run([cli, "sensitivity", os.path.join(models, "five-bar.json"), "--method", "fd",
                    "--state-history", path], capture_output=True, text=True, env=env)
ok(r.returncode == 2 and "only the direct method" in r.stderr and not os.path.exists(path),
   "--state-history with fd: refused with exit 2, no file made: " + r.stderr.strip())

done()
