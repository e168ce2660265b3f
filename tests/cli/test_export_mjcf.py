"""eslabon-cli export --format mjcf (issue 29): the XML's structure (one MuJoCo body per moving
body, one joint per relative coordinate, one connect per planar cut joint, the keyframe's sizes),
refusals with a reason, and, where eslabon-cli was built with MuJoCo, that MuJoCo loads it and its
initial energy equals ours to 1e-8 relative (`bench peer`'s first line); otherwise a TAP skip."""
import os, re, subprocess, xml.etree.ElementTree as ET
from cli_tap import cli, models, env, ok, done


def export(model, *args):
    return subprocess.run([cli, "export", "--format", "mjcf", os.path.join(models, model), *args],
                          capture_output=True, text=True, timeout=300, env=env)


# The 1x15 lattice: 45 bars, 60 revolute joints about X, 15 of them cut (every axis along X, so
# planar: one connect each), 45 tree coordinates.
r = export("multi-four-bar-1x15.json", "--step", "0.025", "--integrator", "Euler")
ok(r.returncode == 0, f"1x15 exported ({r.stderr.strip()})")
root = ET.fromstring(r.stdout) if r.returncode == 0 else ET.Element("mujoco")
bodies = root.findall(".//worldbody//body")
joints = root.findall(".//worldbody//joint")
connects = root.findall("./equality/connect")
key = root.find("./keyframe/key")
ok(len(bodies) == 45, f"45 bodies ({len(bodies)})")
ok(len(joints) == 45 and all(j.get("type") == "hinge" for j in joints),
   f"45 hinge joints ({len(joints)})")
ok(len(connects) == 15, f"15 connect equalities ({len(connects)})")
ok(all(c.get("body1") != "world" for c in connects), "connects anchored on a moving body1")
opt = root.find("./option")
ok(opt is not None and opt.get("integrator") == "Euler" and float(opt.get("timestep")) == 0.025
   and float(opt.get("gravity").split()[2]) == -9.81, "option: integrator, step, gravity")
qpos = key.get("qpos").split() if key is not None else []
qvel = key.get("qvel").split() if key is not None else []
ok(len(qpos) == 45 and len(qvel) == 45, "keyframe with 45 qpos and 45 qvel")
ok(any(abs(float(v)) > 0.5 for v in qvel), "keyframe velocities: the lattice's initial shear")
names = [b.get("name") for b in bodies]
ok(len(set(names)) == 45 and "v_0_0" in names, "bodies keep the model's names")

# The double pendulum (no loop): no equality section.
r = export("double-pendulum.json")
root = ET.fromstring(r.stdout) if r.returncode == 0 else None
ok(root is not None and root.find("./equality") is None and
   len(root.findall(".//worldbody//joint")) == 2, "double pendulum: 2 joints, no equality")

# What MJCF (or this writer) cannot express is refused with the reason.
for model, why in [("five-bar.json", "force element"), ("slider-crank.json", "")]:
    r = export(model)
    ok(r.returncode == 1 and "cannot write model" in r.stderr and why in r.stderr
       and r.stdout == "", f"{model} refused: {r.stderr.strip()}")
r = subprocess.run([cli, "export", "--format", "urdf", os.path.join(models, "double-pendulum.json")],
                   capture_output=True, text=True, timeout=60, env=env)
ok(r.returncode == 2 and "mjcf" in r.stderr, "unknown format refused")

# MuJoCo, where this build has it: it loads the XML and starts with our energy.
for model in ["multi-four-bar-1x15.json", "double-pendulum.json", "four-bar-spatial.json"]:
    r = subprocess.run([cli, "bench", "peer", os.path.join(models, model), "--runs", "1",
                        "--duration", "0.05", "--step", "0.01", "--formulation", "matrix-r"],
                       capture_output=True, text=True, timeout=300, env=env)
    if r.returncode != 0 and "without MuJoCo" in r.stderr:
        ok(True, f"{model} # SKIP eslabon-cli built without MuJoCo")
        continue
    m = re.search(r"relative difference ([0-9.e+-]+)", r.stdout)
    rel = float(m.group(1)) if m else float("inf")
    ok(r.returncode == 0 and rel <= 1e-8,
       f"{model}: MuJoCo loads it, initial energy equal to {rel:.1e} relative (<= 1e-8)")
    rows = [l for l in r.stdout.splitlines() if l.startswith("| MuJoCo") or l.startswith("| matrix-r")]
    ok(len(rows) == 3 and "failed" not in r.stdout, f"{model}: three rows, none failed")
done()
