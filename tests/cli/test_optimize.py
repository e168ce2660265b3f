#!/usr/bin/env python3
"""eslabon-cli optimize --project: the optimisation stored (schema 10) is what the command
printed — every evaluation's psi, |grad psi| and x to all printed digits, their count exactly,
the best point and how it ended —, a second one is appended to the same project, a failed one
is stored as failed with its message; a file that is not an Eslabón project is refused and
left byte-identical with nothing beside it; --project without finite bounds is refused before
any file is made; the gradient method's own options (--sensitivity-*, as `sensitivity` has them)
reach the evaluations and are stored with the run, and a flag the method has not, or a value
that does not parse, is refused with exit status 2. Prints TAP."""
import json, math, os, sqlite3, struct, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cli_tap import cli, models, env, ok, done  # noqa: E402

tmp = tempfile.mkdtemp(prefix="esl-optimize-")
five_bar = os.path.join(models, "five-bar.json")
base = ["--objective", "psi1", "--parameters", "Ls1,Ls2", "--lower", "1.5,1.5",
        "--upper", "3,3", "--step", "0.01", "--duration", "1"]


def optimize(*args):
    return subprocess.run([cli, "optimize", five_bar, *args], capture_output=True, text=True,
                          timeout=300, env=env)


def printed(stdout):
    """The evaluation lines as (index, psi, |grad|, [x...]) texts, and the other lines."""
    evaluations, other = [], []
    for line in stdout.splitlines():
        fields = line.split()
        if len(fields) >= 8 and fields[0].isdigit() and fields[1] == "psi":
            x = line.split("x =")[1].split()
            evaluations.append((int(fields[0]), fields[3], fields[6], x))
        else:
            other.append(line)
    return evaluations, other


def doubles(blob):
    return list(struct.unpack("<%dd" % (len(blob) // 8), blob)) if blob else None


def stored(project, run_id):
    with sqlite3.connect(project) as db:
        run = db.execute("SELECT status, formulation, step, duration, message FROM runs"
                         " WHERE id = ?", (run_id,)).fetchone()
        o = db.execute("SELECT objective, method, method_options, algorithm, max_evaluations,"
                       " xtol, parameters, lower, upper, start, result, psi, x FROM optimizations"
                       " WHERE run_id = ?", (run_id,)).fetchone()
        e = db.execute("SELECT psi, gradient, x FROM optimization_evaluations WHERE run_id = ?"
                       " ORDER BY seq", (run_id,)).fetchall()
    return run, o, [(psi, doubles(g), doubles(x)) for psi, g, x in e]


def files_beside(path):
    return [s for s in ("-wal", "-shm", "-journal") if os.path.exists(path + s)]


# ---- a run that reaches its evaluation limit, then one that converges, in one project ------
project = os.path.join(tmp, "study.eslabon")
r = optimize(*base, "--max-evaluations", "6", "--project", project)
evaluations, other = printed(r.stdout)
ok(r.returncode == 0 and len(evaluations) == 6 and other[-1] == f"stored as run 1 in {project}",
   f"optimize --project: 6 evaluations printed, then 'stored as run 1 in FILE' "
   f"({other[-1] if other else ''!r}) {r.stderr.strip()}")
run, o, e = stored(project, 1)
ok(run is not None and run[:4] == ("finished", "penalty", 0.01, 1.0) and run[4] is None,
   f"the run: finished, penalty, h = 0.01 s, 1 s ({run})")
ok(o is not None and o[:7] == ("psi1", "direct", "{}", "lbfgs", 6, 1e-8, '["Ls1","Ls2"]') and
   doubles(o[7]) == [1.5, 1.5] and doubles(o[8]) == [3.0, 3.0],
   f"what it minimised over what: {o[:7] if o else None}, bounds {doubles(o[7]) if o else None}"
   f" .. {doubles(o[8]) if o else None}")
ok(len(e) == len(evaluations) == 6,
   f"{len(e)} evaluations stored, {len(evaluations)} printed: the same count")
same = len(e) == len(evaluations) and all(
    f"{psi:.8g}" == p and f"{math.sqrt(sum(g * g for g in grad)):.4g}" == n and
    [f"{v:.10g}" for v in x] == px
    for (psi, grad, x), (_, p, n, px) in zip(e, evaluations))
ok(same, "each stored evaluation prints as the line the command printed: psi (8 digits), "
   "|grad psi| (4) and x (10)")
start = doubles(o[9]) if o else None
ok(start is not None and [f"{v:.10g}" for v in start] == evaluations[0][3],
   f"the start is the first evaluation's x, the model's values ({start})")
last = next((line for line in other if line.startswith("stopped (evaluation limit)")), "")
best = (f"stopped (evaluation limit) after 6 evaluations: psi = {o[11]:.10g} at "
        f"Ls1 = {doubles(o[12])[0]:.10g} Ls2 = {doubles(o[12])[1]:.10g}") if o and o[12] else None
ok(o is not None and o[10] == "evaluation limit" and last == best and
   o[11] == min(psi for psi, _, _ in e),
   f"result 'evaluation limit' and the best point as printed: {last!r}")

r = optimize(*base, "--algorithm", "slsqp", "--xtol", "1e-6", "--project", project)
evaluations, other = printed(r.stdout)
run, o, e = stored(project, 2)
ok(r.returncode == 0 and other[-1] == f"stored as run 2 in {project}" and o is not None and
   o[3] == "slsqp" and o[5] == 1e-6 and o[4] == 100 and o[10] == "converged" and
   len(e) == len(evaluations) and other[-2].startswith("converged after %d " % len(e)),
   f"a second optimisation (SLSQP, xtol 1e-6) is run 2 of the same project: converged after "
   f"{len(e)} evaluations, as printed")

# ---- an evaluation that fails: stored as failed with the message ---------------------------
r = optimize("--objective", "psi1", "--parameters", "L_A1", "--lower", "5", "--upper", "20",
             "--step", "0.01", "--duration", "1", "--project", project)
run, o, e = stored(project, 3)
ok(r.returncode == 1 and "evaluation 1 at L_A1 = 5" in r.stderr and
   r.stdout.splitlines()[-1] == f"stored as run 3 in {project}" and run is not None and
   run[0] == "failed" and "evaluation 1 at L_A1 = 5" in (run[4] or "") and
   o[10] == "failed" and e == [],
   f"a first evaluation the loader refuses: exit 1, run 3 failed with the message "
   f"({(run[4] or '')[:60] if run else None}...)")

# ---- the gradient method's own options: the --sensitivity-* flags of `sensitivity` --------
options_project = os.path.join(tmp, "options.eslabon")
matrix_r = ["--formulation", "matrix-r", "--integrator", "trapezoidal"]
r = optimize(*base, *matrix_r, "--sensitivity-parameter-step", "3e-6", "--max-evaluations", "1",
             "--project", options_project)
run, o, e = stored(options_project, 1) if r.returncode == 0 else (None, None, [])
options = json.loads(o[2]) if o else {}
ok(r.returncode == 0 and o is not None and o[1] == "direct" and
   options.get("parameter-step") == 3e-6 and
   set(options) == {"jacobian", "adjoint-memory", "parameter-step", "newton-matrix", "geometry"},
   f"--sensitivity-parameter-step 3e-6 is stored with matrix-r direct's other options "
   f"({options}) {r.stderr.strip()}")
# 4 KiB cannot hold the checkpoints of 100 steps: the engine refuses the first evaluation,
# naming the setting, so the flag reached it
r = optimize(*base, *matrix_r, "--method", "adjoint", "--sensitivity-adjoint-memory", "0.004",
             "--project", options_project)
run, o, e = stored(options_project, 2) if r.returncode == 1 else (None, None, [])
ok(r.returncode == 1 and "adjoint-memory" in r.stderr and run is not None and
   run[0] == "failed" and json.loads(o[2]).get("adjoint-memory") == 0.004 and e == [],
   f"--sensitivity-adjoint-memory 0.004 reaches the optimiser's evaluations: exit 1, run 2 "
   f"failed, 0.004 stored: {r.stderr.strip()}")
refused = os.path.join(tmp, "refused.eslabon")
for flag, value, why in (("--sensitivity-adjoint-memory", "4", "not a setting of penalty direct"),
                         ("--sensitivity-parameter-step", "small", "not a number")):
    args = (*base, flag, value) if "penalty" in why else (*base, *matrix_r, flag, value)
    r = optimize(*args, "--project", refused)
    ok(r.returncode == 2 and why in r.stderr and "psi =" not in r.stdout and
       not os.path.exists(refused),
       f"{flag} {value}: exit 2 before any evaluation or file: {r.stderr.strip()}")

# ---- refusals ------------------------------------------------------------------------------
foreign = os.path.join(tmp, "foreign.sqlite")
with sqlite3.connect(foreign) as db:
    db.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT)")
    db.execute("INSERT INTO notes (text) VALUES ('not a project')")
text = os.path.join(tmp, "notes.txt")
with open(text, "w") as f:
    f.write("not a database\n" * 20)
for path, what in ((foreign, "another application's SQLite database"),
                   (text, "a text file")):
    before = open(path, "rb").read()
    r = optimize(*base, "--max-evaluations", "2", "--project", path)
    ok(r.returncode == 1 and "not an Eslabón project" in r.stderr and
       "psi =" not in r.stdout and open(path, "rb").read() == before and
       not files_beside(path),
       f"{what} as --project: refused before any evaluation, byte-identical, nothing beside "
       f"it: {r.stderr.strip()}")

unbounded = os.path.join(tmp, "unbounded.eslabon")
r = optimize("--objective", "psi1", "--parameters", "Ls1", "--step", "0.01", "--duration", "1",
             "--project", unbounded)
ok(r.returncode == 2 and "--lower and --upper" in r.stderr and not os.path.exists(unbounded),
   f"--project without bounds: exit 2, no file made: {r.stderr.strip()}")

done()
