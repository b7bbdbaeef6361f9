"""Writes a constructed gazerec session as EyeTracking JSON (with gazerec's per-frame data, eye
appearance included), as long as asked: the input of Scripts/bench-push.sh.

usage: make_session.py SECONDS FPS OUT.json
"""
import base64
import json
import math
import random
import struct
import sys
import uuid

seconds, fps, out = float(sys.argv[1]), float(sys.argv[2]), sys.argv[3]
count = int(seconds * fps)
random.seed(7)
begin = 1_700_000_000.0
session_id = str(uuid.UUID(int=random.getrandbits(128))).upper()
with open(out, "w") as f:
    f.write('{"id":"%s","appID":"bench","beginTime":%r,"endTime":%r,' % (session_id, begin, begin + count / fps))
    f.write('"deviceInfo":{"model":"bench","screenSize":[1600,900],"systemName":"Linux","systemVersion":"6"},')
    f.write('"scanPath":[')
    for i in range(count):
        t = begin + i / fps
        f.write(("," if i else "") + '{"timestamp":%r,"x":%r,"y":%r,"orientation":3}'
                % (t, 800 + 600 * math.sin(i / 97), 450 + 300 * math.cos(i / 61)))
    f.write('],"blendShapes":{')
    for n, name in enumerate(["eyeBlink_L", "eyeBlink_R"]):
        f.write(("," if n else "") + '"%s":[' % name)
        for i in range(count):
            f.write(("," if i else "") + '{"blendShapeLocation":"%s","value":%r,"timestamp":%r,"orientation":3}'
                    % (name, round(random.random() * 0.2, 4), begin + i / fps))
        f.write("]")
    f.write('},"gazerec":{"formatVersion":1,"frames":[')
    for i in range(count):
        landmarks = [200 + random.random() * 240 for _ in range(136)]
        blob = bytes([1]) + struct.pack("<136f", *landmarks) + bytes(random.getrandbits(8) for _ in range(256))
        f.write(("," if i else "") + json.dumps({
            "timestamp": begin + i / fps, "trackingState": "normal", "confidence": 0.9,
            "opennessLeft": 0.8, "opennessRight": 0.8, "pupilLeftU": 0.5, "pupilLeftV": 0.1,
            "pupilRightU": 0.5, "pupilRightV": 0.1, "yawDegrees": -3.5, "pitchDegrees": 12.0, "rollDegrees": 0.5,
            "tx": -10.0, "ty": 20.0, "tz": 600.0, "appearance": base64.b64encode(blob).decode()},
            separators=(",", ":")))
    f.write("]}}")
print(session_id)
