#!/usr/bin/env python3
"""Writes models/coach.json: paper 000's coach (§5, "a Noge Touring 345 with frame from
Mercedes-Benz": 16 DOF, 2 s lane change at 50 km/h) where the paper gives a number, and the open
city-bus data where it does not.

usage: scripts/vehicles/coach.py [SHARED_VEHICLES_DIR] > models/coach.json

Sources, named beside every number below:
- "paper 000": Callejo, Narayanan, García de Jalón, Norris, Adv. Eng. Softw. 2014, §5 (the coach):
  17,048 kg loaded; two axles, front independent, rear rigid with dual wheels; six linear air
  springs, six piecewise bilinear dampers, two stabiliser bars as angular springs between their
  ends; the bodywork as two bodies joined by a longitudinal revolute joint with a torsion spring;
  Magic Formula tyres; steering actuator guided by delta(t) = 0.013 sin(pi t) rad, t in [0, 2];
  50 km/h; 16 DOF.
- "city bus": ../shared/vehicles/citybus/ (Project Chrono's data/vehicle/citybus, BSD-3-Clause;
  the notice is data/tyres/LICENSE-chrono-data and NOTICE): wheelbase, front track, dual-wheel
  separation, chassis centre of mass and moments, wheel, knuckle, spindle, link and axle masses,
  shock damping, and the tyre CityBus_Pac02Tire.tir (315/80 R22.5).
- "assumed": neither gives it; ASSUMPTIONS says what and why.
"""
import json
import math
import os
import sys

G = 9.81
SPEED = 50 / 3.6                 # paper 000: 50 km/h
STEER_AMPLITUDE = 0.013          # paper 000: delta(t) = 0.013 sin(pi t) rad
STEER_OMEGA = math.pi            # paper 000
TOTAL_MASS = 17048.0             # paper 000: loaded coach, kg
TYRE_FILE = "../data/tyres/CityBus_Pac02Tire.tir"   # city bus (copied unchanged)
SIDE = {1: "left", -1: "right"}  # the wheel's "side": the .tir file is a left tyre (TYRESIDE)
DRIVE_GAIN, DRIVE_MAX = 1e4, 6000.0  # assumed: see ASSUMPTIONS (speed)
CARRIER_MASS = 1.0               # assumed: see ASSUMPTIONS (measured effect in the description)

ASSUMPTIONS = [
    "the chassis (the front half of the bodywork) has its 6 DOF through prismatic X, Y, Z "
    "joints and a spherical joint (rotations about X, Y, Z) from the ground, via three carrier "
    "bodies of 1 kg (the format has no free joint; the carriers add 3 kg of translational "
    "inertia, 1 kg of weight on the tyres, 0.006 % of the coach; measured in matrix-r at 1 ms: carriers of 0.1 and 10 kg move the bodywork's path by 4.4e-5 m sideways and 2.2e-4 m in height over the lane change)",
    "the bodywork is split at the sprung centre of mass into two halves of equal mass whose "
    "centres are L/4 before and behind it (L = sqrt(12 Izz / m), the length of a uniform body "
    "of that yaw moment), so the halves' moments sum to the whole's",
    "sprung mass = paper 000's 17,048 kg minus the unsprung parts below; its centre of mass and "
    "roll and yaw moments are the city bus chassis' (x = 4.0 m behind the front axle, 0.86 m "
    "high, Ixx 13.5e3, Izz 115.1e3 kg m^2) scaled by mass; its pitch moment is taken equal to "
    "the yaw moment (the data's 13.5e3 kg m^2 is not a 12 m body's)",
    "bodywork torsion spring 4e6 N m/rad (70 kN m/deg, the order of a coach body) with 1e4 "
    "N m s/rad damping",
    "front independent suspension: a lower arm (the city bus lower link's 25 kg) pivoting about "
    "X on the chassis, an upright (knuckle 15 kg + spindle 5 kg of the city bus) on a ball joint "
    "at its end, the upper A-arm as two massless rods from the upper ball joint to the chassis "
    "(paper 003 eliminates such bodies the same way); kingpin inclination 8.1 deg, no caster",
    "steering: an actuator body (5 kg) turning about Z on the chassis, guided by paper 000's "
    "delta(t); two massless tie rods from its arm to the uprights' steering arms, both arms "
    "0.25 m long, so the road wheels turn by about delta (the paper gives no steering ratio)",
    "rear rigid axle (the city bus axle tube, 100 kg) on a longitudinal link (60 kg, pivoting "
    "about Y on the chassis 1 m before the axle) and rolling about X at the link's end",
    "each dual wheel set is one body carrying two tyres 0.33528 m apart (city bus wheel "
    "separation); a wheel is the city bus rim (30 kg) plus a 65 kg tyre (a 315/80 R22.5's mass, "
    "its spin moment m (R0^2 + Rrim^2)/2): the rim's 0.63 kg m^2 alone makes the wheel spin an "
    "O(1e-4 s) mode",
    "six linear air springs, preloaded to carry the static load at the drawn position: two "
    "front (on the lower arms), four rear (two per side on the axle, 0.35 m before and behind "
    "it); rates for a 1.2 Hz bounce of the sprung mass at each wheel",
    "six bilinear dampers: rebound slope at low speed the city bus shock's (front 20,000 N s/m "
    "at the wheel, rear 35,000 N s/m per side), compression a third of rebound, beyond a knee of "
    "0.13 m/s both slopes a third of their low-speed values",
    "stabiliser bars: solid steel (G = 79.3 GPa), 60 mm diameter, 1.2 m torsion length; the "
    "front one is two halves hinged to the chassis and to each other, linked to the lower arms "
    "by vertical drop links (massless rods); the rear one's arms are half as long as its drop "
    "links' spread, so its twist is the axle's roll and it acts on the roll joint",
    "speed: the coach starts at 50 km/h with its wheels rolling freely and a speed_control on "
    "each rear dual-wheel set holds it (paper 000 holds 50 km/h; here proportional with a "
    "feed-forward, integral_gain 0): gain 10,000 N m per m/s per side (a time "
    "constant m Re / (2 K) of 0.45 s), feed-forward the rolling resistance QSY1 R0 m g / 2 per "
    "side (the tyres' My at the static loads), limit 6,000 N m per side (a coach's axle torque "
    "in a high gear, assumed)",
    "flat road, mu 1; each part drawn at a static load estimate (lever rule), so the coach "
    "starts near its equilibrium",
]

TYRE = {}


def read_tir(path):
    values = {}
    with open(path) as f:
        for line in f:
            line = line.split("$")[0].strip()
            if "=" in line:
                k, v = (x.strip() for x in line.split("=", 1))
                try:
                    values[k] = float(v)
                except ValueError:
                    pass
    return values


def rolling_radius(fz):
    """PAC2002's effective rolling radius at a load (the law's own formula)."""
    t = TYRE
    rho = fz / t["FNOMIN"]
    return t["UNLOADED_RADIUS"] - t["FNOMIN"] / t["VERTICAL_STIFFNESS"] * (
        t["DREFF"] * math.atan(t["BREFF"] * rho) + t["FREFF"] * rho)


def box(m, a, b, c):
    return [[m * (b * b + c * c) / 12, 0, 0], [0, m * (a * a + c * c) / 12, 0],
            [0, 0, m * (a * a + b * b) / 12]]


def diag(a, b, c):
    return [[a, 0, 0], [0, b, 0], [0, 0, c]]


def r9(v):
    if isinstance(v, list):
        return [r9(x) for x in v]
    return round(v, 9) if isinstance(v, float) else v


def load(d, name):
    text = open(os.path.join(d, name)).read()
    # The city bus files carry // comments.
    return json.loads("\n".join(l.split("//")[0] for l in text.splitlines()))


def main():
    d = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(__file__), "..", "..", "..", "shared", "vehicles", "citybus")
    vehicle = load(d, "CityBus_Vehicle.json")
    chassis = load(d, "CityBus_Chassis.json")["Components"][0]
    front = load(d, "CityBus_SolidAxleFront.json")
    rear = load(d, "CityBus_SolidAxleRear.json")
    wheel = load(d, "CityBus_Wheel.json")
    TYRE.update(read_tir(os.path.join(os.path.dirname(__file__), "..", "..", "data", "tyres",
                                      "CityBus_Pac02Tire.tir")))
    R0, kz = TYRE["UNLOADED_RADIUS"], TYRE["VERTICAL_STIFFNESS"]
    rim_radius = TYRE["RIM_RADIUS"]

    wheelbase = vehicle["Wheelbase"]                              # city bus 7.184 m
    dual_gap = vehicle["Axles"][1]["Wheel Separation"]            # city bus 0.33528 m
    y_front = front["Spindle"]["COM"][1]                          # city bus 1.1275 m
    y_rear = rear["Spindle"]["COM"][1]                            # city bus 0.95986 m (inner)
    x_f, x_r = 0.0, -wheelbase

    # Masses (kg) and inertias.
    m_rim, I_rim = wheel["Mass"], wheel["Inertia"]                # city bus 30 kg
    m_tyre = 65.0                                                 # assumed
    m_wheel = m_rim + m_tyre
    I_wheel_spin = I_rim[1] + m_tyre * (R0 ** 2 + rim_radius ** 2) / 2
    I_wheel_tr = I_rim[0] + m_tyre * (3 * (R0 ** 2 + rim_radius ** 2) + TYRE["WIDTH"] ** 2) / 12
    m_arm = front["Lower Link"]["Mass"]                           # city bus 25 kg
    m_upright = front["Knuckle"]["Mass"] + front["Spindle"]["Mass"]   # city bus 15 + 5 kg
    m_actuator, m_bar_half, m_link = 5.0, 15.0, 60.0              # assumed
    m_axle = rear["Axle Tube"]["Mass"]                            # city bus 100 kg
    m_dual = 2 * m_wheel
    unsprung = (2 * (m_arm + m_upright + m_wheel) + m_actuator + 2 * m_bar_half + m_link
                + m_axle + 2 * m_dual)
    m_sprung = TOTAL_MASS - unsprung
    scale = m_sprung / chassis["Mass"]
    x_c = chassis["Centroidal Frame"]["Location"][0]              # city bus -4.0 m
    z_c = chassis["Centroidal Frame"]["Location"][2]              # city bus 0.86 m
    Ixx = chassis["Moments of Inertia"][0] * scale
    Izz = chassis["Moments of Inertia"][2] * scale
    Iyy = Izz                                                     # assumed (see ASSUMPTIONS)

    # Static loads by the lever rule (the sprung mass between the axles).
    front_share = (x_c - x_r) / (x_f - x_r)
    W_front_corner = m_sprung * G * front_share / 2               # sprung load per front wheel
    W_rear_side = m_sprung * G * (1 - front_share) / 2
    F_tyre_front = W_front_corner + (m_arm + m_upright + m_wheel + m_actuator / 2 + m_bar_half) * G
    F_tyre_rear = W_rear_side + (m_dual + (m_axle + m_link) / 2) * G     # per side, two tyres
    z_wf = R0 - F_tyre_front / kz
    z_wr = R0 - F_tyre_rear / 2 / kz

    # Front corner geometry (left side; y mirrored for the right).
    z_low = z_wf - 0.15                                           # lower arm plane
    y_pivot, y_ball, y_spring = 0.30, 0.95, 0.85
    z_up, y_up = z_wf + 0.20, 0.90                                # upper ball joint
    lever_wheel, lever_spring = y_front - y_pivot, y_spring - y_pivot
    motion_ratio = lever_spring / lever_wheel
    f_bounce = 1.2                                                # assumed, Hz
    k_wheel_front = (W_front_corner / G) * (2 * math.pi * f_bounce) ** 2
    k_spring_front = k_wheel_front / motion_ratio ** 2
    c_front = front["Shock"]["Damping Coefficient"] / motion_ratio ** 2   # city bus 20,000
    # Spring preload from the arm's moments about its pivot (the upper rods are horizontal).
    V_ball = F_tyre_front - (m_upright + m_wheel) * G
    F_spring_front = (V_ball * (y_ball - y_pivot) - m_arm * G * (y_ball - y_pivot) / 2) / lever_spring

    # Rear: link pivot 1 m before the axle; springs 0.35 m before and behind the axle.
    x_pivot, dx_spring = x_r + 1.0, 0.35
    y_spring_r, y_damper_r = 0.62, 0.55
    k_spring_rear = (W_rear_side / G) * (2 * math.pi * f_bounce) ** 2 / 2
    c_rear = rear["Shock"]["Damping Coefficient"] / 2             # city bus 35,000 per side
    # Moments of axle + link about the link's pivot, per side: the tyres at 1 m, the axle and
    # wheels at 1 m, the link at 0.5 m, the springs at 0.65 and 1.35 m with equal forces.
    F_spring_rear = (F_tyre_rear * 1.0 - (m_dual + m_axle / 2) * G * 1.0
                     - m_link / 2 * G * 0.5) / ((1.0 - dx_spring) + (1.0 + dx_spring))

    bar_k = 79.3e9 * math.pi * 0.06 ** 4 / 32 / 1.2               # assumed bar, N m/rad

    lift_spring = 0.45
    # Bodies.
    half_d = math.sqrt(12 * Izz / m_sprung) / 4
    m_half = m_sprung / 2
    I_half = diag(Ixx / 2, (Iyy - m_sprung * half_d ** 2) / 2, (Izz - m_sprung * half_d ** 2) / 2)
    c_front_body = [x_c + half_d, 0.0, z_c]
    c_rear_body = [x_c - half_d, 0.0, z_c]
    hinge = [x_c, 0.0, z_c]
    bodies = [{"name": "ground", "ground": True, "points": {"O": [0, 0, 0]}}]
    for name in ("carrier_x", "carrier_y", "carrier_z"):
        bodies.append({"name": name, "mass": "m_carrier", "com": c_front_body,
                       "inertia": {"box": [0.2, 0.2, 0.2]}, "points": {"C": c_front_body}})
    body_front = {"name": "body_front", "mass": m_half, "com": c_front_body, "inertia": I_half,
                  "points": {"C": c_front_body, "H": hinge,
                             "nose": [x_f + 1.0, 0.0, z_c], "tail": [x_c, 0.0, z_c]}}
    body_rear = {"name": "body_rear", "mass": m_half, "com": c_rear_body, "inertia": I_half,
                 "points": {"C": c_rear_body, "H": hinge}}
    bodies += [body_front, body_rear]
    joints = [
        {"name": "drive", "type": "prismatic", "bodies": ["ground", "carrier_x"], "point": "C",
         "axis": "x"},
        {"name": "lateral", "type": "prismatic", "bodies": ["carrier_x", "carrier_y"],
         "point": "C", "axis": "y"},
        {"name": "bounce", "type": "prismatic", "bodies": ["carrier_y", "carrier_z"],
         "point": "C", "axis": "z"},
        {"name": "attitude", "type": "spherical", "bodies": ["carrier_z", "body_front"],
         "point": "C"},
        {"name": "torsion", "type": "revolute", "bodies": ["body_front", "body_rear"],
         "point": "H", "axis": "x"},
    ]
    forces = [{"name": "body_torsion", "type": "rsda", "joint": "torsion",
               "stiffness": "k_torsion", "damping": "c_torsion"}]

    def damper(name, b1, b2, p1, p2, c_low):
        return {"name": name, "type": "damper_bilinear", "bodies": [b1, b2], "points": [p1, p2],
                "rebound_damping": r9(c_low), "rebound_damping_high": r9(c_low / 3),
                "rebound_knee": 0.13,
                "compression_damping": r9(c_low / 3), "compression_damping_high": r9(c_low / 9),
                "compression_knee": 0.13}

    # Steering actuator: turns about Z; its arm points 0.25 m behind it, 0.25 m to each side.
    act = [x_f, 0.0, z_wf - 0.05]
    bodies.append({"name": "steering", "mass": m_actuator, "com": act,
                   "inertia": {"box": [0.3, 0.6, 0.1]},
                   "points": {"P": act, "TL": [x_f - 0.25, 0.25, act[2]],
                              "TR": [x_f - 0.25, -0.25, act[2]]}})
    joints.append({"name": "steer", "type": "revolute", "bodies": ["body_front", "steering"],
                   "point": "P", "axis": "z",
                   "driver": {"type": "sine", "amplitude": "steer_amplitude",
                              "omega": "steer_omega"}})
    # Front stabiliser bar: axis along Y 0.35 m behind the axle, 0.2 m above the arms.
    bar_axis = [x_f - 0.35, 0.0, z_low + 0.2]
    for side, s in ((1, "l"), (-1, "r")):
        c = "f" + s
        y = lambda v: v * side
        W = [x_f, y(y_front), z_wf]
        L = [x_f, y(y_ball), z_low]
        U = [x_f, y(y_up), z_up]
        T = [x_f - 0.25, y(y_ball - 0.1), act[2]]
        pivot = [x_f, y(y_pivot), z_low]
        S = [x_f, y(y_spring), z_low]
        D = [x_f + 0.15, y(y_spring - 0.05), z_low]
        drop = [x_f, y(0.6), z_low]
        arm_com = [x_f, y((y_pivot + y_ball) / 2), z_low]
        bodies.append({"name": c + "_arm", "mass": m_arm, "com": arm_com,
                       "inertia": box(m_arm, 0.4, y_ball - y_pivot, 0.08),
                       "points": {"P": pivot, "L": L, "S": S, "D": D, "drop": drop}})
        upright_com = [x_f, y(y_front - 0.1), z_wf]
        bodies.append({"name": c + "_upright", "mass": m_upright, "com": upright_com,
                       "inertia": box(m_upright, 0.2, 0.2, 0.45),
                       "points": {"W": W, "L": L, "U": U, "T": T}})
        bodies.append({"name": c + "_wheel", "mass": m_wheel, "com": W,
                       "inertia": diag(I_wheel_tr, I_wheel_spin, I_wheel_tr),
                       "points": {"W": W}})
        body_front["points"].update({
            c + "_pivot": pivot, c + "_spring_top": [S[0], S[1], S[2] + lift_spring],
            c + "_damper_top": [D[0], D[1], D[2] + lift_spring],
            c + "_upper_front": [x_f + 0.2, y(0.45), z_up],
            c + "_upper_back": [x_f - 0.2, y(0.45), z_up]})
        joints += [
            {"name": c + "_arm_pivot", "type": "revolute", "bodies": ["body_front", c + "_arm"],
             "point": c + "_pivot", "axis": "x"},
            {"name": c + "_ball", "type": "spherical", "bodies": [c + "_arm", c + "_upright"],
             "point": "L"},
            {"name": c + "_spin", "type": "revolute", "bodies": [c + "_upright", c + "_wheel"],
             "point": "W", "axis": "y"},
            {"name": c + "_upper_front_rod", "type": "rod",
             "bodies": ["body_front", c + "_upright"], "points": [c + "_upper_front", "U"]},
            {"name": c + "_upper_back_rod", "type": "rod",
             "bodies": ["body_front", c + "_upright"], "points": [c + "_upper_back", "U"]},
            {"name": c + "_tie_rod", "type": "rod", "bodies": ["steering", c + "_upright"],
             "points": ["T" + s.upper(), "T"]},
        ]
        forces += [
            {"name": c + "_air_spring", "type": "tsda", "bodies": ["body_front", c + "_arm"],
             "points": [c + "_spring_top", "S"], "stiffness": "k_air_front",
             "preload": r9(-F_spring_front)},
            damper(c + "_damper", "body_front", c + "_arm", c + "_damper_top", "D", c_front),
            {"name": c + "_tyre", "type": "wheel", "body": c + "_wheel", "point": "W",
             "axis": [0, 1, 0], "tyre": "pac2002", "tyre_file": TYRE_FILE,
             "side": SIDE[side]},
        ]
        # The bar half of this side: its arm tip 0.35 m forward of the bar axis, over the drop.
        half = "front_bar_" + s
        tip = [x_f, y(0.6), bar_axis[2]]
        bodies.append({"name": half, "mass": m_bar_half,
                       "com": [bar_axis[0], y(0.3), bar_axis[2]],
                       "inertia": box(m_bar_half, 0.1, 0.6, 0.1),
                       "points": {"A": bar_axis, "tip": tip}})
        joints.append({"name": c + "_drop_link", "type": "rod", "bodies": [half, c + "_arm"],
                       "points": ["tip", "drop"]})
    body_front["points"]["bar"] = bar_axis
    joints += [
        {"name": "front_bar_mount", "type": "revolute", "bodies": ["body_front", "front_bar_l"],
         "point": "bar", "axis": "y"},
        {"name": "front_bar_twist", "type": "revolute", "bodies": ["front_bar_l", "front_bar_r"],
         "point": "A", "axis": "y"},
    ]
    forces.append({"name": "front_stabiliser", "type": "antiroll_bar",
                   "joint": "front_bar_twist", "bar_diameter": 0.06, "bar_length": 1.2,
                   "shear_modulus": 79.3e9})

    # Rear axle on its link.
    axle_c = [x_r, 0.0, z_wr]
    link_pivot = [x_pivot, 0.0, z_wr - 0.1]
    body_rear["points"]["link_pivot"] = link_pivot
    bodies.append({"name": "rear_link", "mass": m_link,
                   "com": [(x_pivot + x_r) / 2, 0.0, z_wr - 0.05],
                   "inertia": box(m_link, 1.0, 0.8, 0.1), "points": {"P": link_pivot, "A": axle_c}})
    axle_points = {"A": axle_c}
    Ia = rear["Axle Tube"]["Inertia"]
    bodies.append({"name": "rear_axle", "mass": m_axle, "com": axle_c,
                   "inertia": diag(Ia[0], Ia[1], Ia[2]), "points": axle_points})
    joints += [
        {"name": "rear_link_pivot", "type": "revolute", "bodies": ["body_rear", "rear_link"],
         "point": "link_pivot", "axis": "y"},
        {"name": "rear_axle_roll", "type": "revolute", "bodies": ["rear_link", "rear_axle"],
         "point": "A", "axis": "x"},
    ]
    forces.append({"name": "rear_stabiliser", "type": "antiroll_bar", "joint": "rear_axle_roll",
                   "bar_diameter": 0.06, "bar_length": 1.2, "shear_modulus": 79.3e9})
    y_dual = y_rear + dual_gap / 2
    for side, s in ((1, "l"), (-1, "r")):
        c = "r" + s
        hub = [x_r, y_dual * side, z_wr]
        inner = [x_r, (y_dual - dual_gap / 2) * side, z_wr]
        outer = [x_r, (y_dual + dual_gap / 2) * side, z_wr]
        axle_points[c + "_hub"] = hub
        bodies.append({"name": c + "_wheels", "mass": m_dual, "com": hub,
                       "inertia": diag(2 * I_wheel_tr + m_wheel * dual_gap ** 2 / 2,
                                       2 * I_wheel_spin, 2 * I_wheel_tr + m_wheel * dual_gap ** 2 / 2),
                       "points": {"W": hub, "inner": inner, "outer": outer}})
        joints.append({"name": c + "_spin", "type": "revolute", "bodies": ["rear_axle", c + "_wheels"],
                       "point": c + "_hub", "axis": "y"})
        for where, wp in (("inner", inner), ("outer", outer)):
            forces.append({"name": c + "_" + where + "_tyre", "type": "wheel", "body": c + "_wheels",
                           "point": where, "axis": [0, 1, 0], "tyre": "pac2002",
                           "tyre_file": TYRE_FILE, "side": SIDE[side]})
        for k, dx in (("front", dx_spring), ("back", -dx_spring)):
            seat = [x_r + dx, y_spring_r * side, z_wr + 0.05]
            axle_points[c + "_" + k + "_seat"] = seat
            body_rear["points"][c + "_" + k + "_spring_top"] = [seat[0], seat[1], seat[2] + lift_spring]
            forces.append({"name": c + "_" + k + "_air_spring", "type": "tsda",
                           "bodies": ["body_rear", "rear_axle"],
                           "points": [c + "_" + k + "_spring_top", c + "_" + k + "_seat"],
                           "stiffness": "k_air_rear", "preload": r9(-F_spring_rear)})
            dseat = [x_r + dx * 0.6, y_damper_r * side, z_wr - 0.05]
            axle_points[c + "_" + k + "_damper_seat"] = dseat
            body_rear["points"][c + "_" + k + "_damper_top"] = [dseat[0], dseat[1], dseat[2] + 0.5]
            forces.append(damper(c + "_" + k + "_damper", "body_rear", "rear_axle",
                                 c + "_" + k + "_damper_top", c + "_" + k + "_damper_seat", c_rear))

    # The driver's throttle on the driven rear axle (paper 000 holds 50 km/h), fed forward the
    # torque that balances the rolling resistance My = -QSY1 R0 Fz of every tyre
    # (drive_feed_forward).
    for c in ("rl", "rr"):
        forces.append({"name": c + "_drive", "type": "speed_control", "joint": c + "_spin",
                       "body": "body_front", "point": "C", "forward": [1, 0, 0],
                       "speed": "speed", "gain": "drive_gain",
                       "feed_forward": "drive_feed_forward", "max_torque": DRIVE_MAX})

    omega_f = SPEED / rolling_radius(F_tyre_front)
    omega_r = SPEED / rolling_radius(F_tyre_rear / 2)
    initial = [{"joint": "drive", "velocity": "speed"}]
    for c, w in (("fl", omega_f), ("fr", omega_f), ("rl", omega_r), ("rr", omega_r)):
        initial.append({"joint": c + "_spin", "velocity": round(w, 9)})
    model = {
        "format": "eslabon-model", "version": 1, "name": "coach",
        "description": (
            "Paper 000's coach (Callejo et al. 2014, §5: a loaded Noge Touring 345, 17,048 kg, "
            "16 DOF with the guided steering: bodywork in two halves with a torsion spring, "
            "independent front, rigid rear axle with dual wheels, six linear air springs, six "
            "bilinear dampers, two stabiliser bars, Magic Formula tyres (PAC2002, the city bus "
            "315/80 R22.5 file), a 2 s lane change delta(t) = 0.013 sin(pi t) rad at 50 km/h). "
            "Where the paper gives no number the open city-bus data are used (Project Chrono's "
            "data/vehicle/citybus, BSD-3-Clause: wheelbase 7.184 m, tracks, dual-wheel "
            "separation, centre of mass, moments, part masses, shock damping, tyre). Written by "
            "scripts/vehicles/coach.py, which lists its assumptions: " + "; ".join(ASSUMPTIONS)
            + "."),
        "parameters": {
            "speed": round(SPEED, 9), "steer_amplitude": STEER_AMPLITUDE,
            "steer_omega": round(STEER_OMEGA, 12), "m_carrier": CARRIER_MASS,
            "k_torsion": 4e6, "c_torsion": 1e4, "drive_gain": DRIVE_GAIN,
            "drive_feed_forward": round(TYRE["QSY1"] * TYRE["UNLOADED_RADIUS"] * TOTAL_MASS * G / 2, 6),
            "k_air_front": round(k_spring_front, 3), "k_air_rear": round(k_spring_rear, 3),
        },
        "gravity": [0, 0, -G],
        "road": {"height": 0, "mu": 1.0},
        "bodies": r9(bodies), "joints": joints, "forces": forces, "initial": initial,
    }
    json.dump(model, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
