#!/usr/bin/env python3
"""Writes models/hmmwv-stiff.json: paper 002's stiff HMMWV (§5.2) from the published HMMWV data,
or with --suspension springs models/hmmwv.json: the same vehicle on the data's suspension.

usage: scripts/vehicles/hmmwv.py [SHARED_VEHICLES_DIR] > models/hmmwv-stiff.json
       scripts/vehicles/hmmwv.py --suspension springs [SHARED_VEHICLES_DIR] > models/hmmwv.json
       scripts/vehicles/hmmwv.py --lane-change [SHARED_VEHICLES_DIR] > models/hmmwv-lane-change.json
       scripts/vehicles/hmmwv.py --paper002 [SHARED_VEHICLES_DIR] > models/hmmwv-stiff-paper002.json

--paper002 writes paper 002's 18-degree-of-freedom variant of the stiff HMMWV: the chassis free
in space, each upper arm on a spherical joint and a stiff two-TSDA bushing, the travel on the
data's springs and shocks with free lengths that make the drawing the statics;
PAPER002_ASSUMPTIONS below (tests/cli/test_vehicle_hmmwv.py checks each bundled model is this
script's output when ESLABON_HMMWV_DATA or ../shared/vehicles/hmmwv holds the data).

--lane-change writes the same vehicle on its springs with Magic Formula tyres, free to move in
space, driven by the path follower through an ISO 3888-1 double lane change at 60 km/h with the
speed controller on the rear wheels (issue 24); LANE_CHANGE_ASSUMPTIONS below.

The numbers come from ../shared/vehicles/hmmwv/ (Project Chrono's data/vehicle/hmmwv, BSD-3-Clause,
from J. Aardema, TACOM Technical Report 13337; see data/vehicles/LICENSE-chrono-data) and from
paper 002 §5.2 (bushings, tyres, bump, speed). What this script assumes, where neither gives a
number, is in ASSUMPTIONS below and in the model's description.
"""
import json
import math
import os
import sys

ASSUMPTIONS = [
    "each corner's upright, spindle and wheel are one body (paper 002 has 14 bodies: chassis, "
    "4 lower and 4 upper control arms, 4 spindles, the steering rack); their inertias are summed "
    "about the joint centre of mass (parallel axes)",
    "every body's principal axes are along the vehicle axes (the data's moments of inertia are "
    "used as a diagonal tensor in global axes)",
    "the Pitman-arm steering is a rack (the steering link's mass and inertia) sliding along Y "
    "and held at 0 by a driver; the front tie rods join the rack at the data's tie-rod chassis "
    "points",
    "the chassis moves in the X-Z plane only (prismatic X, prismatic Z, revolute Y through two "
    "1 kg bodies: the format needs a joint chain to the ground; a straight symmetric run has no "
    "roll or yaw)",
    "the upper control arms' published moments of inertia (0.03, 0.03, 0.06276 kg m^2) break the "
    "triangle inequality; the largest is cut to 0.06",
    "as in paper 002 the suspension spring is the stiff bushing: a TSDA of k = 2e7 N/m, "
    "c = 2e6 N s/m from the shock's chassis point to the upper control arm's centre of mass; "
    "the data's spring curve and shock are not used",
    "tyres are paper 002's vertical TSDAs (k = 296,325 N/m, c = 3,502 N s/m) at the wheel "
    "centre (the spindle's location), with the .tir file's unloaded radius 0.4699 m",
    "the wheel centres are drawn at the static deflection of an equal load per wheel, so the "
    "vehicle starts near equilibrium; the road is z = 0",
]

# --suspension springs (models/hmmwv.json) replaces the bushing assumption above by these.
SPRINGS_ASSUMPTIONS = [
    "the suspension is the data's: a spring_table from the spring's chassis point to its point "
    "on the lower control arm with the data's spring curve and free length; a linear damper "
    "(a tsda of no stiffness) from the shock's chassis point to its arm point with the data's "
    "damping coefficient; a bump_stop on the spring's line at the data's minimum and maximum "
    "lengths, of stiffness 1e6 N/m and damping 1e3 N s/m reached over a 0.01 m transition (the data give no stop stiffness; the transition keeps the stop's force C1 at contact, which sensitivities need)",
    "the drawing is the data's design position, not the static one: there the front springs "
    "are 0.093 m and the rear 0.076 m shorter than their free lengths (about 45 and 63 kN), so "
    "the chassis first rises and settles in its first second, so the bump comes at 1 s",
]
# --lane-change (models/hmmwv-lane-change.json) replaces the chassis' plane, the tyres and the
# steering driver by these.
LANE_CHANGE_ASSUMPTIONS = [
    "the chassis moves in space through three 1 kg carriers (prismatic X, Y and Z from the "
    "ground) and a spherical joint (successive rotations about X, Y, Z: singular only at a "
    "pitch of 90 degrees); the carriers add 3 kg of translating mass (0.1 %) and no rotating "
    "inertia",
    "each corner's upright and spindle are one body; the wheel (the data's mass and inertia) "
    "turns on it about the spindle's axis (Y) at the spindle's location",
    "the tyres are `wheel` elements with the PAC2002 law of data/tyres/HMMWV_Pac02Tire.tir (its "
    "vertical stiffness and damping, radius 0.4699 m) on a flat road of mu 1",
    "the steering rack is free and steered by a path_follower: preview 0.5 s at 60 km/h and a "
    "gain of 0.5 of full lock per metre (Chrono's SteeringControllerSR for the HMMWV); full "
    "lock (30.23 degrees, the data's maximum) as rack travel: the tie rod's arm about the "
    "kingpin (the longitudinal distance of the tie rod's upright point from the ball joints' "
    "mean) times sin(30.23 deg); the tie rods' points lie behind the kingpins, so the rack's "
    "+Y steers right (left = -1); the servo 1e6 N/m, 2e4 N s/m (stiff against the tyres' "
    "aligning moments, about 0.1 mm per 100 N)",
    "the rear wheels are driven (HMMWV_Driveline2WD) by a speed_control each on its spin joint "
    "(in-wheel torques, no driveline or differential): target 60 km/h, gain 2000 N m per m/s, "
    "feed-forward 70 N m (the tyres' rolling resistance, QSY1 0.008 of the load times the "
    "radius, shared by the two), limit 3000 N m",
    "the vehicle width of the lane change is the wheels' track plus one tyre width "
    "(2 x 0.91 + 0.3175 = 2.14 m); lane 1 starts at x = 40 m, after the chassis has settled "
    "from the design position",
]
# --paper002 (models/hmmwv-stiff-paper002.json) replaces the chassis' plane and the upper arms'
# revolute pivots by these (the rest of ASSUMPTIONS holds).
PAPER002_ASSUMPTIONS = [
    "the chassis moves in space through three 1 kg carriers (prismatic X, Y and Z from the "
    "ground) and a spherical joint, so the model has paper 002's 18 degrees of freedom: 6 of the "
    "chassis and 3 a corner (the steering rack is held by its driver)",
    "each upper control arm hangs from the chassis by a spherical joint at the data's front "
    "chassis point (paper 002's constraint count, 79 = 14 Euler normalizations + 5 for the rack "
    "+ 4 x (5 + 3 + 3 + 3 + 1), leaves 3 equations for that joint) and by paper 002's stiff "
    "bushing at the data's back chassis point; the paper names one TSDA a corner between the "
    "upper arm and the chassis but not where, and one TSDA holds one direction while the "
    "spherical pivot frees two (the arm's spin about the line from its front pivot to its ball "
    "joint and the ball's fore-aft swing: with one TSDA the corners were not held, "
    "docs/benchmarks/ssode-vehicles.md), so the bushing is two TSDAs (k = 2e7 N/m, "
    "c = 2e6 N s/m each, natural length the drawn 0.1 m) from chassis points 0.1 m away along "
    "the two directions normal to the arm's pivot axis (horizontal, then their cross "
    "product): the sphere and the bushing are a revolute pivot with a compliant back bearing",
    "the corners' travel is held by the data's springs (spring_table with the data's spring "
    "curve) and shocks (linear dampers of the data's damping coefficients) on the lower arms, "
    "not by the bushings; the springs' free lengths are not the data's (there the chassis rises "
    "0.10 m, as in hmmwv.json) but those that make the drawn design position the statics (the "
    "chassis' centre of mass at 0.689 m, paper 002 reports about 0.71 m for its chassis): the "
    "tyres' loads from the sprung masses' moments about the axles, the springs' tension by "
    "virtual work over the corner's travel (the corner's kinematics solved by Newton), the "
    "deflection by inverting the spring curve; no bump stops (not reached over the 0.1 m bump)",
]
BUSHING_ARM = 0.1            # m: the bushing TSDAs' drawn (natural) length
LANE_CHANGE_SPEED = 60.0 / 3.6
LANE_START = 40.0
PREVIEW_TIME, LATERAL_GAIN = 0.5, 0.5  # SteeringControllerSR.json
MAX_STEER_DEG = 30.23
K_SERVO, C_SERVO = 1e6, 2e4
DRIVE_GAIN, DRIVE_FEED_FORWARD, DRIVE_MAX = 2000.0, 70.0, 3000.0
K_STOP, C_STOP, STOP_TRANSITION = 1e6, 1e3, 0.01
SPRINGS_HIT_AT = 1.0         # s: the front wheels reach the bump (models/hmmwv.json)

SPEED = 16.0 / 3.6          # paper 002 §5.2: 16 km/h
BUMP_RADIUS = 0.05           # half-cylinder of diameter 0.1 m
FRONT_HITS_AT = 0.5          # s: the front wheels reach the bump (paper 002 §5.2)
K_BUSHING, C_BUSHING = 2e7, 2e6
K_TYRE, C_TYRE = 296325.0, 3502.0
TYRE_RADIUS = 0.4699         # HMMWV_Pac02Tire.tir UNLOADED_RADIUS
G = 9.81


def load(d, name):
    with open(os.path.join(d, name)) as f:
        return json.load(f)


def add(a, b):
    return [x + y for x, y in zip(a, b)]


def mirror(p, side):
    return [p[0], p[1] * side, p[2]]


def diag(m):
    # The upper control arms' moments (0.03, 0.03, 0.06276) break the triangle inequality of
    # a rigid body's principal moments; the largest is cut to the sum of the other two.
    m = list(m)
    for i in range(3):
        m[i] = min(m[i], m[(i + 1) % 3] + m[(i + 2) % 3])
    return [[m[0], 0, 0], [0, m[1], 0], [0, 0, m[2]]]


def combine(parts):
    """Mass, centre of mass and inertia (about it) of rigid parts (mass, com, 3x3 inertia)."""
    mass = sum(p[0] for p in parts)
    com = [sum(p[0] * p[1][i] for p in parts) / mass for i in range(3)]
    inertia = [[0.0] * 3 for _ in range(3)]
    for m, c, J in parts:
        r = [c[i] - com[i] for i in range(3)]
        rr = sum(x * x for x in r)
        for i in range(3):
            for j in range(3):
                inertia[i][j] += J[i][j] + m * ((rr if i == j else 0.0) - r[i] * r[j])
    return mass, com, inertia


def sub(a, b):
    return [x - y for x, y in zip(a, b)]


def dot(a, b):
    return sum(x * y for x, y in zip(a, b))


def cross(a, b):
    return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]


def unit(v):
    n = math.sqrt(dot(v, v))
    return [x / n for x in v]


def rotate(p, centre, axis, angle):
    """p turned by angle about the line through centre along the unit axis (Rodrigues)."""
    r = sub(p, centre)
    c, s = math.cos(angle), math.sin(angle)
    k = cross(axis, r)
    kr = dot(axis, r)
    return [centre[i] + r[i] * c + k[i] * s + axis[i] * kr * (1 - c) for i in range(3)]


def solve(A, b):
    """A x = b by Gaussian elimination with partial pivoting (small dense systems)."""
    n = len(b)
    M = [list(A[i]) + [b[i]] for i in range(n)]
    for i in range(n):
        p = max(range(i, n), key=lambda r: abs(M[r][i]))
        M[i], M[p] = M[p], M[i]
        for r in range(i + 1, n):
            f = M[r][i] / M[i][i]
            M[r] = [x - f * y for x, y in zip(M[r], M[i])]
    x = [0.0] * n
    for i in reversed(range(n)):
        x[i] = (M[i][n] - sum(M[i][j] * x[j] for j in range(i + 1, n))) / M[i][i]
    return x


def corner_pose(s, theta):
    """The double wishbone's points (data coordinates, left side, chassis fixed) with the
    lower arm turned by theta about its pivot axis: the upright's pose from its lower ball
    (given), its upper ball on the upper arm's circle and the tie rod's length, by Newton."""
    lca, uca, tie = s['Lower Control Arm'], s['Upper Control Arm'], s['Tierod']
    la = unit(sub(lca['Location Chassis Front'], lca['Location Chassis Back']))
    ua = unit(sub(uca['Location Chassis Front'], uca['Location Chassis Back']))
    lp, up = lca['Location Chassis Back'], uca['Location Chassis Back']
    L0, U0, T0 = lca['Location Upright'], uca['Location Upright'], tie['Location Upright']
    L = rotate(L0, lp, la, theta)
    rod = math.dist(T0, tie['Location Chassis'])

    def moved(p, x):  # upright point p: turned by the rotation vector x[:3] about L0, then L
        angle = math.sqrt(dot(x, x))
        q = rotate(p, L0, unit(x), angle) if angle > 0 else list(p)
        return add(sub(q, L0), L)

    def residual(x):
        U, T = moved(U0, x), moved(T0, x)
        return [dot(sub(U, up), ua) - dot(sub(U0, up), ua),
                dot(sub(U, up), sub(U, up)) - dot(sub(U0, up), sub(U0, up)),
                math.dist(T, tie['Location Chassis']) - rod]

    x = [0.0, 0.0, 1e-9]
    for _ in range(50):
        r = residual(x)
        if max(abs(v) for v in r) < 1e-14:
            break
        J = [[0.0] * 3 for _ in range(3)]
        for j in range(3):
            xp = list(x)
            xp[j] += 1e-7
            rp = residual(xp)
            for i in range(3):
                J[i][j] = (rp[i] - r[i]) / 1e-7
        x = [a - b for a, b in zip(x, solve(J, r))]
    U = moved(U0, x)
    # the upper arm's angle: its ball's turn about the arm's axis
    r0, r1 = sub(U0, up), sub(U, up)
    r0 = sub(r0, [dot(r0, ua) * a for a in ua])
    r1 = sub(r1, [dot(r1, ua) * a for a in ua])
    phi = math.atan2(dot(cross(r0, r1), ua), dot(r0, r1))
    return {"theta": theta, "moved": lambda p: moved(p, x),
            "lower": lambda p: rotate(p, lp, la, theta), "upper": lambda p: rotate(p, up, ua, phi)}


def spring_static_tension(s, wheel_load, upright_mass, g):
    """The spring's tension that holds the corner at its drawn (design) position under the
    tyre's vertical force wheel_load at the wheel centre: virtual work of the tyre, the weights
    of the upright (lumped at its centre of mass), the arms and the spring over the travel."""
    spring, lca, uca = s['Spring'], s['Lower Control Arm'], s['Upper Control Arm']
    h = 1e-5
    z, length = {}, {}
    for sign in (-1, 1):
        pose = corner_pose(s, sign * h)
        length[sign] = math.dist(spring['Location Chassis'], pose["lower"](spring['Location Arm']))
        z[sign] = (wheel_load * pose["moved"](s['Spindle']['COM'])[2]
                   - g * upright_mass * pose["moved"](s['Upright']['COM'])[2]
                   - g * lca['Mass'] * pose["lower"](lca['COM'])[2]
                   - g * uca['Mass'] * pose["upper"](uca['COM'])[2])
    # d(work of tyre and weights) = tension * d(length)
    return (z[1] - z[-1]) / (length[1] - length[-1])


def table_force(table, d):
    """The spring_table law F(d): engine/forces/force_spring_table.c's monotone cubic
    (Fritsch-Butland slopes, three-point ends, linear beyond the table)."""
    X, Y = [p[0] for p in table], [p[1] for p in table]
    n = len(X)

    def secant(i):
        return (Y[i + 1] - Y[i]) / (X[i + 1] - X[i])

    def slope(i):
        if i in (0, n - 1):
            a, b = (0, 1) if i == 0 else (n - 2, n - 3)
            h0, h1, s0, s1 = X[a + 1] - X[a], X[b + 1] - X[b], secant(a), secant(b)
            m = ((2 * h0 + h1) * s0 - h0 * s1) / (h0 + h1)
            if (m > 0) != (s0 > 0):
                return 0.0
            return 3 * s0 if (s0 > 0) != (s1 > 0) and abs(m) > 3 * abs(s0) else m
        h0, h1, s0, s1 = X[i] - X[i - 1], X[i + 1] - X[i], secant(i - 1), secant(i)
        if s0 * s1 <= 0:
            return 0.0
        w0, w1 = 2 * h1 + h0, h1 + 2 * h0
        return (w0 + w1) / (w0 / s0 + w1 / s1)
    if d < X[0]:
        return Y[0] + slope(0) * (d - X[0])
    if d >= X[-1]:
        return Y[-1] + slope(n - 1) * (d - X[-1])
    k = max(i for i in range(n - 1) if X[i] <= d)
    h, t = X[k + 1] - X[k], (d - X[k]) / (X[k + 1] - X[k])
    return (Y[k] * (2 * t**3 - 3 * t**2 + 1) + h * slope(k) * (t**3 - 2 * t**2 + t)
            + Y[k + 1] * (3 * t**2 - 2 * t**3) + h * slope(k + 1) * (t**3 - t**2))


def table_deflection(table, force):
    """The deflection d with F(d) = force (F increasing), by bisection."""
    lo, hi = -1.0, 1.0
    for _ in range(100):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if table_force(table, mid) < force else (lo, mid)
    return (lo + hi) / 2


def bushing_normals(axis):
    """Two unit directions normal to an arm's pivot axis: horizontal (axis x z), then vertical-ish."""
    def cross(a, b):
        return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]

    def unit(v):
        n = math.sqrt(sum(x * x for x in v))
        return [x / n for x in v]
    a = unit(axis)
    n1 = unit(cross(a, [0, 0, 1]))
    return n1, unit(cross(n1, a))


def rounded(v):
    if isinstance(v, list):
        return [rounded(x) for x in v]
    return round(v, 9) if isinstance(v, float) else v


def main():
    args = sys.argv[1:]
    springs = lane = paper = False
    if args[:1] == ['--paper002']:
        paper, args = True, args[1:]
    elif args[:1] == ['--lane-change']:
        springs = lane = True
        args = args[1:]
    elif args[:2] == ['--suspension', 'springs']:
        springs, args = True, args[2:]
    elif args[:1] == ['--suspension'] and args[1:2] != ['bushings']:
        sys.exit("hmmwv.py: --suspension takes 'springs' or 'bushings'")
    elif args[:1] == ['--suspension']:
        args = args[2:]
    d = args[0] if args else os.path.join(
        os.path.dirname(__file__), '..', '..', '..', 'shared', 'vehicles', 'hmmwv')
    vehicle = load(d, 'HMMWV_Vehicle.json')
    chassis = load(d, 'HMMWV_Chassis.json')['Components'][0]
    wheel = load(d, 'HMMWV_Wheel.json')
    steering = load(d, 'HMMWV_PitmanArm.json')
    susp = {'f': load(d, 'HMMWV_DoubleWishboneFront.json'),
            'r': load(d, 'HMMWV_DoubleWishboneRear.json')}
    where = {'f': vehicle['Axles'][0]['Suspension Location'],
             'r': vehicle['Axles'][1]['Suspension Location']}

    # Masses, to draw the wheels at the static deflection of an equal load per wheel.
    corner_mass = sum(susp['f'][k]['Mass'] for k in ('Spindle', 'Upright', 'Upper Control Arm',
                                                      'Lower Control Arm')) + wheel['Mass']
    # + the carriers the tyres hold up (two in the plane; paper002: only the heave carrier)
    total = (chassis['Mass'] + 4 * corner_mass + steering['Steering Link']['Mass']
             + (1.0 if paper else 2.0))
    tir = tir_numbers(os.path.join(os.path.dirname(__file__), '..', '..', 'data', 'tyres',
                                   'HMMWV_Pac02Tire.tir'))
    deflection = total * G / 4 / (tir['VERTICAL_STIFFNESS'] if lane else K_TYRE)
    if paper:
        free_length = static_free_lengths(susp, where, chassis, steering, vehicle, wheel)
    # The chassis reference's height: wheel centres (spindle COM z in the data) at radius - d.
    z_ref = TYRE_RADIUS - deflection - susp['f']['Spindle']['COM'][2]
    lift = [0.0, 0.0, z_ref]

    def at(axle, p, side):
        return add(add(where[axle], mirror(p, side)), lift)

    chassis_com = add(chassis['Centroidal Frame']['Location'], lift)
    bodies = [{"name": "ground", "ground": True, "points": {"O": [0, 0, 0]}}]
    free = lane or paper  # the chassis free in space (6 degrees of freedom)
    carriers = ("carrier", "sideways", "heave") if free else ("carrier", "heave")
    for name in carriers:
        bodies.append({"name": name, "mass": 1, "com": chassis_com,
                       "inertia": {"box": [0.2, 0.2, 0.2]}, "points": {"C": chassis_com}})
    chassis_body = {"name": "chassis", "mass": chassis['Mass'], "com": chassis_com,
                    "inertia": diag(chassis['Moments of Inertia']), "points": {"C": chassis_com}}
    bodies.append(chassis_body)
    if free:
        joints = [
            {"name": "drive", "type": "prismatic", "bodies": ["ground", "carrier"], "point": "C",
             "axis": "x"},
            {"name": "lateral", "type": "prismatic", "bodies": ["carrier", "sideways"],
             "point": "C", "axis": "y"},
            {"name": "bounce", "type": "prismatic", "bodies": ["sideways", "heave"], "point": "C",
             "axis": "z"},
            {"name": "attitude", "type": "spherical", "bodies": ["heave", "chassis"],
             "point": "C"},
        ]
    else:
        joints = [
            {"name": "drive", "type": "prismatic", "bodies": ["ground", "carrier"], "point": "C",
             "axis": "x"},
            {"name": "bounce", "type": "prismatic", "bodies": ["carrier", "heave"], "point": "C",
             "axis": "z"},
            {"name": "pitch", "type": "revolute", "bodies": ["heave", "chassis"], "point": "C",
             "axis": "y"},
        ]
    forces = []
    link = steering['Steering Link']
    steer_at = add(vehicle['Steering Subsystems'][0]['Location'], lift)
    rack = {"name": "rack", "mass": link['Mass'], "com": steer_at,
            "inertia": diag(link['Moments of Inertia']), "points": {"R": steer_at}}
    wheel_centres = {}
    for axle in ('f', 'r'):
        s = susp[axle]
        for side, sname in ((1, 'l'), (-1, 'r')):
            c = axle + sname  # fl, fr, rl, rr
            uca, lca = s['Upper Control Arm'], s['Lower Control Arm']
            spindle, upright = s['Spindle'], s['Upright']
            # Upright + spindle + wheel: one body (ASSUMPTIONS).
            wc = at(axle, spindle['COM'], side)
            wheel_centres[c] = wc
            mass, com, inertia = combine([
                (spindle['Mass'], wc, diag(spindle['Inertia'])),
                (upright['Mass'], at(axle, upright['COM'], side),
                 diag(upright['Moments of Inertia'])),
            ] + ([] if lane else [(wheel['Mass'], wc, diag(wheel['Inertia']))]))
            ball_u = at(axle, uca['Location Upright'], side)
            ball_l = at(axle, lca['Location Upright'], side)
            tie = at(axle, s['Tierod']['Location Upright'], side)
            bodies.append({"name": c + "_spindle", "mass": mass, "com": com, "inertia": inertia,
                           "points": {"W": wc, "U": ball_u, "L": ball_l, "T": tie}})
            for arm, data, ball in (("upper", uca, ball_u), ("lower", lca, ball_l)):
                front = at(axle, data['Location Chassis Front'], side)
                back = at(axle, data['Location Chassis Back'], side)
                pivot = [(a + b) / 2 for a, b in zip(front, back)]
                axis = [a - b for a, b in zip(front, back)]
                com_arm = at(axle, data['COM'], side)
                arm_points = {"P": pivot, "B": ball, "M": com_arm}
                if paper and arm == "upper":  # PAPER002_ASSUMPTIONS: spherical + bushing
                    chassis_body["points"][c + "_upper_front"] = front
                    arm_points["K"] = back
                    joints.append({"name": c + "_upper_pivot", "type": "spherical",
                                   "bodies": ["chassis", c + "_upper_arm"],
                                   "point": c + "_upper_front"})
                    for n, normal in enumerate(bushing_normals(axis)):
                        anchor = c + "_upper_bushing_" + "ab"[n]
                        chassis_body["points"][anchor] = [b + BUSHING_ARM * e
                                                          for b, e in zip(back, normal)]
                        forces.append({"name": anchor, "type": "tsda",
                                       "bodies": ["chassis", c + "_upper_arm"],
                                       "points": [anchor, "K"],
                                       "stiffness": "k_bushing", "damping": "c_bushing"})
                else:
                    chassis_body["points"][c + "_" + arm + "_pivot"] = pivot
                if (springs or paper) and arm == "lower":  # the spring's and shock's seats
                    arm_points["S"] = at(axle, s['Spring']['Location Arm'], side)
                    arm_points["D"] = at(axle, s['Shock']['Location Arm'], side)
                bodies.append({"name": c + "_" + arm + "_arm", "mass": data['Mass'],
                               "com": com_arm, "inertia": diag(data['Moments of Inertia']),
                               "points": arm_points})
                if not (paper and arm == "upper"):
                    joints.append({"name": c + "_" + arm + "_pivot", "type": "revolute",
                                   "bodies": ["chassis", c + "_" + arm + "_arm"],
                                   "point": c + "_" + arm + "_pivot", "axis": rounded(axis)})
                joints.append({"name": c + "_" + arm + "_ball", "type": "spherical",
                               "bodies": [c + "_" + arm + "_arm", c + "_spindle"], "point": "B"})
            inner = at(axle, s['Tierod']['Location Chassis'], side)
            joints.append({"name": c + "_tie_rod", "type": "rod",
                           "bodies": ["rack" if axle == 'f' else "chassis", c + "_spindle"],
                           "points": [rounded(inner), "T"]})
            if springs:
                spring, shock = s['Spring'], s['Shock']
                chassis_body["points"][c + "_spring_top"] = at(axle, spring['Location Chassis'],
                                                                side)
                chassis_body["points"][c + "_shock_top"] = at(axle, shock['Location Chassis'],
                                                               side)
                line = {"bodies": ["chassis", c + "_lower_arm"], "points": [c + "_spring_top", "S"]}
                forces.append({"name": c + "_spring", "type": "spring_table", **line,
                               "table": spring['Spring Curve Data'],
                               "free_length": spring['Free Length']})
                forces.append({"name": c + "_shock", "type": "tsda",
                               "bodies": ["chassis", c + "_lower_arm"],
                               "points": [c + "_shock_top", "D"],
                               "damping": "c_shock_" + axle})
                forces.append({"name": c + "_bump_stop", "type": "bump_stop", **line,
                               "min_length": spring['Minimum Length'],
                               "max_length": spring['Maximum Length'],
                               "stiffness": "k_stop", "damping": "c_stop",
                               "transition": "stop_transition"})
            elif paper:  # PAPER002_ASSUMPTIONS: the data's spring and shock, the drawing static
                spring, shock = s['Spring'], s['Shock']
                chassis_body["points"][c + "_spring_top"] = at(axle, spring['Location Chassis'],
                                                                side)
                chassis_body["points"][c + "_shock_top"] = at(axle, shock['Location Chassis'],
                                                               side)
                forces.append({"name": c + "_spring", "type": "spring_table",
                               "bodies": ["chassis", c + "_lower_arm"],
                               "points": [c + "_spring_top", "S"],
                               "table": spring['Spring Curve Data'],
                               "free_length": round(free_length[axle], 9)})
                forces.append({"name": c + "_shock", "type": "tsda",
                               "bodies": ["chassis", c + "_lower_arm"],
                               "points": [c + "_shock_top", "D"],
                               "damping": "c_shock_" + axle})
            else:
                chassis_body["points"][c + "_bushing_top"] = at(
                    axle, s['Shock']['Location Chassis'], side)
                forces.append({"name": c + "_bushing", "type": "tsda",
                               "bodies": ["chassis", c + "_upper_arm"],
                               "points": [c + "_bushing_top", "M"],
                               "stiffness": "k_bushing", "damping": "c_bushing"})
            if lane:  # the wheel turns on the spindle, on its Magic Formula tyre
                bodies.append({"name": c + "_wheel", "mass": wheel['Mass'], "com": wc,
                               "inertia": diag(wheel['Inertia']), "points": {"W": wc}})
                joints.append({"name": c + "_spin", "type": "revolute",
                               "bodies": [c + "_spindle", c + "_wheel"], "point": "W",
                               "axis": "y"})
                forces.append({"name": c + "_tyre", "type": "wheel", "body": c + "_wheel",
                               "point": "W", "axis": [0, 1, 0], "tyre": "pac2002",
                               "tyre_file": "../data/tyres/HMMWV_Pac02Tire.tir",
                               # the .tir file is a left tyre: the right ones mirrored
                               "side": "left" if side > 0 else "right"})
                continue
            forces.append({"name": c + "_tyre", "type": "tyre", "body": c + "_spindle",
                           "point": "W", "stiffness": "k_tyre", "damping": "c_tyre",
                           "radius": "tyre_radius", "bump": ["x_bump", "bump_radius", 0]})
    bodies.append(rack)
    joints.append({"name": "steering", "type": "prismatic", "bodies": ["chassis", "rack"],
                   "point": "R", "axis": "y",
                   **({} if lane else
                      {"driver": {"type": "polynomial", "coefficients": [0]}})})
    if lane:
        model = lane_change_model(susp, bodies, joints, forces, wheel_centres, tir)
        json.dump(model, sys.stdout, indent=1)
        sys.stdout.write("\n")
        return
    # The front wheels' centres reach the bump's leading edge at FRONT_HITS_AT (the springs
    # variant: at SPRINGS_HIT_AT, once the vehicle has settled from its design position).
    hits_at = SPRINGS_HIT_AT if springs else FRONT_HITS_AT
    x_bump = wheel_centres['fl'][0] + SPEED * hits_at + BUMP_RADIUS
    if springs:
        model = springs_model(susp, bodies, joints, forces, x_bump)
        json.dump(model, sys.stdout, indent=1)
        sys.stdout.write("\n")
        return
    if paper:
        assumptions = ([a for a in ASSUMPTIONS if "X-Z plane" not in a
                        and "stiff bushing" not in a] + PAPER002_ASSUMPTIONS)
        name, variant = "hmmwv-stiff-paper002", " --paper002"
    else:
        assumptions, name, variant = ASSUMPTIONS, "hmmwv-stiff", ""
    model = {
        "format": "eslabon-model", "version": 1, "name": name,
        "description": (
            "Paper 002's stiff HMMWV (§5.2) from the published HMMWV data (Project Chrono's "
            "data/vehicle/hmmwv, BSD-3-Clause, after Aardema, TACOM TR 13337): hard points, "
            "masses and inertias of the chassis, control arms, uprights, spindles and wheels; "
            "paper 002's stiff bushings (2e7 N/m, 2e6 N s/m) and vertical tyres (296,325 N/m, "
            "3,502 N s/m), 16 km/h over a half-cylinder bump of diameter 0.1 m (front wheels at "
            "0.5 s, rear at about 1.26 s), 5 s. Written by scripts/vehicles/hmmwv.py" + variant
            + ", which lists its assumptions: " + "; ".join(assumptions) + "."),
        "parameters": {**({"c_shock_f": susp['f']['Shock']['Damping Coefficient'],
                           "c_shock_r": susp['r']['Shock']['Damping Coefficient']} if paper else {}),
                       "k_bushing": K_BUSHING, "c_bushing": C_BUSHING, "k_tyre": K_TYRE,
                       "c_tyre": C_TYRE, "tyre_radius": TYRE_RADIUS,
                       "x_bump": round(x_bump, 6), "bump_radius": BUMP_RADIUS,
                       "speed": SPEED},
        "gravity": [0, 0, -G],
        "bodies": rounded(bodies), "joints": joints, "forces": forces,
        "initial": [{"joint": "drive", "velocity": "speed"}],
    }
    json.dump(model, sys.stdout, indent=1)
    sys.stdout.write("\n")


def static_free_lengths(susp, where, chassis, steering, vehicle, wheel):
    """--paper002: each axle's spring free length that makes the drawn (design) position the
    statics: the tyres' loads by the moments of the sprung masses (chassis, rack, the heave
    carrier at the chassis' centre of mass) about the axles, plus the corners' masses; the
    spring's tension from the virtual work over the corner's travel; the free length from the
    data's spring curve."""
    xf, xr = where['f'][0], where['r'][0]
    sprung = [(chassis['Mass'] + 1.0, chassis['Centroidal Frame']['Location'][0]),
              (steering['Steering Link']['Mass'], vehicle['Steering Subsystems'][0]['Location'][0])]
    front = sum(m * (x - xr) / (xf - xr) for m, x in sprung)
    axle_sprung = {'f': front, 'r': sum(m for m, _ in sprung) - front}
    lengths = {}
    for axle in ('f', 'r'):
        s = susp[axle]
        corner = sum(s[k]['Mass'] for k in ('Spindle', 'Upright', 'Upper Control Arm',
                                              'Lower Control Arm')) + wheel['Mass']
        tyre = (axle_sprung[axle] / 2 + corner) * G
        # the spindle and the wheel hang at the wheel centre: their weight nets off the tyre's
        tension = spring_static_tension(s, tyre - G * (s['Spindle']['Mass'] + wheel['Mass']),
                                        s['Upright']['Mass'], G)
        drawn = math.dist(s['Spring']['Location Chassis'], s['Spring']['Location Arm'])
        lengths[axle] = drawn - table_deflection(s['Spring']['Spring Curve Data'], tension)
    return lengths


def tir_numbers(path):
    """The plain numbers of a .tir file (NAME = value $comment)."""
    numbers = {}
    with open(path) as f:
        for line in f:
            key, eq, rest = line.partition('=')
            if eq:
                try:
                    numbers[key.strip()] = float(rest.split('$')[0])
                except ValueError:
                    pass
    return numbers


def lane_change_model(susp, bodies, joints, forces, wheel_centres, tir):
    """models/hmmwv-lane-change.json: MF tyres, free in space, the driver on ISO 3888-1."""
    assumptions = ([a for a in ASSUMPTIONS if "stiff bushing" not in a and "X-Z plane" not in a
                    and "held at 0 by a driver" not in a and "vertical TSDAs" not in a
                    and "upright, spindle and wheel are one body" not in a]
                   + SPRINGS_ASSUMPTIONS + LANE_CHANGE_ASSUMPTIONS)
    front = susp['f']
    # full lock as rack travel: the tie rod's arm about the kingpin times sin(max steer)
    kingpin_x = (front['Upper Control Arm']['Location Upright'][0]
                 + front['Lower Control Arm']['Location Upright'][0]) / 2
    arm = front['Tierod']['Location Upright'][0] - kingpin_x
    rack_lock = abs(arm) * math.sin(math.radians(MAX_STEER_DEG))
    left = -1 if arm < 0 else 1  # a tie rod behind the kingpin: the rack's +Y steers right
    width = 2 * wheel_centres['fl'][1] + tir['WIDTH']
    radius = tir['UNLOADED_RADIUS']
    forces = list(forces)
    forces.append({"name": "driver_steering", "type": "path_follower", "joint": "steering",
                   "body": "chassis", "point": "C", "forward": [1, 0, 0],
                   "preview": "preview", "lateral_gain": "lateral_gain",
                   "max_command": "rack_lock", "left": left,
                   "stiffness": K_SERVO, "damping": C_SERVO})
    for c in ("rl", "rr"):
        forces.append({"name": c + "_drive", "type": "speed_control", "joint": c + "_spin",
                       "body": "chassis", "point": "C", "forward": [1, 0, 0],
                       "speed": "speed", "gain": "drive_gain",
                       "feed_forward": DRIVE_FEED_FORWARD / 2, "max_torque": DRIVE_MAX})
    spin = LANE_CHANGE_SPEED / radius
    return {
        "format": "eslabon-model", "version": 1, "name": "hmmwv-lane-change",
        "description": (
            "The HMMWV from the published data (Project Chrono's data/vehicle/hmmwv, "
            "BSD-3-Clause, after Aardema, TACOM TR 13337) on its own suspension (the data's "
            "spring curves, shocks and bump stops, as hmmwv.json) with Magic Formula tyres "
            "(PAC2002, HMMWV_Pac02Tire.tir), driven through the ISO 3888-1 double lane change "
            "at 60 km/h (lane 1 from x = 40 m, vehicle width %.2f m) by the driver: a "
            "path_follower on the steering rack and a speed_control on each rear wheel; 10 s. "
            "Written by scripts/vehicles/hmmwv.py --lane-change, "
            "which lists its assumptions: " % width + "; ".join(assumptions) + "."),
        "parameters": {"c_shock_f": susp['f']['Shock']['Damping Coefficient'],
                       "c_shock_r": susp['r']['Shock']['Damping Coefficient'],
                       "k_stop": K_STOP, "c_stop": C_STOP, "stop_transition": STOP_TRANSITION,
                       "speed": round(LANE_CHANGE_SPEED, 9),
                       "preview": round(PREVIEW_TIME * LANE_CHANGE_SPEED, 9),
                       "rack_lock": round(rack_lock, 9),
                       "lateral_gain": round(LATERAL_GAIN * rack_lock, 9),
                       "drive_gain": DRIVE_GAIN},
        "gravity": [0, 0, -G],
        "road": {"height": 0, "mu": 1},
        "path": {"type": "iso3888-1", "vehicle_width": round(width, 6), "start": LANE_START},
        "bodies": rounded(bodies), "joints": joints, "forces": forces,
        "initial": [{"joint": "drive", "velocity": "speed"}]
                   + [{"joint": c + "_spin", "velocity": round(spin, 9)}
                      for c in ("fl", "fr", "rl", "rr")],
    }


def springs_model(susp, bodies, joints, forces, x_bump):
    """models/hmmwv.json: the data's springs, shocks and bump stops instead of the bushings."""
    assumptions = [a for a in ASSUMPTIONS if "stiff bushing" not in a] + SPRINGS_ASSUMPTIONS
    return {
        "format": "eslabon-model", "version": 1, "name": "hmmwv",
        "description": (
            "The HMMWV from the published data (Project Chrono's data/vehicle/hmmwv, "
            "BSD-3-Clause, after Aardema, TACOM TR 13337) on its own suspension: the data's "
            "spring curves (spring_table with the free length), shocks (linear dampers of the "
            "data's damping coefficient) and bump stops at the springs' minimum and maximum "
            "lengths; paper 002's vertical tyres (296,325 N/m, 3,502 N s/m); 16 km/h over a "
            "half-cylinder bump of diameter 0.1 m (front wheels at 1 s), 5 s. Written by scripts/vehicles/hmmwv.py "
            "--suspension springs, which lists its assumptions: " + "; ".join(assumptions) + "."),
        "parameters": {"c_shock_f": susp['f']['Shock']['Damping Coefficient'],
                       "c_shock_r": susp['r']['Shock']['Damping Coefficient'],
                       "k_stop": K_STOP, "c_stop": C_STOP, "stop_transition": STOP_TRANSITION,
                       "k_tyre": K_TYRE,
                       "c_tyre": C_TYRE, "tyre_radius": TYRE_RADIUS,
                       "x_bump": round(x_bump, 6), "bump_radius": BUMP_RADIUS,
                       "speed": SPEED},
        "gravity": [0, 0, -G],
        "bodies": rounded(bodies), "joints": joints, "forces": forces,
        "initial": [{"joint": "drive", "velocity": "speed"}],
    }


if __name__ == '__main__':
    main()
