"""The 68 landmarks gazerec finds on each frame of a video or picture, for the stand-in scripts
(draw_glasses.py, face_standins.py): NumPy and the gazerec binary only."""
import json
import subprocess
import sys

import numpy as np


def landmarks_per_frame(gazerec, path, script):
    """The 68 landmarks of every frame of `path` (None where no face was found); `script` names the
    caller in the one-line error when gazerec fails."""
    result = subprocess.run([gazerec, "analyze", "--input", path, "--landmarks"], capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"{script}: gazerec analyze failed on {path}: {result.stderr.strip().splitlines()[-1:]}")
    frames = []
    for line in result.stdout.splitlines():
        row = json.loads(line)
        if not row.get("face") or row.get("x0") is None:
            frames.append(None)
            continue
        frames.append(np.array([[row[f"x{i}"], row[f"y{i}"]] for i in range(68)], dtype=float))
    return frames
