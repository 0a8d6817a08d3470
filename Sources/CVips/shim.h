// CVips: libvips as a system library (pkg-config vips), and a shim for its variadic C calls, which Swift cannot
// make; only Photos uses it.
#ifndef MAKESTAGRAM_CVIPS_SHIM_H
#define MAKESTAGRAM_CVIPS_SHIM_H

#include <vips/vips.h>

/* Swift cannot call C variadic functions; these wrappers fix the optional arguments Photos uses. */

/* Opens an image lazily: only the header is read until pixels are asked for. */
static inline VipsImage *mk_open_header(const void *buf, size_t len) {
    return vips_image_new_from_buffer(buf, len, "", "access", VIPS_ACCESS_SEQUENTIAL, NULL);
}

/* Decodes, applies the EXIF orientation and shrinks to fit width x height.
 * crop != 0 fills the box exactly (centre of interest); upscale == 0 never enlarges.
 * Truncated input fails instead of being padded with grey. */
static inline int mk_thumbnail(const void *buf, size_t len, VipsImage **out, int width, int height, int crop,
                               int upscale) {
    return vips_thumbnail_buffer((void *)buf, len, out, width, "height", height, "size",
                                 upscale ? VIPS_SIZE_BOTH : VIPS_SIZE_DOWN, "crop",
                                 crop ? VIPS_INTERESTING_ATTENTION : VIPS_INTERESTING_NONE, "option_string",
                                 "fail_on=truncated", NULL);
}

/* Flattens an alpha channel onto white (JPEG has no transparency). */
static inline int mk_flatten_white(VipsImage *in, VipsImage **out) {
    double white[3] = {255.0, 255.0, 255.0};
    VipsArrayDouble *background = vips_array_double_new(white, 3);
    int result = vips_flatten(in, out, "background", background, NULL);
    vips_area_unref(VIPS_AREA(background));
    return result;
}

/* Encodes as progressive JPEG with every metadata block (EXIF, GPS, XMP, IPTC, ICC, comments) removed. */
static inline int mk_jpeg_save(VipsImage *in, void **buf, size_t *len, int quality) {
    return vips_jpegsave_buffer(in, buf, len, "Q", quality, "strip", TRUE, "optimize_coding", TRUE, "interlace",
                                TRUE, NULL);
}

/* Converts to 8-bit sRGB, whatever the source colourspace and depth. */
static inline int mk_to_srgb(VipsImage *in, VipsImage **out) {
    return vips_colourspace(in, out, VIPS_INTERPRETATION_sRGB, NULL);
}

static inline int mk_cast_uchar(VipsImage *in, VipsImage **out) {
    return vips_cast(in, out, VIPS_FORMAT_UCHAR, NULL);
}

static inline void mk_unref(VipsImage *image) { g_object_unref(image); }

#endif
