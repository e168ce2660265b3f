#!/usr/bin/env python3
"""eslabon-cli against bad input (issue 13, "Bad input"): each case ends with a message naming
the problem and a non-zero exit status, writes no NaN anywhere (CSV, project, JSON) and leaves
no run "running". Prints TAP."""
import json, math, os, shutil, sqlite3, struct, subprocess, sys, tempfile

from cli_tap import cli, done, ok, source  # noqa: E402
models = os.path.join(source, "models")


def run(*args, timeout=120, prefix=()):
    try:
        return subprocess.run([*prefix, cli, *args], capture_output=True, text=True,
                              timeout=timeout)
    except subprocess.TimeoutExpired:
        return subprocess.CompletedProcess(args, "timeout", "", "timed out")


def strict_json(text):
    """The parsed document, or None when it is not JSON (NaN and Infinity are not)."""
    def refuse(name):
        raise ValueError(name)
    try:
        return json.loads(text, parse_constant=refuse)
    except ValueError:
        return None


def first_line(r):
    return r.stderr.strip().splitlines()[0] if r.stderr.strip() else "(no message)"


tmp = tempfile.mkdtemp(prefix="esl-bad-")
probe = run("render")
has_renderer = not (probe.returncode == 2 and "no renderer" in probe.stderr)
pendulum = os.path.join(models, "double-pendulum.json")
with open(pendulum) as f:
    base = json.load(f)


def model(name, edit):
    m = json.loads(json.dumps(base))
    edit(m)
    path = os.path.join(tmp, name + ".json")
    with open(path, "w") as f:
        json.dump(m, f)
    return path


def runs_of(project):
    if not os.path.exists(project):
        return []
    db = sqlite3.connect(project)
    rows = db.execute("select id, status, json from runs left join summaries on run_id = id "
                      "order by id").fetchall()
    db.close()
    return rows


# ---- step and duration -------------------------------------------------------------------
project = os.path.join(tmp, "p.eslabon")
r = run("run", pendulum, "--step", "1e-300", "--duration", "1", "--json", "--project", project)
ok(r.returncode == 1 and "1e+300 steps" in r.stderr and r.stdout == "" and
   all(s != "running" for _, s, _ in runs_of(project)),
   "--step 1e-300: refused naming the step count, no JSON, no run left running: " + first_line(r))
r = run("run", pendulum, "--step", "2", "--duration", "1", "--json")
ok(r.returncode == 1 and "longer than the duration" in r.stderr and r.stdout == "",
   "--step longer than --duration is refused, not 'finished' with 0 steps: " + first_line(r))
r = run("run", pendulum, "--duration", "1e9", timeout=30)
ok(r.returncode == 1 and "at most 1e+09 steps" in r.stderr,
   "--duration 1e9 is refused at once naming the step count: " + first_line(r))
for bad in ("nan", "inf", "-inf"):
    r = run("run", pendulum, "--duration", bad)
    ok(r.returncode == 1 and "duration" in r.stderr and "negative" not in r.stderr,
       f"--duration {bad} is refused as not a number in range: " + first_line(r))
for bad in ("1e9", "nan", "inf"):
    if not has_renderer:
        ok(True, f"render --time {bad} # SKIP this build has no renderer")
        continue
    r = run("render", pendulum, "--time", bad, "--out", os.path.join(tmp, "x.png"), timeout=30)
    ok(r.returncode not in (0, "timeout") and r.returncode > 0 and "--time" in r.stderr and
       not os.path.exists(os.path.join(tmp, "x.png")),
       f"render --time {bad} is refused naming --time: " + first_line(r))

# ---- huge but finite model values ----------------------------------------------------------
huge = {
    "mass 1e308": model("mass", lambda m: [b.update(mass=1e308) for b in m["bodies"][1:]]),
    "gravity 1e200": model("gravity", lambda m: m.update(gravity=[0, 0, -1e200])),
    "lengths 1e154": model("length", lambda m: (
        m["bodies"][1]["points"].update(P=[0, 1e154, 0]),
        m["bodies"][2]["points"].update(P=[0, 1e154, 0], Q=[0, 2e154, 0]))),
}
project = os.path.join(tmp, "huge.eslabon")
for what, path in huge.items():
    for form in ("penalty", "ali3p", "matrix-r"):
        csv = os.path.join(tmp, "h.csv")
        if os.path.exists(csv):
            os.remove(csv)
        r = run("run", path, "-f", form, "--duration", "0.05", "--json", "--output", csv,
                "--project", project)
        text = open(csv).read().lower() if os.path.exists(csv) else ""
        summary = strict_json(r.stdout) if r.stdout else {}
        ok(r.returncode == 1 and summary is not None and "nan" not in text and "inf" not in text
           and "finite" in r.stderr,
           f"{what}, {form}: fails (status 1) saying a number is not finite, no NaN in the CSV "
           "or the JSON: "
           + first_line(r)[:160])
stored = runs_of(project)
ok(all(s == "failed" for _, s, _ in stored) and
   all(js is None or strict_json(js) is not None for _, _, js in stored),
   f"the {len(stored)} stored runs of those models all ended 'failed' with parsable summaries")
db = sqlite3.connect(project)
bad_samples = 0
for row in db.execute("select * from samples"):
    for v in row:
        numbers = ([x for (x,) in struct.iter_unpack("<d", v)] if isinstance(v, bytes)
                   else [v] if isinstance(v, float) else [])
        bad_samples += any(not math.isfinite(x) for x in numbers)
db.close()
ok(bad_samples == 0, "no stored sample holds a NaN or an infinity")

# ---- files that are not model or project files ---------------------------------------------
fifo = os.path.join(tmp, "fifo")
os.mkfifo(fifo)
r = run("run", pendulum, "--project", fifo, timeout=20)
ok(r.returncode == 1 and "not a regular file" in r.stderr,
   "a FIFO as --project is refused at once: " + first_line(r))
r = run("run", fifo, timeout=20)
ok(r.returncode == 1 and "not a regular file" in r.stderr,
   "a FIFO as the model is refused at once: " + first_line(r))
r = run("info", "/dev/zero", timeout=20)
ok(r.returncode == 1 and "not a regular file" in r.stderr,
   "/dev/zero as the model is refused without reading it: " + first_line(r))
big = os.path.join(tmp, "big.json")
with open(big, "w") as f:
    f.truncate(65 * 1000 * 1000)  # sparse: nothing is written to disk
r = run("run", big, timeout=20)
ok(r.returncode == 1 and "at most 64 MB" in r.stderr,
   "a 65 MB model file is refused naming the limit: " + first_line(r))

# ---- a project in a read-only folder ---------------------------------------------------------
ro = os.path.join(tmp, "ro")
os.mkdir(ro)
ro_project = os.path.join(ro, "p.eslabon")
r = run("run", pendulum, "--duration", "0.1", "--project", ro_project)
ok(r.returncode == 0, "a project to protect: " + r.stderr.strip())
before = open(ro_project, "rb").read()
os.chmod(ro_project, 0o666)
os.chmod(ro, 0o555)
os.chmod(tmp, 0o755)
prefix = ()
if os.geteuid() == 0:  # root writes anywhere: run as nobody when possible
    prefix = ("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups") \
        if shutil.which("setpriv") else None
if prefix is None:
    ok(True, "# SKIP the read-only folder case needs a non-root user (no setpriv)")
else:
    r = run("run", pendulum, "--duration", "0.1", "--project", ro_project, prefix=prefix)
    ok(r.returncode == 1 and "read-only" in r.stderr and "Traceback" not in r.stderr and
       open(ro_project, "rb").read() == before and sorted(os.listdir(ro)) == ["p.eslabon"],
       "a project in a read-only folder: a clean message, the file untouched, nothing beside "
       "it: " + first_line(r))
os.chmod(ro, 0o755)

# ---- DOF coordinate index ----------------------------------------------------------------------
for index in (1e308, 1e10, 2.0 ** 32, -1, 1):
    path = model("dof", lambda m: m.update(degrees_of_freedom=[{"joint": "O",
                                                                "coordinate": index}]))
    r = run("info", path)
    ok(r.returncode == 1 and "'coordinate'" in r.stderr and "is not a coordinate" in r.stderr,
       f"degrees_of_freedom coordinate {index:g}: refused naming it (no crash): "
       + first_line(r))

# ---- JSON numbers --------------------------------------------------------------------------
project = os.path.join(tmp, "json.eslabon")
r = run("run", pendulum, "--alpha", "1e17", "--duration", "0.1", "--json", "--project", project)
summary = strict_json(r.stdout)
stored = runs_of(project)
ok(r.returncode == 0 and summary is not None and summary["options"]["alpha"] == 1e17 and
   stored and stored[-1][1] == "finished" and strict_json(stored[-1][2]) is not None,
   "--alpha 1e17 --json: valid JSON, alpha read back as 1e17, the stored run finished "
   + r.stderr.strip())
param = model("param", lambda m: (m.update(parameters={"m2": 1}),
                                  m["bodies"][2].update(mass="m2")))
for value in ("1e17", "1e30", "1e-100"):
    # m2 = 1e-100 leaves the second bar massless: its spin diverges (1e28 rad/s by 0.07 s) and
    # whether Newton still converges up to 0.1 s depends on the tangent's rounding; central
    # differences do, and the point here is the parameters stored, not that motion.
    r = run("run", param, "--set", "m2=" + value, "--duration", "0.1", "--json",
            "--project", project, "--jacobian", "nd-central")
    db = sqlite3.connect(project)
    params = db.execute("select parameters from runs order by id desc limit 1").fetchone()[0]
    db.close()
    stored_value = (strict_json(params) or {}).get("m2")
    ok(r.returncode == 0 and strict_json(r.stdout) is not None and
       stored_value == float(value),
       f"--set m2={value}: the run is stored with its parameters read back exactly "
       f"({params}) " + r.stderr.strip())
r = run("formulations", "--json")
ok(r.returncode == 0 and strict_json(r.stdout) is not None,
   "formulations --json is JSON (the settings tables' extreme ranges included)")
r = run("info", pendulum, "--json")
ok(r.returncode == 0 and strict_json(r.stdout) is not None, "info --json is JSON")

# ---- an axis whose squared norm overflows --------------------------------------------------------
axis = model("axis", lambda m: m["joints"][0].update(axis=[1e200, 0, 0]))
r1 = run("run", axis, "--duration", "0.5", "--json")
r2 = run("run", pendulum, "--duration", "0.5", "--json")
a, b = strict_json(r1.stdout) or {}, strict_json(r2.stdout) or {}
ok(r1.returncode == 0 and a.get("final_coordinates") == b.get("final_coordinates") is not None,
   "an axis [1e200, 0, 0] runs exactly as the axis \"x\": " + r1.stderr.strip())

# ---- render a stored run ----------------------------------------------------------------------
project = os.path.join(tmp, "render.eslabon")
slider = os.path.join(models, "slider-crank.json")
r = run("run", slider, "--duration", "1", "--project", project)
rid = str(runs_of(project)[-1][0]) if r.returncode == 0 else "1"
stored_png, simulated_png, start_png = (os.path.join(tmp, n) for n in
                                        ("stored.png", "simulated.png", "start.png"))
r = run("render", "--project", project, "--run", rid, "--time", "0.5", "--out", stored_png,
        "--size", "320x200")
if not has_renderer:
    ok(True, "# SKIP render: this build has no renderer")
else:
    report = strict_json(r.stdout.strip()) or {}
    r2 = run("render", slider, "--time", "0.5", "--out", simulated_png, "--size", "320x200")
    r3 = run("render", "--project", project, "--run", rid, "--out", start_png,
             "--size", "320x200")
    same = r2.returncode == 0 and open(stored_png, "rb").read() == open(simulated_png, "rb").read()
    moved = r3.returncode == 0 and open(stored_png, "rb").read() != open(start_png, "rb").read()
    ok(r.returncode == 0 and abs(report.get("time", -1) - 0.5) < 1e-9 and same and moved,
       "render --project --run --time 0.5 draws the stored sample at t = 0.5: the image of "
       "simulating to 0.5, not that of t = 0 " + r.stderr.strip())
    r = run("render", "--project", project, "--run", rid, "--time", "2", "--out", stored_png)
    ok(r.returncode == 1 and "after the last stored sample" in r.stderr,
       "render of a time after the run's end is refused: " + first_line(r))
    r = run("render", "--project", project, "--run", "99", "--out", stored_png)
    ok(r.returncode == 1 and "99" in r.stderr, "render of an unknown run is refused: "
       + first_line(r))

done()
