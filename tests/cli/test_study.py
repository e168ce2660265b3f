#!/usr/bin/env python3
"""eslabon-cli study and project merge (issue 25): a 5 x 5 full-factorial study of the five-bar
over its two spring stiffnesses, run on a local pool of two processes and again case by case
through the emitted sbatch script's task line (SLURM_ARRAY_TASK_ID set by hand), merged: the
same runs bit for bit; merging twice adds nothing; a shard of another model or of a newer
schema is refused with nothing written; a case killed mid-run (kill -9) is named partial by the
merge and a rerun finishes only that case; a 20-sample Latin hypercube over three parameters
has one sample per stratum of each. Prints TAP."""
import hashlib, json, os, shutil, signal, sqlite3, subprocess, tempfile, time

from cli_tap import cli, done, env, models
from cli_tap import ok



cli = os.path.abspath(cli)  # the cases run in a temporary folder

tmp = tempfile.mkdtemp(prefix="esl-study-")


def run(*args, extra_env=None, timeout=300):
    return subprocess.run([cli, *args], capture_output=True, text=True, timeout=timeout,
                          env=dict(env, **(extra_env or {})), cwd=tmp)


def path(*parts):
    return os.path.join(tmp, *parts)


# The five-bar with its two spring stiffnesses as parameters k1, k2 (the shipped file gives
# them as numbers, 100 N/m each); everything else as shipped.
with open(os.path.join(models, "five-bar.json")) as f:
    model = json.load(f)
model["parameters"] = {"k1": 100, "k2": 100, **model["parameters"]}
model["forces"][0]["stiffness"] = "k1"
model["forces"][1]["stiffness"] = "k2"
five_bar = path("five-bar-k.json")
with open(five_bar, "w") as f:
    json.dump(model, f, indent=1)

# ---- plan --------------------------------------------------------------------------------------
os.makedirs(path("pool"))
os.makedirs(path("slurm"))
r = run("study", "plan", five_bar, "--parameter", "k1=50:150:5", "--parameter", "k2=50:150:5",
        "--duration", "0.2", "--step", "0.002", "--objectives", "final:12:2:x,max:A1:kinetic",
        "--output", path("pool", "study.json"))
ok(r.returncode == 0 and "25 cases" in r.stdout, f"plan: 25 cases {r.stdout.strip()}{r.stderr}")
with open(path("pool", "study.json")) as f:
    study = json.load(f)
levels = [50.0, 75.0, 100.0, 125.0, 150.0]
cases = [(c["parameters"]["k1"], c["parameters"]["k2"]) for c in study["cases"]]
ok([c["id"] for c in study["cases"]] == list(range(25)) and
   cases == [(a, b) for a in levels for b in levels],
   "the manifest lists cases 0-24: every (k1, k2) of 50, 75, 100, 125, 150 N/m, k2 fastest")
ok(study["model"]["sha256"] == hashlib.sha256(study["model"]["text"].encode()).hexdigest() and
   study["formulation"] == "penalty" and study["settings"]["step"] == 0.002 and
   study["settings"]["duration"] == 0.2 and "options" in study["settings"],
   "it holds the model text and its SHA-256, the formulation and its settings")
shutil.copy(path("pool", "study.json"), path("slurm", "study.json"))

# ---- the local pool -----------------------------------------------------------------------------
r = run("study", "run", path("pool", "study.json"), "--jobs", "2")
ok(r.returncode == 0 and "25 run now on 2 processes" in r.stdout and "0 failed" in r.stdout,
   f"run --jobs 2: 25 cases run, none failed ({r.stdout.strip()} {r.stderr.strip()})")
shards = sorted(f for f in os.listdir(path("pool", "study.shards")) if f.endswith(".eslabon"))
ok(shards == [f"case-{k:04d}.eslabon" for k in range(25)], "one shard per case")
mtimes = {s: os.stat(path("pool", "study.shards", s)).st_mtime_ns for s in shards}
r = run("study", "run", path("pool", "study.json"), "--jobs", "2")
ok(r.returncode == 0 and "0 run now" in r.stdout and "25 done before" in r.stdout and
   all(os.stat(path("pool", "study.shards", s)).st_mtime_ns == mtimes[s] for s in shards),
   "run again: nothing runs again, no shard is touched")

# ---- the Slurm script, its task line run by hand -----------------------------------------------
r = run("study", "run", path("slurm", "study.json"), "--emit", "slurm", "--partition", "short",
        "--time", "00:05:00", "--max-parallel", "3")
script = path("slurm", "study.sbatch")
text = open(script).read() if os.path.exists(script) else ""
ok(r.returncode == 0 and "#SBATCH --array=0-24%3\n" in text and
   "#SBATCH --partition=short\n" in text and "#SBATCH --time=00:05:00\n" in text and
   text.startswith("#!/bin/bash\n"),
   "--emit slurm writes an sbatch script: --array=0-24%3, the partition and time limit")
task = [l for l in text.splitlines() if "$SLURM_ARRAY_TASK_ID" in l]
ok(len(task) == 1 and "study run" in task[0] and "--case" in task[0] and
   path("slurm", "study.json") in task[0], f"its task line runs one case: {task}")
failures = []
for k in range(25):
    t = subprocess.run(["bash", script], capture_output=True, text=True, timeout=120, cwd=tmp,
                       env=dict(env, SLURM_ARRAY_TASK_ID=str(k), SLURM_ARRAY_JOB_ID="4242",
                                SLURM_JOB_ID=str(5000 + k)))
    if t.returncode != 0:
        failures.append((k, t.stderr.strip()))
ok(not failures, f"the 25 array tasks run by hand each finish their case {failures[:2]}")

# ---- merged: the same runs -----------------------------------------------------------------------
pool_out, slurm_out = path("pool.eslabon"), path("slurm.eslabon")
r = run("study", "collect", path("pool", "study.json"), "--output", pool_out)
ok(r.returncode == 0 and "25 runs copied from 25 shards" in r.stdout,
   f"study collect: 25 runs ({r.stdout.strip()} {r.stderr.strip()})")
r = run("project", "merge", slurm_out,
        *[path("slurm", "study.shards", f"case-{k:04d}.eslabon") for k in range(25)])
ok(r.returncode == 0 and "25 runs copied from 25 shards" in r.stdout,
   f"project merge of the Slurm shards: 25 runs ({r.stdout.strip()} {r.stderr.strip()})")

PHYSICS = ("time, kinetic, potential_gravity, potential_elastic, work_nonconservative, total, "
           "phi, dphi, ddphi, newton_iterations, jacobian_evaluations, poses, violations")


def runs_of(db_path):
    """case -> (status, formulation, step, duration, options, parameters, samples, provenance)"""
    db = sqlite3.connect(db_path)
    out = {}
    for rid, status, form, step, dur, opts, params, prov, host, ver in db.execute(
            "SELECT r.id, r.status, r.formulation, r.step, r.duration, r.options, r.parameters,"
            " p.json, r.hostname, r.eslabon_version FROM runs r"
            " JOIN run_provenance p ON p.run_id = r.id"):
        pj = json.loads(prov)
        samples = db.execute(f"SELECT {PHYSICS} FROM samples WHERE run_id = ? ORDER BY seq",
                             (rid,)).fetchall()
        out[pj["study"]["case"]] = dict(status=status, settings=(form, step, dur, opts),
                                        parameters=json.loads(params), samples=samples,
                                        provenance=pj, host=host, version=ver)
    db.close()
    return out


a, b = runs_of(pool_out), runs_of(slurm_out)
ok(sorted(a) == list(range(25)) and sorted(b) == list(range(25)) and
   all(a[k]["status"] == "finished" == b[k]["status"] for k in a),
   "both merged projects hold the 25 cases, finished")
ok(all(a[k]["parameters"] == {"k1": cases[k][0], "k2": cases[k][1]} for k in a),
   "each run stores its case's stiffnesses as its parameters")
same = [k for k in a if a[k]["samples"] == b[k]["samples"] and len(a[k]["samples"]) > 100 and
        a[k]["settings"] == b[k]["settings"]]
ok(len(same) == 25, f"pool and Slurm runs identical bit for bit: samples (monitors, poses, "
   f"violations: {len(a[0]['samples'])} each) and settings of {len(same)}/25 cases")
ok(len({json.dumps(a[k]["samples"][-1][5]) for k in a}) > 20,
   "the stiffness changes the motion: the cases end with different total energies")
obj_a = {k: a[k]["provenance"]["study"]["objectives"] for k in a}
obj_b = {k: b[k]["provenance"]["study"]["objectives"] for k in b}
ok(obj_a == obj_b and all(set(o) == {"final:12:2:x", "max:A1:kinetic"} for o in obj_a.values())
   and obj_a[0]["max:A1:kinetic"] > 0, "the objectives of each case are stored, the same in both")
# final:12:2:x is x of point 2 of body 12 (drawn at (0.5, -2, 0)) at the end: from the last
# stored sample's pose of body 12 (bodies: ground, A1, 12, ...; per body R row-major 9, p 3)
import struct
last = struct.unpack("<%dd" % (len(a[7]["samples"][-1][11]) // 8), a[7]["samples"][-1][11])
R, p = last[24:33], last[33:36]
x_end = R[0] * 0.5 + R[1] * -2.0 + p[0]
ok(abs(a[7]["samples"][-1][0] - 0.2) < 1e-12 and abs(obj_a[7]["final:12:2:x"] - x_end) < 1e-12,
   f"final:12:2:x of case 7 ({obj_a[7]['final:12:2:x']:.9f}) is point 2's x in the last "
   f"stored pose ({x_end:.9f})")
ok(b[24]["provenance"].get("slurm") == {"job_id": "5024", "array_job_id": "4242",
                                         "array_task_id": "24"} and
   "slurm" not in a[24]["provenance"] and a[24]["host"] and a[24]["version"] and
   a[24]["provenance"]["host"] == a[24]["host"],
   "provenance: Slurm job and task ids from the environment, host and version")

# ---- merging twice adds nothing ------------------------------------------------------------------
r = run("study", "collect", path("pool", "study.json"), "--output", pool_out)
db = sqlite3.connect(pool_out)
n_runs, n_samples = db.execute("SELECT (SELECT count(*) FROM runs), (SELECT count(*) FROM "
                               "samples)").fetchone()
db.close()
ok(r.returncode == 0 and "0 runs copied" in r.stdout and "25 already there" in r.stdout and
   n_runs == 25 and n_samples == sum(len(x["samples"]) for x in a.values()),
   f"merging again adds nothing: {n_runs} runs, {n_samples} samples ({r.stdout.strip()})")
r = run("project", "merge", pool_out,
        *[path("slurm", "study.shards", f"case-{k:04d}.eslabon") for k in range(3)])
ok(r.returncode == 0 and "3 runs copied" in r.stdout,
   "the Slurm shards are other runs of the same cases: merged into the pool's project, 3 more")

# ---- refusals ----------------------------------------------------------------------------------
before = open(slurm_out, "rb").read()
other = path("pendulum.eslabon")
r0 = run("run", os.path.join(models, "double-pendulum.json"), "--duration", "0.05", "--project", other)
r = run("project", "merge", slurm_out, path("pool", "study.shards", "case-0000.eslabon"), other)
ok(r0.returncode == 0 and r.returncode == 1 and "another model" in r.stderr and
   "nothing merged" in r.stderr and open(slurm_out, "rb").read() == before,
   f"a shard of another model is refused, nothing written: {r.stderr.strip()}")
newer = path("newer.eslabon")
shutil.copy(path("pool", "study.shards", "case-0001.eslabon"), newer)
db = sqlite3.connect(newer)
db.execute("PRAGMA user_version = 99")
db.commit()
db.close()
newer_bytes = open(newer, "rb").read()
r = run("project", "merge", slurm_out, newer)
ok(r.returncode == 1 and "newer Eslabón" in r.stderr and
   open(slurm_out, "rb").read() == before and open(newer, "rb").read() == newer_bytes,
   f"a shard of a newer schema is refused, both files untouched: {r.stderr.strip()}")

# ---- any project merges: sensitivity and optimisation records, runs without an identity -----
mixed, merged = path("mixed.eslabon"), path("mixed-merged.eslabon")
fb = os.path.join(models, "five-bar.json")
short = ["--duration", "0.2", "--step", "0.002"]
rs = [run("sensitivity", fb, *short, "--project", mixed),
      run("optimize", fb, *short, "--max-evaluations", "3", "--parameters", "Ls1", "--lower",
          "2.0", "--upper", "2.5", "--project", mixed),
      run("run", fb, *short, "--project", mixed)]
r1 = run("project", "merge", merged, mixed)
r2 = run("project", "merge", merged, mixed)
TABLES = {"runs": "SELECT model_name, formulation, step, duration, options, hostname, pid, "
                  "started_at, finished_at, status, eslabon_version FROM runs ORDER BY id",
          "samples": "SELECT seq, time, total, phi, poses FROM samples ORDER BY run_id, seq",
          "summaries": "SELECT json FROM summaries ORDER BY run_id",
          "sensitivities": "SELECT method, objectives, parameters, parameter_values, psi, "
                           "gradient FROM sensitivities",
          "sensitivity_history": "SELECT seq, time, psi, gradient, state_sensitivity FROM "
                                 "sensitivity_history ORDER BY run_id, seq",
          "optimizations": "SELECT objective, algorithm, lower, upper, result, psi, x FROM "
                           "optimizations",
          "optimization_evaluations": "SELECT seq, psi, gradient, x FROM "
                                      "optimization_evaluations ORDER BY run_id, seq"}


def dump(db_path):
    db = sqlite3.connect(db_path)
    out = {t: db.execute(q).fetchall() for t, q in TABLES.items()}
    out["identities"] = db.execute("SELECT count(DISTINCT identity) FROM run_provenance"
                                   ).fetchone()[0]
    db.close()
    return out


src, dst = dump(mixed), dump(merged)
ok(all(x.returncode == 0 for x in rs) and r1.returncode == 0 and "3 runs copied" in r1.stdout,
   f"a project with a sensitivity run, an optimisation and a run merges: {r1.stdout.strip()} "
   f"{[x.stderr.strip() for x in rs if x.returncode]}")
ok(all(src[t] == dst[t] and src[t] for t in TABLES),
   "every row of runs (host, process, dates, version kept), samples, summaries, sensitivities "
   f"and their history, optimisations and their evaluations copied as stored "
   f"({ {t: len(src[t]) for t in TABLES} })")
ok(r2.returncode == 0 and "0 runs copied" in r2.stdout and "3 already there" in r2.stdout and
   dump(merged)["identities"] == 3,
   "runs stored without an identity get one from what they are: merging again adds nothing")

# ---- a case killed mid-run ---------------------------------------------------------------------
os.makedirs(path("kill"))
kill_json = path("kill", "study.json")
r = run("study", "plan", five_bar, "--parameter", "k1=50:150:2", "--duration", "100", "--step",
        "0.002", "--output", kill_json)
r0 = run("study", "run", kill_json, "--case", "0")
shard1 = path("kill", "study.shards", "case-0001.eslabon")
p = subprocess.Popen([cli, "study", "run", kill_json, "--case", "1"], env=env, cwd=tmp,
                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
deadline = time.time() + 60
while not os.path.exists(shard1 + "-wal") and time.time() < deadline and p.poll() is None:
    time.sleep(0.02)
time.sleep(0.3)
alive = p.poll() is None
p.send_signal(signal.SIGKILL)
p.wait()
ok(r0.returncode == 0 and alive and p.returncode == -signal.SIGKILL,
   "case 1 killed with SIGKILL in the middle of its run")
m0 = os.stat(path("kill", "study.shards", "case-0000.eslabon")).st_mtime_ns
kill_out = path("kill.eslabon")
r = run("study", "collect", kill_json, "--output", kill_out)
ok(r.returncode == 0 and "case-0001.eslabon: partial, skipped" in r.stdout and
   "1 runs copied from 1 shards" in r.stdout and "1 partial shards skipped" in r.stdout,
   f"the merge names the killed case's shard partial and merges the other: {r.stdout.strip()}")
r = run("study", "run", kill_json, "--jobs", "2")
ok(r.returncode == 0 and "1 run now" in r.stdout and "1 done before" in r.stdout and
   os.stat(path("kill", "study.shards", "case-0000.eslabon")).st_mtime_ns == m0,
   f"the rerun runs the killed case only: {r.stdout.strip()}")
r = run("study", "collect", kill_json, "--output", kill_out)
ok(r.returncode == 0 and "1 runs copied" in r.stdout and "1 already there" in r.stdout and
   "0 partial" in r.stdout, f"then the merge takes it: {r.stdout.strip()}")

# ---- designs ------------------------------------------------------------------------------------
lhs = path("lhs.json")
bounds = {"k1": (50.0, 150.0), "k2": (20.0, 80.0), "m_A1": (0.5, 2.0)}
args = [f"--parameter={n}={lo}:{hi}" for n, (lo, hi) in bounds.items()]
r = run("study", "plan", five_bar, *args, "--design", "lhs", "--samples", "20", "--seed", "7",
        "--output", lhs)
design = json.load(open(lhs)) if r.returncode == 0 else {"cases": []}
strata = {n: sorted(int((c["parameters"][n] - lo) / (hi - lo) * 20) for c in design["cases"])
          for n, (lo, hi) in bounds.items()}
ok(len(design["cases"]) == 20 and all(s == list(range(20)) for s in strata.values()),
   f"Latin hypercube, 20 samples over k1, k2, m_A1: one sample in each of the 20 strata of "
   f"each parameter {r.stderr.strip()}")
r2 = run("study", "plan", five_bar, *args, "--design", "lhs", "--samples", "20", "--seed", "7",
         "--output", path("lhs2.json"))
r3 = run("study", "plan", five_bar, *args, "--design", "lhs", "--samples", "20", "--seed", "8",
         "--output", path("lhs3.json"))
ok(json.load(open(path("lhs2.json")))["cases"] == design["cases"] and
   json.load(open(path("lhs3.json")))["cases"] != design["cases"],
   "the same seed draws the same cases, another seed others")
r = run("study", "plan", five_bar, *args, "--design", "random", "--samples", "50",
        "--output", path("random.json"))
rnd = json.load(open(path("random.json")))["cases"] if r.returncode == 0 else []
ok(len(rnd) == 50 and all(lo <= c["parameters"][n] <= hi for c in rnd
                          for n, (lo, hi) in bounds.items()),
   "random design: 50 samples inside the bounds")

# ---- refused plans ------------------------------------------------------------------------------
r = run("study", "plan", five_bar, "--parameter", "k9=1:2:3", "--output", path("bad.json"))
ok(r.returncode != 0 and "no parameter 'k9'" in r.stderr and "k1" in r.stderr and
   not os.path.exists(path("bad.json")), f"an unknown parameter is refused: {r.stderr.strip()}")
r = run("study", "plan", five_bar, "--parameter", "x1=1:2:3", "--output", path("bad.json"))
ok(r.returncode != 0 and "computed from others" in r.stderr,
   f"a computed parameter is refused: {r.stderr.strip()}")
r = run("study", "plan", five_bar, "--parameter", "k1=1:2", "--output", path("bad.json"))
ok(r.returncode != 0 and "LEVELS" in r.stderr, "the full design needs each parameter's levels")
r = run("study", "plan", five_bar, "--parameter", "k1=1:2:3", "--objectives", "final:nope",
        "--output", path("bad.json"))
ok(r.returncode != 0 and "objective 'final:nope'" in r.stderr,
   f"an objective that is no variable is refused: {r.stderr.strip()}")
r = run("study", "run", path("pool", "study.json"), "--case", "25")
ok(r.returncode != 0 and "cases 0 to 24" in r.stderr, "a case outside the study is refused")

shutil.rmtree(tmp)
done()
