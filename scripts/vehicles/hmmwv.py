#!/usr/bin/env python3
"""Writes models/hmmwv-stiff.json: paper 002's stiff HMMWV (§5.2) from the published HMMWV data.

usage: scripts/vehicles/hmmwv.py [SHARED_VEHICLES_DIR] > models/hmmwv-stiff.json

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


def rounded(v):
    if isinstance(v, list):
        return [rounded(x) for x in v]
    return round(v, 9) if isinstance(v, float) else v


def main():
    d = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
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
    total = chassis['Mass'] + 4 * corner_mass + steering['Steering Link']['Mass'] + 2.0
    deflection = total * G / 4 / K_TYRE
    # The chassis reference's height: wheel centres (spindle COM z in the data) at radius - d.
    z_ref = TYRE_RADIUS - deflection - susp['f']['Spindle']['COM'][2]
    lift = [0.0, 0.0, z_ref]

    def at(axle, p, side):
        return add(add(where[axle], mirror(p, side)), lift)

    chassis_com = add(chassis['Centroidal Frame']['Location'], lift)
    bodies = [{"name": "ground", "ground": True, "points": {"O": [0, 0, 0]}}]
    for name in ("carrier", "heave"):
        bodies.append({"name": name, "mass": 1, "com": chassis_com,
                       "inertia": {"box": [0.2, 0.2, 0.2]}, "points": {"C": chassis_com}})
    chassis_body = {"name": "chassis", "mass": chassis['Mass'], "com": chassis_com,
                    "inertia": diag(chassis['Moments of Inertia']), "points": {"C": chassis_com}}
    bodies.append(chassis_body)
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
                (wheel['Mass'], wc, diag(wheel['Inertia'])),
            ])
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
                chassis_body["points"][c + "_" + arm + "_pivot"] = pivot
                bodies.append({"name": c + "_" + arm + "_arm", "mass": data['Mass'],
                               "com": com_arm, "inertia": diag(data['Moments of Inertia']),
                               "points": {"P": pivot, "B": ball, "M": com_arm}})
                joints.append({"name": c + "_" + arm + "_pivot", "type": "revolute",
                               "bodies": ["chassis", c + "_" + arm + "_arm"],
                               "point": c + "_" + arm + "_pivot", "axis": rounded(axis)})
                joints.append({"name": c + "_" + arm + "_ball", "type": "spherical",
                               "bodies": [c + "_" + arm + "_arm", c + "_spindle"], "point": "B"})
            inner = at(axle, s['Tierod']['Location Chassis'], side)
            joints.append({"name": c + "_tie_rod", "type": "rod",
                           "bodies": ["rack" if axle == 'f' else "chassis", c + "_spindle"],
                           "points": [rounded(inner), "T"]})
            chassis_body["points"][c + "_bushing_top"] = at(axle, s['Shock']['Location Chassis'],
                                                            side)
            forces.append({"name": c + "_bushing", "type": "tsda",
                           "bodies": ["chassis", c + "_upper_arm"],
                           "points": [c + "_bushing_top", "M"],
                           "stiffness": "k_bushing", "damping": "c_bushing"})
            forces.append({"name": c + "_tyre", "type": "tyre", "body": c + "_spindle",
                           "point": "W", "stiffness": "k_tyre", "damping": "c_tyre",
                           "radius": "tyre_radius", "bump": ["x_bump", "bump_radius", 0]})
    bodies.append(rack)
    joints.append({"name": "steering", "type": "prismatic", "bodies": ["chassis", "rack"],
                   "point": "R", "axis": "y",
                   "driver": {"type": "polynomial", "coefficients": [0]}})
    # The front wheels' centres reach the bump's leading edge at FRONT_HITS_AT.
    x_bump = wheel_centres['fl'][0] + SPEED * FRONT_HITS_AT + BUMP_RADIUS
    model = {
        "format": "eslabon-model", "version": 1, "name": "hmmwv-stiff",
        "description": (
            "Paper 002's stiff HMMWV (§5.2) from the published HMMWV data (Project Chrono's "
            "data/vehicle/hmmwv, BSD-3-Clause, after Aardema, TACOM TR 13337): hard points, "
            "masses and inertias of the chassis, control arms, uprights, spindles and wheels; "
            "paper 002's stiff bushings (2e7 N/m, 2e6 N s/m) and vertical tyres (296,325 N/m, "
            "3,502 N s/m), 16 km/h over a half-cylinder bump of diameter 0.1 m (front wheels at "
            "0.5 s, rear at about 1.26 s), 5 s. Written by scripts/vehicles/hmmwv.py, which "
            "lists its assumptions: " + "; ".join(ASSUMPTIONS) + "."),
        "parameters": {"k_bushing": K_BUSHING, "c_bushing": C_BUSHING, "k_tyre": K_TYRE,
                       "c_tyre": C_TYRE, "tyre_radius": TYRE_RADIUS,
                       "x_bump": round(x_bump, 6), "bump_radius": BUMP_RADIUS,
                       "speed": SPEED},
        "gravity": [0, 0, -G],
        "bodies": rounded(bodies), "joints": joints, "forces": forces,
        "initial": [{"joint": "drive", "velocity": "speed"}],
    }
    json.dump(model, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == '__main__':
    main()
