import Foundation

extension Schema {
    /// People search by two letters anywhere in a name ("ob" finds bob): the pairs of neighbouring characters of each
    /// search key, under an expression index (pg_trgm can use no pattern shorter than three characters). A pair across
    /// the username and the name (around the line feed) is left out, as on SQLite.
    static let v17 = """
        CREATE FUNCTION search_pairs(key text) RETURNS text[] LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $f$
          SELECT coalesce(array_agg(DISTINCT substr(key, n, 2)), '{}')
          FROM generate_series(1, length(key) - 1) AS n WHERE position(chr(10) IN substr(key, n, 2)) = 0
        $f$;
        CREATE INDEX users_search_pairs ON users USING gin (search_pairs(search_key));
        """
}
