"""The HMMWV's ISO 3888-1 double lane change at 60 km/h (models/hmmwv-lane-change.json, written
by scripts/vehicles/hmmwv.py --lane-change; issue 24): the path follower and the speed controller
drive the vehicle on its springs and Magic Formula tyres through the lanes.

Checked from the run's trajectory, in matrix-r (RK4, 1 ms) and penalty (trapezoidal, 5 ms, ad
tangent):
- every corner of the vehicle's outline (the chassis's reference point C, the yaw from two chassis
  points, a rectangle of the vehicle width of the path and the HMMWV's length 4.57 m centred on
  the wheelbase's middle) stays inside each lane (sections 1, 3 and 5: the lines of cones) while
  it is level with it; the lanes are computed here from ISO 3888-1's numbers, independently of
  engine/vehicle/mbs_path.c;
- the speed stays within a band of the target once the chassis has settled;
- the energy balance (kinetic + gravity + elastic - work of tyres, dampers and drive) holds over
  the manoeuvre (after the first second, in which the chassis rises from the data's design
  position through its bump stops: docs/model-format.md § Bundled models);
- the two formulations drive one trajectory;
- the variables of the vehicle (speed, yaw, tyre forces, the driver's error and command) read
  what the trajectory says.
ali3p and ssode are not run here: one 10 s lane change takes them minutes on this machine (ali3p
needs the ad tangent over 22 bodies' natural coordinates each step); the elements themselves are
checked in every formulation by tests/cli/test_driver.py."""
import csv, json, math, os, subprocess, tempfile

from cli_tap import ok, done, cli, models, env

model = os.path.join(models, "hmmwv-lane-change.json")
with open(model) as f:
    data = json.load(f)
width, start = data["path"]["vehicle_width"], data["path"]["start"]
target = data["parameters"]["speed"]
LENGTH = 4.57  # m, the HMMWV's overall length (M998), about the wheelbase's middle
MIDDLE_X = 0.0  # the axles at +-1.689 m in the vehicle frame
tmp = tempfile.mkdtemp()

# ISO 3888-1 (../shared/vehicles/README.md): sections 15 / 30 / 25 / 25 / 15 m, lanes
# 1.1 w + 0.25, 1.2 w + 0.25, 1.3 w + 0.25; lane 1 centred on y = 0, lanes 1 and 5 sharing the
# right-hand boundary, the side lane's right-hand boundary 3.5 m to the left of lane 1's.
w1, w3, w5 = 1.1 * width + 0.25, 1.2 * width + 0.25, 1.3 * width + 0.25
right = -w1 / 2
lanes = [(start, start + 15, right, right + w1),
         (start + 45, start + 70, right + 3.5, right + 3.5 + w3),
         (start + 95, start + 110, right, right + w5)]

variables = ("chassis:speed,chassis:yaw,chassis:yaw_rate,chassis:roll,fl_tyre:fz,fl_tyre:fy,"
             "rl_tyre:fx,driver_steering:lateral_error,driver_steering:steering_command,"
             "driver_steering:target_y,driver_steering:actual_y,rl_drive:measured_speed,"
             "rl_drive:drive_torque,drive:slide_rate")
points = "chassis:C,chassis:fl_upper_pivot,chassis:rl_upper_pivot"


def run(formulation, step, *args):
    out = os.path.join(tmp, formulation + ".csv")
    r = subprocess.run([cli, "run", model, "--formulation", formulation, "--step", str(step),
                        "--duration", "10", "--output", out, "--points", points, "--variables",
                        variables, "--output-step", "0.01", *args],
                       capture_output=True, text=True, timeout=600, env=env)
    ok(r.returncode == 0, f"{formulation} (h = {step * 1000:g} ms) runs the 10 s lane change"
       + ("" if r.returncode == 0 else ": " + r.stderr.strip()[:300]))
    if r.returncode != 0:
        return []
    with open(out) as f:
        return [{key: float(v) for key, v in row.items()} for row in csv.DictReader(f)]


def worst_lane_margin(rows):
    """The least distance (m) of the outline's corners inside the lane they are level with
    (negative: outside), and where."""
    worst, where = math.inf, ""
    for r in rows:
        cx, cy = r["chassis:C:x"], r["chassis:C:y"]
        dx = r["chassis:fl_upper_pivot:x"] - r["chassis:rl_upper_pivot:x"]
        dy = r["chassis:fl_upper_pivot:y"] - r["chassis:rl_upper_pivot:y"]
        yaw = math.atan2(dy, dx)
        c, s = math.cos(yaw), math.sin(yaw)
        for lx in (MIDDLE_X - 0.056 - LENGTH / 2, MIDDLE_X - 0.056 + LENGTH / 2):
            for ly in (-width / 2, width / 2):
                x, y = cx + c * lx - s * ly, cy + s * lx + c * ly
                for k, (x0, x1, ymin, ymax) in enumerate(lanes):
                    if x0 <= x <= x1:
                        margin = min(y - ymin, ymax - y)
                        if margin < worst:
                            worst, where = margin, f"lane {2 * k + 1} at t = {r['time']:.2f} s"
    return worst, where


# Measured (right-hand tyres mirrored, "side": "right"; before, with the .tir's left tyre on
# every wheel: 0.171 and 0.170 m): least margin 0.141 m (matrix-r and penalty), in lane 3 at
# 5.5 s; speed within 0.299 m/s of the target after 1.5 s (the band, 0.5 m/s, is the
# requirement); energy after 1 s within 3.2e-3 J (matrix-r) and 0.115 J (penalty) of a 340 kJ
# kinetic energy, with 3.8 kJ of work by tyres, dampers and drive.
GAP_BOUND = 4e-3  # measured 1.3e-4 m (the 5 ms step of penalty; 3.6e-4 m unmirrored)
results = {}
for formulation, step, args in [("matrix-r", 0.001, ()),
                                ("penalty", 0.005, ("--threads", "1"))]:
    rows = run(formulation, step, *args)
    if not rows:
        continue
    results[formulation] = rows
    margin, where = worst_lane_margin(rows)
    ok(margin > 0, f"{formulation}: the vehicle passes every ISO 3888-1 lane within the cones "
       f"(least margin {margin:.3f} m, {where})")
    settled = [r for r in rows if r["time"] >= 1.5]
    error = max(abs(r["drive:slide_rate"] - target) for r in settled)
    ok(error < 0.5, f"{formulation}: speed held within 0.5 m/s of 60 km/h after 1.5 s "
       f"(max |v - v_t| = {error:.3f} m/s)")
    e1 = next(r["energy_drift"] for r in rows if r["time"] >= 1.0)
    drift = max(abs(r["energy_drift"] - e1) for r in rows if r["time"] >= 1.0)
    work = rows[-1]["work_nonconservative"]
    bound = {"matrix-r": 0.035, "penalty": 1.2}[formulation]
    ok(drift < bound, f"{formulation}: energy balance over the manoeuvre with the work of tyres, "
       f"dampers and drive ({work:.0f} J in all): |E - E(1 s)| <= {drift:.2e} J (bound {bound:g})")
    # the variables against the trajectory
    mid = min(rows, key=lambda r: abs(r["time"] - 5.0))
    ok(abs(mid["driver_steering:actual_y"] - mid["chassis:C:y"]) < 1e-9 and
       abs(mid["rl_drive:measured_speed"] - mid["chassis:speed"]) < 0.05 and
       mid["fl_tyre:fz"] > 0 and abs(mid["chassis:yaw"]) < 0.5,
       f"{formulation}: the vehicle variables read the trajectory at 5 s (y {mid['chassis:C:y']:.3f} m, "
       f"speed {mid['chassis:speed']:.3f} m/s, fl Fz {mid['fl_tyre:fz']:.0f} N, "
       f"command {mid['driver_steering:steering_command']:.4f} m)")
    peak = max(abs(r["driver_steering:target_y"]) for r in rows)
    ok(abs(peak - (right + 3.5 + w3 / 2)) < 1e-6,
       f"{formulation}: the path's target y reaches the side lane's centre "
       f"({peak:.4f} m = -w1/2 + 3.5 + w3/2)")
if len(results) == 2:
    a, b = results["matrix-r"], results["penalty"]
    gap = max(abs(x["chassis:C:y"] - y["chassis:C:y"]) for x, y in zip(a, b))
    ok(gap < GAP_BOUND, f"matrix-r (1 ms) and penalty (5 ms) drive one trajectory "
       f"(max |dy| = {gap:.1e} m, bound {GAP_BOUND:g})")
done()
