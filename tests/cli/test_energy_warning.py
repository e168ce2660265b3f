"""The energy warning (issue 28, item 3): a run whose energy error passes 10 % of the system's
energy (kinetic + change of gravity potential + elastic + non-conservative work, the largest of
the run) says so on stderr, in its JSON summary ("warning") and in the project (the run's message,
status still finished). The spatial four-bar with penalty's defaults (h = 10 ms) gains energy at
each passage near the universal joint's singular position (docs/formulations/penalty.md): 0.8 %
of its 163 J over 5 s (no warning), past 10 % at t = 52 s, and 1.4e7 J before Newton fails at
95.5 s (measured before penalty reused its factors; with them, a refinement of the projections
that did not converge was once accepted there and the energy reached 6e10 J at 56 s). Before issue 28 every such run said "finished" and nothing else."""
import json, os, sqlite3, subprocess, tempfile

from cli_tap import ok, done, cli, models, env

MODEL = os.path.join(models, "four-bar-spatial.json")
tmp = tempfile.mkdtemp()


def run(*args):
    return subprocess.run([cli, "run", MODEL, "--json", *args], capture_output=True, text=True,
                          timeout=600, env=env)


quiet = run("--duration", "5")
summary = json.loads(quiet.stdout)
ok(quiet.returncode == 0 and "warning" not in summary and "warning" not in quiet.stderr,
   f"5 s at the defaults: no warning (max |E - E(0)| = {summary['energy_drift_max']:.3g} J)")

project = os.path.join(tmp, "runs.eslabon")
loud = run("--duration", "60", "--project", project)
summary = json.loads(loud.stdout)
warning = summary.get("warning", "")
ok(loud.returncode == 0 and summary["status"] == "finished" and "energy error" in warning,
   f"60 s: finished with a warning in the summary: {warning}")
# measured: above 10 % from t = 52.1 s (21.6 J at 60 s)
ok("from t = 5" in warning and summary["energy_drift_max"] > 10.0,
   f"it names when the error passed 10 % (max |E - E(0)| = {summary['energy_drift_max']:.3g} J)")
ok("warning: " in loud.stderr and "energy error" in loud.stderr,
   f"and on stderr: {loud.stderr.strip()}")
db = sqlite3.connect(project)
status, message = db.execute("SELECT status, message FROM runs").fetchone()
ok(status == "finished" and message == warning,
   f"the project stores it as the finished run's message ({status}: {message})")
# The cause: paper 000's projections are weighted by the Newton tangent M + h/2 C + h^2/4 K,
# not symmetric (C holds the velocity terms of Q), and added kinetic energy (12.6 J of the 20 J
# gained in 60 s). Weighted by M (--projection mass) they remove it and 100 s finish.
mass = run("--duration", "100", "--projection", "mass")
summary = json.loads(mass.stdout)
# measured 5.6 J over 100 s (tangent projections: 1.4e7 J, Newton fails at 95.5 s)
ok(mass.returncode == 0 and summary["status"] == "finished" and "warning" not in summary
   and summary["energy_drift_max"] < 20.0,
   f"--projection mass: 100 s finish, max |E - E(0)| = {summary['energy_drift_max']:.3g} J")
done()
