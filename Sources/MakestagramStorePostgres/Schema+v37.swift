extension Schema {
    /// A like's row is found by its liker first: the unique pair becomes (user_id, post_id), which also serves "whose
    /// likes" (`likes_user` goes). A like then changes one index at a random place (`likes_post`, the post's likers in
    /// order) instead of two, as the SQLite store's v32.
    static let v37 = """
        CREATE UNIQUE INDEX likes_user_post ON likes(user_id, post_id);
        ALTER TABLE likes DROP CONSTRAINT IF EXISTS likes_post_id_user_id_key;
        DROP INDEX IF EXISTS likes_user;
        """
}
