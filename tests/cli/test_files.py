#!/usr/bin/env python3
"""Files and processes (issue 28): two processes creating one new project both store their
runs; failed writes (a full disk) are errors with a non-zero exit and leave nothing half-made.
Prints TAP."""
import os, sqlite3, subprocess, tempfile

import cli_tap
from cli_tap import cli, done, env, models, ok

pendulum = os.path.join(models, "double-pendulum.json")
tmp = tempfile.mkdtemp(prefix="esl-files-")


def run(*args):
    return subprocess.run([cli, *args], capture_output=True, text=True, timeout=300, env=env)


def skip(what, reason):
    cli_tap.count += 1
    print(f"ok {cli_tap.count} - {what} # SKIP {reason}", flush=True)


def stored_runs(path):
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return db.execute("SELECT status FROM runs ORDER BY id").fetchall()
    finally:
        db.close()


# Two `run --project NEW` started together: creation is atomic, so both runs are stored (it
# lost one in 43 of 50 tries with "not an Eslabón project" or "duplicate column name").
lost = []
for i in range(20):
    project = os.path.join(tmp, f"new-{i}.eslabon")
    procs = [subprocess.Popen([cli, "run", pendulum, "--duration", "0.02", "--project", project],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                              env=env) for _ in range(2)]
    errors = [p.communicate(timeout=300)[1].strip() for p in procs]
    codes = [p.returncode for p in procs]
    runs = stored_runs(project) if os.path.exists(project) else []
    if codes != [0, 0] or runs != [("finished",), ("finished",)]:
        lost.append(f"round {i}: exits {codes}, runs {runs}, {' | '.join(e for e in errors if e)}")
left = [f for f in os.listdir(tmp) if f.startswith(".")]  # the temporary names
ok(not lost, f"20 rounds of two processes creating one project: both runs stored every time "
   f"{'; '.join(lost[:3])}")
ok(not left, f"no temporary file left beside the projects {left}")

# A full disk: every failed write is an error with a non-zero exit, and nothing half-made stays
# (it used to exit 0 with 0-byte CSV files, and leave a 0-byte project blocking its path).
slider = os.path.join(models, "slider-crank.json")
writers = [
    ("run --output", ["run", pendulum, "--duration", "20", "--output"]),
    ("sensitivity --history", ["sensitivity", slider, "--duration", "20", "--history"]),
    ("sensitivity --state-history", ["sensitivity", slider, "--duration", "20",
                                     "--state-history"]),
]
for what, args in writers:
    r = run(*args, "/dev/full")
    ok(r.returncode != 0 and "No space left" in r.stderr,
       f"{what} /dev/full: exit {r.returncode}, {r.stderr.strip()[-80:]}")
r = subprocess.run([cli, "run", pendulum, "--duration", "0.02", "--json"], stdout=open(
    "/dev/full", "w"), stderr=subprocess.PIPE, text=True, timeout=300, env=env)
ok(r.returncode != 0 and "cannot write" in r.stderr,
   f"run --json > /dev/full: exit {r.returncode}, {r.stderr.strip()[-80:]}")

small = os.path.join(tmp, "small")
os.mkdir(small)
mounted = os.geteuid() == 0 and subprocess.run(
    ["mount", "-t", "tmpfs", "-o", "size=96k", "tmpfs", small], capture_output=True).returncode == 0
if not mounted:
    for what, _ in writers:
        skip(f"{what} on a small tmpfs", "cannot mount a tmpfs (not root, or no CAP_SYS_ADMIN "
             "here); /dev/full above covers the CSV writes")
    skip("no project left by a failed creation", "cannot mount a tmpfs")
else:
    try:
        for what, args in writers:
            out = os.path.join(small, "out.csv")
            r = run(*args, out)
            ok(r.returncode != 0 and "No space left" in r.stderr and not os.path.exists(out),
               f"{what} on a 96 KiB tmpfs: exit {r.returncode}, no half-written file, "
               f"{r.stderr.strip()[-80:]}")
        filler = os.path.join(small, "filler")  # leave too little for a project
        fd = os.open(filler, os.O_WRONLY | os.O_CREAT)
        try:
            while os.write(fd, b"\0" * 4096):
                pass
        except OSError:
            pass
        os.close(fd)
        os.truncate(filler, os.path.getsize(filler) - 8192)
        project = os.path.join(small, "new.eslabon")
        r = run("run", pendulum, "--duration", "0.02", "--project", project)
        ok(r.returncode != 0 and os.listdir(small) == ["filler"],
           f"a project that cannot be created on a full disk: exit {r.returncode}, nothing left "
           f"({os.listdir(small)}), {r.stderr.strip()[-80:]}")
    finally:
        subprocess.run(["umount", small])

# Every reader of model files has the loader's guards: list-models (and the start page, the
# same function) on a folder with a deeply nested file, a FIFO and a link to /dev/zero used to
# overflow the stack, hang, and try to allocate 4 GiB.
folder = os.path.join(tmp, "models")
os.mkdir(folder)
with open(pendulum) as f, open(os.path.join(folder, "good.json"), "w") as g:
    g.write(f.read())
with open(os.path.join(folder, "deep.json"), "w") as f:
    f.write('{"name": "deep", "x": ' + "[" * 200000 + "]" * 200000 + "}")
os.mkfifo(os.path.join(folder, "fifo.json"))
os.symlink("/dev/zero", os.path.join(folder, "zero.json"))
try:
    r = subprocess.run([cli, "list-models", "--json"], capture_output=True, text=True, timeout=120,
                       env=dict(env, ESLABON_MODELS_DIR=folder))
    code, out, err = r.returncode, r.stdout, r.stderr
except subprocess.TimeoutExpired:
    code, out, err = None, "", "timed out (hangs)"
ok(code == 1 and '"name" : "double-pendulum"' in out.replace('": "', '" : "') or
   code == 1 and "double-pendulum" in out,
   f"list-models lists the good model and refuses the others (exit {code})")
ok(err.count("not a regular file") == 2 and "nested deeper" in err,
   f"the FIFO and the link to /dev/zero refused as not regular files, the deep file as nested "
   "(" + err.strip()[-200:].replace("\n", " | ") + ")")


# Memory on huge model files: refused from an estimate before json-glib parses them (63 MB of
# empty arrays took 2.4 GB; of numbers, 880 MB); the peak RSS of the process stays under ten
# times the file's size.
def peak_rss(*args):
    """(exit status, stderr, peak resident set in bytes) of eslabon-cli args."""
    with tempfile.TemporaryFile() as err:
        p = subprocess.Popen([cli, *args], stdout=subprocess.DEVNULL, stderr=err, env=env)
        _, status, usage = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        return p.returncode, err.read().decode(errors="replace"), usage.ru_maxrss * 1024


size = 63 * 1000 * 1000
for what, item in (("empty arrays", "[]"), ("numbers", "1")):
    huge = os.path.join(tmp, "huge.json")
    count = (size - 40) // (len(item) + 1)
    with open(huge, "w") as f:  # in pieces: this process's memory would count in the child's
        f.write('{"name": "huge", "x": [' + item)
        piece = ("," + item) * 100000
        for _ in range((count - 1) // 100000):
            f.write(piece)
        f.write("]}")
    code, err, rss = peak_rss("info", huge)
    ok(code != 0 and "too large to read" in err and rss < 10 * os.path.getsize(huge),
       f"63 MB of {what}: refused ({err.strip()[-110:]}), peak RSS {rss / 1e6:.0f} MB < 10 x "
       f"{os.path.getsize(huge) / 1e6:.0f} MB")
    os.unlink(huge)
# one the estimate lets through (1.5 million numbers, about 140 MB to parse) stays within the
# cap of 256 MB plus the file and the program itself
huge = os.path.join(tmp, "large.json")
with open(huge, "w") as f:
    f.write('{"name": "large", "x": [0.12345')
    for _ in range(15):
        f.write(",0.12345" * 100000)
    f.write("]}")
code, err, rss = peak_rss("info", huge)
bound = 256e6 + os.path.getsize(huge) + 64e6
# AddressSanitizer's shadow memory and quarantine multiply the peak: no bound to check there
sanitized = "libasan" in subprocess.run(["ldd", cli], capture_output=True, text=True).stdout
if sanitized:
    skip("a 12 MB file of numbers parsed within the cap",
         f"AddressSanitizer build (peak RSS {rss / 1e6:.0f} MB is its own overhead)")
else:
    ok("too large" not in err and rss < bound,
       f"a 12 MB file of numbers parsed within the cap: peak RSS {rss / 1e6:.0f} MB < "
       f"{bound / 1e6:.0f} MB ({err.strip()[-80:]})")
os.unlink(huge)

done()
