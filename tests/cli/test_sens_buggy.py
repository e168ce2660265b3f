"""Sensitivities of paper 001's buggy (§4.2; models/buggy-step.json, buggy-lane-change.json):
direct and adjoint equal `--method fd` (central differences of whole runs, the independent
reference) to 1e-5 relative.

Step descent: the step moved from 5.5 m to 0.4 m so that the front wheels go down at 0.3005 s
and 0.6 s cover it (the full 4.5 s: docs/benchmarks.md); matrix-r trapezoidal direct and adjoint,
penalty direct for rho = [k_f c_f k_r c_r m_c]. With the argument `ali3p`: ali3p direct over
0.4 s (natural coordinates, about 14 s a run here). Lane change, 12 s at h = 15 ms: matrix-r
direct and adjoint for rho = [k_t c_t k_x c_x m_c], the tyres' vertical stiffness and damping
among them (issue 24: matrix-r reported 0 for them)."""
import json, os, sys, tempfile

from cli_tap import ok, done, models, sens

only_ali3p = len(sys.argv) > 3 and sys.argv[3] == "ali3p"
tmp = tempfile.mkdtemp()
with open(os.path.join(models, "buggy-step.json")) as f:
    data = json.load(f)
data["road"]["features"][0]["position"] = 0.4
near = os.path.join(tmp, "buggy-step-near.json")
with open(near, "w") as f:
    json.dump(data, f)
FD = ("--method", "fd", "--fd-step", "1e-4")  # d = 1e-4 rho: truncation and run noise < 1e-6


def gradient(label, model, *args):
    r, out = sens(model, *args)
    ok(r.returncode == 0, f"{label} runs" + ("" if r.returncode == 0 else ": " + r.stderr[:300]))
    return (out["gradient"][0], out["parameters"]) if out else (None, None)


def agree(label, got, reference, names, bound, scale_by_row=False):
    if got is None or reference is None:
        return
    top = max(abs(x) for x in reference)
    for name, a, b in zip(names, got, reference):
        error = abs(a - b) / (top if scale_by_row else abs(b))
        ok(error < bound and b != 0.0,
           f"{label} d/d{name} {a:.10g} = fd {b:.10g} (relative "
           f"{'to the row, ' if scale_by_row else ''}{error:.1e}, bound {bound:g})")


if only_ali3p:
    # measured: worst 1.6e-6 of the row's largest entry (c_f; k_r's own entry 1.1e-3 of a
    # gradient 4e5 times smaller than m_c's: the penalty factor's truncation, as on the five-bar)
    args = ("--formulation", "ali3p", "--step", "0.001", "--duration", "0.4")
    fd, names = gradient("ali3p fd (step descent, 0.4 s)", near, *args, *FD)
    direct, _ = gradient("ali3p direct", near, *args, "--method", "direct")
    agree("ali3p direct", direct, fd, names or [], 1e-5, scale_by_row=True)
    done()

# Step descent. Measured: k_f, c_f 3e-9 to 7e-9, k_r 4.4e-6, c_r 4e-7, m_c 3e-8 (matrix-r and
# penalty). The front wheels (from -0.5015 m, as in the model) cross the ramp's start between
# two grid times (0.3005 s): the ramp's curvature jumps there, and a wheel exactly on it at a
# grid time (from -0.5 m: 0.3 s) makes the discrete psi's derivative one-sided: direct and
# adjoint (one side) then differ from fd (both sides) by O(h), 5.1e-5 in m_c at 1 ms.
mr = ("--formulation", "matrix-r", "--integrator", "trapezoidal", "--step", "0.001",
      "--duration", "0.6")
fd, names = gradient("matrix-r fd (step descent, 0.6 s)", near, *mr, *FD)
for method in ("direct", "adjoint"):
    got, _ = gradient(f"matrix-r {method}", near, *mr, "--method", method)
    agree(f"matrix-r {method}", got, fd, names or [], 1e-5)
pen = ("--formulation", "penalty", "--step", "0.001", "--duration", "0.6")
fd_pen, _ = gradient("penalty fd", near, *pen, *FD)
got, _ = gradient("penalty direct", near, *pen, "--method", "direct")
agree("penalty direct", got, fd_pen, names or [], 1e-5)
# Lane change, 12 s at 15 ms. Measured: k_t 6e-8, k_x 1e-8, c_x 2e-6, m_c 1e-8; c_t's gradient
# (1.1e-12: 500 c_t dpsi/dc_t is 1e-5 of psi) is below what fd resolves at d = 1e-4 rho (2e-3
# between steps 1e-4 and 1e-3): checked against fd at d = 1e-3 rho (measured 1.2e-4)
lane = os.path.join(models, "buggy-lane-change.json")
lc = ("--formulation", "matrix-r", "--integrator", "trapezoidal", "--step", "0.015",
      "--duration", "12")
fd, names = gradient("matrix-r fd (lane change, 12 s)", lane, *lc, *FD)
fd_ct, _ = gradient("matrix-r fd, d = 1e-3 rho, c_t", lane, *lc, "--method", "fd", "--fd-step",
                    "1e-3", "--parameters", "c_t")
for method in ("direct", "adjoint"):
    got, _ = gradient(f"matrix-r {method}", lane, *lc, "--method", method)
    if got and names:
        i = names.index("c_t")
        agree(f"lane change, matrix-r {method}", got[:i] + got[i + 1:], fd[:i] + fd[i + 1:],
              names[:i] + names[i + 1:], 1e-5)
        if fd_ct:
            agree(f"lane change, matrix-r {method}", [got[i]], fd_ct, ["c_t"], 1e-3)
done()
