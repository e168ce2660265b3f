"""Sensitivities of the Magic Formula's scaling factors (issue 24): the HMMWV lane change
(models/hmmwv-lane-change.json) with parameters lmuy and lkx bound to every wheel's
"tyre_scaling" LMUY (peak lateral friction) and LKX (longitudinal slip stiffness), direct and
adjoint against `--method fd` (central differences of whole runs, the independent reference).

The model is edited here: its bump stops removed (they touch while the vehicle settles: contact
events inside a step, which direct and adjoint do not follow; tests/app/test-sens-matrix-r.c
says so of the bundled model), the tyre files' paths made absolute, the objectives
yaw_rate = int r^2 and pitch_rate = int q^2 of the chassis added.

- matrix-r trapezoidal, 5 s at h = 5 ms (through the first lane shift, which starts at 2.4 s),
  direct and adjoint;
- penalty direct over the same run;
- ali3p direct over 0.2 s (about 110 s of CPU a simulated second on this model: natural
  coordinates of 22 bodies): the pitch while the drive settles (the yaw is round-off there).
Measured numbers beside each bound."""
import json, os, sys, tempfile

from cli_tap import ok, done, models, sens

tmp = tempfile.mkdtemp()
with open(os.path.join(models, "hmmwv-lane-change.json")) as f:
    data = json.load(f)
data["parameters"]["lmuy"] = 1.0
data["parameters"]["lkx"] = 1.0
tyres = os.path.join(os.path.abspath(models), "..", "data", "tyres")
for force in data["forces"]:
    if force["type"] == "wheel":
        force["tyre_file"] = os.path.join(tyres, os.path.basename(force["tyre_file"]))
        force["tyre_scaling"] = {"LMUY": "lmuy", "LKX": "lkx"}
data["forces"] = [f for f in data["forces"] if f["type"] != "bump_stop"]
data["objectives"] = [
    {"name": "yaw_rate", "integrand": [{"quantity": "angular_velocity", "body": "chassis",
                                        "measure": "squared_z"}]},
    {"name": "pitch_rate", "integrand": [{"quantity": "angular_velocity", "body": "chassis",
                                          "measure": "squared_y"}]}]
model = os.path.join(tmp, "hmmwv-lane-change-scaling.json")
with open(model, "w") as f:
    json.dump(data, f)
PARAMS = ("--parameters", "lmuy,lkx")


def gradient(label, *args):
    r, out = sens(model, *args, *PARAMS)
    ok(r.returncode == 0, f"{label} runs" + ("" if r.returncode == 0 else ": " + r.stderr[:300]))
    return (out["gradient"], out["objectives"]) if out else (None, None)


def agree(label, got, reference, objectives, bound, scale_by_row=False):
    if got is None or reference is None:
        return
    for row, ref, objective in zip(got, reference, objectives):
        top = max(abs(x) for x in ref)
        for name, a, b in zip(("lmuy", "lkx"), row, ref):
            error = abs(a - b) / (top if scale_by_row else abs(b))
            ok(error < bound and b != 0.0,
               f"{label} d{objective}/d{name} {a:.10g} = fd {b:.10g} (relative "
               f"{'to the row, ' if scale_by_row else ''}{error:.1e}, bound {bound:g})")


# Relative to the largest entry of each objective's row (pitch_rate's d/dlkx is 250 times smaller
# than its d/dlmuy). matrix-r: measured 3.2e-8 (yaw_rate), 3.3e-7 (pitch_rate), direct and
# adjoint alike. penalty: 1.8e-4 (yaw_rate), 7.5e-4 (pitch_rate / lmuy): its direct method
# leaves out the derivative of the projections' weight (engine/sensitivity/sens_penalty.c, "Left
# out"; on this model its suspension and driver parameters show 1e-5 to 3e-5 as well, and
# halving the step does not reduce it: 1.7e-4 at 2.5 ms), while fd at d = 1e-3, 1e-4, 1e-5 rho
# agrees with itself to 5e-6. ali3p (0.2 s; fd at d = 1e-3 rho, its Newton noise is 5e-4 of
# d/dlkx at 1e-4): 8.9e-7.
mr = ("--formulation", "matrix-r", "--integrator", "trapezoidal", "--step", "0.005",
      "--duration", "5")
fd, names = gradient("matrix-r fd (lane change, 5 s)", *mr, "--method", "fd", "--fd-step", "1e-4")
for method in ("direct", "adjoint"):
    got, _ = gradient(f"matrix-r {method}", *mr, "--method", method)
    agree(f"matrix-r {method}", got, fd, names or [], 3e-6, scale_by_row=True)
pen = ("--formulation", "penalty", "--step", "0.005", "--duration", "5")
fd, names = gradient("penalty fd", *pen, "--method", "fd", "--fd-step", "1e-4")
got, _ = gradient("penalty direct", *pen, "--method", "direct")
agree("penalty direct", got, fd, names or [], 7.5e-3, scale_by_row=True)
ali = ("--formulation", "ali3p", "--step", "0.002", "--duration", "0.2", "--objectives",
       "pitch_rate")
fd, names = gradient("ali3p fd (0.2 s)", *ali, "--method", "fd", "--fd-step", "1e-3")
got, _ = gradient("ali3p direct", *ali, "--method", "direct")
agree("ali3p direct", got, fd, names or [], 1e-5, scale_by_row=True)
done()
