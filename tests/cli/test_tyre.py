#!/usr/bin/env python3
"""eslabon-cli tyre (issue 24, the tyre test rig): its CSV against the Magic Formula's pure-slip
equations (Pacejka, Tire and Vehicle Dynamics, 3rd ed., §4.3.2) evaluated here from the .tir
file's own coefficients, on both bundled tyres; the JSON; bad files (exit 1, file:line, the file
untouched) and bad options (exit 2). Prints TAP."""
import csv, io, json, math, os, shutil, subprocess, tempfile

from cli_tap import cli, done, env, ok, read_tir, source

tyres = os.path.join(source, "data", "tyres")


def run(*args):
    return subprocess.run([cli, "tyre", *args], capture_output=True, text=True, timeout=300,
                          env=env)


def mf(d, c, b, x, e):
    bx = b * x
    return d * math.sin(c * math.atan(bx - e * (bx - math.atan(bx))))


def pure_fy(p, fz, alpha):
    """Fy at kappa = 0, gamma = 0 (the combined-slip factor is 1 and S_Vyk = 0 there)."""
    fz0 = p["FNOMIN"] * p["LFZO"]
    dfz = (fz - fz0) / fz0
    shy = (p["PHY1"] + p["PHY2"] * dfz) * p["LHY"]
    svy = fz * (p["PVY1"] + p["PVY2"] * dfz) * p["LVY"] * p["LMUY"]
    ay = alpha + shy
    cy = p["PCY1"] * p["LCY"]
    dy = (p["PDY1"] + p["PDY2"] * dfz) * p["LMUY"] * fz
    ey = min(1.0, (p["PEY1"] + p["PEY2"] * dfz) * (1 - p["PEY3"] * math.copysign(1, ay)) * p["LEY"])
    ky = p["PKY1"] * fz0 * math.sin(2 * math.atan(fz / (p["PKY2"] * fz0))) * p["LKY"]
    return mf(dy, cy, ky / (cy * dy), ay, ey) + svy


def pure_fx(p, fz, kappa):
    """Fx at alpha = 0, gamma = 0 (G_xa = 1 there)."""
    fz0 = p["FNOMIN"] * p["LFZO"]
    dfz = (fz - fz0) / fz0
    shx = (p["PHX1"] + p["PHX2"] * dfz) * p["LHX"]
    svx = fz * (p["PVX1"] + p["PVX2"] * dfz) * p["LVX"] * p["LMUX"]
    kx = kappa + shx
    cx = p["PCX1"] * p["LCX"]
    dx = (p["PDX1"] + p["PDX2"] * dfz) * p["LMUX"] * fz
    ex = min(1.0, (p["PEX1"] + p["PEX2"] * dfz + p["PEX3"] * dfz ** 2)
             * (1 - p["PEX4"] * math.copysign(1, kx)) * p["LEX"])
    k = fz * (p["PKX1"] + p["PKX2"] * dfz) * math.exp(p["PKX3"] * dfz) * p["LKX"]
    return mf(dx, cx, k / (cx * dx), kx, ex) + svx


for name in ("HMMWV_Pac02Tire.tir", "CityBus_Pac02Tire.tir"):
    path = os.path.join(tyres, name)
    p = read_tir(path)
    r = run(path, "--fz", "12000,35000", "--alpha", "-0.3:0.3:13", "--csv")
    ok(r.returncode == 0, f"{name}: tyre --csv over alpha exits 0 {r.stderr.strip()}")
    rows = list(csv.DictReader(io.StringIO(r.stdout))) if r.returncode == 0 else []
    worst = max((abs(float(w["Fy"]) - pure_fy(p, float(w["fz"]), float(w["alpha"])))
                 / float(w["fz"]) for w in rows), default=1)
    ok(len(rows) == 26 and worst < 1e-15,
       f"{name}: {len(rows)} rows; Fy(alpha) = the pure-slip Magic Formula from the file "
       f"(worst |diff|/Fz {worst:.2g})")
    r = run(path, "--fz", "20000", "--kappa", "-0.5:0.5:11", "--csv", "--vx", "12")
    rows = list(csv.DictReader(io.StringIO(r.stdout))) if r.returncode == 0 else []
    worst = max((abs(float(w["Fx"]) - pure_fx(p, float(w["fz"]), float(w["kappa"])))
                 / float(w["fz"]) for w in rows), default=1)
    ok(len(rows) == 11 and worst < 1e-15 and all(float(w["vx"]) == 12 for w in rows),
       f"{name}: Fx(kappa) at Vx = 12 m/s = the pure-slip Magic Formula (worst |diff|/Fz "
       f"{worst:.2g})")
    r = run(path, "--fz", "35000", "--kappa", "0.1", "--alpha", "0.05", "--json")
    j = json.loads(r.stdout) if r.returncode == 0 else {}
    pt = (j.get("points") or [{}])[0]
    ok(j.get("vx") == p["LONGVL"] and abs(pt.get("kappa", 0) - 0.1) < 1e-14 and
       abs(pt.get("alpha", 0) - 0.05) < 1e-15 and
       all(k in pt for k in ("fz", "Fx", "Fy", "Mx", "My", "Mz")) and
       abs(pt["Fy"]) < abs(pure_fy(p, 35000, 0.05)),
       f"{name}: --json at the file's LONGVL; combined slip lowers |Fy| "
       f"({pt.get('Fy', 0):.1f} N vs pure {pure_fy(p, 35000, 0.05):.1f} N)")

tmp = tempfile.mkdtemp()
try:
    bad = os.path.join(tmp, "bad.tir")
    text = open(os.path.join(tyres, "HMMWV_Pac02Tire.tir"), "rb").read()
    lines = text.split(b"\r\n")
    at = next(i for i, l in enumerate(lines) if l.startswith(b"PCY1"))
    lines.insert(at + 1, b"PCY9                       = 1.5")
    data = b"\r\n".join(lines)
    open(bad, "wb").write(data)
    r = run(bad, "--fz", "1000")
    ok(r.returncode == 1 and f"bad.tir:{at + 2}: unknown key 'PCY9' in [LATERAL_COEFFICIENTS]"
       in r.stderr and r.stdout == "" and open(bad, "rb").read() == data,
       f"a file with an unknown key: exit 1, '{r.stderr.strip()}', nothing printed, file untouched")
    r = run(os.path.join(tmp, "missing.tir"), "--fz", "1000")
    ok(r.returncode == 1 and "missing.tir" in r.stderr, "a missing file: exit 1 naming it")
    good = os.path.join(tyres, "HMMWV_Pac02Tire.tir")
    for args, what in ((["--fz", "-5"], "a negative load"), (["--fz", "1e3", "--kappa", "0:1"], "a:b without n"),
                       (["--fz", "1e3", "--alpha", "0:2:3"], "alpha beyond pi/2"),
                       (["--fz", "1e3", "--kappa", "0:1:0"], "n = 0"),
                       (["--fz", "1e3", "--vx", "0"], "Vx = 0"),
                       (["--fz", "1e3", "--csv", "--json"], "--csv with --json"),
                       ([], "no --fz"), (["--fz", "1e3", "--bogus"], "an unknown option")):
        r = run(good, *args)
        ok(r.returncode == 2 and r.stdout == "" and r.stderr.startswith("eslabon-cli tyre:"),
           f"{what}: exit 2 with a message ({r.stderr.strip()})")
finally:
    shutil.rmtree(tmp)
done()
