#!/usr/bin/env python3
"""eslabon-cli end to end: run --json keys and values, CSV history, project storage, clear
errors for an unassemblable model and bad options. Prints TAP."""
import json, os, sqlite3, subprocess, sys, tempfile

from cli_tap import cli, done, ok, source  # noqa: E402
models = os.path.join(source, "models")


def run(*args):
    return subprocess.run([cli, *args], capture_output=True, text=True, timeout=600)


tmp = tempfile.mkdtemp(prefix="esl-cli-")
four_bar = os.path.join(models, "four-bar-spatial.json")

r = run("run", four_bar, "--step", "0.001", "--duration", "5", "--json",
        "--output", os.path.join(tmp, "h.csv"))
ok(r.returncode == 0, "run four-bar --json exits 0 " + r.stderr.strip())
summary = json.loads(r.stdout) if r.returncode == 0 else {}
keys = ["model", "formulation", "step", "duration", "steps", "wall_seconds", "real_time_factor",
        "energy_drift_max", "kinetic_energy_max", "constraint_position_max",
        "constraint_velocity_max", "constraint_acceleration_max", "newton_iterations",
        "jacobian_evaluations", "final_coordinates"]
missing = [k for k in keys if k not in summary]
ok(not missing, f"the JSON summary has every documented key (missing: {missing})")
ok(summary.get("steps") == 5000 and summary.get("status") == "finished", "5000 steps, finished")
ok(0 < summary.get("energy_drift_max", 1) < 2e-2,
   f"energy drift {summary.get('energy_drift_max')} J below 2e-2 J at h = 1 ms")
ok(summary.get("constraint_position_max", 1) < 1e-6, "max ||Phi|| below 1e-6")
ok(len(summary.get("final_coordinates", [])) == 4, "four final relative coordinates")
with open(os.path.join(tmp, "h.csv")) as f:
    rows = f.read().splitlines()
ok(len(rows) == 5002 and rows[0].startswith("time,kinetic"), f"CSV history: header + 5001 rows ({len(rows)})")
last = rows[-1].split(",")
ok(abs(float(last[0]) - 5.0) < 1e-9, "the history ends at t = 5 s")

project = os.path.join(tmp, "study.eslabon")
r1 = run("run", four_bar, "--step", "0.01", "--duration", "1", "--project", project)
r2 = run("run", os.path.join(models, "double-pendulum.json"), "--step", "0.01", "--duration", "1",
         "--project", project, "--json")
ok(r1.returncode == 0 and r2.returncode == 0, "two runs stored in one project " + r1.stderr + r2.stderr)
db = sqlite3.connect(project)
runs = db.execute("select id, status from runs order by id").fetchall()
ok(len(runs) == 2 and all(s == "finished" for _, s in runs), f"the project lists 2 finished runs {runs}")
nsamples = db.execute("select count(*) from samples where run_id = ?", (runs[-1][0],)).fetchone()[0]
ok(nsamples == 101, f"the second run stored its 101 samples ({nsamples})")
db.close()

bad = os.path.join(source, "tests", "cli", "unassemblable.json")
r = run("run", bad)
ok(r.returncode == 1 and "unassemblable.json" in r.stderr and "cannot be assembled" in r.stderr
   and "'C'" in r.stderr, "an impossible loop is refused naming file and joint: " + r.stderr.strip())
r = run("run", bad, "--project", project)
db = sqlite3.connect(project)
n = db.execute("select count(*) from runs").fetchone()[0]
db.close()
ok(r.returncode == 1 and n == 2, "a failed assembly does not add a run, earlier runs survive")

r = run("run", four_bar, "--formulation", "nope")
ok(r.returncode == 2 and "unknown formulation" in r.stderr and "penalty" in r.stderr,
   "an unknown formulation lists the available ones: " + r.stderr.strip())
r = run("run", four_bar, "--step", "-1")
ok(r.returncode == 1 and "step" in r.stderr, "a negative step is refused: " + r.stderr.strip())
r = run("run", os.path.join(tmp, "missing.json"))
ok(r.returncode == 1 and "missing.json" in r.stderr, "a missing file is named: " + r.stderr.strip())
r = run("run", four_bar, "--set", "nonsense")
ok(r.returncode == 2 and "PARAMETER=NUMBER" in r.stderr, "a malformed --set is explained")

r = run("compare", os.path.join(models, "multi-four-bar-1x15.json"), "--step", "0.01",
        "--duration", "0.5", "--json")
cmp = json.loads(r.stdout) if r.returncode == 0 else {"runs": []}
names = [x["formulation"] for x in cmp["runs"]]
ok(r.returncode == 0 and "penalty" in names, f"compare runs every formulation on the 1x15 lattice {names} {r.stderr}")
devs = [x.get("trajectory_deviation_max", 1) for x in cmp["runs"]]
ok(all(x["status"] == "finished" for x in cmp["runs"]) and all(0 <= d < 5e-3 for d in devs),
   f"all finish and stay within 5 mm of the reference over 0.5 s: {devs}")
r = run("compare", four_bar, "--step", "0.01", "--reference-step", "0.003")
ok(r.returncode == 2 and "multiple" in r.stderr, "a reference step that does not divide the step is refused")

# Degrees of freedom chosen in the model file are used by matrix-r, like --dof.
with open(four_bar) as f:
    doc = json.load(f)
doc["degrees_of_freedom"] = [{"joint": "D", "coordinate": 0}]
dof_model = os.path.join(tmp, "four-bar-dof.json")
with open(dof_model, "w") as f:
    json.dump(doc, f)
a = run("run", dof_model, "-f", "matrix-r", "--duration", "1", "--json")
b = run("run", four_bar, "-f", "matrix-r", "--duration", "1", "--json", "--dof", "D")
c = run("run", four_bar, "-f", "matrix-r", "--duration", "1", "--json")
fa, fb, fc = (json.loads(x.stdout)["final_coordinates"] if x.returncode == 0 else None for x in (a, b, c))
ok(fa is not None and fa == fb, "a DOF chosen in the model file acts as --dof " + a.stderr + b.stderr)
ok(fa is not None and fc is not None and max(abs(x - y) for x, y in zip(fa, fc)) < 1e-5,
   "and agrees with the automatic partition")
d = run("run", dof_model, "-f", "matrix-r", "--duration", "1", "--json", "--dof", "auto")
fd = json.loads(d.stdout)["final_coordinates"] if d.returncode == 0 else None
ok(fd is not None and fd == fc, "--dof auto ignores the file's list: the automatic partition " + d.stderr)
r = run("run", four_bar, "-f", "matrix-r", "--dof", "auto", "--dof", "D")
ok(r.returncode != 0 and "alone" in r.stderr, "--dof auto with another --dof is refused")
doc["degrees_of_freedom"] = [{"body": "follower", "point": "nowhere", "axis": "y"}]
with open(dof_model, "w") as f:
    json.dump(doc, f)
r = run("run", dof_model)
ok(r.returncode == 1 and "degrees_of_freedom[0]" in r.stderr and "nowhere" in r.stderr,
   "a bad degree of freedom in the file is named: " + r.stderr.strip())

# A parallelogram chain of 40 four-bars (every link 1 m, 1 kg) passes its flat position, where
# every loop is singular: ali3p's Newton stalls there at h = 5 ms (t = 2.785 s) and the run
# driver cuts the step; the history stays on the grid of h.
chain = os.path.join(source, "tests", "cli", "parallelogram-chain.json")
r = run("run", chain, "-f", "ali3p", "--step", "0.005", "--duration", "3", "--json",
        "--output", os.path.join(tmp, "chain.csv"))
s = json.loads(r.stdout) if r.stdout.startswith("{") else {}
ok(r.returncode == 0 and s.get("status") == "finished" and abs(s.get("time_reached", 0) - 3) < 1e-9,
   "ali3p passes the chain's singular position with the driver's step cutting " + r.stderr.strip())
ok(s.get("step_cuts", 0) >= 1 and s.get("step_min") == 0.0025 and s.get("steps", 0) > 600,
   f"the summary reports the cut: step_cuts {s.get('step_cuts')}, step_min {s.get('step_min')}, "
   f"steps {s.get('steps')}")
with open(os.path.join(tmp, "chain.csv")) as f:
    rows = f.read().splitlines()
ok(len(rows) == 602 and abs(float(rows[-1].split(",")[0]) - 3) < 1e-9,
   f"the CSV history has one row per step of h, ending at t = 3 s ({len(rows)} lines)")
# Settings tables: `formulations --json` lists every formulation; every setting of every table
# is a flag of `run` (in --help too) whose value, away from its default, reaches the run
# (summary: step, duration, assembly_tolerance and the formulation's "options") and the
# project, which stores it in the run's options column.
r = run("formulations", "--json")
tables = json.loads(r.stdout)["formulations"] if r.returncode == 0 else []
r = run("run", four_bar, "--formulation", "nope")
listed = r.stderr.split("available:")[-1].split()
ok(sorted(t["name"] for t in tables) == sorted(listed) and all(t["settings"] for t in tables),
   f"formulations --json lists every formulation with its table {[t['name'] for t in tables]}")
help_text = run("run", "--help").stdout
names = sorted({s["name"] for t in tables for s in t["settings"]})
ok(names and all(f"--{n}" in help_text for n in names), f"run --help shows every setting's flag {names}")


def away_from_default(setting):
    """(flag value, value expected in the summary) other than the default, within range."""
    d = setting["default"]
    if setting["type"] == "choice":
        c = setting["choices"][(setting["choices"].index(d) + 1) % len(setting["choices"])]
        return c, c
    if setting["type"] == "list":
        return "D", [{"joint": 3, "coordinate": 0}]
    if setting["type"] == "integer":
        v = d + 1 if d + 1 <= setting["max"] else d - 1
        return str(v), v
    v = d * (1 + 1 / 7) if d * (1 + 1 / 7) <= setting["max"] else (d + setting["min"]) / 2
    return repr(v), v


common_keys = {"step": "step", "duration": "duration", "assembly-tolerance": "assembly_tolerance"}
round_trip_project = os.path.join(tmp, "settings.eslabon")
for t in tables:
    flags, want = ["-f", t["name"]], {}
    for setting in t["settings"]:
        flag, value = away_from_default(setting)
        if setting["name"] == "duration":
            flag, value = "0.05", 0.05
        flags += [f"--{setting['name']}", flag]
        want[setting["name"]] = value
    r = run("run", four_bar, *flags, "--json", "--project", round_trip_project)
    summary = json.loads(r.stdout) if r.stdout.strip() else {}
    got = dict(summary.get("options", {}))
    got.update({name: summary.get(key) for name, key in common_keys.items()})
    wrong = {k: (v, got.get(k)) for k, v in want.items() if got.get(k) != v}
    ok(r.returncode == 0 and not wrong,
       f"{t['name']}: its {len(want)} settings, each away from its default, reach the run "
       f"(wrong: {wrong}) {r.stderr.strip()}")
    db = sqlite3.connect(round_trip_project)
    stored = json.loads(db.execute("select options from runs order by id desc").fetchone()[0])
    db.close()
    ok(stored == {k: v for k, v in want.items() if k not in common_keys},
       f"{t['name']}: the project's options column holds them {stored}")
r = run("run", four_bar, "-f", "matrix-r", "--alpha", "1e8")
ok(r.returncode == 2 and "--alpha" in r.stderr and "matrix-r" in r.stderr,
   "a setting the formulation does not have is refused: " + r.stderr.strip())
r = run("run", four_bar, "-f", "ali3p", "--algebra", "2")
ok(r.returncode == 2 and "automatic, dense or sparse" in r.stderr,
   "choices are named values: " + r.stderr.strip())

# info reads each force's numbers from its class and counts each parameter's dependents.
slider = os.path.join(models, "slider-crank.json")
r = run("info", slider, "--json")
info = json.loads(r.stdout) if r.returncode == 0 else {}
spring = (info.get("forces") or [{}])[0]
ok(spring.get("type") == "tsda" and spring.get("stiffness") == 500 and spring.get("damping") == 5
   and spring.get("natural_length") == 0.6 and spring.get("preload") == 0,
   f"info --json lists the spring's class fields {spring}")
r = run("info", slider)
ok(r.returncode == 0 and "stiffness 500 N/m" in r.stdout and "(17 dependent fields)" in r.stdout,
   "info lists the spring's numbers with units and r's 17 dependent fields")

# --jacobian nd-sparse (issue 9): the summary reports the method, n columns and p colours, and
# the run follows nd-central's within the Newton tolerance.
lattice = os.path.join(models, "multi-four-bar-1x15.json")
ends = {}
for method in ("nd-central", "nd-sparse", "analytical"):
    r = run("run", lattice, "--step", "0.01", "--duration", "0.3", "--jacobian", method,
            "--threads", "1", "--json")
    ends[method] = json.loads(r.stdout) if r.returncode == 0 else {}
sp = ends["nd-sparse"]
ok(sp.get("status") == "finished" and sp.get("jacobian") == "nd-sparse"
   and sp.get("jacobian_columns") == 90 and sp.get("jacobian_colours") == 60
   and ends["nd-central"].get("jacobian_colours") == 90,
   f"run 1x15 --jacobian nd-sparse: method, n = 90 columns, p = 60 colours in the summary "
   f"({sp.get('jacobian')}, {sp.get('jacobian_columns')}, {sp.get('jacobian_colours')})")
zc, zs = ends["nd-central"].get("final_coordinates", []), sp.get("final_coordinates", [])
gap = max((abs(a - b) for a, b in zip(zc, zs)), default=1.0) if len(zc) == len(zs) == 45 else 1.0
ok(gap < 1e-8, f"1x15, 30 steps: nd-sparse ends within {gap:.1e} of nd-central (bound 1e-8)")
an = ends["analytical"]
za = an.get("final_coordinates", [])
gap = max((abs(a - b) for a, b in zip(zc, za)), default=1.0) if len(zc) == len(za) == 45 else 1.0
ok(an.get("status") == "finished" and an.get("jacobian") == "analytical" and gap < 1e-8,
   f"run 1x15 --jacobian analytical: in the summary ({an.get('jacobian')}) and ends within "
   f"{gap:.1e} of nd-central (bound 1e-8)")

# --jacobian ad, ad-sparse (issue 9): run reports the method and follows nd-central's run within
# the Newton tolerance; compare passes the method to the formulations that offer it (penalty)
# and says which keep their default.
for method in ("ad", "ad-sparse"):
    r = run("run", lattice, "--step", "0.01", "--duration", "0.3", "--jacobian", method,
            "--threads", "1", "--json")
    ends[method] = json.loads(r.stdout) if r.returncode == 0 else {}
    e = ends[method]
    za = e.get("final_coordinates", [])
    gap = max((abs(a - b) for a, b in zip(zc, za)), default=1.0) if len(za) == 45 else 1.0
    ok(e.get("status") == "finished" and e.get("jacobian") == method
       and e.get("jacobian_columns") == 90
       and e.get("jacobian_colours") == (60 if method == "ad-sparse" else 90) and gap < 1e-8,
       f"run 1x15 --jacobian {method}: method, n = 90, p in the summary, ends within {gap:.1e} "
       f"of nd-central (bound 1e-8) {r.stderr.strip()}".replace("\n", " | "))
r = run("compare", four_bar, "--step", "0.01", "--duration", "0.2", "--formulations",
        "penalty,ali3p,matrix-r", "--jacobian", "ad-sparse", "--json")
cmp = json.loads(r.stdout) if r.returncode == 0 else {"runs": []}
ok(r.returncode == 0 and all(x["status"] == "finished" for x in cmp["runs"])
   and len(cmp["runs"]) == 3 and "matrix-r keeps its default Jacobian method" in r.stderr
   and "penalty keeps" not in r.stderr and "ali3p keeps" not in r.stderr,
   "compare --jacobian ad-sparse: penalty and ali3p use it, matrix-r says it keeps its default: "
   + r.stderr.strip().replace("\n", " | "))
# every formulation with a tangent offers analytical: none keeps its default
r = run("compare", four_bar, "--step", "0.01", "--duration", "0.1", "--formulations",
        "matrix-r,ali3p", "--jacobian", "analytical")
ok(r.returncode == 0 and "keeps its default Jacobian method" not in r.stderr,
   "compare --jacobian analytical: matrix-r and ali3p both use it: "
   + r.stderr.strip().replace("\n", " | "))
stiff_vehicle = os.path.join(models, "stiff-vehicle.json")
ends = {}
for method in ("analytical", "nd-central"):
    r = run("run", stiff_vehicle, "--formulation", "ali3p", "--jacobian", method,
            "--duration", "0.3", "--json")
    ends[method] = json.loads(r.stdout) if r.returncode == 0 else {}
a, c = ends["analytical"], ends["nd-central"]
gap = max((abs(x - y) for x, y in zip(a.get("final_coordinates", []),
                                       c.get("final_coordinates", []))), default=1.0)
ok(a.get("status") == "finished" and c.get("status") == "finished" and gap < 1e-8
   and a.get("newton_iterations") == c.get("newton_iterations"),
   f"run stiff-vehicle ali3p 0.3 s (tyres, springs): analytical ends within {gap:.1e} of "
   f"nd-central (bound 1e-8), same Newton iterations "
   f"({a.get('newton_iterations')}, {c.get('newton_iterations')})")
r = run("run", "--help")
ali3p_help = next((line for line in r.stdout.splitlines() if line.strip().startswith("ali3p:")), "")
matrix_r_help = next((line for line in r.stdout.splitlines()
                      if line.strip().startswith("matrix-r:")), "")
ok("--jacobian nd-forward|nd-central|nd-sparse|ad|ad-sparse|analytical (analytical)" in ali3p_help
   and "--jacobian nd-forward|nd-central|ad|analytical (" in matrix_r_help,
   "run --help lists for each formulation the Jacobian methods it offers: "
   + ali3p_help.strip()[-80:] + " / " + matrix_r_help.strip()[-80:])
r = run("compare", four_bar, "--jacobian", "automatic")
ok(r.returncode == 2 and "unknown Jacobian method 'automatic'" in r.stderr,
   "compare refuses an unknown Jacobian method: " + r.stderr.strip())
r = run("run", four_bar, "--formulation", "matrix-r", "--integrator", "trapezoidal",
        "--jacobian", "ad-sparse")
ok(r.returncode != 0 and "matrix-r does not offer the Jacobian method 'ad-sparse'" in r.stderr,
   "run matrix-r --jacobian ad-sparse is refused naming the formulation: " + r.stderr.strip())
r = run("run", four_bar, "--formulation", "matrix-r", "--integrator", "trapezoidal",
        "--jacobian", "ad", "--json")
ok(r.returncode == 0 and '"newton_iterations"' in r.stdout,
   "run matrix-r trapezoidal --jacobian ad runs: " + r.stderr.strip()[-200:])
# ssode (issue 11): the summary carries the formulation's statistics; with the integrator
# continued across output steps, stored runs keep one internal_steps row per internal step.
stiff = os.path.join(models, "double-pendulum-stiff.json")
stiff_project = os.path.join(tmp, "stiff.eslabon")
r = run("run", stiff, "-f", "ssode", "--rtol", "1e-3", "--atol", "1e-3", "--step", "0.01",
        "--duration", "2", "--json", "--project", stiff_project)
st = (json.loads(r.stdout) if r.returncode == 0 else {}).get("statistics", {})
with sqlite3.connect(stiff_project) as db:
    stored, total = db.execute("SELECT count(*), sum(size) FROM internal_steps").fetchone()
ok(st.get("internal_steps", 0) > 0 and stored == st.get("internal_steps")
   and abs((total or 0) - 2.0) < 1e-9 and st.get("internal_steps") < 200,
   f"run ssode --json --project: statistics.internal_steps {st.get('internal_steps')} = "
   f"{stored} stored rows summing to {total} s; fewer than the 200 output steps")

# The stiff vehicle (paper 002 §5.2 in spirit; bushings of 2e7 N/m): SDIRK and BDF cross 0.3 s
# in internal steps longer than the 10 ms outputs, Adams needs hundreds of steps for 0.02 s.
vehicle = os.path.join(models, "stiff-vehicle.json")
vs = {}
for integrator, duration in (("sdirk4", "0.3"), ("bdf", "0.3"), ("adams", "0.02")):
    r = run("run", vehicle, "-f", "ssode", "--integrator", integrator, "--rtol", "1e-3",
            "--atol", "1e-3", "--step", "0.01", "--duration", duration, "--json")
    vs[integrator] = json.loads(r.stdout) if r.returncode == 0 else {}
steps = {k: v.get("statistics", {}).get("internal_steps", 0) for k, v in vs.items()}
ok(all(v.get("status") == "finished" and v.get("constraint_position_max", 1) < 1e-9
       for v in vs.values())
   and 0 < steps["sdirk4"] < 30 and 0 < steps["bdf"] < 60 and steps["adams"] > 100,
   f"stiff vehicle, tol 1e-3: SDIRK {steps['sdirk4']} and BDF {steps['bdf']} internal steps "
   f"for 0.3 s, Adams {steps['adams']} for 0.02 s; |Phi| <= 1e-9")
# At tol 1e-2 SDIRK used to stop at 0.26 s ("the dependent coordinates could not be recovered"):
# a stage or step end without a position solution is now a rejected step with a smaller h.
r = run("run", vehicle, "-f", "ssode", "--rtol", "1e-2", "--atol", "1e-2", "--step", "0.01",
        "--duration", "1", "--json")
loose = json.loads(r.stdout) if r.returncode == 0 else {}
ok(loose.get("status") == "finished" and abs(loose.get("time_reached", 0) - 1) < 1e-9
   and loose.get("constraint_position_max", 1) < 1e-9,
   f"stiff vehicle, tol 1e-2: SDIRK runs 1 s ({loose.get('statistics', {}).get('internal_steps')} "
   f"internal steps, {loose.get('statistics', {}).get('nonlinear_failures')} rejected by Newton or "
   f"the position recovery) {r.stderr.strip()[-200:]}")

# matrix-r's reduced tangent is dense (its size follows the partition): the compressed methods are
# refused, naming what it offers (nd-sparse used to run with a colouring made for n coordinates
# and failed every step of the five-bar)
five_bar = os.path.join(models, "five-bar.json")
r = run("run", five_bar, "--formulation", "matrix-r", "--integrator", "trapezoidal",
        "--jacobian", "nd-sparse", "--duration", "0.05")
ok(r.returncode != 0 and "matrix-r does not offer the Jacobian method 'nd-sparse'" in r.stderr
   and "choose one of nd-forward, nd-central" in r.stderr,
   "matrix-r refuses nd-sparse and says what it offers: " + r.stderr.strip()[-200:])

# bench jacobian: a table per formulation with a tangent, a row per method it offers, the same
# Newton iterations and Jacobians for every method (they differ by truncation error only)
r = run("bench", "jacobian", "--runs", "1", "--duration", "0.05", "--models", "five-bar")
ok(r.returncode == 0, "bench jacobian on the five-bar exits 0 " + r.stderr.strip()[-200:])
tables = {}
section = None
for line in r.stdout.splitlines():
    if line.startswith("## "):
        section = line.split()[1].rstrip(":")
        tables[section] = []
    elif section and line.startswith("| five-bar |"):
        tables[section].append([c.strip() for c in line.strip("|").split("|")])
expect = {"penalty": ["nd-forward", "nd-central", "nd-sparse", "ad", "ad-sparse", "analytical"],
          "ali3p": ["nd-forward", "nd-central", "nd-sparse", "ad", "ad-sparse", "analytical"],
          "matrix-r": ["nd-forward", "nd-central", "ad", "analytical"]}
for form, methods in expect.items():
    rows = tables.get(form, [])
    ok([row[1] for row in rows] == methods,
       f"bench jacobian {form}: a row per offered method {[row[1] for row in rows]}")
    newton = {row[12] for row in rows}
    jacobians = {row[11] for row in rows}
    ok(len(rows) > 0 and len(newton) == 1 and len(jacobians) == 1,
       f"bench jacobian {form}: same Newton iterations {newton} and Jacobians {jacobians}")
    analytical = [row for row in rows if row[1] == "analytical"]
    ok(not analytical or (analytical[0][5] == "0" and analytical[0][6] == "0"),
       f"bench jacobian {form}: analytical perturbs nothing and evaluates no residual")

# bench vehicles --formulation: only the cases of the formulations named (matrix-r: both
# integrators), each at the three steps
r = run("bench", "vehicles", "--runs", "1", "--duration", "0.02", "--models", "vehicle-simple",
        "--formulation", "penalty,matrix-r")
rows = [[c.strip() for c in line.strip("|").split("|")] for line in r.stdout.splitlines()
        if line.startswith("| vehicle-simple |")]
ok(r.returncode == 0 and [(row[1], row[2]) for row in rows] ==
   [(f, h) for f in ("penalty", "matrix-r RK4", "matrix-r trapezoidal") for h in ("1", "10", "20")],
   f"bench vehicles --formulation penalty,matrix-r: their rows only {[row[1:3] for row in rows]} "
   + r.stderr.strip()[-200:])

done()
