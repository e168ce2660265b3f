#!/usr/bin/env python3
"""eslabon-cli sensitivity --points: d r / d rho of named model points along a run, from the
direct method's d q / d rho plus, for a geometric parameter that moves the point, the explicit
part at fixed q (app/esl-point-sensitivity.c). On the five-bar at t = 1 s (h = 0.01 s), d r2 / d
rho of point 2 of bar 12 by the direct method against central differences of two whole runs
(`eslabon-cli run --set RHO=rho +- 1e-5 --points 12:2`) for Ls1 (a spring's natural length: no
explicit part) and L_A1 (a length that moves joints 1 and 2 on their bars: an explicit part),
with penalty (relative coordinates, alpha 1e7), matrix-r (trapezoidal rule) and ali3p (natural
coordinates, alpha 1e7).

Tolerance: 1e-5 of the largest component. The whole runs converge each Newton iteration to
1e-10, so their difference over 2e-5 carries up to ~5e-6 of noise (absolute; |d r2 / d rho|
is 0.6 to 2.8 here), their CSV prints positions to 12 digits (5e-8 once divided by 2e-5), and
the truncation error of the central difference is ~d^2 = 1e-10;
penalty's direct method itself agrees with fd to ~1e-6 at alpha 1e7 on this model
(docs/architecture.md). Measured: penalty 1.3e-6 and 7.8e-7, matrix-r 3.9e-8 and 5.0e-8, ali3p
1.3e-8 and 3.5e-8. Without the explicit part d r2 / d L_A1 would be off by more than 100 %.

Also: --project stores the point names and each stored row's d r / d rho bit for bit as the
CSV; --points with fd, or a name that is not BODY:POINT, is refused with exit 2. Prints TAP."""
import csv, math, os, sqlite3, struct, subprocess, tempfile

from cli_tap import cli, done, env, models, ok

model = os.path.join(models, "five-bar.json")
values = {"Ls1": math.sqrt(5), "L_A1": math.sqrt(2)}
d = 1e-5
tmp = tempfile.mkdtemp(prefix="esl-sens-points-")


def direct(formulation, extra, project=None):
    path = os.path.join(tmp, formulation + ".csv")
    r = subprocess.run([cli, "sensitivity", model, "-f", formulation, "--method", "direct",
                        "--step", "0.01", "--duration", "1", "--objectives", "psi1",
                        "--parameters", ",".join(values), "--points", "12:2",
                        "--state-history", path, *extra,
                        *(["--project", project] if project else [])],
                       capture_output=True, text=True, env=env, timeout=600)
    rows = list(csv.DictReader(open(path))) if r.returncode == 0 else []
    return r, rows


def position(formulation, extra, rho, value):
    path = os.path.join(tmp, "run.csv")
    r = subprocess.run([cli, "run", model, "-f", formulation, "--step", "0.01", "--duration",
                        "1", *extra, "--set", f"{rho}={value!r}", "--points", "12:2", "-o",
                        path], capture_output=True, text=True, env=env, timeout=600)
    last = list(csv.DictReader(open(path)))[-1] if r.returncode == 0 else None
    return (float(last["time"]), [float(last["12:2:" + a]) for a in "xy"]) if last else (None, None)


for formulation, extra in (("penalty", ["--alpha", "1e7"]),
                           ("matrix-r", ["--integrator", "trapezoidal"]),
                           ("ali3p", ["--alpha", "1e7"])):
    project = os.path.join(tmp, formulation + ".eslabon")
    r, rows = direct(formulation, extra, project)
    last = rows[-1] if rows else {}
    ok(r.returncode == 0 and len(rows) == 101 and abs(float(last["time"]) - 1.0) < 1e-12,
       f"{formulation}: --points 12:2 adds d r2 / d rho to the --state-history CSV "
       f"({len(rows)} rows) {r.stderr.strip()}")
    for rho, value in values.items():
        t_plus, plus = position(formulation, extra, rho, value + d)
        t_minus, minus = position(formulation, extra, rho, value - d)
        if not rows or plus is None or minus is None:
            ok(False, f"{formulation} {rho}: the runs ran")
            continue
        fd = [(p - m) / (2 * d) for p, m in zip(plus, minus)]
        got = [float(last[f"d12:2:{a}/d{rho}"]) for a in "xy"]
        worst = max(abs(g - f) for g, f in zip(got, fd)) / max(abs(f) for f in fd)
        ok(t_plus == t_minus == 1.0 and worst < 1e-5,
           f"{formulation}: d r2 / d {rho} at t = 1 s, direct ({got[0]:.9g}, {got[1]:.9g}) = "
           f"central differences of two runs ({fd[0]:.9g}, {fd[1]:.9g}) to {worst:.1e} (< 1e-5)")
    # the project: names, and each stored row's d r / d rho as the CSV's row at that time
    with sqlite3.connect(project) as db:
        names = db.execute("SELECT points FROM sensitivities").fetchone()[0]
        blobs = db.execute("SELECT time, point_sensitivity FROM sensitivity_history "
                           "ORDER BY seq").fetchall()
    by_time = {float(row["time"]): row for row in rows}
    columns = [f"d12:2:{a}/d{rho}" for rho in values for a in "xyz"]
    same = len(blobs) == 101 and all(
        b and list(struct.unpack("<%dd" % (len(b) // 8), b)) ==
        [float(by_time[t][c]) for c in columns] for t, b in blobs)
    ok(names == '["12:2"]' and same,
       f"{formulation}: --project stores the point ({names}) and its d r / d rho of each of the "
       f"{len(blobs)} rows as the CSV, bit for bit")

r = subprocess.run([cli, "sensitivity", model, "--method", "fd", "--points", "12:2"],
                   capture_output=True, text=True, env=env)
ok(r.returncode == 2 and "only the direct method" in r.stderr,
   "--points with fd: refused with exit 2: " + r.stderr.strip())
r = subprocess.run([cli, "sensitivity", model, "--method", "direct", "--points", "12:9"],
                   capture_output=True, text=True, env=env)
ok(r.returncode == 2 and "12:9" in r.stderr, "--points 12:9: refused with exit 2: " +
   r.stderr.strip())
done()
