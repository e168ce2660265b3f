#!/usr/bin/env python3
"""Writes models/truck-slalom.json: paper 003's semi-trailer truck (§4: "a 40dof 5-axle
semi-trailer truck ... tractor joined to the semi-trailer by means of a spherical joint ... a 5s
multiple slalom test along a flat road") with the path follower and the speed controller.

usage: scripts/vehicles/truck.py [SHARED_VEHICLES_DIR] > models/truck-slalom.json

Sources, named beside every number below:
- "paper 003": tractor and semi-trailer joined by a spherical joint (the fifth wheel); 5 axles,
  two wheels each; Magic Formula tyres; semi-trailer and tractor rear suspensions air springs
  and dampers, tractor front leaf springs and dampers; a driven steering coordinate; 5 s
  multiple slalom on a flat road; massless auxiliary bodies and rods eliminated (here: the
  links that locate the axles are ideal joints, the tie rod a `rod`). It gives no dimension,
  mass, rate or speed.
- "city bus": ../shared/vehicles/citybus/ (Project Chrono's data/vehicle/citybus, BSD-3-Clause;
  the notice is data/tyres/LICENSE-chrono-data and NOTICE): the tyre CityBus_Pac02Tire.tir
  (315/80 R22.5, the size of a truck's steer and drive tyres), the rim's mass and inertia, the
  dual-wheel separation, the link mass and the shock damping (per tonne of axle load).
- "assumed": neither gives it; ASSUMPTIONS lists what and why (the dimensions and loads of a
  European 4x2 tractor with a tri-axle semi-trailer at 40 t, EU Directive 96/53/EC limits:
  16.5 m long, 2.55 m wide, 40 t, drive axle 11.5 t).
"""
import json
import math
import os
import sys

# The city bus readers and the PAC2002 rolling radius are the coach's (same tyre, same data).
from coach import SIDE, TYRE, box, diag, load, read_tir, rolling_radius

G = 9.81
TYRE_FILE = "../data/tyres/CityBus_Pac02Tire.tir"   # city bus (copied unchanged)
SPEED = 50 / 3.6             # assumed: 50 km/h
DURATION = 5.0               # paper 003: 5 s
# The slalom (path type "slalom", engine/vehicle/mbs_path.h): gates every SPACING metres from
# x = SLALOM_START, alternately AMPLITUDE to the left and to the right of the straight line,
# each WIDTH + 1 m wide (assumed: see ASSUMPTIONS).
SLALOM_START, SPACING, AMPLITUDE, GATES = 15.0, 25.0, 0.5, 3
WIDTH = 2.55                 # assumed: the EU maximum width
CARRIER_MASS = 1.0           # as coach.py
PREVIEW_TIME, LATERAL_GAIN = 0.5, 0.5     # HMMWV SteeringControllerSR.json: 0.5 s, 0.5
MAX_STEER = math.radians(35.0)            # assumed: a truck's front wheels' lock
K_SERVO, C_SERVO = 2e5, 4e3               # assumed servo on the steering knuckle

ASSUMPTIONS = [
    "a 4x2 tractor (steered front axle on leaf springs, drive axle with dual wheels on air "
    "springs) and a tri-axle semi-trailer (air springs, single wheels), 40 t: axle loads about "
    "6.5 / 11.4 / 3 x 7.3 t",
    "tractor: wheelbase 3.6 m, fifth wheel 0.6 m before the drive axle at 1.15 m; sprung mass "
    "5,500 kg at 1.2 m behind the front axle, 1.0 m high, moments of a uniform 6 x 2.5 x 2 m box",
    "semi-trailer: kingpin to the middle axle 7.7 m, axles 1.31 m apart; sprung mass 30,000 kg "
    "(loaded) 5.0 m behind the kingpin, 1.8 m high, moments of a uniform 13.6 x 2.55 x 2.7 m box",
    "the tractor has its 6 DOF through prismatic X, Y, Z joints and a spherical joint from the "
    "ground via three 1 kg carriers (as the coach); the semi-trailer hangs on the fifth wheel's "
    "spherical joint (paper 003)",
    "every axle is a rigid beam on a longitudinal link pivoting about Y on its frame 0.7 m before "
    "the axle (the leaf spring's front eye, the air suspension's trailing arm; 60 kg, the city "
    "bus link) and rolling about X at the link's end: 2 DOF each, the locating rods of paper 003 "
    "taken as ideal joints",
    "axle beams: front 250 kg, drive 700 kg (with the differential), trailer 350 kg; steering "
    "knuckles 50 kg",
    "a wheel is the city bus rim (30 kg) plus a 65 kg tyre, as the coach; the drive axle's "
    "wheels are dual sets (one body, two tyres 0.33528 m apart, the city bus separation); "
    "track 2.04 m (front and trailer), 1.80 m between the dual sets' middles",
    "the tyre is CityBus_Pac02Tire.tir (315/80 R22.5) on every wheel, PAC2002 on a flat road, mu 1",
    "two vertical springs per axle, 0.5 m either side of its middle, above the axle, preloaded to "
    "carry the static load (lever rule, the trailer's three axles equally) at the drawn position: "
    "rates for a bounce of 1.5 Hz (front leaf springs) and 1.2 Hz (air springs) of the sprung "
    "load each axle carries; an anti-roll bar on every axle's roll joint (solid steel 50 mm, "
    "1.0 m)",
    "a bilinear damper beside each spring: rebound slope 2,500 N s/m per tonne of the axle's "
    "sprung load (the city bus shock's order), compression a third of rebound, beyond a knee of "
    "0.13 m/s both a third",
    "steering: the left knuckle turns about Z (no kingpin inclination, no caster) and is steered "
    "by a path_follower (preview 0.5 s and gain 0.5 of full lock per metre, the HMMWV's "
    "SteeringControllerSR; lock 35 degrees, a servo of 2e5 N m/rad and 4e3 N m s/rad); the "
    "right knuckle follows through a massless tie rod (parallel steering arms 0.25 m behind the "
    "kingpins)",
    "speed: starts at 50 km/h, held by a speed_control on each drive wheel set (gain 10,000 N m "
    "per m/s, feed-forward the rolling resistance QSY1 m g R / 2, limit 15,000 N m)",
    "the slalom (paper 003 gives no numbers): three gates 25 m apart from x = 15 m, their "
    "centres 0.5 m to the left, right, left; each 3.55 m wide (the vehicle width plus 1 m, "
    "ISO 3888-2's side lane); the path is the sine through the gates' centres from x = 2.5 m "
    "(path type slalom), lateral acceleration at most 1.5 m/s^2 (0.75 m gates made the "
    "semi-trailer cut gate 2's inner cone by 0.04 m)",
]

def r9(v):
    if isinstance(v, list):
        return [r9(x) for x in v]
    if isinstance(v, dict):
        return {k: r9(x) for k, x in v.items()}
    return round(v, 9) if isinstance(v, float) else v


def main():
    d = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(__file__), "..", "..", "..", "shared", "vehicles", "citybus")
    vehicle, rear, wheel = (load(d, "CityBus_%s.json" % part)
                            for part in ("Vehicle", "SolidAxleRear", "Wheel"))
    # the tyre file as the model names it, relative to models/
    TYRE.update(read_tir(os.path.join(os.path.dirname(__file__), "..", "..", "models", TYRE_FILE)))
    R0, kz, rim_radius = (TYRE[k] for k in ("UNLOADED_RADIUS", "VERTICAL_STIFFNESS", "RIM_RADIUS"))
    dual_gap = vehicle["Axles"][1]["Wheel Separation"]            # city bus 0.33528 m
    c_bus_per_tonne = rear["Shock"]["Damping Coefficient"] / 5.0  # city bus: 35,000 per ~5 t side

    # Masses (kg) and inertias.
    m_rim, I_rim = wheel["Mass"], wheel["Inertia"]                # city bus 30 kg
    m_tyre = 65.0                                                 # assumed (as coach)
    m_wheel = m_rim + m_tyre
    I_spin = I_rim[1] + m_tyre * (R0 ** 2 + rim_radius ** 2) / 2
    I_tr = I_rim[0] + m_tyre * (3 * (R0 ** 2 + rim_radius ** 2) + TYRE["WIDTH"] ** 2) / 12
    m_link = 60.0                                                 # city bus link (coach)
    m_knuckle = 50.0                                              # assumed
    m_tractor, m_trailer = 5500.0, 30000.0                        # assumed

    # Geometry (m): x forward, the front axle at x = 0.
    x_front, x_drive = 0.0, -3.6                                  # assumed wheelbase 3.6
    x_king, z_king = -3.0, 1.15                                   # assumed fifth wheel
    x_tc, z_tc = -1.2, 1.0                                        # tractor sprung CoM
    x_mid = x_king - 7.7                                          # trailer axles' middle
    x_trailer_axles = [x_mid + 1.31, x_mid, x_mid - 1.31]
    x_lc, z_lc = x_king - 5.0, 1.8                                # trailer sprung CoM
    y_wheel, y_dual = 1.02, 0.90                                  # assumed track / 2
    y_kingpin, y_spring = 0.85, 0.5

    # axles: name, x, beam mass, wheels ("single"/"dual"/"steer"), frame, bounce Hz
    axles = [("front", x_front, 250.0, "steer", "tractor", 1.5),
             ("drive", x_drive, 700.0, "dual", "tractor", 1.2)]
    axles += [("trailer%d" % (i + 1), x, 350.0, "single", "trailer", 1.2)
              for i, x in enumerate(x_trailer_axles)]

    def unsprung(a):
        _, _, m_beam, kind, _, _ = a
        wheels = 2 * (2 * m_wheel if kind == "dual" else m_wheel)
        return m_beam + wheels + (2 * m_knuckle if kind == "steer" else 0.0) + m_link

    # Static loads. The trailer: the three axles carry equal spring loads F_t, the kingpin the
    # rest (moments about the kingpin); the tractor: lever rule between its two axles.
    W_tr = m_trailer * G
    F_trailer_axle = W_tr * (x_king - x_lc) / (x_king - x_mid) / 3
    F_king = W_tr - 3 * F_trailer_axle
    W_c = (m_tractor + CARRIER_MASS) * G                          # carrier_z rides on the tractor
    F_drive = (W_c * (x_front - x_tc) + F_king * (x_front - x_king)) / (x_front - x_drive)
    F_front = W_c + F_king - F_drive
    sprung_load = {"front": F_front, "drive": F_drive}
    for a in axles[2:]:
        sprung_load[a[0]] = F_trailer_axle

    bar = dict(bar_diameter=0.05, bar_length=1.0, shear_modulus=79.3e9)   # assumed
    bodies = [{"name": "ground", "ground": True, "points": {"O": [0, 0, 0]}}]
    C = [x_tc, 0.0, z_tc]
    for name in ("carrier_x", "carrier_y", "carrier_z"):
        bodies.append({"name": name, "mass": "m_carrier", "com": C,
                       "inertia": {"box": [0.2, 0.2, 0.2]}, "points": {"C": C}})
    tractor = {"name": "tractor", "mass": m_tractor, "com": C,
               "inertia": box(m_tractor, 6.0, 2.5, 2.0),
               "points": {"C": C, "K": [x_king, 0.0, z_king], "nose": [x_front + 1.4, 0.0, z_tc],
                          "tail": [x_drive - 0.9, 0.0, z_tc]}}
    L = [x_lc, 0.0, z_lc]
    trailer = {"name": "trailer", "mass": m_trailer, "com": L,
               "inertia": box(m_trailer, 13.6, 2.55, 2.7),
               "points": {"L": L, "K": [x_king, 0.0, z_king],
                          "front": [x_king + 1.6, 0.0, z_lc], "rear": [x_king - 12.0, 0.0, z_lc]}}
    bodies += [tractor, trailer]
    frames = {"tractor": tractor, "trailer": trailer}
    # the tractor's six freedoms: prismatic X, Y, Z through the carriers, then a spherical joint
    chain = ["ground", "carrier_x", "carrier_y", "carrier_z"]
    joints = [{"name": name, "type": "prismatic", "bodies": chain[k:k + 2], "point": "C",
               "axis": "xyz"[k]} for k, name in enumerate(("drive", "lateral", "bounce"))]
    joints += [{"name": "attitude", "type": "spherical", "bodies": ["carrier_z", "tractor"],
                "point": "C"},
               {"name": "fifth_wheel", "type": "spherical", "bodies": ["tractor", "trailer"],
                "point": "K"}]
    forces = []
    spin_initial = []
    parameters = {"speed": round(SPEED, 9), "m_carrier": CARRIER_MASS}

    def damper(name, b1, b2, p1, p2, c_low):
        """The coach's bilinear law: compression a third of rebound, both a third beyond the
        knee."""
        slopes = {"rebound_damping": 1, "rebound_damping_high": 3, "compression_damping": 3,
                  "compression_damping_high": 9}
        law = {k: r9(c_low / d) for k, d in slopes.items()}
        return dict(name=name, type="damper_bilinear", bodies=[b1, b2], points=[p1, p2],
                    rebound_knee=0.13, compression_knee=0.13, **law)

    for a in axles:
        name, x_a, m_beam, kind, frame_name, f_hz = a
        frame = frames[frame_name]
        n_tyres = 4 if kind == "dual" else 2
        F_tyre = (sprung_load[name] + unsprung(a) * G) / n_tyres
        z_w = R0 - F_tyre / kz
        # Springs straight above the axle at +-y_spring: moments of the link and axle about the
        # link's pivot give the two springs' force (the tyres, the beam and the springs at the
        # link's length, the link's own weight at half of it).
        F_spring = (sprung_load[name] + m_link * G / 2) / 2
        k_spring = sprung_load[name] / G * (2 * math.pi * f_hz) ** 2 / 2
        c_side = c_bus_per_tonne * sprung_load[name] / G / 1000 / 2
        parameters["k_" + name] = round(k_spring, 3)
        pivot = [x_a + 0.7, 0.0, z_w - 0.1]
        centre = [x_a, 0.0, z_w]
        frame["points"][name + "_pivot"] = pivot
        link = name + "_link"
        beam = name + "_axle"
        bodies.append({"name": link, "mass": m_link, "com": [x_a + 0.35, 0.0, z_w - 0.05],
                       "inertia": box(m_link, 0.7, 1.2, 0.1),
                       "points": {"P": pivot, "A": centre}})
        beam_points = {"A": centre}
        bodies.append({"name": beam, "mass": m_beam, "com": centre,
                       "inertia": box(m_beam, 0.2, 2.0, 0.2), "points": beam_points})
        joints += [
            {"name": name + "_link_pivot", "type": "revolute", "bodies": [frame_name, link],
             "point": name + "_pivot", "axis": "y"},
            {"name": name + "_roll", "type": "revolute", "bodies": [link, beam], "point": "A",
             "axis": "x"},
        ]
        forces.append(dict({"name": name + "_antiroll", "type": "antiroll_bar",
                            "joint": name + "_roll"}, **bar))
        for side, s in ((1, "l"), (-1, "r")):
            seat = [x_a, y_spring * side, z_w + 0.1]
            top = [x_a, y_spring * side, z_w + 0.55]
            beam_points[s + "_seat"] = seat
            frame["points"][name + "_" + s + "_spring_top"] = top
            forces.append({"name": name + "_" + s + "_spring", "type": "tsda",
                           "bodies": [frame_name, beam],
                           "points": [name + "_" + s + "_spring_top", s + "_seat"],
                           "stiffness": "k_" + name, "preload": r9(-F_spring)})
            dseat = [x_a - 0.2, (y_spring + 0.1) * side, z_w - 0.05]
            dtop = [x_a - 0.2, (y_spring + 0.1) * side, z_w + 0.45]
            beam_points[s + "_damper_seat"] = dseat
            frame["points"][name + "_" + s + "_damper_top"] = dtop
            forces.append(damper(name + "_" + s + "_damper", frame_name, beam,
                                 name + "_" + s + "_damper_top", s + "_damper_seat", c_side))
            wname = name + "_" + s + "_wheel"
            if kind == "dual":
                hub = [x_a, y_dual * side, z_w]
                beam_points[s + "_hub"] = hub
                inner = [x_a, (y_dual - dual_gap / 2) * side, z_w]
                outer = [x_a, (y_dual + dual_gap / 2) * side, z_w]
                bodies.append({"name": wname, "mass": 2 * m_wheel, "com": hub,
                               "inertia": diag(2 * I_tr + m_wheel * dual_gap ** 2 / 2,
                                               2 * I_spin,
                                               2 * I_tr + m_wheel * dual_gap ** 2 / 2),
                               "points": {"W": hub, "inner": inner, "outer": outer}})
                joints.append({"name": wname + "_spin", "type": "revolute",
                               "bodies": [beam, wname], "point": s + "_hub", "axis": "y"})
                for where in ("inner", "outer"):
                    forces.append({"name": name + "_" + s + "_" + where + "_tyre",
                                   "type": "wheel", "body": wname, "point": where,
                                   "axis": [0, 1, 0], "tyre": "pac2002", "tyre_file": TYRE_FILE,
                                   "side": SIDE[side]})
            else:
                W = [x_a, y_wheel * side, z_w]
                carrier = beam
                if kind == "steer":
                    kp = [x_a, y_kingpin * side, z_w]
                    knuckle = name + "_" + s + "_knuckle"
                    beam_points[s + "_kingpin"] = kp
                    bodies.append({"name": knuckle, "mass": m_knuckle,
                                   "com": [x_a, (y_kingpin + 0.08) * side, z_w],
                                   "inertia": box(m_knuckle, 0.25, 0.25, 0.4),
                                   "points": {"K": kp, "W": W,
                                              "T": [x_a - 0.25, y_kingpin * side, z_w - 0.05]}})
                    joints.append({"name": knuckle + "_kingpin" if s == "r" else "steer",
                                   "type": "revolute", "bodies": [beam, knuckle],
                                   "point": s + "_kingpin", "axis": "z"})
                    carrier = knuckle
                else:
                    beam_points[s + "_hub"] = W
                bodies.append({"name": wname, "mass": m_wheel, "com": W,
                               "inertia": diag(I_tr, I_spin, I_tr), "points": {"W": W}})
                joints.append({"name": wname + "_spin", "type": "revolute",
                               "bodies": [carrier, wname],
                               "point": "W" if kind == "steer" else s + "_hub", "axis": "y"})
                forces.append({"name": name + "_" + s + "_tyre", "type": "wheel", "body": wname,
                               "point": "W", "axis": [0, 1, 0], "tyre": "pac2002",
                               "tyre_file": TYRE_FILE, "side": SIDE[side]})
            spin_initial.append({"joint": wname + "_spin",
                                 "velocity": round(SPEED / rolling_radius(F_tyre), 9)})
            if kind == "dual":
                forces.append({"name": name + "_" + s + "_drive", "type": "speed_control",
                               "joint": wname + "_spin", "body": "tractor", "point": "C",
                               "forward": [1, 0, 0], "speed": "speed", "gain": "drive_gain",
                               "feed_forward": "drive_feed_forward",
                               "max_torque": "drive_max"})
        if kind == "steer":
            joints.append({"name": "tie_rod", "type": "rod",
                           "bodies": [name + "_l_knuckle", name + "_r_knuckle"],
                           "points": ["T", "T"]})

    total = m_tractor + m_trailer + 3 * CARRIER_MASS + sum(unsprung(a) for a in axles)
    radius = rolling_radius(total * G / 14)
    forces.append({"name": "driver_steering", "type": "path_follower", "joint": "steer",
                   "body": "tractor", "point": "C", "forward": [1, 0, 0],
                   "preview": "preview", "lateral_gain": "lateral_gain",
                   "max_command": "steer_lock", "left": 1,
                   "stiffness": K_SERVO, "damping": C_SERVO})
    parameters.update({
        "preview": round(PREVIEW_TIME * SPEED, 9), "steer_lock": round(MAX_STEER, 9),
        "lateral_gain": round(LATERAL_GAIN * MAX_STEER, 9), "drive_gain": 10000.0,
        "drive_feed_forward": round(TYRE["QSY1"] * total * G * radius / 2, 3),
        "drive_max": 15000.0,
        })
    model = {
        "format": "eslabon-model", "version": 1, "name": "truck-slalom",
        "description": (
            "Paper 003's semi-trailer truck (§4: tractor and semi-trailer joined by a spherical "
            "fifth wheel, 5 axles with two wheels each, Magic Formula tyres, air springs and "
            "dampers behind, leaf springs in front, a 5 s multiple slalom on a flat road) as a "
            "40 t 4x2 tractor with a tri-axle semi-trailer (%.0f kg): %d moving bodies, 30 DOF "
            "(the paper's model has 40; it does not describe its suspension linkages, here every "
            "axle has 2: heave and roll). A path_follower steers "
            "the front knuckles through three gates 25 m apart (0.5 m left, right, left of the "
            "straight line, 3.55 m wide) and a speed_control on each drive wheel set holds "
            "50 km/h. Tyre CityBus_Pac02Tire.tir and some part data from the open city-bus data "
            "(Project Chrono's data/vehicle/citybus, BSD-3-Clause); every other number assumed. "
            "Written by scripts/vehicles/truck.py, which lists its assumptions: "
            % (total, len(bodies) - 1) + "; ".join(ASSUMPTIONS) + "."),
        "parameters": parameters,
        "gravity": [0, 0, -G],
        "road": {"height": 0, "mu": 1.0},
        "path": {"type": "slalom", "vehicle_width": WIDTH, "start": SLALOM_START,
                 "spacing": SPACING, "amplitude": AMPLITUDE, "gates": GATES},
        "bodies": r9(bodies), "joints": joints, "forces": forces,
        "initial": [{"joint": "drive", "velocity": "speed"}] + spin_initial,
    }
    json.dump(model, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
