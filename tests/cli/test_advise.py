#!/usr/bin/env python3
"""eslabon-cli advise (issue 25), the formulation advisor, on the spatial four-bar: a reference
that two formulations confirm; the recommended candidate meets the accuracy, checked here
independently (its run and the reference's run by `eslabon-cli run --output`, the error
computed from the CSV points); no candidate of its table that is faster meets it; candidates
pruned by the probe were less accurate than asked there. Prints TAP."""
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
def history(name, form, step, options):
    out = os.path.join(tmp, name + ".csv")
    args = ["run", four_bar, "--formulation", form, "--step", repr(step), "--duration",
            str(duration), "--output", out, "--points", points, "--output-step", "0.01"]
    for k, v in (options or {}).items():
        if k in ("rtol", "atol"):
            args += [f"--{k}", repr(v)]
    r = run(*args)
    rows = list(csv.DictReader(open(out))) if r.returncode == 0 else []
    return r, rows


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

r = run("advise", four_bar, "--quantity", "energy")
ok(r.returncode == 2 and "not implemented" in r.stderr,
   f"--quantity energy is refused as not implemented: {r.stderr.strip()}")
r = run("advise", four_bar, "--quantity", "crank:nope")
ok(r.returncode != 0 and "crank:nope" in r.stderr, "an unknown point is refused")
done()
