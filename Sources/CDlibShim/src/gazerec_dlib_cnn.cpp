// dlib's CNN face detector (max-margin object detection, MMOD) behind the plain C API of
// include/gazerec_dlib.h. A separate file: dlib's neural-network templates are slow to compile.

#include "gazerec_dlib.h"

#include <dlib/dnn.h>
#include <dlib/image_transforms.h>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

namespace {

// The network the serialized model was trained as (dlib's published MMOD face detector): a 8x
// downsampling front end of three strided 5x5 convolutions, three 5x5 convolutions of 45
// filters, and a 9x9 detection layer, run over an image pyramid with steps of 5/6.
template <long filters, typename SUBNET> using con5d = dlib::con<filters, 5, 5, 2, 2, SUBNET>;
template <long filters, typename SUBNET> using con5 = dlib::con<filters, 5, 5, 1, 1, SUBNET>;
template <typename SUBNET>
using downsampler = dlib::relu<dlib::affine<con5d<32, dlib::relu<dlib::affine<con5d<32, dlib::relu<dlib::affine<con5d<16, SUBNET>>>>>>>>>;
template <typename SUBNET> using rcon5 = dlib::relu<dlib::affine<con5<45, SUBNET>>>;
using mmod_net = dlib::loss_mmod<dlib::con<1, 9, 9, 1, 1, rcon5<rcon5<rcon5<downsampler<
    dlib::input_rgb_image_pyramid<dlib::pyramid_down<6>>>>>>>>;

void set_error(char *error, size_t size, const std::string &message) {
    if (error == nullptr || size == 0) return;
    std::string line = message;
    std::replace(line.begin(), line.end(), '\n', ' ');
    std::snprintf(error, size, "%s", line.c_str());
}

} // namespace

struct gz_cnn_detector {
    mmod_net net;
    dlib::matrix<dlib::rgb_pixel> image;
};

extern "C" gz_cnn_detector *gz_cnn_detector_load(const char *path, char *error, size_t error_size) {
    if (path == nullptr) {
        set_error(error, error_size, "no model path");
        return nullptr;
    }
    gz_cnn_detector *handle = nullptr;
    try {
        handle = new gz_cnn_detector;
        dlib::deserialize(path) >> handle->net;
        return handle;
    } catch (const std::exception &e) {
        set_error(error, error_size, e.what());
    } catch (...) {
        set_error(error, error_size, "unknown error while reading the model");
    }
    delete handle;
    return nullptr;
}

extern "C" void gz_cnn_detector_free(gz_cnn_detector *detector) { delete detector; }

extern "C" int gz_cnn_detector_detect(gz_cnn_detector *detector, const uint8_t *pixels, long width, long height,
                                      long stride, gz_rect *out, int capacity, char *error, size_t error_size) {
    if (detector == nullptr) {
        set_error(error, error_size, "no detector");
        return -1;
    }
    if (pixels == nullptr || width <= 0 || height <= 0 || stride < width) {
        set_error(error, error_size, "invalid image buffer");
        return -1;
    }
    try {
        // The network reads colour; a gray frame is given as equal red, green and blue.
        detector->image.set_size(height, width);
        for (long y = 0; y < height; ++y) {
            const uint8_t *row = pixels + y * stride;
            for (long x = 0; x < width; ++x) detector->image(y, x) = dlib::rgb_pixel(row[x], row[x], row[x]);
        }
        std::vector<dlib::mmod_rect> found = detector->net(detector->image);
        std::sort(found.begin(), found.end(), [](const dlib::mmod_rect &a, const dlib::mmod_rect &b) {
            return a.detection_confidence > b.detection_confidence;
        });
        const int count = static_cast<int>(found.size());
        for (int i = 0; i < count && i < capacity; ++i) {
            const dlib::rectangle &r = found[i].rect;
            out[i].left = r.left();
            out[i].top = r.top();
            out[i].right = r.right();
            out[i].bottom = r.bottom();
            out[i].score = found[i].detection_confidence;
        }
        return count;
    } catch (const std::exception &e) {
        set_error(error, error_size, std::string("face detection failed: ") + e.what());
    } catch (...) {
        set_error(error, error_size, "face detection failed: unknown error");
    }
    return -1;
}
