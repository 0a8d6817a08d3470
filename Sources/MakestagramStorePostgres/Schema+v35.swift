import Foundation

extension Schema {
    /// A change's `seq` is drawn only once its transaction has its `xid`: the identity column drew it first (column
    /// defaults are computed in column order), so a transaction could hold a seq for a moment before it had an xid.
    /// A durable consumer's floor (``ConsumerPosition``) rests on every seq read from the sequence belonging to a
    /// transaction with an xid, which a later snapshot can then see end.
    static let v35 = """
        CREATE SEQUENCE change_seq AS bigint;
        PERFORM setval('change_seq', (SELECT last_value FROM changes_seq_seq));
        ALTER TABLE changes ALTER COLUMN seq DROP IDENTITY;
        ALTER SEQUENCE change_seq OWNED BY changes.seq;
        CREATE FUNCTION next_change_seq() RETURNS bigint LANGUAGE sql VOLATILE AS $$
          SELECT CASE WHEN pg_current_xact_id() IS NOT NULL THEN nextval('change_seq') END
        $$;
        ALTER TABLE changes ALTER COLUMN seq SET DEFAULT next_change_seq();
        """
}
