"""The driver's force elements (engine/vehicle/force_path_follower.c, force_speed_control.c;
issue 24) against closed forms, in every formulation.

A sled: a carrier on the ground's prismatic joint along X (`drive`) and a body on the carrier's
prismatic joint along Y (`lateral`), no other force along either. The speed controller acts on
`drive` itself and reads the body's speed v along X, so (M = both masses, unsaturated)
    M v' = K (v_t - v) + T_ff   ->   v(t) = v_inf + (v0 - v_inf) exp(-K t / M),
    v_inf = v_t + T_ff / K.
The path follower acts on `lateral` and reads the body: on the straight path y = b its error
is e = y - b (the preview along X does not change it), its command c = -(K_lat e + K_rate e'),
and its servo Q = -k (y - c) - d y', so
    m y'' + (d + k K_rate) y' + k (1 + K_lat) y = k K_lat b,
a damped oscillator settling at y = K_lat b / (1 + K_lat): the steady error of a controller
without an integral term (docs/design/engine.md § Drivers). The energy balance holds with the
drivers' work (their power Q q' integrated). The implicit formulations run with their analytical
tangent (the laws' derivatives: tests/engine/test_driver_law.c), and the direct sensitivities of
the gains (K, K_lat, K_rate) equal the closed forms' derivatives.

The speed controller's integral term (integral_gain K_i): the same sled against a constant
resisting force R along X and no feed-forward. E = v_t t - x (x from the drawn position: the
station along the straight path y = b, or along the drawn heading without a path), so with
x~ = x - v_t t
    M x~'' + K x~' + K_i x~ = -R,   x~(0) = 0,  x~'(0) = v0 - v_t,
v = v_t + x~' -> v_t: P alone (K_i = 0) settles at v_t - R / K, PI at v_t."""
import csv, json, math, os, subprocess, tempfile

from cli_tap import ok, done, cli, env

M_CARRIER, M_BODY = 100.0, 400.0
K_SPEED, T_FF, V_TARGET, V0 = 800.0, 150.0, 10.0, 8.0
K_SERVO, D_SERVO, K_LAT, K_RATE, B = 4000.0, 400.0, 1.0, 0.5, 0.5
DURATION = 4.0

sled = {
    "format": "eslabon-model", "version": 1, "name": "driver-sled",
    "description": "test_driver.py: a sled driven along X by a speed controller and along Y "
                   "by a path follower",
    "gravity": [0, 0, -9.81],
    "path": {"type": "points", "points": [[-100, B], [0, B], [500, B]]},
    "bodies": [
        {"name": "ground", "ground": True, "points": {"O": [0, 0, 0]}},
        {"name": "carrier", "mass": M_CARRIER, "com": [0, 0, 0.5],
         "inertia": {"box": [1, 1, 1]}, "points": {"C": [0, 0, 0.5]}},
        {"name": "body", "mass": M_BODY, "com": [0, 0, 0.5],
         "inertia": {"box": [2, 1, 0.5]}, "points": {"C": [0, 0, 0.5]}},
    ],
    "joints": [
        {"name": "drive", "type": "prismatic", "bodies": ["ground", "carrier"], "point": "C",
         "axis": "x"},
        {"name": "lateral", "type": "prismatic", "bodies": ["carrier", "body"], "point": "C",
         "axis": "y"},
    ],
    "forces": [
        {"name": "throttle", "type": "speed_control", "joint": "drive", "body": "body",
         "point": "C", "forward": [1, 0, 0], "speed": V_TARGET, "gain": K_SPEED,
         "feed_forward": T_FF, "max_torque": 1e9},
        {"name": "steer", "type": "path_follower", "joint": "lateral", "body": "body",
         "point": "C", "forward": [1, 0, 0], "preview": 5.0, "lateral_gain": K_LAT,
         "rate_gain": K_RATE, "max_command": 1e6, "left": 1, "stiffness": K_SERVO,
         "damping": D_SERVO},
    ],
    "initial": [{"joint": "drive", "velocity": V0}],
}
tmp = tempfile.mkdtemp()
model = os.path.join(tmp, "sled.json")
with open(model, "w") as f:
    json.dump(sled, f)


def speed_exact(t):
    v_inf = V_TARGET + T_FF / K_SPEED
    return v_inf + (V0 - v_inf) * math.exp(-K_SPEED * t / (M_CARRIER + M_BODY))


def lateral_exact(t):
    """y(t) of m y'' + c y' + k y = k K_lat b from rest at 0 (underdamped)."""
    c, k = D_SERVO + K_SERVO * K_RATE, K_SERVO * (1 + K_LAT)
    y_inf = K_SERVO * K_LAT * B / k
    sigma, wd = c / (2 * M_BODY), math.sqrt(k / M_BODY - (c / (2 * M_BODY)) ** 2)
    return y_inf * (1 - math.exp(-sigma * t) * (math.cos(wd * t) + sigma / wd * math.sin(wd * t)))


def simulate(path, what, formulation, duration, variables, *args):
    """The rows of a run of the model file at path (1 ms, every 10 ms), [] when it fails."""
    out = os.path.join(tmp, os.path.basename(path) + formulation + "-".join(args) + ".csv")
    r = subprocess.run([cli, "run", path, "--formulation", formulation, "--step", "0.001",
                        "--duration", str(duration), "--output", out, "--output-step", "0.01",
                        "--variables", variables, *args],
                       capture_output=True, text=True, timeout=300, env=env)
    ok(r.returncode == 0, f"{' '.join((formulation,) + args)} runs {what}"
       + ("" if r.returncode == 0 else ": " + r.stderr.strip()[:300]))
    if r.returncode != 0:
        return []
    with open(out) as f:
        return [{key: float(v) for key, v in row.items()} for row in csv.DictReader(f)]


def run(formulation, *args):
    return simulate(model, "the sled", formulation, DURATION, "drive:slide_rate,lateral:slide",
                    *args)


# Measured (1 ms): speed error <= 4.8e-7 m/s (ssode), lateral error <= 2.3e-7 m (the
# trapezoidal ones), drift <= 2.4e-3 J of 9.9 kJ of drivers' work (ssode): the integrators' errors.
# The implicit ones with their default (analytical) tangent, and once with ad.
for formulation, args in [("penalty", ()), ("matrix-r", ()),
                          ("matrix-r", ("--integrator", "trapezoidal")),
                          ("ali3p", ()), ("ssode", ()), ("penalty", ("--jacobian", "ad"))]:
    rows = run(formulation, *args)
    if not rows:
        continue
    name = " ".join((formulation,) + args)
    dv = max(abs(r["drive:slide_rate"] - speed_exact(r["time"])) for r in rows)
    ok(dv < 5e-6, f"{name}: the speed follows v_inf + (v0 - v_inf) exp(-K t / M) "
       f"(max error {dv:.1e} m/s, bound 5e-6)")
    dy = max(abs(r["lateral:slide"] - lateral_exact(r["time"])) for r in rows)
    ok(dy < 3e-6, f"{name}: the lateral position follows the closed-loop oscillator "
       f"(max error {dy:.1e} m, bound 3e-6)")
    drift = max(abs(r["energy_drift"]) for r in rows)
    work = rows[-1]["work_nonconservative"]
    ok(drift < 2.5e-2 and abs(work) > 1e3,
       f"{name}: energy balance with the drivers' work {work:.0f} J "
       f"(max |E - E0| = {drift:.1e} J, bound 2.5e-2)")

# Sensitivities of the drivers' gains with their analytical derivatives (the state derivatives
# of matrix-r, penalty and ali3p's direct method) against the closed forms differentiated
# (central differences of the exact solutions, error ~1e-9): d v(T)/dK, d y(T)/dK_lat,
# d y(T)/dK_rate at T = 1 s. Measured (1 ms): 4.2e-6 relative at worst (the integrator's error).
def closed_form_gradient(T, h=1e-4):
    def v(K):
        v_inf = V_TARGET + T_FF / K
        return v_inf + (V0 - v_inf) * math.exp(-K * T / (M_CARRIER + M_BODY))

    def y(kl, kr):
        c, k = D_SERVO + K_SERVO * kr, K_SERVO * (1 + kl)
        y_inf = K_SERVO * kl * B / k
        sigma, wd = c / (2 * M_BODY), math.sqrt(k / M_BODY - (c / (2 * M_BODY)) ** 2)
        decay = math.exp(-sigma * T) * (math.cos(wd * T) + sigma / wd * math.sin(wd * T))
        return y_inf * (1 - decay)
    return [(v(K_SPEED + h) - v(K_SPEED - h)) / (2 * h),
            (y(K_LAT + h, K_RATE) - y(K_LAT - h, K_RATE)) / (2 * h),
            (y(K_LAT, K_RATE + h) - y(K_LAT, K_RATE - h)) / (2 * h)]


sens_model = dict(sled, parameters={"K": K_SPEED, "K_lat": K_LAT, "K_rate": K_RATE},
                  forces=[dict(sled["forces"][0], gain="K"),
                          dict(sled["forces"][1], lateral_gain="K_lat", rate_gain="K_rate")],
                  objectives=[{"name": "speed", "final": [{"quantity": "joint_rate",
                                                           "joint": "drive", "measure": "value"}]},
                              {"name": "lateral", "final": [{"quantity": "joint_coordinate",
                                                             "joint": "lateral",
                                                             "measure": "value"}]}])
sens_path = os.path.join(tmp, "sled-sens.json")
with open(sens_path, "w") as f:
    json.dump(sens_model, f)
expected = closed_form_gradient(1.0)
for formulation in ("matrix-r", "penalty", "ali3p"):
    r = subprocess.run([cli, "sensitivity", sens_path, "--formulation", formulation, "--method",
                        "direct", "--step", "0.001", "--duration", "1", "--json"],
                       capture_output=True, text=True, timeout=300, env=env)
    if not ok(r.returncode == 0, f"{formulation}: direct sensitivities of the drivers' gains"
              + ("" if r.returncode == 0 else ": " + r.stderr.strip()[:300])):
        continue
    g = json.loads(r.stdout)["gradient"]
    got = [g[0][0], g[1][1], g[1][2]]
    worst = max(abs(a - b) / abs(b) for a, b in zip(got, expected))
    ok(worst < 5e-5, f"{formulation}: dv/dK, dy/dK_lat, dy/dK_rate = {got[0]:.6g}, {got[1]:.6g}, "
       f"{got[2]:.6g}, the closed forms' {expected[0]:.6g}, {expected[1]:.6g}, "
       f"{expected[2]:.6g} (worst relative {worst:.1e}, bound 5e-5)")

# PI: the speed controller alone against a resisting force R (no feed-forward), with the path
# (the station along it) and without (along the drawn heading). K = 1500, K_i = 1000 (M = 500):
# two real modes, -1 and -2 1/s.
K_PI, K_I, R_RES, T_PI = 1500.0, 1000.0, 600.0, 10.0


def pi_model(integral_gain, with_path):
    data = dict(sled, name="driver-sled-pi", forces=[
        dict(sled["forces"][0], gain=K_PI, feed_forward=0.0, integral_gain=integral_gain),
        {"name": "resistance", "type": "force", "body": "body", "point": "C",
         "vector": [-R_RES, 0, 0]}])
    if not with_path:
        data.pop("path")
    return data


def pi_speed_exact(t, integral_gain):
    m = M_CARRIER + M_BODY
    if integral_gain == 0.0:  # m v' = K (v_t - v) - R
        v_inf = V_TARGET - R_RES / K_PI
        return v_inf + (V0 - v_inf) * math.exp(-K_PI * t / m)
    disc = math.sqrt(K_PI ** 2 - 4 * m * integral_gain)
    r1, r2 = (-K_PI + disc) / (2 * m), (-K_PI - disc) / (2 * m)
    xs = -R_RES / integral_gain  # x~'s rest; x~ = xs + a e^(r1 t) + b e^(r2 t)
    b = ((V0 - V_TARGET) - r1 * (-xs)) / (r2 - r1)
    a = -xs - b
    return V_TARGET + a * r1 * math.exp(r1 * t) + b * r2 * math.exp(r2 * t)


def run_model(data, name, formulation, duration, *args):
    path = os.path.join(tmp, name + ".json")
    with open(path, "w") as f:
        json.dump(data, f)
    return simulate(path, name, formulation, duration, "drive:slide_rate,"
                    "throttle:speed_integral,throttle:drive_torque", *args)


# P alone settles R / K below the target (10 s: exp(-K t / M) = 1e-13).
rows = run_model(pi_model(0.0, True), "sled-p", "matrix-r", T_PI)
if rows:
    offset = V_TARGET - rows[-1]["drive:slide_rate"]
    ok(abs(offset - R_RES / K_PI) < 1e-6, f"P alone: the speed settles {offset:.9f} m/s "
       f"below the target, R / K = {R_RES / K_PI} (bound 1e-6)")
# PI in every formulation, with and without a path: the closed form over 10 s, the speed's
# distance to the target at the end (the closed form's own transient, 3.6e-5 m/s, where P alone
# stays 0.4 m/s off) and the integral's steady value x~ = -R / K_i read back through the
# variable (E = -x~). Measured (1 ms): speed error <= 3.2e-7 m/s (the trapezoidal ones;
# 5.3e-11 matrix-r RK4), ssode 1.4e-5 (its error control: P alone, the same run without the
# integral, has 1.0e-5); final distance 3.7e-5 m/s, integral 3.7e-5 m from R / K_i.
for with_path in (True, False):
    for formulation, args in [("penalty", ()), ("matrix-r", ()),
                              ("matrix-r", ("--integrator", "trapezoidal")),
                              ("ali3p", ()), ("ssode", ()), ("penalty", ("--jacobian", "ad"))]:
        name = "sled-pi" + ("" if with_path else "-no-path")
        rows = run_model(pi_model(K_I, with_path), name, formulation, T_PI, *args)
        if not rows:
            continue
        what = f"PI {'along the path' if with_path else 'along the heading'}, " + \
            " ".join((formulation,) + args)
        dv = max(abs(r["drive:slide_rate"] - pi_speed_exact(r["time"], K_I)) for r in rows)
        bound = 1.5e-4 if formulation == "ssode" else 4e-6
        ok(dv < bound, f"{what}: the speed follows the closed form (max error {dv:.1e} m/s, "
           f"bound {bound:g})")
        final = abs(rows[-1]["drive:slide_rate"] - V_TARGET)
        ok(final < 4e-4, f"{what}: at {T_PI:g} s the speed is {final:.1e} m/s from the target "
           f"(P alone: {R_RES / K_PI} m/s; bound 4e-4)")
        de = abs(rows[-1]["throttle:speed_integral"] - R_RES / K_I)
        ok(de < 4e-4, f"{what}: the integrated speed error settles at R / K_i = "
           f"{R_RES / K_I} m (error {de:.1e}, bound 4e-4)")

# Sensitivity of the integral gain: d v(T)/dK_i at T = 2 s by the direct methods against the
# closed form differentiated (central differences, error ~1e-10). Measured (1 ms): 2.2e-7
# relative in all three.
sens_pi = dict(pi_model(K_I, True), parameters={"K_i": K_I},
               objectives=[{"name": "speed", "final": [{"quantity": "joint_rate",
                                                        "joint": "drive", "measure": "value"}]}])
sens_pi["forces"] = [dict(sens_pi["forces"][0], integral_gain="K_i"), sens_pi["forces"][1]]
sens_pi_path = os.path.join(tmp, "sled-pi-sens.json")
with open(sens_pi_path, "w") as f:
    json.dump(sens_pi, f)
hk = 1e-3
expected_ki = (pi_speed_exact(2.0, K_I + hk) - pi_speed_exact(2.0, K_I - hk)) / (2 * hk)
for formulation in ("matrix-r", "penalty", "ali3p"):
    r = subprocess.run([cli, "sensitivity", sens_pi_path, "--formulation", formulation,
                        "--method", "direct", "--step", "0.001", "--duration", "2", "--json"],
                       capture_output=True, text=True, timeout=300, env=env)
    if not ok(r.returncode == 0, f"{formulation}: direct sensitivity of the integral gain"
              + ("" if r.returncode == 0 else ": " + r.stderr.strip()[:300])):
        continue
    got = json.loads(r.stdout)["gradient"][0][0]
    rel = abs(got - expected_ki) / abs(expected_ki)
    ok(rel < 3e-6, f"{formulation}: dv(2 s)/dK_i = {got:.8g}, the closed form's "
       f"{expected_ki:.8g} (relative {rel:.1e}, bound 3e-6)")

# Bad input: a path follower without a path, a bad 'left', a path turning back in x.
bad_cases = [
    ("no path", {k: v for k, v in sled.items() if k != "path"}, "needs the model's path"),
    ("left 0", dict(sled, forces=[sled["forces"][0], dict(sled["forces"][1], left=0)]),
     "'left' is 1 or -1"),
    ("path backwards", dict(sled, path={"type": "points", "points": [[0, 0], [-1, 0]]}),
     "does not increase"),
    ("iso width", dict(sled, path={"type": "iso3888-1", "vehicle_width": -2}),
     "'vehicle_width'"),
]
for what, data, expected in bad_cases:
    path = os.path.join(tmp, "bad.json")
    with open(path, "w") as f:
        json.dump(data, f)
    r = subprocess.run([cli, "run", path, "--duration", "0.01"], capture_output=True, text=True,
                       timeout=60, env=env)
    ok(r.returncode != 0 and expected in r.stderr,
       f"{what}: refused with '{expected}': {r.stderr.strip()[:160]}")
done()
