#!/usr/bin/env python3
"""eslabon-cli step (issue 12, step through one time step): the table and the JSON trace of a
penalty and an ali3p step on the four-bar, and a clear word for a formulation it does not
trace. Prints TAP."""
import json, os, subprocess

from cli_tap import cli, done, env, models, ok

four_bar = os.path.join(models, "four-bar-spatial.json")


def run(*args):
    return subprocess.run([cli, *args], capture_output=True, text=True, timeout=600, env=env)


for form, jname in (("penalty", "Phi_z"), ("ali3p", "Phi_q")):
    r = run("step", four_bar, "--formulation", form, "--at", "0.5", "--step", "0.005", "--json")
    ok(r.returncode == 0, f"{form}: step --json exits 0 {r.stderr.strip()}")
    t = json.loads(r.stdout) if r.returncode == 0 else {"phases": [], "matrices": []}
    ok(abs(t.get("time", -1) - 0.5) < 1e-12 and t.get("step") == 0.005,
       f"{form}: the step traced starts at t = 0.5 s with h = 5 ms")
    kinds = [p["kind"] for p in t["phases"]]
    newton = [p for p in t["phases"] if p["kind"] == "newton"]
    ok(kinds[:1] == ["predictor"] and kinds[-2:] == ["projection-velocity",
                                                      "projection-acceleration"]
       and len(newton) >= 2, f"{form}: predictor, {len(newton)} Newton iterations, projections")
    last = newton[-1] if newton else {}
    ok(last.get("converged") and last["correction"] <= last["bound"] and
       all(not p["converged"] for p in newton[:-1]),
       f"{form}: only the last iteration converged ({last.get('correction')} <= "
       f"{last.get('bound')})")
    pv = t["phases"][-2]
    ok(pv["residual_after"] < 1e-2 * pv["residual"],
       f"{form}: the velocity projection lowers |Phi_q qd + Phi_t| from {pv['residual']:.3g} "
       f"to {pv['residual_after']:.3g}")
    mats = {m["name"]: m for m in reversed(t["matrices"])}  # first of each name
    J, M, L = mats.get(jname, {}), mats.get("M", {}), mats.get("leading", {})
    n = 4 if form == "penalty" else 36
    ok(J.get("cols") == n and M.get("rows") == n and L.get("rows") == n,
       f"{form}: M and the leading matrix are {n} x {n}, {jname} has {n} columns")
    ok(all(len(m.get(k, [])) == m["nonzeros"] for m in (J, M, L)
           for k in ("row_index", "col_index", "values")) and
       all(v != 0 for v in J.get("values", [])),
       f"{form}: index lists as long as the nonzero counts, no zero stored")
    pattern = set(zip(L.get("row_index", []), L.get("col_index", [])))
    ok(pattern and pattern == {(c, r) for r, c in pattern},
       f"{form}: the leading matrix's pattern is symmetric ({len(pattern)} nonzeros)")
    for p in t["phases"]:
        for i in p["matrices"]:
            if t["matrices"][i]["phase"] != t["phases"].index(p):
                ok(False, f"{form}: matrix {i} is listed by the phase that built it")

r = run("step", four_bar, "--formulation", "penalty", "--at", "0.5")
ok(r.returncode == 0 and "newton" in r.stdout and "Phi_z" in r.stdout and "3x4" in r.stdout,
   "the table lists the Newton iterations and Phi_z 3x4")
r = run("step", four_bar, "--formulation", "matrix-r", "--at", "0.5", "--json")
t = json.loads(r.stdout) if r.returncode == 0 else {"phases": [], "matrices": []}
kinds = [p["kind"] for p in t["phases"]]
ok(kinds.count("evaluation") == 4 and kinds[0] == "position-newton",
   "matrix-r (RK4): four evaluations, each after its position Newton iterations")
ok(any(m["name"] == "leading" and m["rows"] == 1 and m["formula"] == "R^T M R"
       for m in t["matrices"]), "matrix-r: the leading matrix is R^T M R, d x d = 1 x 1")
r = run("step", four_bar, "--formulation", "ssode")
ok(r.returncode == 0 and "not traced" in r.stdout, "ssode: says it is not traced")
r = run("step", four_bar, "--at", "-1")
ok(r.returncode == 2 and "--at" in r.stderr, "a negative --at is refused")
done()
