"""What the eslabon-cli tests share: their arguments (the CLI, the source tree), TAP lines and the
plan, a `sensitivity --json` run, the worst relative difference of two gradients."""
import json, math, os, subprocess, sys

cli, source = sys.argv[1], sys.argv[2]
models = os.path.join(source, "models")
env = dict(os.environ, OMP_WAIT_POLICY="PASSIVE")
count = failed = 0


def ok(cond, what):
    global count, failed
    count += 1
    failed += not cond
    what = " ".join(str(what).split())  # one TAP line whatever the messages hold
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


def five_bar_still_lengths(k=100.0, g=9.81):
    """The spring natural lengths (Ls1, Ls2) that hold models/five-bar.json still in its drawn
    position, from statics alone (tests/app/five-bar-statics.h does the same in C): the gradient
    of the potential (gravity on each bar's centre, the springs from B) lies in the span of the
    four bar-length constraints' gradients, 6 linear equations in Ls1, Ls2 and 4 multipliers."""
    A, B = (0.0, 0.0), (1.0, 0.0)
    p = [(-1.0, -1.0), (0.5, -2.0), (2.0, -1.0)]  # joints 1, 2, 3
    M = [[0.0] * 7 for _ in range(6)]  # columns Ls1, Ls2, 4 multipliers | right-hand side
    M[1][6] = -g * (1.0 + 1.5) / 2  # bars A1, 12, 23, 3B: 1, 1.5, 1.5, 1 kg
    M[3][6] = -g * (1.5 + 1.5) / 2
    M[5][6] = -g * (1.5 + 1.0) / 2
    for s in range(2):  # spring s from B to joint s+1: k (L - Ls) (p - B)/L
        d = (p[s][0] - B[0], p[s][1] - B[1])
        L = math.hypot(*d)
        for c in range(2):
            M[2 * s + c][6] -= k * d[c]
            M[2 * s + c][s] = -k * d[c] / L
    for c in range(2):  # constraint gradients (halved squared lengths): A-1, 1-2, 2-3, 3-B
        d0, d1 = p[0][c] - A[c], p[1][c] - p[0][c]
        d2, d3 = p[2][c] - p[1][c], p[2][c] - B[c]
        M[c][2] -= d0
        M[c][3] += d1
        M[2 + c][3] -= d1
        M[2 + c][4] += d2
        M[4 + c][4] -= d2
        M[4 + c][5] -= d3
    for c in range(6):  # Gauss-Jordan with partial pivoting
        piv = max(range(c, 6), key=lambda r: abs(M[r][c]))
        M[c], M[piv] = M[piv], M[c]
        for r in range(6):
            if r != c:
                f = M[r][c] / M[c][c]
                M[r] = [a - f * b for a, b in zip(M[r], M[c])]
    return M[0][6] / M[0][0], M[1][6] / M[1][1]


def read_tir(path):
    """The numeric keys of a .tir file (SI files only: both bundled ones are)."""
    p = {}
    for line in open(path, encoding="ascii"):
        line = line.split("$")[0].strip()
        if "=" in line and not line.startswith("!"):
            k, v = (s.strip() for s in line.split("=", 1))
            try:
                p[k] = float(v)
            except ValueError:
                pass
    return p
