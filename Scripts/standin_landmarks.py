"""The 68 landmarks gazerec finds on each frame of a video or picture, for the stand-in scripts
(draw_glasses.py, face_standins.py): NumPy and the gazerec binary only."""
import json
import subprocess
import sys

import numpy as np


def landmarks_per_frame(gazerec, path, script):
    """The 68 landmarks of every frame of `path` (None where no face was found); `script` names the
    caller in the one-line error when gazerec fails."""
    return [frame and frame[0] for frame in analysed_frames(gazerec, path, script)]


def analysed_frames(gazerec, path, script):
    """Per frame of `path`: (68 x 2 landmarks, (yaw, pitch, roll) in degrees, NaN where absent), or
    None where no face was found; `script` names the caller in the one-line error when gazerec fails."""
    result = subprocess.run([gazerec, "analyze", "--input", path, "--landmarks", "--quiet"], capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"{script}: gazerec analyze failed on {path}: {result.stderr.strip().splitlines()[-1:]}")
    frames = []
    for line in result.stdout.splitlines():
        row = json.loads(line)
        if not row.get("face") or row.get("x0") is None:
            frames.append(None)
            continue
        points = np.array([[row[f"x{i}"], row[f"y{i}"]] for i in range(68)], dtype=float)
        pose = np.array([row.get(f"{angle}Degrees", np.nan) for angle in ("yaw", "pitch", "roll")], dtype=float)
        frames.append((points, pose))
    return frames
