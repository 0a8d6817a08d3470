import CVips
import Foundation

/// Process-wide libvips set-up, done once before the first image is touched.
enum Vips {
    /// Starts libvips with untrusted loaders (PDF, SVG, ImageMagick, …) blocked and no operation cache,
    /// so memory is released as soon as an upload is done, and the C allocator limited to one arena per core
    /// (with eight uploads at a time this halved the server's peak resident size without slowing ingest:
    /// Benchmarks/HISTORY.md, "Photo ingest").
    static let ready: Bool = {
        mk_limit_allocator_arenas(Int32(max(2, ProcessInfo.processInfo.activeProcessorCount)))
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
