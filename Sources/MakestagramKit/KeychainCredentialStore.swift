#if canImport(Security)
    import Foundation
    import Security

    /// Keeps sessions in the Keychain (generic passwords of service `dev.makestagram`, one account per server),
    /// readable only while the device is unlocked and never synced to other devices.
    public struct KeychainCredentialStore: CredentialStore {
        /// The Keychain service the items are filed under.
        public let service: String

        public init(service: String = "dev.makestagram") {
            self.service = service
        }

        private func query(_ server: URL) -> [String: Any] {
            [
                kSecClass as String: kSecClassGenericPassword,
                kSecAttrService as String: service,
                kSecAttrAccount as String: server.absoluteString,
            ]
        }

        public func load(server: URL) throws -> Credentials? {
            var query = query(server)
            query[kSecReturnData as String] = true
            query[kSecMatchLimit as String] = kSecMatchLimitOne
            var item: CFTypeRef?
            let status = SecItemCopyMatching(query as CFDictionary, &item)
            if status == errSecItemNotFound { return nil }
            guard status == errSecSuccess, let data = item as? Data else { throw KeychainError(status: status) }
            return try JSONDecoder().decode(Credentials.self, from: data)
        }

        public func save(_ credentials: Credentials) throws {
            let data = try JSONEncoder().encode(credentials)
            try delete(server: credentials.server)
            var item = query(credentials.server)
            item[kSecValueData as String] = data
            item[kSecAttrAccessible as String] = kSecAttrAccessibleWhenUnlockedThisDeviceOnly
            let status = SecItemAdd(item as CFDictionary, nil)
            guard status == errSecSuccess else { throw KeychainError(status: status) }
        }

        public func delete(server: URL) throws {
            let status = SecItemDelete(query(server) as CFDictionary)
            guard status == errSecSuccess || status == errSecItemNotFound else { throw KeychainError(status: status) }
        }
    }

    /// A Keychain call failed with `status` (an `OSStatus`).
    public struct KeychainError: Error, Sendable {
        public let status: OSStatus
    }
#endif
