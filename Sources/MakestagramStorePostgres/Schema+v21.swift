import Foundation

extension Schema {
    /// Alt text: what a post's photo shows, in its author's words (``PostImage/altText``), and the same for a photo
    /// uploaded ahead of its post. Null when the author wrote none.
    static let v21 = """
        ALTER TABLE posts ADD COLUMN alt_text text;
        ALTER TABLE media_uploads ADD COLUMN alt_text text;
        """
}
