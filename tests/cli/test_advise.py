#!/usr/bin/env python3
"""eslabon-cli advise (issue 25), the formulation advisor, on the spatial four-bar: a reference
that two formulations confirm; the recommended candidate meets the accuracy, checked here
independently (its run and the reference's run by `eslabon-cli run --output`, the error
computed from the CSV points); no candidate of its table that is faster meets it; candidates
pruned by the probe were less accurate than asked there; the same for the total energy's drift
and the constraints' violation (--quantity energy, constraints). Prints TAP."""
import csv, json, math, os, subprocess, tempfile

from cli_tap import cli, done, env, models
from cli_tap import ok



cli = os.path.abspath(cli)
tmp = tempfile.mkdtemp(prefix="esl-advise-")
four_bar = os.path.join(models, "four-bar-spatial.json")
points = "crank:B,coupler:C,follower:D"
accuracy, duration = 1e-4, 1.0


def run(*args):
    return subprocess.run([cli, *args], capture_output=True, text=True, timeout=600, env=env,
                          cwd=tmp)


r = run("advise", four_bar, "--accuracy", str(accuracy), "--duration", str(duration),
        "--quantity", points, "--json")
a = json.loads(r.stdout) if r.returncode == 0 else {"candidates": [], "reference": {}}
ref = a["reference"]
ok(r.returncode == 0 and ref.get("formulation") and ref.get("confirmed_by") and
   ref["formulation"] != ref["confirmed_by"] and ref["agreement"] <= accuracy / 10,
   f"a reference ({ref.get('formulation')} at h = {ref.get('step')} s) confirmed by another "
   f"formulation ({ref.get('confirmed_by')}: they differ by {ref.get('agreement')}) {r.stderr}")
cands = a["candidates"]
forms = {c["formulation"] for c in cands}
ok(len(cands) >= 12 and {"penalty", "ali3p", "matrix-r"} <= forms,
   f"{len(cands)} candidates over {sorted(forms)} and their steps")
rec = cands[a["recommended"]] if a.get("recommended") is not None else None
ok(rec is not None and rec["verdict"] == "recommended" and rec["error"] <= accuracy,
   f"recommended: {rec and rec['formulation']} h = {rec and rec['step']}, error "
   f"{rec and rec['error']} <= {accuracy}")
faster = [c for c in cands if c["seconds"] is not None and c["seconds"] < rec["seconds"]]
ok(all(c["error"] > accuracy for c in faster),
   f"every full run faster than it misses the accuracy: "
   f"{[(c['formulation'], c['step'], c['error']) for c in faster]}")
within = [c for c in cands if c["error"] is not None and c["error"] <= accuracy]
ok(all(c["seconds"] >= rec["seconds"] for c in within) and len(within) >= 1,
   f"it is the fastest of the {len(within)} full runs within the accuracy")
pruned = [c for c in cands if c["verdict"].startswith("too inaccurate") and c["error"] is None]
ok(all(c["probe_error"] > accuracy for c in pruned),
   f"the {len(pruned)} candidates pruned by the probe were already less accurate than asked")


# Independently: the recommended settings and the reference through `run --output`.
def run_csv(name, form, step, options, *outputs):
    """The rows of `run --output` (every 10 ms) of form at step with options (rtol, atol), and
    outputs (--points ... or --variables ...)."""
    out = os.path.join(tmp, name + ".csv")
    args = ["run", four_bar, "--formulation", form, "--step", repr(step), "--duration",
            str(duration), "--output", out, *outputs, "--output-step", "0.01"]
    for k, v in (options or {}).items():
        if k in ("rtol", "atol"):
            args += [f"--{k}", repr(v)]
    r = run(*args)
    rows = list(csv.DictReader(open(out))) if r.returncode == 0 else []
    return r, rows


def history(name, form, step, options):
    return run_csv(name, form, step, options, "--points", points)


names = points.split(",")
r1, mine = history("rec", rec["formulation"], rec["step"], rec["options"])
r2, theirs = history("ref", ref["formulation"], ref["step"], None)
dev = scale = 0.0
for a_row, b_row in zip(mine, theirs):
    for p in names:
        d = [float(a_row[f"{p}:{c}"]) - float(b_row[f"{p}:{c}"]) for c in "xyz"]
        dev = max(dev, math.sqrt(sum(x * x for x in d)))
        s = [float(b_row[f"{p}:{c}"]) - float(theirs[0][f"{p}:{c}"]) for c in "xyz"]
        scale = max(scale, math.sqrt(sum(x * x for x in s)))
err = dev / scale if scale else math.inf
ok(r1.returncode == 0 and r2.returncode == 0 and len(mine) == len(theirs) == 101 and
   err <= accuracy and abs(err - rec["error"]) <= max(1e-8, 1e-3 * rec["error"]),
   f"run --output of the recommendation and of the reference: error {err:.6e} <= {accuracy} "
   f"(advise said {rec['error']:.6e}; scale {scale:.6f} m, {ref['scale']:.6f} m)")

# --quantity VARIABLE: the follower's angle (a variable of the variable table). Checked here
# through `run --variables`: the recommendation's error of that angle against a reference run of
# another formulation than the advisor's reference (ssode at rtol 1e-11, an error-controlled
# integrator, or matrix-r at 0.05 ms) is within the accuracy, and a candidate of the table that
# is cheaper (less CPU in full, or the same formulation at a larger step) is not.
var = "D:angle"
r = run("advise", four_bar, "--accuracy", str(accuracy), "--duration", str(duration),
        "--quantity", var, "--json")
v = json.loads(r.stdout) if r.returncode == 0 else {"candidates": [], "reference": {}}
vrec = v["candidates"][v["recommended"]] if v.get("recommended") is not None else None
ok(r.returncode == 0 and v.get("measure") == "variables" and vrec is not None and
   vrec["error"] <= accuracy,
   f"advise --quantity {var}: recommended {vrec and vrec['label']} with error "
   f"{vrec and vrec['error']} <= {accuracy} {r.stderr.strip()}")


def series(name, form, step, options, column):
    return [float(x[column]) for x in run_csv(name, form, step, options, "--variables",
                                                column)[1]]


def unwrap(ys):
    out = []
    for y in ys:
        while out and y - out[-1] > math.pi:
            y -= 2 * math.pi
        while out and y - out[-1] < -math.pi:
            y += 2 * math.pi
        out.append(y)
    return out


fine_form = "matrix-r" if v["reference"].get("formulation") == "ssode" else "ssode"
fine = unwrap(series("fine", fine_form, 1e-2 if fine_form == "ssode" else 5e-5,
                     {"rtol": 1e-11, "atol": 1e-13} if fine_form == "ssode" else None, var))
vscale = max((abs(y - fine[0]) for y in fine), default=0.0)


def measured(c):
    ys = unwrap(series("cand", c["formulation"], c["step"], c["options"], var))
    if len(ys) != len(fine) or not vscale:
        return math.inf
    return max(abs(a - b) for a, b in zip(ys, fine)) / vscale


mine = measured(vrec) if vrec else math.inf
ok(len(fine) == 101 and mine <= accuracy and
   abs(mine - vrec["error"]) <= 0.1 * accuracy,
   f"run --variables {var}: the recommendation's error against {fine_form} (fine) is "
   f"{mine:.3e} <= {accuracy} (advise said {vrec and vrec['error']:.3e}; the angle swings "
   f"{vscale:.4f} rad)")
cheaper = [c for c in v["candidates"] if vrec and c is not vrec and not c["verdict"].startswith(
    "failed") and ((c["seconds"] is not None and c["seconds"] < vrec["seconds"]) or
                   (c["formulation"] == vrec["formulation"] and c["step"] > vrec["step"]))]
worst_cheaper = [(c["label"], measured(c)) for c in cheaper[:3]]
ok(len(worst_cheaper) >= 1 and all(e > accuracy for _, e in worst_cheaper),
   f"cheaper candidates miss the accuracy, measured the same way: {worst_cheaper}")
r = run("advise", four_bar, "--quantity", "crank:B:ax")
ok(r.returncode == 2 and "acceleration" in r.stderr,
   f"an acceleration is refused: {r.stderr.strip()}")
r = run("advise", four_bar, "--quantity", "D:nope")
ok(r.returncode == 2 and "neither points" in r.stderr and "D:nope" in r.stderr,
   f"a name that is neither a point nor a variable is refused: {r.stderr.strip()}")

# --quantity energy | constraints: the total energy's drift (the monitors' "total", divided by
# the kinetic energy the motion exchanges) and the position constraints' violation ("phi",
# divided by the points' largest displacement). Checked here through `run --output` (the
# monitors of every 10 ms row): the recommendation's error against the advisor's reference run
# is within the accuracy and what advise said, and cheaper candidates of its table (less CPU in
# full, or the same formulation at a larger step) measured the same way are not.
def monitor(name, form, step, options, column, dur):
    out = os.path.join(tmp, name + ".csv")
    args = ["run", four_bar, "--formulation", form, "--step", repr(step), "--duration",
            str(dur), "--output", out, "--output-step", "0.01"]
    for k, val in (options or {}).items():
        if k in ("rtol", "atol"):
            args += [f"--{k}", repr(val)]
    r = run(*args)
    rows = list(csv.DictReader(open(out))) if r.returncode == 0 else []
    return [float(x[column]) for x in rows], [float(x["kinetic"]) for x in rows]


# accuracies between the penalty formulation's (its energy drifts by ~5e-7 of the kinetic energy
# exchanged, its constraints are violated by ~6e-8 of the motion) and the others', so that the
# cheapest candidates (penalty) miss them
mdur = 0.5
for quantity, column, accuracy in (("energy", "total", 1e-7), ("constraints", "phi", 1e-8)):
    r = run("advise", four_bar, "--accuracy", str(accuracy), "--duration", str(mdur),
            "--quantity", quantity, "--json")
    e = json.loads(r.stdout) if r.returncode == 0 else {"candidates": [], "reference": {}}
    erec = e["candidates"][e["recommended"]] if e.get("recommended") is not None else None
    if not ok(r.returncode == 0 and e.get("measure") == quantity and erec is not None and
              erec["error"] <= accuracy,
              f"advise --quantity {quantity}: recommended {erec and erec['label']} with error "
              f"{erec and erec['error']} <= {accuracy} (reference {e['reference'].get('formulation')}"
              f" confirmed by {e['reference'].get('confirmed_by')}, scale "
              f"{e['reference'].get('scale')}) {r.stderr.strip()}"):
        continue
    eref = e["reference"]
    ys_ref, kin_ref = monitor("mref", eref["formulation"], eref["step"], None, column, mdur)
    if quantity == "energy":
        mscale = max((abs(k - kin_ref[0]) for k in kin_ref), default=0.0)
    else:
        mscale = eref["scale"]

    def merr(c):
        ys, _ = monitor("mcand", c["formulation"], c["step"], c["options"], column, mdur)
        if len(ys) != len(ys_ref) or not mscale:
            return math.inf
        return max(abs(a - b) for a, b in zip(ys, ys_ref)) / mscale

    mine = merr(erec)
    ok(len(ys_ref) == 51 and mine <= accuracy and
       abs(mine - erec["error"]) <= 0.1 * accuracy and
       abs(mscale - eref["scale"]) <= 1e-6 * mscale,
       f"run --output {column}: the recommendation's {quantity} error is {mine:.3e} <= "
       f"{accuracy} (advise said {erec['error']:.3e}; scale {mscale:.4g}, advise "
       f"{eref['scale']:.4g})")
    # cheaper: less CPU in full, or (pruned by the probe) in the probe, or a larger step
    cheaper = [c for c in e["candidates"] if c is not erec and not c["verdict"].startswith(
        "failed") and ((c["seconds"] is not None and c["seconds"] < erec["seconds"]) or
                       (c["seconds"] is None and c["probe_seconds"] is not None and
                        c["probe_seconds"] < erec["probe_seconds"]) or
                       (c["formulation"] == erec["formulation"] and c["step"] > erec["step"]))]
    measured_cheaper = [(c["label"], merr(c)) for c in cheaper[:3]]
    ok(len(measured_cheaper) >= 1 and all(err > accuracy for _, err in measured_cheaper) and
       all(c["error"] is None or c["error"] > accuracy for c in cheaper),
       f"{quantity}: no cheaper candidate of the table meets the accuracy, measured the same "
       f"way: {measured_cheaper}")
r = run("advise", four_bar, "--quantity", "crank:nope")
ok(r.returncode != 0 and "crank:nope" in r.stderr, "an unknown point is refused")
done()
