#!/usr/bin/env python3
"""eslabon-cli sensitivity --formulation matrix-r (issue 10): direct and adjoint on the five-bar
against fd of whole runs, a chosen subset of objectives and parameters, a partition chosen again at
every step, and the refusal of RK4. Prints TAP."""
import json, os, subprocess, sys, tempfile

from cli_tap import cli, done, ok, source  # noqa: E402
five_bar = os.path.join(source, "models", "five-bar.json")


def sensitivity(*args):
    r = subprocess.run([cli, "sensitivity", five_bar, "--formulation", "matrix-r", "--json",
                        *args], capture_output=True, text=True, timeout=600)
    return r, (json.loads(r.stdout) if r.returncode == 0 else {})


# the direct run evaluates its own Newton matrices (as the adjoint's forward run does), so that
# adjoint = direct checks the transposition to round-off; the default is checked below
common = ["--integrator", "trapezoidal", "--step", "0.002", "--duration", "1",
          "--sensitivity-newton-matrix", "own"]
results = {}
for method in ("direct", "adjoint", "fd"):
    r, out = sensitivity(*(common if method != "fd" else common[:-2]), "--method", method)
    ok(r.returncode == 0 and len(out.get("gradient", [])) == 3, f"matrix-r {method} runs "
       + r.stderr.strip())
    results[method] = out.get("gradient", [[0] * 5] * 3)


def worst(a, b):
    """Largest difference relative to the largest entry of its objective's row."""
    return max(max(abs(x - y) for x, y in zip(ra, rb)) / max(abs(x) for x in rb)
               for ra, rb in zip(a, b))


# adjoint is the transpose of direct (round-off); fd of whole runs: truncation O(1e-10) and the
# runs' Newton tolerance (1e-10) divided by the increment 1e-5 (see tests/app/test-sens-matrix-r.c)
w = worst(results["adjoint"], results["direct"])
ok(w < 1e-10, f"adjoint = direct ({w:.2g} of the row's largest entry)")
w = worst(results["direct"], results["fd"])
ok(w < 1e-5, f"direct = fd of whole runs ({w:.2g} of the row's largest entry)")

r, fast = sensitivity(*common[:-2], "--method", "direct")
w = worst(fast.get("gradient", [[0] * 5] * 3), results["adjoint"])
ok(r.returncode == 0 and w < 1e-7, f"direct with the default Newton matrix (the sensitivities' "
   f"tangent) = adjoint within the Newton tolerance's effect ({w:.2g})")

r, sub = sensitivity(*common, "--method", "adjoint", "--objectives", "psi3", "--parameters",
                     "L_A1,Ls2")
ok(r.returncode == 0 and sub.get("objectives") == ["psi3"] and
   sub.get("parameters") == ["L_A1", "Ls2"], "a subset of objectives and parameters")
if sub:
    want = [results["direct"][2][4], results["direct"][2][1]]
    got = sub["gradient"][0]
    ok(all(abs(g - x) <= 1e-10 * abs(x) for g, x in zip(got, want)),
       f"the subset's gradient is the full one's entries ({got} vs {want})")

r, _ = sensitivity("--integrator", "rk4", "--duration", "0.1", "--method", "direct")
ok(r.returncode != 0 and "trapezoidal" in r.stderr, "RK4 is refused: " + r.stderr.strip())
r, again = sensitivity(*common, "--rcond", "1", "--method", "adjoint")
w = worst(again.get("gradient", [[1e9] * 5] * 3), results["direct"])
ok(r.returncode == 0 and w < 1e-8, f"a new choice of partition at every step (rcond 1): the "
   f"same gradient ({w:.2g}) " + r.stderr.strip())

# A parameter of the geometry in space: the spatial four-bar with the crank's length hB a
# parameter (point B of crank and coupler at z = hB; the universal joint's axes stay): its terms
# along the drawing's derivative, with turning bodies in the direction of the dz it causes, agree
# with the differences of rebuilt models (measured 1.5e-11) and adjoint = direct; cos_t, which
# turns the universal's axis, keeps the differences (the same numbers both ways).
spatial = json.load(open(os.path.join(source, "models", "four-bar-spatial.json")))
spatial["parameters"]["hB"] = 1.5
for body in spatial["bodies"]:
    if body["name"] in ("crank", "coupler"):
        body["points"]["B"] = [0, 0, "hB"]
with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "four-bar-spatial-hB.json")
    with open(path, "w") as f:
        json.dump(spatial, f)
    runs = {}
    for name, extra in (("analytical", ["--method", "direct"]),
                        ("differences", ["--method", "direct", "--sensitivity-geometry",
                                         "differences"]),
                        ("adjoint", ["--method", "adjoint"])):
        r = subprocess.run([cli, "sensitivity", path, "--formulation", "matrix-r", "--json",
                            *common, *extra], capture_output=True, text=True, timeout=600)
        runs[name] = json.loads(r.stdout)["gradient"] if r.returncode == 0 else None
        ok(r.returncode == 0, f"four-bar-spatial with hB, {name} runs " + r.stderr.strip())
    if all(runs.values()):
        w = worst(runs["analytical"], runs["differences"])
        ok(w < 1e-9, f"hB and cos_t: along the drawing's derivative = differences of rebuilt "
           f"models ({w:.2g} of a row's largest entry)")
        w = worst(runs["adjoint"], runs["analytical"])
        ok(w < 1e-9, f"hB and cos_t: adjoint = direct ({w:.2g})")

done()
