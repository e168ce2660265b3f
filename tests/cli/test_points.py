#!/usr/bin/env python3
"""eslabon-cli run --points: each named point's position and velocity in the CSV history, checked
against the four-bar's kinematics for every formulation (the crank tip B stays on its circle of
radius 1.5 m about the X axis, its velocity is tangent to it and equals the time derivative of
its position), --output-step, and refusals; --variables: the double pendulum's joint angle and
body energies against its bar's angle and the energy columns. Prints TAP."""
import csv, math, os, subprocess, sys, tempfile

from cli_tap import cli, done, ok, source  # noqa: E402


def run(*args):
    return subprocess.run([cli, *args], capture_output=True, text=True, timeout=600)


tmp = tempfile.mkdtemp(prefix="esl-points-")
four_bar = os.path.join(source, "models", "four-bar-spatial.json")
axes = ["x", "y", "z", "vx", "vy", "vz"]

for form in ["penalty", "matrix-r", "ali3p", "ssode"]:
    out = os.path.join(tmp, f"{form}.csv")
    r = run("run", four_bar, "--formulation", form, "--step", "0.001", "--duration", "1",
            "--points", "crank:B,follower:C", "--output", out)
    if not ok(r.returncode == 0, f"{form}: run --points exits 0 {r.stderr.strip()}"):
        continue
    with open(out) as f:
        header = f.readline().strip().split(",")
    ok(header[-12:] == [f"crank:B:{a}" for a in axes] + [f"follower:C:{a}" for a in axes],
       f"{form}: the header ends with the six columns of each point, in order")
    rows = [{k: float(v) for k, v in row.items()} for row in csv.DictReader(open(out))]
    ok(len(rows) == 1001, f"{form}: a row at t = 0 and one per step ({len(rows)})")
    B = [(r["crank:B:x"], r["crank:B:y"], r["crank:B:z"]) for r in rows]
    vB = [(r["crank:B:vx"], r["crank:B:vy"], r["crank:B:vz"]) for r in rows]
    radius = max(abs(math.hypot(y, z) - 1.5) for _, y, z in B)
    plane = max(abs(x) for x, _, _ in B)
    ok(radius < 1e-8 and plane < 1e-8,
       f"{form}: crank:B on the circle of radius 1.5 m in x = 0 (|r| - 1.5 up to {radius:.1e}, |x| {plane:.1e})")
    moved = max(math.dist(B[0], b) for b in B)
    ok(moved > 0.3, f"{form}: crank:B moves ({moved:.2f} m): the check above is not trivial")
    tangent = max(abs(b[1] * v[1] + b[2] * v[2]) + abs(v[0]) for b, v in zip(B, vB))
    ok(tangent < 1e-7, f"{form}: crank:B's velocity is tangent to the circle (r.v up to {tangent:.1e})")
    # central differences of the positions, O(h^2) = 1e-6 x the third derivative
    diff = 0.0
    for k in range(1, len(rows) - 1):
        dt = rows[k + 1]["time"] - rows[k - 1]["time"]
        for i in range(3):
            diff = max(diff, abs((B[k + 1][i] - B[k - 1][i]) / dt - vB[k][i]))
    vmax = max(math.hypot(*v) for v in vB)
    # ssode: its outputs' velocities are the derivative of the Hermite polynomial of its
    # positions (engine/form_ssode.c, dense_output); 2.3e-2 m/s here with ARKODE's interpolant
    ok(diff < 1e-4 and vmax > 0.5,
       f"{form}: crank:B's velocity is the derivative of its position (differs by {diff:.1e} m/s, |v| up to {vmax:.2f} m/s)")
    C = [(r["follower:C:x"], r["follower:C:y"], r["follower:C:z"]) for r in rows]
    follower = max(abs(math.hypot(x - 5, y) - 2) + abs(z) for x, y, z in C)
    ok(follower < 1e-8, f"{form}: follower:C on its circle of radius 2 m about D ({follower:.1e})")
    v0 = (rows[0]["follower:C:vx"], rows[0]["follower:C:vy"])
    # initial condition: joint D turns at -0.1 rad/s about Z, C - D = 2 (cos t, sin t)
    ct, st = -0.7625, math.sqrt(1 - 0.7625 ** 2)
    expect = (0.1 * 2 * st, -0.1 * 2 * ct)
    ok(math.dist(v0, expect) < 1e-9, f"{form}: follower:C starts at the initial condition's velocity {v0} (expected {expect})")

out = os.path.join(tmp, "every.csv")
r = run("run", four_bar, "--step", "0.01", "--duration", "1", "--points", "coupler:B",
        "--output-step", "0.1", "--output", out)
rows = list(csv.DictReader(open(out))) if r.returncode == 0 else []
times = [float(row["time"]) for row in rows]
ok(r.returncode == 0 and len(times) == 11 and all(abs(t - 0.1 * k) < 1e-9 for k, t in enumerate(times)),
   f"--output-step 0.1: rows at 0, 0.1, ..., 1 s ({times})")
ok(rows and "coupler:B:vz" in rows[0], "a point named by its coupler copy has its columns")

r = run("run", four_bar, "--points", "crank:Q", "--output", os.path.join(tmp, "bad.csv"))
ok(r.returncode == 2 and "crank:Q" in r.stderr, f"an unknown point is refused naming it: {r.stderr.strip()}")
r = run("run", four_bar, "--points", "crank:B")
ok(r.returncode == 2 and "--output" in r.stderr, "--points without --output is refused")
r = run("run", four_bar, "--step", "0.01", "--output-step", "0.015", "--output", os.path.join(tmp, "bad.csv"))
ok(r.returncode == 2 and "multiple" in r.stderr, "--output-step not a multiple of the step is refused")

# --variables: joint angles and body energies, exact from the formulation's state, in every
# formulation: O:angle is the angle of bar1's axis OP (atan2, unwrapped), the bodies' energies
# sum to the energy monitors of the same row.
pendulum = os.path.join(source, "models", "double-pendulum.json")
names = ["O:angle", "O:angle_rate", "bar1:kinetic", "bar1:potential", "bar2:kinetic", "bar2:potential"]
for form in ["penalty", "matrix-r", "ali3p", "ssode"]:
    out = os.path.join(tmp, f"vars-{form}.csv")
    r = run("run", pendulum, "--formulation", form, "--step", "0.005", "--duration", "2",
            "--points", "bar1:P", "--variables", ",".join(names), "--output", out)
    if not ok(r.returncode == 0, f"{form}: run --variables exits 0 {r.stderr.strip()}"):
        continue
    with open(out) as f:
        header = f.readline().strip().split(",")
    ok(header[-len(names):] == names, f"{form}: the variables' columns end the header, in order")
    rows = [{k: float(v) for k, v in row.items()} for row in csv.DictReader(open(out))]
    angle_err, energy_err, turned, previous = 0.0, 0.0, 0.0, None
    for row in rows:
        theta = math.atan2(row["bar1:P:z"], row["bar1:P:y"])
        if previous is not None:  # unwrap as the column does
            theta += 2 * math.pi * round((previous - theta) / (2 * math.pi))
        previous = theta
        angle_err = max(angle_err, abs(row["O:angle"] - theta))
        turned = max(turned, abs(row["O:angle"]))
        kinetic = row["bar1:kinetic"] + row["bar2:kinetic"]
        potential = row["bar1:potential"] + row["bar2:potential"]
        scale = abs(row["kinetic"]) + abs(row["potential_gravity"])
        energy_err = max(energy_err, (abs(kinetic - row["kinetic"]) +
                                      abs(potential - row["potential_gravity"])) / max(scale, 1e-300))
    # the CSV keeps 12 significant digits
    ok(angle_err < 1e-9 and turned > 1, f"{form}: O:angle is bar1's angle atan2(P) ({angle_err:.1e} rad; up to {turned:.2f} rad)")
    ok(energy_err < 1e-9, f"{form}: the bodies' energies sum to the kinetic and gravity columns ({energy_err:.1e} relative)")

r = run("run", pendulum, "--variables", "O:slide", "--output", os.path.join(tmp, "bad.csv"))
ok(r.returncode == 2 and "O:slide" in r.stderr, f"a kind the joint has not is refused naming it: {r.stderr.strip()}")
r = run("run", pendulum, "--variables", "bar1:P:ax", "--output", os.path.join(tmp, "bad.csv"))
ok(r.returncode == 2 and "acceleration" in r.stderr, f"an acceleration is refused: {r.stderr.strip()}")
r = run("run", pendulum, "--variables", "O:angle")
ok(r.returncode == 2 and "--output" in r.stderr, "--variables without --output is refused")

done()
