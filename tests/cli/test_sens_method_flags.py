#!/usr/bin/env python3
"""eslabon-cli sensitivity's flags of the methods' own settings tables (issue 10): matrix-r's
--sensitivity-adjoint-memory and --sensitivity-parameter-step reach the engine, other
formulations refuse them; --project stores the options given (schema 9) and --json prints
them. Prints TAP."""
import json, os, sqlite3, subprocess, tempfile

from cli_tap import cli, done, ok, sens


def sensitivity(formulation, *args):
    r, out = sens("five-bar.json", "--formulation", formulation, "--step", "0.01", "--duration",
                  "0.5", "--objectives", "psi1", "--parameters", "Ls1", *args)
    return r, (out["gradient"][0][0] if out else None)


help_text = subprocess.run([cli, "sensitivity", "--help"], capture_output=True, text=True).stdout
ok(all(f"--sensitivity-{n}" in help_text for n in ("adjoint-memory", "parameter-step")),
   "--help lists matrix-r's sensitivity settings")

mr = ["--integrator", "trapezoidal", "--method", "adjoint"]
r, default = sensitivity("matrix-r", *mr)
ok(r.returncode == 0, "matrix-r adjoint with the table's defaults " + r.stderr.strip())
# 4 KiB cannot hold the checkpoints of 50 steps: the engine refuses, naming the setting
r, _ = sensitivity("matrix-r", *mr, "--sensitivity-adjoint-memory", "0.004")
ok(r.returncode == 1 and "adjoint-memory" in r.stderr,
   "a bound too small for the checkpoints is refused: " + r.stderr.strip())
# a 100 times larger increment of the parameters' central differences changes the gradient
# at the level of its truncation error (not 0, far below the gradient)
r, coarse = sensitivity("matrix-r", *mr, "--sensitivity-parameter-step", "6e-4")
ok(r.returncode == 0 and default is not None and coarse != default and
   abs(coarse - default) < 1e-4 * abs(default),
   f"--sensitivity-parameter-step reaches the engine ({coarse!r} vs {default!r})")
r, _ = sensitivity("matrix-r", *mr, "--sensitivity-adjoint-memory", "lots")
ok(r.returncode == 2, "a value that does not parse: exit 2 " + r.stderr.strip())
# the compressed methods have no pattern to compress here: refused, with what is offered
for method in ("nd-sparse", "ad-sparse"):
    r, _ = sensitivity("matrix-r", *mr, "--sensitivity-jacobian", method)
    ok(r.returncode == 1 and f"'{method}' are not offered" in r.stderr
       and "analytical, ad, nd-forward or nd-central" in r.stderr,
       f"--sensitivity-jacobian {method} is refused: " + r.stderr.strip())
# --project stores the method's options as the flags gave them (and the defaults of the
# others), read back from the file; --json prints the same object
with tempfile.TemporaryDirectory() as tmp:
    proj = os.path.join(tmp, "options.eslabon")
    given = ["--sensitivity-jacobian", "ad", "--sensitivity-adjoint-memory", "50",
             "--sensitivity-parameter-step", "2e-5"]
    r, out = sens("five-bar.json", "--formulation", "matrix-r", "--step", "0.01", "--duration",
                  "0.5", "--objectives", "psi1", "--parameters", "Ls1", *mr, *given,
                  "--project", proj)
    rd, _ = sens("five-bar.json", "--formulation", "matrix-r", "--step", "0.01", "--duration",
                 "0.5", "--objectives", "psi1", "--parameters", "Ls1", "--integrator",
                 "trapezoidal", "--method", "direct", "--sensitivity-parameter-step", "3e-6",
                 "--project", proj)
    rp, _ = sens("five-bar.json", "--step", "0.01", "--duration", "0.5", "--objectives", "psi1",
                 "--parameters", "Ls1", "--method", "direct", "--project", proj)
    stored = []
    if r.returncode == 0 and rd.returncode == 0 and rp.returncode == 0:
        with sqlite3.connect(proj) as db:
            stored = [json.loads(row[0]) for row in
                      db.execute("SELECT method_options FROM sensitivities ORDER BY run_id")]
    want = {"jacobian": "ad", "adjoint-memory": 50.0, "parameter-step": 2e-5,
            "newton-matrix": "sensitivities", "geometry": "analytical"}
    ok(len(stored) == 3 and stored[0] == want,
       f"--project stores matrix-r adjoint's options given by the flags ({stored[:1]}) "
       + r.stderr.strip())
    ok(out.get("method_options") == want, f"--json prints them ({out.get('method_options')})")
    ok(len(stored) == 3 and stored[1]["parameter-step"] == 3e-6 and
       set(stored[1]) == set(want) and stored[1]["jacobian"] in ("analytical", "ad",
                                                                 "nd-central", "nd-forward"),
       f"matrix-r direct: the flag given and the defaults of the others ({stored[1:2]})")
    ok(len(stored) == 3 and stored[2] == {}, "penalty direct, without options of its own: {}")
r, _ = sensitivity("penalty", "--method", "direct", "--sensitivity-adjoint-memory", "4")
ok(r.returncode == 2 and "not a setting of penalty" in r.stderr,
   "penalty refuses it: " + r.stderr.strip())
done()
