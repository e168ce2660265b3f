"""What the eslabon-cli sensitivity tests share: TAP lines, a `sensitivity --json` run, the
worst relative difference of two gradients."""
import json, os, subprocess, sys

cli, source = sys.argv[1], sys.argv[2]
models = os.path.join(source, "models")
env = dict(os.environ, OMP_WAIT_POLICY="PASSIVE")
count = failed = 0


def ok(cond, what):
    global count, failed
    count += 1
    failed += not cond
    print(("ok" if cond else "not ok") + f" {count} - {what}", flush=True)
    return cond


def sens(model, *args):
    r = subprocess.run([cli, "sensitivity", os.path.join(models, model), "--json", *args],
                       capture_output=True, text=True, timeout=900, env=env)
    return r, (json.loads(r.stdout) if r.returncode == 0 else {})


def worst_relative(a, b, floor):
    """Largest |a - b| / max(|b|, floor) over two gradients (rows of equal shape)."""
    return max(abs(x - y) / max(abs(y), floor) for ra, rb in zip(a, b) for x, y in zip(ra, rb))


def done():
    print(f"1..{count}")
    sys.exit(1 if failed else 0)
