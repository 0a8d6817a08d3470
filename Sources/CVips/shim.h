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

/* How a thumbnail fills its box: it fits inside (none), or fills it exactly, cut around the centre or around what
 * libvips finds most interesting. */
enum { MK_FIT = 0, MK_CROP_CENTRE = 1, MK_CROP_ATTENTION = 2 };

static inline VipsInteresting mk_interesting(int crop) {
    return crop == MK_CROP_CENTRE ? VIPS_INTERESTING_CENTRE
           : crop == MK_CROP_ATTENTION ? VIPS_INTERESTING_ATTENTION
                                       : VIPS_INTERESTING_NONE;
}

/* Decodes, applies the EXIF orientation and shrinks to the width x height box as `crop` says; upscale == 0 never
 * enlarges. Truncated input fails instead of being padded with grey. */
static inline int mk_thumbnail(const void *buf, size_t len, VipsImage **out, int width, int height, int crop,
                               int upscale) {
    return vips_thumbnail_buffer((void *)buf, len, out, width, "height", height, "size",
                                 upscale ? VIPS_SIZE_BOTH : VIPS_SIZE_DOWN, "crop", mk_interesting(crop),
                                 "option_string", "fail_on=truncated", NULL);
}

/* The same from an image already decoded (and upright). */
static inline int mk_thumbnail_image(VipsImage *in, VipsImage **out, int width, int height, int crop, int upscale) {
    return vips_thumbnail_image(in, out, width, "height", height, "size", upscale ? VIPS_SIZE_BOTH : VIPS_SIZE_DOWN,
                                "crop", mk_interesting(crop), NULL);
}

/* The pixels of `in`, computed once into memory, so that several variants are cut from one decode, with every
 * metadata field (EXIF, GPS, XMP, IPTC, ICC, comments) removed: whatever an encoder does, there is none to write. */
static inline VipsImage *mk_copy_memory(VipsImage *in) {
    VipsImage *copy = vips_image_copy_memory(in);
    if (copy == NULL) return NULL;
    gchar **fields = vips_image_get_fields(copy);
    for (int i = 0; fields[i] != NULL; i++) {
        const char *name = fields[i];
        if (g_str_has_suffix(name, "-data") || g_str_has_prefix(name, "exif-") || g_str_has_prefix(name, "png-comment")
            || g_str_equal(name, "orientation"))
            vips_image_remove(copy, name);
    }
    g_strfreev(fields);
    return copy;
}

/* Encodes as lossy WebP with no metadata. */
static inline int mk_webp_save(VipsImage *in, void **buf, size_t *len, int quality) {
    return vips_webpsave_buffer(in, buf, len, "Q", quality, "strip", TRUE, "effort", 4, NULL);
}

/* Encodes as AVIF (AV1 in HEIF) with no metadata. */
static inline int mk_avif_save(VipsImage *in, void **buf, size_t *len, int quality, int effort) {
    return vips_heifsave_buffer(in, buf, len, "Q", quality, "compression", VIPS_FOREIGN_HEIF_COMPRESSION_AV1,
                                "effort", effort, "strip", TRUE, NULL);
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

#if defined(__GLIBC__)
#include <malloc.h>
/* Returns the C allocator's free memory, in every thread's arena, to the system. */
static inline void mk_return_freed_memory(void) { malloc_trim(0); }
/* At most `count` allocator arenas (glibc's default is eight per core): every thread that decodes or encodes would
 * otherwise keep an arena of its own, each holding the freed buffers of the largest image it handled. */
static inline void mk_limit_allocator_arenas(int count) { mallopt(M_ARENA_MAX, count); }
#else
static inline void mk_return_freed_memory(void) {}
static inline void mk_limit_allocator_arenas(int count) { (void)count; }
#endif

#endif
