#!/usr/bin/env python3
"""eslabon-cli sensitivity's flags of the methods' own settings tables (issue 10): matrix-r's
--sensitivity-adjoint-memory and --sensitivity-parameter-step reach the engine, other
formulations refuse them. Prints TAP."""
import json, os, subprocess, sys

cli, source = sys.argv[1], sys.argv[2]
five_bar = os.path.join(source, "models", "five-bar.json")
count = failed = 0


def ok(cond, what):
    global count, failed
    count += 1
    failed += not cond
    print(("ok" if cond else "not ok") + f" {count} - {what}", flush=True)
    return cond


def sensitivity(formulation, *args):
    r = subprocess.run([cli, "sensitivity", five_bar, "--formulation", formulation, "--json",
                        "--step", "0.01", "--duration", "0.5", "--objectives", "psi1",
                        "--parameters", "Ls1", *args], capture_output=True, text=True,
                       timeout=300)
    return r, (json.loads(r.stdout)["gradient"][0][0] if r.returncode == 0 else None)


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
r, _ = sensitivity("penalty", "--method", "direct", "--sensitivity-adjoint-memory", "4")
ok(r.returncode == 2 and "not a setting of penalty" in r.stderr,
   "penalty refuses it: " + r.stderr.strip())
print(f"1..{count}")
sys.exit(1 if failed else 0)
