#!/usr/bin/env python3
"""A study under a real one-node Slurm (issue 25): munged, slurmctld -D and slurmd -D started
here on loopback with a slurm.conf in a temporary folder (no systemd, no cgroups), the emitted
sbatch script submitted with `sbatch --wait`, its shards merged and compared with the same
study run on the local pool: the same runs bit for bit, each with its Slurm job and task ids.
The daemons started here are stopped by their process ids. When they cannot start (no
slurm-wlm/munge, not root, no free port) the test says so as a TAP skip with the reason.
Bounded in time: every wait has a deadline. Prints TAP."""
import atexit, json, os, shutil, signal, socket, sqlite3, subprocess, sys, tempfile, time

from cli_tap import cli, done, env, models
from cli_tap import ok



cli = os.path.abspath(cli)
DEADLINE = time.time() + 420  # the whole test; meson's timeout is above it


def skip(reason):
    print(f"1..0 # SKIP {reason}", flush=True)
    sys.exit(0)


tools = {t: shutil.which(t) or next((p for p in (f"/usr/sbin/{t}", f"/sbin/{t}")
                                     if os.path.exists(p)), None)
         for t in ("munged", "mungekey", "slurmctld", "slurmd", "sbatch", "sinfo")}
missing = [t for t, p in tools.items() if not p]
if missing:
    skip(f"{', '.join(missing)} not installed (packages slurm-wlm and munge)")
if os.geteuid() != 0:
    skip("slurmd launches jobs as root only here: not running as root")

tmp = tempfile.mkdtemp(prefix="esl-slurm-")
daemons = []  # (name, Popen), stopped in reverse order


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def stop_daemons():
    for name, p in reversed(daemons):
        if p.poll() is None:
            p.send_signal(signal.SIGTERM)
            try:
                p.wait(timeout=15)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait(timeout=15)
    daemons.clear()


# however the test ends (an exception, meson's SIGTERM at its timeout), the daemons stop
atexit.register(stop_daemons)
signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))


def log_tail(name, n=5):
    try:
        with open(os.path.join(tmp, name), errors="replace") as f:
            return " | ".join(l.strip() for l in f.readlines()[-n:])
    except OSError:
        return ""


def give_up(reason):
    stop_daemons()
    shutil.rmtree(tmp, ignore_errors=True)
    skip(reason)


def start(name, argv, out):
    f = open(os.path.join(tmp, out), "w")
    p = subprocess.Popen(argv, stdout=f, stderr=subprocess.STDOUT, env=senv, cwd=tmp)
    daemons.append((name, p))
    return p


host = socket.gethostname().split(".")[0]
munge_dir = os.path.join(tmp, "munge")
os.makedirs(munge_dir, mode=0o700)
for d in ("state", "spool", "shards"):
    os.makedirs(os.path.join(tmp, d))
key, sock = os.path.join(munge_dir, "munge.key"), os.path.join(munge_dir, "munge.socket")
conf = os.path.join(tmp, "slurm.conf")
senv = dict(env, SLURM_CONF=conf)
r = subprocess.run([tools["mungekey"], "-c", "-k", key, "-b", "1024"], capture_output=True,
                   text=True, timeout=30)
if r.returncode != 0:
    give_up(f"mungekey cannot make a key: {r.stderr.strip()}")
os.chmod(key, 0o600)
ctld_port, d_port = free_port(), free_port()
with open(conf, "w") as f:
    f.write(f"""ClusterName=eslabon-test
SlurmctldHost={host}(127.0.0.1)
SlurmctldPort={ctld_port}
SlurmdPort={d_port}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket={sock}
CredType=cred/munge
StateSaveLocation={tmp}/state
SlurmdSpoolDir={tmp}/spool
SlurmctldPidFile={tmp}/slurmctld.pid
SlurmdPidFile={tmp}/slurmd.pid
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
SwitchType=switch/none
ReturnToService=2
NodeName={host} NodeAddr=127.0.0.1 CPUs=2 RealMemory=1000 State=UNKNOWN
PartitionName=test Nodes={host} Default=YES MaxTime=10 State=UP
""")
start("munged", [tools["munged"], "-F", "-f", f"--key-file={key}", f"--socket={sock}",
                 f"--pid-file={munge_dir}/munged.pid", f"--seed-file={munge_dir}/munge.seed",
                 f"--log-file={munge_dir}/munged.log"], "munged.out")
t = time.time() + 15
while not os.path.exists(sock) and time.time() < t and daemons[-1][1].poll() is None:
    time.sleep(0.1)
if not os.path.exists(sock):
    give_up(f"munged did not start: {log_tail('munged.out')}")
start("slurmctld", [tools["slurmctld"], "-D", "-f", conf], "slurmctld.out")
time.sleep(1)
start("slurmd", [tools["slurmd"], "-D", "-f", conf, "-N", host], "slurmd.out")
state = ""
t = time.time() + 60
while time.time() < t and all(p.poll() is None for _, p in daemons):
    r = subprocess.run([tools["sinfo"], "-h", "-o", "%T"], capture_output=True, text=True,
                       env=senv, timeout=30)
    state = r.stdout.strip()
    if state == "idle":
        break
    time.sleep(0.5)
if state != "idle":
    give_up(f"the one-node Slurm did not come up (node state '{state}'): slurmctld: "
            f"{log_tail('slurmctld.out')}; slurmd: {log_tail('slurmd.out')}")

try:
    ok(True, f"munged, slurmctld and slurmd up on loopback (ports {ctld_port}, {d_port}), "
       f"node {host} idle")
    # the test_study five-bar with its stiffnesses as parameters
    with open(os.path.join(models, "five-bar.json")) as f:
        model = json.load(f)
    model["parameters"] = {"k1": 100, "k2": 100, **model["parameters"]}
    model["forces"][0]["stiffness"] = "k1"
    model["forces"][1]["stiffness"] = "k2"
    five_bar = os.path.join(tmp, "five-bar-k.json")
    with open(five_bar, "w") as f:
        json.dump(model, f, indent=1)

    def run(*args, timeout=300):
        return subprocess.run([cli, *args], capture_output=True, text=True, cwd=tmp,
                              timeout=max(10, min(timeout, DEADLINE - time.time())), env=env)

    def both_ways(name, plan_args, ncases):
        """Plan, run on the local pool and under Slurm, collect both; the two merged runs."""
        for d in ("pool", "slurm"):
            os.makedirs(os.path.join(tmp, name, d))
        pool_json = os.path.join(tmp, name, "pool", "study.json")
        slurm_json = os.path.join(tmp, name, "slurm", "study.json")
        r = run("study", "plan", five_bar, *plan_args, "--output", pool_json)
        shutil.copy(pool_json, slurm_json)
        r1 = run("study", "run", pool_json, "--jobs", "2")
        ok(r.returncode == 0 and r1.returncode == 0 and f"{ncases} run now" in r1.stdout,
           f"{name}: {ncases} cases on the local pool {r1.stdout.strip()} {r1.stderr.strip()}")
        r = run("study", "run", slurm_json, "--emit", "slurm", "--partition", "test", "--time",
                "00:05:00", "--max-parallel", "2")
        script = os.path.join(tmp, name, "slurm", "study.sbatch")
        r = subprocess.run([tools["sbatch"], "--parsable", "--wait", script],
                           capture_output=True, text=True, cwd=tmp, env=senv,
                           timeout=max(10, DEADLINE - time.time() - 30))
        job = r.stdout.strip().split(";")[0]
        ok(r.returncode == 0 and job.isdigit(), f"{name}: sbatch --wait: array job {job} of "
           f"{ncases} tasks ended, exit {r.returncode} {r.stderr.strip()}")
        outs = []
        for d, j in (("pool", pool_json), ("slurm", slurm_json)):
            out = os.path.join(tmp, name, d + ".eslabon")
            r = run("study", "collect", j, "--output", out)
            outs.append((r, out))
        ok(all(r.returncode == 0 and f"{ncases} runs copied" in r.stdout and
               "0 partial" in r.stdout and "0 missing" in r.stdout for r, _ in outs),
           f"{name}: both merged: {[r.stdout.strip() for r, _ in outs]}")
        return runs_of(outs[0][1]), runs_of(outs[1][1]), job

    def runs_of(path):
        db = sqlite3.connect(path)
        out = {}
        for rid, status, prov, params in db.execute(
                "SELECT r.id, r.status, p.json, r.parameters FROM runs r JOIN run_provenance p"
                " ON p.run_id = r.id"):
            pj = json.loads(prov)
            out[pj["study"]["case"]] = (status, pj, db.execute(
                "SELECT time, kinetic, potential_gravity, potential_elastic, total, phi, dphi,"
                " ddphi, poses, violations FROM samples WHERE run_id = ? ORDER BY seq",
                (rid,)).fetchall(), params)
        db.close()
        return out

    def identical(name, a, b, ncases, job):
        same = [k for k in range(ncases) if k in a and k in b and
                a[k][0] == b[k][0] == "finished" and a[k][2] == b[k][2] and
                len(a[k][2]) > 10 and a[k][3] == b[k][3] and
                a[k][1]["study"]["objectives"] == b[k][1]["study"]["objectives"]]
        ok(len(same) == ncases, f"{name}: Slurm and pool runs identical bit for bit (samples, "
           f"poses, parameters, objectives) in {len(same)}/{ncases} cases")
        ids = [b[k][1].get("slurm", {}) for k in sorted(b)]
        ok(all(s.get("array_job_id") == job and s.get("array_task_id") == str(k) and
               s.get("cluster") == "eslabon-test" for k, s in enumerate(ids)),
           f"{name}: each Slurm run records its array job {job}, its task id and the cluster")

    a, b, job = both_ways("full", ["--parameter", "k1=50:150:5", "--parameter", "k2=50:150:5",
                                   "--duration", "0.2", "--step", "0.002", "--objectives",
                                   "max:A1:kinetic"], 25)
    identical("5 x 5 full factorial", a, b, 25, job)
    a, b, job = both_ways("lhs", ["--parameter", "k1=50:150", "--parameter", "k2=20:80",
                                  "--parameter", "m_A1=0.5:2", "--design", "lhs", "--samples",
                                  "20", "--seed", "3", "--duration", "0.1", "--step", "0.002",
                                  "--objectives", "final:12:2:y"], 20)
    identical("Latin hypercube of 20 over k1, k2, m_A1", a, b, 20, job)
finally:
    stop_daemons()
ok(not daemons, "the daemons started here are stopped")
shutil.rmtree(tmp, ignore_errors=True)
done()
