extension Schema {
    /// People of other servers get no activity here (they read theirs on their own server, and never log in here):
    /// what was kept for them goes, its groups and unread counts with it. As the SQLite store's v31.
    static let v36 = """
        DELETE FROM activity WHERE recipient_id IN (SELECT user_id FROM remote_actors);
        """
}
