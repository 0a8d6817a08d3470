import CVips
import Foundation

/// Process-wide libvips set-up, done once before the first image is touched.
enum Vips {
    /// Starts libvips with untrusted loaders (PDF, SVG, ImageMagick, …) blocked and no operation cache,
    /// so memory is released as soon as an upload is done.
    static let ready: Bool = {
        guard vips_init("makestagram") == 0 else { return false }
        vips_block_untrusted_set(1)
        vips_cache_set_max(0)
        vips_concurrency_set(1)
        return true
    }()

    /// Takes libvips' pending error text and clears it.
    static func takeError() -> String {
        let message = String(cString: vips_error_buffer()).trimmingCharacters(in: .whitespacesAndNewlines)
        vips_error_clear()
        return message.isEmpty ? "libvips reported an unknown error" : message
    }
}
