"""Paper 002's stiff HMMWV (models/hmmwv-stiff.json, written by scripts/vehicles/hmmwv.py from
the published HMMWV data) in every formulation: the vehicle comes to rest on its tyres after the
bump (the statics: the tyres carry the weight of everything but the carrier, which rides on the
ground's prismatic joint), all formulations settle at one chassis height, the energy balance holds
before the bump (after it, the half-cylinder's vertical edges make the road's slope unbounded and
every fixed step loses accuracy there: docs/benchmarks.md), and the three trapezoidal-rule
formulations give one motion over the bump at one step.

The same vehicle on its own suspension (models/hmmwv.json, scripts/vehicles/hmmwv.py
--suspension springs: the data's spring curves as spring_table elements, shocks, bump stops,
issue 24) settles on its tyres in penalty and matrix-r.

Paper 002's 18-degree-of-freedom variant (models/hmmwv-stiff-paper002.json, scripts/vehicles/
hmmwv.py --paper002: free chassis, upper arms on a front sphere and a stiff back bushing, the
data's springs with the free lengths of the drawn statics) settles near paper 002's 0.71 m in
the four formulations that take its -2e6 1/s eigenvalue (matrix-r with the trapezoidal rule; RK4
at 1 ms is unstable there), and its front wheels ride over the bump."""
import csv, json, os, subprocess, tempfile

from cli_tap import ok, done, cli, models, env, source

model = os.path.join(models, "hmmwv-stiff.json")
with open(model) as f:
    data = json.load(f)
k, radius = data["parameters"]["k_tyre"], data["parameters"]["tyre_radius"]
g = -data["gravity"][2]
supported = sum(b.get("mass", 0) for b in data["bodies"] if b["name"] != "carrier")
wheels = ["fl", "fr", "rl", "rr"]
points = ",".join(["chassis:C"] + [w + "_spindle:W" for w in wheels])
tmp = tempfile.mkdtemp()


def run(formulation, *args, duration=5, model=model, points=points):
    out = os.path.join(tmp, os.path.basename(model) + formulation + "-".join(args) + ".csv")
    r = subprocess.run([cli, "run", model, "--formulation", formulation, "--step", "0.001",
                        "--duration", str(duration), "--output", out, "--points", points,
                        "--output-step", "0.01", *args],
                       capture_output=True, text=True, timeout=600, env=env)
    ok(r.returncode == 0, f"{formulation} {' '.join(args)} runs {os.path.basename(model)} "
       f"{duration} s"
       + ("" if r.returncode == 0 else ": " + r.stderr.strip()[:300]))
    if r.returncode != 0:
        return []
    with open(out) as f:
        return [{key: float(v) for key, v in row.items()} for row in csv.DictReader(f)]


# Measured (1 ms, default tolerances): statics residual 2e-11 (penalty) to 2.4e-9 (ssode);
# settled heights within 2e-6 m; drift before the bump 0.25 J penalty, 0.069 J matrix-r RK4,
# 0.26 J ali3p, 2.2e-5 J ssode.
pre_bump_drift_bound = {"penalty": 2.5, "matrix-r": 0.7, "ali3p": 2.6, "ssode": 2.2e-4}
settled = {}
for formulation in ["penalty", "matrix-r", "ali3p", "ssode"]:
    rows = run(formulation)
    if not rows:
        continue
    last = rows[-1]
    tyres = sum(k * (radius - last[w + "_spindle:W:z"]) for w in wheels)
    residual = abs(tyres / (supported * g) - 1)
    ok(residual < 2.5e-8, f"{formulation}: at rest the tyres carry the weight "
       f"(|sum k d / m g - 1| = {residual:.1e})")
    drift = max(abs(r["energy_drift"]) for r in rows if r["time"] < 0.45)
    ok(drift < pre_bump_drift_bound[formulation],
       f"{formulation}: energy balance before the bump, max |E - E0| = {drift:.2e} J "
       f"(bound {pre_bump_drift_bound[formulation]:g} J)")
    settled[formulation] = [r["chassis:C:z"] for r in rows if r["time"] >= 4]
    print(f"# {formulation}: chassis centre of mass at {last['chassis:C:z']:.4f} m at 5 s "
          f"(paper 002 reports about 0.71 m for its chassis)")
if len(settled) == 4:
    spread = max(max(abs(a - b) for a, b in zip(settled["penalty"], z)) for z in settled.values())
    ok(spread < 2e-5, f"the four formulations settle at one chassis height (spread {spread:.1e} m)")

# Penalty, ali3p and matrix-r with the trapezoidal rule: one integrator, one motion over the bump
# (measured 5.7e-6 m); RK4 and ssode differ from them by the bump edges' step-dependent error.
trapezoidal = {f: run(f, *a, duration=2) for f, a in
               [("penalty", ()), ("ali3p", ()), ("matrix-r", ("--integrator", "trapezoidal"))]}
if all(trapezoidal.values()):
    worst = max(abs(a["chassis:C:z"] - b["chassis:C:z"]) for other in ("ali3p", "matrix-r")
                for a, b in zip(trapezoidal["penalty"], trapezoidal[other]))
    ok(worst < 6e-5, f"trapezoidal penalty, ali3p and matrix-r agree over the bump "
       f"(max chassis height difference {worst:.1e} m)")
# models/hmmwv.json: the data's springs, shocks and bump stops. Drawn at the data's design
# position, where the springs are 0.09 m (front) and 0.08 m (rear) shorter than free, the chassis
# rises about 0.10 m in its first second; the bump comes at 1 s (front) and 1.8 s (rear).
# At rest the rear springs (0.3546 m) sit 4.6 mm past their maximum length, on their rebound
# stops. Measured (1 ms): statics residual at 5 s 3.3e-6 penalty, 3.8e-6 matrix-r; chassis
# heights within 4.8e-6 m (0.7928 m); energy drift before the bump 2.7 J penalty, 0.35 J
# matrix-r (of a 25 kJ kinetic energy, through a transient that dissipates 3 kJ).
springs_model = os.path.join(models, "hmmwv.json")
springs_drift_bound = {"penalty": 27.0, "matrix-r": 3.5}
heights = {}
for formulation in ["penalty", "matrix-r"]:
    rows = run(formulation, model=springs_model)
    if not rows:
        continue
    last = rows[-1]
    tyres = sum(k * (radius - last[w + "_spindle:W:z"]) for w in wheels)
    residual = abs(tyres / (supported * g) - 1)
    ok(residual < 4e-5, f"hmmwv.json, {formulation}: at rest on its springs the tyres carry the "
       f"weight (|sum k d / m g - 1| = {residual:.1e}, bound 4e-5)")
    drift = max(abs(r["energy_drift"]) for r in rows if r["time"] < 0.95)
    ok(drift < springs_drift_bound[formulation],
       f"hmmwv.json, {formulation}: energy balance before the bump, max |E - E0| = {drift:.2e} J "
       f"(bound {springs_drift_bound[formulation]:g} J)")
    heights[formulation] = last["chassis:C:z"]
    rise = last["chassis:C:z"] - rows[0]["chassis:C:z"]
    ok(0.05 < rise < 0.15, f"hmmwv.json, {formulation}: the chassis rises {rise:.4f} m from the "
       f"design position (springs precompressed there) to {last['chassis:C:z']:.4f} m")
if len(heights) == 2:
    gap = abs(heights["penalty"] - heights["matrix-r"])
    ok(gap < 5e-5, f"hmmwv.json: penalty and matrix-r settle at one chassis height "
       f"(difference {gap:.1e} m, bound 5e-5)")
# models/hmmwv-stiff-paper002.json. Measured (1 ms, default tolerances): statics residual at
# 5 s 3.6e-6 (penalty, matrix-r, ali3p) and 2.1e-6 (ssode), still settling; chassis at 0.68879 m
# at 4-5 s in the four, spread 7.0e-6 m (paper 002's Fig. 5: about 0.71 m; our drawing is the
# statics by the springs' free lengths, and the 3 cm bound is 0.021 m measured plus the reading of
# the paper's figure against our chassis' centre of mass); the front wheels rise 0.026 m (fixed
# steps, 10 ms rows) to 0.031 m (ssode at rtol 1e-6) over the 0.05 m bump (at rtol 1e-3 and 1e-2
# the SDIRK steps over the bump: docs/benchmarks.md).
PAPER_STATICS_BOUND, PAPER_SPREAD_BOUND = 4e-5, 7e-5
# The bundled HMMWV models are the script's output (when the published data are at hand).
data_dir = os.environ.get("ESLABON_HMMWV_DATA", os.path.join(
    os.path.dirname(os.path.abspath(source)), "shared", "vehicles", "hmmwv"))
script = os.path.join(source, "scripts", "vehicles", "hmmwv.py")
for options, name in [((), "hmmwv-stiff"), (("--paper002",), "hmmwv-stiff-paper002"),
                      (("--suspension", "springs"), "hmmwv"),
                      (("--lane-change",), "hmmwv-lane-change")]:
    if not os.path.isdir(data_dir):
        ok(True, f"{name}.json against scripts/vehicles/hmmwv.py # SKIP no {data_dir} "
           "(set ESLABON_HMMWV_DATA)")
        continue
    r = subprocess.run(["python3", script, *options, data_dir], capture_output=True, text=True,
                       timeout=120)
    with open(os.path.join(models, name + ".json")) as f:
        ok(r.returncode == 0 and r.stdout == f.read(),
           f"models/{name}.json is scripts/vehicles/hmmwv.py {' '.join(options)}'s output"
           + ("" if r.returncode == 0 else ": " + r.stderr.strip()[-300:]))

paper_model = os.path.join(models, "hmmwv-stiff-paper002.json")
with open(paper_model) as f:
    paper_data = json.load(f)
paper_supported = sum(b.get("mass", 0) for b in paper_data["bodies"]
                      if b["name"] not in ("carrier", "sideways"))
paper_settled = {}
for formulation, args in [("penalty", ()), ("matrix-r", ("--integrator", "trapezoidal")),
                          ("ali3p", ()), ("ssode", ())]:
    rows = run(formulation, *args, model=paper_model)
    if not rows:
        continue
    last = rows[-1]
    tyres = sum(k * (radius - last[w + "_spindle:W:z"]) for w in wheels)
    residual = abs(tyres / (paper_supported * g) - 1)
    ok(residual < PAPER_STATICS_BOUND, f"hmmwv-stiff-paper002, {formulation}: at rest the tyres "
       f"carry the weight (|sum k d / m g - 1| = {residual:.1e})")
    late = [r["chassis:C:z"] for r in rows if r["time"] >= 4]
    worst = max(abs(z - 0.71) for z in late)
    ok(worst < 0.03, f"hmmwv-stiff-paper002, {formulation}: chassis at {late[-1]:.4f} m at 4-5 s, "
       f"within {worst:.4f} m of paper 002's 0.71 m (bound 0.03 m)")
    rise = max(r["fl_spindle:W:z"] for r in rows) - rows[0]["fl_spindle:W:z"]
    ok(0.02 < rise < 0.05, f"hmmwv-stiff-paper002, {formulation}: the front wheels ride over the "
       f"0.05 m bump (rise {rise:.4f} m)")
    paper_settled[formulation] = late
if len(paper_settled) == 4:
    spread = max(max(abs(a - b) for a, b in zip(paper_settled["penalty"], z))
                 for z in paper_settled.values())
    ok(spread < PAPER_SPREAD_BOUND, f"hmmwv-stiff-paper002: the four formulations settle at one "
       f"chassis height (spread {spread:.1e} m)")

# ssode's max-internal-step: at rtol 1e-3 the SDIRK steps over the 22 ms bump (its wheels never
# rise: the error control sees only the solution at the steps it takes); capped at 5 ms it rides
# it. Measured over 2 s against ssode at its default rtol 1e-6: largest difference of the front
# wheel's height 1.2e-4 m (uncapped 3.1e-2 m: the whole rise missed).
reference = run("ssode", duration=2, model=paper_model)
capped = run("ssode", "--rtol", "1e-3", "--atol", "1e-3", "--max-internal-step", "0.005",
             duration=2, model=paper_model)
if reference and capped:
    gap = max(abs(a["fl_spindle:W:z"] - b["fl_spindle:W:z"]) for a, b in zip(reference, capped))
    ok(len(reference) == len(capped) and gap < 1.2e-3,
       f"hmmwv-stiff-paper002, ssode at rtol 1e-3 with --max-internal-step 0.005 rides the bump "
       f"as at rtol 1e-6 (front wheel height within {gap:.1e} m, bound 1.2e-3)")
done()
