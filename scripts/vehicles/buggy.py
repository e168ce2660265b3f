#!/usr/bin/env python3
"""Writes paper 001's buggy (§4.2) in its two manoeuvres:

usage: scripts/vehicles/buggy.py step > models/buggy-step.json
       scripts/vehicles/buggy.py lane-change > models/buggy-lane-change.json

Paper 001 (López Varela, Dopico, Luaces, Comput. Struct. 2025) §4.2 takes its buggy from the
IFToMM benchmark library ("Sensitivity analysis of a step descent / double lane change maneuver
of a buggy vehicle"), whose model data are not available to us. What the paper states is used
as stated (PAPER below); everything else is a buggy of that class, chosen here and marked
"assumed" (ASSUMPTIONS below, repeated in each model's description). So the gradients can be
compared with paper 001 Tables 2-3 in sign and order of magnitude only, not digit for digit.
"""
import json
import sys

PAPER = [
    "step descent (paper 001 §4.2): straight run, steering blocked, a 1 cm step down at "
    "x = 5.5 m, 3 m/s forward, reached at about t = 2.0 s, 4.5 s at h = 1 ms, "
    "psi = integral of the squared vertical acceleration of a point in the front of the "
    "chassis (eq 76), rho = [k_f c_f k_r c_r m_c] (eq 77): front and rear suspension stiffness "
    "and damping, chassis mass",
    "double lane change (paper 001 §4.2): 12 s at h = 15 ms, psi = integral of the squared "
    "roll rate of the chassis (eq 78), rho = [k_t c_t k_x c_x m_c] (Table 3; the text says "
    "the set of (77) is kept, the table lists other names)",
]

ASSUMPTIONS = [
    "masses and sizes of a light two-seat buggy: chassis 300 kg (a 2.4 x 1.2 x 0.6 m box for "
    "its inertia) with its centre of mass 0.55 m above the road; wheelbase 2.1 m with the "
    "front axle 1.2 m ahead of the centre of mass (a rear-engined buggy, 57 % on the rear "
    "axle); track 1.4 m; wheels 10 kg, radius 0.3 m, width 0.2 m (disc inertias)",
    "front suspension: trailing arms (6 kg slender rods, 0.4 m, pivots about Y ahead of the "
    "wheels) carrying a 4 kg steering knuckle whose kingpin is vertical through the wheel "
    "centre; a coil-over (tsda: k_f = 1e4 N/m, c_f = 800 N s/m) from the chassis 0.35 m above "
    "the hub to the arm under it (motion ratio 1)",
    "rear suspension: swing axles (8 kg slender rods, pivots about X 0.1 m off the centre "
    "line, 0.6 m to the hub); a coil-over (k_r = 1.2e4 N/m, c_r = 1000 N s/m) 0.5 m out on "
    "the arm and a torsion bar on each pivot (rsda about X: k_x = 1500 N m/rad, "
    "c_x = 50 N m s/rad); k_x and c_x are our reading of Table 3's names",
    "the springs carry the static load at the drawing (each coil-over's preload is its static "
    "force from the statics of its arm), the tyres are drawn at their static deflection and "
    "the wheels start rolling at the loaded radius, so the vehicle starts near equilibrium",
    "tyres: the linear law of the wheel element (vertical k_t = 1.2e5 N/m, c_t = 500 N s/m; "
    "longitudinal slip stiffness 2e4 N, cornering stiffness 2e4 N/rad, friction 0.9, "
    "low-speed band 0.5 m/s); k_t and c_t are our reading of Table 3's names",
    "the step descends over a smooth 0.2 m ramp: a sharp 1 cm edge under a tyre whose contact "
    "is a point below the centre makes the deflection jump within a step (paper 001 speaks of "
    "impact forces there), which neither the energy balance nor a sensitivity follows; over "
    "0.2 m at 3 m/s the wheels keep their contact",
    "the front wheels reach the step at 2.0005 s, half of paper 001's 1 ms step after 2 s: "
    "the ramp's curvature jumps at its ends, and a wheel centre exactly there at a grid time "
    "makes the discrete objective's derivative one-sided (direct and adjoint then differ "
    "from central differences by O(h), 5e-5 relative in m_c at 1 ms)",
        "the step descent's chassis moves in the X-Z plane (prismatic X, prismatic Z, revolute Y "
    "through two 1 kg carriers: a straight symmetric run); the lane change's has all six "
    "freedoms through five 1 kg carriers: prismatic X, Y, Z, then revolutes about Z (yaw), "
    "Y (pitch) and X (roll), so the roll rate of eq 78 is the roll joint's rate",
    "the lane change's steering is guided open loop (both knuckles driven by one polynomial "
    "of time, parallel steer): the kinematic bicycle's angle delta = L y''/v^2 for a smooth "
    "out-and-back path y = Y (1 - u^2)^4, u = 2t/T - 1, Y = 3.5 m (ISO 3888-1's lateral "
    "offset), T = 12 s, at 9 m/s (ISO 3888-1's 110 m in about 12 s); the ISO gates are not "
    "tracked",
]

G = 9.81
R = 0.30                       # m, unloaded tyre radius (assumed)
K_TYRE, C_TYRE = 1.2e5, 500.0  # N/m, N s/m (assumed)
C_KAPPA, C_ALPHA, MU, V_LOW = 2e4, 2e4, 0.9, 0.5
K_F, C_F, K_R, C_R = 1.0e4, 800.0, 1.2e4, 1000.0
K_X, C_X = 1500.0, 50.0        # N m/rad, N m s/rad: rear torsion bars
M_CHASSIS, Z_CG = 300.0, 0.55
X_F, X_R, HALF_TRACK = 1.2, -0.9, 0.7
M_WHEEL, W_WHEEL = 10.0, 0.2
M_FRONT_ARM, FRONT_ARM = 6.0, 0.4     # trailing arm: pivot FRONT_ARM ahead of the hub
M_KNUCKLE = 4.0
M_REAR_ARM, REAR_PIVOT_Y, REAR_SPRING_Y = 8.0, 0.1, 0.6
SPRING_HEIGHT = 0.35
M_CARRIER = 1.0
STEP_SPEED, STEP_AT, STEP_HEIGHT, STEP_RAMP, STEP_REACHED = 3.0, 5.5, -0.01, 0.2, 2.0005
LANE_SPEED, LANE_OFFSET, LANE_TIME = 9.0, 3.5, 12.0


def rounded(v):
    if isinstance(v, dict):
        return {k: rounded(x) for k, x in v.items()}
    if isinstance(v, list):
        return [rounded(x) for x in v]
    return round(v, 9) if isinstance(v, float) else v


def poly_mul(a, b):
    out = [0.0] * (len(a) + len(b) - 1)
    for i, x in enumerate(a):
        for j, y in enumerate(b):
            out[i + j] += x * y
    return out


def poly_derivative(a):
    return [i * a[i] for i in range(1, len(a))]


def steering_polynomial(wheelbase):
    """delta(t) = L y''(t) / v^2 for y = Y (1 - u^2)^4, u = 2t/T - 1 (coefficients in t)."""
    u = [-1.0, 2.0 / LANE_TIME]
    u2 = poly_mul(u, u)
    one_minus_u2 = [1.0 - u2[0]] + [-c for c in u2[1:]]
    y = [LANE_OFFSET]
    for _ in range(4):
        y = poly_mul(y, one_minus_u2)
    ydd = poly_derivative(poly_derivative(y))
    return [wheelbase / LANE_SPEED ** 2 * c for c in ydd]


def disc_inertia(m):
    side = m * R * R / 4 + m * W_WHEEL ** 2 / 12
    return [[side, 0, 0], [0, m * R * R / 2, 0], [0, 0, side]]


def build(manoeuvre):
    lane = manoeuvre == "lane-change"
    speed = LANE_SPEED if lane else STEP_SPEED
    # Where the drawing is: the step descent's front wheels reach the step at STEP_REACHED.
    x0 = 0.0 if lane else STEP_AT - STEP_SPEED * STEP_REACHED - X_F
    carriers = (["surge", "sway", "heave", "yaw", "pitch_carrier"] if lane
                else ["surge", "heave"])
    # The tyres carry everything above the horizontal prismatic joints (surge, sway).
    horizontal = 2 if lane else 1
    corner_front = M_FRONT_ARM + M_KNUCKLE + M_WHEEL
    corner_rear = M_REAR_ARM + M_WHEEL
    supported = [(M_CHASSIS + M_CARRIER * (len(carriers) - horizontal), 0.0)]
    # the arms' centres of mass (midpoints) and the wheels' (hubs)
    supported += [(2 * M_FRONT_ARM, X_F + FRONT_ARM / 2), (2 * (M_KNUCKLE + M_WHEEL), X_F),
                  (2 * corner_rear, X_R)]
    weight = sum(m for m, _ in supported) * G
    moment = sum(m * x for m, x in supported) * G
    # vertical and pitch equilibrium of the whole vehicle: F_f + F_r = W, F_f x_f + F_r x_r = M
    front = (moment - weight * X_R) / (X_F - X_R) / 2   # per front tyre
    rear = weight / 2 - front
    defl_f, defl_r = front / K_TYRE, rear / K_TYRE
    z_hf, z_hr = R - defl_f, R - defl_r
    # Each arm's statics about its pivot: the tyre's load at the hub, the weights, the spring.
    spring_f = front - (M_KNUCKLE + M_WHEEL) * G - M_FRONT_ARM * G / 2
    lever = HALF_TRACK - REAR_PIVOT_Y
    spring_r = (rear * lever - M_WHEEL * G * lever - M_REAR_ARM * G * lever / 2) / (
        REAR_SPRING_Y - REAR_PIVOT_Y)

    def at(x, y, z):
        return [x + x0, y, z]

    cg = at(0.0, 0.0, Z_CG)
    bodies = [{"name": "ground", "ground": True, "points": {"O": [0, 0, 0]}}]
    for name in carriers:
        bodies.append({"name": name, "mass": M_CARRIER, "com": cg,
                       "inertia": {"box": [0.2, 0.2, 0.2]}, "points": {"C": cg}})
    chassis = {"name": "chassis", "mass": "m_c", "com": cg,
               "inertia": {"box": [2.4, 1.2, 0.6]},
               "points": {"C": cg, "front": at(X_F + 0.5, 0.0, Z_CG)}}
    bodies.append(chassis)
    axes = (["x", "y", "z", "z", "y", "x"] if lane else ["x", "z", "y"])
    names = (["surge", "sway", "heave", "yaw", "pitch", "roll"] if lane
             else ["surge", "heave", "pitch"])
    chain = ["ground"] + carriers + ["chassis"]
    joints = []
    for i, (name, axis) in enumerate(zip(names, axes)):
        kind = "prismatic" if i < (3 if lane else 2) else "revolute"
        joints.append({"name": name, "type": kind, "bodies": [chain[i], chain[i + 1]],
                       "point": "C", "axis": axis})
    forces, initial = [], [{"joint": "surge", "velocity": speed}]
    # The manoeuvre's parameters (paper 001 eq 77, Table 3) are the model's parameters, bound
    # to the elements' fields; the other numbers are written into the fields.
    values = {"k_f": K_F, "c_f": C_F, "k_r": K_R, "c_r": C_R, "k_t": K_TYRE, "c_t": C_TYRE,
              "k_x": K_X, "c_x": C_X, "m_c": M_CHASSIS}
    rho = ["k_t", "c_t", "k_x", "c_x", "m_c"] if lane else ["k_f", "c_f", "k_r", "c_r", "m_c"]

    def field(name):
        return name if name in rho else values[name]

    steer = {"type": "polynomial",
             "coefficients": steering_polynomial(X_F - X_R) if lane else [0]}
    for side, s in ((1, "l"), (-1, "r")):
        # front corner: trailing arm, knuckle, wheel
        c = "f" + s
        hub = at(X_F, side * HALF_TRACK, z_hf)
        pivot = at(X_F + FRONT_ARM, side * (HALF_TRACK - 0.2), z_hf)
        seat = at(X_F, side * (HALF_TRACK - 0.1), z_hf)
        chassis["points"][c + "_pivot"] = pivot
        chassis["points"][c + "_spring_top"] = at(X_F, side * (HALF_TRACK - 0.1),
                                                  z_hf + SPRING_HEIGHT)
        bodies.append({"name": c + "_arm", "mass": M_FRONT_ARM,
                       "inertia": {"slender_rod": ["P", "H"]},
                       "points": {"P": pivot, "H": hub, "S": seat}})
        bodies.append({"name": c + "_knuckle", "mass": M_KNUCKLE, "com": hub,
                       "inertia": {"box": [0.1, 0.1, 0.2]}, "points": {"H": hub}})
        bodies.append({"name": c + "_wheel", "mass": M_WHEEL, "com": hub,
                       "inertia": disc_inertia(M_WHEEL), "points": {"W": hub}})
        joints += [
            {"name": c + "_pivot", "type": "revolute", "bodies": ["chassis", c + "_arm"],
             "point": c + "_pivot", "axis": "y"},
            {"name": c + "_steer", "type": "revolute", "bodies": [c + "_arm", c + "_knuckle"],
             "point": "H", "axis": "z", "driver": steer},
            {"name": c + "_spin", "type": "revolute", "bodies": [c + "_knuckle", c + "_wheel"],
             "point": "W", "axis": "y"},
        ]
        forces.append({"name": c + "_spring", "type": "tsda", "bodies": ["chassis", c + "_arm"],
                       "points": [c + "_spring_top", "S"], "stiffness": field("k_f"),
                       "damping": field("c_f"), "preload": round(-spring_f, 6)})
        # rear corner: swing axle, wheel
        c = "r" + s
        hub = at(X_R, side * HALF_TRACK, z_hr)
        pivot = at(X_R, side * REAR_PIVOT_Y, z_hr)
        seat = at(X_R, side * REAR_SPRING_Y, z_hr)
        chassis["points"][c + "_pivot"] = pivot
        chassis["points"][c + "_spring_top"] = at(X_R, side * REAR_SPRING_Y,
                                                  z_hr + SPRING_HEIGHT)
        bodies.append({"name": c + "_arm", "mass": M_REAR_ARM,
                       "inertia": {"slender_rod": ["P", "H"]},
                       "points": {"P": pivot, "H": hub, "S": seat}})
        bodies.append({"name": c + "_wheel", "mass": M_WHEEL, "com": hub,
                       "inertia": disc_inertia(M_WHEEL), "points": {"W": hub}})
        joints += [
            {"name": c + "_pivot", "type": "revolute", "bodies": ["chassis", c + "_arm"],
             "point": c + "_pivot", "axis": "x"},
            {"name": c + "_spin", "type": "revolute", "bodies": [c + "_arm", c + "_wheel"],
             "point": "W", "axis": "y"},
        ]
        forces.append({"name": c + "_spring", "type": "tsda", "bodies": ["chassis", c + "_arm"],
                       "points": [c + "_spring_top", "S"], "stiffness": field("k_r"),
                       "damping": field("c_r"), "preload": round(-spring_r, 6)})
        forces.append({"name": c + "_torsion_bar", "type": "rsda", "joint": c + "_pivot",
                       "stiffness": field("k_x"), "damping": field("c_x")})
    for c, defl in (("fl", defl_f), ("fr", defl_f), ("rl", defl_r), ("rr", defl_r)):
        forces.append({"name": c + "_tyre", "type": "wheel", "body": c + "_wheel", "point": "W",
                       "axis": [0, 1, 0], "tyre": "linear", "radius": R,
                       "stiffness": field("k_t"), "damping": field("c_t"),
                       "longitudinal_stiffness": C_KAPPA, "cornering_stiffness": C_ALPHA,
                       "friction": MU, "rolling_radius": round(R - defl, 9),
                       "low_speed": V_LOW, "side": "left" if c[1] == "l" else "right"})
        initial.append({"joint": c + "_spin", "velocity": round(speed / (R - defl), 9)})
    parameters = {name: values[name] for name in rho}
    if lane:
        objectives = [{"name": "roll_rate", "integrand": [
            {"quantity": "joint_rate", "joint": "roll", "measure": "squared_norm"}]}]
        road = {"height": 0, "mu": 1.0}
        title = ("paper 001's buggy (§4.2) in a 12 s double lane change at 9 m/s, "
                 "psi = integral of the squared roll rate (eq 78), rho = [k_t c_t k_x c_x m_c]")
    else:
        objectives = [{"name": "front_heave", "integrand": [
            {"quantity": "acceleration", "body": "chassis", "point": "front",
             "measure": "squared_z"}]}]
        road = {"height": 0, "mu": 1.0, "features": [
            {"type": "step", "height": STEP_HEIGHT, "position": STEP_AT, "length": STEP_RAMP}]}
        title = ("paper 001's buggy (§4.2) descending a 1 cm step at x = 5.5 m at 3 m/s "
                 "(front wheels at 2 s), 4.5 s, psi = integral of the squared vertical "
                 "acceleration of the chassis' front point (eq 76), rho = [k_f c_f k_r c_r m_c]")
    return {
        "format": "eslabon-model", "version": 1, "name": "buggy-" + manoeuvre,
        "description": (
            title + ". The IFToMM benchmark's data are not available: a buggy of that class. "
            "Written by scripts/vehicles/buggy.py; from the paper: " + "; ".join(PAPER) +
            ". Assumed: " + "; ".join(ASSUMPTIONS) + "."),
        "parameters": parameters,
        "gravity": [0, 0, -G],
        "road": road,
        "bodies": rounded(bodies), "joints": joints, "forces": forces,
        "initial": initial,
        "objectives": objectives,
    }


def main():
    if len(sys.argv) != 2 or sys.argv[1] not in ("step", "lane-change"):
        sys.exit("usage: buggy.py step|lane-change > models/buggy-MANOEUVRE.json")
    json.dump(build(sys.argv[1]), sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
