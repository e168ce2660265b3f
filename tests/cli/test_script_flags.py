#!/usr/bin/env python3
"""What a script looping over formulations passes to each (issue 26, defect 12): matrix-r's
sensitivities choose the trapezoidal rule themselves and say so; --threads is accepted by every
formulation (a note where it changes nothing); a misspelt flag, a value that is not a number and
a numerical setting of another formulation are still refused. Prints TAP."""
import json, os, subprocess

from cli_tap import cli, done, models, ok

five_bar = os.path.join(models, "five-bar.json")
pendulum = os.path.join(models, "double-pendulum.json")


def cli_run(*args):
    return subprocess.run([cli, *args], capture_output=True, text=True, timeout=300)


short = ["--step", "0.01", "--duration", "0.1"]
r = cli_run("sensitivity", five_bar, "--formulation", "matrix-r", "--method", "direct", *short)
ok(r.returncode == 0, "sensitivity matrix-r direct without --integrator runs: " + r.stderr.strip())
ok("trapezoidal" in r.stdout, "its output says the trapezoidal rule was chosen")
r = cli_run("sensitivity", five_bar, "--formulation", "matrix-r", "--method", "adjoint", "--json",
            *short)
ok(r.returncode == 0 and "gradient" in json.loads(r.stdout or "{}"),
   "adjoint --json: JSON on stdout, the note on stderr: " + r.stderr.strip())
ok("trapezoidal" in r.stderr, "the JSON run's note names the trapezoidal rule")
r = cli_run("sensitivity", five_bar, "--formulation", "matrix-r", "--integrator", "rk4",
            "--method", "direct", *short)
ok(r.returncode != 0 and "trapezoidal" in r.stderr,
   "an integrator asked for by name is not overridden: " + r.stderr.strip())

for formulation in ("penalty", "ali3p", "matrix-r", "ssode"):
    r = cli_run("run", pendulum, "--formulation", formulation, "--threads", "1", *short)
    ok(r.returncode == 0, f"run --formulation {formulation} --threads 1 is accepted: "
       + r.stderr.strip())
    if formulation in ("matrix-r", "ssode"):
        ok("--threads" in r.stderr and "nothing" in r.stderr,
           f"{formulation}: a note says --threads changes nothing: " + r.stderr.strip())
r = cli_run("run", pendulum, "--formulation", "matrix-r", "--threads", "two", *short)
ok(r.returncode == 2 and "not a number" in r.stderr, "--threads two is refused: " + r.stderr.strip())
r = cli_run("run", pendulum, "--formulation", "matrix-r", "--thread", "1", *short)
ok(r.returncode == 2, "a misspelt flag (--thread) is refused: " + r.stderr.strip())
r = cli_run("run", pendulum, "--formulation", "penalty", "--integrator", "rk4", *short)
ok(r.returncode == 2 and "not a setting of penalty" in r.stderr,
   "a numerical setting of another formulation is refused: " + r.stderr.strip())

done()
