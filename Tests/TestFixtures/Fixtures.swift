import Foundation

/// The real photos the tests upload (copied from the project's shared fixtures; see photos/README.md).
public enum Fixtures {
    /// The bytes of the fixture photo named `name` (for example `chelsea.jpg`).
    public static func photo(_ name: String) -> Data {
        guard let url = Bundle.module.url(forResource: name, withExtension: nil, subdirectory: "photos"),
            let data = try? Data(contentsOf: url)
        else { fatalError("missing test fixture photos/\(name)") }
        return data
    }

    /// Every fixture photo the server must accept.
    public static let acceptedPhotos = [
        "astronaut.jpg", "astronaut.png", "chelsea.jpg", "chelsea.webp", "chelsea-gps.heic", "hubble.jpg",
        "phone-gps-rotated.jpg", "rocket.jpg",
    ]
}
