import MakestagramAPI
import Synchronization

/// The servers the moderators block, by domain: what federation asks before it takes anything from a server or sends
/// anything to it, on every request. The store loads it when it opens (``replaceAll(_:)``); after that only
/// ``StoreCaches/apply(_:)`` changes it, from ``StoreEvent/domainBlockChanged(domain:severity:)``, so that every
/// instance of a shared database learns a block through the change log.
package final class BlockedDomains: Sendable {
    private let domains = Mutex<[String: DomainBlockSeverity]>([:])

    package init() {}

    package func replaceAll(_ blocks: [String: DomainBlockSeverity]) {
        domains.withLock { $0 = blocks }
    }

    func set(_ domain: String, _ severity: DomainBlockSeverity?) {
        domains.withLock { $0[domain] = severity }
    }

    /// The strongest block that covers `host` (the block of a domain covers its subdomains); nil when none does.
    package func severity(ofHost host: String) -> DomainBlockSeverity? {
        domains.withLock { domains in
            guard !domains.isEmpty else { return nil }
            var found: DomainBlockSeverity?
            for name in DomainName.covering(host) {
                switch domains[name] {
                case .suspend: return .suspend
                case .limit: found = .limit
                case nil: continue
                }
            }
            return found
        }
    }
}
