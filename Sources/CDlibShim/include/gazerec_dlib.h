// gazerec_dlib.h — a plain C API over dlib's HOG face detector and 68-point shape predictor.
//
// WHAT THIS OBJECT REPRESENTS
//   Three opaque handles: gz_detector (dlib's frontal HOG face detector; on processors with AVX2,
//   a copy of it compiled for AVX2 that gives the same faces and scores), gz_cnn_detector (dlib's
//   CNN face detector, a model file of its own) and gz_predictor (a
//   shape_predictor loaded from a .dat model; gazerec evaluates the model itself, in Swift, and
//   keeps dlib's predictor as the reference its results are checked against). Images are 8-bit gray buffers owned by the caller:
//   every call WRAPS the caller's buffer, it does not copy it; the buffer must stay valid and
//   unchanged for the duration of the call only.
//
// THREAD SAFETY
//   gz_detector: one thread at a time per handle (dlib's detector call is non-const). Create one
//   per thread. gz_predictor: const after loading; may be shared by any number of threads.
//
// ERRORS
//   No C++ exception crosses this boundary. Functions that can fail take `error` (a buffer of
//   `error_size` bytes) and write a one-line, NUL-terminated reason into it on failure.

#ifndef GAZEREC_DLIB_H
#define GAZEREC_DLIB_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// A rectangle in pixels, inclusive corners as dlib reports them, with the detector's score
/// (larger is more confident; 0 for rectangles that did not come from the detector) and, for the
/// HOG detector, which of its five filters found it: 0 a face looking to the front, 1 looking to
/// the image's left, 2 looking to the image's right, 3 and 4 a front face rotated in the image
/// (dlib's `weight_index`, in the order of `get_frontal_face_detector`); -1 for rectangles that
/// did not come from the HOG detector (the CNN's, or given).
typedef struct gz_rect {
    long left;
    long top;
    long right;
    long bottom;
    double score;
    int filter;
} gz_rect;

/// The number of landmarks the shape predictor must produce.
#define GZ_LANDMARK_COUNT 68

typedef struct gz_detector gz_detector;
typedef struct gz_predictor gz_predictor;

/// Creates dlib's frontal face detector.
///   ensures: returns a handle, or NULL with `error` set.
gz_detector *gz_detector_create(char *error, size_t error_size);

/// Frees a detector (NULL is allowed).
void gz_detector_free(gz_detector *detector);

/// 1 if the detector runs the copy of dlib's HOG built for AVX2 (chosen at creation when the
/// processor has AVX2; same faces, same scores), 0 if the baseline build.
int gz_detector_wide(const gz_detector *detector);

/// Makes the detector run the baseline build from now on (for comparisons and benchmarks).
void gz_detector_drop_wide(gz_detector *detector);

/// Finds faces in a gray image.
///   requires: pixels points to height rows of width bytes, rows `stride` bytes apart (stride >= width);
///             upsample is 0 (image as is) or 1 (doubled first: finds faces down to ~40 px, 4x slower).
///   ensures:  writes up to `capacity` rectangles (in the given image's pixels, most confident first)
///             to `out` and returns how many faces were found (which may exceed capacity);
///             returns -1 with `error` set on failure.
int gz_detector_detect(gz_detector *detector, const uint8_t *pixels, long width, long height, long stride,
                       int upsample, double threshold, gz_rect *out, int capacity, char *error, size_t error_size);

/// Finds faces as gz_detector_detect does with only some of the detector's five filters: those
/// whose bit (1 << filter, the filter numbers of gz_rect) is set in `filters`. dlib keeps, of
/// overlapping faces, only the best-scoring one, whichever filter found it; looking with a subset
/// says whether those filters find a face another filter outscores. Runs the baseline build.
///   requires: as gz_detector_detect; filters has at least one of the bits 0-4 set.
///   ensures:  as gz_detector_detect; each rectangle's `filter` is the detector's own filter number.
int gz_detector_detect_filters(gz_detector *detector, const uint8_t *pixels, long width, long height, long stride,
                               int upsample, double threshold, int filters, gz_rect *out, int capacity, char *error,
                               size_t error_size);

typedef struct gz_cnn_detector gz_cnn_detector;

/// Loads dlib's CNN face detector (the MMOD model `mmod_human_face_detector.dat`).
///   ensures: returns a handle, or NULL with `error` set (missing file, not that network).
///   THREAD SAFETY: one thread at a time per handle.
gz_cnn_detector *gz_cnn_detector_load(const char *path, char *error, size_t error_size);

/// Frees a CNN detector (NULL is allowed).
void gz_cnn_detector_free(gz_cnn_detector *detector);

/// Finds faces in a gray image with the CNN (given to it as equal red, green and blue). Finds
/// faces down to about 40 px across; costs tens to hundreds of milliseconds, growing with the
/// image's area, so callers shrink the frame first.
///   requires: the image as for gz_detector_detect.
///   ensures:  as gz_detector_detect (scores are the network's detection confidences).
int gz_cnn_detector_detect(gz_cnn_detector *detector, const uint8_t *pixels, long width, long height, long stride,
                           gz_rect *out, int capacity, char *error, size_t error_size);

/// Loads a 68-point shape predictor model (dlib's .dat serialization).
///   ensures: returns a handle, or NULL with `error` set (missing file, not a dlib model, wrong part count).
gz_predictor *gz_predictor_load(const char *path, char *error, size_t error_size);

/// Frees a predictor (NULL is allowed).
void gz_predictor_free(gz_predictor *predictor);

/// Fits the 68 landmarks inside `box`.
///   requires: the image as for gz_detector_detect; `xy` holds 2 * GZ_LANDMARK_COUNT doubles.
///   ensures:  writes x0, y0, x1, y1, … in image pixels (dlib point order) and returns 0,
///             or returns -1 with `error` set.
int gz_predictor_fit(const gz_predictor *predictor, const uint8_t *pixels, long width, long height, long stride,
                     gz_rect box, double *xy, char *error, size_t error_size);

#ifdef __cplusplus
}
#endif

#endif
