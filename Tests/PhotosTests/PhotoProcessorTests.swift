import Foundation
import Photos
import TestFixtures
import Testing

@Suite struct PhotoProcessorTests {
    let processor = PhotoProcessor()

    func header(_ data: Data) throws -> ImageHeader {
        try data.withUnsafeBytes { try ImageHeader.read($0) }
    }

    /// Bytes that betray location or camera metadata, whatever container they sit in.
    func assertNoMetadata(_ data: Data, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let info = try header(data)
        #expect(info.metadata.isEmpty, "metadata left: \(info.metadata)", sourceLocation: sourceLocation)
        #expect(info.orientation == 1, sourceLocation: sourceLocation)
        for marker in ["Exif\0\0", "GPS", "http://ns.adobe.com/xap", "Photoshop 3.0"] {
            #expect(data.range(of: Data(marker.utf8)) == nil, "found \(marker)", sourceLocation: sourceLocation)
        }
    }

    @Test(arguments: Fixtures.acceptedPhotos)
    func acceptsRealPhotosAndStripsEverything(name: String) throws {
        let photo = try processor.process(Fixtures.photo(name))
        #expect(photo.full.width <= PhotoProcessor.fullWidth)
        #expect(photo.thumb.width == PhotoProcessor.thumbSize && photo.thumb.height == PhotoProcessor.thumbSize)
        try assertNoMetadata(photo.full.data)
        try assertNoMetadata(photo.thumb.data)
        #expect(try header(photo.full.data).format == .jpeg)
        #expect(try header(photo.full.data).width == photo.full.width)
        #expect(photo.variants.map(\.width) == PhotoProcessor.variantWidths(upTo: photo.width))
        for variant in photo.variants {
            try assertNoMetadata(variant.data)
            #expect(variant.format == .webp && variant.fileExtension == "webp")
            let info = try header(variant.data)
            #expect(info.format == .webp && info.width == variant.width && info.height == variant.height)
            // The photo's aspect, within a pixel's rounding.
            #expect(abs(variant.height - variant.width * photo.height / photo.width) <= 1)
        }
    }

    @Test func sourcesReallyCarryTheMetadataWeStrip() throws {
        #expect(try header(Fixtures.photo("phone-gps-rotated.jpg")).metadata.contains("exif-data"))
        #expect(try header(Fixtures.photo("phone-gps-rotated.jpg")).metadata.contains("xmp-data"))
        #expect(try header(Fixtures.photo("chelsea-gps.heic")).metadata.contains("exif-data"))
    }

    @Test func rotatedPhonePhotoComesOutUpright() throws {
        let source = try header(Fixtures.photo("phone-gps-rotated.jpg"))
        #expect(source.storedWidth == 4032 && source.orientation == 6)
        let photo = try processor.process(Fixtures.photo("phone-gps-rotated.jpg"))
        #expect(photo.width == 2688 && photo.height == 4032)
        #expect(photo.full.width == 1080 && photo.full.height == 1620)
        #expect(photo.variants.map(\.width) == [320, 640, 1080, 1440])
        #expect(photo.variants.map(\.height) == [480, 960, 1620, 2160])
    }

    @Test func smallPhotosAreNeverUpscaled() throws {
        let photo = try processor.process(Fixtures.photo("chelsea.jpg"))
        #expect(photo.width == 451 && photo.height == 300)
        #expect(photo.full.width == 451 && photo.full.height == 300)
        #expect(photo.variants.map(\.width) == [320, 451], "the photo's own width is the sharpest variant")
        #expect(PhotoProcessor.variantWidths(upTo: 200) == [200])
        #expect(PhotoProcessor.variantWidths(upTo: 1080) == [320, 640, 1080])
        #expect(PhotoProcessor.variantWidths(upTo: 5000) == [320, 640, 1080, 1440])
    }

    @Test func cropsToTheChosenAspectAroundTheCentre() throws {
        let tall = Fixtures.photo("phone-gps-rotated.jpg")  // 2688 × 4032 upright
        let portrait = try processor.process(tall, crop: .aspect(4.0 / 5.0))
        #expect(portrait.width == 2688 && portrait.height == 3360)
        #expect(portrait.full.width == 1080 && portrait.full.height == 1350)
        #expect(portrait.variants.last.map { [$0.width, $0.height] } == [1440, 1800])
        let square = try processor.process(tall, crop: .aspect(1))
        #expect(square.width == 2688 && square.height == 2688 && square.full.height == 1080)
        let landscape = try processor.process(tall, crop: .aspect(1.91))
        #expect(landscape.width == 2688 && landscape.height == 1407)
        #expect(landscape.full.width == 1080 && abs(landscape.full.height - 565) <= 1)
        // A wide photo cut to a portrait keeps its full height.
        let hubble = try processor.process(Fixtures.photo("hubble.jpg"), crop: .aspect(4.0 / 5.0))
        #expect(hubble.width == 698 && hubble.height == 872)
        #expect(hubble.full.width == 698 && hubble.full.height == 872)
        try assertNoMetadata(portrait.full.data)
        #expect(
            PhotoProcessor.croppedSize(width: 100, height: 100, crop: .original) == (100, 100)
                && PhotoProcessor.croppedSize(width: 3, height: 1, crop: .aspect(1)) == (1, 1))
    }

    @Test func detectsFormatsFromContent() throws {
        #expect(ImageFormat.detect(Fixtures.photo("astronaut.png")) == .png)
        #expect(ImageFormat.detect(Fixtures.photo("chelsea.webp")) == .webp)
        #expect(ImageFormat.detect(Fixtures.photo("chelsea-gps.heic")) == .heic)
        #expect(ImageFormat.detect(Fixtures.photo("not-an-image.jpg")) == nil)
        #expect(ImageFormat.detect(Data("%PDF-1.7\n".utf8)) == nil)
        #expect(ImageFormat.detect(Data("<svg xmlns=\"http://www.w3.org/2000/svg\"/>".utf8)) == nil)
    }

    @Test func refusesTextAndTruncatedImages() throws {
        #expect(throws: PhotoError.unsupportedFormat) { try processor.process(Fixtures.photo("not-an-image.jpg")) }
        #expect {
            try processor.process(Fixtures.photo("truncated.jpg"))
        } throws: { error in
            if case .invalidImage = error as? PhotoError { return true }
            return false
        }
        #expect {
            try processor.process(Data([0xFF, 0xD8, 0xFF, 0xE0, 0, 0, 0, 0]))
        } throws: { error in
            if case .invalidImage = error as? PhotoError { return true }
            return false
        }
    }

    @Test func refusesTooManyPixelsFromTheHeader() throws {
        let small = PhotoProcessor(maxPixels: 1_000_000)
        #expect(throws: PhotoError.tooManyPixels(width: 2688, height: 4032, limit: 1_000_000)) {
            try small.process(Fixtures.photo("phone-gps-rotated.jpg"))
        }
    }
}
